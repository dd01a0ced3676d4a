//! `[web_search] provider = "kimi"`: a search through the Kimi API's built-in `$web_search`
//! function. The query goes to Kimi's chat completions with the tool
//! `{"type": "builtin_function", "function": {"name": "$web_search"}}`; Kimi answers with a
//! `$web_search` call (finish reason `tool_calls`), whose arguments go back verbatim as the
//! tool message (Kimi runs the search itself), and its next answer is the results.
//!
//! The rule: building requests and reading answers are pure functions of their inputs; the
//! tool only sends them, for at most [`MAX_ROUNDS`] rounds.

use serde_json::{Value, json};

use crate::web_request::WebError;

/// Requests one search may take (Kimi may search more than once before it answers).
pub const MAX_ROUNDS: usize = 4;

/// What the search model is told.
const INSTRUCTIONS: &str = "Search the web with $web_search for the user's query. Answer with \
the most relevant results as a numbered Markdown list: [title](url), then a one-line summary \
of what the page says. No other text.";

/// The conversation a search starts with.
pub fn first_messages(query: &str) -> Vec<Value> {
    vec![
        json!({"role": "system", "content": INSTRUCTIONS}),
        json!({"role": "user", "content": query}),
    ]
}

/// The chat completions request body for `model` with `messages` so far.
pub fn request_body(model: &str, messages: &[Value]) -> Value {
    json!({
        "model": model,
        "messages": messages,
        "temperature": 0.3,
        "tools": [{"type": "builtin_function", "function": {"name": "$web_search"}}],
    })
}

/// What one answer says to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum KimiStep {
    /// Kimi asked to search: send these messages (its own, then one tool message per call
    /// with the call's arguments verbatim) and ask again.
    Search(Vec<Value>),
    /// The results, as Kimi wrote them.
    Answer(String),
}

/// Reads one chat completions answer.
pub fn next_step(body: &[u8]) -> Result<KimiStep, WebError> {
    let unusable = |detail: String| WebError::UnusableAnswer {
        service: "kimi".into(),
        detail,
    };
    let value: Value =
        serde_json::from_slice(body).map_err(|e| unusable(format!("not JSON ({e})")))?;
    let choice = &value["choices"][0];
    let message = &choice["message"];
    if message.is_null() {
        return Err(unusable("no choices[0].message".into()));
    }
    let calls = message["tool_calls"].as_array().filter(|c| !c.is_empty());
    match (choice["finish_reason"].as_str(), calls) {
        (Some("tool_calls"), Some(calls)) => {
            let mut messages = vec![message.clone()];
            for call in calls {
                let name = call["function"]["name"].as_str().unwrap_or_default();
                if name != "$web_search" {
                    return Err(unusable(format!(
                        "it called `{name}`, not the built-in $web_search"
                    )));
                }
                let id = call["id"]
                    .as_str()
                    .ok_or_else(|| unusable("a tool call without an id".into()))?;
                // The arguments go back as they came: Kimi reads its own search id from them.
                let arguments = call["function"]["arguments"].as_str().unwrap_or("{}");
                messages.push(json!({
                    "role": "tool",
                    "tool_call_id": id,
                    "name": name,
                    "content": arguments,
                }));
            }
            Ok(KimiStep::Search(messages))
        }
        _ => match message["content"].as_str().map(str::trim) {
            Some(text) if !text.is_empty() => Ok(KimiStep::Answer(text.to_owned())),
            _ => Err(unusable("an answer without text".into())),
        },
    }
}

/// `url` as a chat completions endpoint: a base URL (`…/v1`) gets `/chat/completions`.
pub fn chat_completions_path(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    if trimmed.ends_with("/chat/completions") {
        trimmed.to_owned()
    } else {
        format!("{trimmed}/chat/completions")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_web_search_call_is_answered_with_its_arguments_verbatim() {
        let answer = json!({"choices": [{"finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "",
            "tool_calls": [{"id": "call_1", "type": "builtin_function",
                "function": {"name": "$web_search", "arguments": "{\"search_result\":{\"search_id\":\"s-42\"},\"usage\":{\"total_tokens\":900}}"}}]}}]});
        let KimiStep::Search(messages) = next_step(answer.to_string().as_bytes()).unwrap() else {
            panic!("not a search")
        };
        assert_eq!(messages[0], answer["choices"][0]["message"]);
        assert_eq!(
            messages[1],
            json!({"role": "tool", "tool_call_id": "call_1", "name": "$web_search",
                   "content": "{\"search_result\":{\"search_id\":\"s-42\"},\"usage\":{\"total_tokens\":900}}"})
        );
    }

    #[test]
    fn a_text_answer_is_the_result_and_anything_else_is_unusable() {
        let text = json!({"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": " 1. [Rust](https://rust-lang.org)\n"}}]});
        assert_eq!(
            next_step(text.to_string().as_bytes()).unwrap(),
            KimiStep::Answer("1. [Rust](https://rust-lang.org)".into())
        );
        let other = json!({"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
            {"id": "c", "function": {"name": "run_code", "arguments": "{}"}}]}}]});
        let err = next_step(other.to_string().as_bytes())
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "kimi's answer is unusable: it called `run_code`, not the built-in $web_search"
        );
        assert!(next_step(b"{}").is_err());
        assert!(next_step(b"<html>").is_err());
    }

    #[test]
    fn the_request_offers_the_built_in_function_and_the_path_gets_its_endpoint() {
        let body = request_body("kimi-k2", &first_messages("rust"));
        assert_eq!(
            body["tools"],
            json!([{"type": "builtin_function", "function": {"name": "$web_search"}}])
        );
        assert_eq!(
            body["messages"][1],
            json!({"role": "user", "content": "rust"})
        );
        assert_eq!(chat_completions_path("/v1"), "/v1/chat/completions");
        assert_eq!(chat_completions_path("/v1/"), "/v1/chat/completions");
        assert_eq!(
            chat_completions_path("/v1/chat/completions"),
            "/v1/chat/completions"
        );
    }
}
