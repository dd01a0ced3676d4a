//! [`ModelClient`]: the one interface the rest of kigi calls a model through. It holds the
//! resolved endpoint, the retry policy and a pooled HTTP client; [`ModelClient::stream`] turns
//! a request into a [`ModelStream`].

use std::sync::Arc;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue};
use tokio_util::sync::CancellationToken;

use crate::api_key::ApiKey;
use crate::base_url::check_base_url;
use crate::endpoint::{ModelEndpoint, Provider};
use crate::error::{ModelError, SentKey};
use crate::redaction::{Redactor, strip_userinfo};
use crate::request::ModelRequest;
use crate::response::ModelResponse;
use crate::retry::RetryPolicy;
use crate::stream::ModelStream;
use crate::{anthropic, openai_chat, responses};

/// A client for one model endpoint. Cloning is cheap and shares the connection pool.
#[derive(Debug, Clone)]
pub struct ModelClient {
    http: reqwest::Client,
    endpoint: Arc<ModelEndpoint>,
    policy: RetryPolicy,
}

/// A request ready to send (and to send again on retry).
#[derive(Debug, Clone)]
pub(crate) struct PreparedCall {
    /// Where the request goes, userinfo included (reqwest sends it as basic auth).
    pub url: String,
    /// The URL as messages show it: without userinfo.
    pub shown_url: String,
    /// Removes the key and URL userinfo from every error this call produces.
    pub redactor: Redactor,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub provider: Provider,
    pub dialect: crate::endpoint::Dialect,
    /// Which key the request carries, for the message of a refused one.
    pub sent_key: SentKey,
}

impl ModelClient {
    /// A client for `endpoint` with the default retry policy. A malformed base URL is refused
    /// here ([`ModelError::InvalidBaseUrl`]), before anything is sent or retried.
    pub fn new(endpoint: ModelEndpoint) -> Result<Self, ModelError> {
        Self::with_policy(endpoint, RetryPolicy::default())
    }

    pub fn with_policy(endpoint: ModelEndpoint, policy: RetryPolicy) -> Result<Self, ModelError> {
        // reqwest is built without a TLS crypto provider so that only ring is linked;
        // installing it twice is harmless (the second call reports "already installed").
        let _ = rustls::crypto::ring::default_provider().install_default();
        let redactor = Redactor::new(endpoint.api_key.as_ref().map(ApiKey::expose));
        if let Err(fault) = check_base_url(&endpoint.base_url) {
            return Err(redactor.error(ModelError::InvalidBaseUrl {
                url: endpoint.base_url.clone(),
                fault,
            }));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(policy.connect_timeout)
            .build()
            .map_err(|e| {
                redactor.error(ModelError::Transport {
                    url: endpoint.url(),
                    detail: e.to_string(),
                })
            })?;
        Ok(Self {
            http,
            endpoint: Arc::new(endpoint),
            policy,
        })
    }

    pub fn endpoint(&self) -> &ModelEndpoint {
        &self.endpoint
    }

    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Starts streaming `request`. Nothing is sent until the stream is first polled; dropping
    /// the stream or cancelling `cancel` stops the request.
    pub fn stream(&self, request: &ModelRequest, cancel: CancellationToken) -> ModelStream {
        ModelStream::new(
            self.http.clone(),
            self.prepare(request),
            self.policy.clone(),
            cancel,
        )
    }

    /// Streams `request` to the end and returns the whole answer.
    pub async fn complete(
        &self,
        request: &ModelRequest,
        cancel: CancellationToken,
    ) -> Result<ModelResponse, ModelError> {
        let mut stream = self.stream(request, cancel);
        let mut response = ModelResponse::default();
        while let Some(event) = stream.next().await {
            response.apply(event?);
        }
        Ok(response)
    }

    /// Fills the endpoint's defaults into `request`, encodes it for the provider and writes
    /// the headers.
    pub(crate) fn prepare(&self, request: &ModelRequest) -> PreparedCall {
        let endpoint = &*self.endpoint;
        let mut request = request.clone();
        if request.model.is_empty() {
            request.model.clone_from(&endpoint.model);
        }
        if request.max_output_tokens.is_none() {
            request.max_output_tokens = endpoint.max_output_tokens;
        }
        for (key, value) in &endpoint.request_params {
            request
                .params
                .entry(key.clone())
                .or_insert_with(|| value.clone());
        }
        let body = match endpoint.provider {
            Provider::OpenaiChat => openai_chat::encode(&request, endpoint.dialect),
            Provider::Anthropic => anthropic::encode(&request),
            Provider::OpenaiResponses => responses::encode(&request),
        };
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert("accept", HeaderValue::from_static("text/event-stream"));
        if endpoint.provider == Provider::Anthropic {
            headers.insert(
                "anthropic-version",
                HeaderValue::from_static(anthropic::API_VERSION),
            );
        }
        if let Some(key) = &endpoint.api_key {
            let (name, value) = match endpoint.provider {
                Provider::Anthropic => ("x-api-key", key.expose().to_owned()),
                _ => ("authorization", format!("Bearer {}", key.expose())),
            };
            if let Ok(mut value) = HeaderValue::from_str(&value) {
                value.set_sensitive(true);
                headers.insert(name, value);
            }
        }
        let url = endpoint.url();
        PreparedCall {
            shown_url: strip_userinfo(&url),
            url,
            redactor: Redactor::new(endpoint.api_key.as_ref().map(ApiKey::expose)),
            headers,
            body: Bytes::from(body.to_string()),
            provider: endpoint.provider,
            dialect: endpoint.dialect,
            sent_key: match &endpoint.api_key {
                None => SentKey::None,
                Some(key) => key
                    .variable()
                    .map_or(SentKey::Unnamed, |v| SentKey::Variable(v.to_owned())),
            },
        }
    }
}
