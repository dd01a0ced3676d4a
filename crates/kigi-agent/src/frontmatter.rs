//! Splitting an agent file into its YAML frontmatter and its Markdown body.
//!
//! Rules: a UTF-8 BOM is dropped and CRLF line endings read as LF; leading blank lines are
//! allowed before the opening `---`; the frontmatter ends at the FIRST closing `---` line, so
//! later `---` lines (Markdown rules) belong to the body. The body is kept byte-for-byte.

/// A file split at its fences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitDocument {
    /// The YAML between the fences (LF line endings).
    pub yaml: String,
    /// 1-based line number, in the file, of the first YAML line (for error messages).
    pub yaml_first_line: usize,
    /// Everything after the closing fence line, untouched (but for CRLF → LF).
    pub body: String,
}

/// Why a file has no usable frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceError {
    /// The file does not start with a `---` line: it has no frontmatter at all.
    MissingOpening,
    /// There is an opening `---` but no closing one.
    MissingClosing,
}

impl FenceError {
    pub fn message(self) -> &'static str {
        match self {
            Self::MissingOpening => {
                "no frontmatter: an agent file starts with a `---` line, then YAML, then `---`"
            }
            Self::MissingClosing => {
                "frontmatter is not closed: no `---` line after the opening one"
            }
        }
    }
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Splits `text` into frontmatter and body.
pub fn split(text: &str) -> Result<SplitDocument, FenceError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = if text.contains('\r') {
        text.replace("\r\n", "\n")
    } else {
        text.to_owned()
    };

    let mut offset = 0;
    let mut line_no = 0;
    let mut opened_at = None;
    for line in text.split_inclusive('\n') {
        line_no += 1;
        let content = line.strip_suffix('\n').unwrap_or(line);
        offset += line.len();
        if opened_at.is_none() {
            if content.trim().is_empty() {
                continue;
            }
            if !is_fence(content) {
                return Err(FenceError::MissingOpening);
            }
            opened_at = Some((offset, line_no));
            continue;
        }
        if is_fence(content) {
            let (yaml_start, open_line) = opened_at.unwrap_or((0, 0));
            let yaml_end = offset - line.len();
            return Ok(SplitDocument {
                yaml: text[yaml_start..yaml_end].to_owned(),
                yaml_first_line: open_line + 1,
                body: text[offset..].to_owned(),
            });
        }
    }
    Err(match opened_at {
        None => FenceError::MissingOpening,
        Some(_) => FenceError::MissingClosing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_yaml_and_body() {
        let doc = split("---\nname: a\n---\nHello\n").unwrap();
        assert_eq!(doc.yaml, "name: a\n");
        assert_eq!(doc.yaml_first_line, 2);
        assert_eq!(doc.body, "Hello\n");
    }

    #[test]
    fn tolerates_crlf_and_bom() {
        let doc = split("\u{feff}---\r\nname: a\r\n---\r\nbody\r\nmore\r\n").unwrap();
        assert_eq!(doc.yaml, "name: a\n");
        assert_eq!(doc.body, "body\nmore\n");
    }

    #[test]
    fn later_fences_belong_to_the_body() {
        let doc = split("---\nname: a\n---\nintro\n---\nrule above\n").unwrap();
        assert_eq!(doc.body, "intro\n---\nrule above\n");
    }

    #[test]
    fn closing_fence_without_final_newline_is_fine() {
        let doc = split("---\nname: a\n---").unwrap();
        assert_eq!(doc.yaml, "name: a\n");
        assert_eq!(doc.body, "");
    }

    #[test]
    fn reports_missing_fences() {
        assert_eq!(split("# Just markdown\n"), Err(FenceError::MissingOpening));
        assert_eq!(split(""), Err(FenceError::MissingOpening));
        assert_eq!(split("---\nname: a\n"), Err(FenceError::MissingClosing));
    }

    #[test]
    fn leading_blank_lines_are_allowed() {
        let doc = split("\n\n---\nname: a\n---\nb").unwrap();
        assert_eq!(doc.yaml_first_line, 4);
        assert_eq!(doc.body, "b");
    }
}
