//! Agent names: the strict rule for kigi's own directories, the lenient derivation for files
//! written for other harnesses, and the guard that keeps a name from ever acting as a path.
//!
//! The rule a reader must not break: a name is never joined onto a directory unless
//! [`check_path_component`] accepted it first.

/// Longest accepted name, in bytes.
pub const MAX_NAME_LEN: usize = 64;

/// Why a name is not a valid agent name, or `None` when it is: lowercase ASCII letters, digits
/// and single hyphens, starting and ending with a letter or digit.
pub fn strict_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name.len() > MAX_NAME_LEN {
        return Some("it is longer than 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("use lowercase letters, digits and hyphens only");
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("it must not start or end with a hyphen");
    }
    if name.contains("--") {
        return Some("it must not contain two hyphens in a row");
    }
    None
}

/// Turns a name written for another harness (`OpenCoder`, `Context Retriever`,
/// `dotnet-framework-4.8-expert`) into a valid one: lowercase, with spaces, dots and
/// underscores read as hyphens, other characters dropped. `None` when nothing is left.
pub fn derive_name(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    for ch in raw.trim().chars() {
        let mapped = match ch {
            'A'..='Z' => Some(ch.to_ascii_lowercase()),
            'a'..='z' | '0'..='9' => Some(ch),
            ' ' | '.' | '_' | '-' | '\t' => Some('-'),
            _ => None,
        };
        if let Some(c) = mapped {
            if c == '-' && (out.is_empty() || out.ends_with('-')) {
                continue;
            }
            out.push(c);
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out.truncate(MAX_NAME_LEN);
    while out.ends_with('-') {
        out.pop();
    }
    (!out.is_empty()).then_some(out)
}

/// Why `name` cannot be used to look up an agent, or `None` when it is one plain path
/// component. Checked before any file system access.
pub fn check_path_component(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name == "." || name == ".." {
        return Some("it is a relative directory reference");
    }
    if name.contains('/') || name.contains('\\') {
        return Some("it contains a path separator");
    }
    if name.contains('\0') {
        return Some("it contains a NUL byte");
    }
    if std::path::Path::new(name).is_absolute() || name.contains(':') {
        return Some("it is an absolute path or carries a drive prefix");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_lowercase_hyphen_names() {
        for name in ["kigi", "code-reviewer", "general-purpose", "agent2"] {
            assert_eq!(strict_name_problem(name), None, "{name}");
        }
    }

    #[test]
    fn rejects_names_outside_the_strict_rule() {
        for name in ["", "Code", "a_b", "a b", "-a", "a-", "a--b", "a.b", "../x"] {
            assert!(strict_name_problem(name).is_some(), "{name}");
        }
        assert!(strict_name_problem(&"a".repeat(65)).is_some());
    }

    #[test]
    fn derives_names_from_other_harnesses() {
        assert_eq!(derive_name("OpenCoder").as_deref(), Some("opencoder"));
        assert_eq!(
            derive_name("Context Retriever").as_deref(),
            Some("context-retriever")
        );
        assert_eq!(
            derive_name("dotnet-framework-4.8-expert").as_deref(),
            Some("dotnet-framework-4-8-expert")
        );
        assert_eq!(
            derive_name(" Weird__Name!! ").as_deref(),
            Some("weird-name")
        );
        assert_eq!(derive_name("!!!"), None);
    }

    #[test]
    fn rejects_name_with_path_separator() {
        for name in [
            "../x",
            "a/b",
            "a\\b",
            "..",
            ".",
            "",
            "/etc/passwd",
            "a\0b",
            "C:evil",
        ] {
            assert!(check_path_component(name).is_some(), "{name:?}");
        }
        assert_eq!(check_path_component("code-reviewer"), None);
    }
}
