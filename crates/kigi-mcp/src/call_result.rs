//! `McpCallResult`: what an MCP tool call returned, read from the wire shape of
//! `CallToolResult` (content blocks, `structuredContent`, `isError`).
//!
//! The rule: nothing the server sent is lost on the way in: images and audio keep their bytes
//! (base64, as sent) and MIME type so a model that accepts images can be given them; the text
//! rendering for a model that does not names each one's type and size instead. `isError: true`
//! is a failed call, not a transport error.

use kigi_tools::ToolOutput;
use serde_json::Value;

/// One content block of a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpContent {
    Text(String),
    /// An image: `data` is base64, as sent.
    Image {
        mime_type: String,
        data: String,
    },
    /// Audio: `data` is base64, as sent.
    Audio {
        mime_type: String,
        data: String,
    },
    /// A resource embedded in the result: text, or a blob (base64).
    Resource {
        uri: String,
        mime_type: Option<String>,
        text: Option<String>,
        blob: Option<String>,
    },
    /// A link to a resource the client may read.
    ResourceLink {
        uri: String,
        name: String,
        description: Option<String>,
        mime_type: Option<String>,
    },
}

/// A finished tool call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpCallResult {
    pub content: Vec<McpContent>,
    /// `structuredContent`, when the tool declared an output schema.
    pub structured: Option<Value>,
    /// The tool ran and failed.
    pub is_error: bool,
}

impl McpCallResult {
    /// Reads a `CallToolResult` JSON object; a missing `content` is empty (as the spec allows).
    pub fn from_wire(result: &Value) -> Self {
        let content = result
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| blocks.iter().map(content_from_wire).collect())
            .unwrap_or_default();
        Self {
            content,
            structured: result
                .get("structuredContent")
                .filter(|v| !v.is_null())
                .cloned(),
            is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
        }
    }

    /// Every image (MIME type, base64 data), for a model that accepts images.
    pub fn images(&self) -> impl Iterator<Item = (&str, &str)> {
        self.content.iter().filter_map(|part| match part {
            McpContent::Image { mime_type, data } => Some((mime_type.as_str(), data.as_str())),
            _ => None,
        })
    }

    /// The result as text: text blocks as written, other blocks as one-line notes (type, size,
    /// URI) or their text, and `structuredContent` as JSON when no block carries text (servers
    /// usually repeat it as text).
    pub fn to_text(&self) -> String {
        let mut parts: Vec<String> = self.content.iter().map(content_text).collect();
        let has_text = self
            .content
            .iter()
            .any(|part| matches!(part, McpContent::Text(_)));
        if let Some(structured) = &self.structured
            && !has_text
        {
            parts.push(structured.to_string());
        }
        parts.join("\n")
    }

    /// The runtime's shape: the text rendering, failed when `isError`.
    pub fn into_tool_output(self) -> ToolOutput {
        let text = self.to_text();
        let mut output = if self.is_error {
            ToolOutput::error(text)
        } else {
            ToolOutput::ok(text)
        };
        output.images = self
            .content
            .iter()
            .filter_map(|part| match part {
                McpContent::Image { mime_type, data } => Some(kigi_tools::ToolImage {
                    media_type: mime_type.clone(),
                    data: data.clone(),
                }),
                _ => None,
            })
            .collect();
        output
    }
}

fn str_field(block: &Value, key: &str) -> Option<String> {
    block.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn content_from_wire(block: &Value) -> McpContent {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => McpContent::Text(str_field(block, "text").unwrap_or_default()),
        "image" | "audio" => {
            let mime_type = str_field(block, "mimeType").unwrap_or_default();
            let data = str_field(block, "data").unwrap_or_default();
            if kind == "image" {
                McpContent::Image { mime_type, data }
            } else {
                McpContent::Audio { mime_type, data }
            }
        }
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            McpContent::Resource {
                uri: str_field(resource, "uri").unwrap_or_default(),
                mime_type: str_field(resource, "mimeType"),
                text: str_field(resource, "text"),
                blob: str_field(resource, "blob"),
            }
        }
        "resource_link" => McpContent::ResourceLink {
            uri: str_field(block, "uri").unwrap_or_default(),
            name: str_field(block, "name").unwrap_or_default(),
            description: str_field(block, "description"),
            mime_type: str_field(block, "mimeType"),
        },
        other => McpContent::Text(format!("[unsupported MCP content type `{other}`]")),
    }
}

/// Bytes a base64 string decodes to, without decoding it.
pub fn base64_decoded_len(data: &str) -> usize {
    let data = data.trim_end();
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    (data.len() / 4 * 3 + (data.len() % 4).saturating_sub(1)).saturating_sub(padding)
}

fn content_text(part: &McpContent) -> String {
    match part {
        McpContent::Text(text) => text.clone(),
        McpContent::Image { mime_type, data } => {
            format!("[image: {mime_type}, {} bytes]", base64_decoded_len(data))
        }
        McpContent::Audio { mime_type, data } => format!(
            "[audio: {mime_type}, {} bytes; not sent to the model]",
            base64_decoded_len(data)
        ),
        McpContent::Resource {
            uri,
            mime_type,
            text,
            blob,
        } => {
            let mime = mime_type.as_deref().unwrap_or("unknown type");
            match (text, blob) {
                (Some(text), _) => format!("[resource {uri} ({mime})]\n{text}"),
                (None, Some(blob)) => format!(
                    "[resource {uri}: {mime}, {} bytes]",
                    base64_decoded_len(blob)
                ),
                (None, None) => format!("[resource {uri} ({mime})]"),
            }
        }
        McpContent::ResourceLink {
            uri,
            name,
            description,
            mime_type,
        } => {
            let mut line = format!("[resource link: {name} <{uri}>");
            if let Some(mime) = mime_type {
                line.push_str(&format!(" ({mime})"));
            }
            if let Some(description) = description {
                line.push_str(&format!(": {description}"));
            }
            line.push(']');
            line
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_content_type() {
        let result = McpCallResult::from_wire(&json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "demo://a", "mimeType": "text/plain", "text": "body"}},
            {"type": "resource", "resource": {"uri": "demo://b", "blob": "AAECAw=="}},
            {"type": "resource_link", "uri": "demo://c", "name": "c", "description": "a link"},
            {"type": "hologram"}
        ]}));
        assert!(!result.is_error);
        assert_eq!(
            result.content,
            [
                McpContent::Text("hi".into()),
                McpContent::Image {
                    mime_type: "image/png".into(),
                    data: "iVBORw==".into()
                },
                McpContent::Audio {
                    mime_type: "audio/wav".into(),
                    data: "AAAA".into()
                },
                McpContent::Resource {
                    uri: "demo://a".into(),
                    mime_type: Some("text/plain".into()),
                    text: Some("body".into()),
                    blob: None,
                },
                McpContent::Resource {
                    uri: "demo://b".into(),
                    mime_type: None,
                    text: None,
                    blob: Some("AAECAw==".into()),
                },
                McpContent::ResourceLink {
                    uri: "demo://c".into(),
                    name: "c".into(),
                    description: Some("a link".into()),
                    mime_type: None,
                },
                McpContent::Text("[unsupported MCP content type `hologram`]".into()),
            ]
        );
        assert_eq!(
            result.to_text(),
            "hi\n[image: image/png, 4 bytes]\n\
             [audio: audio/wav, 3 bytes; not sent to the model]\n\
             [resource demo://a (text/plain)]\nbody\n\
             [resource demo://b: unknown type, 4 bytes]\n\
             [resource link: c <demo://c>: a link]\n\
             [unsupported MCP content type `hologram`]"
        );
        assert_eq!(
            result.images().collect::<Vec<_>>(),
            [("image/png", "iVBORw==")]
        );
    }

    #[test]
    fn is_error_makes_a_failed_output() {
        let result = McpCallResult::from_wire(&json!({
            "content": [{"type": "text", "text": "no such file"}], "isError": true
        }));
        assert_eq!(result.into_tool_output(), ToolOutput::error("no such file"));
    }

    #[test]
    fn structured_content_is_rendered_only_when_no_text_repeats_it() {
        let only = McpCallResult::from_wire(&json!({"structuredContent": {"t": 21}}));
        assert_eq!(only.content, []);
        assert_eq!(only.to_text(), r#"{"t":21}"#);
        let both = McpCallResult::from_wire(&json!({
            "content": [{"type": "text", "text": "{\"t\":21}"}], "structuredContent": {"t": 21}
        }));
        assert_eq!(both.to_text(), r#"{"t":21}"#);
        assert_eq!(both.structured, Some(json!({"t": 21})));
    }

    #[test]
    fn base64_lengths_account_for_padding() {
        assert_eq!(base64_decoded_len(""), 0);
        assert_eq!(base64_decoded_len("AA=="), 1);
        assert_eq!(base64_decoded_len("AAA="), 2);
        assert_eq!(base64_decoded_len("AAAA"), 3);
        assert_eq!(base64_decoded_len("AAAAAA"), 4, "unpadded");
    }
}
