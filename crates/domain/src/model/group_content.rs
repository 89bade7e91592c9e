//! What a group holds besides its messages and members: essence (精华)
//! messages and group files.

use super::message::Message;

/// One essence message of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct EssenceEntry {
    /// The message as the peer reports it: chat, sender, time (0 when the
    /// peer does not report it), segments (empty when the peer reports no
    /// content) and id (0 when the peer reports none the gateway can use).
    pub message: Message,
    /// Who marked it.
    pub operator_id: i64,
    /// The marker's name as the peer reports it.
    pub operator_name: String,
    /// When it was marked (Unix seconds, 0 when unknown).
    pub operation_time: i64,
}

/// One page of a group's essence messages.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EssencePage {
    /// The entries, in the peer's order.
    pub entries: Vec<EssenceEntry>,
    /// True when this is the last page.
    pub is_end: bool,
}

/// One file in a group's files (群文件).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupFile {
    /// The peer's id of the file (opaque; what a download names).
    pub file_id: String,
    /// Display name.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// The folder it is in (`/` for the root), when the peer reports it.
    pub folder_id: String,
    /// Who uploaded it.
    pub uploader_id: i64,
    /// The uploader's name, when reported.
    pub uploader_name: String,
    /// Upload time (Unix seconds).
    pub upload_time: i64,
    /// When it expires (Unix seconds); 0 = never.
    pub expire_time: i64,
    /// How often it was downloaded.
    pub download_count: i64,
}

/// One folder in a group's files.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupFolder {
    /// The peer's id of the folder (what a listing names).
    pub folder_id: String,
    /// Display name.
    pub name: String,
    /// Who created it.
    pub creator_id: i64,
    /// Creation time (Unix seconds).
    pub create_time: i64,
    /// Number of files in it.
    pub file_count: i64,
}

/// A folder's content as the peer lists it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupFiles {
    /// Sub-folders (some peers never list sub-folders of a sub-folder).
    pub folders: Vec<GroupFolder>,
    /// Files.
    pub files: Vec<GroupFile>,
}
