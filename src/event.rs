//! Structured output of the engine core: what a search, a mate search, perft or bench has to
//! say, as typed events. The core never writes protocol text; each front end (the USI and UCI
//! dialects, the browser board) turns events into its own form (`usi::format`, `uci::format`).
//!
//! Every job the engine controller runs ends with exactly one final event: `BestMove` for a
//! search, `Checkmate` for `go mate`, `PerftDone` for perft, `BenchDone` for bench.

// The score type lives at the bottom of the crate; events re-export it for their readers.
pub use crate::score::Score;
use crate::tt::Bound;
use crate::types::Move;
use std::sync::Arc;

/// One `info` report of a search: a line of the principal variation(s) after an iteration
/// (or a window failure late in one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: usize,
    /// 1-based index of the line (MultiPV).
    pub multipv: usize,
    pub score: Score,
    /// `Exact`, or `Lower`/`Upper` when the line failed outside the aspiration window.
    pub bound: Bound,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    /// Per mille of the hash table in use.
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

/// The answer of a mate search (`go mate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateAnswer {
    /// A shortest forced mate, attacker's moves and defences alternating.
    Mate(Vec<Move>),
    /// Proven: no forced mate (by checks) exists.
    NoMate,
    /// Neither proven nor refuted in the time given, or stopped.
    Timeout,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Info(SearchInfo),
    /// Free text for the user (`info string` in both dialects). May contain anything the user
    /// sent; formatters escape control characters.
    Message(String),
    /// Ends a search. `best` is `None` only when the side to move has no legal move.
    BestMove {
        best: Option<Move>,
        ponder: Option<Move>,
    },
    /// Ends a mate search.
    Checkmate(MateAnswer),
    /// One root move of perft and the leaves below it.
    PerftMove {
        mv: Move,
        nodes: u64,
    },
    /// Ends perft; `complete` is false when it was stopped (the total is then partial).
    PerftDone {
        nodes: u64,
        complete: bool,
    },
    /// One bench position searched.
    BenchPosition {
        index: usize,
        nodes: u64,
        best: Option<Move>,
    },
    /// Ends bench; `complete` is false when it was stopped.
    BenchDone {
        nodes: u64,
        nps: u64,
        complete: bool,
    },
}

impl Event {
    /// True for the event that ends a job.
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Event::BestMove { .. }
                | Event::Checkmate(_)
                | Event::PerftDone { .. }
                | Event::BenchDone { .. }
        )
    }
}

/// Where events go. Called from the job's thread.
pub type Sink = Arc<dyn Fn(Event) + Send + Sync>;

/// A sink that drops everything (bench, helper threads, tests).
pub fn silent() -> Sink {
    Arc::new(|_| {})
}
