//! The `kigi/tool` envelope: the canonical identity of a tool call, attached to every
//! tool-call event so front ends and scripts can group calls across harnesses.
//!
//! The rule: this is a published contract. Its JSON Schema is checked in at
//! `schemas/kigi-tool-meta.schema.json`, and a test fails when the type drifts from it.
//! Additive changes keep `version`; removals or changes of meaning bump it.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ToolKind, ToolNamespace};

/// The key the envelope sits under in a tool-call event's `_meta`.
pub const TOOL_META_KEY: &str = "kigi/tool";

/// The envelope's current version.
pub const TOOL_META_VERSION: u32 = 1;

/// The canonical tool-identity envelope, attached to a tool-call event `_meta` as one nested
/// object under `kigi/tool`.
///
/// - `label` is the cross-harness grouping key: equivalent tools share it (kigi `read_file` →
///   `"Read"`).
/// - `kind` is a finer discriminator, not guaranteed equal across harnesses; unknown values
///   read as `other`.
/// - `name` is the model-facing name, for diagnostics.
/// - `input` is a canonical projection, not a mirror: cross-harness keys only; bulky fields
///   (edit strings, file contents) are never projected. Omitted when no stable shape exists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "CanonicalToolMeta")]
pub struct CanonicalToolMeta {
    pub version: u32,
    pub name: String,
    pub kind: ToolKind,
    pub namespace: ToolNamespace,
    pub label: String,
    pub read_only: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The MCP server a tool of namespace `mcp` comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

impl JsonSchema for ToolKind {
    fn schema_name() -> Cow<'static, str> {
        "ToolKind".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Categorizes what a tool does at a high level. Open set: consumers must tolerate unknown values (they read as `other`).",
            "type": "string"
        })
    }
}

impl JsonSchema for ToolNamespace {
    fn schema_name() -> Cow<'static, str> {
        "ToolNamespace".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The toolset a tool belongs to. A closed set: a new toolset fails strict deserialization on purpose.",
            "type": "string",
            "enum": ["kigi", "kigi_concise", "kigi_hashline", "codex", "opencode", "mcp", "external"]
        })
    }
}

/// The envelope's JSON Schema (draft-07), pretty-printed with a trailing newline: the exact
/// text of the checked-in file.
pub fn tool_meta_schema() -> String {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<CanonicalToolMeta>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_schema_is_current() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../schemas/kigi-tool-meta.schema.json"
        );
        let generated = tool_meta_schema();
        if std::env::var_os("KIGI_BLESS_SCHEMAS").is_some() {
            std::fs::write(path, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "schemas/kigi-tool-meta.schema.json is stale: run `KIGI_BLESS_SCHEMAS=1 cargo test -p kigi-protocol` and commit it"
        );
    }

    #[test]
    fn envelope_serializes_as_the_seed_shows() {
        let meta = CanonicalToolMeta {
            version: TOOL_META_VERSION,
            name: "read_file".into(),
            kind: ToolKind::Read,
            namespace: ToolNamespace::Kigi,
            label: "Read".into(),
            read_only: true,
            input: Some(serde_json::json!({"path": "src/lib.rs"})),
            server: None,
        };
        assert_eq!(
            serde_json::to_value(&meta).unwrap(),
            serde_json::json!({"version": 1, "name": "read_file", "kind": "read",
                "namespace": "kigi", "label": "Read", "read_only": true,
                "input": {"path": "src/lib.rs"}})
        );
    }
}
