//! Whether this machine can sandbox commands, probed once per process: a throwaway thread
//! confines itself with the strictest policy kigi uses (read-only, no network) and reports
//! what the kernel enforced.
//!
//! The rule: the probe never restricts a thread that does anything else.

use std::sync::OnceLock;

use super::confine::confine_this_thread;
use super::error::SandboxError;
use super::policy::SandboxPolicy;

/// What the kernel offers the command sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxSupport {
    /// Landlock enforces every rule the sandbox needs (filesystem and TCP; scopes from ABI 6).
    Enforced {
        /// The kernel's Landlock ABI version.
        abi: u32,
    },
    /// Confined commands cannot run here.
    Unavailable {
        /// Why, for a one-time notice ("kernel cannot sandbox: …").
        reason: String,
    },
}

impl SandboxSupport {
    pub fn is_enforced(&self) -> bool {
        matches!(self, Self::Enforced { .. })
    }
}

static SUPPORT: OnceLock<SandboxSupport> = OnceLock::new();

/// The sandbox support of this machine, probed on the first call (a thread started and
/// joined, well under a millisecond: call it once when a session opens), then cached.
pub fn sandbox_support() -> &'static SandboxSupport {
    SUPPORT.get_or_init(probe)
}

/// The support, when something already probed it (never blocks).
pub(crate) fn probed_support() -> Option<&'static SandboxSupport> {
    SUPPORT.get()
}

fn probe() -> SandboxSupport {
    let thread = std::thread::Builder::new()
        .name("kigi-sandbox-probe".to_owned())
        .spawn(|| confine_this_thread(&SandboxPolicy::read_only()));
    match thread.map(std::thread::JoinHandle::join) {
        Ok(Ok(Ok(abi))) => SandboxSupport::Enforced { abi },
        Ok(Ok(Err(SandboxError::Unavailable { reason }))) => SandboxSupport::Unavailable { reason },
        Ok(Ok(Err(error))) => SandboxSupport::Unavailable {
            reason: error.to_string(),
        },
        Ok(Err(_)) => SandboxSupport::Unavailable {
            reason: "the sandbox probe thread panicked".to_owned(),
        },
        Err(error) => SandboxSupport::Unavailable {
            reason: format!("cannot start the sandbox probe thread: {error}"),
        },
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn this_machine_enforces_the_sandbox() {
        // The development machines and CI run Linux 6.18 (Landlock ABI 7): a probe that
        // finds less is a broken probe or a machine that cannot test the sandbox.
        let support = sandbox_support();
        assert!(
            matches!(support, SandboxSupport::Enforced { abi } if *abi >= 4),
            "{support:?}"
        );
    }
}
