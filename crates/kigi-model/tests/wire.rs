//! Wire tests: the real client against the scripted server over loopback, for each provider.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use kigi_model::{
    ApiKey, CancellationToken, ErrorClass, FinishReason, ModelClient, ModelEndpoint, ModelError,
    ModelEvent, ModelRequest, ModelResponse, Provider, RetryPolicy, ToolSchema, Usage,
};
use kigi_protocol::{Message, ToolCall};
use kigi_testkit::{
    Fault, Script, ScriptSet, ScriptedServer, ScriptedToolCall, ScriptedUsage, Step,
};
use serde_json::json;

const PROVIDERS: [Provider; 3] = [
    Provider::OpenaiChat,
    Provider::Anthropic,
    Provider::OpenaiResponses,
];

/// Short waits so fault tests stay fast; the ceilings are what is under test, not the values.
fn fast_policy() -> RetryPolicy {
    RetryPolicy {
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        idle_timeout: Duration::from_millis(400),
        ..RetryPolicy::default()
    }
}

fn client(server: &ScriptedServer, provider: Provider) -> ModelClient {
    let mut endpoint = ModelEndpoint::new(provider, server.url(), "scripted-model");
    endpoint.api_key = Some(ApiKey::new("sk-test-secret"));
    ModelClient::with_policy(endpoint, fast_policy()).unwrap()
}

fn request(user: &str) -> ModelRequest {
    let mut request = ModelRequest::new("", "You are a test.");
    request.messages.push(Message::user(user));
    request.tools.push(ToolSchema {
        name: "read_file".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    });
    request
}

async fn complete(
    server: &ScriptedServer,
    provider: Provider,
) -> Result<ModelResponse, ModelError> {
    client(server, provider)
        .complete(&request("go"), CancellationToken::new())
        .await
}

#[tokio::test]
async fn text_and_thinking_arrive_whole_from_every_provider() {
    let step = Step {
        thinking: Some("Let me think about ünïcode.".into()),
        text: Some("The answer is 42, and that is final.".into()),
        chunk_chars: Some(3),
        ..Step::default()
    };
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    for provider in PROVIDERS {
        let response = complete(&server, provider).await.unwrap();
        assert_eq!(
            response.text, "The answer is 42, and that is final.",
            "{provider:?}"
        );
        assert_eq!(
            response.thinking, "Let me think about ünïcode.",
            "{provider:?}"
        );
        assert_eq!(response.finish, Some(FinishReason::Stop), "{provider:?}");
        assert!(response.tool_calls.is_empty());
        assert_eq!(response.retries, 0);
        if provider == Provider::Anthropic {
            assert_eq!(response.thinking_signature.as_deref(), Some("sig-0"));
        }
    }
}

#[tokio::test]
async fn several_tool_calls_with_fragmented_arguments_are_assembled_in_order() {
    let calls = vec![
        ScriptedToolCall {
            id: None,
            name: "read_file".into(),
            arguments: json!({"path": "src/main.rs", "limit": 20}),
        },
        ScriptedToolCall {
            id: None,
            name: "grep".into(),
            arguments: json!({"pattern": "fn \\w+\\(", "glob": "*.rs"}),
        },
        ScriptedToolCall {
            id: Some("fixed-id".into()),
            name: "list_dir".into(),
            arguments: json!({}),
        },
    ];
    let step = Step {
        text: Some("Looking.".into()),
        tool_calls: calls.clone(),
        chunk_chars: Some(2),
        ..Step::default()
    };
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    for provider in PROVIDERS {
        let response = complete(&server, provider).await.unwrap();
        let expected: Vec<ToolCall> = calls
            .iter()
            .enumerate()
            .map(|(n, call)| ToolCall {
                id: call.id.clone().unwrap_or(format!("call_0_{n}")),
                name: call.name.clone(),
                arguments: call.arguments_text(),
            })
            .collect();
        assert_eq!(response.tool_calls, expected, "{provider:?}");
        assert_eq!(
            response.finish,
            Some(FinishReason::ToolCalls),
            "{provider:?}"
        );
        assert_eq!(response.text, "Looking.");
    }
}

#[tokio::test]
async fn usage_with_cached_tokens_is_reported_by_every_provider() {
    let step = Step {
        text: Some("ok".into()),
        usage: Some(ScriptedUsage {
            input: 1_200,
            output: 34,
            cached: 1_000,
        }),
        ..Step::default()
    };
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    for provider in PROVIDERS {
        let response = complete(&server, provider).await.unwrap();
        assert_eq!(
            response.usage,
            Usage {
                input_tokens: 1_200,
                output_tokens: 34,
                cached_input_tokens: 1_000
            },
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn requests_carry_system_prompt_tools_and_a_redacted_key() {
    let server = ScriptedServer::start(ScriptSet::single(vec![Step::text("hi")]))
        .await
        .unwrap();
    for provider in PROVIDERS {
        complete(&server, provider).await.unwrap();
    }
    let log = server.requests();
    let paths: Vec<&str> = log.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        ["/v1/chat/completions", "/v1/messages", "/v1/responses"]
    );
    assert_eq!(log[0].body["messages"][0]["content"], "You are a test.");
    assert_eq!(log[0].body["tools"][0]["function"]["name"], "read_file");
    assert_eq!(log[1].body["system"][0]["text"], "You are a test.");
    assert_eq!(log[1].body["tools"][0]["input_schema"]["type"], "object");
    assert_eq!(log[1].headers["anthropic-version"], "2023-06-01");
    assert_eq!(log[2].body["instructions"], "You are a test.");
    assert_eq!(log[2].body["tools"][0]["name"], "read_file");
    for request in &log {
        assert_eq!(request.body["model"], "scripted-model");
        assert_eq!(request.body["stream"], true);
        let key_header = if request.path == "/v1/messages" {
            "x-api-key"
        } else {
            "authorization"
        };
        assert_eq!(request.headers[key_header], "<redacted>");
        assert!(!format!("{request:?}").contains("sk-test-secret"));
    }
}

/// Each stream fault is retried, the failed attempt's partial output is voided, and the
/// answer arrives once, whole.
#[tokio::test]
async fn every_stream_fault_is_retried_and_the_answer_arrives_once() {
    let faults = [
        Fault::Status {
            status: 503,
            retry_after_ms: None,
            code: None,
            message: None,
        },
        Fault::Disconnect,
        Fault::Incomplete,
        Fault::Malformed,
        Fault::Hang,
    ];
    for provider in PROVIDERS {
        for fault in &faults {
            let step = Step {
                text: Some("complete answer text".into()),
                chunk_chars: Some(4),
                ..Step::default()
            }
            .after_faults(vec![fault.clone()]);
            let server = ScriptedServer::start(ScriptSet::single(vec![step]))
                .await
                .unwrap();
            let client = client(&server, provider);
            let mut stream = client.stream(&request("go"), CancellationToken::new());
            let mut events = Vec::new();
            while let Some(event) = stream.next().await {
                events.push(event.unwrap_or_else(|e| panic!("{provider:?} {fault:?}: {e}")));
            }
            let retrying: Vec<_> = events
                .iter()
                .filter(|e| matches!(e, ModelEvent::Retrying { .. }))
                .collect();
            assert_eq!(retrying.len(), 1, "{provider:?} {fault:?}: {events:?}");
            let mut response = ModelResponse::default();
            for event in events {
                response.apply(event);
            }
            assert_eq!(
                response.text, "complete answer text",
                "{provider:?} {fault:?}"
            );
            assert_eq!(response.retries, 1);
            let served: Vec<String> = server.requests().into_iter().map(|r| r.served).collect();
            assert_eq!(served.len(), 2, "{provider:?} {fault:?}: {served:?}");
            assert_eq!(served[1], "answer");
        }
    }
}

#[tokio::test]
async fn rate_limit_waits_exactly_what_retry_after_asks() {
    let step = Step::text("after the wait").after_faults(vec![Fault::Status {
        status: 429,
        retry_after_ms: Some(250),
        code: None,
        message: None,
    }]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let client = client(&server, Provider::OpenaiChat);
    let mut stream = client.stream(&request("go"), CancellationToken::new());
    let first = stream.next().await.unwrap().unwrap();
    match first {
        ModelEvent::Retrying {
            attempt,
            delay,
            reason,
        } => {
            assert_eq!(attempt, 1);
            assert_eq!(delay, Duration::from_millis(250));
            assert!(reason.contains("429"), "{reason}");
        }
        other => panic!("expected Retrying, got {other:?}"),
    }
    while let Some(event) = stream.next().await {
        event.unwrap();
    }
    assert_eq!(stream.retries().rate_limits, 1);
    let log = server.requests();
    assert!(log[1].at - log[0].at >= Duration::from_millis(250));
}

#[tokio::test]
async fn whole_second_retry_after_is_honoured() {
    let step = Step::text("ok").after_faults(vec![Fault::Status {
        status: 429,
        retry_after_ms: Some(1_000),
        code: None,
        message: None,
    }]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    // The server sends both headers; a client reading only `retry-after` sees 1 s.
    let response = reqwest::Client::new()
        .post(format!("{}/chat/completions", server.url()))
        .body(r#"{"messages":[{"role":"user","content":"x"}]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "1");
    assert_eq!(response.headers()["retry-after-ms"], "1000");
}

#[tokio::test]
async fn rate_limit_past_its_retries_fails_with_the_typed_flag() {
    let limited = Fault::Status {
        status: 429,
        retry_after_ms: Some(10),
        code: None,
        message: Some("slow down".into()),
    };
    let step = Step::text("never").after_faults(vec![limited.clone(), limited.clone(), limited]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let mut endpoint = ModelEndpoint::new(Provider::Anthropic, server.url(), "m");
    endpoint.api_key = None;
    let policy = RetryPolicy {
        max_rate_limit_retries: 2,
        ..fast_policy()
    };
    let client = ModelClient::with_policy(endpoint, policy).unwrap();
    let error = client
        .complete(&request("go"), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(error.is_rate_limited(), "{error:?}");
    assert!(error.to_string().contains("slow down"), "{error}");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_retry_after_beyond_the_ceiling_is_not_waited_for() {
    let step = Step::text("never").after_faults(vec![Fault::Status {
        status: 429,
        retry_after_ms: Some(3_600_000),
        code: None,
        message: None,
    }]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let error = complete(&server, Provider::OpenaiResponses)
        .await
        .unwrap_err();
    assert!(error.is_rate_limited());
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3_600)));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn context_length_is_fatal_with_the_providers_message() {
    for provider in PROVIDERS {
        let step = Step::text("never").after_faults(vec![Fault::Status {
            status: 400,
            retry_after_ms: None,
            code: Some("context_length_exceeded".into()),
            message: Some("This model's maximum context length is 8192 tokens.".into()),
        }]);
        let server = ScriptedServer::start(ScriptSet::single(vec![step]))
            .await
            .unwrap();
        let error = complete(&server, provider).await.unwrap_err();
        assert_eq!(error.class(), ErrorClass::ContextLength, "{provider:?}");
        assert!(
            error.to_string().contains("maximum context length is 8192"),
            "{error}"
        );
        assert_eq!(server.requests().len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn other_client_errors_are_fatal_and_not_retried() {
    let step = Step::text("never").after_faults(vec![Fault::Status {
        status: 401,
        retry_after_ms: None,
        code: Some("invalid_api_key".into()),
        message: Some("Incorrect API key provided".into()),
    }]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let error = complete(&server, Provider::OpenaiChat).await.unwrap_err();
    assert_eq!(error.class(), ErrorClass::Fatal);
    assert!(error.to_string().contains("Incorrect API key provided"));
    assert!(!error.to_string().contains("sk-test-secret"));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_idle_stream_times_out_and_gives_up_after_its_retries() {
    let step = Step::text("never").after_faults(vec![Fault::Hang, Fault::Hang]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let endpoint = ModelEndpoint::new(Provider::OpenaiChat, server.url(), "m");
    let policy = RetryPolicy {
        max_retries: 1,
        idle_timeout: Duration::from_millis(200),
        ..fast_policy()
    };
    let client = ModelClient::with_policy(endpoint, policy).unwrap();
    let error = client
        .complete(&request("go"), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ModelError::IdleTimeout { .. }), "{error:?}");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn cancelling_stops_the_request_and_the_server_sees_the_client_leave() {
    for provider in PROVIDERS {
        let step = Step::text("a long answer that hangs halfway").after_faults(vec![Fault::Hang]);
        let server = ScriptedServer::start(ScriptSet::single(vec![step]))
            .await
            .unwrap();
        let endpoint = ModelEndpoint::new(provider, server.url(), "m");
        let policy = RetryPolicy {
            idle_timeout: Duration::from_secs(600),
            ..fast_policy()
        };
        let client = ModelClient::with_policy(endpoint, policy).unwrap();
        let cancel = CancellationToken::new();
        let mut stream = client.stream(&request("go"), cancel.clone());
        // The first half arrives, then the server stalls.
        assert!(stream.next().await.unwrap().is_ok());
        cancel.cancel();
        let mut last = None;
        while let Some(event) = stream.next().await {
            last = Some(event);
        }
        assert!(matches!(last, Some(Err(ModelError::Cancelled))), "{last:?}");
        drop(stream);
        let left = server
            .wait_for(Duration::from_secs(10), |log| {
                log[0].client_gone_at.is_some()
            })
            .await;
        assert!(left, "{provider:?}: the server never saw the client leave");
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn dropping_the_stream_stops_the_request() {
    let step = Step::text("a long answer that hangs halfway").after_faults(vec![Fault::Hang]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let client = client(&server, Provider::OpenaiChat);
    let mut stream = client.stream(&request("go"), CancellationToken::new());
    assert!(stream.next().await.unwrap().is_ok());
    drop(stream);
    let left = server
        .wait_for(Duration::from_secs(10), |log| {
            log[0].client_gone_at.is_some()
        })
        .await;
    assert!(left);
}

#[tokio::test]
async fn a_missing_endpoint_is_a_transport_error_naming_the_url() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let endpoint = ModelEndpoint::new(Provider::OpenaiChat, url.clone(), "m");
    let policy = RetryPolicy {
        max_retries: 1,
        ..fast_policy()
    };
    let client = ModelClient::with_policy(endpoint, policy).unwrap();
    let error = client
        .complete(&request("go"), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ModelError::Transport { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains(&format!("{url}/chat/completions")),
        "{error}"
    );
}

/// Sixteen conversations at once, each with its own marker and two turns, with latencies
/// that make arrival order differ from start order: every one gets its own script's answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_conversations_get_their_own_scripts() {
    let mut scripts = ScriptSet::default();
    for n in 0..16u64 {
        let marker = format!("#conv-{n}");
        let first = Step {
            latency_ms: (16 - n) * 5,
            ..Step::tool_call("read_file", json!({"path": format!("f{n}")}))
        };
        scripts = scripts.with(Script::matching(
            marker.clone(),
            vec![first, Step::text(format!("done {marker}"))],
        ));
    }
    let server = ScriptedServer::start(scripts).await.unwrap();
    let mut tasks = Vec::new();
    for n in 0..16 {
        let client = client(&server, PROVIDERS[n % 3]);
        tasks.push(tokio::spawn(async move {
            let mut request = request(&format!("task #conv-{n}"));
            let first = client
                .complete(&request, CancellationToken::new())
                .await
                .unwrap();
            assert_eq!(
                first.tool_calls[0].arguments,
                format!("{{\"path\":\"f{n}\"}}")
            );
            request.messages.push(first.to_message());
            request.messages.push(Message {
                role: kigi_protocol::Role::User,
                content: vec![kigi_protocol::ContentPart::ToolResult(
                    kigi_protocol::ToolResult {
                        call_id: first.tool_calls[0].id.clone(),
                        content: "contents".into(),
                        is_error: false,
                    },
                )],
            });
            client
                .complete(&request, CancellationToken::new())
                .await
                .unwrap()
                .text
        }));
    }
    for (n, task) in tasks.into_iter().enumerate() {
        assert_eq!(task.await.unwrap(), format!("done #conv-{n}"));
    }
    assert_eq!(server.requests().len(), 32);
}

#[tokio::test]
async fn the_server_answers_without_streaming_and_lists_its_model() {
    let step = Step {
        text: Some("plain".into()),
        ..Step::tool_call("read_file", json!({"path": "a"}))
    };
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let post = |path: &str, body: serde_json::Value| {
        http.post(format!("{}{path}", server.url()))
            .body(body.to_string())
            .send()
    };
    let chat = post(
        "/chat/completions",
        json!({"messages": [{"role": "user", "content": "x"}]}),
    )
    .await
    .unwrap()
    .bytes()
    .await
    .unwrap();
    let chat: serde_json::Value = serde_json::from_slice(&chat).unwrap();
    assert_eq!(chat["choices"][0]["message"]["content"], "plain");
    assert_eq!(
        chat["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"a\"}"
    );
    let messages = post(
        "/messages",
        json!({"messages": [{"role": "user", "content": "x"}]}),
    )
    .await
    .unwrap()
    .bytes()
    .await
    .unwrap();
    let messages: serde_json::Value = serde_json::from_slice(&messages).unwrap();
    assert_eq!(messages["content"][1]["input"], json!({"path": "a"}));
    assert_eq!(messages["stop_reason"], "tool_use");
    let responses = post("/responses", json!({"input": "x"}))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let responses: serde_json::Value = serde_json::from_slice(&responses).unwrap();
    assert_eq!(responses["output"][1]["type"], "function_call");
    let models = http
        .get(format!("{}/models", server.url()))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let models: serde_json::Value = serde_json::from_slice(&models).unwrap();
    assert_eq!(models["data"][0]["id"], kigi_testkit::MODEL_ID);
}

#[tokio::test]
async fn a_conversation_past_the_scripts_end_gets_a_clear_fatal_error() {
    let server = ScriptedServer::start(ScriptSet::single(vec![]))
        .await
        .unwrap();
    let error = complete(&server, Provider::OpenaiChat).await.unwrap_err();
    assert_eq!(error.class(), ErrorClass::Fatal);
    assert!(error.to_string().contains("has no step 0"), "{error}");
}
