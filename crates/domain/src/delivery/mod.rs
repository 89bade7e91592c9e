//! What sending stands on: the write side's shared state ([`side`]), one
//! sender per account with its order, rate limits and risk back-off
//! ([`outbound`], [`ratelimit`]), what leads a send's first message
//! ([`lead`]: quote and mentions), the durable offline queue ([`queue`]) and
//! idempotency keys ([`idempotency`]) and the receipts they replay
//! ([`receipt`]).

pub mod idempotency;
pub mod lead;
pub mod outbound;
pub mod queue;
pub mod ratelimit;
pub mod receipt;
pub mod side;
