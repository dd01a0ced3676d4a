//! OpenAI Responses: input and output items, function calls, reasoning summaries.

mod decode;
mod encode;

pub(crate) use decode::ResponsesDecoder;
pub(crate) use encode::encode;
