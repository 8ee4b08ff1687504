//! Structured output of the engine core: what a search, a mate search, perft or bench has to
//! say, as typed events. The core never writes protocol text; each front end (the USI and UCI
//! dialects, the browser board) turns events into its own form (`usi::format`, `uci::format`).
//!
//! Every job the engine controller runs ends with exactly one final event: `BestMove` for a
//! search, `Checkmate` for `go mate`, `PerftDone` for perft, `BenchDone` for bench.

use crate::search::{MATE, MATE_BOUND};
use crate::tt::Bound;
use crate::types::Move;
use std::sync::Arc;

/// A search score from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (a repetition win shows as a large value, not a mate).
    Cp(i32),
    /// Mate in this many plies: positive when the side to move mates, negative when it is
    /// mated.
    Mate(i32),
}

impl Score {
    /// The score of a search value (`MATE - ply` for a mate at `ply`).
    pub fn from_search(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Mate(MATE - s)
        } else if s <= -MATE_BOUND {
            Score::Mate(-(MATE + s))
        } else {
            Score::Cp(s)
        }
    }
}

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

/// Text from input, made safe to print: control characters (and the escape that starts
/// terminal sequences) are written as `\x..` or `\u{..}`, and it is cut to `max` characters.
pub fn sanitize(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i >= max {
            out.push_str("...");
            break;
        }
        if c.is_control() || c == '\u{feff}' {
            let code = c as u32;
            if code < 0x100 {
                out.push_str(&format!("\\x{code:02x}"));
            } else {
                out.push_str(&format!("\\u{{{code:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_from_search_values() {
        assert_eq!(Score::from_search(MATE - 3), Score::Mate(3));
        assert_eq!(Score::from_search(-MATE + 4), Score::Mate(-4));
        assert_eq!(Score::from_search(12), Score::Cp(12));
        assert_eq!(Score::from_search(-20000), Score::Cp(-20000));
    }

    #[test]
    fn sanitize_escapes_controls_and_cuts() {
        assert_eq!(sanitize("ab\x1b[2Jc\r", 100), "ab\\x1b[2Jc\\x0d");
        assert_eq!(sanitize("abcdef", 3), "abc...");
        assert_eq!(sanitize("\u{85}", 5), "\\x85");
    }
}
