//! Opening an editor's session: `session/new` and `session/load` (a host session for the
//! editor's folder, its file tools through the editor when it offers `fs/*`, its driver
//! started), and what the editor is told once it is open (modes, the model option, the slash
//! commands).
//!
//! The rule: a session is remembered only once its driver runs, so a prompt never finds a
//! session nobody reads.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use agent_client_protocol::v1::schema::{
    AvailableCommandsUpdate, LoadSessionRequest, LoadSessionResponse, McpServer, Meta,
    NewSessionRequest, NewSessionResponse, SessionUpdate,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use kigi_core::host::{ApprovalMode, HostedSession, OpenRequest, SessionControl, SessionStart};
use kigi_tools::sandbox::SandboxMode;
use kigi_tools::{EditorFiles, EditorTerminal};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::acp_agent::{LiveSession, Server, lock};
use crate::editor_bridge::EditorBridge;
use crate::live_session::{Outbox, drive};
use crate::mcp_servers::editor_mcp_servers;
use crate::replay::replay_updates;
use crate::rpc_error::{host_error, store_error};
use crate::session_modes::mode_state;
use crate::slash_commands::available_commands;
use crate::terminal_bridge::{TerminalBridge, TerminalLinks};
use crate::update_translation::UpdateTranslator;

impl Server {
    pub(crate) fn new_session(
        &self,
        request: NewSessionRequest,
        responder: Responder<NewSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let terminals = TerminalLinks::default();
        let opened = absolute(&request.cwd).and_then(|cwd| {
            self.open(
                &cx,
                cwd.clone(),
                SessionStart::New,
                &request.mcp_servers,
                &terminals,
            )
            .map(|s| (s, cwd))
        });
        let (hosted, cwd) = match opened {
            Ok(opened) => opened,
            Err(error) => return responder.respond_with_error(error),
        };
        let id = hosted.id().to_owned();
        let control = hosted.control();
        let response = NewSessionResponse::new(id.clone())
            .modes(mode_state(hosted.permission_mode()))
            .config_options(self.models.options(&control.model()))
            .meta(session_meta(&hosted, &request.mcp_servers));
        self.start(hosted, &cx, cwd, terminals)?;
        responder.respond(response)?;
        self.announce_commands(&self.outbox(&cx, &id, control));
        Ok(())
    }

    pub(crate) fn load_session(
        &self,
        request: LoadSessionRequest,
        responder: Responder<LoadSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let id = request.session_id.0.to_string();
        let cwd = match absolute(&request.cwd) {
            Ok(cwd) => cwd,
            Err(error) => return responder.respond_with_error(error),
        };
        let stored = match self.host.store().load(&id) {
            Ok(stored) => stored,
            Err(error) => return responder.respond_with_error(store_error(&error)),
        };
        let terminals = TerminalLinks::default();
        let live = lock(&self.sessions)
            .get(&id)
            .map(|s| (s.control.clone(), s.cwd.clone()));
        let (outbox, mode, meta, hosted) = match live {
            // Open in this connection already: replay what it wrote and carry on with it.
            Some((control, _)) => (self.outbox(&cx, &id, control), None, Meta::new(), None),
            None => {
                let hosted = match self.open(
                    &cx,
                    cwd.clone(),
                    SessionStart::Resume(id.clone()),
                    &request.mcp_servers,
                    &terminals,
                ) {
                    Ok(hosted) => hosted,
                    Err(error) => return responder.respond_with_error(error),
                };
                let outbox = self.outbox(&cx, &id, hosted.control());
                let mode = hosted.permission_mode();
                let meta = session_meta(&hosted, &request.mcp_servers);
                (outbox, Some(mode), meta, Some(hosted))
            }
        };
        for update in replay_updates(&stored.events, &cwd) {
            outbox.update(update);
        }
        if let Some(hosted) = hosted {
            self.start(hosted, &cx, cwd, terminals)?;
        }
        let mut response = LoadSessionResponse::new()
            .config_options(self.models.options(&outbox.control.model()))
            .meta(meta);
        if let Some(mode) = mode {
            response = response.modes(mode_state(mode));
        }
        responder.respond(response)?;
        self.announce_commands(&outbox);
        Ok(())
    }

    /// Tells the editor which slash commands a prompt may start with.
    fn announce_commands(&self, outbox: &Outbox) {
        outbox.update(SessionUpdate::AvailableCommandsUpdate(
            AvailableCommandsUpdate::new(available_commands()),
        ));
    }

    /// Sends one session's messages through `cx`.
    pub(crate) fn outbox(
        &self,
        cx: &ConnectionTo<Client>,
        id: &str,
        control: SessionControl,
    ) -> Outbox {
        Outbox {
            connection: cx.clone(),
            session_id: id.to_owned(),
            control,
            models: Arc::clone(&self.models),
        }
    }

    /// Opens a host session for an editor session in `cwd`.
    fn open(
        &self,
        cx: &ConnectionTo<Client>,
        cwd: PathBuf,
        start: SessionStart,
        mcp_servers: &[McpServer],
        terminals: &TerminalLinks,
    ) -> Result<HostedSession, Error> {
        let client = lock(&self.client).clone();
        let id_cell = Arc::new(OnceLock::new());
        // File tools go through the editor when it offers both halves.
        let editor_files = (client.fs.read_text_file && client.fs.write_text_file).then(|| {
            Arc::new(EditorBridge::new(cx.clone(), Arc::clone(&id_cell))) as Arc<dyn EditorFiles>
        });
        // Commands go to the editor's terminal only where kigi's sandbox is off anyway (the
        // tool checks the effective sandbox again where the command runs).
        let sandbox = self
            .options
            .sandbox
            .unwrap_or(self.host.sandbox_config().mode);
        let editor_terminal =
            (client.terminal && sandbox == SandboxMode::DangerFullAccess).then(|| {
                Arc::new(TerminalBridge::new(
                    cx.clone(),
                    Arc::clone(&id_cell),
                    terminals.clone(),
                )) as Arc<dyn EditorTerminal>
            });
        let request = OpenRequest {
            start,
            agent: self.options.agent.clone(),
            model: self.options.model.clone(),
            permission_mode: self.options.permission_mode,
            approvals: ApprovalMode::Ask,
            rules: self.options.rules.clone(),
            sandbox: self.options.sandbox,
            mcp_servers: editor_mcp_servers(mcp_servers)
                .into_iter()
                .filter_map(|server| server.config.map(|config| (server.name, config)))
                .collect(),
            editor_files,
            editor_terminal,
            ..OpenRequest::new(&cwd)
        };
        let hosted = self.host.open(request).map_err(|e| host_error(&e))?;
        let _ = id_cell.set(hosted.id().to_owned());
        for warning in hosted.warnings() {
            tracing::warn!(session = hosted.id(), "{warning}");
        }
        Ok(hosted)
    }

    /// Starts the driver of an opened session and remembers it.
    fn start(
        &self,
        hosted: HostedSession,
        cx: &ConnectionTo<Client>,
        cwd: PathBuf,
        terminals: TerminalLinks,
    ) -> Result<(), Error> {
        let id = hosted.id().to_owned();
        let control = hosted.control();
        let (prompts, orders) = mpsc::unbounded_channel();
        let outbox = self.outbox(cx, &id, control.clone());
        let translator = UpdateTranslator::new(cwd.clone()).with_terminals(terminals);
        cx.spawn(drive(hosted, orders, outbox, translator))?;
        lock(&self.sessions).insert(
            id,
            LiveSession {
                control,
                cwd,
                prompts,
            },
        );
        Ok(())
    }
}

/// `_meta` of a new or loaded session: start-up warnings and the editor's MCP servers.
fn session_meta(hosted: &HostedSession, servers: &[McpServer]) -> Meta {
    let mut meta = Meta::new();
    if !hosted.warnings().is_empty() {
        meta.insert("kigi/warnings".into(), json!(hosted.warnings()));
    }
    if !servers.is_empty() {
        meta.insert(
            "kigi/mcpServers".into(),
            serde_json::to_value(editor_mcp_servers(servers)).unwrap_or(Value::Null),
        );
    }
    meta
}

fn absolute(cwd: &std::path::Path) -> Result<PathBuf, Error> {
    if cwd.is_absolute() {
        Ok(cwd.to_path_buf())
    } else {
        Err(Error::invalid_params().data(json!({
            "reason": format!("cwd must be an absolute path, not `{}`", cwd.display())
        })))
    }
}
