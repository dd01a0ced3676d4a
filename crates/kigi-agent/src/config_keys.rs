//! Where each key of a TOML document is: its dotted path, its 1-based line, and the byte span
//! of its value, read from the parser's spans. Used to put a line on unknown keys, on values'
//! origins and on type errors.
//!
//! The rule: a path is a list of keys, never a dotted string, so keys that contain dots (model
//! aliases such as `gpt-4.1`) stay one key.

use std::ops::Range;

use toml::de::{DeTable, DeValue};

/// One key of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
struct KeyEntry {
    path: Vec<String>,
    line: usize,
    value: Range<usize>,
}

/// Every key of a document (tables included, array elements not), in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyIndex {
    entries: Vec<KeyEntry>,
}

/// 1-based line numbers of byte offsets in one text.
#[derive(Debug, Clone)]
pub(crate) struct LineMap {
    starts: Vec<usize>,
}

impl LineMap {
    pub(crate) fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Self { starts }
    }

    /// The line holding byte `offset`.
    pub(crate) fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset).max(1)
    }
}

impl KeyIndex {
    pub(crate) fn build(table: &DeTable<'_>, lines: &LineMap) -> Self {
        let mut index = Self::default();
        index.add_table(table, &mut Vec::new(), lines);
        index
    }

    fn add_table(&mut self, table: &DeTable<'_>, prefix: &mut Vec<String>, lines: &LineMap) {
        for (key, value) in table.iter() {
            prefix.push(key.get_ref().to_string());
            self.entries.push(KeyEntry {
                path: prefix.clone(),
                line: lines.line(key.span().start),
                value: value.span(),
            });
            if let DeValue::Table(inner) = value.get_ref() {
                self.add_table(inner, prefix, lines);
            }
            prefix.pop();
        }
    }

    /// The line of `path`, or of its closest ancestor that is in the document.
    pub(crate) fn line(&self, path: &[String]) -> Option<usize> {
        (1..=path.len())
            .rev()
            .find_map(|len| self.exact_line(&path[..len]))
    }

    /// The line of `path` itself.
    pub(crate) fn exact_line(&self, path: &[String]) -> Option<usize> {
        self.entries
            .iter()
            .find(|entry| entry.path == path)
            .map(|entry| entry.line)
    }

    /// The deepest key whose value holds byte `offset`: the key a type error is about.
    pub(crate) fn key_at(&self, offset: usize) -> Option<&[String]> {
        self.entries
            .iter()
            .filter(|entry| entry.value.contains(&offset))
            .max_by_key(|entry| entry.path.len())
            .map(|entry| entry.path.as_slice())
    }

    /// Every key with its line, in document order.
    pub(crate) fn lines(&self) -> impl Iterator<Item = (&[String], usize)> {
        self.entries.iter().map(|e| (e.path.as_slice(), e.line))
    }
}

/// `path` as TOML writes it: bare keys joined with dots, others quoted.
pub fn display_key<S: AsRef<str>>(path: &[S]) -> String {
    path.iter()
        .map(|key| {
            let key = key.as_ref();
            let bare = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if bare {
                key.to_owned()
            } else {
                format!("{key:?}")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(text: &str) -> KeyIndex {
        let table = DeTable::parse(text).unwrap();
        KeyIndex::build(table.get_ref(), &LineMap::new(text))
    }

    fn path(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|k| (*k).to_owned()).collect()
    }

    #[test]
    fn keys_of_headers_dotted_keys_and_inline_tables_have_their_lines() {
        let index = index(
            "a = 1\n\n[models.\"gpt-4.1\"]\nbase_url = 'x'\nparams = { t = 1 }\n[b]\nc.d = 2\n",
        );
        assert_eq!(index.exact_line(&path(&["a"])), Some(1));
        assert_eq!(index.exact_line(&path(&["models", "gpt-4.1"])), Some(3));
        assert_eq!(
            index.exact_line(&path(&["models", "gpt-4.1", "base_url"])),
            Some(4)
        );
        assert_eq!(
            index.exact_line(&path(&["models", "gpt-4.1", "params", "t"])),
            Some(5)
        );
        assert_eq!(index.exact_line(&path(&["b", "c", "d"])), Some(7));
        assert_eq!(index.line(&path(&["b", "missing"])), Some(6));
        assert_eq!(index.line(&path(&["nowhere"])), None);
    }

    #[test]
    fn a_value_offset_finds_the_deepest_key() {
        let text = "[swarm]\nmax_concurrency = 'many'\n";
        let at = text.find("'many'").unwrap();
        assert_eq!(
            index(text).key_at(at + 1),
            Some(path(&["swarm", "max_concurrency"]).as_slice())
        );
    }

    #[test]
    fn keys_that_need_quotes_are_quoted() {
        assert_eq!(
            display_key(&["models", "gpt-4.1", "model"]),
            "models.\"gpt-4.1\".model"
        );
        assert_eq!(display_key(&["subagent"]), "subagent");
    }

    #[test]
    fn line_map_counts_from_one() {
        let lines = LineMap::new("a\nb\n\nc");
        assert_eq!([0, 1, 2, 4, 5].map(|o| lines.line(o)), [1, 1, 2, 3, 4]);
    }
}
