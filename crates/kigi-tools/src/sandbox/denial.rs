//! The note added to a sandboxed command's failure when its output looks like the sandbox
//! refused it: what the sandbox allows, and that the model should ask the user (who can widen
//! it in `config.toml`) instead of retrying or working around it.
//!
//! The rule: a pure function of the policy, the command, its exit code and its output; it
//! only adds a note, never changes the outcome.

use std::path::PathBuf;

use super::policy::{SandboxMode, SandboxPolicy};

/// Output fragments (lower case) of a refused file operation.
const FILE_REFUSALS: [&str; 4] = [
    "permission denied",
    "read-only file system",
    "operation not permitted",
    "eacces",
];

/// Output fragments (lower case) of a refused or unreachable network.
const NETWORK_REFUSALS: [&str; 12] = [
    "could not resolve",
    "couldn't connect",
    "could not connect",
    "failed to connect",
    "connection refused",
    "network is unreachable",
    "temporary failure in name resolution",
    "name or service not known",
    "address family not supported",
    "failed to establish a new connection",
    "unable to connect",
    "no route to host",
];

/// Programs that only talk to the network: a failure of theirs without network is the
/// sandbox's even when they print nothing (`curl -s`).
const NETWORK_CLIENTS: [&str; 16] = [
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ping", "dig",
    "nslookup", "ftp", "http", "xh",
];

/// Subcommands that reach the network, by program.
const NETWORK_SUBCOMMANDS: [(&str, &[&str]); 8] = [
    (
        "git",
        &["clone", "fetch", "pull", "push", "ls-remote", "submodule"],
    ),
    ("npm", &["install", "i", "ci", "update", "publish"]),
    ("pnpm", &["install", "i", "add", "update"]),
    ("yarn", &["install", "add", "upgrade"]),
    ("pip", &["install", "download"]),
    ("pip3", &["install", "download"]),
    (
        "cargo",
        &["install", "fetch", "update", "add", "publish", "search"],
    ),
    ("go", &["get", "mod", "install"]),
];

/// The note for a sandboxed command that exited with `exit_code`, when its output (or, without
/// network, the command itself) suggests the sandbox refused it; `None` otherwise.
pub fn sandbox_denial_note(
    policy: &SandboxPolicy,
    command: &str,
    exit_code: i32,
    output: &str,
) -> Option<String> {
    if !policy.is_confined() || exit_code == 0 {
        return None;
    }
    let output = output.to_lowercase();
    let file_refused = FILE_REFUSALS.iter().any(|sign| output.contains(sign));
    let network_refused = !policy.network
        && (NETWORK_REFUSALS.iter().any(|sign| output.contains(sign))
            || uses_network_client(command));
    (file_refused || network_refused).then(|| describe(policy))
}

/// What the sandbox allows, and what to do about it.
fn describe(policy: &SandboxPolicy) -> String {
    let writes = match policy.mode {
        SandboxMode::ReadOnly => "it may write no files".to_owned(),
        _ => {
            let folders: Vec<PathBuf> = policy.writable_folders();
            let listed: Vec<String> = folders.iter().map(|p| p.display().to_string()).collect();
            format!("it may write only below {}", listed.join(", "))
        }
    };
    let network = if policy.network {
        "the network is on"
    } else {
        "the network is off"
    };
    format!(
        "\n[sandbox] This command ran in kigi's sandbox (mode {}): {writes}; {network}. \
         The failure above may be the sandbox refusing it. Do not retry it or work around it: \
         if the command needs more, ask the user, who can allow it in config.toml with \
         `[sandbox] network = true`, `[sandbox] writable_roots = [\"…\"]` or \
         `[sandbox] mode = \"danger-full-access\"`.",
        policy.mode.spelling()
    )
}

/// Whether the command runs a program that needs the network.
fn uses_network_client(command: &str) -> bool {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&' | '(' | ')' | '`'))
        .filter(|word| !word.is_empty())
        .map(|word| word.rsplit('/').next().unwrap_or(word))
        .collect();
    words.iter().enumerate().any(|(i, word)| {
        NETWORK_CLIENTS.contains(word)
            || NETWORK_SUBCOMMANDS.iter().any(|(program, subcommands)| {
                program == word
                    && words
                        .get(i + 1)
                        .is_some_and(|next| subcommands.contains(next))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> SandboxPolicy {
        SandboxPolicy::workspace_write([PathBuf::from("/work/repo")])
    }

    #[test]
    fn a_refused_write_gets_the_note_naming_mode_roots_and_settings() {
        let note = sandbox_denial_note(
            &workspace(),
            "touch ../x",
            1,
            "touch: cannot touch '../x': Permission denied\n",
        )
        .unwrap_or_default();
        assert!(
            note.contains("kigi's sandbox (mode workspace-write)"),
            "{note}"
        );
        assert!(note.contains("/work/repo"), "{note}");
        assert!(note.contains("the network is off"), "{note}");
        assert!(note.contains("ask the user"), "{note}");
        assert!(note.contains("[sandbox] network = true"), "{note}");
        assert!(note.contains("[sandbox] writable_roots"), "{note}");
        assert!(note.contains("mode = \"danger-full-access\""), "{note}");
    }

    #[test]
    fn read_only_says_no_files_are_writable() {
        let note = sandbox_denial_note(
            &SandboxPolicy::read_only(),
            "echo x > f",
            2,
            "sh: 1: cannot create f: Read-only file system",
        )
        .unwrap_or_default();
        assert!(
            note.contains("(mode read-only): it may write no files;"),
            "{note}"
        );
    }

    #[test]
    fn a_silent_network_client_without_network_gets_the_note() {
        for command in [
            "curl -s http://127.0.0.1:8080/",
            "cd app && /usr/bin/wget -q x",
            "git fetch origin",
            "true; cargo install ripgrep",
        ] {
            assert!(
                sandbox_denial_note(&workspace(), command, 7, "").is_some(),
                "{command}"
            );
        }
    }

    #[test]
    fn a_network_error_gets_the_note_only_without_network() {
        let output = "fatal: unable to access: Could not resolve host: example.org";
        assert!(sandbox_denial_note(&workspace(), "make deps", 1, output).is_some());
        let online = SandboxPolicy {
            network: true,
            ..workspace()
        };
        assert_eq!(sandbox_denial_note(&online, "make deps", 1, output), None);
        assert_eq!(sandbox_denial_note(&online, "curl -s x", 7, ""), None);
    }

    #[test]
    fn success_ordinary_failures_and_full_access_get_no_note() {
        let denied = "Permission denied";
        assert_eq!(sandbox_denial_note(&workspace(), "ls", 0, denied), None);
        assert_eq!(
            sandbox_denial_note(&workspace(), "cargo test", 101, "test failed: 1 != 2"),
            None
        );
        assert_eq!(
            sandbox_denial_note(&SandboxPolicy::full_access(), "touch /x", 1, denied),
            None
        );
        // A word that merely contains a client's name is not that client.
        assert_eq!(
            sandbox_denial_note(&workspace(), "ncurses-config", 1, ""),
            None
        );
        assert_eq!(
            sandbox_denial_note(&workspace(), "git status", 128, ""),
            None
        );
    }
}
