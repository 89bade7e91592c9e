//! Essence lists and group-file listings as each flavor answers them,
//! decoded into the domain's [`EssenceEntry`] and [`GroupFiles`].
//!
//! Essence entries come in three shapes, all read by one decoder:
//!
//! | flavor              | sender            | operator (id, name, time)                           | content       |
//! |---------------------|-------------------|-----------------------------------------------------|---------------|
//! | NapCat              | `sender_id`, `sender_nick` (no `sender_time`) | `operator_id`, `operator_nick`, `operator_time` | `content` (segments) |
//! | LLOneBot, go-cqhttp | `sender_id`, `sender_nick`, `sender_time` | same                                        | none          |
//! | Lagrange            | same              | same                                                | `content` (segments) |
//! | SnowLuma            | `sender_uin`, `sender_nick`, `sender_time` (raw qun.qq.com items) | `add_digest_uin`, `add_digest_nick`, `add_digest_time` | `msg_content` (web items) |
//!
//! An entry without a numeric sender is skipped (logged at debug), never
//! failing the whole list.

use serde_json::{Value, json};

use super::message::raw_of_value;
use super::scalar::{Scalar, int_of, str_of};
use super::segment::{decode_segment, segments_of};
use crate::ids;
use onebot_gateway_domain::model::{
    ChatRef, EssenceEntry, EssencePage, GroupFile, GroupFiles, GroupFolder, Message, Sender,
};

/// The first of `keys` present in `v` as an integer.
fn int_field(v: &Value, keys: &[&str]) -> Option<i64> {
    keys.iter().find_map(|k| v.get(*k).and_then(int_of))
}

/// The first of `keys` present in `v` as a time (integral or not).
fn time_field(v: &Value, keys: &[&str]) -> Option<i64> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(|t| Scalar::of_value(t).time()))
}

/// The first of `keys` present in `v` as non-empty text.
fn text_field(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(str_of).filter(|s| !s.is_empty()))
}

/// One essence entry of `group_id`, in any flavor's shape (see the module
/// table); `None` when it names no numeric sender.
pub fn decode_essence_entry(group_id: i64, entry: &Value) -> Option<EssenceEntry> {
    if !entry.is_object() {
        return None;
    }
    let sender_id = int_field(entry, &["sender_id", "sender_uin"])?;
    let segments = match (entry.get("content"), entry.get("msg_content")) {
        (Some(content), _) if !content.is_null() => segments_of(content, None),
        (_, Some(Value::Array(items))) => items.iter().filter_map(web_item).collect(),
        _ => Vec::new(),
    };
    let message = Message {
        message_id: entry
            .get("message_id")
            .and_then(ids::message_id_of)
            .unwrap_or(0),
        message_seq: int_field(entry, &["msg_seq", "message_seq"]).filter(|s| *s > 0),
        peer_seq: None,
        time: time_field(entry, &["sender_time"]).unwrap_or(0),
        sender: Sender {
            user_id: sender_id,
            nickname: text_field(entry, &["sender_nick"]).unwrap_or_default(),
            card: String::new(),
            role: String::new(),
        },
        segments,
        chat: ChatRef::Group(group_id),
        raw: raw_of_value(entry),
    };
    Some(EssenceEntry {
        message,
        operator_id: int_field(entry, &["operator_id", "add_digest_uin"]).unwrap_or(0),
        operator_name: text_field(entry, &["operator_nick", "add_digest_nick"]).unwrap_or_default(),
        operation_time: time_field(entry, &["operator_time", "add_digest_time"]).unwrap_or(0),
    })
}

/// One item of a raw qun.qq.com `msg_content` (msg_type 1 text, 2 face, 3
/// image), as the OneBot segment it stands for; other types are dropped.
fn web_item(item: &Value) -> Option<onebot_gateway_domain::model::Segment> {
    let seg = match int_field(item, &["msg_type"])? {
        1 => json!({"type": "text", "data": {"text": text_field(item, &["text"])?}}),
        2 => json!({"type": "face", "data": {"id": text_field(item, &["face_index"])?}}),
        3 => json!({"type": "image", "data": {"url": text_field(item, &["image_url"])?}}),
        _ => return None,
    };
    decode_segment(&seg)
}

/// The whole essence list of `group_id` decoded (undecodable entries
/// skipped), then page `page` of `page_size` entries of it: the slice from
/// `page * page_size`, `is_end` when it reaches the end of the list. A
/// `page_size` of 0 is no limit: the whole list, as one last page.
pub fn essence_page(group_id: i64, list: &[Value], page: u32, page_size: u32) -> EssencePage {
    let entries: Vec<EssenceEntry> = list
        .iter()
        .filter_map(|e| {
            let decoded = decode_essence_entry(group_id, e);
            if decoded.is_none() {
                tracing::debug!(group_id, entry = %e, "essence entry skipped: no numeric sender");
            }
            decoded
        })
        .collect();
    if page_size == 0 {
        return EssencePage {
            entries,
            is_end: true,
        };
    }
    let size = page_size as usize;
    let start = (page as usize).saturating_mul(size).min(entries.len());
    let end = start.saturating_add(size).min(entries.len());
    EssencePage {
        is_end: end >= entries.len(),
        entries: entries.into_iter().skip(start).take(end - start).collect(),
    }
}

/// One file of a listing of `folder_id`; `None` without a `file_id`.
fn decode_file(folder_id: &str, f: &Value) -> Option<GroupFile> {
    let file_id = text_field(f, &["file_id"])?;
    Some(GroupFile {
        file_id,
        name: text_field(f, &["file_name"]).unwrap_or_default(),
        size: int_field(f, &["size", "file_size"])
            .and_then(|s| u64::try_from(s).ok())
            .unwrap_or(0),
        folder_id: folder_id.to_owned(),
        uploader_id: int_field(f, &["uploader"]).unwrap_or(0),
        uploader_name: text_field(f, &["uploader_name"]).unwrap_or_default(),
        upload_time: time_field(f, &["upload_time"]).unwrap_or(0),
        expire_time: time_field(f, &["dead_time"]).unwrap_or(0),
        download_count: int_field(f, &["download_times"]).unwrap_or(0),
    })
}

/// One folder of a listing; `None` without a `folder_id`.
fn decode_folder(f: &Value) -> Option<GroupFolder> {
    Some(GroupFolder {
        folder_id: text_field(f, &["folder_id"])?,
        name: text_field(f, &["folder_name", "folder"]).unwrap_or_default(),
        creator_id: int_field(f, &["creator"]).unwrap_or(0),
        create_time: time_field(f, &["create_time"]).unwrap_or(0),
        file_count: int_field(f, &["total_file_count"]).unwrap_or(0),
    })
}

/// A `{files, folders}` answer listing `folder_id` (`/` for the root): a
/// missing or `null` list is empty; entries without an id are skipped.
pub fn decode_group_files(folder_id: &str, data: &Value) -> GroupFiles {
    let items = |key: &str| -> &[Value] {
        data.get(key)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    };
    GroupFiles {
        folders: items("folders").iter().filter_map(decode_folder).collect(),
        files: items("files")
            .iter()
            .filter_map(|f| decode_file(folder_id, f))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_domain::model::Segment;

    fn napcat_entry() -> Value {
        json!({"msg_seq": 321, "msg_random": 99, "sender_id": "10001", "sender_nick": "张三",
            "operator_id": 10002, "operator_nick": "管理", "message_id": -77,
            "operator_time": 1700000100,
            "content": [{"type": "text", "data": {"text": "精华"}}]})
    }

    #[test]
    fn napcat_entries_keep_content_and_have_no_sender_time() {
        let e = decode_essence_entry(5, &napcat_entry()).unwrap();
        assert_eq!(e.message.chat, ChatRef::Group(5));
        assert_eq!(e.message.sender.user_id, 10001);
        assert_eq!(e.message.sender.nickname, "张三");
        assert_eq!(e.message.time, 0);
        assert_eq!(e.message.message_id, -77);
        assert_eq!(e.message.message_seq, Some(321));
        assert_eq!(e.message.segments, vec![Segment::Text("精华".into())]);
        assert_eq!(e.operator_id, 10002);
        assert_eq!(e.operator_name, "管理");
        assert_eq!(e.operation_time, 1700000100);
    }

    #[test]
    fn llonebot_and_gocqhttp_entries_have_no_content() {
        let e = decode_essence_entry(
            5,
            &json!({"sender_id": 1, "sender_nick": "a", "sender_time": 1700000000,
                "operator_id": 2, "operator_nick": "b", "operator_time": 1700000001,
                "message_id": 42}),
        )
        .unwrap();
        assert_eq!(e.message.time, 1700000000);
        assert_eq!(e.message.message_id, 42);
        assert!(e.message.segments.is_empty());
        assert_eq!(
            (e.operator_id, e.operation_time, e.operator_name.as_str()),
            (2, 1700000001, "b")
        );
    }

    #[test]
    fn lagrange_entries_keep_content() {
        let e = decode_essence_entry(
            5,
            &json!({"sender_id": 1, "sender_nick": "a", "sender_time": 3, "operator_id": 2,
                "operator_nick": "b", "operator_time": 4, "message_id": 123456,
                "content": [{"type": "face", "data": {"id": "14"}}]}),
        )
        .unwrap();
        assert_eq!(e.message.segments, vec![Segment::Face { id: "14".into() }]);
        assert_eq!(e.message.message_id, 123456);
    }

    #[test]
    fn snowluma_raw_web_items_are_read_by_their_own_names() {
        let e = decode_essence_entry(
            5,
            &json!({"group_code": "5", "msg_seq": 88, "msg_random": 7, "sender_uin": "1",
                "sender_nick": "a", "sender_time": 3, "add_digest_uin": "2",
                "add_digest_nick": "b", "add_digest_time": 4,
                "msg_content": [{"msg_type": 1, "text": "hi"}, {"msg_type": 2, "face_index": 14},
                    {"msg_type": 9}]}),
        )
        .unwrap();
        assert_eq!(e.message.sender.user_id, 1);
        assert_eq!(e.message.message_id, 0);
        assert_eq!(e.message.message_seq, Some(88));
        assert_eq!(e.message.time, 3);
        assert_eq!(
            e.message.segments,
            vec![
                Segment::Text("hi".into()),
                Segment::Face { id: "14".into() }
            ]
        );
        assert_eq!(
            (e.operator_id, e.operator_name.as_str(), e.operation_time),
            (2, "b", 4)
        );
    }

    #[test]
    fn pages_skip_bad_entries_and_end_at_the_last_slice() {
        let list: Vec<Value> = (1..=5)
            .map(|i| json!({"sender_id": i, "operator_id": 9}))
            .chain([json!("garbage"), json!({"sender_nick": "no id"})])
            .collect();
        let ids = |p: &EssencePage| -> Vec<i64> {
            p.entries.iter().map(|e| e.message.sender.user_id).collect()
        };
        let p0 = essence_page(5, &list, 0, 2);
        assert_eq!((ids(&p0), p0.is_end), (vec![1, 2], false));
        let p2 = essence_page(5, &list, 2, 2);
        assert_eq!((ids(&p2), p2.is_end), (vec![5], true));
        let exact = essence_page(5, &list, 0, 5);
        assert_eq!((exact.entries.len(), exact.is_end), (5, true));
        let past = essence_page(5, &list, 9, 2);
        assert_eq!((past.entries.len(), past.is_end), (0, true));
        let all = essence_page(5, &list, 0, 0);
        assert_eq!((all.entries.len(), all.is_end), (5, true));
        let empty = essence_page(5, &[], 0, 10);
        assert!(empty.is_end && empty.entries.is_empty());
    }

    #[test]
    fn file_listings_read_every_spelling() {
        let data = json!({
            "files": [
                {"group_id": 5, "file_id": "/abc", "file_name": "a.txt", "busid": 102,
                 "size": 10, "upload_time": 1, "dead_time": 0, "modify_time": 2,
                 "download_times": 3, "uploader": "7", "uploader_name": "u"},
                {"file_id": "/def", "file_name": "b", "file_size": 20},
                {"file_name": "no id"}
            ],
            "folders": [
                {"folder_id": "/f1", "folder_name": "docs", "create_time": 4, "creator": 8,
                 "creator_name": "c", "total_file_count": 2},
                {"folder_id": "/f2", "folder": "other", "create_name": "c"}
            ]
        });
        let files = decode_group_files("/", &data);
        assert_eq!(
            files.files[0],
            GroupFile {
                file_id: "/abc".into(),
                name: "a.txt".into(),
                size: 10,
                folder_id: "/".into(),
                uploader_id: 7,
                uploader_name: "u".into(),
                upload_time: 1,
                expire_time: 0,
                download_count: 3,
            }
        );
        assert_eq!(files.files[1].size, 20);
        assert_eq!(files.files.len(), 2);
        assert_eq!(
            files.folders[0],
            GroupFolder {
                folder_id: "/f1".into(),
                name: "docs".into(),
                creator_id: 8,
                create_time: 4,
                file_count: 2,
            }
        );
        assert_eq!(files.folders[1].name, "other");
        let nulls = decode_group_files("/x", &json!({"files": null, "folders": null}));
        assert_eq!(nulls, GroupFiles::default());
    }
}
