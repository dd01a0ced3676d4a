//! What changes about a session's children while it runs: a subagent type or a persona
//! switched on or off for this session (the terminal's agents modal), the main agent's model (`/model`), which
//! children that inherit their parent's model follow from their next spawn, and the files
//! that define types, personas and roles, which are read when used (live, without a watcher).
//!
//! The rules: a session choice beats `[subagents.toggle]` for this session only, and the file
//! is the front end's to write; a running or resumed child keeps what it started with.

use std::collections::BTreeMap;
use std::sync::Mutex;

use kigi_model::ModelClient;

use super::{Coordinator, SpawnError};
use crate::lock::lock;

/// Choices made during the session.
#[derive(Debug, Default)]
pub(crate) struct SessionChoices {
    /// Types switched on (`true`) or off (`false`) for this session.
    toggles: Mutex<BTreeMap<String, bool>>,
    /// Personas switched on or off for this session.
    persona_toggles: Mutex<BTreeMap<String, bool>>,
    /// The main agent's model since `SetModel`.
    parent_client: Mutex<Option<ModelClient>>,
}

impl Coordinator {
    /// Whether `agent_type` may be spawned: this session's choice, else `[subagents.toggle]`.
    pub(crate) fn type_enabled(&self, agent_type: &str) -> bool {
        // A route is on only while its base profile is.
        if let Some((base, _)) = agent_type.split_once('.')
            && !self.type_enabled(base)
        {
            return false;
        }
        lock(&self.choices.toggles)
            .get(agent_type)
            .copied()
            .unwrap_or_else(|| self.setup.discovery.subagents.type_enabled(agent_type))
    }

    /// Switches `agent_type` on or off for this session's next spawns (and for the spawn
    /// tools' descriptions from the next request). A type nothing defines is an error naming
    /// it; one whose file does not load can still be switched (off, typically).
    pub fn set_type_enabled(&self, agent_type: &str, enabled: bool) -> Result<(), SpawnError> {
        let cwd = &self.setup.cwd;
        let report = self.setup.discovery.discover(cwd);
        let known = report.get(agent_type).is_some()
            || report.failed.iter().any(|f| f.name == agent_type)
            || self.roles().get(agent_type).is_some()
            || self.setup.discovery.routes(cwd).get(agent_type).is_some();
        if !known {
            return Err(SpawnError::UnknownType {
                agent_type: agent_type.to_owned(),
                available: self.available_types().into_iter().map(|(n, _)| n).collect(),
            });
        }
        lock(&self.choices.toggles).insert(agent_type.to_owned(), enabled);
        Ok(())
    }

    /// The personas as the files say now: like agent files, they are read when used, so one
    /// added or edited while the session runs counts from the next spawn; this session's
    /// switches beat `[subagents.persona_toggle]`.
    pub(crate) fn personas(&self) -> kigi_agent::PersonaSet {
        let mut set = kigi_agent::PersonaSet::discover(
            &self.setup.discovery.subagents,
            &self.setup.discovery.paths,
            &self.setup.cwd,
        );
        for (name, on) in lock(&self.choices.persona_toggles).iter() {
            set.switch(name, *on);
        }
        set
    }

    /// Switches persona `persona` on or off for this session's next spawns; one nothing
    /// defines is an error naming the personas there are.
    pub fn set_persona_enabled(&self, persona: &str, enabled: bool) -> Result<(), SpawnError> {
        let set = self.personas();
        if set.get(persona).is_none() {
            let known: Vec<&str> = set.entries.keys().map(String::as_str).collect();
            return Err(SpawnError::Persona {
                persona: persona.to_owned(),
                reason: format!(
                    "persona `{persona}` not found; available: {}",
                    known.join(", ")
                ),
            });
        }
        lock(&self.choices.persona_toggles).insert(persona.to_owned(), enabled);
        Ok(())
    }

    /// The roles as the files say now (see [`Self::personas`]).
    pub(crate) fn roles(&self) -> kigi_agent::RoleSet {
        kigi_agent::RoleSet::discover(
            &self.setup.discovery.subagents,
            &self.setup.discovery.paths,
            &self.setup.cwd,
        )
    }

    /// The client a child that inherits its parent's model gets.
    pub(crate) fn parent_client(&self) -> ModelClient {
        lock(&self.choices.parent_client)
            .clone()
            .unwrap_or_else(|| self.setup.parent_client.clone())
    }

    /// The main agent's model changed: children spawned from now on inherit `client`.
    pub fn set_parent_client(&self, client: ModelClient) {
        *lock(&self.choices.parent_client) = Some(client);
    }
}
