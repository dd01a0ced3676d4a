//! The no-network seccomp filter of the calling thread: `socket` for IPv4, IPv6 and packet
//! sockets fails with EPERM (so UDP and raw sockets are refused too, which Landlock does not
//! cover), and so does `io_uring_setup` (whose socket operations a filter cannot see). Unix
//! sockets stay available.
//!
//! The rule: install it only after Landlock set `no_new_privs` on this thread, and only on a
//! thread that starts sandboxed commands: it is inherited and cannot be removed.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::error::SandboxError;

/// Address families refused without network.
const REFUSED_FAMILIES: [libc::c_int; 3] = [libc::AF_INET, libc::AF_INET6, libc::AF_PACKET];

/// Installs the filter on the calling thread.
pub(crate) fn deny_network_sockets() -> Result<(), SandboxError> {
    let program = build().map_err(|e| SandboxError::Seccomp {
        detail: e.to_string(),
    })?;
    seccompiler::apply_filter(&program).map_err(|e| SandboxError::Seccomp {
        detail: e.to_string(),
    })
}

fn build() -> Result<BpfProgram, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let families = REFUSED_FAMILIES
        .iter()
        .map(|&family| {
            SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                u64::from(family.unsigned_abs()),
            )?])
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rules = BTreeMap::from([
        (libc::SYS_socket, families),
        // No conditions: always refused.
        (libc::SYS_io_uring_setup, Vec::new()),
    ]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM.unsigned_abs()),
        arch,
    )?;
    Ok(BpfProgram::try_from(filter)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_for_this_architecture() {
        assert!(build().is_ok_and(|program| !program.is_empty()));
    }
}
