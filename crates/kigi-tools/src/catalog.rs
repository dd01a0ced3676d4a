//! The catalog of built-in tools: what each is called, what kind of thing it does, and the one
//! line the model reads about it. Implementations live beside their tools; this is the index the
//! agent layer resolves allowlists and prompt variables against.

use std::borrow::Cow;

use kigi_protocol::ToolKind;

/// One tool as the agent layer sees it: a built-in's is a constant, a tool found at run time
/// (an MCP server's) owns its strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    /// Canonical name: what execution uses, whatever the model is shown.
    pub name: Cow<'static, str>,
    pub kind: ToolKind,
    /// Short on purpose: it is paid for on every request of every agent.
    pub description: Cow<'static, str>,
    /// True when the tool never changes files or runs commands.
    pub read_only: bool,
    /// The cross-harness display and grouping key of the `kigi/tool` envelope.
    pub label: Cow<'static, str>,
    /// The argument keys projected into the envelope's `input` (never bulky ones).
    pub input_keys: &'static [&'static str],
}

/// Tools an agent has only when it names them (in `tools` or its `completionRequirement`):
/// they would cost every other agent prompt for nothing.
/// The browser tools are opt-in too: only an agent that names them (`browser-use`) starts a
/// browser.
const OPT_IN: &[&str] = &[
    "complete_task",
    "browser_open",
    "browser_snapshot",
    "browser_click",
    "browser_type",
    "browser_press",
    "browser_scroll",
    "browser_wait",
    "browser_screenshot",
    "browser_console",
];

/// The tools implemented by a browser (the `kigi-browser` crate): an agent with any of them
/// needs one on the machine.
pub fn is_browser_tool(name: &str) -> bool {
    name.starts_with("browser_") && OPT_IN.contains(&name)
}

impl ToolSpec {
    /// The name, when it is a constant (every built-in's is); `None` for a run-time tool.
    pub fn static_name(&self) -> Option<&'static str> {
        match self.name {
            Cow::Borrowed(name) => Some(name),
            Cow::Owned(_) => None,
        }
    }

    /// Whether an agent with every tool still lacks this one unless it names it.
    pub fn opt_in(&self) -> bool {
        OPT_IN.contains(&&*self.name)
    }
}

const BUILT_IN: &[ToolSpec] = &[
    ToolSpec {
        name: Cow::Borrowed("read_file"),
        kind: ToolKind::Read,
        description: Cow::Borrowed("Read a text file, optionally a line range."),
        read_only: true,
        label: Cow::Borrowed("Read"),
        input_keys: &["path"],
    },
    ToolSpec {
        name: Cow::Borrowed("list_dir"),
        kind: ToolKind::ListDir,
        description: Cow::Borrowed("List a directory's entries."),
        read_only: true,
        label: Cow::Borrowed("List"),
        input_keys: &["path"],
    },
    ToolSpec {
        name: Cow::Borrowed("grep"),
        kind: ToolKind::Search,
        description: Cow::Borrowed("Search file contents with a regex; honours .gitignore."),
        read_only: true,
        label: Cow::Borrowed("Grep"),
        input_keys: &["pattern", "path"],
    },
    ToolSpec {
        name: Cow::Borrowed("glob"),
        kind: ToolKind::Search,
        description: Cow::Borrowed("Find files whose paths match a glob pattern."),
        read_only: true,
        label: Cow::Borrowed("Glob"),
        input_keys: &["pattern", "path"],
    },
    ToolSpec {
        name: Cow::Borrowed("web_fetch"),
        kind: ToolKind::WebFetch,
        description: Cow::Borrowed("Fetch an http(s) URL as Markdown."),
        read_only: true,
        label: Cow::Borrowed("WebFetch"),
        input_keys: &["url"],
    },
    ToolSpec {
        name: Cow::Borrowed("web_search"),
        kind: ToolKind::WebSearch,
        description: Cow::Borrowed("Search the web; returns links with snippets."),
        read_only: true,
        label: Cow::Borrowed("WebSearch"),
        input_keys: &["query"],
    },
    ToolSpec {
        name: Cow::Borrowed("search_replace"),
        kind: ToolKind::Edit,
        description: Cow::Borrowed("Replace an exact, unique string in a file."),
        read_only: false,
        label: Cow::Borrowed("Edit"),
        input_keys: &["path"],
    },
    ToolSpec {
        name: Cow::Borrowed("write_file"),
        kind: ToolKind::Write,
        description: Cow::Borrowed("Create or overwrite a file."),
        read_only: false,
        label: Cow::Borrowed("Write"),
        input_keys: &["path"],
    },
    ToolSpec {
        name: Cow::Borrowed("run_terminal_cmd"),
        kind: ToolKind::Execute,
        description: Cow::Borrowed("Run a shell command, in the foreground or background."),
        read_only: false,
        label: Cow::Borrowed("Bash"),
        input_keys: &["command"],
    },
    ToolSpec {
        name: Cow::Borrowed("todo_write"),
        kind: ToolKind::Plan,
        description: Cow::Borrowed("Record the task list for this session."),
        read_only: true,
        label: Cow::Borrowed("TodoWrite"),
        input_keys: &[],
    },
    ToolSpec {
        name: Cow::Borrowed("complete_task"),
        kind: ToolKind::Complete,
        description: Cow::Borrowed("Declare your task done; the summary is your result."),
        read_only: true,
        label: Cow::Borrowed("CompleteTask"),
        input_keys: &[],
    },
    ToolSpec {
        name: Cow::Borrowed("get_task_output"),
        kind: ToolKind::BackgroundTaskAction,
        description: Cow::Borrowed("Read a background task's output."),
        read_only: true,
        label: Cow::Borrowed("TaskOutput"),
        input_keys: &["task_id"],
    },
    ToolSpec {
        name: Cow::Borrowed("get_command_or_subagent_output"),
        kind: ToolKind::WaitTasksAction,
        description: Cow::Borrowed(
            "Wait for background commands or subagents (up to 20 ids) and return their output.",
        ),
        read_only: true,
        label: Cow::Borrowed("TaskOutput"),
        input_keys: &["ids"],
    },
    ToolSpec {
        name: Cow::Borrowed("kill_task"),
        kind: ToolKind::KillTaskAction,
        description: Cow::Borrowed("Stop a background command or subagent."),
        read_only: false,
        label: Cow::Borrowed("KillTask"),
        input_keys: &["task_id"],
    },
    ToolSpec {
        name: Cow::Borrowed("send_to_subagent"),
        kind: ToolKind::Task,
        description: Cow::Borrowed(
            "Give one of your subagents more input: read at its next step, or a finished one continues with it.",
        ),
        read_only: false,
        label: Cow::Borrowed("SendMessage"),
        input_keys: &["target"],
    },
    ToolSpec {
        name: Cow::Borrowed("list_subagents"),
        kind: ToolKind::Task,
        description: Cow::Borrowed("List your subagents (running first, at most 50)."),
        read_only: true,
        label: Cow::Borrowed("ListAgents"),
        input_keys: &[],
    },
    ToolSpec {
        name: Cow::Borrowed("notify_parent"),
        kind: ToolKind::Other,
        description: Cow::Borrowed(
            "Leave a message for your parent agent; it reads it at its next step.",
        ),
        read_only: true,
        label: Cow::Borrowed("NotifyParent"),
        input_keys: &[],
    },
    ToolSpec {
        name: Cow::Borrowed("apply_worktree"),
        kind: ToolKind::Edit,
        description: Cow::Borrowed("Apply a worktree subagent's changes to the main working tree."),
        read_only: false,
        label: Cow::Borrowed("ApplyWorktree"),
        input_keys: &["subagent"],
    },
    ToolSpec {
        name: Cow::Borrowed("agent_swarm"),
        kind: ToolKind::AgentSwarm,
        description: Cow::Borrowed(
            "Run one prompt template over 2-128 items, one subagent per item, and get one aggregate.",
        ),
        read_only: false,
        label: Cow::Borrowed("AgentSwarm"),
        input_keys: &["description"],
    },
    // The browser's: opening a page or acting on it reaches the web (ask like a command);
    // reading what the browser shows changes nothing.
    ToolSpec {
        name: Cow::Borrowed("browser_open"),
        // Opening a URL is a fetch: `WebFetch(domain:…)` rules and the fetch checks judge it.
        kind: ToolKind::WebFetch,
        description: Cow::Borrowed("Open a URL in the browser; returns the page snapshot."),
        read_only: false,
        label: Cow::Borrowed("BrowserOpen"),
        input_keys: &["url"],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_snapshot"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("The page as text, interactive elements numbered [n]."),
        read_only: true,
        label: Cow::Borrowed("BrowserSnapshot"),
        input_keys: &[],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_click"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("Click element [n] of the last snapshot."),
        read_only: false,
        label: Cow::Borrowed("BrowserClick"),
        input_keys: &["element"],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_type"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("Type text into element [n] (replacing its value)."),
        read_only: false,
        label: Cow::Borrowed("BrowserType"),
        input_keys: &["element"],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_press"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("Press keys (Enter, Tab, Escape, arrows, a character)."),
        read_only: false,
        label: Cow::Borrowed("BrowserPress"),
        input_keys: &["keys"],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_scroll"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("Scroll the page, or element [n] into view."),
        read_only: true,
        label: Cow::Borrowed("BrowserScroll"),
        input_keys: &["element"],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_wait"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("Wait until the page shows some text (at most 30 s)."),
        read_only: true,
        label: Cow::Borrowed("BrowserWait"),
        input_keys: &["text"],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_screenshot"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("A PNG screenshot of the page."),
        read_only: true,
        label: Cow::Borrowed("BrowserScreenshot"),
        input_keys: &[],
    },
    ToolSpec {
        name: Cow::Borrowed("browser_console"),
        kind: ToolKind::Other,
        description: Cow::Borrowed("The page's console messages and errors since the last read."),
        read_only: true,
        label: Cow::Borrowed("BrowserConsole"),
        input_keys: &[],
    },
    ToolSpec {
        name: Cow::Borrowed("spawn_subagent"),
        kind: ToolKind::Task,
        description: Cow::Borrowed("Hand a focused task to a subagent."),
        read_only: false,
        label: Cow::Borrowed("Task"),
        input_keys: &["description", "subagent_type"],
    },
];

/// The set of tools an agent can be given. Cheap to copy: it borrows a static table.
/// The spec of built-in tool `name`. Only called with names from this file (a registry test
/// checks every implemented tool has one); an unknown name gets a spec that says so.
pub fn built_in_spec(name: &str) -> &'static ToolSpec {
    const MISSING: ToolSpec = ToolSpec {
        name: Cow::Borrowed("unknown"),
        kind: ToolKind::Other,
        description: Cow::Borrowed(""),
        read_only: false,
        label: Cow::Borrowed("Unknown"),
        input_keys: &[],
    };
    BUILT_IN
        .iter()
        .find(|spec| spec.name == name)
        .unwrap_or(&MISSING)
}

#[derive(Debug, Clone, Copy)]
pub struct ToolCatalog {
    specs: &'static [ToolSpec],
}

impl ToolCatalog {
    /// kigi's built-in tools.
    pub fn built_in() -> Self {
        Self { specs: BUILT_IN }
    }

    /// Every tool, in a stable order (the order prompts and listings use).
    pub fn specs(&self) -> &'static [ToolSpec] {
        self.specs
    }

    /// The tool with this canonical name.
    pub fn get(&self, name: &str) -> Option<&'static ToolSpec> {
        self.specs.iter().find(|spec| spec.name == name)
    }

    /// True when a tool of this canonical name exists.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names_are_unique() {
        let specs = ToolCatalog::built_in().specs();
        for (i, a) in specs.iter().enumerate() {
            assert!(
                specs[i + 1..].iter().all(|b| b.name != a.name),
                "{} twice",
                a.name
            );
        }
    }

    #[test]
    fn read_only_flag_agrees_with_kind() {
        for spec in ToolCatalog::built_in().specs() {
            if spec.kind.writes_files() || spec.kind == ToolKind::Execute {
                assert!(!spec.read_only, "{} is marked read-only", spec.name);
            }
        }
    }
}
