//! A web server for tests of the web tools: fixed pages on 127.0.0.1 by path, redirects, and a
//! log of every request's path and query.
//!
//! The rule: it serves only what the test put in it; any other path is a 404.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// One answer.
#[derive(Debug, Clone)]
pub struct Page {
    pub status: u16,
    pub content_type: String,
    pub body: String,
    /// A `Location` header (with a 3xx status).
    pub location: Option<String>,
}

impl Page {
    pub fn html(body: impl Into<String>) -> Self {
        Self::of("text/html; charset=utf-8", body)
    }

    pub fn json(body: impl Into<String>) -> Self {
        Self::of("application/json", body)
    }

    pub fn of(content_type: &str, body: impl Into<String>) -> Self {
        Self {
            status: 200,
            content_type: content_type.to_owned(),
            body: body.into(),
            location: None,
        }
    }

    pub fn redirect(location: impl Into<String>) -> Self {
        Self {
            status: 302,
            content_type: "text/plain".into(),
            body: String::new(),
            location: Some(location.into()),
        }
    }
}

/// A running server; dropping it stops accepting connections.
#[derive(Debug)]
pub struct PageServer {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
    stop: CancellationToken,
}

impl PageServer {
    /// Serves `pages` (path → page; the path without its query) on a free loopback port.
    pub async fn start(pages: Vec<(&str, Page)>) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let pages: Arc<HashMap<String, Page>> = Arc::new(
            pages
                .into_iter()
                .map(|(path, page)| (path.to_owned(), page))
                .collect(),
        );
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = CancellationToken::new();
        tokio::spawn(accept_loop(listener, pages, Arc::clone(&log), stop.clone()));
        Ok(Self { addr, log, stop })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request's path and query, in arrival order.
    pub fn requests(&self) -> Vec<String> {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }
}

impl Drop for PageServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn accept_loop(
    listener: TcpListener,
    pages: Arc<HashMap<String, Page>>,
    log: Arc<Mutex<Vec<String>>>,
    stop: CancellationToken,
) {
    loop {
        let stream = tokio::select! {
            () = stop.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => continue,
            },
        };
        let pages = Arc::clone(&pages);
        let log = Arc::clone(&log);
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let target = request
                    .uri()
                    .path_and_query()
                    .map(|p| p.to_string())
                    .unwrap_or_default();
                if let Ok(mut log) = log.lock() {
                    log.push(target);
                }
                let page = pages.get(request.uri().path()).cloned();
                async move { Ok::<_, Infallible>(answer(page)) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn answer(page: Option<Page>) -> Response<Full<Bytes>> {
    let page = page.unwrap_or(Page {
        status: 404,
        content_type: "text/plain".into(),
        body: "not found".into(),
        location: None,
    });
    let mut response = Response::new(Full::new(Bytes::from(page.body)));
    *response.status_mut() = StatusCode::from_u16(page.status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    if let Ok(value) = page.content_type.parse() {
        headers.insert(hyper::header::CONTENT_TYPE, value);
    }
    if let Some(value) = page.location.and_then(|l| l.parse().ok()) {
        headers.insert(hyper::header::LOCATION, value);
    }
    response
}
