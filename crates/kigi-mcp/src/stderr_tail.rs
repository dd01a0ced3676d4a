//! `StderrTail`: the last few kilobytes a stdio server wrote to stderr, for the report of a
//! server that failed.
//!
//! The rule: memory is bounded whatever the server writes (a chatty server logs for hours);
//! only the tail is kept, and it is rendered from a line start where one is in reach.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

/// Bytes of stderr kept per server.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// The tail of a stream, at most `capacity` bytes.
#[derive(Debug, Clone)]
pub struct StderrTail {
    bytes: VecDeque<u8>,
    capacity: usize,
    /// Bytes dropped from the front so far.
    dropped: u64,
}

impl StderrTail {
    pub fn new(capacity: usize) -> Self {
        Self {
            bytes: VecDeque::with_capacity(capacity.min(1024)),
            capacity,
            dropped: 0,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        let chunk = if chunk.len() > self.capacity {
            self.dropped += (chunk.len() - self.capacity) as u64;
            &chunk[chunk.len() - self.capacity..]
        } else {
            chunk
        };
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(self.capacity);
        self.bytes.drain(..overflow);
        self.dropped += overflow as u64;
        self.bytes.extend(chunk);
    }

    /// The kept text (lossy UTF-8); when bytes were dropped, it starts after the first line
    /// break, so no half line leads.
    pub fn text(&self) -> String {
        let bytes: Vec<u8> = self.bytes.iter().copied().collect();
        let start = if self.dropped > 0 {
            bytes.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1)
        } else {
            0
        };
        String::from_utf8_lossy(&bytes[start..]).into_owned()
    }
}

/// Shared between the reader task and whoever reports the failure.
pub type SharedTail = Arc<Mutex<StderrTail>>;

/// The tail's text now.
pub fn tail_text(tail: &SharedTail) -> String {
    tail.lock()
        .map(|tail| tail.text())
        .unwrap_or_else(|poisoned| poisoned.into_inner().text())
}

/// Reads `pipe` to its end into `tail`.
pub async fn collect_into(mut pipe: impl AsyncRead + Unpin, tail: SharedTail) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        match tail.lock() {
            Ok(mut tail) => tail.push(&chunk[..n]),
            Err(poisoned) => poisoned.into_inner().push(&chunk[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_everything_below_capacity() {
        let mut tail = StderrTail::new(16);
        tail.push(b"one\n");
        tail.push(b"two\n");
        assert_eq!(tail.text(), "one\ntwo\n");
    }

    #[test]
    fn keeps_only_the_last_bytes_from_a_line_start() {
        let mut tail = StderrTail::new(10);
        tail.push(b"first line\nsecond\n");
        assert_eq!(tail.bytes.len(), 10);
        assert_eq!(tail.text(), "second\n");
        for _ in 0..1000 {
            tail.push(b"spam\n");
        }
        assert_eq!(tail.bytes.len(), 10);
        assert_eq!(tail.text(), "spam\n");
    }

    #[test]
    fn a_single_huge_chunk_is_cut_to_capacity() {
        let mut tail = StderrTail::new(4);
        tail.push(b"abcdefgh");
        assert_eq!(tail.text(), "efgh", "no line break in reach: the raw tail");
    }
}
