//! `[tui]` of `config.toml`: how the interactive terminal looks.

use serde::{Deserialize, Serialize};

/// `[tui]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct TuiConfig {
    /// `theme`: `kigiday` or `kiginight` (the default); the terminal falls back to the
    /// default, with a warning, for any other name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn the_theme_is_read_from_the_tui_section() {
        let config: crate::Config = toml::from_str("[tui]\ntheme = \"kigiday\"\n").unwrap();
        assert_eq!(config.tui.theme.as_deref(), Some("kigiday"));
        let config: crate::Config = toml::from_str("").unwrap();
        assert_eq!(config.tui.theme, None);
    }
}
