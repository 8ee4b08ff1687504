//! The one place where the browser board talks to the engine.
//!
//! Everything the server asks of the engine goes through [`EngineAdapter`]: a search (a
//! computer move, a hint, live MultiPV analysis), a mate search, or a review of every position
//! of a game. Each task runs on its own thread and reports through a [`Sink`] with structured
//! [`Event`]s; a new task stops (and joins) the one before it, so a superseded analysis never
//! keeps running.
//!
//! Today the adapter drives `search::Searcher` and `mate::MateSolver` directly; the search
//! reports through its `Output` text closure, whose `info` lines are parsed here into
//! [`Event::Info`]. That is the only text parsing in the GUI, and it lives in this file alone.

use crate::game::SennichiteRule;
use crate::mate::{MateLimits, MateResult, MateSolver};
use crate::movegen;
use crate::notation;
use crate::position::Position;
use crate::search::{SearchConfig, Searcher, Shared, MATE, SEARCH_STACK_BYTES};
use crate::time::Limits;
use crate::tt::TranspositionTable;
use crate::types::Move;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Hash table of one game's engine.
const HASH_MB: usize = 8;
/// Table of the mate solver of one mate search.
const MATE_HASH_MB: usize = 16;

/// A score from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Signed plies: positive when the side to move mates.
    Mate(i32),
}

impl Score {
    /// Centipawn-like number for graphs and move marks: mates are +-10000 less the distance.
    pub fn to_cp(self) -> i32 {
        match self {
            Score::Cp(c) => c,
            Score::Mate(n) if n > 0 => 10_000 - n,
            Score::Mate(n) => -10_000 - n,
        }
    }

    fn from_internal(s: i32) -> Score {
        let bound = MATE - 512;
        if s >= bound {
            Score::Mate(MATE - s)
        } else if s <= -bound {
            Score::Mate(-(MATE + s))
        } else {
            Score::Cp(s)
        }
    }
}

/// One line of a search report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    pub depth: i32,
    pub seldepth: usize,
    /// 1-based line number.
    pub multipv: usize,
    pub score: Score,
    /// "lower", "upper" or "" (exact).
    pub bound: &'static str,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateAnswer {
    Mate(Vec<Move>),
    NoMate,
    Timeout,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Info(Info),
    /// Ends a search task (also after `stop`).
    BestMove {
        best: Option<Move>,
        score: Option<Score>,
    },
    /// Ends a mate task.
    Checkmate(MateAnswer),
    /// One position of a review is done: position `index` of the history, its score and best
    /// move (no move when the game is over there).
    Reviewed {
        index: usize,
        score: Score,
        best: Option<Move>,
    },
    /// Ends a review task; `complete` is false when it was stopped.
    ReviewDone {
        complete: bool,
    },
}

pub type Sink = Arc<dyn Fn(Event) + Send + Sync>;

/// What a search may use.
#[derive(Clone, Debug)]
pub struct SearchSpec {
    pub limits: Limits,
    pub multipv: usize,
    /// 0 ..= `SKILL_FULL`.
    pub skill_level: u8,
    pub sennichite: SennichiteRule,
}

#[derive(Clone, Debug)]
pub enum Task {
    /// Search the last position of the history.
    Search(SearchSpec),
    /// Look for a forced mate for the side to move within `ms` milliseconds.
    Mate { ms: u64 },
    /// Score every position of the history in turn, `spec` each (from the first to the last).
    Review(SearchSpec),
}

struct Running {
    shared: Arc<Shared>,
    handle: JoinHandle<()>,
}

/// The engine of one game: at most one task at a time.
pub struct EngineAdapter {
    tt: Option<Arc<TranspositionTable>>,
    running: Option<Running>,
}

impl Default for EngineAdapter {
    fn default() -> Self {
        Self::new()
    }
}

impl EngineAdapter {
    pub fn new() -> EngineAdapter {
        EngineAdapter {
            tt: None,
            running: None,
        }
    }

    /// Starts `task` on `history` (the game's positions, oldest first), stopping any task
    /// still running. Returns at once; the sink gets exactly one closing event
    /// ([`Event::BestMove`], [`Event::Checkmate`] or [`Event::ReviewDone`]).
    pub fn go(&mut self, history: Vec<Position>, task: Task, sink: Sink) {
        self.stop();
        let tt = self
            .tt
            .get_or_insert_with(|| Arc::new(TranspositionTable::new(HASH_MB)))
            .clone();
        let shared = Arc::new(Shared::default());
        let job_shared = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("gui-engine".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || run_task(history, task, tt, job_shared, sink.clone()));
        match spawned {
            Ok(handle) => self.running = Some(Running { shared, handle }),
            Err(e) => log::error!("could not start an engine thread: {e}"),
        }
    }

    /// Stops the running task, if any, and waits for its thread.
    pub fn stop(&mut self) {
        if let Some(r) = self.running.take() {
            r.shared.stop.store(true, Ordering::SeqCst);
            if r.handle.join().is_err() {
                log::error!("an engine thread panicked");
            }
        }
    }

    pub fn is_busy(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }
}

impl Drop for EngineAdapter {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run_task(
    history: Vec<Position>,
    task: Task,
    tt: Arc<TranspositionTable>,
    shared: Arc<Shared>,
    sink: Sink,
) {
    match task {
        Task::Search(spec) => {
            let (best, score) = search(&history, &spec, &tt, &shared, Some(&sink));
            sink(Event::BestMove { best, score });
        }
        Task::Mate { ms } => {
            let limits = MateLimits {
                deadline: Some(Instant::now() + Duration::from_millis(ms.max(1))),
                max_nodes: None,
            };
            let mut solver = MateSolver::new(MATE_HASH_MB);
            let answer = match solver.solve(&history, &limits, &shared.stop) {
                MateResult::Mate(line) => MateAnswer::Mate(line),
                MateResult::NoMate => MateAnswer::NoMate,
                MateResult::Timeout => MateAnswer::Timeout,
            };
            sink(Event::Checkmate(answer));
        }
        Task::Review(spec) => {
            for index in 0..history.len() {
                if shared.stop.load(Ordering::SeqCst) {
                    sink(Event::ReviewDone { complete: false });
                    return;
                }
                let part = &history[..=index];
                let (best, score) = search(part, &spec, &tt, &shared, None);
                if shared.stop.load(Ordering::SeqCst) {
                    sink(Event::ReviewDone { complete: false });
                    return;
                }
                if let Some(score) = score {
                    sink(Event::Reviewed { index, score, best });
                }
            }
            sink(Event::ReviewDone { complete: true });
        }
    }
}

/// One search of `history.last()`; the best move and its score. A position without legal
/// moves gives no move and the score of being mated.
fn search(
    history: &[Position],
    spec: &SearchSpec,
    tt: &Arc<TranspositionTable>,
    shared: &Arc<Shared>,
    sink: Option<&Sink>,
) -> (Option<Move>, Option<Score>) {
    let Some(root) = history.last().copied() else {
        return (None, None);
    };
    if !movegen::has_legal_move(&root) {
        return (None, Some(Score::Mate(0)));
    }
    let output: crate::search::Output = match sink {
        Some(sink) => {
            let sink = sink.clone();
            Arc::new(move |line: &str| {
                if let Some(info) = parse_info(&root, line) {
                    sink(Event::Info(info));
                }
            })
        }
        None => Arc::new(|_: &str| {}),
    };
    let config = SearchConfig {
        multipv: spec.multipv.max(1),
        sennichite: spec.sennichite,
        move_overhead: 0,
        verbose: sink.is_some(),
        skill_level: spec.skill_level,
        mate_probe: true,
    };
    let mut searcher = Searcher::new(tt.clone(), shared.clone(), output);
    let result = searcher.think(history, &spec.limits, &[], &config);
    let best = result
        .best
        .filter(|&m| movegen::is_legal(&root, m))
        .or_else(|| movegen::legal_moves(&root).iter().next().copied());
    (best, Some(Score::from_internal(result.score)))
}

/// Reads a USI `info ... pv ...` line of the search (temporary: see the module docs).
fn parse_info(root: &Position, line: &str) -> Option<Info> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") || !words.contains(&"pv") {
        return None;
    }
    let mut info = Info {
        depth: 0,
        seldepth: 0,
        multipv: 1,
        score: Score::Cp(0),
        bound: "",
        nodes: 0,
        nps: 0,
        time_ms: 0,
        pv: Vec::new(),
    };
    let mut i = 1;
    let num = |i: usize| {
        words
            .get(i)
            .and_then(|w| w.parse::<i64>().ok())
            .unwrap_or(0)
    };
    while i < words.len() {
        match words[i] {
            "depth" => info.depth = num(i + 1) as i32,
            "seldepth" => info.seldepth = num(i + 1) as usize,
            "multipv" => info.multipv = num(i + 1).max(1) as usize,
            "nodes" => info.nodes = num(i + 1) as u64,
            "nps" => info.nps = num(i + 1) as u64,
            "time" => info.time_ms = num(i + 1) as u64,
            "lowerbound" => info.bound = "lower",
            "upperbound" => info.bound = "upper",
            "score" => {
                let n = num(i + 2) as i32;
                info.score = if words.get(i + 1) == Some(&"mate") {
                    Score::Mate(n)
                } else {
                    Score::Cp(n)
                };
                i += 1;
            }
            "pv" => {
                let mut pos = *root;
                for w in &words[i + 1..] {
                    match notation::parse_move(&pos, w) {
                        Ok(m) => {
                            info.pv.push(m);
                            pos = pos.after(m);
                        }
                        Err(_) => break,
                    }
                }
                break;
            }
            _ => {}
        }
        i += 1;
    }
    Some(info)
}

/// Limits for a search of `ms` milliseconds.
pub fn movetime(ms: u64) -> Limits {
    Limits {
        movetime: Some(ms.max(1)),
        ..Limits::default()
    }
}
