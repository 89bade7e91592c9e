//! The `flavor` setting of an account, parsed.

/// What an account's `flavor` setting asks for: detection, or one
/// implementation's profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlavorChoice {
    /// Detect the implementation from `get_version_info.app_name`.
    Auto,
    /// Plain OneBot v11.
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

impl FlavorChoice {
    /// Parses a `flavor` setting, ignoring case and surrounding whitespace:
    /// `auto` or empty, `generic`, `napcat`, `llonebot` (or `llbot`),
    /// `lagrange` (or `lagrange.onebot`), `snowluma`, `go-cqhttp` (or
    /// `gocqhttp`, `go_cqhttp`). Anything else is `None`.
    pub fn parse(s: &str) -> Option<FlavorChoice> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => FlavorChoice::Auto,
            "generic" => FlavorChoice::Generic,
            "napcat" => FlavorChoice::NapCat,
            "llonebot" | "llbot" => FlavorChoice::LlOneBot,
            "lagrange" | "lagrange.onebot" => FlavorChoice::Lagrange,
            "snowluma" => FlavorChoice::SnowLuma,
            "go-cqhttp" | "gocqhttp" | "go_cqhttp" => FlavorChoice::GoCqhttp,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::FlavorChoice::{self, *};

    #[test]
    fn parses_every_spelling_and_refuses_others() {
        for (text, choice) in [
            ("auto", Auto),
            ("", Auto),
            ("  ", Auto),
            (" AUTO ", Auto),
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
            assert_eq!(FlavorChoice::parse(text), Some(choice), "{text:?}");
        }
        for text in [
            "qq",
            "QQ",
            "lagrange onebot",
            "go cqhttp",
            "nap cat",
            "autox",
        ] {
            assert_eq!(FlavorChoice::parse(text), None, "{text:?}");
        }
    }
}
