//! Against the reference server `@modelcontextprotocol/server-everything`, over stdio and over
//! streamable HTTP: tool calls and their results, images, cancellation, resources, and names
//! and kinds from the server's own annotations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use kigi_tools::Tool as _;
use std::time::Duration;

use common::{HttpServer, connect, stdio_config};
use kigi_mcp::{McpConnection, McpContent, McpError, McpServerConfig, McpTool, unique_tool_names};
use kigi_protocol::ToolKind;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A ceiling against hangs only; nothing asserts how long anything took.
const HANG_GUARD: Duration = Duration::from_secs(30);

async fn over_stdio() -> McpConnection {
    connect("everything", &stdio_config()).await
}

async fn over_http(server: &HttpServer) -> McpConnection {
    connect("everything", &McpServerConfig::http(&server.url)).await
}

async fn echo_and_sum_answer(conn: &McpConnection) {
    let cancel = CancellationToken::new();
    let echo = conn
        .call_tool("echo", json!({"message": "hello from kigi"}), &cancel)
        .await
        .unwrap();
    assert_eq!(
        echo.content,
        [McpContent::Text("Echo: hello from kigi".into())]
    );
    assert!(!echo.is_error);
    let sum = conn
        .call_tool("get-sum", json!({"a": 2, "b": 40}), &cancel)
        .await
        .unwrap();
    assert_eq!(sum.to_text(), "The sum of 2 and 40 is 42.");
}

async fn tiny_image_keeps_its_bytes(conn: &McpConnection) {
    let result = conn
        .call_tool("get-tiny-image", json!({}), &CancellationToken::new())
        .await
        .unwrap();
    let images: Vec<_> = result.images().collect();
    assert_eq!(images.len(), 1, "{result:?}");
    let (mime, data) = images[0];
    assert_eq!(mime, "image/png");
    assert!(
        data.starts_with("iVBORw0KGgo"),
        "PNG bytes, base64: {}",
        &data[..16]
    );
    let size = kigi_mcp::base64_decoded_len(data);
    assert!(
        result
            .to_text()
            .contains(&format!("[image: image/png, {size} bytes]")),
        "{}",
        result.to_text()
    );
}

async fn interrupt_sends_cancellation(conn: &McpConnection) {
    let cancel = CancellationToken::new();
    let mut in_flight = conn.calls_in_flight();
    let call = conn.call_tool(
        "trigger-long-running-operation",
        json!({"duration": 600, "steps": 1}),
        &cancel,
    );
    let interrupt = async {
        // Interrupt once the request is on its way, as a user's Ctrl-C during the call would.
        in_flight.wait_for(|n| *n == 1).await.unwrap();
        cancel.cancel();
    };
    let (result, ()) = tokio::time::timeout(HANG_GUARD, async { tokio::join!(call, interrupt) })
        .await
        .expect("an interrupted 600 s operation returns at once");
    assert!(
        matches!(result, Err(McpError::Cancelled { .. })),
        "{result:?}"
    );
    assert_eq!(conn.cancellations_sent(), 1);
    assert_eq!(*conn.calls_in_flight().borrow(), 0);
    // The connection is still usable.
    echo_and_sum_answer(conn).await;
}

async fn a_resource_reads(conn: &McpConnection) {
    let resources = conn.list_resources().await.unwrap();
    let doc = resources
        .iter()
        .find(|r| r.uri.starts_with("demo://resource/static/document/"))
        .unwrap_or_else(|| panic!("a static document among {resources:?}"));
    let read = conn.read_resource(&doc.uri).await.unwrap();
    let [McpContent::Resource { uri, text, .. }] = read.content.as_slice() else {
        panic!("one resource part: {read:?}");
    };
    assert_eq!(uri, &doc.uri);
    assert!(text.as_deref().is_some_and(|t| !t.is_empty()), "{read:?}");
}

#[tokio::test]
async fn stdio_echo_and_sum_return_their_results() {
    let conn = over_stdio().await;
    assert_eq!(conn.transport(), "stdio");
    echo_and_sum_answer(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn http_echo_and_sum_return_their_results() {
    let server = HttpServer::start();
    let conn = over_http(&server).await;
    assert_eq!(conn.transport(), "http");
    echo_and_sum_answer(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn stdio_image_result_keeps_bytes_and_type() {
    let conn = over_stdio().await;
    tiny_image_keeps_its_bytes(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn http_image_result_keeps_bytes_and_type() {
    let server = HttpServer::start();
    let conn = over_http(&server).await;
    tiny_image_keeps_its_bytes(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn stdio_interrupted_long_call_sends_cancellation_and_returns() {
    let conn = over_stdio().await;
    interrupt_sends_cancellation(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn http_interrupted_long_call_sends_cancellation_and_returns() {
    let server = HttpServer::start();
    let conn = over_http(&server).await;
    interrupt_sends_cancellation(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn a_call_past_its_tool_timeout_is_cancelled() {
    let mut config = stdio_config();
    config.tool_timeout_ms = 200;
    let conn = connect("everything", &config).await;
    let result = tokio::time::timeout(
        HANG_GUARD,
        conn.call_tool(
            "trigger-long-running-operation",
            json!({"duration": 600, "steps": 1}),
            &CancellationToken::new(),
        ),
    )
    .await
    .expect("the tool timeout ends the call");
    assert!(
        matches!(&result, Err(McpError::CallTimeout { tool, .. }) if tool == "trigger-long-running-operation"),
        "{result:?}"
    );
    assert_eq!(conn.cancellations_sent(), 1);
    conn.shutdown().await;
}

#[tokio::test]
async fn stdio_resource_reads() {
    let conn = over_stdio().await;
    assert!(conn.has_resources());
    a_resource_reads(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn http_resource_reads() {
    let server = HttpServer::start();
    let conn = over_http(&server).await;
    a_resource_reads(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn tool_names_and_kinds_follow_the_servers_annotations() {
    let conn = std::sync::Arc::new(over_stdio().await);
    let infos = conn.tools();
    let pairs: Vec<(&str, &str)> = infos
        .iter()
        .map(|i| ("everything", i.tool.as_str()))
        .collect();
    let tools: Vec<McpTool> = infos
        .iter()
        .zip(unique_tool_names(&pairs))
        .map(|(info, name)| McpTool::new(name, info.clone(), std::sync::Arc::clone(&conn)))
        .collect();
    let find = |name: &str| {
        tools.iter().find(|t| t.name() == name).unwrap_or_else(|| {
            panic!(
                "{name} among {:?}",
                tools.iter().map(McpTool::name).collect::<Vec<_>>()
            )
        })
    };
    let echo = find("mcp__everything__echo");
    assert_eq!((echo.kind(), echo.read_only()), (ToolKind::Other, true));
    assert_eq!(echo.description(), "Echoes back the input string");
    assert_eq!(echo.parameters()["type"], "object");
    assert_eq!(echo.parameters()["required"], json!(["message"]));
    assert!(echo.parameters().get("$schema").is_none());
    // readOnlyHint false, destructiveHint false, openWorldHint true: mutating, not destructive.
    let gzip = find("mcp__everything__gzip-file-as-resource");
    assert_eq!((gzip.kind(), gzip.read_only()), (ToolKind::Execute, false));
    assert!(!gzip.info().kind.destructive && gzip.info().kind.open_world);
    let image = find("mcp__everything__get-tiny-image");
    assert_eq!(
        image.parameters(),
        json!({"type": "object", "properties": {}})
    );
    let meta = echo.meta();
    assert_eq!(meta.namespace, kigi_protocol::ToolNamespace::Mcp);
    assert_eq!(meta.label, "mcp__everything__echo");
    for tool in &tools {
        assert!(tool.name().len() <= 64);
        assert!(
            tool.name()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
    }
    conn.shutdown().await;
}

#[tokio::test]
async fn a_tool_list_change_raises_the_flag_and_refresh_lowers_it() {
    // server-everything registers a task tool once initialized and announces it.
    let conn = over_stdio().await;
    tokio::time::timeout(HANG_GUARD, conn.tools_changed_signal())
        .await
        .expect("notifications/tools/list_changed arrives");
    assert!(conn.tools_changed());
    let tools = conn.refresh_tools().await.unwrap();
    assert!(!conn.tools_changed());
    assert!(
        tools.iter().any(|t| t.tool == "simulate-research-query"),
        "{tools:?}"
    );
    conn.shutdown().await;
}

#[tokio::test]
async fn the_adapter_runs_a_call_as_a_kigi_tool() {
    let conn = std::sync::Arc::new(over_stdio().await);
    let info = conn
        .tools()
        .iter()
        .find(|t| t.tool == "echo")
        .cloned()
        .unwrap();
    let tool = McpTool::new(
        "mcp__everything__echo".into(),
        info,
        std::sync::Arc::clone(&conn),
    );
    let context = kigi_tools::ToolContext::new(std::env::temp_dir());
    let output = tool
        .execute(json!({"message": "x"}), &context)
        .await
        .unwrap();
    assert_eq!(output, kigi_tools::ToolOutput::ok("Echo: x"));
    // A schema violation is the server's error, shown to the model as a failed call.
    let output = tool.execute(json!({"message": 5}), &context).await.unwrap();
    assert!(output.is_error, "{output:?}");
    let refused = tool.execute(json!("not an object"), &context).await;
    assert!(matches!(
        refused,
        Err(kigi_tools::ToolError::InvalidArguments { .. })
    ));
    conn.shutdown().await;
}

#[tokio::test]
async fn shutdown_reaps_the_stdio_server() {
    let conn = over_stdio().await;
    let pid = conn.pid().unwrap();
    assert!(!common::process_gone(pid));
    conn.shutdown().await;
    assert!(
        common::process_gone(pid),
        "pid {pid} still running after shutdown"
    );
    assert!(conn.is_closed());
    let after = conn
        .call_tool("echo", json!({"message": "x"}), &CancellationToken::new())
        .await;
    assert!(matches!(after, Err(McpError::Closed { .. })), "{after:?}");
}
