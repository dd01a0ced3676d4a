//! The ACP connection: one handler per method, each a thin step from the request to the
//! session host and back.
//!
//! The rule: handlers never wait for a turn (they run inside the SDK's dispatch loop, which
//! must stay free for `session/cancel` and permission answers): a prompt is handed to its
//! session's driver, and slow work (git) runs in a spawned task.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::v1::schema::{
    AuthenticateRequest, AuthenticateResponse, CancelNotification, ClientCapabilities,
    CurrentModeUpdate, InitializeRequest, LoadSessionRequest, LoadSessionResponse, Meta,
    NewSessionRequest, NewSessionResponse, PromptRequest, SessionModeId, SessionUpdate,
    SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, ConnectTo, Error, ErrorCode, Stdio, UntypedMessage};
use kigi_agent::PermissionMode;
use kigi_agent::permissions::PermissionRules;
use kigi_core::StoreError;
use kigi_core::host::{
    AgentChoice, ApprovalMode, HostError, HostedSession, OpenRequest, SessionControl, SessionHost,
    SessionStart,
};
use kigi_model::ModelFlags;
use kigi_protocol::HostCommand;
use kigi_tools::sandbox::SandboxMode;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::capabilities::initialize_response;
use crate::editor_bridge::{EditorBridge, registry_through};
use crate::error::AcpError;
use crate::extension_methods::WorktreeMethod;
use crate::live_session::{Outbox, PromptOrder, drive};
use crate::mcp_servers::editor_mcp_servers;
use crate::prompt_text::prompt_text;
use crate::replay::replay_updates;
use crate::session_modes::{mode_state, parse_mode_id};

/// What `kigi acp` was started with: every session it opens uses these.
#[derive(Debug, Clone, Default)]
pub struct AcpOptions {
    pub agent: AgentChoice,
    /// `--model` and `--base-url`.
    pub model: ModelFlags,
    /// `--permission-mode`: the mode sessions start in (otherwise the agent's).
    pub permission_mode: Option<PermissionMode>,
    /// `--allowedTools` and `--disallowedTools`.
    pub rules: PermissionRules,
    /// `--sandbox`.
    pub sandbox: Option<SandboxMode>,
}

/// A session of this connection.
struct LiveSession {
    control: SessionControl,
    cwd: PathBuf,
    prompts: mpsc::UnboundedSender<PromptOrder>,
}

/// What every handler shares.
struct Server {
    host: SessionHost,
    options: AcpOptions,
    client: Mutex<ClientCapabilities>,
    sessions: Mutex<HashMap<String, LiveSession>>,
}

/// Serves ACP on stdin and stdout until the editor closes stdin.
pub async fn serve_stdio(host: SessionHost, options: AcpOptions) -> Result<(), AcpError> {
    serve(host, options, Stdio::new()).await
}

/// Serves ACP over `transport` until it closes. Needs a tokio runtime.
pub async fn serve(
    host: SessionHost,
    options: AcpOptions,
    transport: impl ConnectTo<Agent> + 'static,
) -> Result<(), AcpError> {
    let server = Arc::new(Server {
        host,
        options,
        client: Mutex::new(ClientCapabilities::default()),
        sessions: Mutex::new(HashMap::new()),
    });
    let (s1, s2, s3, s4, s5, s6, s7) = (
        Arc::clone(&server),
        Arc::clone(&server),
        Arc::clone(&server),
        Arc::clone(&server),
        Arc::clone(&server),
        Arc::clone(&server),
        Arc::clone(&server),
    );
    Agent
        .v1()
        .name("kigi")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                *lock(&s1.client) = request.client_capabilities.clone();
                responder.respond(initialize_response(&request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_request: AuthenticateRequest, responder, _cx| {
                // Nothing to sign in to: the endpoint and its key come from config.toml.
                responder.respond(AuthenticateResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                s2.new_session(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                s3.load_session(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, _cx| s4.prompt(request, responder),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, cx| {
                s5.set_mode(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                s6.cancel(&notification);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: UntypedMessage, responder, cx| {
                s7.extension(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(transport)
        .await
        .map_err(|error| AcpError::Connection(error.message))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Server {
    fn new_session(
        &self,
        request: NewSessionRequest,
        responder: Responder<NewSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let opened = absolute(&request.cwd).and_then(|cwd| {
            self.open(&cx, cwd.clone(), SessionStart::New, &request.mcp_servers)
                .map(|s| (s, cwd))
        });
        let (hosted, cwd) = match opened {
            Ok(opened) => opened,
            Err(error) => return responder.respond_with_error(error),
        };
        let id = hosted.id().to_owned();
        let modes = mode_state(hosted.permission_mode());
        let meta = session_meta(&hosted, &request.mcp_servers);
        self.start(hosted, &cx, cwd)?;
        responder.respond(NewSessionResponse::new(id).modes(modes).meta(meta))
    }

    fn load_session(
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
        let live = lock(&self.sessions)
            .get(&id)
            .map(|s| (s.control.clone(), s.cwd.clone()));
        let (outbox, mode, meta, hosted) = match live {
            // Open in this connection already: replay what it wrote and carry on with it.
            Some((control, _)) => {
                let outbox = Outbox {
                    connection: cx.clone(),
                    session_id: id.clone(),
                    control,
                };
                (outbox, None, Meta::new(), None)
            }
            None => {
                let hosted = match self.open(
                    &cx,
                    cwd.clone(),
                    SessionStart::Resume(id.clone()),
                    &request.mcp_servers,
                ) {
                    Ok(hosted) => hosted,
                    Err(error) => return responder.respond_with_error(error),
                };
                let outbox = Outbox {
                    connection: cx.clone(),
                    session_id: id.clone(),
                    control: hosted.control(),
                };
                let mode = hosted.permission_mode();
                let meta = session_meta(&hosted, &request.mcp_servers);
                (outbox, Some(mode), meta, Some(hosted))
            }
        };
        for update in replay_updates(&stored.events, &cwd) {
            outbox.update(update);
        }
        if let Some(hosted) = hosted {
            self.start(hosted, &cx, cwd)?;
        }
        let mut response = LoadSessionResponse::new().meta(meta);
        if let Some(mode) = mode {
            response = response.modes(mode_state(mode));
        }
        responder.respond(response)
    }

    fn prompt(
        &self,
        request: PromptRequest,
        responder: Responder<agent_client_protocol::v1::schema::PromptResponse>,
    ) -> Result<(), Error> {
        let text = match prompt_text(&request.prompt) {
            Ok(text) => text,
            Err(error) => {
                return responder.respond_with_error(
                    Error::invalid_params().data(json!({"reason": error.to_string()})),
                );
            }
        };
        let id = request.session_id.0.to_string();
        let sender = lock(&self.sessions).get(&id).map(|s| s.prompts.clone());
        let Some(sender) = sender else {
            return responder.respond_with_error(unknown_session(&id));
        };
        if let Err(refused) = sender.send(PromptOrder { text, responder }) {
            return refused.0.responder.respond_with_error(Error::new(
                ErrorCode::INTERNAL_ERROR,
                format!("session {id} has ended"),
            ));
        }
        Ok(())
    }

    fn set_mode(
        &self,
        request: SetSessionModeRequest,
        responder: Responder<SetSessionModeResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let id = request.session_id.0.to_string();
        let Some(mode) = parse_mode_id(&request.mode_id.0) else {
            return responder.respond_with_error(Error::invalid_params().data(json!({
                "reason": format!("unknown mode `{}` (expected default, acceptEdits, plan, dontAsk or bypassPermissions)", request.mode_id.0)
            })));
        };
        let control = lock(&self.sessions).get(&id).map(|s| s.control.clone());
        let Some(control) = control else {
            return responder.respond_with_error(unknown_session(&id));
        };
        let command = HostCommand::SetPermissionMode {
            mode: mode.spelling().to_owned(),
        };
        if let Err(error) = control.submit(command) {
            return responder.respond_with_error(host_error(&error));
        }
        responder.respond(SetSessionModeResponse::new())?;
        Outbox {
            connection: cx,
            session_id: id,
            control,
        }
        .update(SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(
            SessionModeId::new(mode.spelling()),
        )));
        Ok(())
    }

    fn cancel(&self, notification: &CancelNotification) {
        let id = notification.session_id.0.to_string();
        let control = lock(&self.sessions).get(&id).map(|s| s.control.clone());
        match control {
            Some(control) => {
                if let Err(error) = control.submit(HostCommand::Interrupt) {
                    tracing::debug!(%error, session = id, "session/cancel");
                }
            }
            None => tracing::debug!(session = id, "session/cancel for an unknown session"),
        }
    }

    /// kigi's extension methods; anything else is a method kigi does not have.
    fn extension(
        &self,
        request: UntypedMessage,
        responder: Responder<Value>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let Some(method) = WorktreeMethod::parse(request.method()) else {
            return responder.respond_with_error(
                Error::method_not_found().data(json!({"method": request.method()})),
            );
        };
        let params = request.params().clone();
        let session_cwd = params
            .get("sessionId")
            .and_then(Value::as_str)
            .and_then(|id| lock(&self.sessions).get(id).map(|s| s.cwd.clone()));
        let cwd = match (session_cwd, params.get("cwd").and_then(Value::as_str)) {
            (Some(cwd), _) => cwd,
            (None, Some(cwd)) => PathBuf::from(cwd),
            (None, None) => {
                return responder.respond_with_error(Error::invalid_params().data(json!({
                    "reason": "name the repository with `sessionId` (a session of this connection) or `cwd`"
                })));
            }
        };
        cx.spawn(async move {
            let ran = tokio::task::spawn_blocking(move || method.run(&params, &cwd))
                .await
                .unwrap_or_else(|e| Err(Error::new(ErrorCode::INTERNAL_ERROR, e.to_string())));
            if let Err(error) = responder.respond_with_result(ran) {
                tracing::debug!(%error, "worktree answer not sent");
            }
            Ok(())
        })
    }

    /// Opens a host session for an editor session in `cwd`.
    fn open(
        &self,
        cx: &ConnectionTo<Client>,
        cwd: PathBuf,
        start: SessionStart,
        mcp_servers: &[agent_client_protocol::v1::schema::McpServer],
    ) -> Result<HostedSession, Error> {
        let fs = lock(&self.client).fs.clone();
        let id_cell = Arc::new(OnceLock::new());
        // File tools go through the editor when it offers both halves.
        let registry = (fs.read_text_file && fs.write_text_file).then(|| {
            registry_through(Arc::new(EditorBridge::new(
                cx.clone(),
                Arc::clone(&id_cell),
            )))
        });
        let request = OpenRequest {
            start,
            agent: self.options.agent.clone(),
            model: self.options.model.clone(),
            permission_mode: self.options.permission_mode,
            approvals: ApprovalMode::Ask,
            registry,
            rules: self.options.rules.clone(),
            sandbox: self.options.sandbox,
            mcp_servers: editor_mcp_servers(mcp_servers)
                .into_iter()
                .filter_map(|server| server.config.map(|config| (server.name, config)))
                .collect(),
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
    ) -> Result<(), Error> {
        let id = hosted.id().to_owned();
        let control = hosted.control();
        let (prompts, orders) = mpsc::unbounded_channel();
        let outbox = Outbox {
            connection: cx.clone(),
            session_id: id.clone(),
            control: control.clone(),
        };
        cx.spawn(drive(hosted, orders, outbox, cwd.clone()))?;
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
fn session_meta(
    hosted: &HostedSession,
    servers: &[agent_client_protocol::v1::schema::McpServer],
) -> Meta {
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

fn unknown_session(id: &str) -> Error {
    Error::new(
        ErrorCode::RESOURCE_NOT_FOUND,
        format!("no session `{id}` in this connection (session/new or session/load it first)"),
    )
}

fn store_error(error: &StoreError) -> Error {
    match error {
        StoreError::NotFound { .. } | StoreError::BadId(_) => {
            Error::new(ErrorCode::RESOURCE_NOT_FOUND, error.to_string())
        }
        _ => Error::new(ErrorCode::INTERNAL_ERROR, error.to_string()),
    }
}

fn host_error(error: &HostError) -> Error {
    match error {
        HostError::Store(store) => store_error(store),
        HostError::UnknownPermissionMode { .. } => {
            Error::invalid_params().data(json!({"reason": error.to_string()}))
        }
        _ => Error::new(ErrorCode::INTERNAL_ERROR, error.to_string()),
    }
}
