//! A whole answer sent as one JSON body to a streaming request: some servers and proxies
//! ignore `"stream": true` and reply `Content-Type: application/json` with a complete chat
//! completion (or Messages, or Responses) object. It is read as the answer, in the same
//! [`ModelEvent`]s a stream would have produced; an error object in it is the provider's
//! error; anything else is named as what it is, not retried as a cut stream.
//!
//! The rule: a pure function of the parsed body; the stream reads the body (bounded by
//! `max_response_bytes`) and hands it here whole.

use serde_json::Value;

use crate::anthropic::InputCounts;
use crate::decoder::{DecodeFault, error_object};
use crate::endpoint::{Dialect, Provider};
use crate::event::{FinishReason, ModelEvent};
use crate::openai_chat::chat_usage;
use crate::responses::completion_events;
use crate::tool_call_assembly::ToolCallAssembly;

/// Why a JSON body is not an answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonAnswerFault {
    /// The body is an error object: the provider's error.
    Provider(DecodeFault),
    /// The body is JSON of some other shape; the text says what was missing.
    Unreadable(String),
}

/// The events of the whole answer `body`, as `provider` shapes it.
pub(crate) fn decode_json_answer(
    provider: Provider,
    dialect: Dialect,
    body: &[u8],
) -> Result<Vec<ModelEvent>, JsonAnswerFault> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        let shown: String = String::from_utf8_lossy(body).chars().take(200).collect();
        JsonAnswerFault::Unreadable(format!("the body is not JSON ({e}): {shown}"))
    })?;
    if let Some((code, message)) = error_object(&value) {
        return Err(JsonAnswerFault::Provider(DecodeFault::provider(
            code, message,
        )));
    }
    let events = match provider {
        Provider::OpenaiChat => chat(dialect, &value),
        Provider::Anthropic => messages(&value),
        Provider::OpenaiResponses => responses(&value),
    };
    events.ok_or_else(|| {
        let shown: String = value.to_string().chars().take(200).collect();
        JsonAnswerFault::Unreadable(format!("expected {}; got {shown}", expected(provider)))
    })
}

/// What a whole answer of `provider` holds, for the message naming a body that is not one.
fn expected(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenaiChat => "a chat completion with choices[0].message",
        Provider::Anthropic => "a message with a content array",
        Provider::OpenaiResponses => "a response with an output array",
    }
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn chat(dialect: Dialect, value: &Value) -> Option<Vec<ModelEvent>> {
    let choice = value.pointer("/choices/0")?;
    let message = choice.get("message").filter(|m| m.is_object())?;
    let mut out = Vec::new();
    if let Some(thinking) = dialect.reasoning_delta(message)
        && !thinking.is_empty()
    {
        out.push(ModelEvent::ThinkingDelta(thinking.to_owned()));
    }
    let text = message.get("content").map(text_of).unwrap_or_default();
    if !text.is_empty() {
        out.push(ModelEvent::TextDelta(text));
    }
    let mut calls = ToolCallAssembly::default();
    for (index, call) in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let function = call.get("function");
        let arguments = match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        calls.push(
            index as u64,
            call.get("id").and_then(Value::as_str),
            function.and_then(|f| f.get("name")).and_then(Value::as_str),
            &arguments,
        );
    }
    let calls = calls.drain();
    let finish = match choice.get("finish_reason").and_then(Value::as_str) {
        Some(reason) => FinishReason::from_wire(reason),
        None if !calls.is_empty() => FinishReason::ToolCalls,
        None => FinishReason::Stop,
    };
    out.extend(calls.into_iter().map(ModelEvent::ToolCall));
    if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
        out.push(ModelEvent::Usage(chat_usage(dialect, usage)));
    }
    out.push(ModelEvent::Finish(finish));
    Some(out)
}

fn messages(value: &Value) -> Option<Vec<ModelEvent>> {
    let content = value.get("content").and_then(Value::as_array)?;
    let mut out = Vec::new();
    let mut calls = ToolCallAssembly::default();
    for (index, block) in content.iter().enumerate() {
        let field = |name| block.get(name).and_then(Value::as_str);
        match field("type") {
            Some("text") => out.push(ModelEvent::TextDelta(
                field("text").unwrap_or_default().to_owned(),
            )),
            Some("thinking") => {
                out.push(ModelEvent::ThinkingDelta(
                    field("thinking").unwrap_or_default().to_owned(),
                ));
                if let Some(signature) = field("signature") {
                    out.push(ModelEvent::ThinkingSignature(signature.to_owned()));
                }
            }
            Some("tool_use") => {
                let input = block.get("input").map_or("{}".into(), Value::to_string);
                calls.push(index as u64, field("id"), field("name"), &input);
            }
            _ => {}
        }
    }
    out.extend(calls.drain().into_iter().map(ModelEvent::ToolCall));
    let usage = value.get("usage").unwrap_or(&Value::Null);
    let mut input = InputCounts::default();
    input.update(usage);
    out.push(ModelEvent::Usage(
        input.usage(
            usage
                .get("output_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        ),
    ));
    let finish = value
        .get("stop_reason")
        .and_then(Value::as_str)
        .map_or(FinishReason::Stop, FinishReason::from_wire);
    out.push(ModelEvent::Finish(finish));
    Some(out)
}

fn responses(value: &Value) -> Option<Vec<ModelEvent>> {
    let output = value.get("output").and_then(Value::as_array)?;
    let mut out = Vec::new();
    let mut calls = ToolCallAssembly::default();
    for (index, item) in output.iter().enumerate() {
        let field = |name| item.get(name).and_then(Value::as_str);
        match field("type") {
            Some("message") => {
                let text = item.get("content").map(text_of).unwrap_or_default();
                if !text.is_empty() {
                    out.push(ModelEvent::TextDelta(text));
                }
            }
            Some("reasoning") => {
                let text = item.get("summary").map(text_of).unwrap_or_default();
                if !text.is_empty() {
                    out.push(ModelEvent::ThinkingDelta(text));
                }
            }
            Some("function_call") => calls.push(
                index as u64,
                field("call_id"),
                field("name"),
                field("arguments").unwrap_or(""),
            ),
            _ => {}
        }
    }
    let calls = calls.drain();
    let saw_call = !calls.is_empty();
    out.extend(calls.into_iter().map(ModelEvent::ToolCall));
    completion_events(value, saw_call, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Usage;
    use kigi_protocol::ToolCall;

    fn decode(provider: Provider, body: &str) -> Result<Vec<ModelEvent>, JsonAnswerFault> {
        decode_json_answer(provider, Dialect::Openai, body.as_bytes())
    }

    #[test]
    fn a_chat_completion_object_is_the_whole_answer() {
        let events = decode(
            Provider::OpenaiChat,
            r#"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#,
        )
        .unwrap();
        assert_eq!(
            events,
            vec![
                ModelEvent::TextDelta("hi".into()),
                ModelEvent::ToolCall(ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"a"}"#.into()
                }),
                ModelEvent::Usage(Usage {
                    input_tokens: 12,
                    output_tokens: 3,
                    cached_input_tokens: 0
                }),
                ModelEvent::Finish(FinishReason::ToolCalls),
            ]
        );
    }

    #[test]
    fn an_error_object_is_the_providers_error() {
        let fault = decode(
            Provider::OpenaiChat,
            r#"{"error":{"message":"model not loaded","type":"invalid_request_error"}}"#,
        )
        .unwrap_err();
        assert_eq!(
            fault,
            JsonAnswerFault::Provider(DecodeFault::provider(
                Some("invalid_request_error".into()),
                "model not loaded".into()
            ))
        );
    }

    #[test]
    fn another_shape_is_named_with_what_was_expected() {
        for (provider, expected) in [
            (
                Provider::OpenaiChat,
                "expected a chat completion with choices[0].message; got {\"status\":\"ok\"}",
            ),
            (
                Provider::Anthropic,
                "expected a message with a content array; got {\"status\":\"ok\"}",
            ),
        ] {
            assert_eq!(
                decode(provider, r#"{"status":"ok"}"#).unwrap_err(),
                JsonAnswerFault::Unreadable(expected.into())
            );
        }
        let JsonAnswerFault::Unreadable(text) = decode(Provider::OpenaiChat, "<html>").unwrap_err()
        else {
            panic!("not unreadable");
        };
        assert!(text.starts_with("the body is not JSON"), "{text}");
    }

    #[test]
    fn a_messages_body_and_a_responses_body_are_read_too() {
        let events = decode(
            Provider::Anthropic,
            r#"{"type":"message","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":1}}"#,
        )
        .unwrap();
        assert_eq!(events[0], ModelEvent::TextDelta("ok".into()));
        assert_eq!(events.last(), Some(&ModelEvent::Finish(FinishReason::Stop)));
        let events = decode(
            Provider::OpenaiResponses,
            r#"{"output":[{"type":"message","content":[{"type":"output_text","text":"yes"}]}],"usage":{"input_tokens":4,"output_tokens":1}}"#,
        )
        .unwrap();
        assert_eq!(events[0], ModelEvent::TextDelta("yes".into()));
    }
}
