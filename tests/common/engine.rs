//! The engine binary on pipes, for end-to-end tests: send lines, wait for answers with
//! timeouts, check `bestmove` lines.

use gogo::game::Game;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

pub struct Engine {
    pub child: Child,
    pub stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_mapped(|line| line.to_string())
    }

    /// Like [`Engine::start`], with every output line passed through `map` (lines it maps to
    /// nothing are dropped): for tests that speak a dialect through a translation.
    pub fn start_mapped(map: fn(&str) -> String) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gogo"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("engine starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let line = map(&line);
                if !line.is_empty() && tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
        }
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("engine reads");
        self.stdin.flush().unwrap();
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("engine reads");
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    seen.push(l);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no '{prefix}' within {timeout:?}; got {seen:?}"),
            }
        }
    }

    /// Everything printed within `wait`.
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(l) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(l);
        }
        seen
    }

    pub fn ready(&mut self) -> Vec<String> {
        self.send("isready");
        self.until("readyok", Duration::from_secs(10))
    }

    pub fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "engine exit status {status}");
                return;
            }
            assert!(Instant::now() < deadline, "engine did not quit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

pub const SECOND: Duration = Duration::from_secs(1);

/// The `bestmove` line's move, checked to be legal in `game`.
pub fn check_bestmove(lines: &[String], game: &Game) -> String {
    let best: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 1, "exactly one bestmove in {lines:?}");
    let parts: Vec<&str> = best[0].split_whitespace().collect();
    let mv = parts[1].to_string();
    let mut g = game.clone();
    g.play_usi(&mv)
        .unwrap_or_else(|e| panic!("bestmove {mv} is illegal: {e}"));
    if parts.len() > 2 {
        assert_eq!(parts[2], "ponder");
        g.play_usi(parts[3])
            .unwrap_or_else(|e| panic!("ponder move {} is illegal: {e}", parts[3]));
    }
    // Every PV in info lines is legal from the root.
    for l in lines
        .iter()
        .filter(|l| l.starts_with("info") && l.contains(" pv "))
    {
        let pv = l.split(" pv ").nth(1).unwrap();
        let mut g = game.clone();
        for m in pv.split_whitespace() {
            g.play_usi(m)
                .unwrap_or_else(|e| panic!("illegal pv move {m} in '{l}': {e}"));
        }
    }
    mv
}
