//! OpenAI Responses: input and output items, function calls, reasoning summaries.

mod decode;
mod encode;

pub(crate) use decode::{ResponsesDecoder, completion_events};
pub(crate) use encode::encode;
