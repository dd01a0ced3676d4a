//! The delegation notice (seed 002): a custom agent run as a subagent is told, in its system
//! prompt, that it was delegated a task, by whom and for what, so a profile written for
//! direct use does not mistake the parent's prompt for a person's. `${delegation_context}`
//! in the body places it; otherwise it goes first. `delegation_notice: off` leaves it out,
//! and built-in types (written as subagents already) never get it.

use kigi_agent::{AgentDefinition, DelegationNotice, is_built_in_name};

/// Where the body asks for the notice.
const PLACEHOLDER: &str = "${delegation_context}";

/// Adds the notice to `definition`'s body for child `id` started for `description`.
pub fn add_delegation_notice(definition: &mut AgentDefinition, id: &str, description: &str) {
    if definition.delegation_notice == DelegationNotice::Off || is_built_in_name(&definition.name) {
        // The placeholder still must not reach the model verbatim.
        definition.body = definition.body.replace(PLACEHOLDER, "");
        return;
    }
    let notice = format!(
        "You run as subagent {id} of type `{}`: the main agent delegated this task to you \
         (\"{}\"). It sees only your final answer, so end with what it needs to know.",
        definition.name,
        description.trim()
    );
    definition.body = if definition.body.contains(PLACEHOLDER) {
        definition.body.replace(PLACEHOLDER, &notice)
    } else {
        format!("{notice}\n\n{}", definition.body)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(name: &str, body: &str) -> AgentDefinition {
        let mut definition = AgentDefinition::new(name, "d");
        definition.body = body.to_owned();
        definition
    }

    #[test]
    fn a_custom_agent_gets_the_notice_first_or_where_its_body_asks() {
        let mut first = definition("reviewer", "Review the diff.");
        add_delegation_notice(&mut first, "sub-2", "check the parser");
        assert!(
            first
                .body
                .starts_with("You run as subagent sub-2 of type `reviewer`")
        );
        assert!(first.body.contains("(\"check the parser\")"));
        assert!(first.body.ends_with("\n\nReview the diff."));

        let mut placed = definition("reviewer", "Intro.\n${delegation_context}\nRules.");
        add_delegation_notice(&mut placed, "sub-3", "x");
        assert!(placed.body.starts_with("Intro.\nYou run as subagent sub-3"));
        assert!(placed.body.ends_with("\nRules."));
    }

    #[test]
    fn off_and_built_in_types_get_none_and_lose_the_placeholder() {
        let mut off = definition("reviewer", "A ${delegation_context}B");
        off.delegation_notice = DelegationNotice::Off;
        add_delegation_notice(&mut off, "sub-1", "x");
        assert_eq!(off.body, "A B");
        let mut built_in = definition("explore", "Explore.");
        add_delegation_notice(&mut built_in, "sub-1", "x");
        assert_eq!(built_in.body, "Explore.");
    }
}
