//! Files kigi does not read on a model's behalf, whatever the permission mode: credentials
//! (`~/.ssh`, `~/.aws`, `~/.gnupg`), kigi's own trust list, and `.env` files. Judged on the
//! resolved path, so a symlink into `~/.ssh` is as closed as `~/.ssh` itself. A model that
//! needs a value from one asks the person for it.

use std::path::{Path, PathBuf};

/// Credential folders under the user's home.
const HOME_SECRETS: [&str; 3] = [".ssh", ".aws", ".gnupg"];

/// Where the secrets are, for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretPaths {
    /// `$HOME`, resolved.
    pub home: Option<PathBuf>,
    /// `$KIGI_HOME`, resolved.
    pub kigi_home: Option<PathBuf>,
}

impl SecretPaths {
    /// What `resolved` is when kigi must not read it; `None` when it may.
    pub fn deny_read_reason(&self, resolved: &Path) -> Option<&'static str> {
        if let Some(home) = &self.home
            && HOME_SECRETS
                .iter()
                .any(|dir| resolved.starts_with(home.join(dir)))
        {
            return Some("a credentials folder");
        }
        if let Some(kigi_home) = &self.kigi_home
            && resolved == kigi_home.join("trusted_folders.toml")
        {
            return Some("kigi's list of trusted folders");
        }
        let name = resolved.file_name()?.to_string_lossy();
        (name == ".env" || name.starts_with(".env.")).then_some("an environment file")
    }

    /// The refusal a read of `shown` (resolved to `resolved`) gets, if it gets one.
    pub fn refusal(&self, resolved: &Path, shown: &str) -> Option<String> {
        self.deny_read_reason(resolved).map(|what| {
            format!(
                "{shown} is {what}; kigi does not read it for the model. Ask the user for what you need from it"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_trust_list_and_env_files_are_closed_and_the_rest_open() {
        let secrets = SecretPaths {
            home: Some(PathBuf::from("/home/u")),
            kigi_home: Some(PathBuf::from("/home/u/.kigi")),
        };
        for closed in [
            "/home/u/.ssh/id_ed25519",
            "/home/u/.aws/credentials",
            "/home/u/.gnupg/pubring.kbx",
            "/home/u/.kigi/trusted_folders.toml",
            "/repo/.env",
            "/repo/app/.env.local",
        ] {
            assert!(
                secrets.deny_read_reason(Path::new(closed)).is_some(),
                "{closed}"
            );
        }
        for open in [
            "/repo/src/env.rs",
            "/repo/.envrc.example.md",
            "/home/u/.sshrc",
            "/home/u/.kigi/config.toml",
            "/repo/README.md",
        ] {
            assert_eq!(secrets.deny_read_reason(Path::new(open)), None, "{open}");
        }
    }
}
