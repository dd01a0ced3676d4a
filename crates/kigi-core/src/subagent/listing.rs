//! `list_subagents`: the caller's direct children as lines, running first, at most
//! [`MAX_LISTED`].

use super::coordinator::Coordinator;
use crate::lock::lock;

/// The most children `list_subagents` shows.
const MAX_LISTED: usize = 50;

impl Coordinator {
    /// The caller's direct children, running first, at most 50.
    pub fn list(&self, include_finished: bool) -> String {
        let children = lock(&self.children).clone();
        let mut rows: Vec<(bool, String)> = children
            .iter()
            .filter(|c| include_finished || !c.finished())
            .map(|c| {
                let state = if c.finished() {
                    lock(&c.result)
                        .as_ref()
                        .map_or("finished", |r| r.status.label())
                        .to_owned()
                } else {
                    "running".to_owned()
                };
                let name = c
                    .name
                    .as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                (
                    c.finished(),
                    format!(
                        "{}{name} [{}] {state}: {}",
                        c.id, c.meta.agent_type, c.meta.description
                    ),
                )
            })
            .collect();
        rows.sort_by_key(|(finished, _)| *finished);
        let total = rows.len();
        let mut lines: Vec<String> = rows
            .into_iter()
            .take(MAX_LISTED)
            .map(|(_, line)| line)
            .collect();
        if total > MAX_LISTED {
            lines.push(format!("(… {} more)", total - MAX_LISTED));
        }
        if lines.is_empty() {
            return if include_finished {
                "no subagents yet".into()
            } else {
                "no running subagents".into()
            };
        }
        lines.join("\n")
    }
}
