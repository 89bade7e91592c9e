//! The tonic layer: services, conversions, error mapping, router.

pub mod status;
