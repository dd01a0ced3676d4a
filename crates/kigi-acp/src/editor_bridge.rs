//! File tools through the editor: an [`EditorFiles`] over the ACP connection
//! (`fs/read_text_file`, `fs/write_text_file`), and the registry whose file tools use it.
//!
//! The rule: only the bytes move to the editor. The wrapped tools are the built-ins, so a path
//! is resolved and judged (secrets, write root, and the runtime's permission checks before
//! the call) exactly as in a terminal session.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use kigi_tools::{
    EditorFileError, EditorFiles, EditorFuture, Tool, ToolContext, ToolFuture, ToolRegistry,
    ToolSpec,
};
use serde_json::Value;

/// The built-in tools that read or write files.
const FILE_TOOLS: &[&str] = &["read_file", "write_file", "search_replace"];

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

/// The built-in registry with its file tools reading and writing through `editor`.
pub(crate) fn registry_through(editor: Arc<dyn EditorFiles>) -> ToolRegistry {
    let mut registry = ToolRegistry::built_in();
    for name in FILE_TOOLS {
        if let Some(inner) = registry.get(name).cloned() {
            registry.register(Arc::new(ThroughEditor {
                inner,
                editor: Arc::clone(&editor),
            }));
        }
    }
    registry
}

/// A built-in file tool run with the editor in its context.
#[derive(Debug)]
struct ThroughEditor {
    inner: Arc<dyn Tool>,
    editor: Arc<dyn EditorFiles>,
}

impl Tool for ThroughEditor {
    fn spec(&self) -> &ToolSpec {
        self.inner.spec()
    }

    fn parameters(&self) -> Value {
        self.inner.parameters()
    }

    fn description(&self) -> Option<String> {
        self.inner.description()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let mut context = context.clone();
            context.editor_files = Some(Arc::clone(&self.editor));
            self.inner.execute(arguments, &context).await
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use std::sync::Mutex;

    #[derive(Debug, Default)]
    struct Recorder(Mutex<Vec<(std::path::PathBuf, String)>>);

    impl EditorFiles for Recorder {
        fn read_text<'a>(&'a self, _: &'a Path) -> EditorFuture<'a, String> {
            Box::pin(async { Err(EditorFileError::new("unused")) })
        }
        fn write_text<'a>(&'a self, path: &'a Path, content: String) -> EditorFuture<'a, ()> {
            Box::pin(async move {
                self.0.lock().unwrap().push((path.to_path_buf(), content));
                Ok(())
            })
        }
    }

    #[tokio::test]
    async fn the_registry_file_tools_write_through_the_editor_and_keep_their_spec() {
        let dir = std::env::temp_dir().join(format!("kigi-acp-bridge-{}", std::process::id()));
        let recorder = Arc::new(Recorder::default());
        let registry = registry_through(recorder.clone());
        let tool = registry.get("write_file").unwrap();
        assert_eq!(tool.spec(), kigi_tools::built_in_spec("write_file"));
        let out = tool
            .execute(
                serde_json::json!({"path": "x.txt", "content": "hi"}),
                &ToolContext::new(&dir),
            )
            .await
            .unwrap();
        assert_eq!(out.content, "created x.txt (2 bytes)");
        assert_eq!(
            recorder.0.lock().unwrap().as_slice(),
            [(dir.join("x.txt"), "hi".to_owned())]
        );
        assert!(!dir.join("x.txt").exists());
    }
}
