//! The OneBot implementations the gateway knows, and the `flavor` setting
//! that names one of them.

use std::fmt;

/// A OneBot implementation, each with its own behaviour profile in the
/// adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Flavor {
    /// Plain OneBot v11.
    #[default]
    Generic,
    /// NapCat.
    NapCat,
    /// LLOneBot.
    LlOneBot,
    /// Lagrange.OneBot.
    Lagrange,
    /// SnowLuma.
    SnowLuma,
    /// go-cqhttp.
    GoCqhttp,
}

/// A `flavor` setting that names no implementation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown flavor {0:?}; expected auto, napcat, llonebot, lagrange, snowluma, go-cqhttp or generic"
)]
pub struct UnknownFlavor(pub String);

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

    /// Reads a `flavor` setting, ignoring case and surrounding white space:
    /// `auto` or empty is `None` (detect the implementation from
    /// `get_version_info.app_name`); `generic`, `napcat`, `llonebot` (or
    /// `llbot`), `lagrange` (or `lagrange.onebot`), `snowluma`, `go-cqhttp`
    /// (or `gocqhttp`, `go_cqhttp`) name one.
    pub fn parse_setting(s: &str) -> Result<Option<Flavor>, UnknownFlavor> {
        Ok(Some(match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => return Ok(None),
            "generic" => Flavor::Generic,
            "napcat" => Flavor::NapCat,
            "llonebot" | "llbot" => Flavor::LlOneBot,
            "lagrange" | "lagrange.onebot" => Flavor::Lagrange,
            "snowluma" => Flavor::SnowLuma,
            "go-cqhttp" | "gocqhttp" | "go_cqhttp" => Flavor::GoCqhttp,
            _ => return Err(UnknownFlavor(s.to_owned())),
        }))
    }

    /// The flavor a name names, with the spellings of
    /// [`Flavor::parse_setting`]; `auto` names none.
    pub fn from_name(s: &str) -> Option<Flavor> {
        Flavor::parse_setting(s).ok().flatten()
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
    use super::Flavor::{self, *};

    #[test]
    fn parses_every_spelling_and_refuses_others() {
        for text in ["auto", "", "  ", " AUTO "] {
            assert_eq!(Flavor::parse_setting(text), Ok(None), "{text:?}");
        }
        for (text, flavor) in [
            ("generic", Generic),
            ("napcat", NapCat),
            ("NapCat", NapCat),
            ("llonebot", LlOneBot),
            ("llbot", LlOneBot),
            ("LLOneBot", LlOneBot),
            ("lagrange", Lagrange),
            ("lagrange.onebot", Lagrange),
            ("Lagrange.OneBot", Lagrange),
            ("snowluma", SnowLuma),
            ("go-cqhttp", GoCqhttp),
            ("gocqhttp", GoCqhttp),
            ("go_cqhttp", GoCqhttp),
            ("\tGo-CQHTTP\n", GoCqhttp),
        ] {
            assert_eq!(Flavor::parse_setting(text), Ok(Some(flavor)), "{text:?}");
        }
        for text in [
            "qq",
            "QQ",
            "lagrange onebot",
            "go cqhttp",
            "nap cat",
            "autox",
        ] {
            assert!(Flavor::parse_setting(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn every_name_reads_back() {
        for f in Flavor::ALL {
            assert_eq!(Flavor::from_name(f.name()), Some(f));
            assert_eq!(f.to_string(), f.name());
        }
        assert_eq!(Flavor::from_name("auto"), None);
    }
}
