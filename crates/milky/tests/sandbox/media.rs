//! Forwards, uploads and received media.

use super::*;

/// A sink that keeps what a peer step writes.
struct Bytes0(Vec<u8>);

#[async_trait::async_trait]
impl onebot_gateway_domain::ports::MediaSink for Bytes0 {
    async fn write(&mut self, chunk: &[u8]) -> onebot_gateway_domain::error::Result<()> {
        self.0.extend_from_slice(chunk);
        Ok(())
    }

    fn limit(&self) -> u64 {
        u64::MAX
    }
}

async fn download(url: &str) -> Vec<u8> {
    let resp = reqwest::get(url).await.expect("download");
    assert_eq!(resp.status(), 200, "{url}");
    resp.bytes().await.expect("body").to_vec()
}

/// The id the adapter mints for message `seq` of a group.
fn group_id_of(group: i64, seq: i64) -> i64 {
    use onebot_gateway_milky::ids::{MessageKey, Scene, mint_id};
    mint_id(
        "milky",
        MessageKey {
            scene: Scene::Group,
            peer: group,
            seq,
        },
    )
}

#[tokio::test]
async fn forwards_files_and_received_media() {
    use onebot_gateway_domain::model::ReceivedMedia;
    use onebot_gateway_domain::ports::{MediaStep, PeerMedia};
    let rig = rig("media", MilkyEvents::WebSocket).await;
    let control = rig.sandbox.control();
    // A forward bundle (seeded in 示例群, message 3).
    let m = rig
        .client
        .get_message(group_id_of(EXAMPLE_GROUP, 3), None, deadline())
        .await
        .unwrap();
    let Some(Segment::Forward { id: forward_id }) = m.segments.get(1) else {
        panic!("{m:?}")
    };
    let nodes = rig
        .client
        .get_forward(forward_id, deadline())
        .await
        .unwrap();
    assert_eq!(nodes.len(), 3);
    assert_eq!(
        (nodes[0].sender.user_id, nodes[0].sender.nickname.as_str()),
        (0, "张三")
    );
    assert!(matches!(
        nodes[2].segments.first(),
        Some(Segment::Forward { .. })
    ));
    assert_eq!(
        rig.client
            .get_forward("x", deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::MessageNotFound
    );

    // Uploads, the bytes streamed from a file.
    let mut tmp = tempfile::tempfile().unwrap();
    let bytes = b"%PDF-1.4 minutes".repeat(50_000);
    std::io::Write::write_all(&mut tmp, &bytes).unwrap();
    let file = MediaPayload::file(
        MediaKind::File,
        "application/pdf".into(),
        "m.pdf".into(),
        bytes.len() as u64,
        tmp,
        None,
    );
    rig.client
        .upload_file(ChatRef::Group(SANDBOX_GROUP), &file, "会议.pdf", deadline())
        .await
        .unwrap();
    rig.client
        .upload_file(ChatRef::Private(10001), &file, "m.pdf", deadline())
        .await
        .unwrap();

    // A received file: no URL in the segment, the download URL looked up.
    let m = rig
        .client
        .get_message(group_id_of(SANDBOX_GROUP, 7), None, deadline())
        .await
        .unwrap();
    let media = ReceivedMedia::of(&m, 0).expect("a file segment");
    assert_eq!(media.size, 200_007);
    assert_eq!(rig.client.media_steps(&media), vec![MediaStep::Lookup]);
    let mut sink = Bytes0(Vec::new());
    let PeerMedia::Url(url) = rig
        .client
        .fetch_media(&media, MediaStep::Lookup, &mut sink, deadline())
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(download(&url).await.len(), 200_007);
    assert_eq!(
        rig.client
            .fetch_media(&media, MediaStep::Stream, &mut sink, deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::UnsupportedByPeer
    );

    // A received image: its temp URL first, a fresh one looked up.
    let png = onebot_sandbox::sample_media(onebot_sandbox::MediaKind::Image, 300);
    let seg = control.store_media(onebot_sandbox::MediaKind::Image, png.clone(), "a.png");
    let sid = control.inject_group_message(SANDBOX_GROUP, 10002, json!([seg]));
    let id = group_id_of(SANDBOX_GROUP, control.message_seq(sid).unwrap());
    let m = rig.client.media_message(id, deadline()).await.unwrap();
    let media = ReceivedMedia::of(&m, 0).expect("an image segment");
    assert_eq!(
        rig.client.media_steps(&media),
        vec![MediaStep::SegmentUrl, MediaStep::Lookup]
    );
    assert_eq!(download(&media.url).await, png);
    let PeerMedia::Url(fresh) = rig
        .client
        .fetch_media(&media, MediaStep::Lookup, &mut sink, deadline())
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(download(&fresh).await, png);
    assert_eq!(
        rig.client
            .media_message(12345, deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::MediaNotFound
    );
}
