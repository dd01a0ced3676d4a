//! Switching one subagent type (`[subagents.toggle]`) or persona
//! (`[subagents.persona_toggle]`) on or off in `config.toml`, as text, so the rest of the file
//! (the person's comments, order and layout) stays as written.
//!
//! The rule: an edit is checked by parsing the result; when the file spells the toggle in a
//! form this does not edit (an inline table, dotted keys under `[subagents]`), or is not valid
//! TOML, nothing is written and the caller says so.

/// The `[subagents]` table a switch is written in.
const SUBAGENTS: &str = "subagents";
/// Subagent types: `[subagents.toggle]`.
const TYPE_TABLE: &str = "toggle";
/// Personas: `[subagents.persona_toggle]`.
const PERSONA_TABLE: &str = "persona_toggle";

/// `text` with `agent_type` switched to `enabled` in `[subagents.toggle]`: its line's value
/// replaced (a comment after it kept), or a line added under the table (the table appended
/// when the file has none). Switching on a type the file does not mention changes nothing
/// (types are on unless switched off). `None` when the edit cannot be made safely.
pub fn with_subagent_toggle(text: &str, agent_type: &str, enabled: bool) -> Option<String> {
    with_toggle(text, TYPE_TABLE, agent_type, enabled)
}

/// `text` with `persona` switched to `enabled` in `[subagents.persona_toggle]`, edited as
/// [`with_subagent_toggle`] edits a type's switch.
pub fn with_persona_toggle(text: &str, persona: &str, enabled: bool) -> Option<String> {
    with_toggle(text, PERSONA_TABLE, persona, enabled)
}

/// `text` with `name` switched to `enabled` in `[subagents.<table>]`.
fn with_toggle(text: &str, table: &str, name: &str, enabled: bool) -> Option<String> {
    let original: toml::Table = toml::from_str(text).ok()?;
    let current = toggle_of(&original, table, name);
    if current == Some(enabled) || (current.is_none() && enabled) {
        return Some(text.to_owned());
    }
    let header_text = format!("[{SUBAGENTS}.{table}]");
    let key = toml_key(name);
    let value = if enabled { "true" } else { "false" };
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| is_header(l, &header_text));
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    match header {
        Some(at) => {
            let end = lines[at + 1..]
                .iter()
                .position(|l| l.trim_start().starts_with('['))
                .map_or(lines.len(), |i| at + 1 + i);
            let existing = (at + 1..end).find(|i| line_key(lines[*i]).as_deref() == Some(name));
            match existing {
                Some(i) => out[i] = with_value(lines[i], value),
                None => {
                    // After the table's last key line, before the blank lines that end it.
                    let last = (at + 1..end)
                        .rev()
                        .find(|i| line_key(lines[*i]).is_some())
                        .unwrap_or(at);
                    out.insert(last + 1, format!("{key} = {value}"));
                }
            }
        }
        None => {
            if out.last().is_some_and(|l| !l.trim().is_empty()) {
                out.push(String::new());
            }
            out.push(header_text);
            out.push(format!("{key} = {value}"));
        }
    }
    let mut edited = out.join("\n");
    edited.push('\n');
    let parsed: toml::Table = toml::from_str(&edited).ok()?;
    (toggle_of(&parsed, table, name) == Some(enabled)).then_some(edited)
}

fn toggle_of(document: &toml::Table, table: &str, name: &str) -> Option<bool> {
    document.get(SUBAGENTS)?.get(table)?.get(name)?.as_bool()
}

/// Whether `line` is the table header `header` (spacing and a comment after it allowed).
fn is_header(line: &str, header: &str) -> bool {
    let line = line.trim();
    let line = line.split('#').next().unwrap_or("").trim();
    line.replace(' ', "") == header
}

/// The key a `key = value` line sets (quotes removed), if it is one.
fn line_key(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    if trimmed.starts_with('#') || trimmed.starts_with('[') {
        return None;
    }
    let (key, _) = trimmed.split_once('=')?;
    let key = key.trim();
    let key = key
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .or_else(|| key.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')))
        .unwrap_or(key);
    Some(key.to_owned())
}

/// `line` with its value replaced by `value`, its key and any trailing comment kept.
fn with_value(line: &str, value: &str) -> String {
    let Some((key, rest)) = line.split_once('=') else {
        return line.to_owned();
    };
    let comment = rest.find('#').map(|i| &rest[i..]);
    match comment {
        Some(comment) => format!("{key}= {value} {comment}"),
        None => format!("{key}= {value}"),
    }
}

/// `name` as a TOML key: bare when it can be, quoted otherwise.
fn toml_key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_is_switched_off_under_an_existing_table_and_comments_are_kept() {
        let text = "# my settings\n[subagents.toggle]\nplan = false # not today\n\n[models.m]\nprovider = \"openai\"\n";
        let edited = with_subagent_toggle(text, "explore", false).unwrap();
        assert_eq!(
            edited,
            "# my settings\n[subagents.toggle]\nplan = false # not today\nexplore = false\n\n[models.m]\nprovider = \"openai\"\n"
        );
        let back = with_subagent_toggle(&edited, "plan", true).unwrap();
        assert!(back.contains("plan = true # not today\n"), "{back}");
    }

    #[test]
    fn a_file_without_the_table_gets_one_appended() {
        let edited = with_subagent_toggle("# nothing yet\n", "my.agent", false).unwrap();
        assert_eq!(
            edited,
            "# nothing yet\n\n[subagents.toggle]\n\"my.agent\" = false\n"
        );
        assert_eq!(
            with_subagent_toggle("", "explore", false).unwrap(),
            "[subagents.toggle]\nexplore = false\n"
        );
        // On is the default: nothing to write.
        assert_eq!(
            with_subagent_toggle("# x\n", "explore", true).unwrap(),
            "# x\n"
        );
    }

    #[test]
    fn a_persona_is_switched_in_its_own_table_beside_the_types() {
        let text = "[subagents.toggle]\nplan = false\n";
        let edited = with_persona_toggle(text, "concise", false).unwrap();
        assert_eq!(
            edited,
            "[subagents.toggle]\nplan = false\n\n[subagents.persona_toggle]\nconcise = false\n"
        );
        let config: crate::Config = toml::from_str(&edited).unwrap();
        assert!(!config.subagents.persona_enabled("concise"));
        assert!(config.subagents.type_enabled("concise"));
        let back = with_persona_toggle(&edited, "concise", true).unwrap();
        assert!(
            back.ends_with("[subagents.persona_toggle]\nconcise = true\n"),
            "{back}"
        );
        // The type table is not the persona table.
        assert_eq!(with_persona_toggle(text, "plan", true).unwrap(), text);
    }

    #[test]
    fn forms_it_does_not_edit_and_broken_files_are_refused() {
        assert_eq!(
            with_subagent_toggle("[subagents]\ntoggle = { plan = false }\n", "explore", false),
            None
        );
        assert_eq!(
            with_subagent_toggle("this is = = not toml", "x", false),
            None
        );
    }
}
