//! Iterative-deepening principal variation search, split by job:
//!
//! - [`limit`]: the [`Limiter`], every rule that ends a search, built once per `go`;
//! - [`threads`]: [`Signals`] shared with the engine and the search threads, and Lazy SMP
//!   (the entry points [`Searcher::think`] and [`Searcher::run`]);
//! - `root`: the root moves, the iterations with their aspiration windows, the root mate
//!   probe, the reports and the choice of the move;
//! - `node`: the node search (its steps are listed there);
//! - `qsearch`: the quiescence search;
//! - `repetition`: sennichite and perpetual check on the game and the search path.
//!
//! Scores: see `crate::score` (`MATE - ply` for mating at `ply`; repetition outcomes use
//! `REPETITION_WIN`, not a mate score).

pub mod limit;
mod node;
mod qsearch;
mod repetition;
mod root;
#[cfg(test)]
mod tests;
pub mod threads;

use crate::eval::evaluate;
use crate::event::Sink;
use crate::game::{RepetitionIndex, SennichiteRule};
use crate::mate::MateSolver;
use crate::movepick::{CounterTable, HistoryTable};
use crate::nnue::net::Network;
use crate::nnue::stack::PlyAccumulators;
use crate::params::*;
use crate::position::Position;
use crate::time::Limits;
use crate::tt::{Bound, TranspositionTable};
use crate::types::{Color, Move};
use std::sync::Arc;
use std::time::Instant;

pub use limit::Limiter;
// The score constants live in `crate::score`; re-exported for code that names them here.
pub use crate::score::{is_mate_score, INFINITY, MATE, MATE_BOUND, REPETITION_WIN};
// Skill levels live in their own module; re-exported for code that names them from here.
pub use crate::skill::{skill_pick, splitmix64, strength_to_skill_level, SkillLimits};
pub use threads::{helper_skips, Signals};

/// Stack size of every search thread (the search recurses up to `MAX_PLY` deep).
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

pub const MAX_PLY: usize = 128;

/// Options that shape a search.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    pub multipv: usize,
    pub sennichite: SennichiteRule,
    pub move_overhead: u64,
    /// Report `Info` events to the searcher's sink (off for bench and tests that do not read
    /// them).
    pub verbose: bool,
    /// Playing strength, 0 ..= `SKILL_FULL` (see [`SkillLimits`]); `SKILL_FULL` is the normal
    /// search, untouched.
    pub skill_level: u8,
    /// Let the df-pn solver look for a mate at the root (see `docs/mate.md`); off for `bench`,
    /// which measures the search alone.
    pub mate_probe: bool,
    /// The margins, reductions and depth limits of the search (default: the constants of
    /// `crate::params`); only a tuner sets others.
    pub params: SearchParams,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            multipv: 1,
            sennichite: SennichiteRule::Draw,
            move_overhead: 50,
            verbose: true,
            skill_level: SKILL_FULL,
            mate_probe: true,
            params: SearchParams::default(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
}

#[derive(Clone, Debug)]
pub(super) struct RootMove {
    mv: Move,
    score: i32,
    prev_score: i32,
    pv: Vec<Move>,
    seldepth: usize,
    /// Bound of `score` when the last search of this move failed outside the window.
    bound: Bound,
    /// Nodes spent on this move in this search, all iterations together (the time rule's
    /// effort).
    effort: u64,
}

impl RootMove {
    fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -INFINITY,
            prev_score: -INFINITY,
            pv: vec![mv],
            seldepth: 0,
            bound: Bound::None,
            effort: 0,
        }
    }
}

/// Per-thread search state: histories survive between searches of one game.
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    signals: Arc<Signals>,
    config: SearchConfig,
    /// Where the main thread reports (`None`: silent, as for helpers and bench).
    sink: Option<Sink>,
    /// The evaluation network (`EvalFile`), or `None` for the handcrafted evaluation.
    net: Option<Arc<Network>>,
    /// The network's accumulators along the current path (`stack`).
    accs: PlyAccumulators,
    /// See [`HistoryTable`].
    history: Box<HistoryTable>,
    killers: [[Move; 2]; MAX_PLY + 1],
    /// The move a singular-extension search leaves out at this ply.
    skip_move: [Move; MAX_PLY + 1],
    /// Depth of the current iteration (singular extensions stop at twice this ply).
    root_depth: i32,
    /// See [`CounterTable`].
    counter: Box<CounterTable>,
    /// The move that led to each ply, with the history index of the man that made it.
    path: [(Move, usize); MAX_PLY + 2],
    /// Static evaluation of each ply of the current path (`-INFINITY` when in check).
    evals: [i32; MAX_PLY + 2],
    stack: Vec<Position>,
    /// Keys of the game so far and the current search path (the root at `root_index`).
    keys: Vec<u64>,
    /// For each entry of `keys`: how many of it and the entries 2, 4, 6, ... before it are
    /// positions not in check, so that "every move of one side in this cycle gave check" is
    /// one subtraction (see `repetition_score`).
    quiet: Vec<u32>,
    root_index: usize,
    /// The game up to the root, indexed by key: the repetition test of a node looks its key
    /// up here instead of scanning the game (issue 15: 200,000-ply games).
    game: RepetitionIndex,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    nodes: u64,
    seldepth: usize,
    start: Instant,
    /// The limits of the current search (this thread's copy).
    limiter: Limiter,
    stopped: bool,
    /// The parameters of the current search (`SearchConfig::params`), and the late-move
    /// reductions they give.
    pub(super) params: SearchParams,
    lmr: Box<[[i32; 64]; 64]>,
    /// Root moves excluded at this multipv pass.
    excluded: Vec<Move>,
    /// Part of `nodes` already added to `Shared::nodes`.
    flushed: u64,
    /// Skill-level picks made since the last `clear`: mixed into the seed of the next one.
    skill_picks: u64,
    /// The df-pn solver of the root mate probe (main thread only; made on first use).
    mate_solver: Option<MateSolver>,
    /// The mating line found by the root mate probe of the current search, if any.
    proven_mate: Option<Vec<Move>>,
    /// The key of the last timed search's root and the score of its move (main thread): the
    /// next search, two plies later in the same game, compares its own score with it.
    last_timed_root: Option<(u64, i32)>,
}

/// Mate scores are stored relative to the node, other scores as they are.
pub(super) fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

pub(super) fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

impl Searcher {
    pub fn new(tt: Arc<TranspositionTable>, signals: Arc<Signals>) -> Searcher {
        let params = SearchParams::default();
        let lmr = lmr_table(&params);
        Searcher {
            tt,
            signals,
            config: SearchConfig::default(),
            sink: None,
            net: Some(crate::nnue::default_net()),
            accs: PlyAccumulators::new(MAX_PLY + 2),
            history: Box::new([[[0; 25]; 15]; 2]),
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
            skip_move: [Move::NONE; MAX_PLY + 1],
            root_depth: 0,
            counter: Box::new([[[Move::NONE; 25]; 15]; 2]),
            path: [(Move::NONE, 0); MAX_PLY + 2],
            evals: [-INFINITY; MAX_PLY + 2],
            stack: vec![Position::startpos(); MAX_PLY + 2],
            keys: Vec::new(),
            quiet: Vec::new(),
            root_index: 0,
            game: RepetitionIndex::default(),
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            start: Instant::now(),
            limiter: Limiter::new(&Limits::default(), Color::Black, 0, SKILL_FULL),
            stopped: false,
            params,
            lmr,
            excluded: Vec::new(),
            flushed: 0,
            skill_picks: 0,
            mate_solver: None,
            proven_mate: None,
            last_timed_root: None,
        }
    }

    /// The evaluation network to use instead of the handcrafted evaluation (`None`: the
    /// handcrafted one).
    pub fn set_net(&mut self, net: Option<Arc<Network>>) {
        self.net = net;
        self.accs.invalidate_all();
    }

    /// The static evaluation of `pos` for its side to move: the network's when one is set.
    #[inline]
    pub(super) fn static_eval(&self, pos: &Position) -> i32 {
        match &self.net {
            Some(net) => net.evaluate_position(pos),
            None => evaluate(pos),
        }
    }

    /// The static evaluation of the position at `ply` of the current path (`stack[ply]`),
    /// through the incrementally updated accumulators when the network is in use.
    #[inline]
    pub(super) fn eval_at(&mut self, ply: usize) -> i32 {
        match &self.net {
            Some(net) => {
                let path = &self.path;
                self.accs.evaluate(net, &self.stack, |i| path[i].0, ply)
            }
            None => evaluate(&self.stack[ply]),
        }
    }

    /// Puts `pos`, reached by `m` (`Move::NONE`: a null move) from the position at `ply - 1`,
    /// at `ply` of the current path.
    #[inline]
    pub(super) fn set_ply(&mut self, ply: usize, pos: Position, m: Move, history_index: usize) {
        self.stack[ply] = pos;
        self.path[ply] = (m, history_index);
        self.accs.invalidate(ply);
    }

    /// Takes the parameters of a search, rebuilding the reduction table when they change it.
    pub(super) fn set_params(&mut self, p: SearchParams) {
        if p.lmr_base != self.params.lmr_base || p.lmr_divisor != self.params.lmr_divisor {
            self.lmr = lmr_table(&p);
        }
        self.params = p;
    }

    pub fn set_tt(&mut self, tt: Arc<TranspositionTable>) {
        self.tt = tt;
    }

    /// Forgets everything learnt (new game).
    pub fn clear(&mut self) {
        *self.history = [[[0; 25]; 15]; 2];
        *self.counter = [[[Move::NONE; 25]; 15]; 2];
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
        self.skill_picks = 0;
        self.last_timed_root = None;
    }

    /// Where this searcher reports `Info` events from now on.
    pub fn set_sink(&mut self, sink: Option<Sink>) {
        self.sink = sink;
    }

    /// Nodes this searcher (this thread alone) visited in its last search.
    pub fn nodes_searched(&self) -> u64 {
        self.nodes
    }
}
