//! A child's model binding: which model and effort it runs with (each with the layer that
//! chose it), checked against the model policy of every scope that applies (`[subagents]` in
//! `config.toml`, then its type's agent file), with the soft lists' advice.
//!
//! The rule: the binding is checked before anything starts, and a hard list refuses it with
//! an error naming the list and where it was set; soft lists never refuse.

use kigi_agent::{AgentDefinition, Binding, ModelAdvice, ModelPolicy, PolicyScope};
use kigi_model::{ModelClient, ReasoningEffort};

use super::coordinator::Coordinator;
use super::model_layers::{ModelLayers, ModelSource, pick_model};
use super::spawn_error::SpawnError;

/// What a binding is made from, besides the type's definition.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BindingRequest<'a> {
    pub agent_type: &'a str,
    pub spawn_model: Option<&'a str>,
    pub spawn_effort: Option<ReasoningEffort>,
    pub role: Option<&'a kigi_agent::Role>,
    pub persona: Option<&'a kigi_agent::Persona>,
    /// A resumed child keeps its source's model.
    pub resumed: Option<&'a ModelClient>,
}

/// The model and effort a child runs with.
#[derive(Debug)]
pub(super) struct ModelBinding {
    pub client: ModelClient,
    pub model_source: &'static str,
    pub effort: Option<ReasoningEffort>,
    /// `high (persona)`: the effort and its layer, for the result.
    pub effort_label: Option<String>,
    pub advice: Vec<ModelAdvice>,
    /// The type's `model_profiles` entry for the bound model (the first that names it).
    pub profile: Option<kigi_agent::ModelProfile>,
}

impl Coordinator {
    /// The model policy a child of type `definition` runs under.
    pub(super) fn model_policy(&self, definition: &AgentDefinition) -> ModelPolicy {
        ModelPolicy::new()
            .narrowed_by(self.setup.discovery.subagents.policy_scope())
            .narrowed_by(self.setup.parent_policy.clone())
            .narrowed_by(PolicyScope::of_agent(definition))
    }

    /// Picks the model and effort from their layers and checks them against the policy.
    pub(super) fn bind_model(
        &self,
        definition: &AgentDefinition,
        request: BindingRequest<'_>,
    ) -> Result<ModelBinding, SpawnError> {
        let (client, model_source) = match request.resumed {
            Some(client) => (client.clone(), "resumed source"),
            None => self.pick_client(definition, &request)?,
        };
        let models = &self.setup.models.models;
        let identity = |entry: &str| {
            models
                .get(entry)
                .and_then(|settings| settings.model.clone())
                .unwrap_or_else(|| entry.to_owned())
        };
        // The entries that name the bound model (configured aliases only): the first gives
        // the defaults, every one adds its hard lists.
        let matching: Vec<&kigi_agent::ModelProfile> = definition
            .model_profiles
            .iter()
            .filter(|p| models.contains_key(&p.alias))
            .filter(|p| identity(&p.alias) == client.endpoint().model)
            .collect();
        let profile = matching.first().copied();
        let (effort, effort_from) = self.pick_effort(definition, profile, &request)?;
        let client =
            match (request.resumed, profile) {
                (None, Some(profile)) => super::model_profile_caps::apply(&client, profile)
                    .map_err(|source| SpawnError::Model {
                        alias: profile.alias.clone(),
                        layer: "model_profiles",
                        source,
                    })?,
                _ => client,
            };
        let endpoint = client.endpoint();
        let binding = Binding {
            model: &endpoint.alias,
            model_id: &endpoint.model,
            model_from: model_source,
            effort,
            effort_from: effort_from.unwrap_or("model's default"),
        };
        let policy = matching
            .iter()
            .fold(self.model_policy(definition), |policy, entry| {
                policy.narrowed_by(PolicyScope {
                    source: format!(
                        "model_profiles entry `{}` of agent `{}`",
                        entry.alias, definition.name
                    ),
                    lists: entry.lists.clone(),
                    menu: None,
                })
            });
        let advice = policy
            .check(&binding, &identity)
            .map_err(|violation| SpawnError::Policy {
                agent_type: request.agent_type.to_owned(),
                violation: Box::new(violation),
            })?;
        Ok(ModelBinding {
            effort_label: effort
                .zip(effort_from)
                .map(|(effort, from)| format!("{} ({from})", effort.as_str())),
            client,
            model_source,
            effort,
            advice,
            profile: profile.cloned(),
        })
    }

    fn pick_client(
        &self,
        definition: &AgentDefinition,
        request: &BindingRequest<'_>,
    ) -> Result<(ModelClient, &'static str), SpawnError> {
        let routed = self
            .setup
            .discovery
            .subagents
            .models
            .get(request.agent_type)
            .map(String::as_str);
        let aliases = self.setup.models.aliases();
        let definition_alias = match definition.model.effective(&aliases) {
            kigi_agent::ModelChoice::Named(alias) => Some(alias),
            kigi_agent::ModelChoice::Inherit => None,
        };
        let pick = pick_model(ModelLayers {
            spawn: request.spawn_model,
            role: request.role.and_then(|r| r.model.as_deref()),
            persona: request.persona.and_then(|p| p.model.as_deref()),
            routed,
            definition: definition_alias.as_deref(),
        });
        let client = match &pick.alias {
            None => self.parent_client(),
            Some(alias) => self.client_for(alias).map_err(|source| SpawnError::Model {
                alias: alias.clone(),
                layer: pick.source.as_str(),
                source,
            })?,
        };
        Ok((client, pick.source.as_str()))
    }

    /// The effort: spawn-time, then the persona's, then the bound model's `model_profiles`
    /// entry, then the type's `effort`; `None` leaves the model's default. An effort that is
    /// not one is refused wherever it was written.
    fn pick_effort(
        &self,
        definition: &AgentDefinition,
        profile: Option<&kigi_agent::ModelProfile>,
        request: &BindingRequest<'_>,
    ) -> Result<(Option<ReasoningEffort>, Option<&'static str>), SpawnError> {
        if let Some(effort) = request.spawn_effort {
            return Ok((Some(effort), Some(ModelSource::SpawnOverride.as_str())));
        }
        if let Some(effort) = request.persona.and_then(|p| p.reasoning_effort.as_deref()) {
            let parsed =
                ReasoningEffort::parse(effort).ok_or_else(|| SpawnError::PersonaEffort {
                    effort: effort.to_owned(),
                })?;
            return Ok((Some(parsed), Some(ModelSource::Persona.as_str())));
        }
        if let Some(effort) = profile.and_then(|p| p.thinking_effort.as_deref()) {
            let parsed =
                ReasoningEffort::parse(effort).ok_or_else(|| SpawnError::DefinitionEffort {
                    agent_type: request.agent_type.to_owned(),
                    effort: effort.to_owned(),
                })?;
            return Ok((Some(parsed), Some("model_profiles")));
        }
        if let Some(effort) = &definition.effort {
            let parsed =
                ReasoningEffort::parse(effort).ok_or_else(|| SpawnError::DefinitionEffort {
                    agent_type: request.agent_type.to_owned(),
                    effort: effort.clone(),
                })?;
            return Ok((Some(parsed), Some(ModelSource::Definition.as_str())));
        }
        Ok((None, None))
    }

    /// Whether a child of `agent_type` with these spawn-time picks would be bound, without
    /// starting anything (a swarm checks this once, before any member starts).
    pub(crate) fn check_binding(
        &self,
        agent_type: &str,
        model: Option<&str>,
        effort: Option<ReasoningEffort>,
    ) -> Result<(), SpawnError> {
        let (definition, role) = self.type_definition(agent_type)?;
        let role = role.and_then(|name| self.roles().get(&name).map(|e| e.value.clone()));
        let persona = role
            .as_ref()
            .and_then(|r| r.persona.as_deref())
            .and_then(|name| self.personas().get(name).map(|e| e.value.clone()));
        self.bind_model(
            &definition,
            BindingRequest {
                agent_type,
                spawn_model: model,
                spawn_effort: effort,
                role: role.as_ref(),
                persona: persona.as_ref(),
                resumed: None,
            },
        )
        .map(|_| ())
    }
}
