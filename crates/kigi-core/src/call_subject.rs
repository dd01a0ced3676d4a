//! A call as permission rules see it: a shell command split into its parts with redirection
//! targets resolved, a file tool's resolved path, a fetch's host, a spawn's subagent type.
//! Paths are resolved (symlinks, `..`) before any rule judges them.

use kigi_agent::ResolvedTool;
use kigi_agent::permissions::{CallInput, CallSubject, ShellParts, reads_files};
use kigi_protocol::ToolKind;
use kigi_tools::{ToolContext, url_rule_host};
use serde_json::Value;

/// The subject of a call to `tool` with (canonical) `arguments`.
pub fn call_subject<'a>(
    tool: &'a ResolvedTool,
    arguments: &Value,
    context: &ToolContext,
) -> CallSubject<'a> {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str);
    let input = match tool.kind {
        ToolKind::Execute => match text("command") {
            Some(command) => {
                let parts = ShellParts::of(command);
                CallInput::Command {
                    writes: parts.writes.iter().map(|p| context.resolve(p)).collect(),
                    reads: parts.reads.iter().map(|p| context.resolve(p)).collect(),
                    parts,
                }
            }
            None => CallInput::Nothing,
        },
        kind if kind.writes_files() || reads_files(kind) => match text("path") {
            Some(path) => CallInput::Path(context.resolve(path)),
            // Search tools default to the working directory.
            None if reads_files(kind) => CallInput::Path(context.resolve("")),
            None => CallInput::Nothing,
        },
        // A route (`type.route`) is its type's, and no type means the default one.
        ToolKind::Task => match text("route").or(text("subagent_type")) {
            Some(agent) => CallInput::Agent(agent.to_owned()),
            None if tool.name == "spawn_subagent" => {
                CallInput::Agent(kigi_agent::DEFAULT_SUBAGENT_TYPE.to_owned())
            }
            None => CallInput::Nothing,
        },
        ToolKind::WebFetch => match text("url").and_then(url_rule_host) {
            Some(host) => CallInput::Host(host),
            None => CallInput::Nothing,
        },
        _ => CallInput::Nothing,
    };
    CallSubject {
        canonical: &tool.name,
        kind: tool.kind,
        input,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_host_drops_scheme_credentials_port_and_path() {
        let host = |url: &str| url_rule_host(url);
        assert_eq!(
            host("https://Docs.Example.com:8443/a?b").as_deref(),
            Some("docs.example.com")
        );
        assert_eq!(
            host("http://user:pw@example.com/x").as_deref(),
            Some("example.com")
        );
        assert_eq!(host("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(host("example.com"), None);
    }

    #[test]
    fn a_url_host_is_the_one_the_fetch_reaches() {
        // A backslash ends the authority for http(s): the fetch goes to evil.com, so a rule
        // about example.com must not judge it.
        assert_eq!(
            url_rule_host("http://evil.com\\@example.com/").as_deref(),
            Some("evil.com")
        );
        // 2130706433 is 127.0.0.1 written as one number.
        assert_eq!(
            url_rule_host("http://2130706433/").as_deref(),
            Some("127.0.0.1")
        );
    }
}
