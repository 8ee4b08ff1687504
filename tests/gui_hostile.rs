//! Hostile input against the board server, each finding of a hostile-input round (issue 18)
//! as a test against a real server on a loopback port: huge declared lengths, slow bodies,
//! half-open connections, more connections than the limit, wrong types and content types,
//! analyses in several games and an analysis whose page went away. Every loop is bounded and
//! every connection goes to 127.0.0.1.
#![cfg(feature = "gui")]

use gogo::gui::{start_with, Config, Server};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The tests count this process's threads and open many connections: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn server(cfg: Config) -> Server {
    start_with(Config { port: 0, ..cfg }).expect("server starts")
}

fn quick() -> Config {
    Config {
        header_timeout: Duration::from_millis(800),
        body_timeout: Duration::from_millis(800),
        ..Config::default()
    }
}

/// Sends `head` (and `body`) and reads the answer: (status, body); status 0 when the server
/// closed the connection without one.
fn exchange(port: u16, head: &str, body: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

fn post(port: u16, path: &str, content_type: &str, body: &str) -> (u16, String) {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    exchange(port, &head, body.as_bytes())
}

fn post_json(port: u16, path: &str, body: &str) -> Value {
    let (st, b) = post(port, path, "application/json", body);
    assert!((200..300).contains(&st), "POST {path} {body}: {st} {b}");
    serde_json::from_str(&b).unwrap()
}

fn get_json(port: u16, path: &str) -> Value {
    let head =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let (st, b) = exchange(port, &head, b"");
    assert_eq!(st, 200, "GET {path}: {b}");
    serde_json::from_str(&b).unwrap()
}

/// The server answers a plain request, and quickly.
fn answers(port: u16) -> Duration {
    let t = Instant::now();
    let v = post_json(port, "/api/new", r#"{"opponent":"friend"}"#);
    assert_eq!(v["ply"], 0);
    t.elapsed()
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
}

#[test]
fn a_huge_declared_length_is_refused_before_any_allocation() {
    let _s = serial();
    let b = server(quick());
    let port = b.addr().port();
    // A foreign Host and a length of 93 GiB: refused, and the server lives on.
    let head = "GET / HTTP/1.1\r\nHost: x:1\r\nContent-Length: 99999999999\r\n\r\n";
    let (st, _) = exchange(port, head, b"");
    assert!(st == 403 || st == 413, "status {st}");
    let head = format!(
        "POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: 99999999999\r\n\r\n"
    );
    let (st, _) = exchange(port, &head, b"{");
    assert_eq!(st, 413);
    answers(port);
}

#[test]
fn the_largest_length_does_not_wear_the_server_down() {
    let _s = serial();
    let b = server(quick());
    let port = b.addr().port();
    // tiny_http's request threads panicked on this and the 33rd hung the server for good.
    for path in ["/", "/api/new"] {
        for _ in 0..20 {
            let head = format!(
                "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
                 Content-Length: 18446744073709551615\r\n\r\n"
            );
            let (st, _) = exchange(port, &head, b"{}");
            assert!(st == 0 || (400..500).contains(&st), "status {st}");
        }
    }
    assert!(answers(port) < Duration::from_secs(2));
}

#[test]
fn slow_bodies_neither_lock_others_out_nor_stay() {
    let _s = serial();
    let b = server(Config {
        body_timeout: Duration::from_millis(1500),
        ..quick()
    });
    let port = b.addr().port();
    let mut slow = Vec::new();
    for _ in 0..40 {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Content-Length: 60000\r\n\r\n{{"
        )
        .unwrap();
        slow.push(s);
    }
    // Everyone else is still served, at once.
    assert!(answers(port) < Duration::from_secs(1));
    // And each slow body ends with 408 once its time is up.
    let started = Instant::now();
    for mut s in slow {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        assert!(out.starts_with("HTTP/1.1 408"), "{out:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn half_open_connections_cost_no_thread_and_time_out() {
    let _s = serial();
    let b = server(quick());
    let port = b.addr().port();
    answers(port);
    let before = threads();
    let idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    assert!(answers(port) < Duration::from_secs(1));
    let during = threads();
    assert!(
        during <= before + 4,
        "200 idle connections took threads: {before} -> {during}"
    );
    // The server closes them once the header time is up.
    for mut s in idle {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0u8; 64];
        let n = s.read(&mut buf).unwrap_or(usize::MAX);
        assert!(n == 0 || n < 64, "closed or answered with an error");
    }
}

#[test]
fn connections_beyond_the_limit_wait_their_turn() {
    let _s = serial();
    let b = server(Config {
        max_connections: 8,
        ..quick()
    });
    let port = b.addr().port();
    let idle: Vec<TcpStream> = (0..20)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    // Served once the idle ones in front of it have timed out (800 ms per batch of 8).
    let took = answers(port);
    assert!(
        took > Duration::from_millis(500),
        "the limit held: {took:?}"
    );
    assert!(took < Duration::from_secs(6), "{took:?}");
    drop(idle);
}

#[test]
fn bodies_are_typed_and_only_json() {
    let _s = serial();
    let b = server(quick());
    let port = b.addr().port();
    for (ct, body, want) in [
        ("application/json", r#"{"opponent": 1}"#, 400),
        (
            "application/json",
            r#"{"opponent": "friend", "colour": "b"}"#,
            400,
        ),
        ("application/json", r#"{"max_plies": -3}"#, 400),
        ("application/json", r#"[]"#, 400),
        ("application/json", "", 400),
        ("text/plain", "", 415),
        ("application/jsonp", "{}", 415),
        ("application/json; charset=latin1", "{}", 415),
        (
            "application/json; charset=utf-8",
            r#"{"opponent": "friend"}"#,
            201,
        ),
        ("Application/JSON", "{}", 201),
    ] {
        let (st, text) = post(port, "/api/new", ct, body);
        assert_eq!(st, want, "{ct} {body}: {text}");
    }
    // A wrong type is not taken as the default.
    let (_, text) = post(port, "/api/new", "application/json", r#"{"opponent": 1}"#);
    assert!(text.contains("bad request body"), "{text}");
    let g = post_json(port, "/api/new", r#"{"opponent":"friend"}"#);
    let id = g["id"].as_str().unwrap();
    for (action, body) in [
        ("move", r#"{"move": "5e4d", "extra": 1}"#),
        ("undo", r#"{"x": 1}"#),
        ("analyse", r#"{"multipv": "3"}"#),
        ("mate", r#"{"ms": 0}"#),
        ("review", r#"{"ms": 99999999}"#),
    ] {
        let (st, text) = post(
            port,
            &format!("/api/game/{id}/{action}"),
            "application/json",
            body,
        );
        assert_eq!(st, 400, "{action} {body}: {text}");
    }
    assert_eq!(get_json(port, &format!("/api/game/{id}"))["ply"], 0);
}

fn running(port: u16, id: &str) -> bool {
    get_json(port, &format!("/api/game/{id}/analysis"))["running"] == true
}

#[test]
fn one_analysis_at_a_time_across_games() {
    let _s = serial();
    let b = server(quick());
    let port = b.addr().port();
    let a = post_json(port, "/api/new", r#"{"opponent":"friend"}"#)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let c = post_json(port, "/api/new", r#"{"opponent":"friend"}"#)["id"]
        .as_str()
        .unwrap()
        .to_string();
    post_json(port, &format!("/api/game/{a}/analyse"), "{}");
    assert!(running(port, &a));
    post_json(port, &format!("/api/game/{c}/analyse"), "{}");
    assert!(running(port, &c));
    assert!(!running(port, &a), "the first game's analysis was stopped");
    post_json(port, &format!("/api/game/{a}/review"), r#"{"ms": 2000}"#);
    assert!(!running(port, &c), "a review takes the engine too");
    post_json(port, &format!("/api/game/{a}/stop"), "{}");
}

#[test]
fn an_analysis_whose_page_is_gone_stops() {
    let _s = serial();
    let b = server(Config {
        abandon_after: Duration::from_millis(600),
        ..quick()
    });
    let port = b.addr().port();
    let id = post_json(port, "/api/new", r#"{"opponent":"friend"}"#)["id"]
        .as_str()
        .unwrap()
        .to_string();
    post_json(port, &format!("/api/game/{id}/analyse"), "{}");
    // Polled, it goes on.
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(200));
        assert!(running(port, &id));
    }
    // Not polled, it stops.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!running(port, &id));
}
