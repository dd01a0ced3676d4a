//! `kigi swarm --resume`: the members a swarm still owes. Pure: the recorded request is
//! planned again (so today's configuration still judges it: a type removed since, an
//! executor renamed), then narrowed to the items whose latest run did not complete. Members
//! keep their item index, so reports and records line up with the first run's.

use super::plan::{PlanContext, PlanFault, SwarmPlan, plan_with_effort};
use super::record::RecordedSwarm;

/// The plan of a resumed swarm; `executor` replaces the recorded one when given (a cluster
/// that moved, or a rerun in this process after a cluster failed).
pub fn resume_plan(
    recorded: &RecordedSwarm,
    executor: Option<&str>,
    context: &dyn PlanContext,
) -> Result<SwarmPlan, Vec<PlanFault>> {
    let mut request = recorded.request.to_request();
    if let Some(executor) = executor {
        request.executor = Some(executor.to_owned());
    }
    let mut plan = plan_with_effort(&request, recorded.request.effort.as_deref(), context)?;
    let completed = recorded.completed();
    plan.members
        .retain(|member| !completed.contains(&member.index));
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::subagent::SpawnError;
    use crate::swarm::engine::SwarmOutcome;
    use crate::swarm::plan::SwarmRequest;
    use crate::swarm::record::{RecordedMember, RecordedRequest};

    struct Anything;

    impl PlanContext for Anything {
        fn depth(&self) -> u8 {
            0
        }
        fn check_type(&self, _: &str) -> Result<(), SpawnError> {
            Ok(())
        }
        fn check_model(&self, _: &str) -> Result<(), SpawnError> {
            Ok(())
        }
        fn check_binding(
            &self,
            _: &str,
            _: Option<&str>,
            _: Option<kigi_model::ReasoningEffort>,
        ) -> Result<(), SpawnError> {
            Ok(())
        }
        fn check_executor(&self, _: &str) -> Result<(), SpawnError> {
            Ok(())
        }
    }

    fn ended(index: usize, outcome: SwarmOutcome) -> (usize, RecordedMember) {
        let member = RecordedMember {
            index,
            outcome,
            id: None,
            error: None,
            attempts: 1,
            tokens: 0,
        };
        (index, member)
    }

    #[test]
    fn only_members_that_did_not_complete_run_again_with_their_item_index() {
        let request = SwarmRequest {
            description: "d".into(),
            prompt_template: "do {{item}}".into(),
            items: (0..5).map(|n| format!("i{n}")).collect(),
            executor: Some("slurm".into()),
            batch: true,
            ..SwarmRequest::default()
        };
        let recorded = RecordedSwarm {
            request: RecordedRequest::of(&request, None),
            members: BTreeMap::from([
                ended(0, SwarmOutcome::Completed),
                ended(1, SwarmOutcome::Failed),
                ended(2, SwarmOutcome::Completed),
                ended(3, SwarmOutcome::StillRunning),
            ]),
        };
        let plan = resume_plan(&recorded, None, &Anything).unwrap();
        let rerun: Vec<(usize, &str)> = plan
            .members
            .iter()
            .map(|m| (m.index, m.prompt.as_str()))
            .collect();
        // 4 never reported (the process died before it ended): it runs again too.
        assert_eq!(rerun, [(1, "do i1"), (3, "do i3"), (4, "do i4")]);
        assert_eq!(plan.executor.as_deref(), Some("slurm"));
        let local = resume_plan(&recorded, Some("ssh"), &Anything).unwrap();
        assert_eq!(local.executor.as_deref(), Some("ssh"));
    }
}
