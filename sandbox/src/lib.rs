//! OneBot v11 sandbox peer.
