//! The wall clock, in the unit the durable records use.

/// Current time as Unix milliseconds.
pub fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}
