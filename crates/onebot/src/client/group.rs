//! The group actions (reactions, essence, typing, group files, moderation)
//! as each flavor takes them (`docs/group-actions.md`).
//!
//! | action         | NapCat, SnowLuma, generic | LLOneBot | Lagrange | go-cqhttp |
//! |----------------|---------------------------|----------|----------|-----------|
//! | react          | `set_msg_emoji_like {message_id, emoji_id, set}` | `set_msg_emoji_like` / `unset_msg_emoji_like {message_id, emoji_id}` | `set_group_reaction {group_id, message_id, code, is_add}` | none |
//! | typing         | `set_input_status {user_id, event_type: 1}` | none | none | none |
//! | root files     | `get_group_root_files {group_id}` (NapCat, generic: `file_count` 10000; its default is 50) | same | same | same |
//! | folder files   | `get_group_files_by_folder {group_id, folder_id}` (NapCat, generic: `file_count` 10000) | same | same | same |
//! | file URL       | `get_group_file_url {group_id, file_id}` | same | same | `+ busid: 102` |
//!
//! Every flavor takes essence (`set_essence_msg` / `delete_essence_msg`),
//! `get_essence_msg_list`, `set_group_ban`
//! (always with `duration`: the defaults are 0 or 1800), `set_group_whole_ban`
//! (always with `enable`: Lagrange's default is false), `set_group_kick`
//! and `set_group_card` the same way (NapCat's `设置群名片未生效`, which it
//! can answer after the card was set, is checked against the member). An action the flavor lacks fails
//! with `NotSupportedByImplementation` and sends nothing; before the flavor
//! is known (generic) the NapCat form is sent and the peer's answer decides.
//! Ids are sent as numbers.

use serde_json::{Value, json};

use super::inner::Inner;
use crate::answer;
use crate::flavor::Flavor;
use crate::model::{decode_group_files, decode_member, essence_page};
use crate::retcode;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::{EssencePage, GroupFiles};

/// How many root files NapCat is asked for (it lists only the first
/// `file_count`, 50 by default, and does not page).
pub(crate) const NAPCAT_FILE_COUNT: u32 = 10_000;

/// The busid go-cqhttp needs to sign a group file's URL (the group file
/// system's; the other flavors ignore it or default to it).
pub(crate) const GROUP_FILE_BUSID: u32 = 102;

/// One action to send: its name and parameters.
pub(crate) type Request = (&'static str, Value);

fn unsupported(flavor: Flavor, action: &str) -> Error {
    Error::not_supported(flavor.name(), action)
}

/// The reaction request of `flavor`.
pub(crate) fn react_request(
    flavor: Flavor,
    group_id: i64,
    message_id: i64,
    emoji_id: &str,
    add: bool,
) -> Result<Request> {
    Ok(match flavor {
        Flavor::GoCqhttp => return Err(unsupported(flavor, "react")),
        // LLOneBot ignores `set`: removal is its own action.
        Flavor::LlOneBot => (
            if add {
                "set_msg_emoji_like"
            } else {
                "unset_msg_emoji_like"
            },
            json!({ "message_id": message_id, "emoji_id": emoji_id }),
        ),
        Flavor::Lagrange => (
            "set_group_reaction",
            json!({ "group_id": group_id, "message_id": message_id, "code": emoji_id, "is_add": add }),
        ),
        Flavor::NapCat | Flavor::SnowLuma | Flavor::Generic => (
            "set_msg_emoji_like",
            json!({ "message_id": message_id, "emoji_id": emoji_id, "set": add }),
        ),
    })
}

/// The essence request (the same on every flavor).
pub(crate) fn essence_request(message_id: i64, set: bool) -> Request {
    (
        if set {
            "set_essence_msg"
        } else {
            "delete_essence_msg"
        },
        json!({ "message_id": message_id }),
    )
}

/// The typing request of `flavor`.
pub(crate) fn typing_request(flavor: Flavor, user_id: i64) -> Result<Request> {
    match flavor {
        Flavor::LlOneBot | Flavor::Lagrange | Flavor::GoCqhttp => {
            Err(unsupported(flavor, "typing"))
        }
        Flavor::NapCat | Flavor::SnowLuma | Flavor::Generic => Ok((
            "set_input_status",
            json!({ "user_id": user_id, "event_type": 1 }),
        )),
    }
}

/// The listing request of a folder (`None`: the root) on `flavor`.
pub(crate) fn files_request(flavor: Flavor, group_id: i64, folder_id: Option<&str>) -> Request {
    match folder_id {
        None if matches!(flavor, Flavor::NapCat | Flavor::Generic) => (
            "get_group_root_files",
            json!({ "group_id": group_id, "file_count": NAPCAT_FILE_COUNT }),
        ),
        None => ("get_group_root_files", json!({ "group_id": group_id })),
        Some(folder) if matches!(flavor, Flavor::NapCat | Flavor::Generic) => (
            "get_group_files_by_folder",
            json!({ "group_id": group_id, "folder_id": folder, "file_count": NAPCAT_FILE_COUNT }),
        ),
        Some(folder) => (
            "get_group_files_by_folder",
            json!({ "group_id": group_id, "folder_id": folder }),
        ),
    }
}

/// The file URL request on `flavor`.
pub(crate) fn file_url_request(flavor: Flavor, group_id: i64, file_id: &str) -> Request {
    let mut params = json!({ "group_id": group_id, "file_id": file_id });
    if flavor == Flavor::GoCqhttp {
        params["busid"] = json!(GROUP_FILE_BUSID);
    }
    ("get_group_file_url", params)
}

/// The member mute request (0 lifts it).
pub(crate) fn mute_request(group_id: i64, user_id: i64, duration_secs: u32) -> Request {
    (
        "set_group_ban",
        json!({ "group_id": group_id, "user_id": user_id, "duration": duration_secs }),
    )
}

/// The whole-group mute request.
pub(crate) fn mute_all_request(group_id: i64, enable: bool) -> Request {
    (
        "set_group_whole_ban",
        json!({ "group_id": group_id, "enable": enable }),
    )
}

/// The kick request.
pub(crate) fn kick_request(group_id: i64, user_id: i64, reject_rejoin: bool) -> Request {
    (
        "set_group_kick",
        json!({ "group_id": group_id, "user_id": user_id, "reject_add_request": reject_rejoin }),
    )
}

/// The card request (empty clears the card).
pub(crate) fn card_request(group_id: i64, user_id: i64, card: &str) -> Request {
    (
        "set_group_card",
        json!({ "group_id": group_id, "user_id": user_id, "card": card }),
    )
}

/// True when a failed `get_group_file_url` says the file is unknown. NapCat's
/// `real fileUUID not found!` is its missing packet backend, not a missing
/// file.
fn is_missing_file(e: &Error) -> bool {
    let text = e.meta("peer_message").unwrap_or_default();
    e.kind == Kind::OnebotActionFailed
        && !text.contains("fileUUID")
        && (retcode::is_not_found_text(text) || text.contains("FILE_NOT_FOUND"))
}

/// True for NapCat's `设置群名片未生效`: it polls its member cache after
/// the change and fails when the cache has not caught up, though the card
/// may well have been set.
fn is_unconfirmed_card(e: &Error) -> bool {
    e.kind == Kind::OnebotActionFailed
        && e.meta("peer_message")
            .is_some_and(|t| t.contains("群名片未生效"))
}

impl Inner {
    /// `set_group_card`. NapCat's unconfirmed-card failure is checked
    /// against `get_group_member_info` (no cache): a member whose card is
    /// the one asked for is success, anything else keeps the failure.
    pub(crate) async fn set_member_card(
        &self,
        group_id: i64,
        user_id: i64,
        card: &str,
        deadline: Deadline,
    ) -> Result<()> {
        let err = match self
            .send_request(card_request(group_id, user_id, card), deadline)
            .await
        {
            Ok(_) => return Ok(()),
            Err(e) if is_unconfirmed_card(&e) => e,
            Err(e) => return Err(e),
        };
        let member = self
            .call_action(
                "get_group_member_info",
                json!({ "group_id": group_id, "user_id": user_id, "no_cache": true }),
                deadline,
            )
            .await;
        match member {
            Ok(m) if m.is_object() && decode_member(&m).card == card => Ok(()),
            _ => Err(err),
        }
    }

    /// Sends `request`; its `data` on success, the classified failure else.
    pub(crate) async fn send_request(&self, request: Request, deadline: Deadline) -> Result<Value> {
        let (action, params) = request;
        self.call_action(action, params, deadline).await
    }

    /// `get_essence_msg_list` (the whole list), paged here.
    pub(crate) async fn list_essence(
        &self,
        group_id: i64,
        page: u32,
        page_size: u32,
        deadline: Deadline,
    ) -> Result<EssencePage> {
        const ACTION: &str = "get_essence_msg_list";
        let data = self
            .call_action(ACTION, json!({ "group_id": group_id }), deadline)
            .await?;
        let list = answer::list(ACTION, data, true)?;
        Ok(essence_page(group_id, &list, page, page_size))
    }

    /// A folder's listing (`None`: the root, listed as `/`).
    pub(crate) async fn list_group_files(
        &self,
        group_id: i64,
        folder_id: Option<&str>,
        deadline: Deadline,
    ) -> Result<GroupFiles> {
        let request = files_request(self.flavor(), group_id, folder_id);
        let action = request.0;
        let data = self.send_request(request, deadline).await?;
        match data {
            Value::Object(_) => Ok(decode_group_files(folder_id.unwrap_or("/"), &data)),
            Value::Null => Err(answer::lacks(action)),
            other => Err(Error::new(
                Kind::OnebotProtocolError,
                format!("{action}: expected an object with files and folders, got {other}"),
            )
            .with("action", action)),
        }
    }

    /// `get_group_file_url` → `data.url`; a file the peer says it does not
    /// know fails with `MediaNotFound`.
    pub(crate) async fn group_file_url(
        &self,
        group_id: i64,
        file_id: &str,
        deadline: Deadline,
    ) -> Result<String> {
        let request = file_url_request(self.flavor(), group_id, file_id);
        let action = request.0;
        let data = self.send_request(request, deadline).await.map_err(|e| {
            if is_missing_file(&e) {
                Error {
                    kind: Kind::MediaNotFound,
                    ..e
                }
                .with("file_id", file_id)
            } else {
                e
            }
        })?;
        match data.get("url").and_then(Value::as_str) {
            Some(url) if !url.is_empty() => Ok(url.to_owned()),
            _ if data.is_null() || data.as_object().is_some_and(|o| o.is_empty()) => {
                Err(answer::lacks(action))
            }
            _ => Err(Error::new(
                Kind::OnebotProtocolError,
                format!("{action}: the answer has no url"),
            )
            .with("action", action)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Flavor; 6] = Flavor::ALL;

    #[test]
    fn react_per_flavor() {
        for f in ALL {
            let add = react_request(f, 5, 77, "128077", true);
            let remove = react_request(f, 5, 77, "128077", false);
            match f {
                Flavor::NapCat | Flavor::SnowLuma | Flavor::Generic => {
                    assert_eq!(
                        add.unwrap(),
                        (
                            "set_msg_emoji_like",
                            json!({"message_id": 77, "emoji_id": "128077", "set": true})
                        ),
                        "{f}"
                    );
                    assert_eq!(
                        remove.unwrap(),
                        (
                            "set_msg_emoji_like",
                            json!({"message_id": 77, "emoji_id": "128077", "set": false})
                        ),
                        "{f}"
                    );
                }
                Flavor::LlOneBot => {
                    assert_eq!(
                        add.unwrap(),
                        (
                            "set_msg_emoji_like",
                            json!({"message_id": 77, "emoji_id": "128077"})
                        )
                    );
                    assert_eq!(
                        remove.unwrap(),
                        (
                            "unset_msg_emoji_like",
                            json!({"message_id": 77, "emoji_id": "128077"})
                        )
                    );
                }
                Flavor::Lagrange => {
                    assert_eq!(
                        add.unwrap(),
                        (
                            "set_group_reaction",
                            json!({"group_id": 5, "message_id": 77, "code": "128077", "is_add": true})
                        )
                    );
                    assert_eq!(remove.unwrap().1["is_add"], json!(false));
                }
                Flavor::GoCqhttp => {
                    for r in [add, remove] {
                        let e = r.unwrap_err();
                        assert_eq!(e.kind, Kind::NotSupportedByImplementation);
                        assert_eq!(e.meta("implementation"), Some("go-cqhttp"));
                        assert_eq!(e.meta("action"), Some("react"));
                    }
                }
            }
        }
    }

    #[test]
    fn typing_only_where_the_flavor_has_it() {
        for f in ALL {
            match typing_request(f, 42) {
                Ok(r) => {
                    assert!(
                        matches!(f, Flavor::NapCat | Flavor::SnowLuma | Flavor::Generic),
                        "{f}"
                    );
                    assert_eq!(
                        r,
                        ("set_input_status", json!({"user_id": 42, "event_type": 1}))
                    );
                }
                Err(e) => {
                    assert!(
                        matches!(f, Flavor::LlOneBot | Flavor::Lagrange | Flavor::GoCqhttp),
                        "{f}"
                    );
                    assert_eq!(e.kind, Kind::NotSupportedByImplementation);
                    assert_eq!(e.meta("implementation"), Some(f.name()));
                    assert_eq!(e.meta("action"), Some("typing"));
                }
            }
        }
    }

    #[test]
    fn file_requests_per_flavor() {
        for f in ALL {
            let (action, params) = files_request(f, 5, None);
            assert_eq!(action, "get_group_root_files");
            if matches!(f, Flavor::NapCat | Flavor::Generic) {
                assert_eq!(params, json!({"group_id": 5, "file_count": 10000}), "{f}");
            } else {
                assert_eq!(params, json!({"group_id": 5}), "{f}");
            }
            let (action, params) = files_request(f, 5, Some("/abc"));
            assert_eq!(action, "get_group_files_by_folder");
            if matches!(f, Flavor::NapCat | Flavor::Generic) {
                assert_eq!(
                    params,
                    json!({"group_id": 5, "folder_id": "/abc", "file_count": 10000}),
                    "{f}"
                );
            } else {
                assert_eq!(params, json!({"group_id": 5, "folder_id": "/abc"}), "{f}");
            }
            let (action, params) = file_url_request(f, 5, "/f");
            assert_eq!(action, "get_group_file_url");
            if f == Flavor::GoCqhttp {
                assert_eq!(
                    params,
                    json!({"group_id": 5, "file_id": "/f", "busid": 102})
                );
            } else {
                assert_eq!(params, json!({"group_id": 5, "file_id": "/f"}), "{f}");
            }
        }
    }

    #[test]
    fn moderation_always_states_duration_and_enable() {
        assert_eq!(
            mute_request(5, 7, 0),
            (
                "set_group_ban",
                json!({"group_id": 5, "user_id": 7, "duration": 0})
            )
        );
        assert_eq!(mute_request(5, 7, 600).1["duration"], json!(600));
        assert_eq!(
            mute_all_request(5, false),
            (
                "set_group_whole_ban",
                json!({"group_id": 5, "enable": false})
            )
        );
        assert_eq!(mute_all_request(5, true).1["enable"], json!(true));
        assert_eq!(
            kick_request(5, 7, true),
            (
                "set_group_kick",
                json!({"group_id": 5, "user_id": 7, "reject_add_request": true})
            )
        );
        assert_eq!(
            card_request(5, 7, ""),
            (
                "set_group_card",
                json!({"group_id": 5, "user_id": 7, "card": ""})
            )
        );
        assert_eq!(
            essence_request(9, true),
            ("set_essence_msg", json!({"message_id": 9}))
        );
        assert_eq!(
            essence_request(9, false),
            ("delete_essence_msg", json!({"message_id": 9}))
        );
    }

    #[test]
    fn only_napcats_unconfirmed_card_is_checked() {
        let failed = |kind, text: &str| Error::new(kind, "x").with("peer_message", text);
        assert!(is_unconfirmed_card(&failed(
            Kind::OnebotActionFailed,
            "设置群名片未生效"
        )));
        assert!(!is_unconfirmed_card(&failed(
            Kind::OnebotActionFailed,
            "permission denied"
        )));
        assert!(!is_unconfirmed_card(&failed(
            Kind::OnebotTimeout,
            "设置群名片未生效"
        )));
    }

    #[test]
    fn missing_files_are_told_from_other_failures() {
        let failed =
            |text: &str| Error::new(Kind::OnebotActionFailed, "x").with("peer_message", text);
        assert!(is_missing_file(&failed("file not found")));
        assert!(is_missing_file(&failed("文件不存在")));
        assert!(!is_missing_file(&failed("real fileUUID not found!")));
        assert!(!is_missing_file(&failed("permission denied")));
        assert!(!is_missing_file(
            &Error::new(Kind::OnebotBadRequest, "x").with("peer_message", "not found")
        ));
    }
}

#[cfg(test)]
#[path = "group_tests.rs"]
mod peer_tests;
