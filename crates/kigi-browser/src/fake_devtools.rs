//! A DevTools endpoint for unit tests: one WebSocket connection on loopback that answers
//! each command as the test's script says (or never), and sends the events the script adds
//! after an answer.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What to do with one command: `None` leaves it unanswered; otherwise its result and the
/// events (`{"method", "params", "sessionId"}`) sent right after it.
pub type Script = fn(&str) -> Option<(Value, Vec<Value>)>;

/// A running endpoint; dropping it closes the connection.
pub struct FakeDevtools {
    pub url: String,
    task: JoinHandle<()>,
}

impl Drop for FakeDevtools {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeDevtools {
    pub async fn start(script: Script) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!(
            "ws://{}/devtools/browser/fake",
            listener.local_addr().unwrap()
        );
        let task = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            serve(stream, script).await;
        });
        Self { url, task }
    }
}

async fn serve(mut stream: TcpStream, script: Script) {
    let mut header = Vec::new();
    while !header.ends_with(b"\r\n\r\n") {
        let Ok(byte) = stream.read_u8().await else {
            return;
        };
        header.push(byte);
    }
    let upgraded =
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    if stream.write_all(upgraded).await.is_err() {
        return;
    }
    while let Some(text) = read_client_text(&mut stream).await {
        let command: Value = serde_json::from_str(&text).unwrap();
        let Some((result, events)) = script(command["method"].as_str().unwrap_or_default()) else {
            continue;
        };
        let answer = json!({"id": command["id"], "result": result});
        for message in std::iter::once(answer).chain(events) {
            let frame = server_text_frame(message.to_string().as_bytes());
            if stream.write_all(&frame).await.is_err() {
                return;
            }
        }
    }
}

/// One masked client text frame's payload; `None` at the end of the stream.
async fn read_client_text(stream: &mut TcpStream) -> Option<String> {
    let mut head = [0u8; 2];
    stream.read_exact(&mut head).await.ok()?;
    let length = match head[1] & 0x7F {
        126 => usize::from(stream.read_u16().await.ok()?),
        127 => usize::try_from(stream.read_u64().await.ok()?).ok()?,
        n => usize::from(n),
    };
    let mut mask = [0u8; 4];
    stream.read_exact(&mut mask).await.ok()?;
    let mut payload = vec![0u8; length];
    stream.read_exact(&mut payload).await.ok()?;
    for (i, byte) in payload.iter_mut().enumerate() {
        *byte ^= mask[i % 4];
    }
    String::from_utf8(payload).ok()
}

fn server_text_frame(payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x81];
    match payload.len() {
        n if n < 126 => frame.push(n as u8),
        n if n <= usize::from(u16::MAX) => {
            frame.push(126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(payload);
    frame
}
