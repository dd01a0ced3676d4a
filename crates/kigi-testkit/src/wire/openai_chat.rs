//! OpenAI Chat Completions, as the scripted server speaks it.

use serde_json::{Value, json};

use super::{Answer, Conversation, content_text, pieces, sse};

pub fn conversation(body: &Value) -> Conversation {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let system = messages
        .iter()
        .filter(|m| {
            matches!(
                m.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        })
        .map(|m| content_text(&m["content"]))
        .collect::<Vec<_>>()
        .join(
            "
",
        );
    Conversation::of_messages(system, messages)
}

fn finish(answer: &Answer) -> String {
    answer.finish_or("stop", "tool_calls")
}

fn usage(answer: &Answer) -> Value {
    let usage = answer.usage();
    json!({
        "prompt_tokens": usage.input,
        "completion_tokens": usage.output,
        "total_tokens": usage.input + usage.output,
        "prompt_tokens_details": {"cached_tokens": usage.cached},
    })
}

pub fn stream(answer: &Answer) -> Vec<String> {
    let id = format!("chatcmpl-{}", answer.turn);
    let chunk = |delta: Value, finish: Value| {
        sse(
            None,
            &json!({
                "id": id, "object": "chat.completion.chunk", "created": 0,
                "model": answer.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }),
        )
    };
    let size = answer.chunk_chars();
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in pieces(answer.step.thinking.as_deref().unwrap_or(""), size) {
        events.push(chunk(json!({"reasoning_content": piece}), Value::Null));
    }
    for piece in pieces(answer.step.text.as_deref().unwrap_or(""), size) {
        events.push(chunk(json!({"content": piece}), Value::Null));
    }
    let calls = &answer.step.tool_calls;
    for (n, call) in calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": n, "id": answer.call_id(n), "type": "function",
                                   "function": {"name": call.name, "arguments": ""}}]}),
            Value::Null,
        ));
    }
    // Argument fragments of all calls interleaved, as parallel tool calls arrive.
    let fragments: Vec<Vec<String>> = calls
        .iter()
        .map(|c| pieces(&c.arguments_text(), size))
        .collect();
    let longest = fragments.iter().map(Vec::len).max().unwrap_or(0);
    for round in 0..longest {
        for (n, parts) in fragments.iter().enumerate() {
            if let Some(piece) = parts.get(round) {
                events.push(chunk(
                    json!({"tool_calls": [{"index": n, "function": {"arguments": piece}}]}),
                    Value::Null,
                ));
            }
        }
    }
    events.push(chunk(json!({}), json!(finish(answer))));
    events.push(sse(
        None,
        &json!({"id": id, "object": "chat.completion.chunk", "created": 0,
                "model": answer.model, "choices": [], "usage": usage(answer)}),
    ));
    events.push("data: [DONE]\n\n".to_owned());
    events
}

pub fn body(answer: &Answer) -> Value {
    let calls: Vec<Value> = answer
        .step
        .tool_calls
        .iter()
        .enumerate()
        .map(|(n, call)| {
            json!({"id": answer.call_id(n), "type": "function",
                   "function": {"name": call.name, "arguments": call.arguments_text()}})
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": answer.step.text});
    if let Some(thinking) = &answer.step.thinking {
        message["reasoning_content"] = json!(thinking);
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    json!({
        "id": format!("chatcmpl-{}", answer.turn),
        "object": "chat.completion",
        "created": 0,
        "model": answer.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish(answer)}],
        "usage": usage(answer),
    })
}
