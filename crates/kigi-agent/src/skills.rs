//! Skills: `SKILL.md` files under `.kigi/skills/<name>/` (project, closest folder first) and
//! `$KIGI_HOME/skills/<name>/`, each with `name` and `description` frontmatter. The prompt lists
//! every skill in one line; the ones an agent names in `skills:` are included in full.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::diagnostic::{Diagnostic, Severity};
use crate::frontmatter;
use crate::frontmatter_depth;
use crate::project::ProjectLayout;

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub path: PathBuf,
    pub body: String,
}

#[derive(Deserialize)]
struct SkillFrontmatter {
    name: Option<String>,
    description: Option<String>,
}

fn skill_error(path: &Path, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        file: Some(path.to_path_buf()),
        line: None,
        field: None,
        message,
    }
}

/// Reads one `SKILL.md`. The folder name stands in for a missing `name`.
fn read_skill(path: &Path) -> Result<Skill, Diagnostic> {
    let text = read_bounded(path, FILE_CAP_BYTES).map_err(|e| skill_error(path, e.detail()))?;
    let doc = frontmatter::split(&text).map_err(|e| skill_error(path, e.message().to_owned()))?;
    frontmatter_depth::check(&doc.yaml, frontmatter_depth::MAX_DEPTH).map_err(|deep| {
        skill_error(path, deep.message()).at_line(doc.yaml_first_line + deep.line - 1)
    })?;
    let meta: SkillFrontmatter = serde_yaml_ng::from_str(&doc.yaml)
        .map_err(|e| skill_error(path, format!("frontmatter is not valid YAML: {e}")))?;
    let folder_name = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned());
    let name = meta
        .name
        .or(folder_name)
        .ok_or_else(|| skill_error(path, "required field `name` is missing".into()))?;
    let description = meta.description.ok_or_else(|| {
        let mut d = skill_error(path, "required field `description` is missing".into());
        d.field = Some("description".into());
        d
    })?;
    Ok(Skill {
        name,
        description,
        path: path.to_path_buf(),
        body: doc.body,
    })
}

/// Every skill visible from `layout` (or user-level only), first definition of a name winning.
pub fn discover(
    user_skills_dir: &Path,
    layout: Option<&ProjectLayout>,
) -> (Vec<Skill>, Vec<Diagnostic>) {
    let mut roots: Vec<PathBuf> = layout
        .map(|l| {
            l.levels_closest_first()
                .iter()
                .map(|d| d.join(".kigi/skills"))
                .collect()
        })
        .unwrap_or_default();
    roots.push(user_skills_dir.to_path_buf());

    let mut skills: Vec<Skill> = Vec::new();
    let mut diagnostics = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path().join("SKILL.md"))
            // Not `is_file`: a FIFO or device named `SKILL.md` gets a diagnostic, not silence.
            .filter(|p| p.exists() && !p.is_dir())
            .collect();
        files.sort();
        for file in files {
            match read_skill(&file) {
                Ok(skill) if skills.iter().all(|s| s.name != skill.name) => skills.push(skill),
                Ok(_) => {}
                Err(diagnostic) => diagnostics.push(diagnostic),
            }
        }
    }
    (skills, diagnostics)
}

/// The skills section: a one-line index of every skill, then the full text of `included`.
pub fn render_section(skills: &[Skill], included: &[String]) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let mut out = String::from(
        "<skills>\nSkills hold instructions for specific tasks. When a task matches one, read its file first.\n",
    );
    for skill in skills {
        out.push_str(&format!(
            "- {}: {} ({})\n",
            skill.name,
            skill.description.trim(),
            skill.path.display()
        ));
    }
    out.push_str("</skills>");
    for skill in skills.iter().filter(|s| included.contains(&s.name)) {
        out.push_str(&format!(
            "\n<skill name=\"{}\">\n{}\n</skill>",
            skill.name,
            skill.body.trim()
        ));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_skill(dir: &Path, name: &str, description: &str, body: &str) {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
        )
        .unwrap();
    }

    #[test]
    fn project_skills_shadow_user_skills_and_named_ones_are_included() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("repo");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let user = tmp.path().join("home/skills");
        write_skill(
            &project.join(".kigi/skills"),
            "release",
            "Cut a release",
            "Tag it.",
        );
        write_skill(&user, "release", "User release", "Other.");
        write_skill(&user, "triage", "Triage bugs", "Label them.");
        let layout = ProjectLayout::locate(&project);
        let (skills, diagnostics) = discover(&user, Some(&layout));
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let names: Vec<_> = skills
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![("release", "Cut a release"), ("triage", "Triage bugs")]
        );
        let section = render_section(&skills, &["triage".into()]).unwrap();
        assert!(section.contains("- release: Cut a release"));
        assert!(section.contains("<skill name=\"triage\">\nLabel them.\n</skill>"));
        assert!(!section.contains("Tag it."));
    }

    #[test]
    fn a_broken_skill_is_reported_and_the_rest_load() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("skills");
        write_skill(&user, "good", "Fine", "x");
        std::fs::create_dir_all(user.join("bad")).unwrap();
        std::fs::write(user.join("bad/SKILL.md"), "no frontmatter").unwrap();
        let (skills, diagnostics) = discover(&user, None);
        assert_eq!(skills.len(), 1);
        assert_eq!(diagnostics.len(), 1);
        assert!(
            diagnostics[0]
                .file
                .as_ref()
                .unwrap()
                .ends_with("bad/SKILL.md")
        );
    }
}
