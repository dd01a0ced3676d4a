//! The user's hooks (Claude Code compatible): which events exist (`hook_event`) and hooks as
//! written and compiled (`hooks_config`). kigi-core runs them.

mod hook_event;
mod hooks_config;

pub use hook_event::HookEvent;
pub use hooks_config::{
    DEFAULT_HOOK_TIMEOUT, Hook, HookCommandConfig, HookConfigError, HookGroup, HookSet, HookSource,
    HooksConfig,
};
