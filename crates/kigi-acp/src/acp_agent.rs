//! The ACP connection: one handler per method, each a thin step from the request to the
//! session host and back.
//!
//! The rule: handlers never wait for a turn (they run inside the SDK's dispatch loop, which
//! must stay free for `session/cancel` and permission answers): a prompt is handed to its
//! session's driver, and slow work (git) runs in a spawned task.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AuthenticateRequest, AuthenticateResponse, CancelNotification, ClientCapabilities,
    CurrentModeUpdate, InitializeRequest, LoadSessionRequest, NewSessionRequest, PromptRequest,
    SessionModeId, SessionUpdate, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, ConnectTo, Error, ErrorCode, Stdio, UntypedMessage};
use kigi_agent::PermissionMode;
use kigi_agent::permissions::PermissionRules;
use kigi_core::host::{AgentChoice, SessionControl, SessionHost};
use kigi_model::ModelFlags;
use kigi_protocol::HostCommand;
use kigi_tools::sandbox::SandboxMode;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::auth_methods::{KimiAccountModel, auth_methods, authenticate, kimi_account_models};
use crate::capabilities::{Offer, images_readable, initialize_response};
use crate::error::AcpError;
use crate::extension_methods::WorktreeMethod;
use crate::live_session::PromptOrder;
use crate::model_menu::{MODEL_OPTION_ID, ModelMenu};
use crate::prompt_input::prompt_input;
use crate::rpc_error::{host_error, invalid_params, unknown_session};
use crate::session_modes::parse_mode_id;

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
pub(crate) struct LiveSession {
    pub(crate) control: SessionControl,
    pub(crate) cwd: PathBuf,
    pub(crate) prompts: mpsc::UnboundedSender<PromptOrder>,
}

/// What every handler shares.
pub(crate) struct Server {
    pub(crate) host: SessionHost,
    /// What `initialize` advertises.
    pub(crate) offer: Offer,
    /// The models a session's model option offers.
    pub(crate) models: Arc<ModelMenu>,
    pub(crate) options: AcpOptions,
    pub(crate) client: Mutex<ClientCapabilities>,
    pub(crate) sessions: Mutex<HashMap<String, LiveSession>>,
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
    let env = host.env_lookup();
    let offer = Offer {
        images: images_readable(host.models(), &options.model, &*env),
        auth_methods: auth_methods(&kimi_account_models(host.models(), &options.model, &*env)),
    };
    let models = Arc::new(ModelMenu::new(host.models()));
    let server = Arc::new(Server {
        host,
        offer,
        models,
        options,
        client: Mutex::new(ClientCapabilities::default()),
        sessions: Mutex::new(HashMap::new()),
    });
    let (s1, s1b, s2, s3, s4, s5, s6, s7, s8) = (
        Arc::clone(&server),
        Arc::clone(&server),
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
                responder.respond(initialize_response(&request, &s1.offer))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: AuthenticateRequest, responder, _cx| {
                let accounts = s1b.kimi_accounts();
                responder.respond_with_result(
                    authenticate(&request.method_id.0, &accounts)
                        .map(|()| AuthenticateResponse::new()),
                )
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
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder, _cx| {
                s8.set_config_option(request, responder)
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

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Server {
    /// The Kimi account models, with their keys as the environment has them now.
    fn kimi_accounts(&self) -> Vec<KimiAccountModel> {
        let env = self.host.env_lookup();
        kimi_account_models(self.host.models(), &self.options.model, &*env)
    }

    /// `session/set_config_option`: the model (the one option kigi has).
    fn set_config_option(
        &self,
        request: SetSessionConfigOptionRequest,
        responder: Responder<SetSessionConfigOptionResponse>,
    ) -> Result<(), Error> {
        let id = request.session_id.0.to_string();
        if request.config_id.0.as_ref() != MODEL_OPTION_ID {
            return responder.respond_with_error(invalid_params(format!(
                "unknown config option `{}` (kigi has `{MODEL_OPTION_ID}`)",
                request.config_id.0
            )));
        }
        let Some(model) = request.value.as_value_id() else {
            return responder.respond_with_error(invalid_params(
                "the model option takes a value id (a [models] alias or a model id)",
            ));
        };
        let control = lock(&self.sessions).get(&id).map(|s| s.control.clone());
        let Some(control) = control else {
            return responder.respond_with_error(unknown_session(&id));
        };
        let command = HostCommand::SetModel {
            model: model.0.to_string(),
        };
        if let Err(error) = control.submit(command) {
            return responder.respond_with_error(host_error(&error));
        }
        responder.respond(SetSessionConfigOptionResponse::new(
            self.models.options(&control.model()),
        ))
    }

    fn prompt(
        &self,
        request: PromptRequest,
        responder: Responder<agent_client_protocol::v1::schema::PromptResponse>,
    ) -> Result<(), Error> {
        let input = match prompt_input(&request.prompt) {
            Ok(input) => input,
            Err(error) => return responder.respond_with_error(invalid_params(error.to_string())),
        };
        let id = request.session_id.0.to_string();
        let sender = lock(&self.sessions).get(&id).map(|s| s.prompts.clone());
        let Some(sender) = sender else {
            return responder.respond_with_error(unknown_session(&id));
        };
        if let Err(refused) = sender.send(PromptOrder { input, responder }) {
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
        self.outbox(&cx, &id, control)
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
}
