//! The browser tools the model calls (`browser_open`, `browser_snapshot`, `browser_click`,
//! `browser_type`, `browser_press`, `browser_scroll`, `browser_wait`, `browser_screenshot`,
//! `browser_console`), all sharing one [`BrowserSession`]. Their names, kinds and
//! descriptions are in kigi-tools' catalog, like every built-in's.
//!
//! The rule: `browser_open` reaches only http(s) URLs, and a loopback or private host only
//! under an allow rule naming it (`WebFetch(domain:…)`), judged exactly as `web_fetch`
//! judges it. Every request the page makes itself (redirects, subresources, scripts, forms)
//! is judged the same way by the browser's [`crate::request_guard`], under the rules of the
//! latest call.

use std::sync::Arc;
use std::time::Duration;

use kigi_tools::{
    Tool, ToolContext, ToolError, ToolFuture, ToolImage, ToolOutput, ToolSpec, built_in_spec,
    parameters_of, parse_arguments, parse_web_url, resolve_checked,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::browser_session::BrowserSession;
use crate::error::BrowserError;

/// Default and longest wait of `browser_wait`.
const WAIT_DEFAULT_SECS: u64 = 10;
const WAIT_MAX_SECS: u64 = 30;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OpenArgs {
    url: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ClickArgs {
    /// The element's number in the last snapshot.
    element: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TypeArgs {
    /// The element's number in the last snapshot.
    element: u32,
    text: String,
    /// Press Enter after typing.
    #[serde(default)]
    submit: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PressArgs {
    /// Presses separated by spaces, modifiers with +: `Enter`, `Tab Tab`, `Control+a`.
    keys: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ScrollArgs {
    /// Bring this element into view instead.
    #[serde(default)]
    element: Option<u32>,
    /// Scroll up a screen (default: down).
    #[serde(default)]
    up: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitArgs {
    text: String,
    /// Seconds, at most 30 (default 10).
    #[serde(default)]
    timeout_secs: Option<u64>,
}

/// What a browser tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowserAction {
    Open,
    Snapshot,
    Click,
    Type,
    Press,
    Scroll,
    Wait,
    Screenshot,
    Console,
}

impl BrowserAction {
    pub const ALL: [BrowserAction; 9] = [
        Self::Open,
        Self::Snapshot,
        Self::Click,
        Self::Type,
        Self::Press,
        Self::Scroll,
        Self::Wait,
        Self::Screenshot,
        Self::Console,
    ];

    /// The tool's canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Open => "browser_open",
            Self::Snapshot => "browser_snapshot",
            Self::Click => "browser_click",
            Self::Type => "browser_type",
            Self::Press => "browser_press",
            Self::Scroll => "browser_scroll",
            Self::Wait => "browser_wait",
            Self::Screenshot => "browser_screenshot",
            Self::Console => "browser_console",
        }
    }
}

/// One browser tool.
#[derive(Debug)]
pub struct BrowserTool {
    action: BrowserAction,
    session: Arc<BrowserSession>,
}

/// Every browser tool, over `session`'s one browser (started at the first call).
pub fn browser_tools(session: &Arc<BrowserSession>) -> Vec<Arc<dyn Tool>> {
    BrowserAction::ALL
        .into_iter()
        .map(|action| {
            Arc::new(BrowserTool {
                action,
                session: Arc::clone(session),
            }) as Arc<dyn Tool>
        })
        .collect()
}

impl Tool for BrowserTool {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec(self.action.name())
    }

    fn parameters(&self) -> Value {
        match self.action {
            BrowserAction::Open => parameters_of::<OpenArgs>(),
            BrowserAction::Click => parameters_of::<ClickArgs>(),
            BrowserAction::Type => parameters_of::<TypeArgs>(),
            BrowserAction::Press => parameters_of::<PressArgs>(),
            BrowserAction::Scroll => parameters_of::<ScrollArgs>(),
            BrowserAction::Wait => parameters_of::<WaitArgs>(),
            BrowserAction::Snapshot | BrowserAction::Screenshot | BrowserAction::Console => {
                parameters_of::<NoArgs>()
            }
        }
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let name = self.action.name();
            let ran = tokio::select! {
                ran = self.run(arguments, context) => ran?,
                () = context.cancel.cancelled() => {
                    return Err(ToolError::Cancelled { tool: name.into() });
                }
            };
            Ok(ran.unwrap_or_else(|e| ToolOutput::error(e.to_string())))
        })
    }
}

impl BrowserTool {
    /// Reads the arguments (a schema mismatch is a [`ToolError`]) and runs the action.
    async fn run(
        &self,
        arguments: Value,
        context: &ToolContext,
    ) -> Result<Result<ToolOutput, BrowserError>, ToolError> {
        let name = self.action.name();
        self.session
            .set_private_hosts(context.private_hosts.clone());
        let ran = match self.action {
            BrowserAction::Open => {
                let args: OpenArgs = parse_arguments(name, arguments)?;
                self.open(&args.url, context).await
            }
            BrowserAction::Snapshot => {
                let _: NoArgs = parse_arguments(name, arguments)?;
                self.snapshot().await
            }
            BrowserAction::Click => {
                let args: ClickArgs = parse_arguments(name, arguments)?;
                self.click(args.element).await
            }
            BrowserAction::Type => {
                let args: TypeArgs = parse_arguments(name, arguments)?;
                self.type_text(&args).await
            }
            BrowserAction::Press => {
                let args: PressArgs = parse_arguments(name, arguments)?;
                self.press(&args.keys).await
            }
            BrowserAction::Scroll => {
                let args: ScrollArgs = parse_arguments(name, arguments)?;
                self.scroll(args.element, args.up).await
            }
            BrowserAction::Wait => {
                let args: WaitArgs = parse_arguments(name, arguments)?;
                let secs = args
                    .timeout_secs
                    .unwrap_or(WAIT_DEFAULT_SECS)
                    .clamp(1, WAIT_MAX_SECS);
                self.wait(&args.text, Duration::from_secs(secs)).await
            }
            BrowserAction::Screenshot => {
                let _: NoArgs = parse_arguments(name, arguments)?;
                self.screenshot().await
            }
            BrowserAction::Console => {
                let _: NoArgs = parse_arguments(name, arguments)?;
                self.console().await
            }
        };
        Ok(ran)
    }

    async fn open(&self, url: &str, context: &ToolContext) -> Result<ToolOutput, BrowserError> {
        let parsed = parse_web_url(url).map_err(|e| BrowserError::Refused(e.to_string()))?;
        // The same judge as web_fetch: a private address needs a rule naming the host.
        resolve_checked(&parsed, context.private_hosts.as_deref())
            .await
            .map_err(|e| BrowserError::Refused(e.to_string()))?;
        let page = self.session.page().await?;
        page.navigate(parsed.as_str()).await?;
        Ok(ToolOutput::ok(page.snapshot().await?.render()))
    }

    async fn snapshot(&self) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        Ok(ToolOutput::ok(page.snapshot().await?.render()))
    }

    /// Clicks, then shows the page as it is after the click (it may have changed).
    async fn click(&self, element: u32) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        page.click(element).await?;
        let snapshot = page.snapshot().await?.render();
        Ok(ToolOutput::ok(format!(
            "Clicked [{element}].\n\n{snapshot}"
        )))
    }

    async fn type_text(&self, args: &TypeArgs) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        page.type_text(args.element, &args.text).await?;
        if !args.submit {
            return Ok(ToolOutput::ok(format!("Typed into [{}].", args.element)));
        }
        page.press("Enter").await?;
        let snapshot = page.snapshot().await?.render();
        Ok(ToolOutput::ok(format!(
            "Typed into [{}] and pressed Enter.\n\n{snapshot}",
            args.element
        )))
    }

    async fn press(&self, keys: &str) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        page.press(keys).await?;
        let snapshot = page.snapshot().await?.render();
        Ok(ToolOutput::ok(format!("Pressed {keys}.\n\n{snapshot}")))
    }

    async fn scroll(&self, element: Option<u32>, up: bool) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        page.scroll(element, up).await.map(ToolOutput::ok)
    }

    async fn wait(&self, text: &str, ceiling: Duration) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        if page.wait_for_text(text, ceiling).await? {
            Ok(ToolOutput::ok(format!("The page shows \"{text}\".")))
        } else {
            Ok(ToolOutput::error(format!(
                "The page did not show \"{text}\" within {}s.",
                ceiling.as_secs()
            )))
        }
    }

    async fn screenshot(&self) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        let data = page.screenshot().await?;
        let url = page.evaluate("location.href").await?;
        let mut output = ToolOutput::ok(format!(
            "Screenshot of {} (PNG, attached as an image).",
            url.as_str().unwrap_or("the page")
        ));
        output.images.push(ToolImage {
            media_type: "image/png".into(),
            data,
        });
        Ok(output)
    }

    async fn console(&self) -> Result<ToolOutput, BrowserError> {
        let page = self.session.page().await?;
        let (lines, dropped) = page.console();
        let mut text = if lines.is_empty() {
            "No console messages since the last read.".to_owned()
        } else {
            lines.join("\n")
        };
        if dropped > 0 {
            text = format!("({dropped} older messages dropped)\n{text}");
        }
        Ok(ToolOutput::ok(text))
    }
}
