//! kigi's own log: `tracing` events to `$KIGI_HOME/logs/kigi.log`, never to stdout (which
//! carries answers and protocols) nor stderr (which carries progress). `KIGI_LOG` sets the
//! level (`off`, `error`, `warn` (the default), `info`, `debug`, `trace`).
//!
//! The rule: logging never fails a run. The file is opened on the first event, so a quiet run
//! touches nothing; if it cannot be opened, events are dropped.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use tracing_subscriber::fmt::MakeWriter;

/// The log file, opened when first written.
#[derive(Debug)]
struct LogFile {
    path: PathBuf,
    file: OnceLock<Option<Mutex<File>>>,
}

impl LogFile {
    fn file(&self) -> Option<&Mutex<File>> {
        self.file
            .get_or_init(|| {
                let dir = self.path.parent()?;
                std::fs::create_dir_all(dir).ok()?;
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.path)
                    .ok()
                    .map(Mutex::new)
            })
            .as_ref()
    }
}

/// One event's writer.
#[derive(Debug)]
struct LogWriter<'a>(&'a LogFile);

impl Write for LogWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.0.file() {
            Some(file) => file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .write(buf),
            None => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LogFile {
    type Writer = LogWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        LogWriter(self)
    }
}

/// The level `KIGI_LOG` names; unset or unknown means `warn`.
fn level(value: Option<&str>) -> Option<tracing::Level> {
    match value.map(str::trim).map(str::to_ascii_lowercase).as_deref() {
        Some("off") => None,
        Some("error") => Some(tracing::Level::ERROR),
        Some("info") => Some(tracing::Level::INFO),
        Some("debug") => Some(tracing::Level::DEBUG),
        Some("trace") => Some(tracing::Level::TRACE),
        _ => Some(tracing::Level::WARN),
    }
}

/// Sends this process's `tracing` events to `logs_dir/kigi.log`. Called once, before a
/// session runs; a second call changes nothing.
pub fn init(logs_dir: PathBuf) {
    let Some(level) = level(std::env::var("KIGI_LOG").ok().as_deref()) else {
        return;
    };
    let writer = LogFile {
        path: logs_dir.join("kigi.log"),
        file: OnceLock::new(),
    };
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false)
        .with_writer(writer)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kigi_log_names_the_level_and_defaults_to_warn() {
        assert_eq!(level(None), Some(tracing::Level::WARN));
        assert_eq!(level(Some("DEBUG")), Some(tracing::Level::DEBUG));
        assert_eq!(level(Some("off")), None);
        assert_eq!(level(Some("loud")), Some(tracing::Level::WARN));
    }
}
