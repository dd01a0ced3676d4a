//! The Landlock ruleset of a policy, applied to the calling thread: every file read and
//! executed everywhere, written only below the policy's writable folders and devices, TCP
//! bind and connect refused without network, signals and abstract Unix sockets scoped to the
//! sandbox.
//!
//! The rule: what the sandbox needs (filesystem rights of ABI 3, TCP rules of ABI 4) is a
//! hard requirement, so an older kernel is an error, never a silently weaker sandbox; only the
//! extras of ABI 5 and 6 are best effort.

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, PathBeneath, PathFd,
    RestrictionStatus, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::error::SandboxError;
use super::policy::SandboxPolicy;

/// What the sandbox cannot do without: truncation rights (3) and TCP rules (4).
const REQUIRED_ABI: ABI = ABI::V4;
/// The newest ABI vetted here: device ioctls (5), signal and abstract-socket scopes (6).
const TARGET_ABI: ABI = ABI::V6;

/// Restricts the calling thread (and every process it starts from now on) to `policy`, for
/// good. Returns the kernel's Landlock ABI.
pub(crate) fn restrict_this_thread(policy: &SandboxPolicy) -> Result<u32, SandboxError> {
    let status = build_and_restrict(policy).map_err(|e| match e {
        Failure::Landlock(e) if is_unsupported(&e) => SandboxError::Unavailable {
            reason: format!("Landlock with ABI {REQUIRED_ABI} (Linux 6.7) is needed: {e}"),
        },
        Failure::Landlock(e) => SandboxError::Ruleset {
            detail: e.to_string(),
        },
        Failure::Root(error) => error,
    })?;
    check(&status)
}

enum Failure {
    Landlock(landlock::RulesetError),
    Root(SandboxError),
}

impl From<landlock::RulesetError> for Failure {
    fn from(e: landlock::RulesetError) -> Self {
        Self::Landlock(e)
    }
}

fn build_and_restrict(policy: &SandboxPolicy) -> Result<RestrictionStatus, Failure> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(REQUIRED_ABI))?;
    if !policy.network {
        // Handled with no rule: every TCP bind and connect is refused.
        ruleset = ruleset.handle_access(AccessNet::from_all(REQUIRED_ABI))?;
    }
    let mut created = ruleset
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET_ABI))?
        .scope(Scope::from_all(TARGET_ABI))?
        .create()?
        .add_rule(PathBeneath::new(
            open("/".as_ref())?,
            AccessFs::from_read(TARGET_ABI),
        ))?;
    for folder in policy.writable_folders() {
        created = created.add_rule(PathBeneath::new(
            open(&folder)?,
            AccessFs::from_all(TARGET_ABI),
        ))?;
    }
    for device in policy.writable_devices() {
        // File rights only (write, truncate, ioctl), also below `/dev/pts`.
        created = created.add_rule(PathBeneath::new(
            open(&device)?,
            AccessFs::from_file(TARGET_ABI),
        ))?;
    }
    Ok(created.restrict_self()?)
}

fn open(path: &std::path::Path) -> Result<PathFd, Failure> {
    PathFd::new(path).map_err(|e| {
        Failure::Root(SandboxError::Root {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })
    })
}

/// A hard requirement the kernel lacks (as opposed to a malformed ruleset).
fn is_unsupported(error: &landlock::RulesetError) -> bool {
    matches!(error, landlock::RulesetError::HandleAccesses(_))
}

/// The kernel's ABI when the restriction holds; an error when it does not.
fn check(status: &RestrictionStatus) -> Result<u32, SandboxError> {
    let abi = match status.landlock {
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => kernel_abi
            .and_then(|abi| u32::try_from(abi).ok())
            .or_else(|| effective_abi.to_string().parse().ok())
            .unwrap_or_default(),
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => 0,
    };
    if status.ruleset == RulesetStatus::NotEnforced || !status.no_new_privs || abi == 0 {
        return Err(SandboxError::NotEnforced {
            status: format!("{status:?}"),
        });
    }
    Ok(abi)
}
