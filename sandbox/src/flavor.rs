//! Which OneBot v11 implementation the sandbox imitates, and the small per-implementation
//! facts (names, retcodes, id shapes) that do not deserve a module of their own.
//!
//! Each variant's doc sums up that implementation's quirks; the bigger per-flavor behaviours
//! (history anchors, echo handling, auth) live next to the code that uses them.

use std::fmt;
use std::str::FromStr;

/// The OneBot v11 implementation whose quirks the sandbox reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Flavor {
    /// NapCatQQ (`NapCat.Onebot`): short positive hash ids, echo always present, 1200 handler errors.
    #[default]
    NapCat,
    /// LLOneBot: short ids plus real `message_seq`, 1200 handler errors.
    LlOneBot,
    /// Lagrange.OneBot: int32 hash ids, stringified echo, retcode 1 failures, no error text.
    Lagrange,
    /// SnowLuma: signed (often negative) hash ids, `wording`-only errors, close 1008 on bad token.
    SnowLuma,
    /// go-cqhttp: int32 ids plus per-chat seq from 1, retcode 100/404, `msg`/`wording`, HTTP 401/403.
    GoCqhttp,
}

impl Flavor {
    /// Every flavor, in declaration order (handy for table-driven tests).
    pub const ALL: [Flavor; 5] = [
        Flavor::NapCat,
        Flavor::LlOneBot,
        Flavor::Lagrange,
        Flavor::SnowLuma,
        Flavor::GoCqhttp,
    ];

    /// The canonical lower-case name accepted by [`FromStr`] (`napcat`, `go-cqhttp`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Flavor::NapCat => "napcat",
            Flavor::LlOneBot => "llonebot",
            Flavor::Lagrange => "lagrange",
            Flavor::SnowLuma => "snowluma",
            Flavor::GoCqhttp => "go-cqhttp",
        }
    }

    /// `app_name` reported by `get_version_info`.
    pub fn app_name(self) -> &'static str {
        match self {
            Flavor::NapCat => "NapCat.Onebot",
            Flavor::LlOneBot => "LLOneBot",
            Flavor::Lagrange => "Lagrange.OneBot",
            Flavor::SnowLuma => "SnowLuma",
            Flavor::GoCqhttp => "go-cqhttp",
        }
    }

    /// `app_version` reported by `get_version_info` (a plausible release of each implementation).
    pub fn app_version(self) -> &'static str {
        match self {
            Flavor::NapCat => "4.8.116",
            Flavor::LlOneBot => "6.6.2",
            Flavor::Lagrange => "0.0.3",
            Flavor::SnowLuma => "1.12.8",
            Flavor::GoCqhttp => "v1.2.0",
        }
    }

    /// Whether the implementation has the `get_friend_msg_history` / `*_poke` extension actions.
    pub(crate) fn has_extensions(self) -> bool {
        self != Flavor::GoCqhttp
    }

    /// `font` field of message objects (NapCat reports 14, the others 0).
    pub(crate) fn font(self) -> i64 {
        match self {
            Flavor::NapCat => 14,
            _ => 0,
        }
    }
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error of [`Flavor::from_str`]: the name is not one of the five implementations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown OneBot flavor `{0}` (expected napcat, llonebot, lagrange, snowluma or go-cqhttp)")]
pub struct UnknownFlavor(pub String);

impl FromStr for Flavor {
    type Err = UnknownFlavor;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "napcat" | "napcatqq" => Ok(Flavor::NapCat),
            "llonebot" | "llob" => Ok(Flavor::LlOneBot),
            "lagrange" | "lagrange.onebot" | "lagrange-onebot" => Ok(Flavor::Lagrange),
            "snowluma" => Ok(Flavor::SnowLuma),
            "go-cqhttp" | "gocqhttp" | "go_cqhttp" | "gocq" => Ok(Flavor::GoCqhttp),
            _ => Err(UnknownFlavor(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Flavor::ALL {
            assert_eq!(f.as_str().parse::<Flavor>(), Ok(f));
            assert_eq!(f.to_string(), f.as_str());
        }
        assert_eq!("gocqhttp".parse::<Flavor>(), Ok(Flavor::GoCqhttp));
        assert_eq!("NapCat".parse::<Flavor>(), Ok(Flavor::NapCat));
        assert!("mirai".parse::<Flavor>().is_err());
    }
}
