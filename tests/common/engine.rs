//! The engine binary on pipes, for end-to-end tests: send lines, wait for answers with
//! timeouts, check `bestmove` lines.

use gogo::game::Game;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The engine as a child process. Dropping it kills the child if it is still running, so a
/// failed test leaves no engine searching on the machine.
pub struct Engine {
    pub child: Child,
    /// None once closed with [`Engine::close_stdin`].
    pub stdin: Option<ChildStdin>,
    /// Output lines with the time each was read.
    lines: Receiver<(Instant, String)>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_mapped(|line| line.to_string())
    }

    /// Like [`Engine::start`], with every output line passed through `map` (lines it maps to
    /// nothing are dropped): for tests that speak a dialect through a translation.
    pub fn start_mapped(map: fn(&str) -> String) -> Engine {
        Engine::start_command(Command::new(env!("CARGO_BIN_EXE_gogo")), map)
    }

    /// The engine run with its address space limited to `kib` KiB (through `sh`'s `ulimit -v`,
    /// which then execs the engine, so the child's pid is the engine's): for tests that make
    /// the engine ask for more memory than it may have, without letting it take the machine's.
    pub fn start_with_memory_limit(kib: u64) -> Engine {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit -v {kib} && exec \"$0\""))
            .arg(env!("CARGO_BIN_EXE_gogo"));
        Engine::start_command(cmd, |line| line.to_string())
    }

    fn start_command(mut cmd: Command, map: fn(&str) -> String) -> Engine {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("engine starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            // Bytes, not `lines()`: output that is not UTF-8 must reach the test (lossily)
            // rather than end the reader.
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let at = Instant::now();
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                }
                let line = map(&String::from_utf8_lossy(&buf));
                if !line.is_empty() && tx.send((at, line)).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin: Some(stdin),
            lines: rx,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn input(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin is open")
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.input();
        writeln!(stdin, "{line}").expect("engine reads");
        stdin.flush().unwrap();
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.input();
        stdin.write_all(bytes).expect("engine reads");
        stdin.flush().unwrap();
    }

    /// Ends the engine's input (end of file).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        self.until_at(prefix, timeout).0
    }

    /// Like [`Engine::until`], with the time the last line (the one with `prefix`) was read.
    pub fn until_at(&mut self, prefix: &str, timeout: Duration) -> (Vec<String>, Instant) {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, l)) => {
                    let done = l.starts_with(prefix);
                    seen.push(l);
                    if done {
                        return (seen, at);
                    }
                }
                Err(e) => panic!("no '{prefix}' within {timeout:?} ({e}); got {seen:?}"),
            }
        }
    }

    /// Everything printed within `wait`.
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok((_, l)) = self
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

    /// Waits up to `timeout` for the engine to exit by itself.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn quit(mut self) {
        self.send("quit");
        let status = self.wait_exit(Duration::from_secs(10));
        let status = status.expect("engine did not quit");
        assert!(status.success(), "engine exit status {status}");
    }

    /// Sends `go` (after `isready`, so the engine is idle) and returns the output up to its
    /// `bestmove` and the time from sending `go` to reading `bestmove`.
    pub fn timed_go(&mut self, go: &str) -> (Vec<String>, Duration) {
        self.ready();
        let t = Instant::now();
        self.send(go);
        let (lines, at) = self.until_at("bestmove", Duration::from_secs(30));
        (lines, at - t)
    }

    /// [`Engine::timed_go`] in the current position, checked to answer within `limit`; on a
    /// miss it tries once more and only a second miss fails. A shared machine can stall a
    /// process for a moment, but not every time, while a time-management fault repeats.
    /// Returns the output and time of the attempt that passed.
    pub fn timed_go_within(&mut self, go: &str, limit: Duration) -> (Vec<String>, Duration) {
        let (lines, took) = self.timed_go(go);
        if took <= limit {
            return (lines, took);
        }
        eprintln!("'{go}' took {took:?} (limit {limit:?}); trying once more");
        let (lines, again) = self.timed_go(go);
        assert!(
            again <= limit,
            "'{go}' took {took:?} and then {again:?}; limit {limit:?}"
        );
        (lines, again)
    }

    /// A field of `/proc/<pid>/status` in kB (e.g. `VmHWM`, the peak resident set size).
    pub fn proc_status_kb(&self, field: &str) -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = text.lines().find(|l| l.starts_with(&format!("{field}:")))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// User + system CPU time of the engine in clock ticks (`/proc/<pid>/stat`).
    pub fn cpu_ticks(&self) -> Option<u64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).ok()?;
        let rest = &stat[stat.rfind(')')? + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
    }

    /// Kills the engine if it is still running after `after`, unless the returned guard is
    /// dropped first: for steps that would block the test forever if the engine stopped
    /// reading its input.
    pub fn watchdog(&self, after: Duration) -> Watchdog {
        let armed = Arc::new(AtomicBool::new(true));
        let flag = armed.clone();
        let pid = self.pid();
        std::thread::spawn(move || {
            let deadline = Instant::now() + after;
            while Instant::now() < deadline {
                if !flag.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if flag.load(Ordering::SeqCst) {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            }
        });
        Watchdog(armed)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Disarms [`Engine::watchdog`] when dropped.
pub struct Watchdog(Arc<AtomicBool>);

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

pub const SECOND: Duration = Duration::from_secs(1);

/// The game after the USI `moves` (space-separated) from the start position.
pub fn game_after(moves: &str) -> Game {
    let mut g = Game::new(gogo::position::Position::startpos());
    for m in moves.split_whitespace() {
        g.play_usi(m)
            .unwrap_or_else(|e| panic!("'{m}' in '{moves}': {e}"));
    }
    g
}

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
