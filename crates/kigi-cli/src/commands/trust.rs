//! `kigi trust [PATH] [--revoke | --list]`.

use std::path::PathBuf;
use std::process::ExitCode;

use kigi_agent::{KigiPaths, ProjectLayout, TrustStore};

pub fn run(path: Option<PathBuf>, revoke: bool, list: bool) -> anyhow::Result<ExitCode> {
    let paths = KigiPaths::from_env();
    let mut store = TrustStore::load(&paths.trust_file())?;
    if list {
        for folder in store.folders() {
            outln!("{}", folder.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let folder = match path {
        Some(path) => path,
        None => ProjectLayout::locate(&std::env::current_dir()?).root,
    };
    if !folder.is_dir() {
        anyhow::bail!("{}: not a folder", folder.display());
    }
    if revoke {
        if store.revoke(&folder) {
            store.save()?;
            outln!("no longer trusted: {}", folder.display());
        } else if store.is_trusted(&folder) {
            outln!(
                "{} is not in the trust list itself but lies in a trusted folder; revoke that folder",
                folder.display()
            );
            return Ok(ExitCode::FAILURE);
        } else {
            outln!("not trusted: {}", folder.display());
        }
    } else if store.trust(&folder) {
        store.save()?;
        outln!("trusted: {}", folder.display());
    } else {
        outln!("already trusted: {}", folder.display());
    }
    Ok(ExitCode::SUCCESS)
}
