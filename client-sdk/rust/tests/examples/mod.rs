//! The README's examples, one function per RPC. Everything between a
//! `// region: <name>` and `// endregion` line is copied verbatim into
//! README.md (tests/readme.rs checks it) and run by tests/e2e.rs against a
//! real gateway.

#![allow(dead_code)]

use onebot_gateway_client::{Client, Error, ServingStatus, Uploaded, pb};

pub async fn connect() -> Result<Client, Error> {
    // region: connect
    use onebot_gateway_client::Client;

    let addr = std::env::var("ONEBOT_GATEWAY_ADDR").unwrap_or("http://127.0.0.1:50051".into());
    let mut builder = Client::builder(addr);
    if let Ok(token) = std::env::var("ONEBOT_GATEWAY_TOKEN") {
        builder = builder.token(token); // sent as `authorization: Bearer <token>`
    }
    // For TLS: an https:// address, plus `.ca_file("ca.pem")` for a private CA.
    let client = builder.connect().await?;
    // endregion
    Ok(client)
}

pub async fn health(client: &Client) -> Result<ServingStatus, Error> {
    // region: health
    let status = client.health("").await?; // or &format!("{ACCOUNT_HEALTH_SERVICE_PREFIX}default")
    println!("gateway: {}", status.as_str_name());
    // endregion
    Ok(status)
}

pub async fn accounts(client: &Client) -> Result<Vec<onebot_gateway_client::pb::Account>, Error> {
    // region: accounts
    let accounts = client.accounts().await?;
    for account in &accounts {
        println!(
            "{} {} groups={:?}",
            account.account_id, account.nickname, account.groups
        );
        // How the gateway pages this peer's history, learned from its own pages.
        println!(
            "history: {} (anchor row included: {}, {})",
            account.history_anchor, account.anchor_included, account.history_anchor_source
        );
    }
    // endregion
    Ok(accounts)
}

pub async fn history(client: &Client) -> Result<pb::GetHistoryResponse, Error> {
    // region: history
    use onebot_gateway_client::pb::Chat;

    let page = client.history(Chat::group(20000003), 5, None).await?;
    println!("{}", page.rendered); // [HH:mm:ss] 名字(QQ号): 文本, oldest first
    if let Some(anchor) = page.next_anchor_message_id {
        let older = client
            .history(Chat::group(20000003), 5, Some(anchor))
            .await?;
        println!("{} older messages", older.messages.len());
    }
    // endregion
    Ok(page)
}

pub async fn members(client: &Client) -> Result<pb::ListGroupMembersResponse, Error> {
    // region: members
    let members = client.members(20000003, 5, None).await?;
    println!("{}", members.rendered); // 名字(QQ号) — role, plus a truncation line
    println!("{} of {} shown", members.shown, members.total);
    // endregion
    Ok(members)
}

pub async fn groups(client: &Client) -> Result<pb::ListGroupsResponse, Error> {
    // region: groups
    let groups = client.groups().await?;
    for group in &groups.groups {
        println!(
            "{} {} whitelisted={}",
            group.group_id, group.group_name, group.whitelisted
        );
    }
    // endregion
    Ok(groups)
}

pub async fn upload(client: &Client, path: &str) -> Result<Uploaded, Error> {
    // region: upload
    use onebot_gateway_client::pb::MediaKind;

    // Streams the file in 256 KiB chunks; the SHA-256 is checked against the gateway's.
    let uploaded = client
        .upload(std::path::Path::new(path), MediaKind::Image)
        .await?;
    println!(
        "{} {} bytes sha256={}",
        uploaded.media_id, uploaded.size, uploaded.sha256
    );
    // endregion
    Ok(uploaded)
}

pub async fn download(
    client: &Client,
    dir: &std::path::Path,
) -> Result<Option<onebot_gateway_client::Downloaded>, Error> {
    let mut last = None;
    // region: download
    use onebot_gateway_client::MediaRef;
    use onebot_gateway_client::pb::segment::Kind;

    // A received picture (group 20000002's morning one): its segment's media_id, or
    // a message id and segment index. Sizes and SHA-256 are checked against
    // the header.
    let page = client.history(pb::Chat::group(20000002), 30, None).await?;
    for message in &page.messages {
        for (index, segment) in message.segments.iter().enumerate() {
            if let Some(Kind::Image(image)) = &segment.kind {
                let picture = client.download(image.media_id.as_str()).await?;
                println!(
                    "{} {} bytes sha256={}",
                    picture.header.mime_type, picture.header.size, picture.header.sha256
                );
                // Or stream it into a file, by message id and segment index:
                let at = MediaRef::message(message.message_id, index as i32);
                let header = client.download_to(at, dir.join("picture")).await?;
                println!("saved {} ({} bytes)", header.file_name, header.size);
                last = Some(picture);
            }
        }
    }
    // endregion
    Ok(last)
}

pub async fn errors(client: &Client) -> Result<Error, Error> {
    // region: errors
    use onebot_gateway_client::pb::ErrorReason;

    let err = client.members(0, 0, None).await.unwrap_err();
    if let Some(rpc) = err.rpc() {
        // code InvalidArgument, reason INVALID_REQUEST, the offending field, RetryInfo delay
        println!("{:?} {:?} {:?}", rpc.code, rpc.reason, rpc.field_violations);
        assert!(rpc.is(ErrorReason::InvalidRequest));
        if let Some(delay) = rpc.retry_delay {
            println!("retry after {delay:?}");
        }
    }
    // endregion
    Ok(err)
}

pub async fn send(client: &Client, image: &str) -> Result<pb::SendMessageResponse, Error> {
    // region: send
    use onebot_gateway_client::{Media, OutgoingMessage};

    // Local files are uploaded first (streamed), then sent by media id.
    let message = OutgoingMessage::to_group(20000003)
        .text("hello from Rust")
        .image(Media::path(image));
    let sent = client.send(message).await?;
    println!("message ids {:?}, queued {}", sent.message_ids, sent.queued);
    // endregion
    Ok(sent)
}

pub async fn conversation(client: &Client) -> Result<pb::GetMessageResponse, Error> {
    // region: conversation
    use onebot_gateway_client::OutgoingMessage;

    let page = client.history(pb::Chat::group(20000003), 20, None).await?;
    let last = page.messages.last().expect("a message");
    // Quote the newest message and mention its sender, in one message.
    let sender = last.sender.as_ref().map_or(0, |s| s.user_id);
    let message = OutgoingMessage::to_group(20000003)
        .text("收到")
        .reply_to(last.message_id)
        .mention(sender);
    let sent = client.send(message).await?;
    let reply = client.get_message(sent.message_ids[0]).await?;
    println!("{}", reply.rendered); // [HH:mm:ss] 沙盒(…): [回复 名字: 文本]@名字收到
    // A private chat (the account's `users` whitelist), recalled within QQ's 2 minutes.
    let private = client
        .send(OutgoingMessage::to_user(10001).text("私聊一句"))
        .await?;
    client.recall(private.message_ids[0]).await?;
    // Open the first merged-forward bundle of the page.
    let forward_id = page
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .find_map(|s| match &s.kind {
            Some(pb::segment::Kind::Forward(f)) => Some(f.id.clone()),
            _ => None,
        });
    if let Some(id) = forward_id {
        let bundle = client.get_forward(id).await?;
        println!("{}", bundle.rendered); // one line per forwarded message
    }
    // endregion
    Ok(reply)
}

pub async fn poke(client: &Client) -> Result<pb::PokeMemberResponse, Error> {
    // region: poke
    let poked = client.poke(Some(20000003), 10001).await?;
    println!("poked {} in {}", poked.user_id, poked.group_id);
    // endregion
    Ok(poked)
}

pub async fn tools(client: &Client) -> Result<pb::CallToolResponse, Error> {
    // region: tools
    for tool in client.list_tools().await? {
        println!("{}: {}", tool.name, tool.input_schema_json);
    }
    let result = client
        .call_tool(
            "qq_get_group_members",
            r#"{"groupId": 20000003, "limit": 2}"#,
        )
        .await?;
    // A failed tool call is a normal result: is_error, text = details.error.
    println!("{} {}", result.is_error, result.text);
    // endregion
    Ok(result)
}

pub async fn events(client: &Client) -> Result<pb::Event, Error> {
    // region: events
    use onebot_gateway_client::pb::{EventKind, StreamEventsRequest, event};

    // Replays the buffered events after sequence 0, then follows new ones.
    let request = StreamEventsRequest {
        kinds: vec![EventKind::Poke as i32],
        after_sequence: Some(0),
        ..Default::default()
    };
    let mut events = client.events(request).await?;
    let first = events.next().await?.expect("the gateway is running");
    if let Some(event::Kind::Poke(poke)) = &first.kind {
        println!(
            "#{} {} poked {}",
            first.sequence, poke.user_id, poke.target_id
        );
    }
    // endregion
    Ok(first)
}

pub async fn search(client: &Client) -> Result<Vec<pb::SearchMessagesResponse>, Error> {
    let mut found = Vec::new();
    // region: search
    use std::time::{Duration, SystemTime};

    use onebot_gateway_client::pb::{Chat, SearchMessagesRequest};

    // The archive's messages containing 开会 in the last 7 days, newest page first (each page
    // oldest first); next_page fetches one page at a time, None after the last.
    let week_ago = SystemTime::now() - Duration::from_secs(7 * 24 * 3600);
    let mut pages = client.search(SearchMessagesRequest {
        query: "开会".into(),
        chat: Some(Chat::group(20000003)),
        since: Some(week_ago.into()),
        ..Default::default()
    });
    while let Some(page) = pages.next_page().await? {
        println!("{}", page.rendered); // [HH:mm:ss] 名字(QQ号): 文本
        found.push(page);
    }
    // endregion
    Ok(found)
}

pub async fn group_files(
    client: &Client,
    dir: &std::path::Path,
) -> Result<Vec<(pb::GroupFile, onebot_gateway_client::Downloaded)>, Error> {
    let mut downloaded = Vec::new();
    // region: group_files
    // The root folder of group 20000003's files (群文件), every page: its folders, then its files.
    let (folders, files) = client
        .list_group_files(Some(20000003), "")
        .collect_all()
        .await?;
    for folder in &folders {
        println!("{}/ ({} files)", folder.name, folder.file_count);
    }
    for file in &files {
        // Into memory, or streamed into a file; both check the header's size and SHA-256.
        let got = client
            .download_group_file(Some(20000003), file.file_id.as_str())
            .await?;
        println!(
            "{}: {} bytes, {}",
            file.name,
            got.data.len(),
            got.header.mime_type
        );
        let header = client
            .download_group_file_to(
                Some(20000003),
                file.file_id.as_str(),
                dir.join("group-file"),
            )
            .await?;
        println!("saved {} ({} bytes)", header.file_name, header.size);
        downloaded.push((file.clone(), got));
    }
    // endregion
    Ok(downloaded)
}

pub async fn react(client: &Client) -> Result<Vec<pb::EssenceMessage>, Error> {
    // region: react
    use onebot_gateway_client::OutgoingMessage;

    // React to a group message with 赞 (QQ face 76; a Unicode emoji is its code point, "128077").
    let sent = client
        .send(OutgoingMessage::to_group(20000003).text("react to me"))
        .await?;
    let reacted = client.react(sent.message_ids[0], "76").await?;
    println!("reacted in {}", reacted.group_id);
    // The group's essence messages (精华), newest marking first, every page.
    let essence = client
        .list_essence(Some(20000003), 20)
        .collect_all()
        .await?;
    for entry in &essence {
        let sender = entry.message.as_ref().and_then(|m| m.sender.as_ref());
        println!(
            "{:?}: {} (marked by {})",
            sender.map(|s| s.user_id),
            entry.message.as_ref().map_or("", |m| m.text.as_str()),
            entry.operator_name
        );
    }
    // endregion
    Ok(essence)
}

pub async fn typing(client: &Client) -> Result<(), Error> {
    // region: typing
    // "正在输入" in the private chat with 10001 (a user of the `users` whitelist) while the
    // model thinks. A courtesy: never let it stop the answer (some implementations have no
    // such action: ErrorReason::NotSupportedByImplementation, and nothing is sent).
    if let Err(e) = client.set_typing(10001).await {
        println!("no typing indicator: {:?}", e.reason());
    }
    // endregion
    Ok(())
}

pub async fn moderation(client: &Client) -> Result<Option<Error>, Error> {
    let mut refused = None;
    // region: moderation
    use std::time::Duration;

    use onebot_gateway_client::pb::ErrorReason;

    // Mute, mute-all, kick and set-card are refused unless a [[policy.rules]] entry names the
    // action (mute, mute_all, kick, set_card); the sandbox has none, so this is POLICY_DENIED.
    match client
        .mute_member(Some(20000003), 10003, Duration::from_secs(600))
        .await
    {
        Ok(muted) => println!("muted {} in {}", muted.user_id, muted.group_id),
        Err(e) => match e.rpc() {
            Some(rpc) if rpc.is(ErrorReason::PolicyDenied) => {
                println!(
                    "no policy rule allows it (rule={:?})",
                    rpc.metadata.get("rule")
                );
                refused = Some(e);
            }
            // Also: BotNotAdmin (the bot is not an admin), ProtectedMember (the owner, the bot).
            _ => return Err(e),
        },
    }
    // endregion
    Ok(refused)
}
