//! File tools through an editor ([`EditorFiles`]): they read the editor's buffers and write
//! into them, and judge the path exactly as without one before the editor is asked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use kigi_tools::{EditorFileError, EditorFiles, EditorFuture, ToolContext, ToolRegistry};
use serde_json::{Value, json};

/// An editor holding buffers in memory, recording every request.
#[derive(Debug, Default)]
struct FakeEditor {
    buffers: Mutex<BTreeMap<PathBuf, String>>,
    requests: Mutex<Vec<String>>,
}

impl EditorFiles for FakeEditor {
    fn read_text<'a>(&'a self, path: &'a Path) -> EditorFuture<'a, String> {
        Box::pin(async move {
            self.requests
                .lock()
                .unwrap()
                .push(format!("read {}", path.display()));
            self.buffers
                .lock()
                .unwrap()
                .get(path)
                .cloned()
                .ok_or_else(|| EditorFileError::new("no such buffer"))
        })
    }

    fn write_text<'a>(&'a self, path: &'a Path, content: String) -> EditorFuture<'a, ()> {
        Box::pin(async move {
            self.requests
                .lock()
                .unwrap()
                .push(format!("write {}", path.display()));
            self.buffers
                .lock()
                .unwrap()
                .insert(path.to_path_buf(), content);
            Ok(())
        })
    }
}

struct Workspace {
    tmp: tempfile::TempDir,
    editor: Arc<FakeEditor>,
    context: ToolContext,
}

impl Workspace {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let editor = Arc::new(FakeEditor::default());
        let mut context = ToolContext::new(tmp.path().canonicalize().unwrap());
        context.editor_files = Some(editor.clone());
        Self {
            tmp,
            editor,
            context,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.context.cwd.join(rel)
    }

    fn buffer(&self, rel: &str, text: &str) {
        self.editor
            .buffers
            .lock()
            .unwrap()
            .insert(self.path(rel), text.into());
    }

    async fn call(&self, tool: &str, args: Value) -> kigi_tools::ToolOutput {
        ToolRegistry::built_in()
            .get(tool)
            .unwrap()
            .execute(args, &self.context)
            .await
            .unwrap()
    }

    fn requests(&self) -> Vec<String> {
        self.editor.requests.lock().unwrap().clone()
    }
}

#[tokio::test]
async fn read_file_reads_the_editor_buffer_not_the_disk() {
    let ws = Workspace::new();
    std::fs::write(ws.path("a.txt"), "on disk\n").unwrap();
    ws.buffer("a.txt", "unsaved one\nunsaved two\n");
    let out = ws
        .call("read_file", json!({"path": "a.txt", "offset": 2}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content, "     2\tunsaved two\n(lines 2-2 of 2)\n");
}

#[tokio::test]
async fn write_file_writes_into_the_editor_and_leaves_the_disk_alone() {
    let ws = Workspace::new();
    let out = ws
        .call("write_file", json!({"path": "new.txt", "content": "hello"}))
        .await;
    assert_eq!(out.content, "created new.txt (5 bytes)");
    assert_eq!(
        ws.editor.buffers.lock().unwrap().get(&ws.path("new.txt")),
        Some(&"hello".to_owned())
    );
    assert!(!ws.path("new.txt").exists());
}

#[tokio::test]
async fn search_replace_edits_the_editor_buffer() {
    let ws = Workspace::new();
    ws.buffer("lib.rs", "fn a() {}\nfn b() {}\n");
    let out = ws
        .call(
            "search_replace",
            json!({"path": "lib.rs", "old_string": "fn b", "new_string": "fn c"}),
        )
        .await;
    assert_eq!(out.content, "replaced 1 occurrence in lib.rs");
    assert_eq!(
        ws.editor.buffers.lock().unwrap().get(&ws.path("lib.rs")),
        Some(&"fn a() {}\nfn c() {}\n".to_owned())
    );
    let missing = ws
        .call(
            "search_replace",
            json!({"path": "lib.rs", "old_string": "fn z", "new_string": "fn y"}),
        )
        .await;
    assert!(missing.is_error && missing.content.contains("was not found"));
}

#[tokio::test]
async fn paths_are_judged_before_the_editor_is_asked() {
    let mut ws = Workspace::new();
    let env = ws.call("read_file", json!({"path": ".env"})).await;
    assert!(env.is_error && env.content.contains("an environment file"));
    ws.context.write_root = Some(ws.path("inside"));
    let outside = ws
        .call("write_file", json!({"path": "outside.txt", "content": "x"}))
        .await;
    assert!(outside.is_error && outside.content.contains("outside this agent's worktree"));
    assert_eq!(ws.requests(), Vec::<String>::new());
    drop(ws.tmp);
}

#[tokio::test]
async fn an_editor_failure_is_the_tool_error() {
    let ws = Workspace::new();
    let out = ws.call("read_file", json!({"path": "gone.txt"})).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "cannot read gone.txt: the editor answered: no such buffer"
    );
}
