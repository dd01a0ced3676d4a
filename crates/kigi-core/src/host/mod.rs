//! The session host: the seam every front end plugs into. Commands go in
//! ([`kigi_protocol::HostCommand`] through a [`SessionControl`]); events come out
//! ([`kigi_protocol::HostEvent`] on an [`EventStream`]), every one tagged with the agent of
//! the session tree it belongs to; asks wait for answers in the [`ApprovalBroker`].
//!
//! `session_host` opens sessions, `hosted_session` runs one, `event_stream` carries its
//! events (with the coalescing rule written there), `approvals` holds its asks,
//! `agent_choice` picks its agent and model.

mod activity;
mod agent_choice;
mod approvals;
mod background_notices;
mod event_stream;
mod host_error;
mod hosted_session;
mod hosted_swarm;
mod model_switch;
mod session_guard;
mod session_host;
mod swarm_open;

pub use activity::activity_label;
pub use agent_choice::AgentChoice;
pub use approvals::ApprovalBroker;
pub(crate) use background_notices::BackgroundNotices;
pub use event_stream::{AgentEmitter, EventSink, EventStream, event_channel};
pub use host_error::HostError;
pub use hosted_session::{HostedSession, SessionControl};
pub use hosted_swarm::HostedSwarm;
pub(crate) use model_switch::ModelResolver;
pub use model_switch::ModelSwitch;
pub use session_host::{ApprovalMode, OpenRequest, SessionHost, SessionStart};
pub use swarm_open::SwarmOpen;
