//! How one account's peer pages its history: which request field carries
//! the anchor and what it holds, whether the anchor row comes back, and
//! whether `count` is honoured.
//!
//! The flavor only gives the first guess ([`HistoryProfile::assumed`]); the
//! adapter then believes what the peer does: a probe on connect and every
//! anchored page correct it (see `client/paging.rs`). An operator can fix it
//! in `[accounts.<id>]` (`history_anchor`, `history_anchor_included`).
//!
//! | style               | request field  | value sent                                     | who pages this way |
//! |---------------------|----------------|------------------------------------------------|--------------------|
//! | `message_seq`       | `message_seq`  | the row's own `message_seq` (else `real_id`)   | LLOneBot, go-cqhttp, NapCat (its `message_seq` is its short id) |
//! | `real_seq`          | `message_seq`  | the real QQ seq (`real_seq` ‖ `message_seq` ‖ `real_id`, when it differs from the id) | forks reporting NapCat rows but paging by the real seq |
//! | `message_id_as_seq` | `message_seq`  | the `message_id`                               | NapCat            |
//! | `message_id`        | `message_id`   | the `message_id`                               | Lagrange, SnowLuma |
//! | `both`              | both           | the `message_id` in each                       | the generic guess  |

use std::fmt;

use crate::flavor::Flavor;
use onebot_gateway_domain::model::HistoryPaging;

/// A `history_anchor` setting that names no style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownAnchor(pub String);

/// Which request field carries the anchor, and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnchorStyle {
    /// `message_seq` = the seq the row itself reports.
    Seq,
    /// `message_seq` = the real QQ seq.
    RealSeq,
    /// `message_seq` = the `message_id`.
    IdAsSeq,
    /// `message_id` = the `message_id`.
    Id,
    /// `message_seq` and `message_id`, each the `message_id`.
    Both,
}

impl AnchorStyle {
    /// The styles a probe tries, in this order after the flavor's own.
    pub const PROBED: [AnchorStyle; 4] = [
        AnchorStyle::Seq,
        AnchorStyle::IdAsSeq,
        AnchorStyle::Id,
        AnchorStyle::RealSeq,
    ];

    /// The style's name, as logged, shown in `ListAccounts` and set in
    /// `history_anchor`.
    pub fn name(self) -> &'static str {
        match self {
            AnchorStyle::Seq => "message_seq",
            AnchorStyle::RealSeq => "real_seq",
            AnchorStyle::IdAsSeq => "message_id_as_seq",
            AnchorStyle::Id => "message_id",
            AnchorStyle::Both => "both",
        }
    }

    /// Parses a `history_anchor` setting: `auto` (or empty) is `Ok(None)`.
    pub fn parse_setting(s: &str) -> Result<Option<AnchorStyle>, UnknownAnchor> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "message_seq" => Ok(Some(AnchorStyle::Seq)),
            "real_seq" => Ok(Some(AnchorStyle::RealSeq)),
            "message_id_as_seq" => Ok(Some(AnchorStyle::IdAsSeq)),
            "message_id" => Ok(Some(AnchorStyle::Id)),
            "both" => Ok(Some(AnchorStyle::Both)),
            _ => Err(UnknownAnchor(s.to_owned())),
        }
    }
}

impl fmt::Display for AnchorStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the adapter came to its profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Basis {
    /// The flavor's convention, not yet checked against the peer.
    Assumed,
    /// A probe on connect (two pages of a chat with history) showed it.
    Probed,
    /// A page the peer answered showed it (or forced a correction).
    Observed,
    /// Fixed by the configuration; never second-guessed.
    Configured,
}

impl Basis {
    /// The basis's name, as logged and shown.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Assumed => "assumed",
            Basis::Probed => "probed",
            Basis::Observed => "observed",
            Basis::Configured => "configured",
        }
    }
}

/// One account's history paging.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryProfile {
    /// Where the anchor goes.
    pub anchor: AnchorStyle,
    /// The peer returns the anchor row itself.
    pub anchor_included: bool,
    /// The peer returns `count` rows; false for a fixed window whatever
    /// `count` asks (go-cqhttp's 20).
    pub honours_count: bool,
    /// How the adapter knows.
    pub basis: Basis,
}

impl HistoryProfile {
    /// The flavor's convention.
    pub fn assumed(flavor: Flavor) -> HistoryProfile {
        let anchor = match flavor {
            Flavor::NapCat => AnchorStyle::IdAsSeq,
            Flavor::LlOneBot | Flavor::GoCqhttp => AnchorStyle::Seq,
            Flavor::Lagrange | Flavor::SnowLuma => AnchorStyle::Id,
            Flavor::Generic => AnchorStyle::Both,
        };
        HistoryProfile {
            anchor,
            anchor_included: true,
            honours_count: flavor != Flavor::GoCqhttp,
            basis: Basis::Assumed,
        }
    }

    /// The flavor's convention with the configured parts fixed: a
    /// configured anchor makes the profile [`Basis::Configured`].
    pub fn with_settings(
        flavor: Flavor,
        anchor: Option<AnchorStyle>,
        included: Option<bool>,
    ) -> HistoryProfile {
        let mut p = HistoryProfile::assumed(flavor);
        if let Some(a) = anchor {
            p.anchor = a;
            p.basis = Basis::Configured;
        }
        if let Some(i) = included {
            p.anchor_included = i;
        }
        p
    }

    /// The protocol-neutral description the account status shows.
    pub fn display(&self, probing: bool) -> HistoryPaging {
        HistoryPaging {
            anchor: self.anchor.name(),
            anchor_included: self.anchor_included,
            basis: if probing {
                "probing"
            } else {
                self.basis.name()
            },
        }
    }
}

impl fmt::Display for HistoryProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "anchor {} ({}), {}, {}",
            self.anchor,
            if self.anchor_included {
                "anchor row included"
            } else {
                "anchor row left out"
            },
            if self.honours_count {
                "count honoured"
            } else {
                "fixed window"
            },
            self.basis.name()
        )
    }
}

/// What an account has learned of its peer's paging.
#[derive(Debug, Clone)]
pub struct Learned {
    /// The profile calls are made with.
    pub profile: HistoryProfile,
    /// The identity (`app_name`, `app_version`, `self_id`) the profile was
    /// probed for: a reconnect to the same peer is not probed again.
    pub probed_for: Option<String>,
    /// A probe after an inconclusive page found nothing either: further
    /// inconclusive pages are not probed again (until the peer changes).
    pub gave_up: bool,
}

impl Learned {
    /// Before the peer has said who it is.
    pub fn new(profile: HistoryProfile) -> Learned {
        Learned {
            profile,
            probed_for: None,
            gave_up: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_priors() {
        for s in AnchorStyle::PROBED.into_iter().chain([AnchorStyle::Both]) {
            assert_eq!(AnchorStyle::parse_setting(s.name()), Ok(Some(s)));
        }
        assert_eq!(AnchorStyle::parse_setting("auto"), Ok(None));
        assert_eq!(AnchorStyle::parse_setting(""), Ok(None));
        assert!(AnchorStyle::parse_setting("seqq").is_err());
        let p = HistoryProfile::assumed(Flavor::NapCat);
        assert_eq!((p.anchor, p.basis), (AnchorStyle::IdAsSeq, Basis::Assumed));
        assert!(!HistoryProfile::assumed(Flavor::GoCqhttp).honours_count);
        let p = HistoryProfile::with_settings(Flavor::NapCat, Some(AnchorStyle::Seq), Some(false));
        assert_eq!(
            (p.anchor, p.anchor_included, p.basis),
            (AnchorStyle::Seq, false, Basis::Configured)
        );
        let p = HistoryProfile::with_settings(Flavor::Lagrange, None, Some(false));
        assert_eq!(p.basis, Basis::Assumed);
        assert_eq!(p.display(true).basis, "probing");
        assert_eq!(p.display(false).anchor, "message_id");
    }
}
