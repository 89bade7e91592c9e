//! Implementation profiles: what differs between NapCat, LLOneBot,
//! Lagrange.OneBot, SnowLuma and go-cqhttp.

use std::fmt;

use onebot_gateway_config::FlavorChoice;

/// A OneBot implementation's behaviour profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Flavor {
    /// Plain OneBot v11: `message_seq` anchor, anchor included.
    #[default]
    Generic,
    /// NapCat: short-id `message_seq` anchor, anchor included, empty history
    /// is an error, poke needs the packet backend.
    NapCat,
    /// LLOneBot: real-seq `message_seq` anchor, anchor included.
    LlOneBot,
    /// Lagrange.OneBot: `message_id` anchor, retcode 1 failures, stringified
    /// echo in old versions.
    Lagrange,
    /// SnowLuma: `message_id` anchor (signed), `[]` until traffic is seen,
    /// errors in `wording`.
    SnowLuma,
    /// go-cqhttp: real-seq anchor with a fixed 20-message window, no private
    /// history, poke by segment, files by local path only.
    GoCqhttp,
}

/// The `flavor` setting: detect from `app_name`, or fixed by the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlavorSetting {
    /// Detect from `get_version_info.app_name`.
    Auto,
    /// Use this profile.
    Fixed(Flavor),
}

impl Flavor {
    /// Every flavor.
    pub const ALL: [Flavor; 6] = [
        Flavor::Generic,
        Flavor::NapCat,
        Flavor::LlOneBot,
        Flavor::Lagrange,
        Flavor::SnowLuma,
        Flavor::GoCqhttp,
    ];

    /// Parses a `flavor` setting: `auto` (or empty) or a flavor name, with
    /// the spellings [`FlavorChoice::parse`] accepts.
    pub fn parse_setting(s: &str) -> Option<FlavorSetting> {
        FlavorChoice::parse(s).map(|choice| match Flavor::from_choice(choice) {
            Some(flavor) => FlavorSetting::Fixed(flavor),
            None => FlavorSetting::Auto,
        })
    }

    /// Parses a flavor name (`napcat`, `llonebot`, `lagrange`, `snowluma`,
    /// `go-cqhttp`, `generic`, and the other spellings
    /// [`FlavorChoice::parse`] accepts); `auto` is not a flavor.
    pub fn from_name(s: &str) -> Option<Flavor> {
        FlavorChoice::parse(s).and_then(Flavor::from_choice)
    }

    /// The profile an explicit choice names; `None` for `Auto`.
    fn from_choice(choice: FlavorChoice) -> Option<Flavor> {
        Some(match choice {
            FlavorChoice::Auto => return None,
            FlavorChoice::Generic => Flavor::Generic,
            FlavorChoice::NapCat => Flavor::NapCat,
            FlavorChoice::LlOneBot => Flavor::LlOneBot,
            FlavorChoice::Lagrange => Flavor::Lagrange,
            FlavorChoice::SnowLuma => Flavor::SnowLuma,
            FlavorChoice::GoCqhttp => Flavor::GoCqhttp,
        })
    }

    /// Picks the profile from `get_version_info.app_name`.
    pub fn detect(app_name: &str) -> Flavor {
        let n = app_name.to_ascii_lowercase();
        if n.contains("napcat") {
            Flavor::NapCat
        } else if n.contains("llonebot") || n.contains("llbot") || n.contains("luckylillia") {
            Flavor::LlOneBot
        } else if n.contains("lagrange") {
            Flavor::Lagrange
        } else if n.contains("snowluma") {
            Flavor::SnowLuma
        } else if n.contains("go-cqhttp") || n.contains("gocqhttp") {
            Flavor::GoCqhttp
        } else {
            Flavor::Generic
        }
    }

    /// The setting name of this flavor.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Generic => "generic",
            Flavor::NapCat => "napcat",
            Flavor::LlOneBot => "llonebot",
            Flavor::Lagrange => "lagrange",
            Flavor::SnowLuma => "snowluma",
            Flavor::GoCqhttp => "go-cqhttp",
        }
    }
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_app_names() {
        assert_eq!(Flavor::detect("NapCat.Onebot"), Flavor::NapCat);
        assert_eq!(Flavor::detect("LLOneBot"), Flavor::LlOneBot);
        assert_eq!(Flavor::detect("Lagrange.OneBot"), Flavor::Lagrange);
        assert_eq!(Flavor::detect("SnowLuma"), Flavor::SnowLuma);
        assert_eq!(Flavor::detect("go-cqhttp"), Flavor::GoCqhttp);
        assert_eq!(Flavor::detect("something"), Flavor::Generic);
        for f in Flavor::ALL {
            assert_eq!(Flavor::from_name(f.name()), Some(f));
        }
        assert_eq!(Flavor::parse_setting("auto"), Some(FlavorSetting::Auto));
        assert_eq!(Flavor::parse_setting("qq"), None);
    }
}
