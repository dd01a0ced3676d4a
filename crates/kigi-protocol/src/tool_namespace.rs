//! `ToolNamespace`: the toolset a tool belongs to. A closed set on purpose (see the
//! `kigi/tool` envelope's contract): a new toolset must be added here, not guessed.

use serde::{Deserialize, Serialize};

/// The toolset a tool belongs to. Serializes snake_case; PascalCase is accepted on input so
/// older persisted values still parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolNamespace {
    #[serde(alias = "Kigi")]
    Kigi,
    #[serde(alias = "KigiConcise")]
    KigiConcise,
    #[serde(alias = "KigiHashline")]
    KigiHashline,
    #[serde(alias = "Codex")]
    Codex,
    #[serde(alias = "Opencode")]
    Opencode,
    #[serde(alias = "Mcp")]
    Mcp,
    /// Another engine's tool (an executor child's): recorded, never run or approved by kigi.
    External,
}

#[cfg(test)]
mod tests {
    use super::ToolNamespace;

    #[test]
    fn accepts_legacy_pascal_case_and_writes_snake_case() {
        let ns: ToolNamespace = serde_json::from_str("\"KigiConcise\"").unwrap();
        assert_eq!(ns, ToolNamespace::KigiConcise);
        assert_eq!(serde_json::to_string(&ns).unwrap(), "\"kigi_concise\"");
    }
}
