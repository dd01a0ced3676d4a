//! `kigi models` (configured aliases and the current choice), `kigi models ping` (one tiny
//! request to the chosen model) and `kigi mock-model` (the scripted server, standalone).

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use kigi_agent::LoadedConfig;
use kigi_model::{CancellationToken, ModelClient, ModelFlags, ModelRequest};
use kigi_protocol::Message;
use serde_json::json;

/// Resolves the model from flags, environment and `config.toml`, with the `[retry]` policy.
pub fn client(flags: &ModelFlags) -> anyhow::Result<ModelClient> {
    let config = LoadedConfig::from_env()?.config.models();
    Ok(config.client(flags, &|name| std::env::var(name).ok())?)
}

/// `kigi models`: every alias, and which model a run here would use (or why none).
pub fn list(flags: &ModelFlags, as_json: bool) -> anyhow::Result<ExitCode> {
    let loaded = LoadedConfig::from_env()?;
    let config_file = &loaded.path;
    let config = loaded.config.models();
    let env = |name: &str| std::env::var(name).ok();
    let current = config.resolve(flags, &env);
    if as_json {
        let aliases: Vec<_> = config
            .models
            .iter()
            .map(|(alias, settings)| {
                json!({
                    "alias": alias,
                    "provider": settings.provider.as_deref().unwrap_or("openai-chat"),
                    "dialect": settings.dialect.as_deref().unwrap_or("openai"),
                    "model": settings.model.as_deref().unwrap_or(alias),
                    "base_url": settings.base_url.as_deref().or(config.endpoints.api_base_url.as_deref()),
                    "api_key_env": settings.api_key_env,
                    "api_key_set": settings.api_key_env.as_deref().and_then(env).is_some(),
                })
            })
            .collect();
        let current = match &current {
            Ok(endpoint) => json!({"alias": endpoint.alias, "model": endpoint.model,
                                   "provider": endpoint.provider, "url": endpoint.url(),
                                   "api_key": endpoint.api_key.is_some()}),
            Err(error) => json!({"error": error.to_string()}),
        };
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"models": aliases, "current": current}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if config.models.is_empty() {
        outln!("no [models.<alias>] in {}", config_file.display());
    }
    for (alias, settings) in &config.models {
        let key = match settings.api_key_env.as_deref() {
            Some(var) if env(var).is_some() => format!("${var} (set)"),
            Some(var) => format!("${var} (NOT SET)"),
            None => "no key".to_owned(),
        };
        outln!(
            "{alias:<16} {:<17} {:<24} {}  {key}",
            settings.provider.as_deref().unwrap_or("openai-chat"),
            settings.model.as_deref().unwrap_or(alias),
            settings
                .base_url
                .as_deref()
                .or(config.endpoints.api_base_url.as_deref())
                .unwrap_or("(no base URL)"),
        );
    }
    match current {
        Ok(endpoint) => outln!(
            "current: {} → {} at {}",
            endpoint.alias,
            endpoint.model,
            endpoint.url()
        ),
        Err(error) => outln!("current: none ({error})"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `kigi models ping`: one short request, to check a configuration end to end.
pub fn ping(flags: &ModelFlags, as_json: bool) -> anyhow::Result<ExitCode> {
    let client = client(flags)?;
    let url = client.endpoint().url();
    let runtime = super::runtime()?;
    let started = Instant::now();
    let response = runtime.block_on(async {
        let mut request = ModelRequest::new("", "Answer in one word.");
        request.messages.push(Message::user("Say OK."));
        request.max_output_tokens = Some(16);
        client.complete(&request, CancellationToken::new()).await
    })?;
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    if as_json {
        let out = json!({
            "url": url, "model": client.endpoint().model, "alias": client.endpoint().alias,
            "answer": response.text.trim(), "duration_ms": elapsed_ms, "retries": response.retries,
            "usage": {"input_tokens": response.usage.input_tokens,
                      "output_tokens": response.usage.output_tokens,
                      "cached_input_tokens": response.usage.cached_input_tokens},
        });
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{url}: {:?}", response.text.trim());
    outln!(
        "{} input / {} output tokens ({} cached), {} ms, {} retries",
        response.usage.input_tokens,
        response.usage.output_tokens,
        response.usage.cached_input_tokens,
        elapsed_ms,
        response.retries
    );
    Ok(ExitCode::SUCCESS)
}

/// `kigi mock-model --script FILE`: the scripted model server until Ctrl-C.
pub fn mock_model(script: &Path, port: u16) -> anyhow::Result<ExitCode> {
    let runtime = super::runtime()?;
    runtime
        .block_on(kigi_testkit::standalone::serve(
            script,
            port,
            &mut std::io::stdout(),
        ))
        .with_context(|| format!("mock model server for {}", script.display()))?;
    Ok(ExitCode::SUCCESS)
}
