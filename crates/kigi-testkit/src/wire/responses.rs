//! OpenAI Responses, as the scripted server speaks it.

use serde_json::{Value, json};

use super::{Answer, Conversation, content_text, pieces, sse};

pub fn conversation(body: &Value) -> Conversation {
    let system = body
        .get("instructions")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let items = match body.get("input") {
        Some(Value::String(text)) => {
            return Conversation {
                system,
                first_user: text.clone(),
                assistant_turns: 0,
            };
        }
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    let is_assistant = |item: &Value| {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        let role = item.get("role").and_then(Value::as_str).unwrap_or("");
        matches!(kind, "function_call" | "reasoning") || (kind == "message" && role == "assistant")
    };
    // A turn is a run of assistant-made items: a message and its function calls are one.
    let mut turns = 0;
    let mut in_turn = false;
    for item in &items {
        let assistant = is_assistant(item);
        if assistant && !in_turn {
            turns += 1;
        }
        in_turn = assistant;
    }
    let first_user = items
        .iter()
        .find(|i| i.get("role").and_then(Value::as_str) == Some("user"))
        .map(|i| content_text(&i["content"]))
        .unwrap_or_default();
    Conversation {
        system,
        first_user,
        assistant_turns: turns,
    }
}

fn items(answer: &Answer) -> Vec<Value> {
    let mut items = Vec::new();
    if let Some(thinking) = &answer.step.thinking {
        items.push(
            json!({"type": "reasoning", "id": format!("rs_{}", answer.turn),
                          "summary": [{"type": "summary_text", "text": thinking}]}),
        );
    }
    if let Some(text) = &answer.step.text {
        items.push(
            json!({"type": "message", "id": format!("msg_{}", answer.turn),
                          "role": "assistant", "status": "completed",
                          "content": [{"type": "output_text", "text": text, "annotations": []}]}),
        );
    }
    for (n, call) in answer.step.tool_calls.iter().enumerate() {
        items.push(
            json!({"type": "function_call", "id": format!("fc_{}_{n}", answer.turn),
                          "call_id": answer.call_id(n), "name": call.name,
                          "arguments": call.arguments_text(), "status": "completed"}),
        );
    }
    items
}

fn response(answer: &Answer, status: &str, output: Vec<Value>) -> Value {
    let usage = answer.usage();
    let mut response = json!({
        "id": answer.response_id(), "object": "response", "status": status,
        "model": answer.model, "output": output,
        "usage": {"input_tokens": usage.input, "output_tokens": usage.output,
                  "total_tokens": usage.input + usage.output,
                  "input_tokens_details": {"cached_tokens": usage.cached}},
    });
    if let Some(reason) = &answer.step.finish {
        response["status"] = json!("incomplete");
        response["incomplete_details"] = json!({"reason": reason});
    }
    response
}

pub fn stream(answer: &Answer) -> Vec<String> {
    let size = answer.chunk_chars();
    let mut sequence = 0;
    let mut events = Vec::new();
    let mut push = |events: &mut Vec<String>, mut data: Value| {
        data["sequence_number"] = json!(sequence);
        sequence += 1;
        let kind = data["type"].as_str().unwrap_or("").to_owned();
        events.push(sse(Some(&kind), &data));
    };
    push(
        &mut events,
        json!({"type": "response.created", "response": response(answer, "in_progress", vec![])}),
    );
    let all = items(answer);
    for (index, item) in all.iter().enumerate() {
        let kind = item["type"].as_str().unwrap_or("");
        let mut added = item.clone();
        match kind {
            "reasoning" => added["summary"] = json!([]),
            "message" => added["content"] = json!([]),
            _ => added["arguments"] = json!(""),
        }
        push(
            &mut events,
            json!({"type": "response.output_item.added", "output_index": index, "item": added}),
        );
        match kind {
            "reasoning" => {
                for piece in pieces(answer.step.thinking.as_deref().unwrap_or(""), size) {
                    push(
                        &mut events,
                        json!({"type": "response.reasoning_summary_text.delta",
                        "item_id": item["id"], "output_index": index, "summary_index": 0,
                        "delta": piece}),
                    );
                }
            }
            "message" => {
                for piece in pieces(answer.step.text.as_deref().unwrap_or(""), size) {
                    push(
                        &mut events,
                        json!({"type": "response.output_text.delta",
                        "item_id": item["id"], "output_index": index, "content_index": 0,
                        "delta": piece}),
                    );
                }
            }
            _ => {
                let arguments = item["arguments"].as_str().unwrap_or("");
                for piece in pieces(arguments, size) {
                    push(
                        &mut events,
                        json!({"type": "response.function_call_arguments.delta",
                        "item_id": item["id"], "output_index": index, "delta": piece}),
                    );
                }
                push(
                    &mut events,
                    json!({"type": "response.function_call_arguments.done",
                    "item_id": item["id"], "output_index": index, "arguments": arguments}),
                );
            }
        }
        push(
            &mut events,
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
    let done = if answer.step.finish.is_some() {
        "response.incomplete"
    } else {
        "response.completed"
    };
    push(
        &mut events,
        json!({"type": done, "response": response(answer, "completed", all)}),
    );
    events
}

pub fn body(answer: &Answer) -> Value {
    response(answer, "completed", items(answer))
}
