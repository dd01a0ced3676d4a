//! System prompt assembly.
//!
//! `extend` (default): the base template rendered, then the body appended RAW (never rendered:
//! agent bodies are full of `${…}` and `{{ … }}` that must survive byte-for-byte), then the
//! `AGENTS.md` section, then the skills section. `full`: the body rendered as the template,
//! then `AGENTS.md`, then skills.

use crate::definition::AgentDefinition;
use crate::error::AgentBuildError;
use crate::settings::PromptMode;
use crate::template::{self, TemplateContext};

/// The base template for `extend` mode.
pub const BASE_TEMPLATE: &str = include_str!("../templates/base.md");

/// The sections that follow the agent's own text.
#[derive(Debug, Clone, Default)]
pub struct PromptSections {
    pub agents_md: Option<String>,
    pub skills: Option<String>,
}

/// Builds the system prompt for `def`.
pub(crate) fn assemble(
    def: &AgentDefinition,
    context: &TemplateContext<'_>,
    sections: &PromptSections,
) -> Result<String, AgentBuildError> {
    let file = def.source.as_deref();
    let mut parts: Vec<String> = Vec::with_capacity(4);
    match def.prompt_mode {
        PromptMode::Extend => {
            parts.push(template::render(BASE_TEMPLATE, context, None)?);
            parts.push(def.body.trim_matches('\n').to_owned());
        }
        PromptMode::Full => parts.push(template::render(&def.body, context, file)?),
    }
    parts.extend(sections.agents_md.clone());
    parts.extend(sections.skills.clone());
    parts.retain(|p| !p.trim().is_empty());
    let mut prompt = parts.join("\n\n");
    prompt.push('\n');
    Ok(prompt)
}
