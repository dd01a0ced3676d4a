//! `kigi init`: asks the model to survey this repository and write an `AGENTS.md`.
//!
//! The rule: the model never writes the file. `AGENTS.md` is an instruction file kigi's tools
//! refuse to write, so the session runs in plan mode (read-only tools), its final answer is
//! the file's content, and kigi writes it at the project root itself, never over an existing
//! one without `--force`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::{PermissionMode, ProjectLayout};
use kigi_core::TurnError;
use kigi_core::host::{OpenRequest, SessionStart};
use kigi_model::ModelFlags;
use serde_json::json;

use super::print::showing_events;
use super::progress::{EventView, OutputFormat};

/// `kigi init`'s flags.
#[derive(Debug, Clone, clap::Args)]
pub struct InitOptions {
    /// Replace an AGENTS.md that exists already.
    #[arg(long)]
    pub force: bool,
    /// Print JSON (the file written and the session).
    #[arg(long)]
    pub json: bool,
}

/// What the model is asked. Its answer is the file, so the last paragraph matters most.
pub const INIT_PROMPT: &str = "Survey this repository and write its AGENTS.md: what a coding \
agent must know before changing code here. Read the README, the build and package files, the \
CI configuration, and a sample of the source and the tests (read only; change nothing). Say, \
briefly and specifically: what the project is and how it is laid out; the exact commands to \
build, test (one test too), lint and format; the conventions the code follows; anything \
surprising (generated files, required environment, slow steps). Only commands you saw evidence \
for. Under 150 lines.\n\n\
Your final answer is the complete content of AGENTS.md, in Markdown, and nothing else: no \
preamble, no code fence around it.";

/// Said besides when an existing file is replaced.
const REPLACING: &str = "\n\nAn AGENTS.md exists already (in your instructions) and will be \
replaced by your answer: keep what is still true.";

/// Runs `kigi init`.
pub fn run(
    options: InitOptions,
    model: &ModelFlags,
    rules: kigi_agent::permissions::PermissionRules,
    sandbox: Option<kigi_tools::sandbox::SandboxMode>,
) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let root = ProjectLayout::locate(&cwd).root;
    let existing = existing_agents_md(&root);
    let target = existing.clone().unwrap_or_else(|| root.join("AGENTS.md"));
    if existing.is_some() && !options.force {
        anyhow::bail!(
            "{} exists already; pass --force to replace it with a new survey",
            target.display()
        );
    }
    let host = super::session_host()?;
    let runtime = super::runtime()?;
    let request = OpenRequest {
        start: SessionStart::New,
        model: model.clone(),
        permission_mode: Some(PermissionMode::Plan),
        rules,
        sandbox,
        ..OpenRequest::new(&cwd)
    };
    let prompt = if existing.is_some() {
        format!("{INIT_PROMPT}{REPLACING}")
    } else {
        INIT_PROMPT.to_owned()
    };
    let (session_id, outcome) = runtime.block_on(async {
        let mut session = host.open(request)?;
        for warning in session.warnings() {
            errln!("kigi: warning: {warning}");
        }
        let id = session.id().to_owned();
        let control = session.control();
        let mut view = EventView::new(OutputFormat::Text);
        let outcome = showing_events(session.events(), &mut view, control.run_turn(&prompt)).await;
        let mut events = session.shutdown().await;
        while let Some(event) = events.next().await {
            view.show(&event);
        }
        view.finish();
        anyhow::Ok((id, outcome))
    })?;
    let answer = match outcome {
        Ok(summary) => summary.text,
        Err(TurnError::Cancelled) => return Ok(ExitCode::from(130)),
        Err(error) => {
            anyhow::bail!("the survey failed, nothing was written (session {session_id}): {error}")
        }
    };
    let content = file_content(&answer).with_context(|| {
        format!("the model's answer was empty, nothing was written (session {session_id})")
    })?;
    write_file(&target, &content, options.force)?;
    let lines = content.lines().count();
    if options.json {
        let out = json!({"path": target, "lines": lines, "bytes": content.len(),
                         "replaced": existing.is_some(), "session_id": session_id});
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        outln!(
            "wrote {} ({lines} lines); read it through before you commit it",
            target.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The project's `AGENTS.md` in any letter case (kigi reads it so).
fn existing_agents_md(root: &Path) -> Option<PathBuf> {
    let exact = root.join("AGENTS.md");
    if exact.symlink_metadata().is_ok() {
        return Some(exact);
    }
    std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("agents.md"))
        })
}

/// The answer as the file's text: a code fence around all of it (models add one despite
/// being asked not to) is taken off, and it ends with one newline. `None` when empty.
fn file_content(answer: &str) -> Option<String> {
    let trimmed = answer.trim();
    let unfenced = trimmed
        .strip_prefix("```")
        .and_then(|rest| rest.strip_suffix("```"))
        .and_then(|inner| inner.split_once('\n'))
        .filter(|(info, _)| {
            let info = info.trim();
            info.is_empty() || info.eq_ignore_ascii_case("markdown") || info == "md"
        })
        .map_or(trimmed, |(_, body)| body.trim());
    (!unfenced.is_empty()).then(|| format!("{unfenced}\n"))
}

/// Writes `content` to `path`: never over an existing file unless `replace`.
fn write_file(path: &Path, content: &str, replace: bool) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if replace {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(content.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn the_answer_loses_a_fence_around_it_and_ends_with_one_newline() {
        assert_eq!(file_content("# A\n\nrun x\n\n").unwrap(), "# A\n\nrun x\n");
        assert_eq!(
            file_content("```markdown\n# A\n```\n").unwrap(),
            "# A\n",
            "a fence around the whole answer"
        );
        assert_eq!(file_content("```\n# A\n```").unwrap(), "# A\n");
        let inner = "# A\n\n```sh\ncargo test\n```";
        assert_eq!(file_content(inner).unwrap(), format!("{inner}\n"));
        assert_eq!(file_content(" \n "), None);
    }

    #[test]
    fn an_existing_file_is_kept_unless_replacing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("AGENTS.md");
        write_file(&path, "new\n", false).unwrap();
        assert!(write_file(&path, "again\n", false).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        write_file(&path, "replaced\n", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "replaced\n");
        std::fs::rename(&path, tmp.path().join("agents.md")).unwrap();
        assert_eq!(
            existing_agents_md(tmp.path()),
            Some(tmp.path().join("agents.md"))
        );
    }
}
