//! kigi's model layer. So far it holds the piece every provider's streaming needs first: an
//! incremental Server-Sent Events parser that turns bytes, however the network splits them,
//! into events. The `ModelClient` interface and the providers build on it.

mod sse;

pub use sse::{SseEvent, SseParser};
