//! A typed reader over one YAML mapping of frontmatter. It hands out fields by their camelCase
//! key (accepting the snake_case spelling too, with a warning), turns wrong types into
//! `ParseError`s that name the field, and reports every key nobody asked for as a warning
//! (with the nearest key it did ask for).
//!
//! The rule: one bad field does not hide the next. Readers wrapped in [`Fields::keep`] record
//! their error and read as absent, so a file's every problem is reported in one run.

use std::collections::BTreeMap;
use std::path::Path;

use serde_yaml_ng::{Mapping, Value};

use crate::diagnostic::Diagnostic;
use crate::error::AgentBuildError;
use crate::suggest::did_you_mean;

/// Reads the fields of one mapping. Nested objects get their own reader with a dotted prefix.
#[derive(Debug)]
pub(crate) struct Fields<'a> {
    file: Option<&'a Path>,
    prefix: String,
    entries: Vec<(String, Value)>,
    pub(crate) warnings: Vec<Diagnostic>,
    /// Fields that could not be read (see [`Fields::keep`]).
    errors: Vec<AgentBuildError>,
    /// Every key asked for, for "did you mean" on unknown ones.
    asked: Vec<String>,
}

/// `maxTurns` → `max_turns`.
fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for ch in key.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// A short description of a YAML value for "expected X, found Y" messages.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("`{n}`"),
        Value::String(s) if s.chars().count() > 40 => "a long string".to_owned(),
        Value::String(s) => format!("`{s}`"),
        Value::Sequence(_) => "a list".to_owned(),
        Value::Mapping(_) => "a mapping".to_owned(),
        Value::Tagged(t) => describe(&t.value),
    }
}

/// A scalar as text (strings, numbers and booleans), for fields that hold text.
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(t) => scalar_text(&t.value),
        _ => None,
    }
}

impl<'a> Fields<'a> {
    /// A reader over `mapping`. Non-string keys are kept under their YAML spelling.
    pub(crate) fn new(file: Option<&'a Path>, prefix: &str, mapping: Mapping) -> Self {
        let entries = mapping
            .into_iter()
            .map(|(k, v)| (scalar_text(&k).unwrap_or_else(|| describe(&k)), v))
            .collect();
        Self {
            file,
            prefix: prefix.to_owned(),
            entries,
            warnings: Vec::new(),
            errors: Vec::new(),
            asked: Vec::new(),
        }
    }

    /// Runs `read`; a failure is recorded (and reported with the others when reading ends)
    /// and the field reads as absent.
    pub(crate) fn keep<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<Option<T>, AgentBuildError>,
    ) -> Option<T> {
        match read(self) {
            Ok(value) => value,
            Err(error) => {
                self.errors.push(error);
                None
            }
        }
    }

    /// Records a failure found outside a reader.
    pub(crate) fn record(&mut self, error: AgentBuildError) {
        self.errors.push(error);
    }

    pub(crate) fn file(&self) -> Option<&'a Path> {
        self.file
    }

    /// The dotted field name for `key` (`bash.timeoutSecs`).
    pub(crate) fn path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// A `ParseError` about `key`.
    pub(crate) fn error(&self, key: &str, message: impl Into<String>) -> AgentBuildError {
        AgentBuildError::ParseError {
            file: self.file.map(Path::to_path_buf),
            line: None,
            field: Some(self.path(key)),
            message: message.into(),
        }
    }

    fn type_error(&self, key: &str, expected: &str, found: &Value) -> AgentBuildError {
        self.error(
            key,
            format!("expected {expected}, found {}", describe(found)),
        )
    }

    /// Removes and returns `key` (or its snake_case spelling). A null value reads as absent.
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        if !self.asked.iter().any(|k| k == key) {
            self.asked.push(key.to_owned());
        }
        let value = if let Some(i) = self.entries.iter().position(|(k, _)| k == key) {
            self.entries.remove(i).1
        } else {
            let snake = snake_case(key);
            let i = self.entries.iter().position(|(k, _)| *k == snake)?;
            let (_, value) = self.entries.remove(i);
            let field = self.path(key);
            self.warnings.push(Diagnostic::warning(
                self.file,
                Some(&field),
                format!("`{}{snake}` read as `{field}`", self.prefix),
            ));
            value
        };
        (!value.is_null()).then_some(value)
    }

    pub(crate) fn string(&mut self, key: &str) -> Result<Option<String>, AgentBuildError> {
        match self.take(key) {
            None => Ok(None),
            Some(value) => scalar_text(&value)
                .map(Some)
                .ok_or_else(|| self.type_error(key, "text", &value)),
        }
    }

    pub(crate) fn bool(&mut self, key: &str) -> Result<Option<bool>, AgentBuildError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
            Some(other) => Err(self.type_error(key, "true or false", &other)),
        }
    }

    /// A number written as a YAML number or as text; `read` turns a YAML number into `T`, and
    /// `valid` rejects values of the right type but out of range.
    fn number<T: std::str::FromStr>(
        &mut self,
        key: &str,
        expected: &str,
        read: impl Fn(&serde_yaml_ng::Number) -> Option<T>,
        valid: impl Fn(&T) -> bool,
    ) -> Result<Option<T>, AgentBuildError> {
        let Some(value) = self.take(key) else {
            return Ok(None);
        };
        let parsed = match &value {
            Value::Number(n) => read(n),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        match parsed.filter(|n| valid(n)) {
            Some(n) => Ok(Some(n)),
            None => Err(self.type_error(key, expected, &value)),
        }
    }

    pub(crate) fn u64(&mut self, key: &str) -> Result<Option<u64>, AgentBuildError> {
        self.number(key, "a whole number", serde_yaml_ng::Number::as_u64, |_| {
            true
        })
    }

    pub(crate) fn u32(&mut self, key: &str) -> Result<Option<u32>, AgentBuildError> {
        match self.u64(key)? {
            None => Ok(None),
            Some(n) => u32::try_from(n)
                .map(Some)
                .map_err(|_| self.error(key, format!("{n} is too large"))),
        }
    }

    pub(crate) fn f64(&mut self, key: &str) -> Result<Option<f64>, AgentBuildError> {
        let valid = |f: &f64| f.is_finite() && *f >= 0.0;
        self.number(
            key,
            "a non-negative number",
            serde_yaml_ng::Number::as_f64,
            valid,
        )
    }

    /// A nested object, read by its own `Fields` whose warnings must be merged back with
    /// [`Fields::absorb`].
    pub(crate) fn object(&mut self, key: &str) -> Result<Option<Fields<'a>>, AgentBuildError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Mapping(map)) => {
                let prefix = format!("{}.", self.path(key));
                Ok(Some(Fields::new(self.file, &prefix, map)))
            }
            Some(other) => Err(self.type_error(key, "a mapping", &other)),
        }
    }

    /// The entries of a mapping field, in file order.
    pub(crate) fn entries(&mut self, key: &str) -> Result<Vec<(String, Value)>, AgentBuildError> {
        Ok(self
            .object(key)?
            .map(|fields| fields.entries)
            .unwrap_or_default())
    }

    /// A mapping of text to text.
    pub(crate) fn string_map(
        &mut self,
        key: &str,
    ) -> Result<BTreeMap<String, String>, AgentBuildError> {
        let mut out = BTreeMap::new();
        for (k, v) in self.entries(key)? {
            let text = scalar_text(&v)
                .ok_or_else(|| self.type_error(&format!("{key}.{k}"), "text", &v))?;
            out.insert(k, text);
        }
        Ok(out)
    }

    /// Any value, as JSON (for `mcpServers` and `hooks`, whose shapes kigi passes through).
    pub(crate) fn json(&mut self, key: &str) -> Result<Option<serde_json::Value>, AgentBuildError> {
        match self.take(key) {
            None => Ok(None),
            Some(value) => serde_json::to_value(&value)
                .map(Some)
                .map_err(|e| self.error(key, format!("cannot be read as JSON: {e}"))),
        }
    }

    /// Merges a nested reader's errors, warnings and unknown keys into this one.
    pub(crate) fn absorb(&mut self, mut nested: Fields<'_>) {
        self.errors.append(&mut nested.errors);
        self.warnings.extend(nested.finish());
    }

    /// Ends reading: every key nobody took becomes an "ignored" warning. Recorded errors are
    /// dropped; readers that keep them end with [`Fields::finish_with_errors`].
    pub(crate) fn finish(mut self) -> Vec<Diagnostic> {
        for (key, _) in std::mem::take(&mut self.entries) {
            let field = self.path(&key);
            let hint = did_you_mean(&key, self.asked.iter().map(String::as_str));
            self.warnings.push(Diagnostic::warning(
                self.file,
                Some(&field),
                format!("unknown key, ignored{hint}"),
            ));
        }
        self.warnings
    }

    /// Ends reading: the warnings, and every error [`Fields::keep`] recorded, in order.
    pub(crate) fn finish_with_errors(mut self) -> (Vec<Diagnostic>, Vec<AgentBuildError>) {
        let errors = std::mem::take(&mut self.errors);
        (self.finish(), errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(yaml: &str) -> Fields<'static> {
        let Value::Mapping(map) = serde_yaml_ng::from_str(yaml).unwrap() else {
            panic!("not a mapping")
        };
        Fields::new(None, "", map)
    }

    #[test]
    fn snake_case_spelling_is_honoured_with_a_warning() {
        let mut f = fields("max_turns: 7\n");
        assert_eq!(f.u32("maxTurns").unwrap(), Some(7));
        let warnings = f.finish();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0]
                .message
                .contains("`max_turns` read as `maxTurns`")
        );
    }

    #[test]
    fn wrong_type_names_the_dotted_field() {
        let mut f = fields("bash:\n  timeoutSecs: soon\n");
        let mut bash = f.object("bash").unwrap().unwrap();
        let err = bash.f64("timeoutSecs").unwrap_err();
        assert_eq!(
            err.to_string(),
            "<inline definition>: field `bash.timeoutSecs`: expected a non-negative number, found `soon`"
        );
    }

    #[test]
    fn an_unknown_key_names_the_nearest_key_that_was_asked_for() {
        let mut f = fields("permisionMode: plan\nzzz: 1\n");
        assert_eq!(f.string("permissionMode").unwrap(), None);
        let messages: Vec<_> = f.finish().into_iter().map(|w| w.message).collect();
        assert_eq!(
            messages,
            [
                "unknown key, ignored; did you mean `permissionMode`?",
                "unknown key, ignored"
            ]
        );
    }

    #[test]
    fn kept_readers_record_every_error_and_read_on() {
        let mut f = fields("maxTurns: many\nbackground: perhaps\ncolor: red\n");
        assert_eq!(f.keep(|f| f.u32("maxTurns")), None);
        assert_eq!(f.keep(|f| f.bool("background")), None);
        assert_eq!(f.keep(|f| f.string("color")).as_deref(), Some("red"));
        let (warnings, errors) = f.finish_with_errors();
        assert!(warnings.is_empty());
        let errors: Vec<_> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            [
                "<inline definition>: field `maxTurns`: expected a whole number, found `many`",
                "<inline definition>: field `background`: expected true or false, found `perhaps`",
            ]
        );
    }

    #[test]
    fn unknown_keys_become_warnings() {
        let f = fields("temperature: 0.2\nname: a\n");
        let warnings = f.finish();
        let fields: Vec<_> = warnings.iter().filter_map(|w| w.field.clone()).collect();
        assert_eq!(fields, vec!["temperature", "name"]);
    }
}
