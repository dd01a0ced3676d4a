//! Every request the server saw, for assertions.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// Headers whose values are replaced before logging.
const SECRET_HEADERS: &[&str] = &["authorization", "x-api-key", "api-key", "cookie"];

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Lower-case names; secrets redacted.
    pub headers: BTreeMap<String, String>,
    /// The parsed JSON body (`null` when there was none or it did not parse).
    pub body: Value,
    /// When it arrived, since the server started.
    pub at: Duration,
    /// The script that answered, by name.
    pub script: Option<String>,
    /// The step answered with (the request's assistant-turn count).
    pub step: usize,
    /// 0 for the first attempt at this step of this conversation.
    pub attempt: u32,
    /// What was served: `answer`, `status 429`, `disconnect`, …
    pub served: String,
    /// When the client went away before its answer ended (hung up mid-stream, or left a
    /// hanging answer), since the server started.
    pub client_gone_at: Option<Duration>,
}

/// The headers of a request, with secrets redacted.
pub fn redacted_headers(headers: &hyper::HeaderMap) -> BTreeMap<String, String> {
    headers
        .iter()
        .map(|(name, value)| {
            let name = name.as_str().to_ascii_lowercase();
            let value = if SECRET_HEADERS.contains(&name.as_str()) {
                "<redacted>".to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            (name, value)
        })
        .collect()
}
