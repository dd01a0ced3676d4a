//! The smallest WebSocket client CDP needs (RFC 6455, client side, `ws://` on loopback only):
//! the opening handshake, masked text frames out, text frames in (fragmented ones joined),
//! pings answered, close honoured. Chromium's DevTools endpoint speaks nothing more, and a
//! client of its own keeps a WebSocket stack (and its random-number and hashing crates) out
//! of the binary.
//!
//! The rule: every read is bounded ([`MESSAGE_LIMIT`] per message, [`HEADER_LIMIT`] for the
//! handshake), so a misbehaving peer cannot make kigi allocate without limit.

use std::sync::atomic::{AtomicU32, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use crate::error::BrowserError;

/// Bytes one message may have: a full-page screenshot of a large page is some megabytes of
/// base64.
pub const MESSAGE_LIMIT: usize = 64 * 1024 * 1024;
/// Bytes of the handshake answer.
const HEADER_LIMIT: usize = 16 * 1024;

/// Bytes a control frame's payload may have (RFC 6455 §5.5).
const CONTROL_LIMIT: u64 = 125;

const OP_CONTINUATION: u8 = 0x0;
const OP_TEXT: u8 = 0x1;
const OP_BINARY: u8 = 0x2;
const OP_CLOSE: u8 = 0x8;
const OP_PING: u8 = 0x9;
const OP_PONG: u8 = 0xA;

/// A `ws://host:port/path` URL, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsUrl {
    pub authority: String,
    pub path: String,
}

impl WsUrl {
    /// Reads `ws://authority/path`; anything else (`wss://`, no path) is refused.
    pub fn parse(url: &str) -> Result<Self, BrowserError> {
        let bad = |why: &str| BrowserError::Protocol(format!("DevTools URL {url}: {why}"));
        let rest = url
            .strip_prefix("ws://")
            .ok_or_else(|| bad("not a ws:// URL"))?;
        let slash = rest.find('/').ok_or_else(|| bad("no path"))?;
        let (authority, path) = rest.split_at(slash);
        if authority.is_empty() {
            return Err(bad("no host"));
        }
        Ok(Self {
            authority: authority.to_owned(),
            path: path.to_owned(),
        })
    }
}

/// What arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WsMessage {
    Text(String),
    /// The peer closed the connection (or the stream ended).
    Closed,
}

/// Connects and performs the opening handshake; returns the two halves.
pub async fn connect(url: &WsUrl) -> Result<(WsReader, WsWriter), BrowserError> {
    let stream = TcpStream::connect(&url.authority)
        .await
        .map_err(|e| BrowserError::Protocol(format!("connecting to {}: {e}", url.authority)))?;
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    // The key only has to be 16 bytes of base64; the peer is our own browser on loopback,
    // so it carries no secret.
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: a2lnaS1icm93c2VyLWtleQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        url.path, url.authority
    );
    write
        .write_all(request.as_bytes())
        .await
        .map_err(io_error)?;
    let mut reader = BufReader::new(read);
    let header = read_header(&mut reader).await?;
    let status = header.lines().next().unwrap_or_default();
    if !status.contains(" 101 ") {
        return Err(BrowserError::Protocol(format!(
            "the DevTools endpoint refused the WebSocket upgrade: {status}"
        )));
    }
    Ok((
        WsReader {
            stream: reader,
            fragments: None,
        },
        WsWriter { stream: write },
    ))
}

async fn read_header(reader: &mut BufReader<OwnedReadHalf>) -> Result<String, BrowserError> {
    let mut header = Vec::new();
    while !header.ends_with(b"\r\n\r\n") {
        if header.len() >= HEADER_LIMIT {
            return Err(BrowserError::Protocol(
                "the WebSocket handshake answer is too long".into(),
            ));
        }
        let byte = reader.read_u8().await.map_err(io_error)?;
        header.push(byte);
    }
    Ok(String::from_utf8_lossy(&header).into_owned())
}

fn io_error(e: std::io::Error) -> BrowserError {
    BrowserError::Protocol(format!("DevTools connection: {e}"))
}

/// The receiving half.
#[derive(Debug)]
pub struct WsReader {
    stream: BufReader<OwnedReadHalf>,
    /// A fragmented text message being joined.
    fragments: Option<Vec<u8>>,
}

/// A frame read off the wire (unmasked payload).
struct Frame {
    fin: bool,
    opcode: u8,
    payload: Vec<u8>,
}

/// What the reader needs the writer to send back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Pong(Vec<u8>),
}

impl WsReader {
    /// The next message; `pong` receives what must be answered (a ping's pong).
    pub async fn next(&mut self, pong: &mut Vec<Reply>) -> Result<WsMessage, BrowserError> {
        loop {
            let frame = match self.frame().await {
                Ok(frame) => frame,
                Err(BrowserError::Closed) => return Ok(WsMessage::Closed),
                Err(e) => return Err(e),
            };
            match frame.opcode {
                OP_PING => pong.push(Reply::Pong(frame.payload)),
                OP_PONG => {}
                OP_CLOSE => return Ok(WsMessage::Closed),
                // A new message may not start inside a fragmented one (RFC 6455 §5.4).
                OP_TEXT | OP_BINARY if self.fragments.is_some() => {
                    return Err(BrowserError::Protocol(
                        "a new message began before the fragmented one ended".into(),
                    ));
                }
                OP_TEXT | OP_BINARY if frame.fin => return text(frame.payload),
                OP_TEXT | OP_BINARY => self.fragments = Some(frame.payload),
                OP_CONTINUATION => {
                    let Some(mut joined) = self.fragments.take() else {
                        return Err(BrowserError::Protocol(
                            "a continuation frame without a first fragment".into(),
                        ));
                    };
                    if joined.len() + frame.payload.len() > MESSAGE_LIMIT {
                        return Err(too_long());
                    }
                    joined.extend_from_slice(&frame.payload);
                    if frame.fin {
                        return text(joined);
                    }
                    self.fragments = Some(joined);
                }
                other => {
                    return Err(BrowserError::Protocol(format!(
                        "unknown WebSocket opcode {other}"
                    )));
                }
            }
        }
    }

    /// The next frame; [`BrowserError::Closed`] when the stream ended or broke.
    async fn frame(&mut self) -> Result<Frame, BrowserError> {
        let closed = |_| BrowserError::Closed;
        let mut head = [0u8; 2];
        self.stream.read_exact(&mut head).await.map_err(closed)?;
        let fin = head[0] & 0x80 != 0;
        let opcode = head[0] & 0x0F;
        let masked = head[1] & 0x80 != 0;
        // No extension was negotiated, so no reserved bit may be set.
        if head[0] & 0x70 != 0 {
            return Err(BrowserError::Protocol(format!(
                "a WebSocket frame sets reserved bits ({:#04x})",
                head[0] & 0x70
            )));
        }
        let control = opcode & 0x08 != 0;
        if control && !fin {
            return Err(BrowserError::Protocol(format!(
                "a fragmented WebSocket control frame (opcode {opcode})"
            )));
        }
        let length = match head[1] & 0x7F {
            126 => u64::from(self.stream.read_u16().await.map_err(closed)?),
            127 => self.stream.read_u64().await.map_err(closed)?,
            n => u64::from(n),
        };
        if control && length > CONTROL_LIMIT {
            return Err(BrowserError::Protocol(format!(
                "a WebSocket control frame of {length} bytes (at most {CONTROL_LIMIT})"
            )));
        }
        let length = usize::try_from(length).map_err(|_| too_long())?;
        if length > MESSAGE_LIMIT {
            return Err(too_long());
        }
        let mut mask = [0u8; 4];
        if masked {
            self.stream.read_exact(&mut mask).await.map_err(closed)?;
        }
        let mut payload = vec![0u8; length];
        self.stream.read_exact(&mut payload).await.map_err(closed)?;
        if masked {
            apply_mask(&mut payload, mask);
        }
        Ok(Frame {
            fin,
            opcode,
            payload,
        })
    }
}

fn text(payload: Vec<u8>) -> Result<WsMessage, BrowserError> {
    String::from_utf8(payload)
        .map(WsMessage::Text)
        .map_err(|_| BrowserError::Protocol("a DevTools message is not UTF-8".into()))
}

fn too_long() -> BrowserError {
    BrowserError::Protocol(format!(
        "a DevTools message is longer than {MESSAGE_LIMIT} bytes"
    ))
}

/// The sending half.
#[derive(Debug)]
pub struct WsWriter {
    stream: OwnedWriteHalf,
}

impl WsWriter {
    pub async fn send_text(&mut self, text: &str) -> Result<(), BrowserError> {
        self.send(OP_TEXT, text.as_bytes()).await
    }

    pub async fn reply(&mut self, reply: Reply) -> Result<(), BrowserError> {
        match reply {
            Reply::Pong(payload) => self.send(OP_PONG, &payload).await,
        }
    }

    async fn send(&mut self, opcode: u8, payload: &[u8]) -> Result<(), BrowserError> {
        let frame = encode_frame(opcode, payload, next_mask());
        self.stream.write_all(&frame).await.map_err(io_error)
    }
}

/// A client frame: FIN set, masked as RFC 6455 requires of clients.
pub fn encode_frame(opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(payload.len() + 14);
    frame.push(0x80 | opcode);
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n <= usize::from(u16::MAX) => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(&mask);
    let start = frame.len();
    frame.extend_from_slice(payload);
    apply_mask(&mut frame[start..], mask);
    frame
}

fn apply_mask(bytes: &mut [u8], mask: [u8; 4]) {
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte ^= mask[i % 4];
    }
}

/// A mask for the next frame. Masking exists against cache poisoning through proxies; on a
/// loopback connection to our own browser any varying value serves.
fn next_mask() -> [u8; 4] {
    static COUNTER: AtomicU32 = AtomicU32::new(0x9E37_79B9);
    COUNTER
        .fetch_add(0x6D2B_79F5, Ordering::Relaxed)
        .to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ws_url_splits_into_authority_and_path_and_others_are_refused() {
        assert_eq!(
            WsUrl::parse("ws://127.0.0.1:9222/devtools/browser/abc").unwrap(),
            WsUrl {
                authority: "127.0.0.1:9222".into(),
                path: "/devtools/browser/abc".into()
            }
        );
        assert!(WsUrl::parse("wss://127.0.0.1:9222/x").is_err());
        assert!(WsUrl::parse("ws://127.0.0.1:9222").is_err());
    }

    /// A reader whose peer sends `bytes` and then closes.
    async fn reader_of(bytes: Vec<u8>) -> WsReader {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap());
        let (client, accepted) = tokio::join!(client, listener.accept());
        let (mut server, _) = accepted.unwrap();
        server.write_all(&bytes).await.unwrap();
        drop(server);
        let (read, _) = client.unwrap().into_split();
        WsReader {
            stream: BufReader::new(read),
            fragments: None,
        }
    }

    /// A server frame (unmasked).
    fn server_frame(first: u8, payload: &[u8]) -> Vec<u8> {
        let mut frame = vec![first];
        match payload.len() {
            n if n < 126 => frame.push(n as u8),
            n => {
                frame.push(126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        frame.extend_from_slice(payload);
        frame
    }

    async fn read_all(bytes: Vec<u8>) -> (Vec<Result<WsMessage, BrowserError>>, Vec<Reply>) {
        let mut reader = reader_of(bytes).await;
        let mut replies = Vec::new();
        let mut read = Vec::new();
        loop {
            let message = reader.next(&mut replies).await;
            let end = !matches!(message, Ok(WsMessage::Text(_)));
            read.push(message);
            if end {
                return (read, replies);
            }
        }
    }

    fn protocol_error(read: &[Result<WsMessage, BrowserError>]) -> bool {
        matches!(read.last(), Some(Err(BrowserError::Protocol(_))))
    }

    #[tokio::test]
    async fn fragments_are_joined_across_a_ping_and_the_ping_is_answered() {
        let mut bytes = server_frame(OP_TEXT, b"hel");
        bytes.extend(server_frame(0x80 | OP_PING, b"p"));
        bytes.extend(server_frame(0x80 | OP_CONTINUATION, b"lo"));
        let (read, replies) = read_all(bytes).await;
        assert_eq!(
            read,
            vec![Ok(WsMessage::Text("hello".into())), Ok(WsMessage::Closed)]
        );
        assert_eq!(replies, vec![Reply::Pong(b"p".to_vec())]);
    }

    #[tokio::test]
    async fn a_new_message_inside_a_fragmented_one_is_a_protocol_error() {
        for opcode in [OP_TEXT, OP_BINARY] {
            let mut bytes = server_frame(OP_TEXT, b"first ");
            bytes.extend(server_frame(0x80 | opcode, b"second"));
            bytes.extend(server_frame(0x80 | OP_CONTINUATION, b"half"));
            let (read, _) = read_all(bytes).await;
            assert_eq!(read.len(), 1, "{read:?}");
            assert!(protocol_error(&read), "{read:?}");
        }
    }

    #[tokio::test]
    async fn a_control_frame_without_fin_or_longer_than_125_bytes_is_a_protocol_error() {
        for bytes in [
            server_frame(OP_PING, b"p"),
            server_frame(0x80 | OP_PING, &[0u8; 126]),
            server_frame(0x80 | OP_CLOSE, &[0u8; 200]),
        ] {
            let (read, replies) = read_all(bytes).await;
            assert_eq!(read.len(), 1, "{read:?}");
            assert!(protocol_error(&read), "{read:?}");
            assert!(replies.is_empty());
        }
        // 125 bytes is still a control frame's size.
        let (read, replies) = read_all(server_frame(0x80 | OP_PING, &[7u8; 125])).await;
        assert_eq!(read, vec![Ok(WsMessage::Closed)]);
        assert_eq!(replies, vec![Reply::Pong(vec![7u8; 125])]);
    }

    #[tokio::test]
    async fn a_frame_with_a_reserved_bit_is_a_protocol_error() {
        for rsv in [0x40, 0x20, 0x10] {
            let (read, _) = read_all(server_frame(0x80 | rsv | OP_TEXT, b"{}")).await;
            assert_eq!(read.len(), 1, "{read:?}");
            assert!(protocol_error(&read), "{read:?}");
        }
    }

    #[test]
    fn frames_use_the_three_length_forms_and_mask_their_payload() {
        let mask = [1, 2, 3, 4];
        let short = encode_frame(OP_TEXT, b"hi", mask);
        assert_eq!(short, vec![0x81, 0x82, 1, 2, 3, 4, b'h' ^ 1, b'i' ^ 2]);
        let medium = encode_frame(OP_TEXT, &[0u8; 300], mask);
        assert_eq!(&medium[..4], &[0x81, 0xFE, 0x01, 0x2C]);
        assert_eq!(medium.len(), 4 + 4 + 300);
        let long = encode_frame(OP_TEXT, &vec![0u8; 70_000], mask);
        assert_eq!(long[1], 0xFF);
        assert_eq!(&long[2..10], &70_000u64.to_be_bytes());
        let mut payload = long[14..].to_vec();
        apply_mask(&mut payload, mask);
        assert!(payload.iter().all(|b| *b == 0));
    }
}
