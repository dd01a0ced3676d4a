//! What a person sends with a user turn (`Attachment`s): files of the workspace named by
//! path, text a front end already holds, images. The host reads and judges them when the
//! turn is submitted, so a bad one is an error naming it while the person still has the
//! prompt, and the model reads them quoted after the prompt.
//!
//! The rules: a path is resolved (symlinks followed) before it is judged, by kigi's own
//! secret list (credentials, `.env` files, kigi's trust list: never read for a model, as
//! `read_file` refuses them) and by the Read deny rules, so no such file is attached under
//! another name; only regular files are read (a FIFO would block), each with a size limit;
//! nothing here guesses a file is text when it is not.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kigi_agent::permissions::{CallInput, CallSubject, CompiledRules, RuleVerdict};
use kigi_protocol::{AttachedText, Attachment, ContentPart, ImagePart, ToolKind};
use kigi_tools::secret_paths::SecretPaths;

/// The most of one file or text a turn quotes.
pub const FILE_LIMIT: usize = 256 * 1024;
/// The most all quoted files and texts of one turn may add up to.
pub const TOTAL_TEXT_LIMIT: usize = 1024 * 1024;
/// The most one image may weigh, decoded.
pub const IMAGE_LIMIT: usize = 5 * 1024 * 1024;
/// The most all images of one turn may weigh, decoded (they are resent with every request).
pub const TOTAL_IMAGE_LIMIT: usize = 20 * 1024 * 1024;
/// Image types every provider kigi speaks accepts.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// A turn's attachments, read and judged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedAttachments {
    pub files: Vec<AttachedText>,
    pub images: Vec<ImagePart>,
}

impl ResolvedAttachments {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.images.is_empty()
    }

    /// What a model that reads no images gets instead of them: a note each.
    pub fn without_images(mut self) -> Self {
        for image in std::mem::take(&mut self.images) {
            self.files.push(AttachedText {
                source: "image".to_owned(),
                text: format!(
                    "[an image ({}, {} bytes) was attached, but this model does not read images]",
                    image.media_type,
                    decoded_len(&image.data)
                ),
            });
        }
        self
    }
}

/// Why an attachment was refused.
#[derive(Debug, thiserror::Error)]
pub enum AttachmentError {
    #[error("attachment {path}: {source}")]
    Unreadable {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("attachment {path}: not a regular file")]
    NotAFile { path: String },
    #[error("attachment {path}: it is {what}; kigi does not read it for the model")]
    Secret { path: String, what: &'static str },
    #[error("attachment {path}: refused by the permission rule `{rule}` ({origin})")]
    Denied {
        path: String,
        rule: String,
        origin: String,
    },
    #[error("attachment {source_name}: {size} bytes is over the {limit}-byte limit")]
    TooLarge {
        source_name: String,
        size: usize,
        limit: usize,
    },
    #[error("attachment {path}: not a text file (attach images as images)")]
    NotText { path: String },
    #[error("attachments add up to more than {limit} bytes of text")]
    TooMuchText { limit: usize },
    #[error("attached images add up to more than {limit} bytes")]
    TooMuchImage { limit: usize },
    #[error(
        "attached image: type `{media_type}` is not one of image/png, image/jpeg, image/gif, image/webp"
    )]
    ImageType { media_type: String },
    #[error("attached image ({media_type}): its data is not base64")]
    ImageData { media_type: String },
}

/// Reads and judges attachments for one session.
#[derive(Debug, Clone)]
pub struct AttachmentReader {
    /// Relative paths are taken from here (the session's folder).
    pub cwd: PathBuf,
    /// The session's rules; the Read rules judge attached files.
    pub rules: Arc<CompiledRules>,
    /// What kigi never reads for a model.
    pub secrets: SecretPaths,
}

impl AttachmentReader {
    /// Every attachment read and judged, in order, or the first that cannot be.
    pub fn resolve(
        &self,
        attachments: &[Attachment],
    ) -> Result<ResolvedAttachments, AttachmentError> {
        let mut resolved = ResolvedAttachments::default();
        let mut total = 0usize;
        let mut images = 0usize;
        for attachment in attachments {
            match attachment {
                Attachment::File { path } => {
                    let file = self.read_file(path)?;
                    total += file.text.len();
                    resolved.files.push(file);
                }
                Attachment::Text { source, text } => {
                    if text.len() > FILE_LIMIT {
                        return Err(AttachmentError::TooLarge {
                            source_name: source.clone(),
                            size: text.len(),
                            limit: FILE_LIMIT,
                        });
                    }
                    total += text.len();
                    resolved.files.push(AttachedText {
                        source: source.clone(),
                        text: text.clone(),
                    });
                }
                Attachment::Image { media_type, data } => {
                    let image = check_image(media_type, data)?;
                    images += decoded_len(&image.data);
                    resolved.images.push(image);
                }
            }
            if images > TOTAL_IMAGE_LIMIT {
                return Err(AttachmentError::TooMuchImage {
                    limit: TOTAL_IMAGE_LIMIT,
                });
            }
            if total > TOTAL_TEXT_LIMIT {
                return Err(AttachmentError::TooMuchText {
                    limit: TOTAL_TEXT_LIMIT,
                });
            }
        }
        Ok(resolved)
    }

    fn read_file(&self, path: &str) -> Result<AttachedText, AttachmentError> {
        let unreadable = |source| AttachmentError::Unreadable {
            path: path.to_owned(),
            source,
        };
        let wanted = expand_home(path).unwrap_or_else(|| self.cwd.join(path));
        let resolved = wanted.canonicalize().map_err(unreadable)?;
        // Only a regular file: opening a FIFO would block the front end that submitted.
        if !std::fs::metadata(&resolved).map_err(unreadable)?.is_file() {
            return Err(AttachmentError::NotAFile {
                path: path.to_owned(),
            });
        }
        if let Some(what) = self.secrets.deny_read_reason(&resolved) {
            return Err(AttachmentError::Secret {
                path: path.to_owned(),
                what,
            });
        }
        let subject = CallSubject {
            canonical: "read_file",
            kind: ToolKind::Read,
            input: CallInput::Path(resolved.clone()),
        };
        if let RuleVerdict::Deny(rule) = self.rules.evaluate(&subject) {
            return Err(AttachmentError::Denied {
                path: path.to_owned(),
                rule: rule.rule.text.clone(),
                origin: rule.source.to_string(),
            });
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&resolved)
            .and_then(|file| file.take(FILE_LIMIT as u64 + 1).read_to_end(&mut bytes))
            .map_err(unreadable)?;
        if bytes.len() > FILE_LIMIT {
            let size = std::fs::metadata(&resolved).map_or(bytes.len(), |m| m.len() as usize);
            return Err(AttachmentError::TooLarge {
                source_name: path.to_owned(),
                size,
                limit: FILE_LIMIT,
            });
        }
        let text = String::from_utf8(bytes).map_err(|_| AttachmentError::NotText {
            path: path.to_owned(),
        })?;
        Ok(AttachedText {
            source: shown_path(&resolved, &self.cwd),
            text,
        })
    }
}

/// The message parts a model reads for attachments: each text quoted with its source, then
/// the images.
pub fn attachment_parts(files: &[AttachedText], images: &[ImagePart]) -> Vec<ContentPart> {
    let mut parts: Vec<ContentPart> = files
        .iter()
        .map(|file| ContentPart::Text {
            text: format!(
                "<attachment source=\"{}\">\n{}\n</attachment>",
                file.source.replace('"', "&quot;"),
                file.text
            ),
        })
        .collect();
    parts.extend(images.iter().map(|image| ContentPart::Image {
        media_type: image.media_type.clone(),
        data: image.data.clone(),
    }));
    parts
}

fn check_image(media_type: &str, data: &str) -> Result<ImagePart, AttachmentError> {
    if !IMAGE_TYPES.contains(&media_type) {
        return Err(AttachmentError::ImageType {
            media_type: media_type.to_owned(),
        });
    }
    let data = data.trim();
    let is_base64 = data.len().is_multiple_of(4)
        && data
            .trim_end_matches('=')
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
    if data.is_empty() || !is_base64 {
        return Err(AttachmentError::ImageData {
            media_type: media_type.to_owned(),
        });
    }
    let size = decoded_len(data);
    if size > IMAGE_LIMIT {
        return Err(AttachmentError::TooLarge {
            source_name: format!("image ({media_type})"),
            size,
            limit: IMAGE_LIMIT,
        });
    }
    Ok(ImagePart {
        media_type: media_type.to_owned(),
        data: data.to_owned(),
    })
}

/// Bytes that base64 `data` decodes to.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// `~/x` → `$HOME/x`.
fn expand_home(path: &str) -> Option<PathBuf> {
    let rest = path.strip_prefix("~/")?;
    Some(PathBuf::from(std::env::var_os("HOME")?).join(rest))
}

/// Inside the session's folder, relative to it; elsewhere, absolute.
fn shown_path(resolved: &Path, cwd: &Path) -> String {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    resolved
        .strip_prefix(&cwd)
        .unwrap_or(resolved)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use kigi_agent::permissions::{PathAnchors, PermissionRules, RuleEffect, RuleSource};

    use super::*;

    fn reader(dir: &Path, deny: &[&str]) -> AttachmentReader {
        let mut rules = PermissionRules::default();
        let deny: Vec<String> = deny.iter().map(|r| (*r).to_owned()).collect();
        rules
            .add(
                RuleEffect::Deny,
                &deny,
                &RuleSource::Flag("--disallowedTools"),
                "deny",
            )
            .unwrap();
        let anchors = PathAnchors {
            home: None,
            project_root: dir.to_path_buf(),
            cwd: dir.to_path_buf(),
        };
        AttachmentReader {
            cwd: dir.to_path_buf(),
            rules: Arc::new(rules.compile(&anchors)),
            secrets: SecretPaths {
                home: Some(dir.join("home")),
                kigi_home: Some(dir.join("kigi-home")),
            },
        }
    }

    fn file(path: &str) -> Attachment {
        Attachment::File { path: path.into() }
    }

    #[test]
    fn a_file_is_quoted_with_its_path_relative_to_the_session() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn a() {}\n").unwrap();
        let resolved = reader(dir.path(), &[])
            .resolve(&[file("src/lib.rs")])
            .unwrap();
        assert_eq!(
            resolved.files,
            vec![AttachedText {
                source: "src/lib.rs".into(),
                text: "pub fn a() {}\n".into()
            }]
        );
        let parts = attachment_parts(&resolved.files, &resolved.images);
        assert!(
            matches!(&parts[..], [ContentPart::Text { text }] if text.starts_with("<attachment source=\"src/lib.rs\">\npub fn a() {}"))
        );
    }

    #[test]
    fn a_denied_file_is_refused_also_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret.txt"), "KEY=secret\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), dir.path().join("notes.txt"))
            .unwrap();
        let reader = reader(dir.path(), &["Read(secret.txt)"]);
        for name in ["secret.txt", "notes.txt"] {
            let error = reader.resolve(&[file(name)]).unwrap_err();
            assert!(
                matches!(&error, AttachmentError::Denied { path, rule, .. } if path == name && rule == "Read(secret.txt)"),
                "{name}: {error}"
            );
        }
    }

    #[test]
    fn credentials_and_env_files_are_never_attached_even_without_a_rule() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "KEY=secret\n").unwrap();
        std::fs::create_dir_all(dir.path().join("home/.ssh")).unwrap();
        std::fs::write(dir.path().join("home/.ssh/id_rsa"), "PRIVATE").unwrap();
        std::os::unix::fs::symlink(dir.path().join("home/.ssh/id_rsa"), dir.path().join("key"))
            .unwrap();
        let reader = reader(dir.path(), &[]);
        for name in [".env", "home/.ssh/id_rsa", "key"] {
            let error = reader.resolve(&[file(name)]).unwrap_err();
            assert!(
                matches!(&error, AttachmentError::Secret { path, .. } if path == name),
                "{name}: {error}"
            );
        }
    }

    #[test]
    fn missing_folders_binary_and_oversized_files_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("blob"), [0xff, 0xfe, 0x00]).unwrap();
        std::fs::write(dir.path().join("big"), vec![b'a'; FILE_LIMIT + 1]).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let reader = reader(dir.path(), &[]);
        let message = |path: &str| reader.resolve(&[file(path)]).unwrap_err().to_string();
        assert!(message("nope.rs").starts_with("attachment nope.rs: "));
        assert_eq!(message("sub"), "attachment sub: not a regular file");
        assert!(message("blob").contains("blob: not a text file"));
        assert!(message("big").contains(&format!("{} bytes", FILE_LIMIT + 1)));
    }

    #[test]
    fn texts_add_up_to_a_limit() {
        let dir = tempfile::tempdir().unwrap();
        let text = |n: usize| Attachment::Text {
            source: format!("buffer-{n}"),
            text: "x".repeat(FILE_LIMIT),
        };
        let reader = reader(dir.path(), &[]);
        assert!(
            reader
                .resolve(&(0..4).map(text).collect::<Vec<_>>())
                .is_ok()
        );
        assert!(matches!(
            reader.resolve(&(0..5).map(text).collect::<Vec<_>>()),
            Err(AttachmentError::TooMuchText { .. })
        ));
    }

    #[test]
    fn images_are_checked_and_become_notes_for_a_model_without_eyes() {
        let dir = tempfile::tempdir().unwrap();
        let reader = reader(dir.path(), &[]);
        let image = |media_type: &str, data: &str| Attachment::Image {
            media_type: media_type.into(),
            data: data.into(),
        };
        let resolved = reader
            .resolve(&[image("image/png", "iVBORw0KGgo=")])
            .unwrap();
        assert_eq!(resolved.images.len(), 1);
        let notes = resolved.without_images();
        assert!(notes.images.is_empty());
        assert!(notes.files[0].text.contains("image/png, 8 bytes"));
        assert!(matches!(
            reader.resolve(&[image("image/tiff", "AAAA")]),
            Err(AttachmentError::ImageType { .. })
        ));
        assert!(matches!(
            reader.resolve(&[image("image/png", "not base64!")]),
            Err(AttachmentError::ImageData { .. })
        ));
        let four_mib = "A".repeat(4 * 1024 * 1024 / 3 * 4);
        let many: Vec<Attachment> = (0..6).map(|_| image("image/png", &four_mib)).collect();
        assert!(matches!(
            reader.resolve(&many),
            Err(AttachmentError::TooMuchImage { .. })
        ));
    }
}
