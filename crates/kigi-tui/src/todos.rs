//! The agent's todo list as `todo_write` last set it, and the todo pane (Ctrl+T) that shows it.
//!
//! The rule: the list changes only when a `todo_write` call completes (the tool replaces the
//! whole list); a call that failed or was refused leaves the list as it was.

use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::theme::Theme;
use crate::wrap::truncate;

/// Items shown before the rest are counted.
const PANE_ITEMS: usize = 10;

/// Where an item stands (`todo_write`'s `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TodoState {
    Pending,
    InProgress,
    Completed,
}

/// One item of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoItem {
    pub content: String,
    pub state: TodoState,
}

/// The list a `todo_write` call's arguments set (`None` when they are not a list).
pub fn parse_todo_write(raw_input: &str) -> Option<Vec<TodoItem>> {
    let input: Value = serde_json::from_str(raw_input).ok()?;
    let items = input.get("todos")?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|item| {
                let content = item.get("content")?.as_str()?.to_owned();
                let state = match item.get("status")?.as_str()? {
                    "pending" => TodoState::Pending,
                    "in_progress" => TodoState::InProgress,
                    "completed" => TodoState::Completed,
                    _ => return None,
                };
                Some(TodoItem { content, state })
            })
            .collect(),
    )
}

/// The todo pane's lines at `width`.
pub fn todo_pane_lines(todos: &[TodoItem], width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let done = todos
        .iter()
        .filter(|t| t.state == TodoState::Completed)
        .count();
    let mut out = vec![Line::from(vec![
        Span::styled("Todos", theme.accent),
        Span::styled(
            format!("  {done}/{} done · Ctrl+T hides", todos.len()),
            theme.dim,
        ),
    ])];
    if todos.is_empty() {
        out.push(Line::styled(
            "  No todos yet (the agent writes them with todo_write)",
            theme.dim,
        ));
        return out;
    }
    for item in todos.iter().take(PANE_ITEMS) {
        let (mark, style) = match item.state {
            TodoState::Pending => ("☐", theme.text),
            TodoState::InProgress => ("◐", theme.accent),
            TodoState::Completed => ("☑", theme.dim),
        };
        out.push(Line::from(vec![
            Span::styled(format!("  {mark} "), style),
            Span::styled(truncate(&item.content, width.saturating_sub(4)), style),
        ]));
    }
    if todos.len() > PANE_ITEMS {
        out.push(Line::styled(
            format!("    … {} more", todos.len() - PANE_ITEMS),
            theme.dim,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_list_and_skips_items_it_cannot_read() {
        let items = parse_todo_write(
            r#"{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"odd"},{"content":"c","status":"completed"}]}"#,
        );
        assert_eq!(
            items,
            Some(vec![
                TodoItem {
                    content: "a".into(),
                    state: TodoState::InProgress
                },
                TodoItem {
                    content: "c".into(),
                    state: TodoState::Completed
                },
            ])
        );
        assert_eq!(parse_todo_write("not json"), None);
    }
}
