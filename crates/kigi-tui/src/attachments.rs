//! `@path` in a sent prompt attaches that file: the host reads it (under the Read rules and
//! a size limit) and quotes it for the model, while the prompt's text stays as typed.
//!
//! The rule: only what the person typed counts (a folded paste is not searched), and only a
//! mention that names an existing file attaches; anything else (`@someone`, a folder, a file
//! that is gone) stays plain text. Finding mentions is pure; whether a file exists is asked of
//! the caller.

use kigi_protocol::{AttachedText, Attachment};

/// Characters that end a sentence after a mention (`see @a.rs, then`) rather than belong to
/// the path; tried without them when the path as written names no file.
const TRAILING: &[char] = &['.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\''];

/// The paths of the `@` mentions in `text`, as written, in order, each once. A mention starts
/// a word (`me@host` is not one).
pub fn mentions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        if !path.is_empty() && !out.iter().any(|p| p == path) {
            out.push(path.to_owned());
        }
    }
    out
}

/// The files `mentions` name, as attachments: each mention as written when `is_file` says it
/// is one, else without its trailing punctuation when that is one; the rest are dropped.
pub fn attached_files(mentions: &[String], is_file: impl Fn(&str) -> bool) -> Vec<Attachment> {
    let mut paths: Vec<&str> = Vec::new();
    for mention in mentions {
        let trimmed = mention.trim_end_matches(TRAILING);
        let found = [mention.as_str(), trimmed]
            .into_iter()
            .find(|p| !p.is_empty() && is_file(p));
        if let Some(path) = found
            && !paths.contains(&path)
        {
            paths.push(path);
        }
    }
    paths
        .into_iter()
        .map(|path| Attachment::File {
            path: path.to_owned(),
        })
        .collect()
}

/// `src/main.rs (12 lines)`: what the user's block says of one attached file.
pub fn describe_file(file: &AttachedText) -> String {
    let lines = file.text.lines().count();
    let unit = if lines == 1 { "line" } else { "lines" };
    format!("{} ({lines} {unit})", file.source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[&str]) -> impl Fn(&str) -> bool {
        let list: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
        move |p| list.iter().any(|f| f == p)
    }

    fn paths(attachments: &[Attachment]) -> Vec<&str> {
        attachments
            .iter()
            .map(|a| match a {
                Attachment::File { path } => path.as_str(),
                other => panic!("not a file: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn mentions_start_a_word_and_are_listed_once() {
        assert_eq!(
            mentions("read @src/a.rs and @b.md,\nthen @src/a.rs again; mail me@host.org @"),
            ["src/a.rs", "b.md,"]
        );
    }

    #[test]
    fn only_mentions_naming_existing_files_attach_trailing_punctuation_aside() {
        let typed = "compare @src/a.rs, @b.md. with @someone and @docs/ and @gone.rs";
        let attached = attached_files(&mentions(typed), files(&["src/a.rs", "b.md"]));
        assert_eq!(paths(&attached), ["src/a.rs", "b.md"]);
        // A file whose name ends in punctuation is taken as written.
        let attached = attached_files(&mentions("see @notes."), files(&["notes.", "notes"]));
        assert_eq!(paths(&attached), ["notes."]);
        // The same file mentioned twice, once with a comma, attaches once.
        let attached = attached_files(&mentions("@a.rs, and @a.rs"), files(&["a.rs"]));
        assert_eq!(paths(&attached), ["a.rs"]);
        assert!(attached_files(&mentions("no mentions here"), files(&["a.rs"])).is_empty());
    }

    #[test]
    fn an_attached_file_is_described_by_its_path_and_lines() {
        let one = AttachedText {
            source: "src/a.rs".into(),
            text: "fn a() {}\n".into(),
        };
        assert_eq!(describe_file(&one), "src/a.rs (1 line)");
        let three = AttachedText {
            source: "b.md".into(),
            text: "a\nb\nc".into(),
        };
        assert_eq!(describe_file(&three), "b.md (3 lines)");
    }
}
