//! `plan`: validate a swarm request and expand its template over the items. Pure. Every
//! fault is reported at once, before a single member starts: a half-launched swarm is
//! expensive to unwind.

use std::collections::HashSet;

use kigi_tools::CapabilityMode;

use kigi_model::ReasoningEffort;

use crate::subagent::{SpawnError, parse_capability_mode, parse_effort, parse_isolation};

/// The placeholder every template must contain.
pub const ITEM_PLACEHOLDER: &str = "{{item}}";
/// Fewest and most items. `MAX_ITEMS` is seed 004's bound on the `agent_swarm` tool: one
/// tool result must hold every member's answer.
pub const MIN_ITEMS: usize = 2;
pub const MAX_ITEMS: usize = 128;
/// Most items of `kigi swarm`, a batch run whose members' results stream out as they finish
/// and whose transcripts go to disk, so nothing has to fit in one answer.
pub const MAX_BATCH_ITEMS: usize = 10_000;

/// What the caller asked for (a batch's is recorded as it is, in `swarm.jsonl`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SwarmRequest {
    pub description: String,
    pub prompt_template: String,
    pub items: Vec<String>,
    pub subagent_type: Option<String>,
    pub capability_mode: Option<String>,
    pub isolation: Option<String>,
    pub model: Option<String>,
    /// Run every member on this `[agent_executors.<id>]` instead of in this process.
    pub executor: Option<String>,
    /// `kigi swarm` (up to [`MAX_BATCH_ITEMS`]) rather than the tool (up to [`MAX_ITEMS`]).
    pub batch: bool,
}

impl SwarmRequest {
    /// The most items this kind of swarm takes.
    pub fn max_items(&self) -> usize {
        if self.batch {
            MAX_BATCH_ITEMS
        } else {
            MAX_ITEMS
        }
    }
}

/// What the planner may ask of its surroundings.
pub trait PlanContext {
    /// 0 for a main agent; a child (1) cannot start a swarm.
    fn depth(&self) -> u8;
    /// `Err(why)` when `agent_type` cannot be spawned.
    fn check_type(&self, agent_type: &str) -> Result<(), SpawnError>;
    /// `Err(why)` when an explicitly requested model cannot be used.
    fn check_model(&self, model: &str) -> Result<(), SpawnError>;
    /// `Err(why)` when a member of `agent_type` with these picks breaks a hard model list.
    fn check_binding(
        &self,
        agent_type: &str,
        model: Option<&str>,
        effort: Option<ReasoningEffort>,
    ) -> Result<(), SpawnError>;
    /// `Err(why)` when `executor` is not a configured `[agent_executors.<id>]`.
    fn check_executor(&self, executor: &str) -> Result<(), SpawnError>;
}

/// One reason a swarm request was not started.
#[derive(Debug, thiserror::Error)]
pub enum PlanFault {
    /// The caller is itself a subagent.
    #[error("depth limit: a subagent cannot start a swarm")]
    DepthLimit,
    /// `description` is blank.
    #[error("description is empty")]
    EmptyDescription,
    /// `prompt_template` lacks the item placeholder.
    #[error("prompt_template does not contain {ITEM_PLACEHOLDER}")]
    NoPlaceholder,
    /// `items` has fewer than [`MIN_ITEMS`].
    #[error("items has {count}; a swarm needs at least {MIN_ITEMS} (use spawn_subagent for one)")]
    TooFewItems {
        /// How many items were given.
        count: usize,
    },
    /// `items` has more than this kind of swarm takes.
    #[error("items has {count}; at most {max}")]
    TooManyItems {
        /// How many items were given.
        count: usize,
        /// The bound ([`MAX_ITEMS`] or [`MAX_BATCH_ITEMS`]).
        max: usize,
    },
    /// Some items expand to a prompt an earlier item already has.
    #[error("items {} expand to prompts already in the list", items.join(", "))]
    DuplicatePrompts {
        /// The later items, as `#position ("item")`.
        items: Vec<String>,
    },
    /// `subagent_type` cannot be spawned.
    #[error(transparent)]
    Type(SpawnError),
    /// `model` cannot be used.
    #[error(transparent)]
    Model(SpawnError),
    /// The members' model or effort breaks a hard model list.
    #[error(transparent)]
    Binding(SpawnError),
    /// `executor` is not configured.
    #[error(transparent)]
    Executor(SpawnError),
    /// `capability_mode` or `isolation` is not a known value (the message names the field).
    #[error("{reason}")]
    Argument {
        /// What is wrong, naming the field and value.
        reason: String,
    },
}

/// One member to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSpec {
    /// Position in `items` (results are reported in this order).
    pub index: usize,
    pub item: String,
    pub prompt: String,
}

/// A validated swarm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwarmPlan {
    pub description: String,
    pub subagent_type: String,
    pub capability_mode: Option<CapabilityMode>,
    pub worktree: bool,
    pub model: Option<String>,
    /// Every member's reasoning effort, when one was asked for.
    pub effort: Option<ReasoningEffort>,
    /// Where members run: `[agent_executors.<id>]`, or this process.
    pub executor: Option<String>,
    /// A `kigi swarm` batch: finished members are let go (their transcripts are on disk),
    /// so memory does not grow with the number of items.
    pub batch: bool,
    pub members: Vec<MemberSpec>,
}

/// Validates and expands, reporting every fault.
pub fn plan(
    request: &SwarmRequest,
    context: &dyn PlanContext,
) -> Result<SwarmPlan, Vec<PlanFault>> {
    plan_with_effort(request, None, context)
}

/// [`plan`] with every member's `effort` (`low`, `medium` or `high`), checked with the rest.
pub fn plan_with_effort(
    request: &SwarmRequest,
    effort: Option<&str>,
    context: &dyn PlanContext,
) -> Result<SwarmPlan, Vec<PlanFault>> {
    let mut faults = Vec::new();
    if context.depth() > 0 {
        faults.push(PlanFault::DepthLimit);
    }
    if request.description.trim().is_empty() {
        faults.push(PlanFault::EmptyDescription);
    }
    if !request.prompt_template.contains(ITEM_PLACEHOLDER) {
        faults.push(PlanFault::NoPlaceholder);
    }
    let count = request.items.len();
    if count < MIN_ITEMS {
        faults.push(PlanFault::TooFewItems { count });
    } else if count > request.max_items() {
        faults.push(PlanFault::TooManyItems {
            count,
            max: request.max_items(),
        });
    }
    let members: Vec<MemberSpec> = request
        .items
        .iter()
        .enumerate()
        .map(|(index, item)| MemberSpec {
            index,
            item: item.clone(),
            prompt: request.prompt_template.replace(ITEM_PLACEHOLDER, item),
        })
        .collect();
    let mut seen = HashSet::new();
    let mut duplicates = Vec::new();
    for member in &members {
        if !seen.insert(member.prompt.as_str()) {
            duplicates.push(format!("#{} ({:?})", member.index + 1, member.item));
        }
    }
    if !duplicates.is_empty() {
        faults.push(PlanFault::DuplicatePrompts { items: duplicates });
    }
    let subagent_type = request.subagent_type.as_deref().map_or_else(
        || kigi_agent::DEFAULT_SUBAGENT_TYPE.to_owned(),
        |t| kigi_agent::canonical_agent_type(t).into_owned(),
    );
    if let Err(error) = context.check_type(&subagent_type) {
        faults.push(PlanFault::Type(error));
    }
    let mut problems = Vec::new();
    let capability_mode = parse_capability_mode(request.capability_mode.as_deref(), &mut problems);
    let worktree = parse_isolation(request.isolation.as_deref(), &mut problems);
    let effort = parse_effort(effort, &mut problems);
    faults.extend(
        problems
            .into_iter()
            .map(|reason| PlanFault::Argument { reason }),
    );
    if let Some(model) = &request.model
        && let Err(error) = context.check_model(model)
    {
        faults.push(PlanFault::Model(error));
    }
    if let Some(executor) = &request.executor
        && let Err(error) = context.check_executor(executor)
    {
        faults.push(PlanFault::Executor(error));
    }
    if !faults.is_empty() {
        return Err(faults);
    }
    // Only a request that is otherwise sound is bound: its type and model are known.
    if let Err(error) = context.check_binding(&subagent_type, request.model.as_deref(), effort) {
        return Err(vec![PlanFault::Binding(error)]);
    }
    Ok(SwarmPlan {
        description: request.description.trim().to_owned(),
        subagent_type,
        capability_mode,
        worktree,
        model: request.model.clone(),
        effort,
        executor: request.executor.clone(),
        batch: request.batch,
        members,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Context {
        depth: u8,
    }

    impl PlanContext for Context {
        fn depth(&self) -> u8 {
            self.depth
        }
        fn check_type(&self, agent_type: &str) -> Result<(), SpawnError> {
            if agent_type == "general-purpose" || agent_type == "explore" {
                Ok(())
            } else {
                Err(SpawnError::UnknownType {
                    agent_type: agent_type.to_owned(),
                    available: vec!["general-purpose".into(), "explore".into()],
                })
            }
        }
        fn check_executor(&self, executor: &str) -> Result<(), SpawnError> {
            if executor == "slurm" {
                Ok(())
            } else {
                Err(SpawnError::UnknownExecutor {
                    executor: executor.to_owned(),
                    known: vec!["slurm".into()],
                })
            }
        }
        fn check_model(&self, model: &str) -> Result<(), SpawnError> {
            if model == "kimi" {
                Ok(())
            } else {
                Err(SpawnError::ModelAlias {
                    alias: model.to_owned(),
                    source: kigi_model::ModelConfigError::UnknownAlias {
                        name: model.to_owned(),
                        known: "kimi".into(),
                    },
                })
            }
        }
        fn check_binding(
            &self,
            agent_type: &str,
            _model: Option<&str>,
            effort: Option<ReasoningEffort>,
        ) -> Result<(), SpawnError> {
            match effort {
                Some(ReasoningEffort::Low) => Err(SpawnError::Policy {
                    agent_type: agent_type.to_owned(),
                    violation: Box::new(kigi_agent::ModelPolicyError::EffortNotAllowed {
                        effort: "low".into(),
                        from: "spawn-time override".into(),
                        allowed: "high".into(),
                        set_by: "[subagents] in config.toml".into(),
                    }),
                }),
                _ => Ok(()),
            }
        }
    }

    #[test]
    fn an_unknown_effort_is_a_fault_and_a_hard_list_refuses_before_any_member_starts() {
        let faults = plan_with_effort(&request(&["a", "b"]), Some("max"), &Context { depth: 0 })
            .unwrap_err();
        assert_eq!(
            texts(&faults),
            ["effort `max` is unknown (low, medium or high)"]
        );
        let faults = plan_with_effort(&request(&["a", "b"]), Some("low"), &Context { depth: 0 })
            .unwrap_err();
        assert!(
            texts(&faults)[0].starts_with(
                "profile.constraint_violation: subagent_type `general-purpose`: effort `low`"
            ),
            "{faults:?}"
        );
        let plan =
            plan_with_effort(&request(&["a", "b"]), Some("high"), &Context { depth: 0 }).unwrap();
        assert_eq!(plan.effort, Some(ReasoningEffort::High));
    }

    fn texts(faults: &[PlanFault]) -> Vec<String> {
        faults.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_fault_keeps_its_kind_and_text() {
        let faults = plan(&request(&["a"]), &Context { depth: 1 }).unwrap_err();
        assert!(matches!(faults[0], PlanFault::DepthLimit));
        assert!(matches!(faults[1], PlanFault::TooFewItems { count: 1 }));
        assert_eq!(
            texts(&faults),
            [
                "depth limit: a subagent cannot start a swarm",
                "items has 1; a swarm needs at least 2 (use spawn_subagent for one)"
            ]
        );
    }

    fn request(items: &[&str]) -> SwarmRequest {
        SwarmRequest {
            description: "review files".into(),
            prompt_template: "Review {{item}} carefully.".into(),
            items: items.iter().map(|s| (*s).to_owned()).collect(),
            ..SwarmRequest::default()
        }
    }

    #[test]
    fn expands_the_template_in_item_order() {
        let plan = plan(&request(&["a.rs", "b.rs"]), &Context { depth: 0 }).unwrap();
        assert_eq!(plan.subagent_type, "general-purpose");
        let prompts: Vec<&str> = plan.members.iter().map(|m| m.prompt.as_str()).collect();
        assert_eq!(
            prompts,
            ["Review a.rs carefully.", "Review b.rs carefully."]
        );
    }

    #[test]
    fn every_fault_is_reported_at_once() {
        let bad = SwarmRequest {
            description: " ".into(),
            prompt_template: "Review it.".into(),
            items: vec!["x".into()],
            subagent_type: Some("wizard".into()),
            capability_mode: Some("root".into()),
            isolation: Some("vm".into()),
            model: Some("gpt-9".into()),
            executor: Some("nowhere".into()),
            batch: false,
        };
        let faults = plan(&bad, &Context { depth: 1 }).unwrap_err();
        let text = texts(&faults).join("\n");
        for expected in [
            "depth limit",
            "description is empty",
            "does not contain {{item}}",
            "items has 1; a swarm needs at least 2",
            "unknown subagent_type `wizard`",
            "capability_mode `root`",
            "isolation `vm`",
            "model `gpt-9` cannot be used: unknown model alias `gpt-9`",
            "nowhere",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert_eq!(faults.len(), 9);
        assert!(matches!(faults[8], PlanFault::Executor(_)), "{faults:?}");
    }

    #[test]
    fn too_many_items_and_duplicates_are_faults() {
        let many: Vec<String> = (0..129).map(|n| format!("f{n}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(
            plan(&request(&refs), &Context { depth: 0 }).unwrap_err()[0]
                .to_string()
                .contains("items has 129; at most 128")
        );
        let faults = plan(&request(&["a", "b", "a"]), &Context { depth: 0 }).unwrap_err();
        assert_eq!(
            texts(&faults),
            ["items #3 (\"a\") expand to prompts already in the list"]
        );
        assert!(plan(&request(&refs[..128]), &Context { depth: 0 }).is_ok());
    }

    #[test]
    fn a_batch_takes_ten_thousand_items_and_names_its_executor() {
        let many: Vec<String> = (0..=MAX_BATCH_ITEMS).map(|n| format!("f{n}")).collect();
        let mut batch = SwarmRequest {
            items: many[..MAX_BATCH_ITEMS].to_vec(),
            batch: true,
            executor: Some("slurm".into()),
            ..request(&[])
        };
        let planned = plan(&batch, &Context { depth: 0 }).unwrap();
        assert_eq!(planned.members.len(), MAX_BATCH_ITEMS);
        assert_eq!(planned.executor.as_deref(), Some("slurm"));
        assert!(planned.batch);
        batch.items = many;
        assert_eq!(
            texts(&plan(&batch, &Context { depth: 0 }).unwrap_err()),
            ["items has 10001; at most 10000"]
        );
    }
}
