//! Protobuf messages of the API as JSON (the proto3 JSON mapping), through
//! the API's own descriptors.

use std::sync::LazyLock;

use onebot_gateway_client::pb;
use prost_reflect::{DescriptorPool, DynamicMessage};

static POOL: LazyLock<Result<DescriptorPool, String>> =
    LazyLock::new(|| DescriptorPool::decode(pb::FILE_DESCRIPTOR_SET).map_err(|e| e.to_string()));

/// `message` as a dynamic message of the proto type `full_name`, ready to
/// serialize with the options its caller wants.
pub fn dynamic<M: prost::Message>(message: &M, full_name: &str) -> Result<DynamicMessage, String> {
    let pool = POOL.as_ref().map_err(Clone::clone)?;
    let descriptor = pool
        .get_message_by_name(full_name)
        .ok_or_else(|| format!("unknown message type {full_name}"))?;
    DynamicMessage::decode(descriptor, message.encode_to_vec().as_slice())
        .map_err(|e| format!("re-decoding {full_name}: {e}"))
}
