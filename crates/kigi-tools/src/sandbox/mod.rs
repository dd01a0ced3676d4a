//! The command sandbox: shell commands confined by the kernel to what a [`SandboxPolicy`]
//! allows (writes below the writable roots and the temp dir, reads and execution everywhere,
//! no network unless allowed), enforced with Landlock and seccomp on a dedicated spawner
//! thread per policy, and a note for the model when a command looks refused.
//!
//! The rule: a confined policy is enforced or the command does not run; nothing here falls
//! back to an unconfined spawn.

mod confine;
mod denial;
mod error;
#[cfg(target_os = "linux")]
mod landlock_rules;
mod policy;
#[cfg(target_os = "linux")]
mod seccomp_filter;
mod spawner;
mod support;

pub use denial::sandbox_denial_note;
pub use error::SandboxError;
pub use policy::{SandboxMode, SandboxPolicy, UnknownSandboxMode};
pub use spawner::spawn_in_sandbox;
pub use support::{SandboxSupport, sandbox_support};
