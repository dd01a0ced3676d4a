//! An ACP prompt (content blocks) as one user turn: the text the person typed and what they
//! attached, for the host to read, judge and quote.
//!
//! The rule: nothing the user attached is dropped silently. A `file://` resource link is a
//! file the host reads (under the session's Read rules), an embedded text resource is text
//! the editor already holds (an unsaved buffer), an image (or an image blob) is an image;
//! what cannot reach the model (audio, other binary resources) is refused with a reason.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};
use kigi_protocol::Attachment;

use crate::error::AcpError;

/// One user turn, as the host takes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptInput {
    pub text: String,
    pub attachments: Vec<Attachment>,
}

/// The user turn `blocks` make: text blocks joined by newlines (a link that is not a file
/// stays in the text, as its URI), everything else attached in order.
pub fn prompt_input(blocks: &[ContentBlock]) -> Result<PromptInput, AcpError> {
    let mut text = Vec::with_capacity(blocks.len());
    let mut attachments = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(block) => text.push(block.text.clone()),
            ContentBlock::ResourceLink(link) => match file_uri_path(&link.uri) {
                Some(path) => attachments.push(Attachment::File { path }),
                None => text.push(link.uri.clone()),
            },
            ContentBlock::Resource(resource) => {
                attachments.push(embedded(&resource.resource)?);
            }
            ContentBlock::Image(image) => {
                if image.data.is_empty() {
                    return Err(AcpError::UnsupportedContent(format!(
                        "the image {} has no data; kigi takes images inline (base64), not by URI",
                        image.uri.as_deref().unwrap_or("(no uri)")
                    )));
                }
                attachments.push(Attachment::Image {
                    media_type: image.mime_type.clone(),
                    data: image.data.clone(),
                });
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
        }
    }
    Ok(PromptInput {
        text: text.join("\n"),
        attachments,
    })
}

/// An embedded resource: its text, or its blob when that is an image.
fn embedded(resource: &EmbeddedResourceResource) -> Result<Attachment, AcpError> {
    match resource {
        EmbeddedResourceResource::TextResourceContents(contents) => Ok(Attachment::Text {
            source: file_uri_path(&contents.uri).unwrap_or_else(|| contents.uri.clone()),
            text: contents.text.clone(),
        }),
        EmbeddedResourceResource::BlobResourceContents(contents) => {
            match contents.mime_type.as_deref() {
                Some(media_type) if media_type.starts_with("image/") => Ok(Attachment::Image {
                    media_type: media_type.to_owned(),
                    data: contents.blob.clone(),
                }),
                other => Err(AcpError::UnsupportedContent(format!(
                    "{} is binary ({}); kigi takes text resources and images",
                    contents.uri,
                    other.unwrap_or("no mimeType")
                ))),
            }
        }
        _ => Err(AcpError::UnsupportedContent(
            "an embedded resource of a kind kigi does not know".into(),
        )),
    }
}

/// The path of a `file://` URI (`file:///a%20b`, `file://localhost/a`), percent escapes
/// undone; `None` for any other URI, or one whose escapes do not make UTF-8.
pub fn file_uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    percent_decoded(path)
}

fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use agent_client_protocol::v1::schema::{
        AudioContent, BlobResourceContents, EmbeddedResource, ImageContent, ResourceLink,
        TextContent, TextResourceContents,
    };

    #[test]
    fn text_links_embedded_text_and_images_make_one_turn_in_order() {
        let blocks = vec![
            ContentBlock::Text(TextContent::new("explain")),
            ContentBlock::ResourceLink(ResourceLink::new("lib.rs", "file:///repo/my%20src/lib.rs")),
            ContentBlock::ResourceLink(ResourceLink::new("docs", "https://example.com/docs")),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                    "fn main() {}\n",
                    "file:///repo/main.rs",
                )),
            )),
            ContentBlock::Image(ImageContent::new("AAAA", "image/png")),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::BlobResourceContents(
                    BlobResourceContents::new("BBBB", "file:///repo/shot.jpg")
                        .mime_type("image/jpeg"),
                ),
            )),
        ];
        assert_eq!(
            prompt_input(&blocks).unwrap(),
            PromptInput {
                text: "explain\nhttps://example.com/docs".into(),
                attachments: vec![
                    Attachment::File {
                        path: "/repo/my src/lib.rs".into()
                    },
                    Attachment::Text {
                        source: "/repo/main.rs".into(),
                        text: "fn main() {}\n".into()
                    },
                    Attachment::Image {
                        media_type: "image/png".into(),
                        data: "AAAA".into()
                    },
                    Attachment::Image {
                        media_type: "image/jpeg".into(),
                        data: "BBBB".into()
                    },
                ],
            }
        );
    }

    #[test]
    fn audio_and_a_binary_that_is_no_image_are_refused_with_the_reason() {
        let audio = prompt_input(&[ContentBlock::Audio(AudioContent::new("AAAA", "audio/wav"))])
            .unwrap_err();
        assert!(
            audio.to_string().contains("audio is not supported"),
            "{audio}"
        );
        let blob = prompt_input(&[ContentBlock::Resource(EmbeddedResource::new(
            EmbeddedResourceResource::BlobResourceContents(
                BlobResourceContents::new("AAAA", "file:///repo/a.bin")
                    .mime_type("application/octet-stream"),
            ),
        ))])
        .unwrap_err();
        assert_eq!(
            blob.to_string(),
            "prompt content: file:///repo/a.bin is binary (application/octet-stream); kigi takes text resources and images"
        );
    }

    #[test]
    fn file_uris_decode_and_other_uris_are_not_files() {
        assert_eq!(
            file_uri_path("file://localhost/a/%C3%A9t%C3%A9.md").as_deref(),
            Some("/a/été.md")
        );
        assert_eq!(file_uri_path("file:///a/b#L3").as_deref(), Some("/a/b"));
        assert_eq!(file_uri_path("https://x/a"), None);
        assert_eq!(file_uri_path("file:///a%zz"), None);
        assert_eq!(file_uri_path("file://host/a"), None);
    }
}
