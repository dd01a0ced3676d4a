//! A response body fed from a channel, so the server can stream SSE events one by one, stall,
//! or fail mid-body (hyper then cuts the connection).

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Frame;
use tokio::sync::mpsc;

/// The receiving end of a streamed body.
#[derive(Debug)]
pub struct ChannelBody {
    rx: mpsc::Receiver<Result<Bytes, std::io::Error>>,
}

/// The sending end.
pub type BodySender = mpsc::Sender<Result<Bytes, std::io::Error>>;

impl ChannelBody {
    pub fn channel() -> (BodySender, Self) {
        let (tx, rx) = mpsc::channel(64);
        (tx, Self { rx })
    }

    /// A body holding `bytes` and nothing else.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        let (tx, body) = Self::channel();
        // A fresh channel has room for one item, so this cannot fail.
        let _ = tx.try_send(Ok(bytes.into()));
        body
    }
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.rx
            .poll_recv(cx)
            .map(|item| item.map(|chunk| chunk.map(Frame::data)))
    }
}
