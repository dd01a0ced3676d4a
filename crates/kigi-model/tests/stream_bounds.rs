//! Bounds and hygiene of one model request against the scripted server over loopback: an
//! endless stream (keep-alive comments or data) ends in a typed error without retries,
//! `Retry-After` as an HTTP date is honoured, a malformed base URL fails before anything is
//! sent, and neither the API key nor URL userinfo reaches an error message.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use kigi_model::{
    ApiKey, BaseUrlFault, CancellationToken, ModelClient, ModelEndpoint, ModelError, ModelEvent,
    ModelFlags, ModelRequest, ModelsConfig, Provider, RetryPolicy,
};
use kigi_protocol::Message;
use kigi_testkit::{Fault, ScriptSet, ScriptedServer, Step};

const PROVIDERS: [Provider; 3] = [
    Provider::OpenaiChat,
    Provider::Anthropic,
    Provider::OpenaiResponses,
];

const KEY: &str = "sk-test-0123456789abcdef";

/// Small bounds so the tests are quick; the idle timeout is far above the keep-alive interval
/// so only the request deadline can end a keep-alive stream.
fn bounded_policy() -> RetryPolicy {
    RetryPolicy {
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        idle_timeout: Duration::from_secs(30),
        request_timeout: Duration::from_millis(300),
        max_response_bytes: 64 * 1024,
        max_retry_after: Duration::from_secs(3),
        ..RetryPolicy::default()
    }
}

fn client_at(base_url: String, provider: Provider, policy: RetryPolicy) -> ModelClient {
    let mut endpoint = ModelEndpoint::new(provider, base_url, "scripted-model");
    endpoint.api_key = Some(ApiKey::new(KEY));
    ModelClient::with_policy(endpoint, policy).unwrap()
}

fn request() -> ModelRequest {
    let mut request = ModelRequest::new("", "You are a test.");
    request.messages.push(Message::user("go"));
    request
}

/// A text answer long enough that its middle event is a text fragment in every wire.
fn long_text_step(fault: Fault) -> Step {
    Step {
        text: Some("an answer that goes on and on ".repeat(8)),
        chunk_chars: Some(4),
        ..Step::default()
    }
    .after_faults(vec![fault])
}

/// Every event, then the error that ended the stream (if one did).
async fn drain(client: &ModelClient) -> (Vec<ModelEvent>, Option<ModelError>) {
    let mut stream = client.stream(&request(), CancellationToken::new());
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => return (events, Some(error)),
        }
    }
    (events, None)
}

fn retries(events: &[ModelEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, ModelEvent::Retrying { .. }))
        .count()
}

#[tokio::test]
async fn endless_keep_alive_comments_end_in_a_request_timeout_without_retries() {
    for provider in PROVIDERS {
        let server =
            ScriptedServer::start(ScriptSet::single(vec![long_text_step(Fault::KeepAlive {
                interval_ms: 10,
            })]))
            .await
            .unwrap();
        let client = client_at(server.url(), provider, bounded_policy());
        let (events, error) = drain(&client).await;
        let error = error.expect("an endless stream must end in an error");
        assert_eq!(
            error,
            ModelError::RequestTimeout {
                url: format!("{}{}", server.url(), provider.path()),
                after: Duration::from_millis(300),
            },
            "{provider:?}"
        );
        assert!(
            error.to_string().contains("[retry] request_timeout_ms"),
            "{error}"
        );
        assert_eq!(retries(&events), 0, "{provider:?}");
        assert_eq!(server.requests().len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn endless_data_ends_at_the_size_cap_without_retries() {
    for provider in PROVIDERS {
        let server =
            ScriptedServer::start(ScriptSet::single(vec![long_text_step(Fault::EndlessData)]))
                .await
                .unwrap();
        let policy = RetryPolicy {
            request_timeout: Duration::from_secs(600),
            ..bounded_policy()
        };
        let client = client_at(server.url(), provider, policy);
        let (events, error) = drain(&client).await;
        let error = error.expect("an endless stream must end in an error");
        assert_eq!(
            error,
            ModelError::ResponseTooLarge {
                url: format!("{}{}", server.url(), provider.path()),
                limit: 64 * 1024,
            },
            "{provider:?}"
        );
        assert!(
            error.to_string().contains("[retry] max_response_bytes"),
            "{error}"
        );
        // The repeated event is a text fragment: the client was reading an answer.
        let text_events = events
            .iter()
            .filter(|e| matches!(e, ModelEvent::TextDelta(_)))
            .count();
        assert!(text_events > 100, "{provider:?}: {text_events} text events");
        assert_eq!(retries(&events), 0, "{provider:?}");
        assert_eq!(server.requests().len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn a_stream_within_both_bounds_completes() {
    let server = ScriptedServer::start(ScriptSet::single(vec![Step::text("short and done")]))
        .await
        .unwrap();
    let client = client_at(server.url(), Provider::OpenaiChat, bounded_policy());
    let response = client
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(response.text, "short and done");
}

#[tokio::test]
async fn retry_after_as_an_http_date_is_waited_for_before_the_retry() {
    let server = ScriptedServer::start(ScriptSet::single(vec![
        Step::text("after the date")
            .after_faults(vec![Fault::RateLimitedUntil { after_ms: 1_000 }]),
    ]))
    .await
    .unwrap();
    let client = client_at(
        server.url(),
        Provider::OpenaiChat,
        RetryPolicy {
            request_timeout: Duration::from_secs(60),
            ..bounded_policy()
        },
    );
    let (events, error) = drain(&client).await;
    assert_eq!(error, None);
    let delay = match &events[0] {
        ModelEvent::Retrying {
            attempt: 1, delay, ..
        } => *delay,
        other => panic!("expected a retry first, got {other:?}"),
    };
    // The date is at least 1 s ahead when sent (whole seconds, rounded up) and at most 2 s;
    // the policy's backoff is 5 ms, so a wait this long can only come from the date.
    assert!(
        delay >= Duration::from_millis(500) && delay <= Duration::from_secs(2),
        "{delay:?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].served, "status 429 until date");
    assert!(
        requests[1].at - requests[0].at >= delay,
        "the retry came {:?} after the 429, before the {delay:?} asked for",
        requests[1].at - requests[0].at
    );
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "after the date");
}

#[tokio::test]
async fn an_http_date_beyond_the_retry_after_ceiling_gives_up_at_once() {
    let server = ScriptedServer::start(ScriptSet::single(vec![Step::text("never").after_faults(
        vec![Fault::RateLimitedUntil {
            after_ms: 3_600_000,
        }],
    )]))
    .await
    .unwrap();
    let client = client_at(server.url(), Provider::OpenaiChat, bounded_policy());
    let (events, error) = drain(&client).await;
    let error = error.unwrap();
    assert!(error.is_rate_limited(), "{error}");
    let wait = error.retry_after().unwrap();
    assert!(wait > Duration::from_secs(3_500), "{wait:?}");
    assert_eq!(retries(&events), 0);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_malformed_base_url_fails_when_the_client_is_built() {
    let cases = [
        ("htp:/x", BaseUrlFault::NotHttp),
        ("http://", BaseUrlFault::NoHost),
        ("http://exa mple.com/v1", BaseUrlFault::Whitespace),
    ];
    for (url, fault) in cases {
        let endpoint = ModelEndpoint::new(Provider::OpenaiChat, url, "m");
        let error = ModelClient::with_policy(endpoint, bounded_policy()).unwrap_err();
        assert_eq!(
            error,
            ModelError::InvalidBaseUrl {
                url: url.into(),
                fault: fault.clone()
            }
        );
        let message = error.to_string();
        assert!(
            message.contains(&format!("`{url}`")) && message.contains("--base-url"),
            "{message}"
        );
        let flags = ModelFlags {
            model: Some("m".into()),
            base_url: Some(url.into()),
        };
        let error = ModelsConfig::default()
            .client(&flags, &|_| None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            format!("invalid model base URL `{url}` from --base-url: {fault}")
        );
    }
}

#[tokio::test]
async fn a_provider_error_echoing_the_key_and_url_userinfo_are_redacted() {
    let echo = format!("Incorrect API key provided: {KEY}. You can find your key at ...");
    let server = ScriptedServer::start(ScriptSet::single(vec![Step::text("never").after_faults(
        vec![
            Fault::Status {
                status: 503,
                retry_after_ms: None,
                code: None,
                message: Some(echo.clone()),
            },
            Fault::Status {
                status: 401,
                retry_after_ms: None,
                code: Some("invalid_api_key".into()),
                message: Some(echo),
            },
        ],
    )]))
    .await
    .unwrap();
    let with_userinfo = server.url().replace("http://", "http://alice:hunter2@");
    let client = client_at(with_userinfo, Provider::OpenaiChat, bounded_policy());
    let (events, error) = drain(&client).await;
    let error = error.unwrap();
    let shown_url = format!("{}/chat/completions", server.url());
    let reason = match &events[0] {
        ModelEvent::Retrying { reason, .. } => reason.clone(),
        other => panic!("expected a retry, got {other:?}"),
    };
    assert_eq!(
        reason,
        format!(
            "Incorrect API key provided: [redacted]. You can find your key at ... (HTTP 503 from {shown_url})"
        )
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the model at {shown_url} refused the request (HTTP 401: Incorrect API key provided: [redacted]. You can find your key at ...); check the API key"
        )
    );
    for text in [
        error.to_string(),
        format!("{error:?}"),
        format!("{events:?}"),
    ] {
        assert!(!text.contains(KEY), "{text}");
        assert!(
            !text.contains("hunter2") && !text.contains("alice"),
            "{text}"
        );
    }
    assert_eq!(server.requests().len(), 2);
}
