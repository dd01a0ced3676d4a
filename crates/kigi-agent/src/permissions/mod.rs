//! Permission rules in Claude Code's syntax: parsing (`rule`), what a rule says about a shell
//! command (`command_pattern`, `shell_parts`) or a path (`path_pattern`), where rules are
//! written (`permissions_config`; a project's in `crate::project_settings`), and the set a session evaluates
//! (`rule_set`). Pure logic: the tool runtime asks, and decides with the permission mode.

mod command_pattern;
mod path_pattern;
mod permissions_config;
mod rule;
mod rule_list;
mod rule_set;
mod shell_parts;

pub use command_pattern::CommandPattern;
pub use path_pattern::{CompiledPath, PathAnchor, PathAnchors, PathPattern, PathPatternError};
pub use permissions_config::PermissionsConfig;
pub use rule::{PermissionRule, RuleError, Specifier, ToolSelector, reads_files};
pub use rule_list::{flag_rules, split_rule_list};
pub use rule_set::{
    CallInput, CallSubject, CompiledRules, PermissionRules, RuleEffect, RuleListError, RuleSource,
    RuleVerdict, SourcedRule,
};
pub use shell_parts::ShellParts;
