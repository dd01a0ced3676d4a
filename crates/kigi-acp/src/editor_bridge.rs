//! File tools through the editor: an [`EditorFiles`] over the ACP connection
//! (`fs/read_text_file`, `fs/write_text_file`), which the host hands the main agent's file
//! tools and its children's.
//!
//! The rule: only the bytes move to the editor. The tools are the built-ins, so a path is
//! resolved and judged (secrets, write root, and the runtime's permission checks before the
//! call) exactly as in a terminal session.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use kigi_tools::{EditorFileError, EditorFiles, EditorFuture};

/// The editor of one ACP session.
pub(crate) struct EditorBridge {
    connection: ConnectionTo<Client>,
    /// Set once the host has named the session (before its first turn).
    session_id: Arc<OnceLock<String>>,
}

impl std::fmt::Debug for EditorBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorBridge")
            .field("session_id", &self.session_id.get())
            .finish_non_exhaustive()
    }
}

impl EditorBridge {
    pub(crate) fn new(connection: ConnectionTo<Client>, session_id: Arc<OnceLock<String>>) -> Self {
        Self {
            connection,
            session_id,
        }
    }

    fn session(&self) -> Result<SessionId, EditorFileError> {
        self.session_id
            .get()
            .map(|id| SessionId::new(id.as_str()))
            .ok_or_else(|| EditorFileError::new("the session has no id yet"))
    }
}

impl EditorFiles for EditorBridge {
    fn read_text<'a>(&'a self, path: &'a Path) -> EditorFuture<'a, String> {
        Box::pin(async move {
            let request = ReadTextFileRequest::new(self.session()?, path);
            self.connection
                .send_request(request)
                .block_task()
                .await
                .map(|response| response.content)
                .map_err(|e| EditorFileError::new(e.message))
        })
    }

    fn write_text<'a>(&'a self, path: &'a Path, content: String) -> EditorFuture<'a, ()> {
        Box::pin(async move {
            let request = WriteTextFileRequest::new(self.session()?, path, content);
            self.connection
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(|e| EditorFileError::new(e.message))
        })
    }
}
