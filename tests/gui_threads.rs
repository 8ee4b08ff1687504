//! A superseded analysis is stopped, not leaked: the engine threads of the board server are
//! counted (Linux: /proc/self/task) while analyses replace each other. A test binary of its
//! own, so that no other test's searches are counted.
#![cfg(all(feature = "gui", target_os = "linux"))]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn post(port: u16, path: &str, body: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 20"), "{out}");
    out.split_once("\r\n\r\n").unwrap().1.to_string()
}

/// Threads of this process whose name starts with `prefix`.
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim().starts_with(prefix))
        .count()
}

fn wait_for(what: &str, f: impl Fn() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(10), "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Threads of the engine: its jobs ("search", "mate", the "clock"), the Lazy SMP helpers
/// ("helper 1", ...; threads started without a name inherit their parent's) and the board's
/// review thread.
fn threads() -> usize {
    ["search", "mate", "clock", "helper", "gui-review"]
        .iter()
        .map(|n| threads_named(n))
        .sum()
}

#[test]
fn superseded_analyses_are_stopped() {
    let server = gogo::gui::start(0).unwrap();
    let port = server.addr().port();
    let state = post(port, "/api/new", r#"{"opponent":"friend"}"#);
    let id = state.split("\"id\":\"").nth(1).unwrap()[..32].to_string();
    let game = format!("/api/game/{id}");
    // Whatever engine threads exist before the first analysis (none are expected: the count
    // is measured, not assumed).
    let idle = threads();
    // One search at a time (its thread may have a helper or two, a clock, a mate probe).
    for _ in 0..8 {
        post(port, &format!("{game}/analyse"), r#"{"multipv":2}"#);
    }
    wait_for("one search running", || {
        threads_named("search") >= 1 && threads() <= idle + 4
    });
    // A review replaces the analysis, an analysis the review, a move the analysis.
    post(port, &format!("{game}/review"), r#"{"ms":2000}"#);
    wait_for("the review alone", || {
        threads_named("gui-review") == 1 && threads() <= idle + 5
    });
    post(port, &format!("{game}/analyse"), "{}");
    wait_for("the review ended", || threads_named("gui-review") == 0);
    post(port, &format!("{game}/move"), r#"{"move":"5e4d"}"#);
    wait_for("nothing left running", || threads() == idle);
    // A page's new game drops the old one, and its engine with it.
    post(port, &format!("{game}/analyse"), "{}");
    wait_for("a search", || threads_named("search") >= 1);
    post(
        port,
        "/api/new",
        &format!(r#"{{"opponent":"friend","replaces":"{id}"}}"#),
    );
    wait_for("the old game's search ended", || threads() == idle);
    server.shutdown();
}
