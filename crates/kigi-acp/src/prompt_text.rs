//! An ACP prompt (content blocks) as the text of one user turn.
//!
//! The rule: nothing the user attached is dropped silently. Text passes as is, a resource
//! link becomes a reference the model can open (`@path` for a file), an embedded text
//! resource is inlined with its URI, and what cannot reach the model (images, audio, binary
//! resources) is refused with a reason rather than left out.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};

use crate::error::AcpError;

/// The user turn `blocks` make.
pub fn prompt_text(blocks: &[ContentBlock]) -> Result<String, AcpError> {
    let mut parts = Vec::with_capacity(blocks.len());
    for block in blocks {
        parts.push(match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::ResourceLink(link) => reference(&link.uri),
            ContentBlock::Resource(resource) => match &resource.resource {
                EmbeddedResourceResource::TextResourceContents(contents) => format!(
                    "<context ref=\"{}\">\n{}\n</context>",
                    shown_uri(&contents.uri),
                    contents.text.trim_end_matches('\n')
                ),
                EmbeddedResourceResource::BlobResourceContents(contents) => {
                    return Err(AcpError::UnsupportedContent(format!(
                        "{} is binary; kigi passes text resources only",
                        contents.uri
                    )));
                }
                _ => {
                    return Err(AcpError::UnsupportedContent(
                        "an embedded resource of a kind kigi does not know".into(),
                    ));
                }
            },
            ContentBlock::Image(_) => {
                return Err(AcpError::UnsupportedContent(
                    "images are not supported yet (kigi advertises promptCapabilities.image = false)"
                        .into(),
                ));
            }
            ContentBlock::Audio(_) => {
                return Err(AcpError::UnsupportedContent(
                    "audio is not supported (kigi advertises promptCapabilities.audio = false)"
                        .into(),
                ));
            }
            _ => {
                return Err(AcpError::UnsupportedContent(
                    "a content block of a kind kigi does not know".into(),
                ));
            }
        });
    }
    Ok(parts.join("\n"))
}

/// `@/abs/path` for a file URI, the URI itself otherwise.
fn reference(uri: &str) -> String {
    format!("@{}", shown_uri(uri))
}

/// A `file://` URI as its path (percent escapes for spaces undone), other URIs as they are.
fn shown_uri(uri: &str) -> String {
    match uri.strip_prefix("file://") {
        Some(path) => path.replace("%20", " "),
        None => uri.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use agent_client_protocol::v1::schema::{
        EmbeddedResource, ImageContent, ResourceLink, TextContent, TextResourceContents,
    };

    #[test]
    fn text_links_and_embedded_text_make_one_turn_in_order() {
        let blocks = vec![
            ContentBlock::Text(TextContent::new("explain")),
            ContentBlock::ResourceLink(ResourceLink::new("lib.rs", "file:///repo/my%20src/lib.rs")),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                    "fn main() {}\n",
                    "file:///repo/main.rs",
                )),
            )),
        ];
        assert_eq!(
            prompt_text(&blocks).unwrap(),
            "explain\n@/repo/my src/lib.rs\n<context ref=\"/repo/main.rs\">\nfn main() {}\n</context>"
        );
    }

    #[test]
    fn an_image_is_refused_with_the_reason() {
        let blocks = vec![ContentBlock::Image(ImageContent::new("AAAA", "image/png"))];
        let error = prompt_text(&blocks).unwrap_err();
        assert!(
            error.to_string().contains("images are not supported"),
            "{error}"
        );
    }
}
