//! What `/init` asks, in every front end that offers it (the terminal, ACP editors).
//!
//! The rule: one text. The model writes the file itself, so the person sees it (AGENTS.md is
//! an instruction file: writing it always asks) before it lands.

/// The user turn `/init` sends.
pub const INIT_PROMPT: &str = "Survey this repository and write its AGENTS.md at the project root \
with write_file: what a coding agent must know before changing code here. Read the README, the \
build and package files, the CI configuration, and a sample of the source and the tests first \
(change nothing else). Say, briefly and specifically: what the project is and how it is laid out; \
the exact commands to build, test (one test too), lint and format; the conventions the code \
follows; anything surprising. Only commands you saw evidence for. Under 150 lines. If an \
AGENTS.md exists, improve it rather than start over.";
