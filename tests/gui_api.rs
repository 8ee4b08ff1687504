//! The board server's JSON API through a real server on an ephemeral loopback port, spoken
//! to with raw HTTP over `TcpStream`.
#![cfg(feature = "gui")]

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

struct Board {
    server: gogo::gui::Server,
}

impl Board {
    fn start() -> Board {
        Board {
            server: gogo::gui::start(0).expect("server starts"),
        }
    }

    fn port(&self) -> u16 {
        self.server.addr().port()
    }

    /// One raw HTTP/1.1 exchange: (status, body).
    fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port())).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        let has_host = headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host"));
        if !has_host {
            req.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port()));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        s.write_all(req.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out).to_string();
        let status: u16 = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (status, body)
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let (st, b) = self.raw(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            &body.to_string(),
        );
        (
            st,
            serde_json::from_str(&b).unwrap_or_else(|_| panic!("not JSON: {b}")),
        )
    }

    fn get(&self, path: &str) -> (u16, Value) {
        let (st, b) = self.raw("GET", path, &[], "");
        (
            st,
            serde_json::from_str(&b).unwrap_or_else(|_| panic!("not JSON: {b}")),
        )
    }

    fn ok_post(&self, path: &str, body: Value) -> Value {
        let (st, v) = self.post(path, body);
        assert!((200..300).contains(&st), "POST {path}: {st} {v}");
        v
    }

    fn new_game(&self, body: Value) -> Value {
        self.ok_post("/api/new", body)
    }

    fn act(&self, g: &Value, action: &str, body: Value) -> (u16, Value) {
        self.post(
            &format!("/api/game/{}/{action}", g["id"].as_str().unwrap()),
            body,
        )
    }

    fn state(&self, g: &Value) -> Value {
        let (st, v) = self.get(&format!("/api/game/{}", g["id"].as_str().unwrap()));
        assert_eq!(st, 200);
        v
    }

    fn play(&self, g: &Value, moves: &[&str]) -> Value {
        let mut last = g.clone();
        for m in moves {
            let (st, v) = self.act(g, "move", json!({ "move": m }));
            assert_eq!(st, 200, "{m}: {v}");
            last = v;
        }
        last
    }
}

fn legal(state: &Value) -> Vec<String> {
    state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["usi"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_whole_game_against_the_computer() {
    let b = Board::start();
    let g = b.new_game(
        json!({"opponent": "computer", "level": "easy", "human": "w",
                              "max_plies": 40, "think_ms": 50}),
    );
    assert_eq!(g["computer_to_move"], true);
    let mut state = g.clone();
    let mut seed = 12345u64;
    for _ in 0..60 {
        if !state["result"].is_null() {
            break;
        }
        if state["computer_to_move"] == true {
            let (st, v) = b.act(&g, "computer", json!({}));
            assert_eq!(st, 200, "{v}");
            assert_eq!(v["side"], "w");
            state = v;
        } else {
            assert_eq!(state["side"], "w");
            let moves = legal(&state);
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = &moves[(seed >> 33) as usize % moves.len()];
            let (st, v) = b.act(&g, "move", json!({ "move": m }));
            assert_eq!(st, 200, "{v}");
            state = v;
        }
    }
    assert!(!state["result"].is_null(), "the game ended: {state}");
    assert!(state["result"]["text"].as_str().unwrap().len() > 5);
    assert!(state["usi"]
        .as_str()
        .unwrap()
        .starts_with("position startpos moves "));
    // The computer refuses to move once the game is over.
    let (st, v) = b.act(&g, "computer", json!({}));
    assert_eq!(st, 409, "{v}");
    let (st, record) = b.raw(
        "GET",
        &format!("/api/game/{}/record", g["id"].as_str().unwrap()),
        &[],
        "",
    );
    assert_eq!(st, 200);
    assert!(record.contains("手合割：5五将棋\n"), "{record}");
    assert!(
        record.contains("まで"),
        "the result closes the record: {record}"
    );
    // The record loads back as the same game.
    let back = b.new_game(json!({"opponent": "friend", "record": record}));
    assert_eq!(back["moves"], state["moves"]);
    assert_eq!(back["result"], state["result"]);
}

#[test]
fn undo_and_hint() {
    let b = Board::start();
    let g = b.new_game(json!({"opponent": "computer", "level": "easy", "think_ms": 50}));
    b.play(&g, &["5e4d"]);
    let (st, after) = b.act(&g, "computer", json!({}));
    assert_eq!(st, 200);
    assert_eq!(after["moves"].as_array().unwrap().len(), 2);
    // Against the computer, undo takes back its answer and the human's move.
    let (st, v) = b.act(&g, "undo", json!({}));
    assert_eq!(st, 200);
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
    assert_eq!(v["side"], "b");
    let (st, v) = b.act(&g, "undo", json!({}));
    assert_eq!(st, 409, "{v}");
    // Hint: a legal move of the side to move, also shown in the state.
    let (st, h) = b.act(&g, "hint", json!({}));
    assert_eq!(st, 200, "{h}");
    let usi = h["hint"]["usi"].as_str().unwrap();
    assert!(legal(&b.state(&g)).iter().any(|m| m == usi), "{usi}");
    assert_eq!(b.state(&g)["hint"]["usi"], usi);

    // Against a friend, undo takes back one move.
    let f = b.new_game(json!({"opponent": "friend"}));
    b.play(&f, &["5e4d", "1a2b"]);
    let (_, v) = b.act(&f, "undo", json!({}));
    assert_eq!(v["moves"], json!(["5e4d"]));
    assert_eq!(v["side"], "w");
}

#[test]
fn bad_requests_leave_the_game_unchanged() {
    let b = Board::start();
    let g = b.new_game(json!({"opponent": "friend"}));
    b.play(&g, &["5e4d"]);
    let before = b.state(&g);
    for (body, want) in [
        (json!({"move": "5e5c"}), 400),            // no man there / not legal
        (json!({"move": "4d4b"}), 400),            // not legal
        (json!({"move": "xyz"}), 400),             // not a move
        (json!({"move": 7}), 400),                 // not a string
        (json!({"moves": ["1a2b", "4d4b"]}), 400), // the second one is illegal: none is played
        (json!({}), 400),
    ] {
        let (st, v) = b.act(&g, "move", body.clone());
        assert_eq!(st, want, "{body}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    }
    let id = g["id"].as_str().unwrap();
    let (st, _) = b.raw(
        "POST",
        &format!("/api/game/{id}/move"),
        &[("Content-Type", "application/json")],
        "{\"move\":",
    );
    assert_eq!(st, 400);
    let (st, _) = b.raw(
        "POST",
        &format!("/api/game/{id}/move"),
        &[("Content-Type", "text/plain")],
        "{\"move\":\"1a2b\"}",
    );
    assert_eq!(st, 415);
    let big = format!("{{\"move\":\"{}\"}}", "x".repeat(100_000));
    let (st, _) = b.raw(
        "POST",
        &format!("/api/game/{id}/move"),
        &[("Content-Type", "application/json")],
        &big,
    );
    assert_eq!(st, 413);
    let (st, _) = b.raw("DELETE", &format!("/api/game/{id}"), &[], "");
    assert_eq!(st, 405);
    assert_eq!(b.state(&g), before, "the game is unchanged");
    let (st, v) = b.get("/api/game/0123456789abcdef0123456789abcdef");
    assert_eq!(st, 404, "{v}");
    let (st, v) = b.post("/api/new", json!({"sfen": "not an sfen"}));
    assert_eq!(st, 400, "{v}");
    let (st, v) = b.post("/api/new", json!({"level": "godlike"}));
    assert_eq!(st, 400, "{v}");
    // Two games do not mix.
    let other = b.new_game(json!({"opponent": "friend"}));
    b.play(&other, &["1e1d"]);
    assert_eq!(b.state(&g), before);
    assert_eq!(b.state(&other)["moves"], json!(["1e1d"]));
    // A page that starts a new game gives its old one up.
    let newer = b.new_game(json!({"opponent": "friend", "replaces": other["id"]}));
    let (st, _) = b.get(&format!("/api/game/{}", other["id"].as_str().unwrap()));
    assert_eq!(st, 404);
    assert_eq!(b.state(&newer)["moves"], json!([]));
}

#[test]
fn promotion_is_offered_only_when_optional() {
    let b = Board::start();
    let g = b.new_game(json!({"opponent": "friend", "sfen": "4k/1S1P1/5/5/K4 b - 1"}));
    let moves = g["legal"].as_array().unwrap();
    let to = |from: &str, to: &str| -> Vec<bool> {
        moves
            .iter()
            .filter(|m| m["from"] == from && m["to"] == to)
            .map(|m| m["promote"].as_bool().unwrap())
            .collect()
    };
    let mut silver = to("4b", "4a");
    silver.sort();
    assert_eq!(silver, vec![false, true], "the silver may promote");
    assert_eq!(to("2b", "2a"), vec![true], "the pawn must promote");
    let (st, _) = b.act(&g, "move", json!({"move": "2b2a"}));
    assert_eq!(st, 400, "an unpromoted pawn on the last rank is refused");
    let v = b.play(&g, &["4b4a+"]);
    assert_eq!(v["board"][1], json!({"c": "b", "k": "+S"}));
    assert_eq!(v["last_move"]["promote"], true);
}

fn reason(v: &Value) -> (String, Value) {
    (
        v["result"]["reason"].as_str().unwrap_or("none").to_string(),
        v["result"]["winner"].clone(),
    )
}

#[test]
fn every_game_end_reason() {
    let b = Board::start();
    // Checkmate by a gold drop (guarded by the pawn).
    let g = b.new_game(json!({"opponent": "friend", "sfen": "4k/5/4P/5/K4 b G 1"}));
    let v = b.play(&g, &["G*1b"]);
    assert_eq!(reason(&v), ("checkmate".into(), json!("b")));
    assert_eq!(v["check"], "1a");
    assert_eq!(v["legal"], json!([]));
    let (st, _) = b.act(&g, "move", json!({"move": "1a2a"}));
    assert_eq!(st, 409);

    // No legal move without check.
    let g = b.new_game(json!({"opponent": "friend", "sfen": "4k/5/4G/5/K3R b - 1"}));
    let v = b.play(&g, &["1e2e"]);
    assert_eq!(reason(&v), ("no-legal-move".into(), json!("b")));
    assert!(v["check"].is_null());

    // Fourfold repetition: a draw, or a gote win under the gote-wins rule.
    let shuffle = ["5e4d", "1a2b", "4d5e", "2b1a"].repeat(3);
    for (rule, winner) in [("draw", Value::Null), ("gote-wins", json!("w"))] {
        let g = b.new_game(json!({"opponent": "friend", "sennichite": rule}));
        let v = b.play(&g, &shuffle[..11]);
        assert!(v["result"].is_null());
        let v = b.play(&g, &shuffle[11..]);
        assert_eq!(reason(&v), ("repetition".into(), winner), "{rule}");
    }

    // Perpetual check loses for the checking side.
    let g = b.new_game(json!({"opponent": "friend", "sfen": "4k/5/5/5/K1R2 b - 1"}));
    let mut line = vec!["3e1e"];
    line.extend(["1a2a", "1e2e", "2a1a", "2e1e"].repeat(3));
    let v = b.play(&g, &line);
    assert_eq!(reason(&v), ("perpetual-check".into(), json!("w")));

    // The move limit.
    let g = b.new_game(json!({"opponent": "friend", "max_plies": 2}));
    let v = b.play(&g, &["5e4d"]);
    assert!(v["result"].is_null());
    let v = b.play(&g, &["1a2b"]);
    assert_eq!(reason(&v), ("move-limit".into(), Value::Null));
    assert!(v["result"]["text"].as_str().unwrap().contains("Move limit"));
    let (st, _) = b.act(&g, "move", json!({"move": "4d5e"}));
    assert_eq!(st, 409);
}

#[test]
fn foreign_host_and_origin_are_rejected() {
    let b = Board::start();
    let port = b.port().to_string();
    let (st, _) = b.raw("GET", "/", &[("Host", &format!("evil.example:{port}"))], "");
    assert_eq!(st, 403);
    let (st, _) = b.raw("GET", "/", &[("Host", "127.0.0.1:1")], "");
    assert_eq!(st, 403);
    let (st, body) = b.raw(
        "POST",
        "/api/new",
        &[
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(st, 403, "{body}");
    let (st, _) = b.raw("GET", "/", &[("Host", &format!("localhost:{port}"))], "");
    assert_eq!(st, 200);
    let own = format!("http://127.0.0.1:{port}");
    let (st, _) = b.raw(
        "POST",
        "/api/new",
        &[("Origin", &own), ("Content-Type", "application/json")],
        "{}",
    );
    assert_eq!(st, 201);
}

fn poll_until(b: &Board, g: &Value, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let (st, a) = b.get(&format!("/api/game/{}/analysis", g["id"].as_str().unwrap()));
        assert_eq!(st, 200);
        if done(&a) {
            return a;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{what}: {a}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn analysis_review_and_mate_search() {
    let b = Board::start();
    let g = b.new_game(json!({"opponent": "friend"}));
    let (st, _) = b.act(&g, "analyse", json!({"multipv": 2}));
    assert_eq!(st, 202);
    let a = poll_until(&b, &g, "two lines at depth 3", |a| {
        a["lines"].as_array().is_some_and(|l| l.len() == 2) && a["depth"].as_i64().unwrap_or(0) >= 3
    });
    assert_eq!(a["running"], true);
    assert!(a["nodes"].as_u64().unwrap() > 0);
    // A move supersedes the analysis: it is stopped.
    b.play(&g, &["5e4d"]);
    let a = poll_until(&b, &g, "stopped", |a| a["running"] == false);
    assert_eq!(a["kind"], "analysis");
    let (st, _) = b.act(&g, "analyse", json!({"multipv": 9}));
    assert_eq!(st, 400);

    b.play(&g, &["1a2b", "4d5e"]);
    let (st, _) = b.act(&g, "review", json!({"ms": 20}));
    assert_eq!(st, 202);
    let a = poll_until(&b, &g, "review done", |a| a["running"] == false);
    assert_eq!(a["review"], json!({"done": 4, "total": 4}));
    let s = b.state(&g);
    let scores = s["evals"]["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 4);
    assert!(scores.iter().all(Value::is_i64), "{scores:?}");
    let marks = s["evals"]["marks"].as_array().unwrap();
    assert_eq!(marks.len(), 3);
    for m in marks {
        let mark = m["mark"].as_str().unwrap();
        assert!(["good", "inaccuracy", "mistake", "blunder"].contains(&mark));
    }

    let m = b.new_game(json!({"opponent": "friend", "sfen": "4k/5/4P/5/K4 b G 1"}));
    let (st, v) = b.act(&m, "mate", json!({"ms": 2000}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], "mate");
    assert_eq!(v["line"], json!(["G*1b"]));
    let (st, v) = b.act(&g, "mate", json!({"ms": 300}));
    assert_eq!(st, 200, "{v}");
    assert!(v["status"] == "nomate" || v["status"] == "timeout", "{v}");
}

/// `gogo gui --port 0 --no-open` serves, and ends cleanly (exit 0) on SIGINT.
#[cfg(unix)]
#[test]
fn the_binary_serves_and_ends_on_ctrl_c() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gogo"))
        .args(["gui", "--port", "0", "--no-open"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("gogo gui starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut page = String::new();
    s.read_to_string(&mut page).unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("<title>Gogo"));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("gogo gui did not end on SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn records_load_in_every_format_the_page_copies() {
    let b = Board::start();
    let usi = "position startpos moves 5e4d 1a2b";
    for record in [
        usi,
        "startpos moves 5e4d 1a2b",
        "sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 5e4d 1a2b",
    ] {
        let g = b.new_game(json!({"opponent": "friend", "record": record}));
        assert_eq!(g["moves"], json!(["5e4d", "1a2b"]), "{record}");
        assert_eq!(g["usi"], json!(usi));
    }
    let g = b.new_game(json!({"opponent": "friend", "record": "4k/5/4P/5/K4 b G 1"}));
    assert_eq!(g["start_sfen"], json!("4k/5/4P/5/K4 b G 1"));
    // A KIF from a set-up position, with a drop that mates.
    let kif = "手合割：5五将棋\n後手の持駒：なし\n  ５ ４ ３ ２ １\n+---------------+\n\
               | ・ ・ ・ ・v玉|一\n| ・ ・ ・ ・ ・|二\n| ・ ・ ・ ・ 歩|三\n\
               | ・ ・ ・ ・ ・|四\n| 玉 ・ ・ ・ ・|五\n+---------------+\n先手の持駒：金\n\
               手数----指手---------消費時間--\n   1 １二金打   ( 0:00/00:00:00)\n   2 詰み\n";
    let g = b.new_game(json!({"opponent": "friend", "record": kif}));
    assert_eq!(g["moves"], json!(["G*1b"]));
    assert_eq!(g["result"]["reason"], json!("checkmate"));
    assert_eq!(g["moves_ja"], json!(["☗１二金"]));
    for bad in [
        "position startpos moves 5e4d 5e4d",
        "手合割：平手\n",
        "nonsense",
    ] {
        let (st, v) = b.post("/api/new", json!({"record": bad}));
        assert_eq!(st, 400, "{bad}: {v}");
    }
}

#[test]
fn earlier_positions_are_shown_and_played_from() {
    let b = Board::start();
    let g = b.new_game(json!({"opponent": "friend"}));
    b.play(&g, &["5e4d", "1a2b", "4d5e"]);
    let id = g["id"].as_str().unwrap();
    let (st, v) = b.get(&format!("/api/game/{id}?ply=1"));
    assert_eq!(st, 200);
    assert_eq!(v["view"], 1);
    assert_eq!(v["ply"], 3);
    assert_eq!(v["side"], "w");
    assert_eq!(v["last_move"]["usi"], "5e4d");
    assert!(legal(&v).contains(&"1a2b".to_string()));
    let (st, _) = b.get(&format!("/api/game/{id}?ply=9"));
    assert_eq!(st, 400);
    // Analysis and mate search look at the shown position.
    let (st, a) = b.act(&g, "analyse", json!({"ply": 1}));
    assert_eq!(st, 202, "{a}");
    assert_eq!(a["index"], 1);
    b.act(&g, "stop", json!({}));
    // A move from an earlier position drops the moves after it.
    let (st, v) = b.act(&g, "move", json!({"move": "2a2b", "ply": 1}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["moves"], json!(["5e4d", "2a2b"]));
}

#[test]
fn mate_search_on_a_mated_position_says_so() {
    let b = Board::start();
    let g = b.new_game(json!({"opponent": "friend", "record": "4k/5/4P/5/K4 b G 1 moves G*1b"}));
    let (st, v) = b.act(&g, "mate", json!({"ms": 500}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], "mated");
    // Analysis of a finished position is refused with a reason.
    let (st, v) = b.act(&g, "analyse", json!({}));
    assert_eq!(st, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("over"), "{v}");
}
