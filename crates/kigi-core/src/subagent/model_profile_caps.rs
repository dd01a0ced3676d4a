//! A `model_profiles` entry's settings on the bound model's client: caps on the context
//! window and on each completion (only ever narrower), request parameters merged over the
//! model's own, and `service_tier` where the wire has one (the Responses API).

use kigi_agent::ModelProfile;
use kigi_model::{ModelClient, ModelConfigError, Provider};

/// `client` with `profile` applied; the same client when the entry sets none of these.
pub fn apply(
    client: &ModelClient,
    profile: &ModelProfile,
) -> Result<ModelClient, ModelConfigError> {
    let sets_tier =
        profile.service_tier.is_some() && client.endpoint().provider == Provider::OpenaiResponses;
    if profile.context_budget.is_none()
        && profile.max_completion_tokens.is_none()
        && profile.request_params.is_empty()
        && !sets_tier
    {
        return Ok(client.clone());
    }
    let mut endpoint = client.endpoint().clone();
    endpoint.context_window = narrower(endpoint.context_window, profile.context_budget);
    endpoint.max_output_tokens =
        narrower(endpoint.max_output_tokens, profile.max_completion_tokens);
    for (key, value) in &profile.request_params {
        endpoint.request_params.insert(key.clone(), value.clone());
    }
    if let Some(tier) = profile.service_tier.as_ref().filter(|_| sets_tier) {
        endpoint.request_params.insert(
            "service_tier".into(),
            serde_json::Value::String(tier.clone()),
        );
    }
    let url = endpoint.url();
    ModelClient::with_policy(endpoint, client.policy().clone()).map_err(|e| {
        ModelConfigError::Client {
            url,
            detail: e.to_string(),
        }
    })
}

/// The smaller of two caps, either of which may be absent.
fn narrower<T: Ord + Copy>(current: Option<T>, cap: Option<T>) -> Option<T> {
    match (current, cap) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use kigi_model::ModelEndpoint;

    use super::*;

    fn profile() -> ModelProfile {
        ModelProfile {
            alias: "fast".into(),
            when: None,
            thinking_effort: None,
            lists: Default::default(),
            prompt: None,
            context_budget: None,
            max_completion_tokens: None,
            service_tier: None,
            request_params: Default::default(),
        }
    }

    #[test]
    fn caps_only_narrow_and_params_merge() {
        let mut endpoint = ModelEndpoint::new(Provider::OpenaiChat, "http://127.0.0.1:9", "m");
        endpoint.context_window = Some(100_000);
        endpoint
            .request_params
            .insert("temperature".into(), serde_json::json!(1.0));
        let client = ModelClient::new(endpoint).unwrap();
        let mut entry = profile();
        entry.context_budget = Some(32_000);
        entry.max_completion_tokens = Some(4096);
        entry
            .request_params
            .insert("temperature".into(), serde_json::json!(0.2));
        entry.service_tier = Some("priority".into());
        let applied = apply(&client, &entry).unwrap();
        let endpoint = applied.endpoint();
        assert_eq!(endpoint.context_window, Some(32_000));
        assert_eq!(endpoint.max_output_tokens, Some(4096));
        assert_eq!(endpoint.request_params["temperature"], 0.2);
        assert!(
            !endpoint.request_params.contains_key("service_tier"),
            "chat completions has no service tier"
        );
        entry.context_budget = Some(500_000);
        assert_eq!(
            apply(&client, &entry).unwrap().endpoint().context_window,
            Some(100_000),
            "a budget never widens the window"
        );
    }

    #[test]
    fn the_responses_wire_gets_the_service_tier() {
        let client = ModelClient::new(ModelEndpoint::new(
            Provider::OpenaiResponses,
            "http://127.0.0.1:9",
            "m",
        ))
        .unwrap();
        let mut entry = profile();
        entry.service_tier = Some("flex".into());
        let applied = apply(&client, &entry).unwrap();
        assert_eq!(applied.endpoint().request_params["service_tier"], "flex");
    }
}
