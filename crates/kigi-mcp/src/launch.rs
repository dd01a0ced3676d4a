//! `ServerLaunch`: a configured server made ready to start: every `${VAR}` expanded and the
//! bearer token read, by a pure function of the entry and an environment lookup.
//!
//! The rule: nothing starts from an unexpanded entry; a missing variable fails here, naming the
//! server and the field, before any process or request.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::env_expansion::{UnsetVariable, expand_vars};
use crate::error::McpError;
use crate::server_config::{McpServerConfig, McpTransport};

/// A server ready to start.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerLaunch {
    pub name: String,
    /// The entry with every variable expanded.
    pub config: McpServerConfig,
    /// The token from `bearer_token_env`, sent as `Authorization: Bearer …`.
    pub bearer_token: Option<String>,
}

impl std::fmt::Debug for ServerLaunch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Expanded env values, headers and the token are often secrets: never in logs or
        // debug output. The command or URL is enough to tell servers apart.
        let target = match &self.config.transport {
            McpTransport::Stdio { command, .. } => command,
            McpTransport::Http { url, .. } => url,
        };
        f.debug_struct("ServerLaunch")
            .field("name", &self.name)
            .field("transport", &self.config.transport_name())
            .field("target", target)
            .finish_non_exhaustive()
    }
}

/// Expands `config` for server `name` with `lookup` as the environment.
pub fn prepare_launch(
    name: &str,
    config: &McpServerConfig,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerLaunch, McpError> {
    let expand = |field: String, text: &str| {
        expand_vars(text, lookup).map_err(|UnsetVariable(variable)| McpError::UnsetVariable {
            server: name.to_owned(),
            field,
            variable,
        })
    };
    let (transport, bearer_token) = match &config.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let command = expand("command".into(), command)?;
            let args = args
                .iter()
                .enumerate()
                .map(|(i, arg)| expand(format!("args[{i}]"), arg))
                .collect::<Result<Vec<_>, _>>()?;
            let env = env
                .iter()
                .map(|(k, v)| Ok((k.clone(), expand(format!("env.{k}"), v)?)))
                .collect::<Result<BTreeMap<_, _>, McpError>>()?;
            let cwd = match cwd {
                Some(dir) => Some(PathBuf::from(expand("cwd".into(), &dir.to_string_lossy())?)),
                None => None,
            };
            (
                McpTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                },
                None,
            )
        }
        McpTransport::Http {
            url,
            headers,
            bearer_token_env,
        } => {
            let url = expand("url".into(), url)?;
            let headers = headers
                .iter()
                .map(|(k, v)| Ok((k.clone(), expand(format!("headers.{k}"), v)?)))
                .collect::<Result<BTreeMap<_, _>, McpError>>()?;
            let token = match bearer_token_env {
                Some(variable) => {
                    Some(lookup(variable).filter(|t| !t.is_empty()).ok_or_else(|| {
                        McpError::MissingBearerToken {
                            server: name.to_owned(),
                            variable: variable.clone(),
                        }
                    })?)
                }
                None => None,
            };
            (
                McpTransport::Http {
                    url,
                    headers,
                    bearer_token_env: bearer_token_env.clone(),
                },
                token,
            )
        }
    };
    Ok(ServerLaunch {
        name: name.to_owned(),
        config: McpServerConfig {
            transport,
            ..config.clone()
        },
        bearer_token,
    })
}

/// [`prepare_launch`] with the process environment.
pub fn prepare_launch_from_env(
    name: &str,
    config: &McpServerConfig,
) -> Result<ServerLaunch, McpError> {
    prepare_launch(name, config, &|var| std::env::var(var).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t0k".into()),
            "HOST" => Some("h.example".into()),
            _ => None,
        }
    }

    #[test]
    fn expands_command_args_env_url_and_headers() {
        let mut stdio = McpServerConfig::stdio("${BIN:-npx}", vec!["--host=${HOST}".into()]);
        if let McpTransport::Stdio { env, .. } = &mut stdio.transport {
            env.insert("K".into(), "${TOKEN}".into());
        }
        let launch = prepare_launch("s", &stdio, &env).unwrap();
        assert_eq!(
            launch.config.transport,
            McpTransport::Stdio {
                command: "npx".into(),
                args: vec!["--host=h.example".into()],
                env: BTreeMap::from([("K".into(), "t0k".into())]),
                cwd: None,
            }
        );

        let mut http = McpServerConfig::http("https://${HOST}/mcp");
        if let McpTransport::Http {
            headers,
            bearer_token_env,
            ..
        } = &mut http.transport
        {
            headers.insert("X-Key".into(), "${TOKEN}".into());
            *bearer_token_env = Some("TOKEN".into());
        }
        let launch = prepare_launch("h", &http, &env).unwrap();
        assert_eq!(launch.bearer_token.as_deref(), Some("t0k"));
        let McpTransport::Http { url, headers, .. } = &launch.config.transport else {
            panic!("http stays http");
        };
        assert_eq!(url, "https://h.example/mcp");
        assert_eq!(headers["X-Key"], "t0k");
        assert!(
            !format!("{launch:?}").contains("t0k"),
            "debug output hides the token"
        );
    }

    #[test]
    fn an_unset_variable_names_the_server_and_field() {
        let config = McpServerConfig::stdio("srv", vec!["ok".into(), "${MISSING}".into()]);
        let err = prepare_launch("gh", &config, &env).unwrap_err();
        assert!(matches!(
            &err,
            McpError::UnsetVariable { server, field, variable }
                if server == "gh" && field == "args[1]" && variable == "MISSING"
        ));
        assert!(
            err.to_string().contains("`gh`: args[1] uses ${MISSING}"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_bearer_token_variable_is_an_error() {
        let mut http = McpServerConfig::http("https://x");
        if let McpTransport::Http {
            bearer_token_env, ..
        } = &mut http.transport
        {
            *bearer_token_env = Some("NO_TOKEN".into());
        }
        let err = prepare_launch("h", &http, &env).unwrap_err().to_string();
        assert!(err.contains("NO_TOKEN"), "{err}");
    }
}
