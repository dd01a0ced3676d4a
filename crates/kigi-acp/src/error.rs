//! What can stop `kigi acp` as a whole (a single request's failure is a JSON-RPC error on
//! that request, never this).

/// Why the ACP agent stopped.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// The connection failed: the transport broke, or the SDK gave up on a protocol error.
    #[error("ACP connection: {0}")]
    Connection(String),
    /// A prompt carried content kigi cannot pass on to the model.
    #[error("prompt content: {0}")]
    UnsupportedContent(String),
}
