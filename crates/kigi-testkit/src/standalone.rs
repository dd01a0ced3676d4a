//! Running the server on its own (`kigi-testkit serve`, `kigi mock-model`): start, say where,
//! log each request as one line, stop on Ctrl-C.

use std::io::Write;
use std::path::Path;

use crate::script::ScriptSet;
use crate::server::ScriptedServer;

/// Serves `script_file` on `port` until Ctrl-C. The URL goes to `out` first, then one line per
/// request.
pub async fn serve(script_file: &Path, port: u16, out: &mut dyn Write) -> anyhow::Result<()> {
    let scripts = ScriptSet::load(script_file)?;
    let count = scripts.scripts.len();
    let server = ScriptedServer::start_on(port, scripts).await?;
    writeln!(
        out,
        "scripted model server: {count} script(s) from {} at {}",
        script_file.display(),
        server.url()
    )?;
    writeln!(
        out,
        "use it with: kigi --base-url {} --model scripted",
        server.url()
    )?;
    out.flush()?;
    let mut feed = server.subscribe();
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return Ok(()),
            request = feed.recv() => {
                let Ok(request) = request else { continue };
                // The request log is best effort: a closed stdout must not stop the server.
                let _ = writeln!(
                    out,
                    "{:>9.3}s {} {} script={} step={} attempt={} served={}",
                    request.at.as_secs_f64(),
                    request.method,
                    request.path,
                    request.script.as_deref().unwrap_or("-"),
                    request.step,
                    request.attempt,
                    request.served,
                );
                let _ = out.flush();
            }
        }
    }
}
