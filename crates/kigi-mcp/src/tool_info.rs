//! `McpToolInfo`, `McpResource`, `McpPrompt`: what a server lists, read from the wire shapes of
//! `tools/list`, `resources/list` and `prompts/list`.
//!
//! The rule: these are plain data read from JSON, independent of rmcp's types, so listings can
//! be shown, filtered and tested without a connection.

use serde_json::Value;

use crate::tool_hints::{McpToolKind, ToolHints};
use crate::tool_schema::provider_schema;

/// One tool a server offers.
#[derive(Debug, Clone, PartialEq)]
pub struct McpToolInfo {
    pub server: String,
    /// The server's name for it (what `tools/call` takes).
    pub tool: String,
    pub title: Option<String>,
    pub description: String,
    /// `inputSchema` as written.
    pub input_schema: Value,
    pub hints: ToolHints,
    pub kind: McpToolKind,
}

impl McpToolInfo {
    /// Reads one entry of `tools/list`; `None` without a name.
    pub fn from_wire(server: &str, tool: &Value) -> Option<Self> {
        let name = tool.get("name")?.as_str()?;
        let hints = ToolHints::from_annotations(tool.get("annotations"));
        let text = |key: &str| tool.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            server: server.to_owned(),
            tool: name.to_owned(),
            title: text("title"),
            description: text("description").unwrap_or_default(),
            input_schema: tool.get("inputSchema").cloned().unwrap_or(Value::Null),
            hints,
            kind: hints.classify(),
        })
    }

    /// The schema the model is shown ([`provider_schema`]).
    pub fn parameters(&self) -> Value {
        provider_schema(&self.input_schema)
    }
}

/// One resource a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpResource {
    pub uri: String,
    pub name: String,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

impl McpResource {
    pub fn from_wire(resource: &Value) -> Option<Self> {
        let text = |key: &str| resource.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            uri: text("uri")?,
            name: text("name").unwrap_or_default(),
            description: text("description"),
            mime_type: text("mimeType"),
        })
    }
}

/// One prompt a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPrompt {
    pub name: String,
    pub description: Option<String>,
    /// Argument names, required ones first as listed.
    pub arguments: Vec<String>,
}

impl McpPrompt {
    pub fn from_wire(prompt: &Value) -> Option<Self> {
        Some(Self {
            name: prompt.get("name")?.as_str()?.to_owned(),
            description: prompt
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            arguments: prompt
                .get("arguments")
                .and_then(Value::as_array)
                .map(|args| {
                    args.iter()
                        .filter_map(|a| a.get("name")?.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kigi_protocol::ToolKind;
    use serde_json::json;

    #[test]
    fn reads_a_listed_tool_with_its_kind() {
        let info = McpToolInfo::from_wire(
            "everything",
            &json!({"name": "echo", "description": "Echoes", "inputSchema": {"type": "object",
                "properties": {"message": {"type": "string"}}},
                "annotations": {"readOnlyHint": true}}),
        )
        .unwrap();
        assert_eq!(info.tool, "echo");
        assert_eq!(info.description, "Echoes");
        assert!(info.kind.read_only);
        assert_eq!(info.kind.kind, ToolKind::Other);
        assert_eq!(info.parameters()["properties"]["message"]["type"], "string");
        assert_eq!(
            McpToolInfo::from_wire("s", &json!({"description": "x"})),
            None
        );
    }

    #[test]
    fn reads_resources_and_prompts() {
        assert_eq!(
            McpResource::from_wire(
                &json!({"uri": "demo://a", "name": "a", "mimeType": "text/plain"})
            ),
            Some(McpResource {
                uri: "demo://a".into(),
                name: "a".into(),
                description: None,
                mime_type: Some("text/plain".into()),
            })
        );
        assert_eq!(
            McpPrompt::from_wire(
                &json!({"name": "p", "arguments": [{"name": "x"}, {"name": "y"}]})
            ),
            Some(McpPrompt {
                name: "p".into(),
                description: None,
                arguments: vec!["x".into(), "y".into()],
            })
        );
    }
}
