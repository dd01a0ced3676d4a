//! Key names as the model writes them (`Enter`, `Tab`, `Control+a`, `Shift+ArrowDown`) turned
//! into the fields of CDP's `Input.dispatchKeyEvent`. Pure.
//!
//! The rule: a name this table does not know is refused with the names it does, never sent
//! as a guess.

use crate::error::BrowserError;

/// One key press, ready for `Input.dispatchKeyEvent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPress {
    /// DOM `key` (`Enter`, `a`).
    pub key: String,
    /// DOM `code` (`Enter`, `KeyA`).
    pub code: String,
    /// Windows virtual key code, which Chromium's default actions go by.
    pub key_code: u32,
    /// The text the key types (none for control keys or with Control, Alt or Meta held).
    pub text: Option<String>,
    /// CDP's modifier bits: Alt 1, Control 2, Meta 4, Shift 8.
    pub modifiers: u32,
}

/// Named keys: (name, code, key code, text).
const NAMED: &[(&str, &str, u32, Option<&str>)] = &[
    ("Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", 9, None),
    ("Escape", "Escape", 27, None),
    ("Backspace", "Backspace", 8, None),
    ("Delete", "Delete", 46, None),
    ("Space", "Space", 32, Some(" ")),
    ("ArrowUp", "ArrowUp", 38, None),
    ("ArrowDown", "ArrowDown", 40, None),
    ("ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowRight", "ArrowRight", 39, None),
    ("Home", "Home", 36, None),
    ("End", "End", 35, None),
    ("PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", 34, None),
];

const MODIFIERS: &[(&str, u32)] = &[
    ("Alt", 1),
    ("Control", 2),
    ("Ctrl", 2),
    ("Meta", 4),
    ("Cmd", 4),
    ("Shift", 8),
];

/// The presses of `keys`: presses separated by spaces, modifiers joined with `+`.
pub fn parse_keys(keys: &str) -> Result<Vec<KeyPress>, BrowserError> {
    let presses: Vec<KeyPress> = keys
        .split_whitespace()
        .map(parse_press)
        .collect::<Result<_, _>>()?;
    if presses.is_empty() {
        return Err(BrowserError::Refused("no key named".into()));
    }
    Ok(presses)
}

fn parse_press(press: &str) -> Result<KeyPress, BrowserError> {
    let mut parts: Vec<&str> = press.split('+').collect();
    // `Control++` presses `+` with Control.
    if press.ends_with("++") {
        parts.truncate(parts.len().saturating_sub(2));
        parts.push("+");
    }
    let Some(last) = parts.pop().filter(|k| !k.is_empty()) else {
        return Err(unknown(press));
    };
    let mut modifiers = 0;
    for part in parts {
        let bit = MODIFIERS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(part))
            .map(|(_, bit)| *bit)
            .ok_or_else(|| unknown(press))?;
        modifiers |= bit;
    }
    // Control, Alt and Meta make a shortcut, which types nothing.
    let types = modifiers & 7 == 0;
    if let Some((name, code, key_code, text)) = NAMED
        .iter()
        .find(|(name, ..)| name.eq_ignore_ascii_case(last))
    {
        return Ok(KeyPress {
            key: if *name == "Space" { " " } else { name }.to_owned(),
            code: (*code).to_owned(),
            key_code: *key_code,
            text: text.filter(|_| types).map(str::to_owned),
            modifiers,
        });
    }
    let mut chars = last.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return Err(unknown(press));
    };
    let upper = c.to_ascii_uppercase();
    let (code, key_code) = match c {
        'a'..='z' | 'A'..='Z' => (format!("Key{upper}"), u32::from(upper)),
        '0'..='9' => (format!("Digit{c}"), u32::from(c)),
        _ => (String::new(), 0),
    };
    let shifted = modifiers & 8 != 0;
    let key = if shifted && c.is_ascii_lowercase() {
        upper
    } else {
        c
    };
    Ok(KeyPress {
        key: key.to_string(),
        code,
        key_code,
        text: types.then(|| key.to_string()),
        modifiers,
    })
}

fn unknown(press: &str) -> BrowserError {
    let names: Vec<&str> = NAMED.iter().map(|(name, ..)| *name).collect();
    BrowserError::Refused(format!(
        "unknown key `{press}`: use one character or {}, with Control+, Alt+, Meta+ or Shift+ before it",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(keys: &str) -> KeyPress {
        let mut presses = parse_keys(keys).unwrap();
        assert_eq!(presses.len(), 1);
        presses.remove(0)
    }

    #[test]
    fn enter_types_a_carriage_return_so_forms_submit() {
        assert_eq!(
            one("Enter"),
            KeyPress {
                key: "Enter".into(),
                code: "Enter".into(),
                key_code: 13,
                text: Some("\r".into()),
                modifiers: 0
            }
        );
    }

    #[test]
    fn modifiers_combine_and_a_shortcut_types_nothing() {
        assert_eq!(
            one("Control+Shift+a"),
            KeyPress {
                key: "A".into(),
                code: "KeyA".into(),
                key_code: 65,
                text: None,
                modifiers: 10
            }
        );
        assert_eq!(one("Shift+Tab").modifiers, 8);
        assert_eq!(one("ctrl++").key, "+");
    }

    #[test]
    fn several_presses_are_separated_by_spaces() {
        let keys: Vec<String> = parse_keys("Tab Tab 7 Enter")
            .unwrap()
            .into_iter()
            .map(|p| p.key)
            .collect();
        assert_eq!(keys, vec!["Tab", "Tab", "7", "Enter"]);
    }

    #[test]
    fn unknown_names_are_refused_with_the_known_ones() {
        let err = parse_keys("Hyper+x").unwrap_err().to_string();
        assert!(err.starts_with("unknown key `Hyper+x`"), "{err}");
        assert!(err.contains("Enter, Tab, Escape"), "{err}");
        assert!(parse_keys("F13").is_err());
        assert!(parse_keys("  ").is_err());
    }
}
