//! The USI protocol loop.
//!
//! The main thread reads commands; `go` hands the search to a worker thread, so `stop`,
//! `ponderhit`, `isready` and the rest are answered while it thinks. Every `go` ends with
//! exactly one `bestmove` (or one `checkmate` line for `go mate`). Nothing on input can end the
//! loop but `quit` and end of input: every problem is reported as `info string ...` and the
//! previous state stays.

use crate::bench;
use crate::eval;
use crate::game::{Game, GameRules, SennichiteRule};
use crate::mate::{MateLimits, MateResult, MateSolver};
use crate::movegen;
use crate::notation;
use crate::params::SKILL_FULL;
use crate::perft;
use crate::position::Position;
use crate::search::{
    strength_to_skill_level, Output, SearchConfig, Searcher, Shared, SEARCH_STACK_BYTES,
};
use crate::time::Limits;
use crate::tt::TranspositionTable;
use crate::types::Move;
use crate::uci;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub const ENGINE_NAME: &str = "Gogo";
pub const ENGINE_AUTHOR: &str = "the Gogo developers";

/// Longest input line handled; longer lines are rejected (a position with hundreds of moves
/// still fits easily).
const MAX_LINE: usize = 1 << 20;

#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub ponder: bool,
    pub threads: usize,
    pub multipv: usize,
    pub sennichite: SennichiteRule,
    pub max_moves_to_draw: u32,
    pub move_overhead: u64,
    /// `SkillLevel`: 0 ..= `SKILL_FULL` (full strength).
    pub skill_level: u8,
    /// `USI_LimitStrength`: play at the level of `USI_Strength` instead of `SkillLevel`.
    pub limit_strength: bool,
    /// `USI_Strength`: -20 ..= -1 kyu grades, 1 ..= 5 dan grades (0 reads as 1 kyu).
    pub strength: i32,
}

/// `USI_Strength` range and default.
const STRENGTH_MIN: i32 = -20;
const STRENGTH_MAX: i32 = 5;
const STRENGTH_DEFAULT: i32 = 1;

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 64,
            ponder: false,
            threads: 1,
            multipv: 1,
            sennichite: SennichiteRule::Draw,
            max_moves_to_draw: 0,
            move_overhead: 50,
            skill_level: SKILL_FULL,
            limit_strength: false,
            strength: STRENGTH_DEFAULT,
        }
    }
}

impl Options {
    /// The skill level the search uses: `USI_Strength`'s when `USI_LimitStrength` is on,
    /// otherwise `SkillLevel`.
    pub fn effective_skill_level(&self) -> u8 {
        if self.limit_strength {
            strength_to_skill_level(self.strength)
        } else {
            self.skill_level
        }
    }
}

const HASH_MAX_MB: usize = 65536;

/// Search time for a `go` that gives no limit at all (or only junk).
const DEFAULT_MOVETIME_MS: u64 = 1000;

const GO_KEYWORDS: [&str; 14] = [
    "btime",
    "wtime",
    "binc",
    "winc",
    "byoyomi",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "infinite",
    "ponder",
    "searchmoves",
    "mate",
    "perft",
];

/// The `option` lines sent after `usi`.
fn option_lines() -> Vec<String> {
    let d = Options::default();
    vec![
        format!(
            "option name USI_Hash type spin default {} min 1 max {HASH_MAX_MB}",
            d.hash_mb
        ),
        "option name USI_Ponder type check default false".to_string(),
        "option name Threads type spin default 1 min 1 max 256".to_string(),
        "option name MultiPV type spin default 1 min 1 max 500".to_string(),
        "option name SennichiteRule type combo default draw var draw var gote-wins".to_string(),
        "option name MaxMovesToDraw type spin default 0 min 0 max 100000".to_string(),
        format!(
            "option name MoveOverhead type spin default {} min 0 max 10000",
            d.move_overhead
        ),
        "option name USI_Variant type combo default minishogi var minishogi".to_string(),
        format!("option name SkillLevel type spin default {SKILL_FULL} min 0 max {SKILL_FULL}"),
        "option name USI_LimitStrength type check default false".to_string(),
        format!(
            "option name USI_Strength type spin default {STRENGTH_DEFAULT} min {STRENGTH_MIN} max {STRENGTH_MAX}"
        ),
    ]
}

fn stdout_output() -> Output {
    Arc::new(|line: &str| {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        // A closed stdout (GUI gone) is not worth a panic.
        let _ = writeln!(lock, "{line}");
        let _ = lock.flush();
    })
}

/// A searcher that never prints (Lazy SMP helpers).
fn silent() -> Output {
    Arc::new(|_: &str| {})
}

struct Running {
    /// Gives back the main searcher and the helpers.
    handle: JoinHandle<(Searcher, Vec<Searcher>)>,
    start: Instant,
}

pub struct Engine {
    /// Speaking the UCI dialect (after a `uci` command); see `crate::uci`.
    uci_mode: Arc<AtomicBool>,
    game: Game,
    options: Options,
    tt: Arc<TranspositionTable>,
    shared: Arc<Shared>,
    searcher: Option<Searcher>,
    /// Lazy SMP helper searchers (`Threads - 1` of them once a search has run); like the main
    /// searcher they keep their histories for the whole game.
    helpers: Vec<Searcher>,
    running: Option<Running>,
    out: Output,
}

/// A number as GUIs send it: an integer is milliseconds (or a count); a decimal fraction
/// (`0.9`) is read as seconds and converted to milliseconds when `seconds_if_fraction` is set.
/// Negative values count as 0. Junk gives `None`.
pub fn parse_number(text: &str, seconds_if_fraction: bool) -> Option<u64> {
    if let Ok(v) = text.parse::<i64>() {
        return Some(v.max(0) as u64);
    }
    let v: f64 = text.parse().ok().filter(|v: &f64| v.is_finite())?;
    let v = v.max(0.0);
    if seconds_if_fraction && v.fract() != 0.0 {
        Some((v * 1000.0).round() as u64)
    } else {
        Some(v.round().min(u64::MAX as f64) as u64)
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(stdout_output())
    }
}

impl Engine {
    pub fn new(raw_out: Output) -> Engine {
        let uci_mode = Arc::new(AtomicBool::new(false));
        let mode = uci_mode.clone();
        // In UCI mode every line the engine prints is translated on its way out.
        let out: Output = Arc::new(move |line: &str| {
            if mode.load(Ordering::Relaxed) {
                let t = uci::output_to_uci(line);
                if !t.is_empty() {
                    raw_out(&t);
                }
            } else {
                raw_out(line);
            }
        });
        let options = Options::default();
        let tt = Arc::new(TranspositionTable::new(options.hash_mb));
        let shared = Arc::new(Shared::default());
        let searcher = Searcher::new(tt.clone(), shared.clone(), out.clone());
        Engine {
            uci_mode,
            game: Game::new(Position::startpos()),
            options,
            tt,
            shared,
            searcher: Some(searcher),
            helpers: Vec::new(),
            running: None,
            out,
        }
    }

    fn say(&self, line: &str) {
        (self.out)(line);
    }

    fn info(&self, text: &str) {
        self.say(&format!("info string {text}"));
    }

    /// Runs the loop on stdin until `quit` or end of input.
    pub fn run_stdin(&mut self) {
        let stdin = std::io::stdin();
        let mut reader = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    log::error!("reading stdin: {e}");
                    break;
                }
            }
            if buf.len() > MAX_LINE {
                self.info(&format!(
                    "input line of {} bytes ignored (too long)",
                    buf.len()
                ));
                continue;
            }
            let line = String::from_utf8_lossy(&buf);
            if !self.handle_line(&line) {
                break;
            }
        }
        self.finish_search(true);
    }

    /// Handles one input line; false after `quit`. A `uci` command switches to the UCI
    /// dialect (chess-style FEN and coordinates, as Fairy-Stockfish speaks it for minishogi),
    /// `usi` back to USI.
    pub fn handle_line(&mut self, line: &str) -> bool {
        let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        match line.split_whitespace().next() {
            Some("uci") => {
                self.uci_mode.store(true, Ordering::Relaxed);
                // UCI tools (cutechess, Fairy-Stockfish, lishogi) count a plain repetition
                // as a loss for sente.
                self.options.sennichite = SennichiteRule::GoteWins;
            }
            Some("usi") => self.uci_mode.store(false, Ordering::Relaxed),
            _ => {}
        }
        if !self.uci_mode.load(Ordering::Relaxed) {
            return self.handle_usi_line(line);
        }
        match uci::input_to_usi(line) {
            Ok(lines) => {
                for l in lines {
                    if !self.handle_usi_line(&l) {
                        return false;
                    }
                }
                true
            }
            Err(e) => {
                self.info(&e);
                true
            }
        }
    }

    fn handle_usi_line(&mut self, line: &str) -> bool {
        let mut tokens = line.split_whitespace();
        let Some(cmd) = tokens.next() else {
            return true;
        };
        let rest: Vec<&str> = tokens.collect();
        log::debug!("command: {line}");
        match cmd {
            "usi" => {
                self.say(&format!(
                    "id name {ENGINE_NAME} {}",
                    env!("CARGO_PKG_VERSION")
                ));
                self.say(&format!("id author {ENGINE_AUTHOR}"));
                for l in option_lines() {
                    self.say(&l);
                }
                self.say("usiok");
            }
            "isready" => self.say("readyok"),
            "setoption" => self.setoption(&rest),
            "usinewgame" => {
                self.finish_search(true);
                self.tt.clear();
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
                for h in self.helpers.iter_mut() {
                    h.clear();
                }
            }
            "position" => self.position(&rest),
            "go" => self.go(&rest),
            "stop" => {
                if self.running.is_some() {
                    self.shared.stop.store(true, Ordering::SeqCst);
                    self.finish_search(false);
                }
            }
            "ponderhit" => {
                if let Some(r) = &self.running {
                    let ms = r.start.elapsed().as_millis() as u64;
                    self.shared.ponderhit_ms.store(ms, Ordering::SeqCst);
                    self.shared.pondering.store(false, Ordering::SeqCst);
                }
            }
            "gameover" => {
                if self.running.is_some() {
                    self.shared.stop.store(true, Ordering::SeqCst);
                    self.finish_search(false);
                }
            }
            "quit" => return false,
            "d" => {
                for l in self.game.current().pretty().lines() {
                    self.say(l);
                }
                if let Some(r) = self.game.result(self.rules()) {
                    self.say(&format!("game over: {r}"));
                }
            }
            "eval" => {
                for l in eval::trace(self.game.current()).lines() {
                    self.say(l);
                }
            }
            "bench" => {
                if self.running.is_some() {
                    self.info("bench ignored while searching");
                } else {
                    let depth = rest.first().and_then(|d| d.parse().ok());
                    let out = self.out.clone();
                    bench::run(depth, &|l: &str| out(l));
                }
            }
            "perft" => self.perft(&rest),
            _ => self.info(&format!(
                "unknown command '{}'",
                cmd.chars().take(40).collect::<String>()
            )),
        }
        true
    }

    fn rules(&self) -> GameRules {
        GameRules {
            sennichite: self.options.sennichite,
            max_plies: self.options.max_moves_to_draw,
        }
    }

    /// Waits for a running search to end. With `stop`, asks it to stop first (its `bestmove`
    /// is still printed).
    fn finish_search(&mut self, stop: bool) {
        if let Some(r) = self.running.take() {
            if stop {
                self.shared.stop.store(true, Ordering::SeqCst);
            }
            match r.handle.join() {
                Ok((s, helpers)) => {
                    self.searcher = Some(s);
                    self.helpers = helpers;
                }
                Err(_) => {
                    log::error!("search thread panicked");
                    self.helpers.clear();
                    self.searcher = Some(Searcher::new(
                        self.tt.clone(),
                        self.shared.clone(),
                        self.out.clone(),
                    ));
                }
            }
        }
    }

    fn setoption(&mut self, args: &[&str]) {
        // setoption name <id...> [value <x...>]
        let Some(name_at) = args.iter().position(|a| *a == "name") else {
            self.info("setoption needs 'name <id> [value <x>]'");
            return;
        };
        let value_at = args.iter().position(|a| *a == "value");
        let name_end = value_at.unwrap_or(args.len());
        if name_end <= name_at + 1 {
            self.info("setoption: missing option name");
            return;
        }
        let name = args[name_at + 1..name_end].join(" ");
        let value = value_at
            .map(|v| args[v + 1..].join(" "))
            .unwrap_or_default();
        let spin = |v: &str, min: u64, max: u64| -> Result<u64, String> {
            let n = parse_number(v, false).ok_or_else(|| format!("'{v}' is not a number"))?;
            if n < min || n > max {
                Err(format!("{n} is out of range {min}..{max}"))
            } else {
                Ok(n)
            }
        };
        let result: Result<(), String> = match name.to_ascii_lowercase().as_str() {
            "usi_hash" | "hash" => spin(&value, 1, HASH_MAX_MB as u64).and_then(|mb| {
                if self.running.is_some() {
                    return Err("cannot resize the hash while searching".into());
                }
                self.options.hash_mb = mb as usize;
                self.tt = Arc::new(TranspositionTable::new(mb as usize));
                if let Some(s) = self.searcher.as_mut() {
                    s.set_tt(self.tt.clone());
                }
                for h in self.helpers.iter_mut() {
                    h.set_tt(self.tt.clone());
                }
                Ok(())
            }),
            "usi_ponder" | "ponder" => match value.to_ascii_lowercase().as_str() {
                "true" => {
                    self.options.ponder = true;
                    Ok(())
                }
                "false" => {
                    self.options.ponder = false;
                    Ok(())
                }
                _ => Err(format!("'{value}' is not true or false")),
            },
            "threads" => spin(&value, 1, 256).map(|n| self.options.threads = n as usize),
            "skilllevel" | "skill level" => {
                spin(&value, 0, SKILL_FULL as u64).map(|n| self.options.skill_level = n as u8)
            }
            "usi_limitstrength" | "uci_limitstrength" | "limitstrength" => {
                match value.to_ascii_lowercase().as_str() {
                    "true" => {
                        self.options.limit_strength = true;
                        Ok(())
                    }
                    "false" => {
                        self.options.limit_strength = false;
                        Ok(())
                    }
                    _ => Err(format!("'{value}' is not true or false")),
                }
            }
            "usi_strength" | "strength" => match value.trim().parse::<i64>() {
                Ok(n) if (STRENGTH_MIN as i64..=STRENGTH_MAX as i64).contains(&n) => {
                    self.options.strength = n as i32;
                    Ok(())
                }
                Ok(n) => Err(format!(
                    "{n} is out of range {STRENGTH_MIN}..{STRENGTH_MAX}"
                )),
                Err(_) => Err(format!("'{value}' is not a whole number")),
            },
            "multipv" | "usi_multipv" => {
                spin(&value, 1, 500).map(|n| self.options.multipv = n as usize)
            }
            "sennichiterule" => match SennichiteRule::parse(&value) {
                Some(r) => {
                    self.options.sennichite = r;
                    Ok(())
                }
                None => Err(format!("'{value}' is not draw or gote-wins")),
            },
            "maxmovestodraw" => {
                spin(&value, 0, 100_000).map(|n| self.options.max_moves_to_draw = n as u32)
            }
            "moveoverhead" | "move overhead" | "move_overhead" => {
                spin(&value, 0, 10_000).map(|n| self.options.move_overhead = n)
            }
            "usi_variant" | "uci_variant" => {
                if value.eq_ignore_ascii_case("minishogi") {
                    Ok(())
                } else {
                    Err(format!(
                        "variant '{value}' is not supported; only minishogi"
                    ))
                }
            }
            _ => Err("unknown option".to_string()),
        };
        if let Err(e) = result {
            self.info(&format!(
                "setoption {}: {e}",
                name.chars().take(40).collect::<String>()
            ));
        }
    }

    /// `position startpos|sfen <sfen> [moves ...]`; on any error the old position stays.
    fn position(&mut self, args: &[&str]) {
        match Self::parse_position(args) {
            Ok(game) => self.game = game,
            Err(e) => self.info(&format!("position rejected: {e}")),
        }
    }

    pub fn parse_position(args: &[&str]) -> Result<Game, String> {
        let moves_at = args.iter().position(|a| *a == "moves");
        let head = &args[..moves_at.unwrap_or(args.len())];
        let mut game = match head.first() {
            Some(&"startpos") if head.len() == 1 => Game::new(Position::startpos()),
            Some(&"startpos") => return Err("unexpected text after startpos".into()),
            Some(&"sfen") => {
                let sfen = head[1..].join(" ");
                Game::from_sfen(&sfen).map_err(|e| format!("bad SFEN: {e}"))?
            }
            Some(other) => {
                return Err(format!(
                    "expected 'startpos' or 'sfen', got '{}'",
                    other.chars().take(40).collect::<String>()
                ))
            }
            None => return Err("expected 'startpos' or 'sfen'".into()),
        };
        if let Some(at) = moves_at {
            for (i, m) in args[at + 1..].iter().enumerate() {
                game.play_usi(m)
                    .map_err(|e| format!("move {} ({m}): {e}", i + 1))?;
            }
        }
        Ok(game)
    }

    fn perft(&mut self, args: &[&str]) {
        let Some(depth) = args.first().and_then(|d| d.parse::<u32>().ok()) else {
            self.info("perft needs a depth");
            return;
        };
        if depth > 12 {
            self.info("perft depth limited to 12");
            return;
        }
        let (text, _) = perft::report(self.game.current(), depth);
        for l in text.lines() {
            self.say(l);
        }
    }

    /// The number after a `go` keyword at `args[*i]`, advancing `i` past it; a junk value is
    /// skipped (unless it is the next keyword) with an `info string`.
    fn go_number(&self, args: &[&str], i: &mut usize, name: &str, seconds: bool) -> Option<u64> {
        let v = args.get(*i).copied();
        match v.and_then(|v| parse_number(v, seconds)) {
            Some(n) => {
                *i += 1;
                Some(n)
            }
            None => {
                if v.is_some_and(|v| !GO_KEYWORDS.contains(&v)) {
                    *i += 1;
                }
                self.info(&format!(
                    "go: {name} needs a number, got '{}'; ignored",
                    v.unwrap_or("").chars().take(20).collect::<String>()
                ));
                None
            }
        }
    }

    pub fn parse_go(&self, args: &[&str]) -> (Limits, Vec<Move>) {
        let mut limits = Limits::default();
        let mut searchmoves = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let kw = args[i];
            i += 1;
            let number =
                |name: &str, seconds: bool, i: &mut usize| self.go_number(args, i, name, seconds);
            match kw {
                "btime" => limits.time[0] = number(kw, true, &mut i),
                "wtime" => limits.time[1] = number(kw, true, &mut i),
                "binc" => limits.inc[0] = number(kw, true, &mut i).unwrap_or(0),
                "winc" => limits.inc[1] = number(kw, true, &mut i).unwrap_or(0),
                "byoyomi" => limits.byoyomi = number(kw, true, &mut i).unwrap_or(0),
                "movestogo" => {
                    limits.movestogo = number(kw, false, &mut i).map(|n| n.min(1000) as u32)
                }
                "movetime" => limits.movetime = number(kw, true, &mut i),
                "depth" => limits.depth = number(kw, false, &mut i).map(|n| n.min(200) as i32),
                "nodes" => limits.nodes = number(kw, false, &mut i),
                "infinite" => limits.infinite = true,
                "ponder" => limits.ponder = true,
                "mate" => {
                    limits.mate = Some(match args.get(i) {
                        Some(&"infinite") => {
                            i += 1;
                            None
                        }
                        _ => number(kw, true, &mut i),
                    })
                }
                "searchmoves" => {
                    while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                        match notation::parse_move(self.game.current(), args[i]) {
                            Ok(m) => searchmoves.push(m),
                            Err(e) => self.info(&format!("searchmoves: {e}")),
                        }
                        i += 1;
                    }
                }
                other => self.info(&format!(
                    "go: unknown parameter '{}' ignored",
                    other.chars().take(20).collect::<String>()
                )),
            }
        }
        (limits, searchmoves)
    }

    fn go(&mut self, args: &[&str]) {
        if args.first() == Some(&"perft") {
            self.perft(&args[1..]);
            return;
        }
        // A new `go` while searching: the old search ends first with its own bestmove.
        self.finish_search(true);
        let (mut limits, searchmoves) = self.parse_go(args);
        if !limits.is_timed()
            && !limits.infinite
            && !limits.ponder
            && limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.mate.is_none()
        {
            self.info(&format!(
                "go without a usable limit: searching for {DEFAULT_MOVETIME_MS} ms"
            ));
            limits.movetime = Some(DEFAULT_MOVETIME_MS);
        }
        if let Some(mate_limit) = limits.mate {
            self.go_mate(mate_limit);
            return;
        }
        let pos = *self.game.current();
        if movegen::count_legal(&pos) == 0 {
            self.say("bestmove resign");
            return;
        }
        let mut searcher = self.searcher.take().unwrap_or_else(|| {
            Searcher::new(self.tt.clone(), self.shared.clone(), self.out.clone())
        });
        searcher.set_tt(self.tt.clone());
        // Lazy SMP: Threads - 1 helpers, kept (with their histories) from move to move.
        let mut helpers = std::mem::take(&mut self.helpers);
        helpers.truncate(self.options.threads.saturating_sub(1));
        while helpers.len() + 1 < self.options.threads {
            helpers.push(Searcher::new(
                self.tt.clone(),
                self.shared.clone(),
                silent(),
            ));
        }
        for h in helpers.iter_mut() {
            h.set_tt(self.tt.clone());
        }
        self.shared.stop.store(false, Ordering::SeqCst);
        self.shared.pondering.store(limits.ponder, Ordering::SeqCst);
        self.shared.ponderhit_ms.store(0, Ordering::SeqCst);
        let history: Vec<Position> = self.game.positions().to_vec();
        let config = SearchConfig {
            multipv: self.options.multipv,
            sennichite: self.options.sennichite,
            move_overhead: self.options.move_overhead,
            verbose: true,
            skill_level: self.options.effective_skill_level(),
            mate_probe: true,
        };
        let out = self.out.clone();
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                // Returns after stop or ponderhit in infinite or ponder mode.
                let result = searcher.think_with_helpers(
                    &mut helpers,
                    &history,
                    &limits,
                    &searchmoves,
                    &config,
                );
                let root = history.last().copied().unwrap_or_default();
                let best = result
                    .best
                    .filter(|&m| movegen::is_legal(&root, m))
                    .or_else(|| movegen::legal_moves(&root).iter().next().copied());
                match best {
                    Some(b) => {
                        let after = root.after(b);
                        let ponder = result.ponder.filter(|&p| movegen::is_legal(&after, p));
                        match ponder {
                            Some(p) => out(&format!("bestmove {b} ponder {p}")),
                            None => out(&format!("bestmove {b}")),
                        }
                    }
                    None => out("bestmove resign"),
                }
                (searcher, helpers)
            });
        match handle {
            Ok(handle) => {
                self.running = Some(Running {
                    handle,
                    start: Instant::now(),
                })
            }
            Err(e) => {
                self.info(&format!("could not start the search thread: {e}"));
                let first = movegen::legal_moves(&pos).iter().next().copied();
                match first {
                    Some(m) => self.say(&format!("bestmove {m}")),
                    None => self.say("bestmove resign"),
                }
            }
        }
    }

    /// `go mate <ms>|infinite`: the df-pn solver on a worker thread. The answer is one line:
    /// `checkmate <moves>`, `checkmate nomate` or `checkmate timeout` (also after `stop`
    /// unless a mate was already proved).
    fn go_mate(&mut self, limit: Option<u64>) {
        let history: Vec<Position> = self.game.positions().to_vec();
        let searcher = self.searcher.take().unwrap_or_else(|| {
            Searcher::new(self.tt.clone(), self.shared.clone(), self.out.clone())
        });
        let helpers = std::mem::take(&mut self.helpers);
        self.shared.stop.store(false, Ordering::SeqCst);
        self.shared.pondering.store(false, Ordering::SeqCst);
        let shared = self.shared.clone();
        let out = self.out.clone();
        let overhead = self.options.move_overhead;
        let hash_mb = self.options.hash_mb.clamp(16, 1024);
        let start = Instant::now();
        let handle = std::thread::Builder::new()
            .name("mate".into())
            .spawn(move || {
                let limits = MateLimits {
                    deadline: limit.map(|ms| {
                        start + Duration::from_millis(ms.saturating_sub(overhead).max(1))
                    }),
                    max_nodes: None,
                };
                let mut solver = MateSolver::new(hash_mb);
                let line = match solver.solve(&history, &limits, &shared.stop) {
                    MateResult::Mate(moves) => {
                        let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                        format!("checkmate {}", text.join(" "))
                    }
                    MateResult::NoMate => "checkmate nomate".to_string(),
                    MateResult::Timeout => "checkmate timeout".to_string(),
                };
                let ms = start.elapsed().as_millis();
                out(&format!(
                    "info string mate search: {} nodes in {ms} ms",
                    solver.nodes()
                ));
                out(&line);
                (searcher, helpers)
            });
        match handle {
            Ok(handle) => self.running = Some(Running { handle, start }),
            Err(e) => {
                self.info(&format!("could not start the mate search: {e}"));
                self.say("checkmate timeout");
            }
        }
    }
}

/// Entry point of the binary's default mode.
pub fn run() {
    let mut engine = Engine::default();
    engine.run_stdin();
}
