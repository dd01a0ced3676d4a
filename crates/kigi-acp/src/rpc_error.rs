//! kigi's failures as the JSON-RPC errors an editor gets for a request.
//!
//! The rule: the message names what is at fault (the session, the file, the mode), and the
//! code says whose fault it is: `invalid_params` for what the editor sent, `resource_not_found`
//! for a session that is not there, `internal_error` for kigi's own.

use agent_client_protocol::{Error, ErrorCode};
use kigi_core::StoreError;
use kigi_core::host::HostError;
use kigi_model::ModelConfigError;
use serde_json::json;

/// A request about a session this connection has not opened.
pub(crate) fn unknown_session(id: &str) -> Error {
    Error::new(
        ErrorCode::RESOURCE_NOT_FOUND,
        format!("no session `{id}` in this connection (session/new or session/load it first)"),
    )
}

/// A session file that cannot be loaded.
pub(crate) fn store_error(error: &StoreError) -> Error {
    match error {
        StoreError::NotFound { .. } | StoreError::BadId(_) => {
            Error::new(ErrorCode::RESOURCE_NOT_FOUND, error.to_string())
        }
        _ => Error::new(ErrorCode::INTERNAL_ERROR, error.to_string()),
    }
}

/// A command or an open the host refused.
pub(crate) fn host_error(error: &HostError) -> Error {
    match error {
        HostError::Store(store) => store_error(store),
        // A key that is not there is a sign-in the editor can offer (`kimi-code`).
        HostError::Model(ModelConfigError::MissingApiKey { .. }) => {
            Error::new(ErrorCode::AUTH_REQUIRED, error.to_string())
        }
        HostError::UnknownPermissionMode { .. } | HostError::Model(_) => {
            invalid_params(error.to_string())
        }
        // The message names the file (or image) at fault, so the editor can show it as is.
        HostError::Attachment(_) => Error::new(ErrorCode::INVALID_PARAMS, error.to_string())
            .data(json!({"reason": error.to_string()})),
        _ => Error::new(ErrorCode::INTERNAL_ERROR, error.to_string()),
    }
}

/// What the editor sent cannot be taken, for `reason`.
pub(crate) fn invalid_params(reason: impl Into<String>) -> Error {
    Error::invalid_params().data(json!({"reason": reason.into()}))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use kigi_core::attachments::AttachmentError;

    #[test]
    fn a_refused_attachment_is_invalid_params_naming_the_file() {
        let error = host_error(&HostError::Attachment(AttachmentError::NotAFile {
            path: "src".into(),
        }));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(error.message, "attachment src: not a regular file");
    }
}
