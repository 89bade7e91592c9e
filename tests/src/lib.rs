//! Shared test harness.
