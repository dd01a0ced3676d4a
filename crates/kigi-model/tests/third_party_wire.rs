//! Shapes servers this project did not write send (LiteLLM's proxy, llmock, local servers),
//! replayed by the scripted server over loopback: a `Retry-After` on a 503, an Anthropic
//! stream with its input tokens in `message_delta`, a whole JSON body answering a streaming
//! request, an error sent as an SSE `data:` body, and a refused key.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::Duration;

use kigi_model::{
    ApiKey, CancellationToken, ErrorClass, ModelClient, ModelEndpoint, ModelError, ModelEvent,
    ModelFlags, ModelRequest, ModelResponse, ModelsConfig, Provider, RetryPolicy, SentKey, Usage,
};
use kigi_protocol::{Message, ToolCall};
use kigi_testkit::{Fault, ScriptSet, ScriptedServer, ScriptedToolCall, ScriptedUsage, Step};
use serde_json::json;

const PROVIDERS: [Provider; 3] = [
    Provider::OpenaiChat,
    Provider::Anthropic,
    Provider::OpenaiResponses,
];

fn fast_policy() -> RetryPolicy {
    RetryPolicy {
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        idle_timeout: Duration::from_secs(5),
        ..RetryPolicy::default()
    }
}

fn client(server: &ScriptedServer, provider: Provider, key: Option<ApiKey>) -> ModelClient {
    let mut endpoint = ModelEndpoint::new(provider, server.url(), "scripted-model");
    endpoint.api_key = key;
    ModelClient::with_policy(endpoint, fast_policy()).unwrap()
}

fn request() -> ModelRequest {
    let mut request = ModelRequest::new("", "You are a test.");
    request.messages.push(Message::user("go"));
    request
}

async fn serve(step: Step) -> ScriptedServer {
    ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap()
}

fn served(server: &ScriptedServer) -> Vec<String> {
    server.requests().into_iter().map(|r| r.served).collect()
}

#[tokio::test]
async fn a_503_with_retry_after_waits_what_the_server_asks() {
    let step = Step::text("after the wait").after_faults(vec![Fault::StatusRetryAfter {
        status: 503,
        retry_after: "1".into(),
    }]);
    let server = serve(step).await;
    let client = client(&server, Provider::OpenaiChat, None);
    let mut stream = client.stream(&request(), CancellationToken::new());
    match stream.next().await.unwrap().unwrap() {
        ModelEvent::Retrying {
            attempt,
            delay,
            reason,
        } => {
            assert_eq!(attempt, 1);
            // Not the 5 ms backoff of this policy: the server's one second.
            assert_eq!(delay, Duration::from_secs(1));
            assert!(reason.contains("HTTP 503"), "{reason}");
        }
        other => panic!("expected Retrying, got {other:?}"),
    }
    let mut response = ModelResponse::default();
    while let Some(event) = stream.next().await {
        response.apply(event.unwrap());
    }
    assert_eq!(response.text, "after the wait");
    assert_eq!(
        served(&server),
        vec!["status 503 retry-after".to_owned(), "answer".to_owned()]
    );
}

#[tokio::test]
async fn anthropic_input_tokens_in_message_delta_are_read() {
    let step = Step {
        text: Some("counted".into()),
        usage: Some(ScriptedUsage {
            input: 1_234,
            output: 56,
            cached: 200,
        }),
        ..Step::default()
    }
    .after_faults(vec![Fault::UsageInMessageDelta]);
    let server = serve(step).await;
    let response = client(&server, Provider::Anthropic, None)
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 1_234,
            output_tokens: 56,
            cached_input_tokens: 200
        }
    );
    assert_eq!(response.retries, 0);
    assert_eq!(served(&server), vec!["usage in message_delta".to_owned()]);
}

#[tokio::test]
async fn a_json_body_answering_a_stream_request_is_read_as_the_answer() {
    let step = Step {
        text: Some("whole answer".into()),
        tool_calls: vec![ScriptedToolCall::new("read_file", json!({"path": "a.rs"}))],
        usage: Some(ScriptedUsage {
            input: 40,
            output: 9,
            cached: 0,
        }),
        ..Step::default()
    }
    .after_faults(vec![Fault::JsonBody { body: None }]);
    for provider in PROVIDERS {
        let server = serve(step.clone()).await;
        let response = client(&server, provider, None)
            .complete(&request(), CancellationToken::new())
            .await
            .unwrap_or_else(|e| panic!("{provider:?}: {e}"));
        assert_eq!(response.text, "whole answer", "{provider:?}");
        assert_eq!(
            response.tool_calls,
            vec![ToolCall {
                id: "call_0_0".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"a.rs"}"#.into()
            }],
            "{provider:?}"
        );
        assert_eq!(response.usage.input_tokens, 40, "{provider:?}");
        assert_eq!(response.retries, 0, "{provider:?}");
        assert_eq!(
            served(&server),
            vec!["json body".to_owned()],
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn a_json_body_that_is_no_answer_is_named_and_not_retried() {
    let step = Step::text("never").after_faults(vec![Fault::JsonBody {
        body: Some(json!({"status": "loading model"})),
    }]);
    let server = serve(step).await;
    let error = client(&server, Provider::OpenaiChat, None)
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the model at {}/chat/completions answered a streaming request with a JSON body instead of an event stream, and it is not a openai-chat answer: expected a chat completion with choices[0].message; got {{\"status\":\"loading model\"}}",
            server.url()
        )
    );
    assert_eq!(error.class(), ErrorClass::Fatal);
    assert_eq!(served(&server).len(), 1);
}

#[tokio::test]
async fn an_sse_error_body_on_an_error_status_is_reported_by_its_message() {
    let step = Step::text("never").after_faults(vec![Fault::SseError {
        status: 400,
        message: "model `x` does not exist".into(),
        code: Some("invalid_request_error".into()),
    }]);
    for provider in PROVIDERS {
        let server = serve(step.clone()).await;
        let error = client(&server, provider, None)
            .complete(&request(), CancellationToken::new())
            .await
            .unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("model `x` does not exist (HTTP 400 from "),
            "{provider:?}: {text}"
        );
        assert!(!text.contains("data:"), "{provider:?}: {text}");
        assert_eq!(served(&server).len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn an_sse_error_body_in_a_stream_is_reported_by_its_message() {
    let step = Step::text("never").after_faults(vec![Fault::SseError {
        status: 200,
        message: "upstream provider refused the request".into(),
        code: Some("invalid_request_error".into()),
    }]);
    for provider in PROVIDERS {
        let server = serve(step.clone()).await;
        let error = client(&server, provider, None)
            .complete(&request(), CancellationToken::new())
            .await
            .unwrap_err();
        assert_eq!(
            error,
            ModelError::StreamError {
                code: Some("invalid_request_error".into()),
                provider_message: "upstream provider refused the request".into(),
                class: ErrorClass::Fatal,
            },
            "{provider:?}"
        );
        assert_eq!(served(&server).len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn a_401_says_to_check_the_key_and_names_its_variable() {
    let refused = Fault::Status {
        status: 401,
        retry_after_ms: None,
        code: Some("invalid_api_key".into()),
        message: Some("Incorrect API key provided".into()),
    };
    let server = serve(Step::text("never").after_faults(vec![refused])).await;
    let config = ModelsConfig::parse(
        &format!(
            "[models.local]\nbase_url = \"{}\"\napi_key_env = \"LOCAL_LLM_KEY\"\n",
            server.url()
        ),
        Path::new("config.toml"),
    )
    .unwrap();
    let env = |name: &str| (name == "LOCAL_LLM_KEY").then(|| "sk-local-secret-1".to_owned());
    let client = config.client(&ModelFlags::default(), &env).unwrap();
    let error = client
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the model at {}/chat/completions refused the request (HTTP 401: Incorrect API key provided); check the API key in $LOCAL_LLM_KEY",
            server.url()
        )
    );
    assert_eq!(error.class(), ErrorClass::Fatal);
    assert_eq!(served(&server).len(), 1);
}

#[tokio::test]
async fn a_401_without_a_key_says_which_variable_to_set() {
    let refused = Fault::Status {
        status: 401,
        retry_after_ms: None,
        code: None,
        message: Some("missing credentials".into()),
    };
    let server = serve(Step::text("never").after_faults(vec![refused])).await;
    let error = client(&server, Provider::Anthropic, None)
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap_err();
    match &error {
        ModelError::Unauthorized { key, status, .. } => {
            assert_eq!((key, *status), (&SentKey::None, 401));
        }
        other => panic!("expected Unauthorized, got {other:?}"),
    }
    let text = error.to_string();
    assert!(
        text.ends_with("no API key was sent: set KIGI_API_KEY, or api_key_env in [models.<alias>] (or [endpoints]) to the variable that holds it"),
        "{text}"
    );
    let from_kigi_key = ApiKey::from_variable("sk-kigi-secret-2", "KIGI_API_KEY");
    let server = serve(Step::text("never").after_faults(vec![Fault::Status {
        status: 401,
        retry_after_ms: None,
        code: None,
        message: None,
    }]))
    .await;
    let text = client(&server, Provider::OpenaiResponses, Some(from_kigi_key))
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        text.ends_with("check the API key in $KIGI_API_KEY"),
        "{text}"
    );
    assert!(!text.contains("sk-kigi-secret-2"), "{text}");
}
