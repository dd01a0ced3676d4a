//! Confining the calling thread to a policy: Landlock, then (without network) the seccomp
//! filter. Linux only; elsewhere every confined policy is unavailable.
//!
//! The rule: only a spawner thread (or a throwaway probe thread) calls this; the restriction
//! is permanent and inherited by every process the thread starts.

use super::error::SandboxError;
use super::policy::SandboxPolicy;

/// Restricts the calling thread to `policy`; returns the kernel's Landlock ABI.
#[cfg(target_os = "linux")]
pub(crate) fn confine_this_thread(policy: &SandboxPolicy) -> Result<u32, SandboxError> {
    let abi = super::landlock_rules::restrict_this_thread(policy)?;
    if !policy.network {
        super::seccomp_filter::deny_network_sockets()?;
    }
    Ok(abi)
}

/// Restricts the calling thread to `policy`; returns the kernel's Landlock ABI.
#[cfg(not(target_os = "linux"))]
pub(crate) fn confine_this_thread(_policy: &SandboxPolicy) -> Result<u32, SandboxError> {
    Err(SandboxError::Unavailable {
        reason: "the command sandbox uses Landlock, which is Linux's".to_owned(),
    })
}
