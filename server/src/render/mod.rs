//! Pure text rendering: history lines, member lines, segment placeholders,
//! exactly as the seeds specify.
