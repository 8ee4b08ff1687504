//! The HTTP side: hyper's HTTP/1 server on a small tokio runtime (its own thread), an axum
//! router, and the JSON API over [`Session`]s.
//!
//! What keeps it standing (see docs/gui.md, "Safety limits"):
//! - headers must arrive within [`Config::header_timeout`] (hyper closes the connection
//!   otherwise, also on an idle keep-alive connection), at most 16 KiB of them;
//! - a body is refused by its declared length before anything is read (tower-http's limit
//!   and a check of our own), then read whole within [`Config::body_timeout`] and at most
//!   [`MAX_BODY`] bytes;
//! - at most [`Config::max_connections`] connections at once, each a task (no thread);
//!   further ones wait in the kernel's backlog;
//! - a panic in a handler becomes a 500 (tower-http's `CatchPanic`) and ends nothing else;
//! - bodies are typed ([`super::requests`]): unknown fields, wrong types and any content type
//!   other than `application/json` are refused;
//! - engine work runs on the blocking pool, with at most [`MAX_WAITED`] searches that a
//!   request waits for at once, and one analysis or review at a time across all games; an
//!   analysis whose page stopped polling for [`Config::abandon_after`] is stopped.

use super::requests::{EmptyBody, EngineBody, MoveBody, NewBody, ReviewBody};
use super::session::{self, NewGame, Session};
use super::{lock, ApiError};
use crate::event::Event;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::{watch, Semaphore};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");
const GLYPHS_JS: &str = include_str!("assets/glyphs.js");
const KANJI_WOFF: &[u8] = include_bytes!("assets/gogo-kanji.woff");
const FONT_LICENCE: &str = include_str!("assets/OFL.txt");

/// Largest request body accepted (a KIF of a long game fits many times).
pub const MAX_BODY: usize = 64 * 1024;
/// Longest request URL accepted.
const MAX_URL: usize = 2048;
/// Largest request head (start line and headers).
const MAX_HEAD: usize = 16 * 1024;
/// Games kept; the least recently used is dropped beyond this.
const MAX_SESSIONS: usize = 32;
/// Longest mate search a request may ask for (ms).
const MAX_MATE_MS: u64 = 60_000;
/// Searches that requests wait for (computer moves, hints, mate searches) at once, across
/// games; more wait for a turn.
const MAX_WAITED: usize = 2;
/// Longest wait for such a turn.
const TURN_WAIT: Duration = Duration::from_secs(30);
/// Longest a request may take, waits for the engine included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// Limits of a board server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Longest wait for a request's headers (and between requests on a kept-alive connection).
    pub header_timeout: Duration,
    /// Longest wait for a whole request body.
    pub body_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// A live analysis or review whose game saw no request for this long is stopped (a page
    /// polls every 300 ms while it analyses; a closed tab stops polling).
    pub abandon_after: Duration,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            port: super::DEFAULT_PORT,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            max_connections: 256,
            abandon_after: Duration::from_secs(15),
        }
    }
}

type SessionRef = Arc<Mutex<Session>>;

struct Inner {
    cfg: Config,
    port: u16,
    sessions: Mutex<HashMap<String, SessionRef>>,
    /// The game whose engine runs a live analysis or review, if any.
    analyser: Mutex<Option<SessionRef>>,
    waited: Semaphore,
    counter: AtomicU64,
}

/// A running board server.
pub struct Server {
    addr: SocketAddr,
    inner: Arc<Inner>,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.addr.port())
    }

    /// Stops accepting, stops every game's engine and waits for the server thread.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let _ = self.stop.send(true);
        // Engines first: a request waiting for a search then ends at once.
        let sessions: Vec<_> = lock(&self.inner.sessions).drain().map(|(_, s)| s).collect();
        for s in sessions {
            lock(&s).stop_engine();
        }
        *lock(&self.inner.analyser) = None;
        if let Some(h) = self.thread.take() {
            let _ = h.join();
        }
        log::info!("board server stopped");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.stop();
        }
    }
}

/// Starts a server on 127.0.0.1:`port` (0: any free port) with the default limits and
/// returns at once.
pub fn start(port: u16) -> Result<Server, String> {
    start_with(Config {
        port,
        ..Config::default()
    })
}

/// Starts a server with the limits of `cfg` and returns at once.
pub fn start_with(cfg: Config) -> Result<Server, String> {
    let port = cfg.port;
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot set up the listener: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(16)
        .thread_name("gui-http")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server runtime: {e}"))?;
    let inner = Arc::new(Inner {
        port: addr.port(),
        cfg,
        sessions: Mutex::new(HashMap::new()),
        analyser: Mutex::new(None),
        waited: Semaphore::new(MAX_WAITED),
        counter: AtomicU64::new(0),
    });
    let (stop, stopped) = watch::channel(false);
    let thread = {
        let inner = inner.clone();
        std::thread::Builder::new()
            .name("gui-server".into())
            .spawn(move || {
                runtime.block_on(serve(listener, inner, stopped));
                runtime.shutdown_timeout(Duration::from_secs(2));
            })
            .map_err(|e| format!("cannot start the server thread: {e}"))?
    };
    log::info!("board server on {addr}");
    Ok(Server {
        addr,
        inner,
        stop,
        thread: Some(thread),
    })
}

fn router(inner: Arc<Inner>) -> Router {
    use tower_http::catch_panic::CatchPanicLayer;
    use tower_http::limit::RequestBodyLimitLayer;
    use tower_http::timeout::TimeoutLayer;
    Router::new()
        .fallback(handle)
        .with_state(inner)
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            REQUEST_TIMEOUT,
        ))
        .layer(CatchPanicLayer::custom(
            |_: Box<dyn std::any::Any + Send>| {
                log::error!("a request handler panicked");
                error_response(&ApiError::internal("internal error"))
            },
        ))
}

async fn serve(
    listener: std::net::TcpListener,
    inner: Arc<Inner>,
    mut stopped: watch::Receiver<bool>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            log::error!("board server: {e}");
            return;
        }
    };
    let app = router(inner.clone());
    let connections = Arc::new(Semaphore::new(inner.cfg.max_connections.max(1)));
    tokio::spawn(watchdog(inner.clone()));
    loop {
        let permit = tokio::select! {
            p = connections.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = stopped.changed() => break,
        };
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of descriptors, most likely: wait a little rather than spin.
                    log::warn!("accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stopped.changed() => break,
        };
        let service = TowerToHyperService::new(app.clone());
        let header_timeout = inner.cfg.header_timeout;
        let mut stop_conn = stopped.clone();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .max_buf_size(MAX_HEAD)
                .max_headers(64)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        log::debug!("connection: {e}");
                    }
                }
                _ = stop_conn.changed() => {}
            }
            drop(permit);
        });
    }
}

/// Stops analyses whose page went away (no request for the game for `abandon_after`).
async fn watchdog(inner: Arc<Inner>) {
    let period =
        (inner.cfg.abandon_after / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    loop {
        tokio::time::sleep(period).await;
        let inner = inner.clone();
        let _ = tokio::task::spawn_blocking(move || {
            let owner = lock(&inner.analyser).clone();
            if let Some(s) = owner {
                let mut s = lock(&s);
                if s.analysing() && s.last_used.elapsed() >= inner.cfg.abandon_after {
                    log::info!("game {}: analysis stopped, its page is gone", &s.id[..8]);
                    s.stop_engine();
                }
            }
        })
        .await;
    }
}

fn with_common(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
             connect-src 'self'; frame-ancestors 'none'",
        ),
    );
    r
}

fn status_of(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

fn json_response(status: u16, v: &Value) -> Response {
    with_common(
        (
            status_of(status),
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            v.to_string(),
        )
            .into_response(),
    )
}

fn error_response(e: &ApiError) -> Response {
    json_response(e.status, &json!({"error": e.message}))
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    with_common(([(header::CONTENT_TYPE, content_type)], body).into_response())
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// DNS-rebinding and cross-site guard: the Host must name this server on the loopback, and an
/// Origin, when sent, must be this server's.
fn check_origin(port: u16, headers: &HeaderMap) -> Result<(), ApiError> {
    let hosts = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    let host = header_text(headers, header::HOST).unwrap_or("");
    if !hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Err(ApiError::new(403, "forbidden: unknown Host"));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !hosts
            .iter()
            .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")))
        {
            return Err(ApiError::new(403, "forbidden: foreign Origin"));
        }
    }
    Ok(())
}

/// `application/json`, optionally with `; charset=utf-8`, and nothing else.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(ct) = header_text(headers, header::CONTENT_TYPE) else {
        return false;
    };
    let mut parts = ct.split(';').map(str::trim);
    let media = parts.next().unwrap_or("");
    if !media.eq_ignore_ascii_case("application/json") {
        return false;
    }
    parts.all(|p| {
        p.split_once('=').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("charset")
                && v.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        })
    })
}

/// The body of a POST: its declared size checked before reading, then read whole in time.
async fn read_body(
    headers: &HeaderMap,
    body: Body,
    timeout: Duration,
) -> Result<Vec<u8>, ApiError> {
    if !is_json(headers) {
        return Err(ApiError::new(415, "the body must be application/json"));
    }
    if let Some(len) = headers.get(header::CONTENT_LENGTH) {
        let n: Option<u64> = len.to_str().ok().and_then(|s| s.parse().ok());
        match n {
            Some(n) if n <= MAX_BODY as u64 => {}
            Some(_) => return Err(ApiError::new(413, "request body too large")),
            None => return Err(ApiError::bad("bad Content-Length")),
        }
    }
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, MAX_BODY)).await {
        Err(_) => Err(ApiError::new(408, "the request body came too slowly")),
        Ok(Err(_)) => Err(ApiError::new(413, "request body too large or cut short")),
        Ok(Ok(b)) => Ok(b.to_vec()),
    }
}

fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad(
            "the body must be a JSON object (at least {})",
        ));
    }
    serde_json::from_slice(body).map_err(|e| ApiError::bad(&format!("bad request body: {e}")))
}

async fn handle(State(inner): State<Arc<Inner>>, req: Request) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let uri = req.uri().clone();
    let response = match route(inner, req).await {
        Ok(r) => r,
        Err(e) => {
            if e.status >= 500 {
                log::error!("{method} {}: {}", uri.path(), e.message);
            } else {
                log::debug!("{method} {}: {} {}", uri.path(), e.status, e.message);
            }
            error_response(&e)
        }
    };
    log::debug!(
        "{method} {} -> {} in {} ms",
        uri.path(),
        response.status().as_u16(),
        started.elapsed().as_millis()
    );
    response
}

async fn route(inner: Arc<Inner>, req: Request) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    check_origin(inner.port, &parts.headers)?;
    let uri = &parts.uri;
    if uri.to_string().len() > MAX_URL {
        return Err(ApiError::new(414, "URL too long"));
    }
    let path = uri.path().to_string();
    let query = uri.query().unwrap_or("").to_string();
    let method = parts.method.clone();
    match (&method, path.as_str()) {
        (&Method::GET, "/") | (&Method::GET, "/index.html") => {
            return Ok(asset(INDEX_HTML, "text/html; charset=utf-8"))
        }
        (&Method::GET, "/app.js") => return Ok(asset(APP_JS, "text/javascript; charset=utf-8")),
        (&Method::GET, "/style.css") => return Ok(asset(STYLE_CSS, "text/css; charset=utf-8")),
        (&Method::GET, "/glyphs.js") => {
            return Ok(asset(GLYPHS_JS, "text/javascript; charset=utf-8"))
        }
        (&Method::GET, "/OFL.txt") => return Ok(asset(FONT_LICENCE, "text/plain; charset=utf-8")),
        (&Method::GET, "/gogo-kanji.woff") => {
            return Ok(with_common(
                ([(header::CONTENT_TYPE, "font/woff")], KANJI_WOFF).into_response(),
            ))
        }
        (&Method::GET, "/favicon.ico") => {
            return Ok(with_common(StatusCode::NO_CONTENT.into_response()))
        }
        _ => {}
    }
    if method == Method::POST {
        // Wrong content is refused before anything reads the body.
        let bytes = read_body(&parts.headers, body, inner.cfg.body_timeout).await?;
        return post(inner, path, bytes).await;
    }
    if method != Method::GET {
        return Err(ApiError::new(405, "method not allowed"));
    }
    let (id, action) = game_path(&path)?;
    let s = session_of(&inner, id)?;
    let view = query_ply(&query)?;
    let action = action.to_string();
    blocking(move || {
        let s = lock(&s);
        match action.as_str() {
            "" => Ok(json_response(200, &s.state_json(view)?)),
            "analysis" => Ok(json_response(200, &s.analysis_json())),
            "record" | "kif" => Ok(download(s.kif(), &format!("gogo-{}.kif", &s.id[..8]))),
            "usi" => Ok(download(
                s.usi_position(),
                &format!("gogo-{}.txt", &s.id[..8]),
            )),
            _ => Err(ApiError::new(404, "no such resource")),
        }
    })
    .await
}

fn download(text: String, name: &str) -> Response {
    let disposition = format!("attachment; filename=\"{name}\"");
    let mut r =
        with_common(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response());
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        r.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    r
}

/// `?ply=N` of a GET of a game: the position to show.
fn query_ply(query: &str) -> Result<Option<usize>, ApiError> {
    match query.split_once('=') {
        _ if query.is_empty() => Ok(None),
        Some(("ply", v)) => v
            .parse()
            .map(Some)
            .map_err(|_| ApiError::bad("ply must be a number")),
        _ => Err(ApiError::bad("the only query parameter is ply")),
    }
}

/// Runs `f` (which locks games and may wait for the engine) on the blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|_| Err(ApiError::internal("internal error")))
}

/// `/api/game/<id>[/<action>]` -> (id, action).
fn game_path(path: &str) -> Result<(&str, &str), ApiError> {
    let rest = path
        .strip_prefix("/api/game/")
        .ok_or_else(|| ApiError::new(404, "no such resource"))?;
    let (id, action) = rest.split_once('/').unwrap_or((rest, ""));
    Ok((id, action))
}

fn session_of(inner: &Inner, id: &str) -> Result<SessionRef, ApiError> {
    let valid = id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
    if !valid {
        return Err(ApiError::new(404, "no such game"));
    }
    let s = lock(&inner.sessions)
        .get(id)
        .cloned()
        .ok_or_else(|| ApiError::new(404, "no such game (it may have expired)"))?;
    lock(&s).last_used = Instant::now();
    Ok(s)
}

fn new_id(inner: &Inner) -> String {
    let n = inner.counter.fetch_add(1, Ordering::SeqCst);
    let mut parts = [0u64; 2];
    for (i, p) in parts.iter_mut().enumerate() {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(n);
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        *p = h.finish();
    }
    format!("{:016x}{:016x}", parts[0], parts[1])
}

fn in_range(
    v: Option<u64>,
    key: &str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, ApiError> {
    match v {
        None => Ok(default),
        Some(n) if range.contains(&n) => Ok(n),
        Some(_) => Err(ApiError::bad(&format!(
            "{key} must be a number in {}..={}",
            range.start(),
            range.end()
        ))),
    }
}

/// Makes `s` the one game that analyses: the previous one's analysis or review is stopped.
/// Never called with a game locked (it locks the previous one).
fn take_analyser(inner: &Inner, s: &SessionRef) {
    let previous = lock(&inner.analyser).replace(s.clone());
    if let Some(p) = previous {
        if !Arc::ptr_eq(&p, s) {
            let mut p = lock(&p);
            if p.analysing() {
                p.stop_engine();
            }
        }
    }
}

async fn post(inner: Arc<Inner>, path: String, body: Vec<u8>) -> Result<Response, ApiError> {
    if path == "/api/new" {
        let req: NewBody = parse(&body)?;
        let setup = NewGame::from_body(&req)?;
        return blocking(move || new_game(&inner, setup, req.replaces)).await;
    }
    let (id, action) = game_path(&path)?;
    let s = session_of(&inner, id)?;
    match action {
        "move" => {
            let req: MoveBody = parse(&body)?;
            let moves = match (req.one, req.moves) {
                (Some(m), None) => vec![m],
                (None, Some(ms)) => ms,
                _ => {
                    return Err(ApiError::bad(
                        "give \"move\": \"<usi move>\" or \"moves\": [\"<usi move>\", ...]",
                    ))
                }
            };
            blocking(move || {
                let mut s = lock(&s);
                s.play(&moves, req.ply)?;
                Ok(json_response(200, &s.state_json(None)?))
            })
            .await
        }
        "undo" => {
            let _: EmptyBody = parse(&body)?;
            blocking(move || {
                let mut s = lock(&s);
                s.undo()?;
                Ok(json_response(200, &s.state_json(None)?))
            })
            .await
        }
        "computer" | "hint" | "mate" => {
            let req: EngineBody = if action == "computer" {
                let _: EmptyBody = parse(&body)?;
                EngineBody::default()
            } else {
                parse(&body)?
            };
            let ms = in_range(req.ms, "ms", 3000, 1..=MAX_MATE_MS)?;
            let _turn = tokio::time::timeout(TURN_WAIT, inner.waited.acquire())
                .await
                .map_err(|_| ApiError::busy("the engine is busy with other games"))?
                .map_err(|_| ApiError::busy("the server is stopping"))?;
            let action = action.to_string();
            blocking(move || waited(&s, &action, req.ply, ms)).await
        }
        "analyse" => {
            let req: EngineBody = parse(&body)?;
            let multipv = in_range(req.multipv.map(|n| n as u64), "multipv", 3, 1..=5)? as usize;
            blocking(move || {
                take_analyser(&inner, &s);
                let mut s = lock(&s);
                s.start_analysis(multipv, req.ply)?;
                Ok(json_response(202, &s.analysis_json()))
            })
            .await
        }
        "review" => {
            let req: ReviewBody = parse(&body)?;
            let ms = in_range(req.ms, "ms", 300, 10..=10_000)?;
            blocking(move || {
                take_analyser(&inner, &s);
                let mut s = lock(&s);
                s.start_review(ms);
                Ok(json_response(202, &s.analysis_json()))
            })
            .await
        }
        "stop" => {
            let _: EmptyBody = parse(&body)?;
            blocking(move || {
                let mut s = lock(&s);
                s.stop_engine();
                Ok(json_response(200, &s.analysis_json()))
            })
            .await
        }
        _ => Err(ApiError::new(404, "no such action")),
    }
}

fn new_game(inner: &Inner, setup: NewGame, replaces: Option<String>) -> Result<Response, ApiError> {
    let id = new_id(inner);
    let session = Session::new(id.clone(), setup);
    let state = session.state_json(None)?;
    let evicted = {
        let mut sessions = lock(&inner.sessions);
        // The page's previous game, which it gives up.
        let mut evicted = replaces.and_then(|old| sessions.remove(&old));
        if evicted.is_none() && sessions.len() >= MAX_SESSIONS {
            let oldest = sessions
                .iter()
                .min_by_key(|(_, s)| lock(s).last_used)
                .map(|(k, _)| k.clone());
            evicted = oldest.and_then(|k| sessions.remove(&k));
        }
        sessions.insert(id, Arc::new(Mutex::new(session)));
        evicted
    };
    if let Some(old) = evicted {
        lock(&old).stop_engine();
        let mut analyser = lock(&inner.analyser);
        if analyser.as_ref().is_some_and(|a| Arc::ptr_eq(a, &old)) {
            *analyser = None;
        }
    }
    Ok(json_response(201, &state))
}

/// A computer move, a hint or a mate search: started under the game's lock, waited for
/// without it.
fn waited(s: &SessionRef, action: &str, ply: Option<usize>, ms: u64) -> Result<Response, ApiError> {
    match action {
        "computer" => {
            let (rx, ticket, wait) = lock(s).start_computer_move()?;
            let ev = session::wait_closing(&rx, wait);
            let mut s = lock(s);
            match ev {
                Some(Event::BestMove { best, .. }) => {
                    s.finish_computer_move(ticket, best)?;
                    Ok(json_response(200, &s.state_json(None)?))
                }
                _ => Err(ApiError::conflict("the computer's search was stopped")),
            }
        }
        "hint" => {
            let (rx, ticket, wait) = lock(s).start_hint(ply)?;
            let ev = session::wait_closing(&rx, wait);
            let mut s = lock(s);
            match ev {
                Some(Event::BestMove { best, .. }) => {
                    Ok(json_response(200, &s.finish_hint(ticket, best)?))
                }
                _ => Err(ApiError::conflict("the hint search was stopped")),
            }
        }
        _ => {
            let (rx, ticket, wait) = match lock(s).start_mate(ms, ply)? {
                Ok(started) => started,
                Err(answer) => return Ok(json_response(200, &answer)),
            };
            let ev = session::wait_closing(&rx, wait);
            let mut s = lock(s);
            match ev {
                Some(Event::Checkmate(answer)) => {
                    Ok(json_response(200, &s.finish_mate(ticket, answer)?))
                }
                _ => Err(ApiError::conflict("the mate search was stopped")),
            }
        }
    }
}
