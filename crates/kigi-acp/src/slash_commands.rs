//! The slash commands kigi understands in an editor's prompt: advertised with
//! `available_commands_update` when a session opens, and what a prompt that starts with one
//! does (host commands first, then the turn, if any).
//!
//! The rule: every command advertised does something, and a prompt that starts with `/` but
//! names none of them is an ordinary prompt (`/usr/lib is slow` is text).

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, UnstructuredCommandInput,
};
use kigi_core::INIT_PROMPT;
use kigi_protocol::HostCommand;

use crate::prompt_input::PromptInput;

/// The commands, with their help and the hint for what follows the name.
const COMMANDS: [(&str, &str, Option<&str>); 3] = [
    (
        "compact",
        "summarize the conversation; the rest of the line is the next prompt",
        Some("what to do next (optional)"),
    ),
    (
        "init",
        "survey this repository and write its AGENTS.md",
        None,
    ),
    (
        "model",
        "switch the main agent's model from its next request on",
        Some("a [models] alias or a model id"),
    ),
];

/// The commands as an `available_commands_update` lists them.
pub(crate) fn available_commands() -> Vec<AvailableCommand> {
    COMMANDS
        .iter()
        .map(|(name, help, hint)| {
            AvailableCommand::new(*name, *help).input(hint.map(|hint| {
                AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(hint))
            }))
        })
        .collect()
}

/// What one prompt does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PromptPlan {
    /// Sent to the host first, in order.
    pub commands: Vec<HostCommand>,
    /// The turn that runs after them; none answers the prompt at once.
    pub turn: Option<PromptInput>,
    /// What the person is told when no turn runs.
    pub note: Option<String>,
}

impl PromptPlan {
    fn turn(input: PromptInput) -> Self {
        Self {
            commands: Vec::new(),
            turn: Some(input),
            note: None,
        }
    }
}

/// What `input` does; `Err` says why a command cannot be taken as sent.
pub(crate) fn plan(input: PromptInput) -> Result<PromptPlan, String> {
    let Some((name, rest)) = command_of(&input.text) else {
        return Ok(PromptPlan::turn(input));
    };
    let rest = rest.to_owned();
    let attachments = input.attachments;
    match name {
        "compact" => {
            let turn = (!rest.is_empty() || !attachments.is_empty()).then_some(PromptInput {
                text: rest,
                attachments,
            });
            let note = turn
                .is_none()
                .then(|| "The conversation is compacted before the next turn.".to_owned());
            Ok(PromptPlan {
                commands: vec![HostCommand::Compact],
                turn,
                note,
            })
        }
        "init" => {
            let text = if rest.is_empty() {
                INIT_PROMPT.to_owned()
            } else {
                format!("{INIT_PROMPT}\n\n{rest}")
            };
            Ok(PromptPlan::turn(PromptInput { text, attachments }))
        }
        "model" if rest.is_empty() => {
            Err("/model needs a name: /model NAME (a [models] alias or a model id)".to_owned())
        }
        "model" if !attachments.is_empty() => {
            Err("/model takes a name only; send the attachments with a prompt".to_owned())
        }
        "model" => Ok(PromptPlan {
            note: Some(format!(
                "The model is now {rest}, from the next request on."
            )),
            commands: vec![HostCommand::SetModel { model: rest }],
            turn: None,
        }),
        _ => Ok(PromptPlan::turn(PromptInput {
            text: input.text,
            attachments,
        })),
    }
}

/// The command `text` starts with (one of [`COMMANDS`]) and the rest of it, trimmed.
fn command_of(text: &str) -> Option<(&'static str, &str)> {
    let line = text.trim_start().strip_prefix('/')?;
    let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    COMMANDS
        .iter()
        .find(|(known, _, _)| *known == name)
        .map(|(known, _, _)| (*known, rest.trim()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use kigi_protocol::Attachment;

    fn text(text: &str) -> PromptInput {
        PromptInput {
            text: text.into(),
            attachments: Vec::new(),
        }
    }

    #[test]
    fn compact_alone_compacts_and_tells_and_with_more_runs_that_as_the_turn() {
        assert_eq!(
            plan(text("/compact")).unwrap(),
            PromptPlan {
                commands: vec![HostCommand::Compact],
                turn: None,
                note: Some("The conversation is compacted before the next turn.".into()),
            }
        );
        assert_eq!(
            plan(text("/compact\nthen fix the test")).unwrap(),
            PromptPlan {
                commands: vec![HostCommand::Compact],
                turn: Some(text("then fix the test")),
                note: None,
            }
        );
    }

    #[test]
    fn init_sends_the_shared_prompt_with_what_follows() {
        let plan = plan(text("/init mention the benches")).unwrap();
        assert!(plan.commands.is_empty());
        assert_eq!(
            plan.turn.unwrap().text,
            format!("{INIT_PROMPT}\n\nmention the benches")
        );
    }

    #[test]
    fn model_switches_and_needs_a_name() {
        let plan_of = plan(text("/model fast")).unwrap();
        assert_eq!(
            plan_of.commands,
            [HostCommand::SetModel {
                model: "fast".into()
            }]
        );
        assert_eq!(plan_of.turn, None);
        assert!(plan(text("/model")).unwrap_err().contains("/model NAME"));
        let with_file = PromptInput {
            text: "/model fast".into(),
            attachments: vec![Attachment::File { path: "a".into() }],
        };
        assert!(plan(with_file).is_err());
    }

    #[test]
    fn a_slash_that_names_no_command_is_an_ordinary_prompt() {
        for prompt in ["/usr/lib is slow", "/compacting", "explain /init", "/"] {
            assert_eq!(plan(text(prompt)).unwrap(), PromptPlan::turn(text(prompt)));
        }
    }

    #[test]
    fn every_command_is_advertised_with_its_hint() {
        let json = serde_json::to_value(available_commands()).unwrap();
        assert_eq!(json[0]["name"], "compact");
        assert_eq!(
            json[1],
            serde_json::json!({"name": "init", "description": "survey this repository and write its AGENTS.md"})
        );
        assert_eq!(json[2]["input"]["hint"], "a [models] alias or a model id");
        // Each does something other than pass the line on as a prompt.
        for (name, _, _) in COMMANDS {
            let line = format!("/{name} x");
            assert_ne!(
                plan(text(&line)),
                Ok(PromptPlan::turn(text(&line))),
                "{name}"
            );
        }
    }
}
