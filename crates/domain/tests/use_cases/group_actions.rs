//! The group actions through the public gateway over the recording fake:
//! reactions, essence, typing, moderation (the policy, the bot's role, the
//! protected members, the platform's limits), essence and file listings
//! with their page tokens, a held moderation approved once, and voices in
//! a send. Each refusal asserts that no group action reached the peer.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use onebot_gateway_config::{AccountConfig, Approval, Config, PolicyRule};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::call::CallCtx;
use onebot_gateway_domain::error::{Error, Kind};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::media::resolve::MediaSource;
use onebot_gateway_domain::model::{
    ChatRef, EssenceEntry, GroupFile, GroupFiles, GroupFolder, Message, Segment, Sender,
};
use onebot_gateway_domain::policy::OnBehalfOf;
use onebot_gateway_domain::policy::store::ApprovalState;
use onebot_gateway_domain::write::moderation::{MAX_MUTE_SECS, Moderation};
use onebot_gateway_domain::write::send::SendRequest;
use onebot_gateway_onebot::Flavor;
use onebot_gateway_testkit::{Call, FakeApi, member, sample};

const G: i64 = 20_000_003;
/// The bot (the fake's self id).
const BOT: i64 = 10_001;
const GROUP_OWNER: i64 = 9_100;
const ADMIN: i64 = 10_002;
const MEMBER: i64 = 10_003;
const BOT_OWNER: i64 = 9_001;
/// A group the account does not whitelist.
const OTHER: i64 = 30_000_001;

struct T {
    gw: Arc<Gateway>,
    api: Arc<FakeApi>,
    _dir: tempfile::TempDir,
    shutdown: CancellationToken,
}

impl Drop for T {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn rule(actions: &[&str], allow: Option<&[&str]>, approval: Approval) -> PolicyRule {
    PolicyRule {
        actions: actions.iter().map(|s| s.to_string()).collect(),
        chats: Vec::new(),
        allow_requesters: allow.map(|a| a.iter().map(|s| s.to_string()).collect()),
        approval,
    }
}

/// A gateway over one account whitelisting group `G` and the private chat
/// of 10005, the bot `bot_role` in a group of an owner, an admin and a
/// member; the member cache off (every role check reads the list).
fn start(rules: Vec<PolicyRule>, bot_role: &str) -> T {
    start_full(rules, bot_role, |_| {})
}

/// [`start`] without rules, the bot a member, the media settings tweaked.
fn start_with_media(tweak: impl FnOnce(&mut onebot_gateway_config::MediaConfig)) -> T {
    start_full(Vec::new(), "member", tweak)
}

fn start_full(
    rules: Vec<PolicyRule>,
    bot_role: &str,
    tweak: impl FnOnce(&mut onebot_gateway_config::MediaConfig),
) -> T {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    tweak(&mut config.media);
    config.server.data_dir = dir.path().to_path_buf();
    config.policy.owners = vec![BOT_OWNER];
    config.policy.rules = rules;
    let a = AccountConfig {
        ws_url: Some("ws://127.0.0.1:9/".into()),
        groups: vec![G],
        users: vec![10_005],
        member_cache_ttl_secs: 0,
        ..AccountConfig::default()
    };
    config.accounts.insert("default".into(), a.clone());
    config.validate().unwrap();
    let shutdown = CancellationToken::new();
    let api = FakeApi::new(Flavor::NapCat);
    api.set_groups(Some(&[G, OTHER]));
    api.set_members(Some(vec![
        member(GROUP_OWNER, "owner"),
        member(ADMIN, "admin"),
        member(MEMBER, "member"),
        member(BOT, bot_role),
    ]));
    let accounts = vec![Account {
        id: "default".into(),
        config: a,
        peer: api.clone(),
    }];
    let gw = Arc::new(
        onebot_gateway_testkit::GatewayBuilder::new(config, accounts, shutdown.clone()).build(),
    );
    T {
        gw,
        api,
        _dir: dir,
        shutdown,
    }
}

fn moderation_rules() -> Vec<PolicyRule> {
    vec![rule(
        &["mute", "mute_all", "kick", "set_card"],
        None,
        Approval::None,
    )]
}

fn group_message(id: i64, group: i64, user: i64, text: &str) -> Message {
    Message {
        message_id: id,
        message_seq: None,
        peer_seq: None,
        time: 1_792_375_260,
        sender: Sender {
            user_id: user,
            nickname: format!("u{user}"),
            ..Sender::default()
        },
        segments: vec![Segment::Text(text.into())],
        chat: ChatRef::Group(group),
        raw: Default::default(),
    }
}

async fn moderate(t: &T, op: Moderation) -> Result<i64, Error> {
    t.gw.moderate("", Some(G), op, None, CallCtx::anonymous())
        .await
}

fn mute(user_id: i64, duration_secs: i64) -> Moderation {
    Moderation::Mute {
        user_id,
        duration_secs,
    }
}

#[tokio::test]
async fn moderation_is_refused_without_a_rule_and_allowed_with_one() {
    let t = start(Vec::new(), "admin");
    for op in [
        mute(MEMBER, 60),
        Moderation::MuteAll { enable: true },
        Moderation::Kick {
            user_id: MEMBER,
            reject_rejoin: false,
        },
        Moderation::SetCard {
            user_id: MEMBER,
            card: "新名片".into(),
        },
    ] {
        let e = moderate(&t, op.clone()).await.unwrap_err();
        assert_eq!(e.kind, Kind::PolicyDenied, "{op:?}: {e:?}");
        assert_eq!(e.meta("rule"), Some("none"), "{op:?}");
        assert_eq!(e.meta("action"), Some(op.action().name()), "{op:?}");
    }
    assert_eq!(t.api.group_actions(), vec![], "nothing reached the peer");
    // A rule naming only mute allows mute, not kick.
    let t = start(vec![rule(&["mute"], None, Approval::None)], "admin");
    assert_eq!(moderate(&t, mute(MEMBER, 60)).await.unwrap(), G);
    let e = moderate(
        &t,
        Moderation::Kick {
            user_id: MEMBER,
            reject_rejoin: true,
        },
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("action")),
        (Kind::PolicyDenied, Some("kick"))
    );
    assert_eq!(
        t.api.group_actions(),
        vec![Call::Mute {
            group_id: G,
            user_id: MEMBER,
            duration_secs: 60
        }]
    );
    // With every action named, each reaches the peer as asked.
    let t = start(moderation_rules(), "admin");
    moderate(&t, mute(MEMBER, 0)).await.unwrap();
    moderate(&t, Moderation::MuteAll { enable: false })
        .await
        .unwrap();
    moderate(
        &t,
        Moderation::Kick {
            user_id: MEMBER,
            reject_rejoin: true,
        },
    )
    .await
    .unwrap();
    moderate(
        &t,
        Moderation::SetCard {
            user_id: MEMBER,
            card: String::new(),
        },
    )
    .await
    .unwrap();
    assert_eq!(
        t.api.group_actions(),
        vec![
            Call::Mute {
                group_id: G,
                user_id: MEMBER,
                duration_secs: 0
            },
            Call::MuteAll {
                group_id: G,
                enable: false
            },
            Call::Kick {
                group_id: G,
                user_id: MEMBER,
                reject_rejoin: true
            },
            Call::SetCard {
                group_id: G,
                user_id: MEMBER,
                card: String::new()
            },
        ]
    );
}

#[tokio::test]
async fn a_bot_that_is_a_plain_member_is_refused_before_the_peer() {
    let t = start(moderation_rules(), "member");
    for op in [mute(MEMBER, 60), Moderation::MuteAll { enable: true }] {
        let e = moderate(&t, op).await.unwrap_err();
        assert_eq!(e.kind, Kind::BotNotAdmin, "{e:?}");
        assert_eq!(
            (e.meta("bot_role"), e.meta("needed_role")),
            (Some("member"), Some("admin"))
        );
    }
    // Essence too needs an admin bot.
    t.api.store(group_message(501, G, MEMBER, "精华候选"));
    let e =
        t.gw.set_essence("", 501, false, None, CallCtx::anonymous())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::BotNotAdmin, "{e:?}");
    assert_eq!(t.api.group_actions(), vec![], "nothing reached the peer");
}

#[tokio::test]
async fn the_owner_the_bot_and_admins_are_protected() {
    let t = start(moderation_rules(), "admin");
    for (user, why) in [(GROUP_OWNER, "the group's owner"), (BOT, "the bot itself")] {
        for op in [
            mute(user, 60),
            Moderation::Kick {
                user_id: user,
                reject_rejoin: false,
            },
            Moderation::SetCard {
                user_id: user,
                card: "x".into(),
            },
        ] {
            let e = moderate(&t, op.clone()).await.unwrap_err();
            assert_eq!(e.kind, Kind::ProtectedMember, "{op:?}: {e:?}");
            assert_eq!(e.meta("why"), Some(why), "{op:?}");
            assert_eq!(e.field.as_deref(), Some("user_id"));
        }
    }
    // An admin target needs the group's owner: an admin bot is refused.
    let e = moderate(&t, mute(ADMIN, 60)).await.unwrap_err();
    assert_eq!(e.kind, Kind::BotNotAdmin, "{e:?}");
    assert_eq!(
        (e.meta("bot_role"), e.meta("needed_role")),
        (Some("admin"), Some("owner"))
    );
    // Someone who is not in the group is no member to act on.
    let e = moderate(&t, mute(55_555, 60)).await.unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("user_id"))
    );
    assert_eq!(t.api.group_actions(), vec![], "nothing reached the peer");
    // The group's owner as the bot may mute an admin.
    let t = start(moderation_rules(), "owner");
    moderate(&t, mute(ADMIN, 60)).await.unwrap();
    assert_eq!(
        t.api.group_actions(),
        vec![Call::Mute {
            group_id: G,
            user_id: ADMIN,
            duration_secs: 60
        }]
    );
}

#[tokio::test]
async fn the_platforms_limits_name_the_field() {
    let t = start(moderation_rules(), "admin");
    for (op, field) in [
        (mute(MEMBER, MAX_MUTE_SECS + 1), "duration_secs"),
        (mute(MEMBER, -1), "duration_secs"),
        (
            Moderation::SetCard {
                user_id: MEMBER,
                // 21 characters of 3 bytes: 63 bytes.
                card: "名".repeat(21),
            },
            "card",
        ),
    ] {
        let e = moderate(&t, op.clone()).await.unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_deref()),
            (Kind::InvalidRequest, Some(field)),
            "{op:?}: {e:?}"
        );
    }
    assert_eq!(t.api.group_actions(), vec![], "nothing reached the peer");
    // The limits themselves are fine.
    moderate(&t, mute(MEMBER, MAX_MUTE_SECS)).await.unwrap();
    moderate(
        &t,
        Moderation::SetCard {
            user_id: MEMBER,
            card: "名".repeat(20),
        },
    )
    .await
    .unwrap();
    assert_eq!(t.api.group_actions().len(), 2);
}

#[tokio::test]
async fn reactions_and_essence_need_a_whitelisted_group_message() {
    let t = start(Vec::new(), "admin");
    let ctx = CallCtx::anonymous;
    t.api.store(group_message(601, OTHER, MEMBER, "别的群"));
    t.api.store(group_message(602, G, MEMBER, "本群"));
    let mut private = group_message(603, G, MEMBER, "私聊");
    private.chat = ChatRef::Private(MEMBER);
    t.api.store(private);
    let e =
        t.gw.react_to_message("", 601, "76", false, None, ctx())
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("group_id"), e.field.as_deref()),
        (Kind::GroupNotAllowed, Some("30000001"), Some("message_id"))
    );
    let e =
        t.gw.set_essence("", 601, false, None, ctx())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotAllowed, "{e:?}");
    let e =
        t.gw.react_to_message("", 603, "76", false, None, ctx())
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("message_id"))
    );
    let long = "9".repeat(33);
    for bad in ["", "   ", long.as_str()] {
        let e =
            t.gw.react_to_message("", 602, bad, false, None, ctx())
                .await
                .unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_deref()),
            (Kind::InvalidRequest, Some("emoji_id")),
            "{bad:?}"
        );
    }
    assert_eq!(t.api.group_actions(), vec![], "nothing reached the peer");
    // A message of the whitelisted group.
    assert_eq!(
        t.gw.react_to_message("", 602, " 76 ", false, None, ctx())
            .await
            .unwrap(),
        G
    );
    t.gw.react_to_message("", 602, "76", true, None, ctx())
        .await
        .unwrap();
    t.gw.set_essence("", 602, false, None, ctx()).await.unwrap();
    t.gw.set_essence("", 602, true, None, ctx()).await.unwrap();
    let react = |add| Call::React {
        group_id: G,
        message_id: 602,
        emoji_id: "76".into(),
        add,
    };
    let essence = |set| Call::Essence {
        group_id: G,
        message_id: 602,
        set,
    };
    assert_eq!(
        t.api.group_actions(),
        vec![react(true), react(false), essence(true), essence(false)]
    );
}

#[tokio::test]
async fn typing_needs_the_private_whitelist() {
    let t = start(Vec::new(), "admin");
    let e =
        t.gw.set_typing("", 777, None, CallCtx::anonymous())
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("user_id"), e.field.as_deref()),
        (Kind::UserNotAllowed, Some("777"), Some("user_id"))
    );
    let e =
        t.gw.set_typing("", 0, None, CallCtx::anonymous())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::InvalidRequest);
    assert_eq!(t.api.group_actions(), vec![]);
    t.gw.set_typing("", 10_005, None, CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!(
        t.api.group_actions(),
        vec![Call::Typing { user_id: 10_005 }]
    );
}

#[tokio::test]
async fn an_implementation_without_the_action_says_so() {
    let t = start(moderation_rules(), "admin");
    t.api.store(group_message(602, G, MEMBER, "本群"));
    for action in [
        "react",
        "mute",
        "typing",
        "list_essence",
        "list_group_files",
    ] {
        t.api.set_unsupported(action);
    }
    let ctx = CallCtx::anonymous;
    let errors = [
        t.gw.react_to_message("", 602, "76", false, None, ctx())
            .await
            .unwrap_err(),
        moderate(&t, mute(MEMBER, 60)).await.unwrap_err(),
        t.gw.set_typing("", 10_005, None, ctx()).await.unwrap_err(),
        t.gw.list_essence("", None, 0, "", ctx()).await.unwrap_err(),
        t.gw.list_group_files("", None, None, 0, "", ctx())
            .await
            .unwrap_err(),
    ];
    for (e, action) in errors.iter().zip([
        "react",
        "mute",
        "typing",
        "list_essence",
        "list_group_files",
    ]) {
        assert_eq!(e.kind, Kind::NotSupportedByImplementation, "{e:?}");
        assert_eq!(
            (e.meta("implementation"), e.meta("action")),
            (Some("napcat"), Some(action)),
            "{e:?}"
        );
    }
    assert_eq!(t.api.group_actions(), vec![]);
    // What the implementation has still works.
    moderate(&t, Moderation::MuteAll { enable: true })
        .await
        .unwrap();
    assert_eq!(t.api.group_actions().len(), 1);
}

fn entry(n: i64) -> EssenceEntry {
    EssenceEntry {
        message: group_message(700 + n, G, MEMBER, &format!("精华{n}")),
        operator_id: ADMIN,
        operator_name: "管理员".into(),
        operation_time: 1_792_375_300 + n,
    }
}

fn folder(id: &str) -> GroupFolder {
    GroupFolder {
        folder_id: id.into(),
        name: format!("文件夹{id}"),
        ..GroupFolder::default()
    }
}

fn file(id: &str) -> GroupFile {
    GroupFile {
        file_id: id.into(),
        name: format!("{id}.txt"),
        size: 10,
        ..GroupFile::default()
    }
}

#[tokio::test]
async fn essence_pages_follow_their_tokens() {
    let t = start(Vec::new(), "member");
    t.api.set_essence((1..=5).map(entry).collect());
    let ctx = CallCtx::anonymous;
    let mut token = String::new();
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page =
            t.gw.list_essence(
                "",
                None,
                if token.is_empty() { 2 } else { 0 },
                &token,
                ctx(),
            )
            .await
            .unwrap();
        assert_eq!(page.group_id, G);
        assert!(page.entries.len() <= 2, "{page:?}");
        seen.extend(page.entries.iter().map(|e| e.message.message_id));
        pages += 1;
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
        assert!(pages < 10, "the pages never end");
    }
    assert_eq!(seen, [701, 702, 703, 704, 705]);
    assert_eq!(pages, 3);
    // Each page asked the peer for its page, keeping the first page's size.
    let asked: Vec<Call> = t
        .api
        .calls()
        .into_iter()
        .filter(|c| matches!(c, Call::ListEssence { .. }))
        .collect();
    assert_eq!(
        asked,
        (0..3)
            .map(|page| Call::ListEssence {
                group_id: G,
                page,
                page_size: 2
            })
            .collect::<Vec<_>>()
    );
    // Tokens of another listing, or made up, are refused.
    for bad in ["f2.2", "e1", "ex.2", "e1.0", "e1.999", "garbage"] {
        let e =
            t.gw.list_essence("", None, 0, bad, ctx())
                .await
                .unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_deref()),
            (Kind::InvalidRequest, Some("page_token")),
            "{bad}"
        );
    }
    let e =
        t.gw.list_essence("", None, 51, "", ctx())
            .await
            .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("page_size"));
    // A group outside the whitelist is refused.
    let e =
        t.gw.list_essence("", Some(OTHER), 0, "", ctx())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotAllowed);
}

#[tokio::test]
async fn file_pages_list_folders_first_then_files() {
    let t = start(Vec::new(), "member");
    t.api.set_group_files(
        None,
        GroupFiles {
            folders: vec![folder("/a"), folder("/b")],
            files: vec![file("f1"), file("f2"), file("f3")],
        },
    );
    t.api.set_group_files(
        Some("/a"),
        GroupFiles {
            folders: Vec::new(),
            files: vec![file("a1")],
        },
    );
    let ctx = CallCtx::anonymous;
    let names = |p: &onebot_gateway_domain::read::group_content::FilesListing| {
        p.folders
            .iter()
            .map(|f| f.folder_id.clone())
            .chain(p.files.iter().map(|f| f.file_id.clone()))
            .collect::<Vec<_>>()
    };
    let first =
        t.gw.list_group_files("", None, None, 2, "", ctx())
            .await
            .unwrap();
    assert_eq!(names(&first), ["/a", "/b"]);
    let second =
        t.gw.list_group_files("", None, Some("/"), 0, &first.next_page_token, ctx())
            .await
            .unwrap();
    assert_eq!(names(&second), ["f1", "f2"]);
    let third =
        t.gw.list_group_files("", None, None, 0, &second.next_page_token, ctx())
            .await
            .unwrap();
    assert_eq!(names(&third), ["f3"]);
    assert_eq!(third.next_page_token, "");
    // A folder is listed by its id.
    let a =
        t.gw.list_group_files("", None, Some("/a"), 0, "", ctx())
            .await
            .unwrap();
    assert_eq!(names(&a), ["a1"]);
    assert!(t.api.calls().contains(&Call::ListFiles {
        group_id: G,
        folder_id: Some("/a".into())
    }));
    // A token pages the folder it came from only.
    let e =
        t.gw.list_group_files("", None, Some("/a"), 0, &first.next_page_token, ctx())
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("page_token"))
    );
    // An essence token is not a files token.
    for bad in ["e1.20", "f", "f1.0", "f1.201", "x"] {
        let e =
            t.gw.list_group_files("", None, None, 0, bad, ctx())
                .await
                .unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_deref()),
            (Kind::InvalidRequest, Some("page_token")),
            "{bad}"
        );
    }
}

#[tokio::test]
async fn a_held_moderation_runs_once_when_approved() {
    let t = start(vec![rule(&["kick"], None, Approval::BotOwner)], "admin");
    let kick = Moderation::Kick {
        user_id: MEMBER,
        reject_rejoin: false,
    };
    let e =
        t.gw.moderate(
            "",
            Some(G),
            kick,
            Some(OnBehalfOf::User(ADMIN)),
            CallCtx::anonymous(),
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::ApprovalPending, "{e:?}");
    assert_eq!(e.meta("action"), Some("kick"));
    let id = e.meta("approval_id").unwrap().to_owned();
    assert_eq!(t.api.group_actions(), vec![], "held: nothing sent yet");
    let done = t.gw.decide_approval(&id, true, "api").await.unwrap();
    assert_eq!(done.state, ApprovalState::Executed, "{done:?}");
    let kicked = vec![Call::Kick {
        group_id: G,
        user_id: MEMBER,
        reject_rejoin: false,
    }];
    assert_eq!(t.api.group_actions(), kicked);
    let again = t.gw.decide_approval(&id, true, "api").await.unwrap_err();
    assert_eq!(again.kind, Kind::ApprovalDecided);
    let waited =
        t.gw.wait_approval(&id, Duration::ZERO, &CallCtx::anonymous())
            .await
            .unwrap();
    assert_eq!(waited.state, ApprovalState::Executed);
    assert_eq!(t.api.group_actions(), kicked, "executed exactly once");
}

#[tokio::test]
async fn a_held_moderation_checks_again_when_approved() {
    // Between the question and the answer the bot lost its admin role:
    // the approved action fails, and nothing is sent.
    let t = start(vec![rule(&["mute"], None, Approval::BotOwner)], "admin");
    let e = moderate(&t, mute(MEMBER, 60)).await.unwrap_err();
    let id = e.meta("approval_id").unwrap().to_owned();
    t.api.set_members(Some(vec![
        member(GROUP_OWNER, "owner"),
        member(MEMBER, "member"),
        member(BOT, "member"),
    ]));
    let done = t.gw.decide_approval(&id, true, "api").await.unwrap();
    assert_eq!(done.state, ApprovalState::Failed, "{done:?}");
    assert_eq!(t.api.group_actions(), vec![]);
}

fn voice(bytes: Vec<u8>) -> SendRequest {
    SendRequest {
        group_id: Some(G),
        voices: vec![Some(MediaSource::Data(bytes.into()))],
        ..SendRequest::default()
    }
}

#[tokio::test]
async fn a_voice_is_sent_as_a_record_message_of_its_own() {
    let t = start(Vec::new(), "member");
    let ctx = CallCtx::anonymous;
    let mp3 = sample("mp3", 2048);
    let sent =
        t.gw.send_message(
            SendRequest {
                text: "听这个".into(),
                ..voice(mp3.clone())
            },
            ctx(),
        )
        .await
        .unwrap();
    assert_eq!(sent.message_ids.len(), 2, "{sent:?}");
    assert_eq!(sent.media.as_ref().map(|m| m.voices), Some(1));
    let sends: Vec<serde_json::Value> = t
        .api
        .calls()
        .into_iter()
        .filter_map(|c| match c {
            Call::Send { message, .. } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(sends.len(), 2);
    assert_eq!(
        sends[0],
        json!([{"type": "text", "data": {"text": "听这个"}}])
    );
    assert_eq!(sends[1].as_array().map(Vec::len), Some(1), "{}", sends[1]);
    assert_eq!(sends[1][0]["type"], "record", "{}", sends[1]);
    let file = sends[1][0]["data"]["file"].as_str().unwrap();
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(&mp3);
    assert_eq!(file, format!("base64://{encoded}"));
    // Each accepted format goes; anything else, or two voices, does not.
    for kind in ["wav", "ogg", "amr", "silk"] {
        t.gw.send_message(voice(sample(kind, 512)), ctx())
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e:?}"));
    }
    let e =
        t.gw.send_message(voice(sample("png", 512)), ctx())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::MediaTypeMismatch, "{e:?}");
    let mut two = voice(sample("mp3", 512));
    two.voices.push(two.voices[0].clone());
    let e = t.gw.send_message(two, ctx()).await.unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("voices"))
    );
}

#[tokio::test]
async fn a_voice_is_the_send_voice_action_of_the_policy() {
    let t = start(
        vec![rule(&["send_voice"], Some(&["bot_owner"]), Approval::None)],
        "member",
    );
    let e =
        t.gw.send_message(voice(sample("mp3", 512)), CallCtx::anonymous())
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("action"), e.meta("rule")),
        (Kind::PolicyDenied, Some("send_voice"), Some("0"))
    );
    // Text alone is no voice.
    t.gw.send_message(
        SendRequest {
            group_id: Some(G),
            text: "hi".into(),
            ..SendRequest::default()
        },
        CallCtx::anonymous(),
    )
    .await
    .unwrap();
    let sends = t
        .api
        .calls()
        .into_iter()
        .filter(|c| matches!(c, Call::Send { .. }))
        .count();
    assert_eq!(sends, 1);
    // The bot owner may.
    t.gw.send_message(
        SendRequest {
            on_behalf_of: Some(OnBehalfOf::User(BOT_OWNER)),
            ..voice(sample("mp3", 512))
        },
        CallCtx::anonymous(),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn a_group_file_is_fetched_from_the_peers_url() {
    let t = start(Vec::new(), "member");
    let bytes = sample("text", 300);
    let server =
        onebot_gateway_testkit::FileServer::start(vec![("/f.txt".into(), bytes.clone())]).await;
    t.api.set_file_url("f1", &server.url("/f.txt"));
    let ctx = CallCtx::anonymous;
    // The peer's loopback URL is refused unless the operator allows it.
    let e =
        t.gw.download_group_file("", None, "f1", ctx())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::MediaDownloadFailed, "{e:?}");
    assert_eq!(server.hits(), 0, "never fetched");
    for (group, file, kind) in [
        (Some(OTHER), "f1", Kind::GroupNotAllowed),
        (None, "  ", Kind::InvalidRequest),
    ] {
        let e =
            t.gw.download_group_file("", group, file, ctx())
                .await
                .unwrap_err();
        assert_eq!(e.kind, kind, "{group:?} {file:?}");
    }
    assert!(
        !t.api
            .calls()
            .iter()
            .any(|c| matches!(c, Call::FileUrl { file_id, .. } if file_id.trim().is_empty())),
        "a blank file id never reaches the peer"
    );
    drop(t);
    // Allowed: the bytes, their hash and the URL's name.
    let t = start_with_media(|m| {
        m.allow_private_urls = true;
        m.peer_url_hosts.push("127.0.0.1".into());
    });
    t.api.set_file_url("f1", &server.url("/f.txt"));
    let download =
        t.gw.download_group_file("", None, " f1 ", ctx())
            .await
            .unwrap();
    assert_eq!(download.header.size, 300);
    assert_eq!(
        download.header.sha256,
        onebot_gateway_testkit::sha_hex(&bytes)
    );
    assert_eq!(download.header.file_name, "f.txt");
    let mut got = Vec::new();
    std::io::Read::read_to_end(&mut &download.file, &mut got).unwrap();
    assert_eq!(got, bytes);
    assert!(t.api.calls().contains(&Call::FileUrl {
        group_id: G,
        file_id: "f1".into()
    }));
    let e =
        t.gw.download_group_file("", None, "unknown", ctx())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::MediaNotFound, "{e:?}");
}
