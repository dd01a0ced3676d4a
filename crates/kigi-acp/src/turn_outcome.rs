//! How a turn ended, as the answer to `session/prompt`: a stop reason, or a JSON-RPC error
//! for a turn that failed.
//!
//! The rule: a turn that ended by design (answered, cancelled, out of steps, refused by a
//! hook, out of tokens) is a stop reason; one that failed is an error whose `data.code` is
//! kigi's stable error code (`model.rate_limited`, …), so an editor can tell them apart.

use agent_client_protocol::v1::schema::StopReason;
use agent_client_protocol::{Error, ErrorCode};
use kigi_core::{TurnError, TurnSummary};
use serde_json::json;

/// The answer to the prompt whose turn ended with `outcome`.
pub fn stop_reason(outcome: &Result<TurnSummary, TurnError>) -> Result<StopReason, Error> {
    match outcome {
        Ok(_) => Ok(StopReason::EndTurn),
        Err(TurnError::Cancelled) => Ok(StopReason::Cancelled),
        Err(TurnError::MaxTurns(_)) => Ok(StopReason::MaxTurnRequests),
        Err(TurnError::HookBlocked(_)) => Ok(StopReason::Refusal),
        Err(TurnError::TokenBudget { .. }) => Ok(StopReason::MaxTokens),
        Err(error) => Err(Error::new(ErrorCode::INTERNAL_ERROR, error.to_string())
            .data(json!({"code": error.code().to_string()}))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn ends_by_design_are_stop_reasons_and_failures_are_errors_with_the_code() {
        assert_eq!(
            stop_reason(&Err(TurnError::Cancelled)).unwrap(),
            StopReason::Cancelled
        );
        assert_eq!(
            stop_reason(&Err(TurnError::MaxTurns(3))).unwrap(),
            StopReason::MaxTurnRequests
        );
        assert_eq!(
            stop_reason(&Err(TurnError::HookBlocked("no".into()))).unwrap(),
            StopReason::Refusal
        );
        let error = stop_reason(&Err(TurnError::EmptyCompletion)).unwrap_err();
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(
            error.data.map(|d| d["code"].clone()),
            Some(json!("loop.empty_completion"))
        );
    }
}
