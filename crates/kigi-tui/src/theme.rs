//! The two themes, `kigiday` (light backgrounds) and `kiginight` (dark), as named styles the
//! views use; and `NO_COLOR`.
//!
//! The rule: views never name a colour; they ask the theme for a role (`accent`, `dim`,
//! `added`, …). With `NO_COLOR` set every role keeps its modifiers (bold, dim, reversed) and
//! loses its colour.

use ratatui::style::{Color, Modifier, Style};

use crate::code_highlight::SyntaxPalette;

/// A theme's name, as `[tui] theme` spells it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ThemeName {
    /// For light terminal backgrounds.
    Day,
    /// For dark terminal backgrounds (the default).
    #[default]
    Night,
}

impl ThemeName {
    /// `kigiday` or `kiginight`; anything else is `None` (the caller falls back).
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "kigiday" => Some(Self::Day),
            "kiginight" => Some(Self::Night),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Day => "kigiday",
            Self::Night => "kiginight",
        }
    }
}

/// The styles of every role a view draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub name: ThemeName,
    pub text: Style,
    pub dim: Style,
    pub accent: Style,
    pub user: Style,
    pub heading: Style,
    pub code: Style,
    pub added: Style,
    pub removed: Style,
    pub ok: Style,
    pub error: Style,
    pub warning: Style,
    pub selected: Style,
    pub status: Style,
    /// The colours of code in fenced blocks; `None` under `NO_COLOR` (code is not
    /// highlighted at all then: highlighting is only colour).
    pub syntax: Option<SyntaxPalette>,
}

impl Theme {
    /// The theme `name`, or its colourless form when `no_color`.
    pub fn new(name: ThemeName, no_color: bool) -> Self {
        let (accent, user, heading, code, added, removed, ok, error, warning) = match name {
            ThemeName::Night => (
                Color::Cyan,
                Color::LightBlue,
                Color::LightMagenta,
                Color::LightYellow,
                Color::Green,
                Color::Red,
                Color::Green,
                Color::LightRed,
                Color::Yellow,
            ),
            ThemeName::Day => (
                Color::Blue,
                Color::Blue,
                Color::Magenta,
                Color::Rgb(0x8a, 0x4b, 0x08),
                Color::Rgb(0x1a, 0x7f, 0x37),
                Color::Rgb(0xcf, 0x22, 0x2e),
                Color::Rgb(0x1a, 0x7f, 0x37),
                Color::Rgb(0xcf, 0x22, 0x2e),
                Color::Rgb(0x9a, 0x67, 0x00),
            ),
        };
        let paint = |color: Color, style: Style| {
            if no_color { style } else { style.fg(color) }
        };
        let bold = Style::new().add_modifier(Modifier::BOLD);
        // Night uses the terminal's own bright colours (they follow its palette); Day uses
        // dark RGB tones readable on white (GitHub's light code colours).
        let (keyword, string, constant, function, type_name) = match name {
            ThemeName::Night => (
                Color::LightMagenta,
                Color::LightGreen,
                Color::LightYellow,
                Color::LightBlue,
                Color::LightCyan,
            ),
            ThemeName::Day => (
                Color::Rgb(0xcf, 0x22, 0x2e),
                Color::Rgb(0x0a, 0x30, 0x69),
                Color::Rgb(0x05, 0x50, 0xae),
                Color::Rgb(0x82, 0x50, 0xdf),
                Color::Rgb(0x95, 0x38, 0x00),
            ),
        };
        let syntax = (!no_color).then(|| SyntaxPalette {
            plain: Style::new(),
            keyword: Style::new().fg(keyword),
            string: Style::new().fg(string),
            comment: Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC),
            constant: Style::new().fg(constant),
            function: Style::new().fg(function),
            type_name: Style::new().fg(type_name),
        });
        Self {
            name,
            text: Style::new(),
            dim: Style::new().add_modifier(Modifier::DIM),
            accent: paint(accent, bold),
            user: paint(user, bold),
            heading: paint(heading, bold),
            code: paint(code, Style::new()),
            added: paint(added, Style::new()),
            removed: paint(removed, Style::new()),
            ok: paint(ok, Style::new()),
            error: paint(error, bold),
            warning: paint(warning, Style::new()),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            status: Style::new().add_modifier(Modifier::DIM),
            syntax,
        }
    }

    /// The theme a configured name asks for: an unknown name falls back to the default, and
    /// the second value says so. Without a name, the terminal's background decides when it
    /// says what it is (`COLORFGBG`, set by rxvt, Konsole and others).
    pub fn from_config(name: Option<&str>, no_color: bool) -> (Self, Option<String>) {
        Self::choose(name, std::env::var("COLORFGBG").ok().as_deref(), no_color)
    }

    /// [`Theme::from_config`] with the terminal's `COLORFGBG` given.
    pub fn choose(
        name: Option<&str>,
        colorfgbg: Option<&str>,
        no_color: bool,
    ) -> (Self, Option<String>) {
        match name {
            None => (
                Self::new(
                    colorfgbg.and_then(background_theme).unwrap_or_default(),
                    no_color,
                ),
                None,
            ),
            Some(name) => match ThemeName::parse(name) {
                Some(parsed) => (Self::new(parsed, no_color), None),
                None => (
                    Self::new(ThemeName::default(), no_color),
                    Some(format!(
                        "[tui] theme `{name}` is not a theme (kigiday, kiginight): using {}",
                        ThemeName::default().as_str()
                    )),
                ),
            },
        }
    }
}

/// The theme for the background `COLORFGBG` names (`15;0`: light text on black): ANSI
/// colours 7 and 9–15 are light backgrounds, the others dark.
fn background_theme(colorfgbg: &str) -> Option<ThemeName> {
    let background: u8 = colorfgbg.rsplit(';').next()?.trim().parse().ok()?;
    Some(if background == 7 || (9..=15).contains(&background) {
        ThemeName::Day
    } else {
        ThemeName::Night
    })
}

/// Whether `NO_COLOR` asks for no colour (set and not empty, per no-color.org).
pub fn no_color_from_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_theme_falls_back_to_the_default_and_says_so() {
        let (theme, warning) = Theme::from_config(Some("solarized"), false);
        assert_eq!(theme.name, ThemeName::Night);
        assert!(warning.unwrap().contains("solarized"));
        assert_eq!(
            Theme::from_config(Some("kigiday"), false).0.name,
            ThemeName::Day
        );
    }

    #[test]
    fn without_a_configured_theme_the_terminal_background_decides() {
        assert_eq!(
            Theme::choose(None, Some("0;15"), false).0.name,
            ThemeName::Day
        );
        assert_eq!(
            Theme::choose(None, Some("15;0"), false).0.name,
            ThemeName::Night
        );
        assert_eq!(Theme::choose(None, None, false).0.name, ThemeName::Night);
        assert_eq!(
            Theme::choose(Some("kiginight"), Some("0;15"), false).0.name,
            ThemeName::Night
        );
    }

    #[test]
    fn no_color_keeps_modifiers_and_drops_colours() {
        let theme = Theme::new(ThemeName::Night, true);
        assert_eq!(theme.accent.fg, None);
        assert!(theme.accent.add_modifier.contains(Modifier::BOLD));
    }
}
