//! Anthropic Messages, as the scripted server speaks it.

use serde_json::{Value, json};

use super::{Answer, Conversation, content_text, pieces, sse};

pub fn conversation(body: &Value) -> Conversation {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    Conversation::of_messages(
        body.get("system").map(content_text).unwrap_or_default(),
        messages,
    )
}

fn stop_reason(answer: &Answer) -> String {
    answer.finish_or("end_turn", "tool_use")
}

fn signature(answer: &Answer) -> String {
    format!("sig-{}", answer.turn)
}

pub fn stream(answer: &Answer) -> Vec<String> {
    stream_shaped(answer, false)
}

/// The stream with `message_start` reporting 0 input tokens and the real input counts in
/// `message_delta`'s usage, as some proxies send it.
pub fn stream_with_usage_at_end(answer: &Answer) -> Vec<String> {
    stream_shaped(answer, true)
}

fn stream_shaped(answer: &Answer, usage_at_end: bool) -> Vec<String> {
    let usage = answer.usage();
    let fresh_input = usage.input - usage.cached.min(usage.input);
    let (start_input, start_cached) = if usage_at_end {
        (0, 0)
    } else {
        (fresh_input, usage.cached)
    };
    let size = answer.chunk_chars();
    let mut events = vec![
        sse(
            Some("message_start"),
            &json!({"type": "message_start", "message": {
                "id": format!("msg_{}", answer.turn), "type": "message", "role": "assistant",
                "model": answer.model, "content": [], "stop_reason": null,
                "usage": {"input_tokens": start_input,
                          "cache_read_input_tokens": start_cached, "output_tokens": 1},
            }}),
        ),
        sse(Some("ping"), &json!({"type": "ping"})),
    ];
    let mut index = 0;
    let mut block = |events: &mut Vec<String>, start: Value, deltas: Vec<Value>| {
        events.push(sse(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            events.push(sse(
                Some("content_block_delta"),
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push(sse(
            Some("content_block_stop"),
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    };
    if let Some(thinking) = &answer.step.thinking {
        let mut deltas: Vec<Value> = pieces(thinking, size)
            .into_iter()
            .map(|p| json!({"type": "thinking_delta", "thinking": p}))
            .collect();
        deltas.push(json!({"type": "signature_delta", "signature": signature(answer)}));
        block(
            &mut events,
            json!({"type": "thinking", "thinking": ""}),
            deltas,
        );
    }
    if let Some(text) = &answer.step.text {
        let deltas = pieces(text, size)
            .into_iter()
            .map(|p| json!({"type": "text_delta", "text": p}))
            .collect();
        block(&mut events, json!({"type": "text", "text": ""}), deltas);
    }
    for (n, call) in answer.step.tool_calls.iter().enumerate() {
        let deltas = pieces(&call.arguments_text(), size)
            .into_iter()
            .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
            .collect();
        block(
            &mut events,
            json!({"type": "tool_use", "id": answer.call_id(n), "name": call.name, "input": {}}),
            deltas,
        );
    }
    let mut delta_usage = json!({"output_tokens": usage.output});
    if usage_at_end {
        delta_usage["input_tokens"] = json!(fresh_input);
        delta_usage["cache_read_input_tokens"] = json!(usage.cached);
    }
    events.push(sse(
        Some("message_delta"),
        &json!({"type": "message_delta",
                "delta": {"stop_reason": stop_reason(answer), "stop_sequence": null},
                "usage": delta_usage}),
    ));
    events.push(sse(Some("message_stop"), &json!({"type": "message_stop"})));
    events
}

pub fn body(answer: &Answer) -> Value {
    let usage = answer.usage();
    let mut content = Vec::new();
    if let Some(thinking) = &answer.step.thinking {
        content.push(
            json!({"type": "thinking", "thinking": thinking, "signature": signature(answer)}),
        );
    }
    if let Some(text) = &answer.step.text {
        content.push(json!({"type": "text", "text": text}));
    }
    for (n, call) in answer.step.tool_calls.iter().enumerate() {
        let input: Value =
            serde_json::from_str(&call.arguments_text()).unwrap_or_else(|_| json!({}));
        content.push(
            json!({"type": "tool_use", "id": answer.call_id(n), "name": call.name, "input": input}),
        );
    }
    json!({
        "id": format!("msg_{}", answer.turn),
        "type": "message",
        "role": "assistant",
        "model": answer.model,
        "content": content,
        "stop_reason": stop_reason(answer),
        "usage": {"input_tokens": usage.input - usage.cached.min(usage.input),
                  "cache_read_input_tokens": usage.cached, "output_tokens": usage.output},
    })
}
