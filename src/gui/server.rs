//! The HTTP side: request guards (Host / Origin, sizes, content type), routing and the JSON
//! API over [`Session`]s.

use super::analysis::Event;
use super::session::{self, lock, NewGame, Session};
use super::ApiError;
use serde_json::{json, Value};
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tiny_http::{Header, Method, Request, Response};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Largest request body accepted.
pub const MAX_BODY: usize = 64 * 1024;
/// Longest request URL accepted.
const MAX_URL: usize = 2048;
/// Requests handled at the same time; more get 503.
const MAX_ACTIVE: usize = 32;
/// Games kept; the least recently used is dropped beyond this.
const MAX_SESSIONS: usize = 32;
/// Longest mate search a request may ask for (ms).
const MAX_MATE_MS: u64 = 60_000;

struct Inner {
    port: u16,
    sessions: Mutex<HashMap<String, Arc<Mutex<Session>>>>,
    active: AtomicUsize,
    stopping: AtomicBool,
    counter: AtomicU64,
}

/// A running board server.
pub struct Server {
    addr: SocketAddr,
    inner: Arc<Inner>,
    http: Arc<tiny_http::Server>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.addr.port())
    }

    /// Stops accepting, stops every game's engine and waits for the accept thread.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.http.unblock();
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
        let sessions: Vec<_> = lock(&self.inner.sessions).drain().map(|(_, s)| s).collect();
        for s in sessions {
            lock(&s).stop_engine();
        }
        log::info!("board server stopped");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.accept.is_some() {
            self.stop();
        }
    }
}

/// Starts a server on 127.0.0.1:`port` (0: any free port) and returns at once.
pub fn start(port: u16) -> Result<Server, String> {
    let http = tiny_http::Server::http(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = http
        .server_addr()
        .to_ip()
        .ok_or("the server has no IP address")?;
    let http = Arc::new(http);
    let inner = Arc::new(Inner {
        port: addr.port(),
        sessions: Mutex::new(HashMap::new()),
        active: AtomicUsize::new(0),
        stopping: AtomicBool::new(false),
        counter: AtomicU64::new(0),
    });
    let accept = {
        let http = http.clone();
        let inner = inner.clone();
        std::thread::Builder::new()
            .name("gui-accept".into())
            .spawn(move || accept_loop(&http, &inner))
            .map_err(|e| format!("cannot start the server thread: {e}"))?
    };
    log::info!("board server on {addr}");
    Ok(Server {
        addr,
        inner,
        http,
        accept: Some(accept),
    })
}

fn accept_loop(http: &tiny_http::Server, inner: &Arc<Inner>) {
    while !inner.stopping.load(Ordering::SeqCst) {
        let req = match http.recv_timeout(Duration::from_millis(200)) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => {
                log::warn!("accept: {e}");
                continue;
            }
        };
        if inner.active.load(Ordering::SeqCst) >= MAX_ACTIVE {
            let _ = req.respond(error_response(&ApiError::new(503, "server busy")));
            continue;
        }
        inner.active.fetch_add(1, Ordering::SeqCst);
        let worker = inner.clone();
        let spawned = std::thread::Builder::new()
            .name("gui-request".into())
            .spawn(move || {
                handle(&worker, req);
                worker.active.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            inner.active.fetch_sub(1, Ordering::SeqCst);
            log::error!("cannot start a request thread: {e}");
        }
    }
}

type Resp = Response<std::io::Cursor<Vec<u8>>>;

fn header(name: &str, value: &str) -> Header {
    // Only called with ASCII constants and validated values.
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("valid header")
}

fn with_common(r: Resp) -> Resp {
    r.with_header(header("X-Content-Type-Options", "nosniff"))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Frame-Options", "DENY"))
        .with_header(header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
             connect-src 'self'; frame-ancestors 'none'",
        ))
}

fn json_response(status: u16, v: &Value) -> Resp {
    with_common(
        Response::from_string(v.to_string())
            .with_status_code(status)
            .with_header(header("Content-Type", "application/json; charset=utf-8")),
    )
}

fn error_response(e: &ApiError) -> Resp {
    json_response(e.status, &json!({"error": e.message}))
}

fn asset(body: &'static str, content_type: &str) -> Resp {
    with_common(
        Response::from_data(body.as_bytes().to_vec())
            .with_header(header("Content-Type", content_type)),
    )
}

fn header_value<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

/// DNS-rebinding and cross-site guard: the Host must name this server on the loopback, and an
/// Origin, when sent, must be this server's.
fn check_origin(inner: &Inner, req: &Request) -> Result<(), ApiError> {
    let port = inner.port;
    let hosts = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    let host = header_value(req, "Host").unwrap_or("");
    if !hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Err(ApiError::new(403, "forbidden: unknown Host"));
    }
    if let Some(origin) = header_value(req, "Origin") {
        if !hosts
            .iter()
            .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")))
        {
            return Err(ApiError::new(403, "forbidden: foreign Origin"));
        }
    }
    Ok(())
}

fn handle(inner: &Inner, mut req: Request) {
    let started = Instant::now();
    let method = req.method().clone();
    let url = req.url().to_string();
    let response = match route(inner, &mut req) {
        Ok(r) => r,
        Err(e) => {
            if e.status >= 500 {
                log::error!("{method} {url}: {}", e.message);
            } else {
                log::debug!("{method} {url}: {} {}", e.status, e.message);
            }
            error_response(&e)
        }
    };
    log::debug!(
        "{method} {url} -> {} in {} ms",
        response.status_code().0,
        started.elapsed().as_millis()
    );
    if let Err(e) = req.respond(response) {
        log::debug!("{method} {url}: could not answer: {e}");
    }
}

fn read_body(req: &mut Request) -> Result<Value, ApiError> {
    if req.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(ApiError::new(413, "request body too large"));
    }
    let mut body = Vec::new();
    req.as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|_| ApiError::bad("could not read the request body"))?;
    if body.len() > MAX_BODY {
        return Err(ApiError::new(413, "request body too large"));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    let ct = header_value(req, "Content-Type").unwrap_or("");
    if !ct.to_ascii_lowercase().starts_with("application/json") {
        return Err(ApiError::new(415, "the body must be application/json"));
    }
    let v: Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad(&format!("malformed JSON: {e}")))?;
    if !v.is_object() {
        return Err(ApiError::bad("the body must be a JSON object"));
    }
    Ok(v)
}

fn route(inner: &Inner, req: &mut Request) -> Result<Resp, ApiError> {
    check_origin(inner, req)?;
    if req.url().len() > MAX_URL {
        return Err(ApiError::new(414, "URL too long"));
    }
    let path = req.url().split('?').next().unwrap_or("").to_string();
    let method = req.method().clone();
    match (&method, path.as_str()) {
        (Method::Get, "/") | (Method::Get, "/index.html") => {
            return Ok(asset(INDEX_HTML, "text/html; charset=utf-8"))
        }
        (Method::Get, "/app.js") => return Ok(asset(APP_JS, "text/javascript; charset=utf-8")),
        (Method::Get, "/style.css") => return Ok(asset(STYLE_CSS, "text/css; charset=utf-8")),
        (Method::Get, "/favicon.ico") => {
            return Ok(with_common(
                Response::from_data(Vec::new()).with_status_code(204),
            ))
        }
        _ => {}
    }
    if method == Method::Post {
        // Reject wrong content before anything else reads the body.
        let body = read_body(req)?;
        return post(inner, &path, &body);
    }
    if method != Method::Get {
        return Err(ApiError::new(405, "method not allowed"));
    }
    let (id, action) = game_path(&path)?;
    let s = session_of(inner, id)?;
    let s = lock(&s);
    match action {
        "" => Ok(json_response(200, &s.state_json())),
        "analysis" => Ok(json_response(200, &s.analysis_json())),
        "record" => {
            let name = format!("gogo-{}.txt", &s.id[..8]);
            Ok(with_common(
                Response::from_string(s.record())
                    .with_header(header("Content-Type", "text/plain; charset=utf-8"))
                    .with_header(header(
                        "Content-Disposition",
                        &format!("attachment; filename=\"{name}\""),
                    )),
            ))
        }
        _ => Err(ApiError::new(404, "no such resource")),
    }
}

/// `/api/game/<id>[/<action>]` -> (id, action).
fn game_path(path: &str) -> Result<(&str, &str), ApiError> {
    let rest = path
        .strip_prefix("/api/game/")
        .ok_or_else(|| ApiError::new(404, "no such resource"))?;
    let (id, action) = rest.split_once('/').unwrap_or((rest, ""));
    Ok((id, action))
}

fn session_of(inner: &Inner, id: &str) -> Result<Arc<Mutex<Session>>, ApiError> {
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

fn number(
    body: &Value,
    key: &str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, ApiError> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v.as_u64().filter(|n| range.contains(n)).ok_or_else(|| {
            ApiError::bad(&format!(
                "{key} must be a number in {}..={}",
                range.start(),
                range.end()
            ))
        }),
    }
}

fn post(inner: &Inner, path: &str, body: &Value) -> Result<Resp, ApiError> {
    if path == "/api/new" {
        let setup = NewGame::from_json(body)?;
        let id = new_id(inner);
        let session = Session::new(id.clone(), setup);
        let state = session.state_json();
        let evicted = {
            let mut sessions = lock(&inner.sessions);
            // The page's previous game, which it gives up.
            let mut evicted = body
                .get("replaces")
                .and_then(Value::as_str)
                .and_then(|old| sessions.remove(old));
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
        }
        return Ok(json_response(201, &state));
    }
    let (id, action) = game_path(path)?;
    let s = session_of(inner, id)?;
    match action {
        "move" => {
            let moves: Vec<String> = match (body.get("move"), body.get("moves")) {
                (Some(Value::String(m)), None) => vec![m.clone()],
                (None, Some(Value::Array(a))) if a.len() <= 1000 => a
                    .iter()
                    .map(|m| m.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| ApiError::bad("moves must be strings"))?,
                _ => {
                    return Err(ApiError::bad(
                        "give \"move\": \"<usi move>\" or \"moves\": [\"<usi move>\", ...]",
                    ))
                }
            };
            let mut s = lock(&s);
            s.play(&moves)?;
            Ok(json_response(200, &s.state_json()))
        }
        "undo" => {
            let mut s = lock(&s);
            s.undo()?;
            Ok(json_response(200, &s.state_json()))
        }
        "computer" => {
            let (rx, version, wait) = lock(&s).start_computer_move()?;
            let ev = session::wait_closing(&rx, wait);
            let mut s = lock(&s);
            match ev {
                Some(Event::BestMove { best, .. }) => {
                    s.finish_computer_move(version, best)?;
                    Ok(json_response(200, &s.state_json()))
                }
                _ => Err(ApiError::conflict("the computer's search was stopped")),
            }
        }
        "hint" => {
            let (rx, version, wait) = lock(&s).start_hint()?;
            let ev = session::wait_closing(&rx, wait);
            let mut s = lock(&s);
            match ev {
                Some(Event::BestMove { best, score }) => {
                    let v = s.finish_hint(version, best, score)?;
                    Ok(json_response(200, &v))
                }
                _ => Err(ApiError::conflict("the hint search was stopped")),
            }
        }
        "mate" => {
            let ms = number(body, "ms", 3000, 1..=MAX_MATE_MS)?;
            let (rx, version, wait) = lock(&s).start_mate(ms);
            let ev = session::wait_closing(&rx, wait);
            let mut s = lock(&s);
            match ev {
                Some(Event::Checkmate(answer)) => {
                    let v = s.finish_mate(version, answer)?;
                    Ok(json_response(200, &v))
                }
                _ => Err(ApiError::conflict("the mate search was stopped")),
            }
        }
        "analyse" => {
            let multipv = number(body, "multipv", 3, 1..=5)? as usize;
            let mut s = lock(&s);
            s.start_analysis(multipv);
            Ok(json_response(202, &s.analysis_json()))
        }
        "review" => {
            let ms = number(body, "ms", 300, 10..=10_000)?;
            let mut s = lock(&s);
            s.start_review(ms);
            Ok(json_response(202, &s.analysis_json()))
        }
        "stop" => {
            let mut s = lock(&s);
            s.stop_engine();
            Ok(json_response(200, &s.analysis_json()))
        }
        _ => Err(ApiError::new(404, "no such action")),
    }
}
