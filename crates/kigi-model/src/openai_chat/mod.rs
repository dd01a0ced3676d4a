//! OpenAI Chat Completions, the wire most servers speak. Vendor differences live in
//! `dialect.rs`, not here.

mod decode;
mod encode;

pub(crate) use decode::{ChatDecoder, chat_usage};
pub(crate) use encode::encode;
