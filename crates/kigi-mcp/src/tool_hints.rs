//! What an MCP tool does, from its annotations (`readOnlyHint`, `destructiveHint`,
//! `openWorldHint`), in the terms capability and permission modes use: a [`ToolKind`] and
//! `read_only`.
//!
//! The rule: only an explicit `readOnlyHint: true` (and no `destructiveHint: true` beside it)
//! makes a tool read-only; anything else is treated as able to change things, as the MCP spec's
//! defaults say. Read-only tools are [`ToolKind::Other`] (they read the server's world, not
//! files, so they are not `read`); the others are [`ToolKind::Execute`]: they act in another
//! program, and `read-only` and `read-write` modes refuse them, as they refuse a shell.

use kigi_protocol::ToolKind;
use serde::{Deserialize, Serialize};

/// A tool's annotations as the server sent them (absent hints are `None`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolHints {
    #[serde(default)]
    pub read_only_hint: Option<bool>,
    #[serde(default)]
    pub destructive_hint: Option<bool>,
    #[serde(default)]
    pub idempotent_hint: Option<bool>,
    #[serde(default)]
    pub open_world_hint: Option<bool>,
}

/// How kigi classifies one MCP tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpToolKind {
    pub kind: ToolKind,
    pub read_only: bool,
    /// It may delete or overwrite (`destructiveHint`, true by default for a tool that is not
    /// read-only); permission prompts can say so.
    pub destructive: bool,
    /// It reaches outside the server (the web, other services; `openWorldHint`, true by
    /// default); a note for prompts and listings, not a gate.
    pub open_world: bool,
}

impl ToolHints {
    /// Reads an `annotations` object; anything unreadable counts as no hints.
    pub fn from_annotations(annotations: Option<&serde_json::Value>) -> Self {
        annotations
            .and_then(|value| serde_json::from_value(value.clone()).ok())
            .unwrap_or_default()
    }

    /// The classification (see the module's rule).
    pub fn classify(self) -> McpToolKind {
        let read_only = self.read_only_hint == Some(true) && self.destructive_hint != Some(true);
        McpToolKind {
            kind: if read_only {
                ToolKind::Other
            } else {
                ToolKind::Execute
            },
            read_only,
            destructive: !read_only && self.destructive_hint.unwrap_or(true),
            open_world: self.open_world_hint.unwrap_or(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn classify(annotations: serde_json::Value) -> McpToolKind {
        ToolHints::from_annotations(Some(&annotations)).classify()
    }

    #[test]
    fn read_only_hint_makes_a_read_only_tool() {
        assert_eq!(
            classify(json!({"readOnlyHint": true, "openWorldHint": false})),
            McpToolKind {
                kind: ToolKind::Other,
                read_only: true,
                destructive: false,
                open_world: false,
            }
        );
    }

    #[test]
    fn no_annotations_means_a_destructive_open_world_tool() {
        let kind = ToolHints::from_annotations(None).classify();
        assert_eq!(
            kind,
            McpToolKind {
                kind: ToolKind::Execute,
                read_only: false,
                destructive: true,
                open_world: true,
            }
        );
    }

    #[test]
    fn a_non_destructive_writer_is_still_mutating() {
        let kind = classify(json!({"readOnlyHint": false, "destructiveHint": false}));
        assert_eq!(
            (kind.kind, kind.read_only, kind.destructive),
            (ToolKind::Execute, false, false)
        );
    }

    #[test]
    fn contradictory_hints_fall_on_the_safe_side() {
        let kind = classify(json!({"readOnlyHint": true, "destructiveHint": true}));
        assert!(!kind.read_only);
        assert_eq!(kind.kind, ToolKind::Execute);
    }

    #[test]
    fn malformed_annotations_count_as_none() {
        assert_eq!(
            classify(json!({"readOnlyHint": "yes"})),
            ToolHints::default().classify()
        );
    }

    #[test]
    fn read_only_mode_refuses_mutating_tools_and_allows_read_only_ones() {
        use kigi_tools::CapabilityMode;
        assert!(CapabilityMode::ReadOnly.allows(classify(json!({"readOnlyHint": true})).kind));
        assert!(!CapabilityMode::ReadOnly.allows(classify(json!({})).kind));
        assert!(!CapabilityMode::ReadWrite.allows(classify(json!({})).kind));
        assert!(CapabilityMode::Execute.allows(classify(json!({})).kind));
    }
}
