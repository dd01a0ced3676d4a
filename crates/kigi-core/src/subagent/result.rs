//! What a finished child reports to its parent.

use std::time::Duration;

use kigi_model::Usage;
use kigi_tools::{MODEL_OUTPUT_CHARS, clamp_head_tail};

pub use kigi_protocol::ChildStatus;

/// A child's result.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentResult {
    pub id: String,
    pub name: Option<String>,
    pub agent_type: String,
    pub description: String,
    pub status: ChildStatus,
    /// The child's final message (empty unless completed).
    pub message: String,
    /// Why it did not complete, with a stable code first (`task.empty_agent_receipt: …`).
    pub error: Option<String>,
    pub steps: u32,
    pub tool_calls: u32,
    pub usage: Usage,
    pub duration: Duration,
    pub model: String,
    /// Where the model choice came from.
    pub model_source: &'static str,
    /// The persona applied, if any.
    pub persona: Option<String>,
    /// Reasoning effort and the layer that set it (`high (persona)`), when one did.
    pub effort: Option<String>,
    /// The soft model lists' advisories (`model_not_preferred: …`): it ran anyway.
    pub advice: Vec<String>,
    /// `worktree (spawn-time)` or `worktree (persona)` when isolated.
    pub isolation: Option<String>,
    /// `isolation: worktree`: where its changes are, and what they are.
    pub worktree: Option<String>,
    /// The model provider throttled it (the typed flag from the model layer; the swarm
    /// scheduler reads it).
    pub rate_limited: bool,
    /// True when it outlived the foreground wait and finished in the background.
    pub backgrounded: bool,
}

impl SubagentResult {
    /// The text the parent's model reads.
    pub fn render(&self) -> String {
        let handle = match &self.name {
            Some(name) => format!("{} ({name})", self.id),
            None => self.id.clone(),
        };
        let mut out = format!(
            "subagent {handle} [{}] \"{}\" {} in {:.1}s: {} turn(s), {} tool call(s), {} tokens in / {} out, model {} ({})",
            self.agent_type,
            self.description,
            self.status.label(),
            self.duration.as_secs_f64(),
            self.steps,
            self.tool_calls,
            self.usage.input_tokens,
            self.usage.output_tokens,
            self.model,
            self.model_source,
        );
        if let Some(persona) = &self.persona {
            out.push_str(&format!(", persona {persona}"));
        }
        if let Some(effort) = &self.effort {
            out.push_str(&format!(", effort {effort}"));
        }
        if let Some(isolation) = &self.isolation {
            out.push_str(&format!(", isolation {isolation}"));
        }
        for advice in &self.advice {
            out.push_str(&format!("\nadvice: {advice}"));
        }
        if let Some(worktree) = &self.worktree {
            out.push_str(&format!("\nworktree: {worktree}"));
        }
        if let Some(error) = &self.error {
            out.push_str(&format!("\nerror: {error}"));
        }
        if self.status == ChildStatus::Completed {
            out.push_str(&format!(
                "\nto carry on its work: spawn_subagent with resume_from \"{}\" and subagent_type \"{}\"",
                self.name.as_deref().unwrap_or(&self.id),
                self.agent_type
            ));
        }
        if !self.message.is_empty() {
            out.push_str("\n--- its final message ---\n");
            out.push_str(&clamp_head_tail(&self.message, MODEL_OUTPUT_CHARS));
        }
        out
    }
}
