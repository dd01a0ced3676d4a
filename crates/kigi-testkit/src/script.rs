//! What the scripted model answers. A [`ScriptSet`] holds scripts; each script is picked by a
//! marker found in the conversation and answers turn N of that conversation with its step N.
//!
//! Scripts are plain data: built in Rust, or read from YAML or JSON with [`ScriptSet::load`].

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every script the server knows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptSet {
    pub scripts: Vec<Script>,
}

/// One conversation's answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// A name for logs and errors.
    #[serde(default)]
    pub name: String,
    /// Text that must appear in the system prompt or the first user message for this script
    /// to answer. A script without one answers conversations no other script claims.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    /// Step N answers a request that already carries N assistant turns.
    pub steps: Vec<Step>,
}

/// One answer, and the faults served before it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ScriptedToolCall>,
    /// Token counts to report; estimated from sizes when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<ScriptedUsage>,
    /// A finish reason to report instead of the natural one (`length`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<String>,
    /// Wait this long before answering (every attempt, faults included).
    #[serde(default)]
    pub latency_ms: u64,
    /// Characters per streamed fragment of text, thinking and tool arguments (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_chars: Option<usize>,
    /// Served in order on the first attempts at this step; the answer comes after them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
}

/// A tool call the model "makes".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedToolCall {
    /// Generated from the turn and position when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// Sent as JSON text. A string is sent as is, so a script can send malformed arguments.
    #[serde(default)]
    pub arguments: Value,
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedUsage {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cached: u64,
}

/// Something going wrong, on purpose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// An error status with the provider's error body.
    Status {
        status: u16,
        /// Sent as `retry-after` (whole seconds, rounded up) and `retry-after-ms`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A chunk whose data is not JSON, after the first half of the answer.
    Malformed,
    /// The connection is cut after the first half of the answer.
    Disconnect,
    /// The body ends cleanly after the first half of the answer, without a completion event.
    Incomplete,
    /// The first half of the answer, then silence until the client goes away.
    Hang,
    /// The first half of the answer, then an SSE keep-alive comment (`: keep-alive`) every
    /// `interval_ms` until the client goes away: a stream that is never idle and never ends.
    KeepAlive {
        #[serde(default = "default_keep_alive_ms")]
        interval_ms: u64,
    },
    /// The first half of the answer, then its last event sent again and again, as fast as
    /// the client reads, until the client goes away. With a text step longer than a few
    /// chunks that event is a text fragment, so the client sees an answer that never ends.
    EndlessData,
    /// HTTP 429 with `Retry-After` as an HTTP date (RFC 7231 IMF-fixdate) `after_ms` from
    /// now, rounded up to the next whole second (the date's resolution), and no
    /// `retry-after-ms`.
    RateLimitedUntil { after_ms: u64 },
    /// An error status whose only hint is a `Retry-After` header with this value as written
    /// (`"1"`, or an HTTP date), as proxies such as LiteLLM send it on a 503.
    StatusRetryAfter { status: u16, retry_after: String },
    /// An error sent as a Server-Sent Event, `data: {"error": {"message", "type", "code"}}`,
    /// with `Content-Type: text/event-stream` and `status` (200 included), as some proxies
    /// report an upstream failure.
    SseError {
        status: u16,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// The answer as one JSON body with `Content-Type: application/json`, even to a
    /// streaming request, as servers that ignore `"stream": true` do. `body`, when given, is
    /// sent instead of the step's answer.
    JsonBody {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Value>,
    },
    /// Anthropic Messages only: the answer streamed with `message_start` reporting 0 input
    /// tokens and the real counts in `message_delta`'s usage, as some proxies do. Other
    /// wires answer as usual.
    UsageInMessageDelta,
}

impl Fault {
    /// A short label for the request log.
    pub fn label(&self) -> String {
        match self {
            Self::Status { status, .. } => format!("status {status}"),
            Self::Malformed => "malformed".into(),
            Self::Disconnect => "disconnect".into(),
            Self::Incomplete => "incomplete".into(),
            Self::Hang => "hang".into(),
            Self::KeepAlive { .. } => "keep_alive".into(),
            Self::EndlessData => "endless_data".into(),
            Self::RateLimitedUntil { .. } => "status 429 until date".into(),
            Self::StatusRetryAfter { status, .. } => format!("status {status} retry-after"),
            Self::SseError { status, .. } => format!("sse error {status}"),
            Self::JsonBody { .. } => "json body".into(),
            Self::UsageInMessageDelta => "usage in message_delta".into(),
        }
    }

    /// Whether the fault is played out while the answer streams (after its first half).
    fn cuts_the_stream(&self) -> bool {
        matches!(
            self,
            Self::Malformed
                | Self::Disconnect
                | Self::Incomplete
                | Self::Hang
                | Self::KeepAlive { .. }
                | Self::EndlessData
        )
    }

    /// The fault when it is played out in the stream, else `None`.
    pub(crate) fn in_stream(self) -> Option<Self> {
        self.cuts_the_stream().then_some(self)
    }
}

fn default_keep_alive_ms() -> u64 {
    1_000
}

/// A script file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ScriptError {
    pub path: String,
    pub message: String,
}

impl ScriptSet {
    /// One script that answers every conversation.
    pub fn single(steps: Vec<Step>) -> Self {
        Self {
            scripts: vec![Script {
                name: "default".into(),
                marker: None,
                steps,
            }],
        }
    }

    /// Adds a script.
    pub fn with(mut self, script: Script) -> Self {
        self.scripts.push(script);
        self
    }

    /// Reads a YAML or JSON file (JSON is YAML, so one parser reads both). The file holds
    /// either `{scripts: [...]}` or a single script.
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let error = |message: String| ScriptError {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
        let value: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(&text).map_err(|e| error(e.to_string()))?;
        if value.get("scripts").is_some() {
            serde_yaml_ng::from_value(value).map_err(|e| error(e.to_string()))
        } else {
            let script: Script =
                serde_yaml_ng::from_value(value).map_err(|e| error(e.to_string()))?;
            Ok(Self {
                scripts: vec![script],
            })
        }
    }
}

impl Step {
    /// A step that answers with text.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A step that calls one tool.
    pub fn tool_call(name: impl Into<String>, arguments: Value) -> Self {
        Self::calls([ScriptedToolCall::new(name, arguments)])
    }

    /// A step that calls several tools in one response: `ScriptedToolCall`s or
    /// `(name, arguments)` pairs.
    pub fn calls<C: Into<ScriptedToolCall>>(calls: impl IntoIterator<Item = C>) -> Self {
        Self {
            tool_calls: calls.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// The same step, with faults served first.
    pub fn after_faults(mut self, faults: Vec<Fault>) -> Self {
        self.faults = faults;
        self
    }
}

impl Script {
    /// A script picked by `marker`.
    pub fn matching(marker: impl Into<String>, steps: Vec<Step>) -> Self {
        let marker = marker.into();
        Self {
            name: marker.clone(),
            marker: Some(marker),
            steps,
        }
    }
}

impl<N: Into<String>> From<(N, Value)> for ScriptedToolCall {
    fn from((name, arguments): (N, Value)) -> Self {
        Self::new(name, arguments)
    }
}

impl ScriptedToolCall {
    /// A call with a generated id.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: None,
            name: name.into(),
            arguments,
        }
    }

    /// The argument JSON text as sent.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            Value::Null => "{}".into(),
            other => other.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_script_with_faults_and_tool_calls_loads() {
        let dir = std::env::temp_dir().join(format!("kigi-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.yaml");
        std::fs::write(
            &path,
            r##"
name: demo
match: "#demo"
steps:
  - thinking: "plan"
    tool_calls:
      - name: read_file
        arguments: {path: README.md}
    faults:
      - {kind: status, status: 429, retry_after_ms: 100}
      - {kind: disconnect}
  - text: done
"##,
        )
        .unwrap();
        let set = ScriptSet::load(&path).unwrap();
        let script = &set.scripts[0];
        assert_eq!(script.marker.as_deref(), Some("#demo"));
        assert_eq!(script.steps[0].faults.len(), 2);
        assert_eq!(
            script.steps[0].tool_calls[0].arguments_text(),
            r#"{"path":"README.md"}"#
        );
        let endless = dir.join("endless.yaml");
        std::fs::write(
            &endless,
            r#"
steps:
  - text: never ends
    faults:
      - {kind: keep_alive}
      - {kind: keep_alive, interval_ms: 20}
      - {kind: endless_data}
      - {kind: rate_limited_until, after_ms: 2000}
      - {kind: status_retry_after, status: 503, retry_after: "1"}
      - {kind: sse_error, status: 200, message: boom}
      - {kind: json_body}
      - {kind: usage_in_message_delta}
"#,
        )
        .unwrap();
        let set = ScriptSet::load(&endless).unwrap();
        assert_eq!(
            set.scripts[0].steps[0].faults,
            vec![
                Fault::KeepAlive { interval_ms: 1_000 },
                Fault::KeepAlive { interval_ms: 20 },
                Fault::EndlessData,
                Fault::RateLimitedUntil { after_ms: 2_000 },
                Fault::StatusRetryAfter {
                    status: 503,
                    retry_after: "1".into()
                },
                Fault::SseError {
                    status: 200,
                    message: "boom".into(),
                    code: None
                },
                Fault::JsonBody { body: None },
                Fault::UsageInMessageDelta,
            ]
        );
        let bad = dir.join("bad.json");
        std::fs::write(&bad, r#"{"steps": [{"txt": "x"}]}"#).unwrap();
        let err = ScriptSet::load(&bad).unwrap_err().to_string();
        assert!(err.contains("bad.json") && err.contains("txt"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
