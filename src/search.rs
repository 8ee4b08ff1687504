//! Iterative-deepening principal variation search.
//!
//! Layout of [`Searcher::search`], in numbered steps: 1 quiescence at depth 0; 2 node
//! bookkeeping and stop checks; 3 repetition (sennichite, perpetual check) and mate-distance
//! pruning; 4 transposition table probe; 5 static evaluation; 6 reverse futility pruning;
//! 7 null move (verified at high depth); 8 internal iterative reduction; 9 the move loop
//! (after a look for a mate in one) with late-move pruning, futility pruning, static-exchange
//! pruning, check extension and late-move reductions; 10 mate when there is no legal move
//! (shogi has no stalemate); 11 history and killer updates and the TT store.
//!
//! Scores: `MATE - ply` for mating at `ply`; anything beyond `MATE_BOUND` is a mate score.
//! Repetition outcomes use `REPETITION_WIN` (not a mate score: the game ends by sennichite).

use crate::bitboard::Bitboard;
use crate::eval::{capture_value, evaluate};
use crate::event::{Event, Score, SearchInfo, Sink};
use crate::game::{RepetitionIndex, SennichiteRule};
use crate::mate::{mate_in_one_of, MateLimits, MateResult, MateSolver};
use crate::movegen::{self, gives_check, legal_moves, MoveList, NOISY};
use crate::movepick::{
    self, history_bonus, history_index, is_noisy, update_history, CounterTable, HistoryTable,
    OrderHints,
};
use crate::nnue::net::Network;
use crate::nnue::stack::PlyAccumulators;
use crate::params::*;
use crate::position::Position;
use crate::see::see_ge;
// Skill levels live in their own module; re-exported for code that names them from here.
pub use crate::skill::{skill_pick, splitmix64, strength_to_skill_level, SkillLimits};
use crate::time::{self, Limits, TimePlan};
use crate::tt::{Bound, TranspositionTable};
use crate::types::{Color, Move};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Stack size of every search thread (the search recurses up to `MAX_PLY` deep).
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

// The score constants live in `crate::score`; re-exported for code that names them here.
pub use crate::score::{is_mate_score, INFINITY, MATE, MATE_BOUND, REPETITION_WIN};
pub const MAX_PLY: usize = 128;

/// State shared between the engine controller and the search threads.
#[derive(Default)]
pub struct Shared {
    /// Ends the search of every thread. Cleared by the caller before a search (the engine
    /// controller does it in `go`); a search with helper threads sets it itself once the main
    /// thread is done. Set it through [`Shared::request_stop`] so that a waiting search wakes.
    pub stop: AtomicBool,
    /// True while pondering (time limits do not apply until `ponderhit`).
    pub pondering: AtomicBool,
    /// Milliseconds after the search start at which `ponderhit` came (the clock starts then).
    pub ponderhit_ms: AtomicU64,
    /// Nodes of all threads in the current search; each thread adds its own count every 1024
    /// nodes (and when it ends). Reset at the start of every search.
    pub nodes: AtomicU64,
    /// Wakes a finished infinite or ponder search that waits for `stop` or `ponderhit`.
    wake_lock: Mutex<()>,
    wake: Condvar,
}

impl Shared {
    /// Asks every search thread to stop, and wakes a search that waits for it.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.notify();
    }

    /// Turns a ponder search into a normal one: its clock starts `ms` after the search start.
    pub fn ponderhit(&self, ms: u64) {
        self.ponderhit_ms.store(ms, Ordering::SeqCst);
        self.pondering.store(false, Ordering::SeqCst);
        self.notify();
    }

    fn notify(&self) {
        // Taking the lock orders this with a waiter's check of the flags.
        let _guard = self.wake_lock.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.notify_all();
    }

    /// The search's clock, run on a thread of its own: sets `stop` once `hard` has passed
    /// since `start` (or since `ponderhit` for a ponder search; never while pondering), and
    /// returns early when the search is stopped otherwise. The searching threads also check the
    /// time, but with many threads on few cores the main one may not run often enough to see
    /// its deadline in time.
    pub fn run_clock(&self, start: Instant, hard: Duration) {
        let mut guard = self.wake_lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            if self.pondering.load(Ordering::SeqCst) {
                guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            let hit = Duration::from_millis(self.ponderhit_ms.load(Ordering::SeqCst));
            let deadline = start + hit + hard;
            let now = Instant::now();
            if now >= deadline {
                drop(guard);
                self.request_stop();
                return;
            }
            guard = self
                .wake
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Blocks while `keep_waiting` holds, woken by `request_stop` and `ponderhit`.
    fn wait_while(&self, keep_waiting: impl Fn() -> bool) {
        let mut guard = self.wake_lock.lock().unwrap_or_else(|e| e.into_inner());
        while keep_waiting() {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }
}

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
struct RootMove {
    mv: Move,
    score: i32,
    prev_score: i32,
    pv: Vec<Move>,
    seldepth: usize,
    /// Bound of `score` when the last search of this move failed outside the window.
    bound: Bound,
}

/// Per-thread search state: histories survive between searches of one game.
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    shared: Arc<Shared>,
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
    plan: Option<TimePlan>,
    node_limit: Option<u64>,
    stopped: bool,
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
}

/// Mate scores are stored relative to the node, other scores as they are.
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// Sets `Shared::stop` when dropped.
struct StopOnDrop(Arc<Shared>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::SeqCst);
    }
}

/// Whether Lazy SMP helper `thread` (1, 2, ...) skips iteration `depth`: the helpers are
/// spread over the depths in blocks (Stockfish's skip blocks), so that they are not all on the
/// main thread's iteration and fill the table ahead of it. Helper 1 searches the even depths,
/// helper 2 the odd ones, helpers 3 to 6 two-depth blocks at four phases, and so on.
pub fn helper_skips(thread: usize, depth: i32) -> bool {
    const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    if thread == 0 {
        return false;
    }
    let i = (thread - 1) % 20;
    ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
}

impl Searcher {
    pub fn new(tt: Arc<TranspositionTable>, shared: Arc<Shared>) -> Searcher {
        let mut lmr = Box::new([[0i32; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (m as f64).ln() / LMR_DIVISOR) as i32;
            }
        }
        Searcher {
            tt,
            shared,
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
            plan: None,
            node_limit: None,
            stopped: false,
            lmr,
            excluded: Vec::new(),
            flushed: 0,
            skill_picks: 0,
            mate_solver: None,
            proven_mate: None,
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
    fn static_eval(&self, pos: &Position) -> i32 {
        match &self.net {
            Some(net) => net.evaluate_position(pos),
            None => evaluate(pos),
        }
    }

    /// The static evaluation of the position at `ply` of the current path (`stack[ply]`),
    /// through the incrementally updated accumulators when the network is in use.
    #[inline]
    fn eval_at(&mut self, ply: usize) -> i32 {
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
    fn set_ply(&mut self, ply: usize, pos: Position, m: Move, history_index: usize) {
        self.stack[ply] = pos;
        self.path[ply] = (m, history_index);
        self.accs.invalidate(ply);
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
    }

    /// Where this searcher reports `Info` events from now on.
    pub fn set_sink(&mut self, sink: Option<Sink>) {
        self.sink = sink;
    }

    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time counted against the clock: from `ponderhit` when pondering turned into a real search.
    fn clock_elapsed(&self) -> Duration {
        let hit = self.shared.ponderhit_ms.load(Ordering::Relaxed);
        self.elapsed().saturating_sub(Duration::from_millis(hit))
    }

    /// Adds the nodes not yet counted to `Shared::nodes`.
    fn flush_nodes(&mut self) {
        let new = self.nodes - self.flushed;
        if new > 0 {
            self.shared.nodes.fetch_add(new, Ordering::Relaxed);
            self.flushed = self.nodes;
        }
    }

    /// Nodes of all threads so far (with one thread, exactly `self.nodes`).
    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed)
    }

    fn check_stop(&mut self) {
        self.flush_nodes();
        if self.shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if let Some(n) = self.node_limit {
            // All threads' nodes; with one thread this is `self.nodes`, just flushed.
            if self.shared.nodes.load(Ordering::Relaxed) >= n {
                self.stopped = true;
                return;
            }
        }
        if let Some(plan) = self.plan {
            if !self.shared.pondering.load(Ordering::Relaxed) && self.clock_elapsed() >= plan.hard {
                self.stopped = true;
            }
        }
    }

    /// Searches `history.last()` (the positions of the game so far, oldest first) within
    /// `limits` on this thread alone. `searchmoves`, when not empty, restricts the root moves.
    /// With `infinite` or `ponder` limits the call returns only after `stop` (or `ponderhit`
    /// for ponder) even when the search ends earlier.
    pub fn think(
        &mut self,
        history: &[Position],
        limits: &Limits,
        searchmoves: &[Move],
        config: &SearchConfig,
    ) -> SearchResult {
        self.think_with_helpers(&mut [], history, limits, searchmoves, config)
    }

    /// [`Searcher::think`] with Lazy SMP: every searcher in `helpers` runs the same iterative
    /// deepening on its own thread, sharing only the transposition table (which must be this
    /// searcher's) and `Shared`. Helpers skip depths (see [`helper_skips`]), print nothing and
    /// obey no limit but `Shared::stop`; this (main) searcher reports, keeps the clock and
    /// decides. When it is done it sets `Shared::stop` and waits for the helpers. The result is
    /// the main thread's, with `nodes` counting all threads. Below full skill the helpers are
    /// not used (a weakened search stays single-threaded and reproducible).
    pub fn think_with_helpers(
        &mut self,
        helpers: &mut [Searcher],
        history: &[Position],
        limits: &Limits,
        searchmoves: &[Move],
        config: &SearchConfig,
    ) -> SearchResult {
        // Once per search, not per thread: entries age by one generation per move.
        self.tt.new_search();
        self.shared.nodes.store(0, Ordering::SeqCst);
        let helpers: &mut [Searcher] = if config.skill_level < SKILL_FULL {
            &mut []
        } else {
            helpers
        };
        if helpers.is_empty() {
            let result = self.iterate(0, history, limits, searchmoves, config);
            self.wait_for_stop(limits);
            return result;
        }
        // The helpers wait at this gate until all are started: otherwise, with more threads
        // than cores, the ones already searching starve the thread that starts the others.
        let gate = (Mutex::new(false), Condvar::new());
        let gate = &gate;
        std::thread::scope(|scope| {
            let mut handles = Vec::with_capacity(helpers.len());
            for (i, helper) in helpers.iter_mut().enumerate() {
                let spawned = std::thread::Builder::new()
                    .name(format!("helper {}", i + 1))
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let mut open = gate.0.lock().unwrap_or_else(|e| e.into_inner());
                        while !*open {
                            open = gate.1.wait(open).unwrap_or_else(|e| e.into_inner());
                        }
                        drop(open);
                        helper.iterate(i + 1, history, limits, searchmoves, config);
                    });
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => log::warn!("could not start helper thread {}: {e}", i + 1),
                }
            }
            *gate.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            gate.1.notify_all();
            // Stops the helpers when the main thread is done, even by a panic.
            let stop_helpers = StopOnDrop(self.shared.clone());
            let mut result = self.iterate(0, history, limits, searchmoves, config);
            self.wait_for_stop(limits);
            drop(stop_helpers);
            for h in handles {
                if h.join().is_err() {
                    log::error!("a helper search thread panicked");
                }
            }
            result.nodes = self.shared.nodes.load(Ordering::SeqCst);
            result
        })
    }

    /// In infinite or ponder mode the answer waits for `stop` (or `ponderhit`); signalled, not
    /// polled.
    fn wait_for_stop(&self, limits: &Limits) {
        if limits.infinite || limits.ponder {
            self.shared.wait_while(|| {
                !self.shared.stop.load(Ordering::SeqCst)
                    && (limits.infinite || self.shared.pondering.load(Ordering::SeqCst))
            });
        }
    }

    /// The iterative deepening of one thread: `thread` 0 is the main thread, others are
    /// helpers (no output, no limits but the depth, no MultiPV, skipped depths).
    fn iterate(
        &mut self,
        thread: usize,
        history: &[Position],
        limits: &Limits,
        searchmoves: &[Move],
        config: &SearchConfig,
    ) -> SearchResult {
        self.config = config.clone();
        let helper = thread > 0;
        if helper {
            self.config.verbose = false;
            self.config.multipv = 1;
            self.config.skill_level = SKILL_FULL;
        }
        let skill = (self.config.skill_level < SKILL_FULL)
            .then(|| SkillLimits::for_level(self.config.skill_level));
        // The clock runs from when the `go` command was read, not from when this thread
        // started (starting many helper threads takes time).
        self.start = limits.start.unwrap_or_else(Instant::now);
        self.nodes = 0;
        self.flushed = 0;
        self.stopped = false;
        let root = *history.last().expect("a game has a position");
        self.set_game(history);
        self.stack[0] = root;
        self.accs.invalidate(0);
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 2;
                }
            }
        }
        let us = root.side_to_move().index();
        self.plan = time::plan(limits, us, config.move_overhead);
        if limits.infinite || helper {
            self.plan = None;
        }
        self.node_limit = if helper { None } else { limits.nodes };
        let mut max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 1)
            .clamp(1, MAX_PLY as i32 - 1);
        if let Some(skill) = &skill {
            max_depth = max_depth.min(skill.depth);
        }

        let mut root_moves: Vec<RootMove> = legal_moves(&root)
            .iter()
            .filter(|m| searchmoves.is_empty() || searchmoves.contains(m))
            .map(|&mv| RootMove {
                mv,
                score: -INFINITY,
                prev_score: -INFINITY,
                pv: vec![mv],
                seldepth: 0,
                bound: Bound::None,
            })
            .collect();
        let mut result = SearchResult::default();
        if root_moves.is_empty() {
            return result;
        }
        // A move that ends the game at once by a repetition we lose (perpetual check, or a
        // plain fourfold repetition under gote-wins as sente) is played only if every move
        // does; some GUIs even call such a move illegal.
        let us_color = root.side_to_move();
        let losing: Vec<Move> = root_moves
            .iter()
            .map(|rm| rm.mv)
            .filter(|&m| {
                let after = self.game.repetition_after(&root.after(m));
                after.loser(config.sennichite) == Some(us_color)
            })
            .collect();
        if losing.len() < root_moves.len() {
            root_moves.retain(|rm| !losing.contains(&rm.mv));
        }
        // Order the first iteration by the hash move, then by a one-ply look.
        let tt_move = self.tt.probe(root.key()).map(|e| e.mv);
        for rm in root_moves.iter_mut() {
            rm.prev_score = if Some(rm.mv) == tt_move {
                INFINITY
            } else {
                -self.static_eval(&root.after(rm.mv))
            };
        }
        root_moves.sort_by_key(|rm| -rm.prev_score);
        result.best = Some(root_moves[0].mv);

        // The root mate probe (a short df-pn search for a forced mate). An analysis search runs
        // it before the first iteration; a timed one once its score says the opponent's king is
        // in danger (it costs time that the search needs otherwise). A proven mate is reported
        // at once; a timed search plays it at once, an analysis search uses it unless it finds
        // a shorter mate itself.
        let probe_allowed = !helper
            && self.config.mate_probe
            && skill.is_none()
            && self.config.multipv == 1
            && searchmoves.is_empty();
        let mut probed = false;
        let mut proven = None;
        self.proven_mate = None;
        if probe_allowed && self.plan.is_none() {
            probed = true;
            proven = self.root_mate_probe(history, &root_moves, None);
        }

        // Below full skill, more lines are searched than reported: the candidates to pick from.
        let reported = self.config.multipv.clamp(1, root_moves.len());
        let multipv = match &skill {
            Some(s) => s.multipv.max(self.config.multipv),
            None => self.config.multipv,
        }
        .clamp(1, root_moves.len());
        let mut candidates: Vec<RootMove> = Vec::new();
        let mut best_changes = 0.0f64;
        let mut last_best = root_moves[0].mv;
        let mut completed_depth = 0;
        let timed = self.plan.is_some();

        for depth in 1..=max_depth {
            if helper && helper_skips(thread, depth) && depth < max_depth {
                continue;
            }
            for rm in root_moves.iter_mut() {
                rm.prev_score = rm.score;
            }
            self.excluded.clear();
            self.root_depth = depth;
            for pv_index in 0..multipv {
                self.seldepth = 0;
                let prev = root_moves[pv_index].prev_score;
                let mut window = ASPIRATION_WINDOW;
                let (mut alpha, mut beta) =
                    if depth >= ASPIRATION_MIN_DEPTH && prev.abs() < MATE_BOUND {
                        (
                            (prev - window).max(-INFINITY),
                            (prev + window).min(INFINITY),
                        )
                    } else {
                        (-INFINITY, INFINITY)
                    };
                loop {
                    let score = self.search_root(&mut root_moves[pv_index..], depth, alpha, beta);
                    // Stable sort keeps the order of equal (unsearched) moves.
                    root_moves[pv_index..].sort_by_key(|rm| -rm.score);
                    if self.stopped {
                        break;
                    }
                    if score <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (score - window).max(-INFINITY);
                        root_moves[pv_index].bound = Bound::Upper;
                    } else if score >= beta {
                        beta = (score + window).min(INFINITY);
                        root_moves[pv_index].bound = Bound::Lower;
                    } else {
                        root_moves[pv_index].bound = Bound::Exact;
                        break;
                    }
                    window *= ASPIRATION_GROWTH;
                    if window > 1000 {
                        alpha = -INFINITY;
                        beta = INFINITY;
                    }
                    if self.config.verbose
                        && pv_index < reported
                        && self.elapsed() > Duration::from_millis(1000)
                    {
                        self.report(&root_moves, pv_index, depth);
                    }
                }
                self.excluded.push(root_moves[pv_index].mv);
                if self.stopped {
                    break;
                }
            }
            if self.stopped && depth > 1 {
                break;
            }
            // Each line was searched with the better ones left out, so a later line can score
            // above an earlier one: order the lines by score, as they are reported and played
            // (a stable sort: equal scores keep their order; one line is left as it is).
            root_moves[..multipv].sort_by_key(|rm| -rm.score);
            completed_depth = depth;
            if self.config.verbose {
                for i in 0..reported {
                    self.report(&root_moves, i, depth);
                }
            }
            if probe_allowed
                && !probed
                && !self.stopped
                && (ROOT_MATE_PROBE_MIN_SCORE..MATE_BOUND).contains(&root_moves[0].score)
            {
                probed = true;
                // The probe checks only its own deadline: it must end by the hard limit (issue
                // 16), so it gets what is left of that at most, and does not start without it.
                let pondering = self.shared.pondering.load(Ordering::Relaxed);
                let budget = match self.plan {
                    Some(p) => p.mate_probe_budget(self.clock_elapsed(), pondering),
                    None => None,
                };
                if self.plan.is_none() || budget.is_some() {
                    // A budget too large for the clock type means no deadline (the node limit
                    // still holds).
                    let deadline = budget.and_then(|b| Instant::now().checked_add(b));
                    proven = self.root_mate_probe(history, &root_moves, deadline);
                    if proven.is_some() && !self.shared.pondering.load(Ordering::Relaxed) {
                        break;
                    }
                }
            }
            result.best = Some(root_moves[0].mv);
            result.score = root_moves[0].score;
            result.depth = depth;
            if root_moves[0].mv != last_best {
                best_changes += 1.0;
                last_best = root_moves[0].mv;
            }
            if self.stopped {
                break;
            }
            if let Some(s) = &skill {
                // The lines of the last complete iteration are the candidates.
                candidates = root_moves[..multipv].to_vec();
                if self.nodes >= s.nodes {
                    break;
                }
            }
            // Stop early: a proven mate needs no deeper search (unless infinite/ponder).
            if timed && is_mate_score(root_moves[0].score) && depth > 8 {
                break;
            }
            if let Some(plan) = self.plan {
                if !self.shared.pondering.load(Ordering::Relaxed) {
                    let changes = best_changes;
                    best_changes *= 0.5;
                    let elapsed = self.clock_elapsed();
                    if plan.should_stop_after_iteration(elapsed, changes, root_moves.len()) {
                        break;
                    }
                }
            }
        }
        self.flush_nodes();
        result.depth = completed_depth;
        result.nodes = self.nodes;
        let mut best = &root_moves[0];
        if skill.is_some() && !candidates.is_empty() {
            let scores: Vec<i32> = candidates.iter().map(|c| c.score).collect();
            let seed = root.key() ^ splitmix64(self.skill_picks);
            self.skill_picks += 1;
            best = &candidates[skill_pick(&scores, self.config.skill_level, seed)];
        }
        if let Some(line) = proven.filter(|l| best.score < MATE - l.len() as i32) {
            result.best = Some(line[0]);
            result.score = MATE - line.len() as i32;
            result.ponder = line.get(1).copied();
            return result;
        }
        result.best = Some(best.mv);
        result.score = best.score;
        result.ponder = best.pv.get(1).copied().or_else(|| {
            let after = root.after(best.mv);
            self.tt
                .probe(after.key())
                .map(|e| e.mv)
                .filter(|&m| movegen::is_legal(&after, m))
        });
        result
    }

    /// Runs the mate solver on the root for at most `ROOT_MATE_PROBE_NODES` nodes (and until
    /// `deadline`). When it proves a mate that starts with one of `root_moves` (which leave out
    /// moves that lose by repetition), it is reported at once and returned.
    fn root_mate_probe(
        &mut self,
        history: &[Position],
        root_moves: &[RootMove],
        deadline: Option<Instant>,
    ) -> Option<Vec<Move>> {
        let limits = MateLimits {
            deadline,
            max_nodes: Some(ROOT_MATE_PROBE_NODES),
        };
        let solver = self
            .mate_solver
            .get_or_insert_with(|| MateSolver::new(ROOT_MATE_PROBE_TABLE_MB));
        let started = Instant::now();
        let result = solver.solve(history, &limits, &self.shared.stop);
        log::debug!(
            "root mate probe: {:?} after {} nodes in {:?}",
            result,
            solver.nodes(),
            started.elapsed()
        );
        let line = match result {
            MateResult::Mate(line) if root_moves.iter().any(|rm| rm.mv == line[0]) => line,
            _ => return None,
        };
        let plies = line.len() as i32;
        if self.config.verbose {
            self.print_info(plies, line.len(), 0, MATE - plies, Bound::Exact, &line);
        }
        self.proven_mate = Some(line.clone());
        Some(line)
    }

    /// Prints the `info` line of root line `i` after an iteration to `depth`. While the root
    /// mate probe's mate is better than what the search has for its best line, that mate is
    /// shown as the first line instead.
    fn report(&self, root_moves: &[RootMove], i: usize, depth: i32) {
        let rm = &root_moves[i];
        if rm.score == -INFINITY {
            return;
        }
        match &self.proven_mate {
            Some(line) if i == 0 && rm.score < MATE - line.len() as i32 => self.print_info(
                depth,
                rm.seldepth.max(line.len()),
                0,
                MATE - line.len() as i32,
                Bound::Exact,
                line,
            ),
            _ => self.print_info(depth, rm.seldepth, i, rm.score, rm.bound, &rm.pv),
        }
    }

    fn print_info(
        &self,
        depth: i32,
        seldepth: usize,
        index: usize,
        score: i32,
        bound: Bound,
        pv: &[Move],
    ) {
        let Some(sink) = &self.sink else {
            return;
        };
        let ms = self.elapsed().as_millis() as u64;
        let nodes = self.total_nodes();
        sink(Event::Info(SearchInfo {
            depth,
            seldepth: seldepth.max(1),
            multipv: index + 1,
            score: Score::from_search(score),
            bound,
            nodes,
            nps: nodes.saturating_mul(1000) / ms.max(1),
            time_ms: ms,
            hashfull: self.tt.hashfull(),
            pv: pv.to_vec(),
        }));
    }

    fn search_root(
        &mut self,
        root_moves: &mut [RootMove],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let root = self.stack[0];
        let mut best = -INFINITY;
        self.nodes += 1;
        self.keys.truncate(self.root_index + 1);
        self.quiet.truncate(self.root_index + 1);
        #[allow(clippy::needless_range_loop)] // the body borrows self mutably
        for i in 0..root_moves.len() {
            let mv = root_moves[i].mv;
            self.set_ply(1, root.after(mv), mv, history_index(&root, mv));
            self.push_key(1);
            let new_depth = depth - 1;
            let score = if i == 0 {
                -self.search(1, new_depth, -beta, -alpha, true, false)
            } else {
                let mut s = -self.search(1, new_depth, -alpha - 1, -alpha, false, true);
                if s > alpha && !self.stopped {
                    s = -self.search(1, new_depth, -beta, -alpha, true, false);
                }
                s
            };
            self.pop_key();
            if self.stopped {
                break;
            }
            let rm = &mut root_moves[i];
            if i == 0 || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(&self.pv[1][..self.pv_len[1]]);
            } else {
                rm.score = -INFINITY;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        if !self.stopped && best > -INFINITY {
            let bound = if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            let first = root_moves.iter().max_by_key(|r| r.score).map(|r| r.mv);
            if self.excluded.is_empty() {
                self.tt.store(
                    root.key(),
                    first.unwrap_or(Move::NONE),
                    score_to_tt(best, 0),
                    self.static_eval(&root),
                    depth,
                    bound,
                );
            }
        }
        best
    }

    /// Takes `history` (oldest first, the root last) as the game before the search path.
    fn set_game(&mut self, history: &[Position]) {
        self.keys.clear();
        self.quiet.clear();
        self.game = RepetitionIndex::default();
        for p in history {
            // (`in_check` once per position: a game may be 200,000 plies long.)
            let in_check = p.in_check();
            self.push_entry(p.key(), in_check);
            self.game.push_known(p.key(), p.side_to_move(), in_check);
        }
        self.root_index = self.keys.len().saturating_sub(1);
    }

    #[inline]
    fn push_entry(&mut self, key: u64, in_check: bool) {
        let n = self.keys.len();
        let before = if n >= 2 { self.quiet[n - 2] } else { 0 };
        self.keys.push(key);
        self.quiet.push(before + !in_check as u32);
    }

    #[inline]
    fn push_key(&mut self, ply: usize) {
        let p = &self.stack[ply];
        let (key, in_check) = (p.key(), p.in_check());
        self.push_entry(key, in_check);
    }

    #[inline]
    fn pop_key(&mut self) {
        self.keys.pop();
        self.quiet.pop();
    }

    /// The latest index `j <= n - 4` with `j` of the parity of `n` at which the position at
    /// `n` (the end of `keys`) occurred before: the search path above the root is scanned (at
    /// most `MAX_PLY` entries), the game up to the root is looked up in its index.
    fn previous_occurrence(&self, n: usize) -> Option<usize> {
        let key = self.keys[n];
        let mut j = n.checked_sub(4)?;
        while j > self.root_index {
            if self.keys[j] == key {
                return Some(j);
            }
            j = j.checked_sub(2)?;
        }
        self.game.latest(key, j, n % 2)
    }

    /// The score of the current node (side to move `us`) if its position occurred before in
    /// the game or on the search path: a cycle in which one side checked with every move is
    /// lost by that side (perpetual check); any other cycle scores by `SennichiteRule`.
    fn repetition_score(&self, us: Color) -> Option<i32> {
        let n = self.keys.len() - 1;
        if n < 4 {
            return None;
        }
        let j = self.previous_occurrence(n)?;
        // The side that moved into n made the moves into n, n-2, ..., j+2; the side to move
        // made those into n-1, ..., j+1. A side checked with all of them when none of those
        // positions is quiet: the counts of quiet positions at the two ends are equal.
        let they_checked = self.quiet[n] == self.quiet[j];
        let we_checked = self.quiet[n - 1] == if j >= 1 { self.quiet[j - 1] } else { 0 };
        Some(match (they_checked, we_checked) {
            (true, false) => REPETITION_WIN,
            (false, true) => -REPETITION_WIN,
            _ => match self.config.sennichite.winner() {
                None => 0,
                Some(c) if c == us => REPETITION_WIN,
                Some(_) => -REPETITION_WIN,
            },
        })
    }

    /// Orders `moves` in place for the node at `ply` (see [`movepick::order`]).
    fn order(
        &self,
        pos: &Position,
        moves: &mut MoveList,
        tt_move: Move,
        ply: usize,
        see_losers: bool,
    ) {
        let hints = OrderHints {
            tt_move,
            killers: self.killers[ply],
            counter: self.counter_move(pos, ply),
            history: &self.history,
            see_losers,
        };
        movepick::order(pos, moves, &hints);
    }

    fn counter_move(&self, pos: &Position, ply: usize) -> Move {
        if ply == 0 {
            return Move::NONE;
        }
        let (prev, idx) = self.path[ply];
        movepick::counter_move(&self.counter, pos, prev, idx)
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        ply: usize,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        pv_node: bool,
        cut_node: bool,
    ) -> i32 {
        // Step 1: quiescence at the horizon.
        if depth <= 0 {
            return self.qsearch(ply, alpha, beta, 0);
        }
        // Step 2: bookkeeping.
        if !self.enter_node(ply) {
            return 0;
        }
        let pos = self.stack[ply];
        let in_check = pos.in_check();
        // Step 3: repetition and mate-distance pruning.
        if let Some(s) = self.repetition_score(pos.side_to_move()) {
            return s;
        }
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.eval_at(ply) };
        }
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        // Step 4: transposition table.
        let skip = self.skip_move[ply];
        let key = pos.key();
        let tt = self.tt.probe(key);
        let mut tt_move = Move::NONE;
        if let Some(e) = tt {
            if movegen::is_legal(&pos, e.mv) {
                tt_move = e.mv;
            }
            let s = score_from_tt(e.score, ply);
            if !pv_node
                && skip.is_none()
                && e.depth >= depth
                && match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                    Bound::None => false,
                }
            {
                return s;
            }
        }

        // Step 5: static evaluation.
        let static_eval = if in_check {
            -INFINITY
        } else if let Some(e) = tt {
            e.eval
        } else {
            self.eval_at(ply)
        };
        self.evals[ply] = static_eval;
        // Improving: our static evaluation is better than two plies ago (or we were in check
        // then). Pruning is less eager, reductions smaller.
        let improving = !in_check
            && (ply < 2 || static_eval > self.evals[ply - 2] || self.evals[ply - 2] == -INFINITY);

        if !pv_node && !in_check && skip.is_none() {
            // Step 6: reverse futility pruning.
            if depth <= RFP_DEPTH_LIMIT
                && static_eval - RFP_MARGIN * (depth - improving as i32) >= beta
                && static_eval.abs() < MATE_BOUND
            {
                return static_eval;
            }
            // Step 7: null move.
            if depth >= NMP_MIN_DEPTH && static_eval >= beta && beta.abs() < MATE_BOUND {
                let r = NMP_BASE_REDUCTION + depth / NMP_DEPTH_DIVISOR;
                let mut next = pos;
                next.do_null_move();
                self.set_ply(ply + 1, next, Move::NONE, 0);
                self.push_key(ply + 1);
                let s = -self.search(ply + 1, depth - 1 - r, -beta, -beta + 1, false, !cut_node);
                self.pop_key();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    let s = if s >= MATE_BOUND { beta } else { s };
                    if depth < NMP_VERIFY_DEPTH {
                        return s;
                    }
                    let v = self.search(ply, depth - 1 - r, beta - 1, beta, false, false);
                    if v >= beta {
                        return s;
                    }
                }
            }
        }

        // Step 8: internal iterative reduction.
        if tt_move.is_none() && depth >= IIR_MIN_DEPTH && (pv_node || cut_node) {
            depth -= 1;
        }

        // Step 9: the move loop.
        let mut moves = legal_moves(&pos);
        if moves.is_empty() {
            // Step 10: no legal move loses, in check or not.
            return -MATE + ply as i32;
        }
        // A mate in one ends the search of this node. Looked for only where the node is new to
        // the table (a searched node has seen its checks) and deep enough for the look to pay;
        // at depth 1 the quiescence search's checks find such mates anyway.
        if !in_check && depth >= MATE1_MIN_DEPTH && tt.is_none() && skip.is_none() {
            if let (Some(m), _) = mate_in_one_of(&pos, moves.as_slice()) {
                let s = MATE - ply as i32 - 1;
                let d = (depth + MATE1_TT_DEPTH_BONUS).min(MAX_PLY as i32 - 1);
                self.tt
                    .store(key, m, score_to_tt(s, ply), 0, d, Bound::Exact);
                if pv_node {
                    self.pv[ply][0] = m;
                    self.pv_len[ply] = 1;
                }
                return s;
            }
        }
        self.order(&pos, &mut moves, tt_move, ply, true);
        let mut best = -INFINITY;
        let mut best_move = Move::NONE;
        let original_alpha = alpha;
        let mut quiets_tried: [Move; 64] = [Move::NONE; 64];
        let mut n_quiets = 0;
        for (i, &m) in moves.iter().enumerate() {
            if m == skip {
                continue;
            }
            let noisy = is_noisy(&pos, m);
            let checks = gives_check(&pos, m);
            if best > -MATE_BOUND && !in_check && !checks && !pv_node {
                if !noisy {
                    // Late move pruning.
                    let lmp_limit = (LMP_BASE + (depth * depth) as usize) >> (!improving as usize);
                    if depth <= LMP_DEPTH_LIMIT && i >= lmp_limit {
                        continue;
                    }
                    // Futility pruning.
                    if depth <= FUTILITY_DEPTH_LIMIT
                        && static_eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha
                    {
                        continue;
                    }
                }
                // Static exchange pruning.
                if depth <= SEE_PRUNING_DEPTH {
                    let threshold = if noisy {
                        -SEE_NOISY_MARGIN * depth
                    } else {
                        -SEE_QUIET_MARGIN * depth * depth
                    };
                    if !see_ge(&pos, m, threshold) {
                        continue;
                    }
                }
            }
            // Singular extension: the table move is the only good one when every other move,
            // searched to half depth, fails below its score by a margin.
            let mut singular = false;
            if m == tt_move
                && ply > 0
                && skip.is_none()
                && depth >= SINGULAR_MIN_DEPTH
                && (ply as i32) < 2 * self.root_depth
            {
                if let Some(e) = tt {
                    let ts = score_from_tt(e.score, ply);
                    if e.depth >= depth - SINGULAR_TT_DEPTH_SLACK
                        && matches!(e.bound, Bound::Lower | Bound::Exact)
                        && ts.abs() < MATE_BOUND
                    {
                        let sbeta = ts - SINGULAR_MARGIN * depth;
                        self.skip_move[ply] = m;
                        let v =
                            self.search(ply, (depth - 1) / 2, sbeta - 1, sbeta, false, cut_node);
                        self.skip_move[ply] = Move::NONE;
                        if self.stopped {
                            return 0;
                        }
                        if v < sbeta {
                            singular = true;
                        } else if sbeta >= beta {
                            return sbeta;
                        }
                    }
                }
            }
            let next = pos.after(m);
            self.set_ply(ply + 1, next, m, history_index(&pos, m));
            self.push_key(ply + 1);
            // One ply more for a singular move or a check that cannot simply be taken.
            let extends = singular
                || (CHECK_EXTENSION
                    && checks
                    && (ply as i32) < 2 * depth + 8
                    && (noisy || Self::lands_safely(&pos, m)));
            let extension = extends as i32;
            let new_depth = depth - 1 + extension;
            let score = if i == 0 {
                -self.search(ply + 1, new_depth, -beta, -alpha, pv_node, false)
            } else {
                // Late move reductions.
                let mut r = 0;
                if depth >= LMR_MIN_DEPTH && i >= LMR_MIN_MOVES && !noisy && !in_check {
                    r = self.lmr[(depth as usize).min(63)][i.min(63)];
                    if pv_node {
                        r -= 1;
                    }
                    if cut_node {
                        r += 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    if checks {
                        r -= 1;
                    }
                    if m == self.killers[ply][0] || m == self.killers[ply][1] {
                        r -= 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.search(ply + 1, new_depth - r, -alpha - 1, -alpha, false, true);
                if s > alpha && r > 0 {
                    s = -self.search(ply + 1, new_depth, -alpha - 1, -alpha, false, !cut_node);
                }
                if s > alpha && s < beta && pv_node {
                    s = -self.search(ply + 1, new_depth, -beta, -alpha, true, false);
                }
                s
            };
            self.pop_key();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    if pv_node {
                        self.pv[ply][0] = m;
                        let child_len = self.pv_len[ply + 1];
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
                        self.pv_len[ply] = child_len + 1;
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
            if !noisy && n_quiets < 64 {
                quiets_tried[n_quiets] = m;
                n_quiets += 1;
            }
        }

        if !skip.is_none() {
            return if best == -INFINITY { alpha } else { best };
        }
        // Step 11: histories, killers, TT.
        if best >= beta && !is_noisy(&pos, best_move) {
            let bonus = history_bonus(depth);
            update_history(&mut self.history, &pos, best_move, bonus);
            for &q in &quiets_tried[..n_quiets] {
                if q != best_move {
                    update_history(&mut self.history, &pos, q, -bonus);
                }
            }
            let (prev, idx) = self.path[ply];
            if ply > 0 && !prev.is_none() {
                self.counter[pos.side_to_move().index()][idx][prev.to().index()] = best_move;
            }
            if self.killers[ply][0] != best_move {
                self.killers[ply][1] = self.killers[ply][0];
                self.killers[ply][0] = best_move;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_eval = if in_check { 0 } else { static_eval };
        self.tt.store(
            key,
            best_move,
            score_to_tt(best, ply),
            stored_eval,
            depth,
            bound,
        );
        best
    }

    /// Whether the man that `m` moves or drops cannot simply be taken for nothing on its
    /// destination: the square is not attacked by the opponent, or we defend it.
    fn lands_safely(pos: &Position, m: Move) -> bool {
        let us = pos.side_to_move();
        let to = m.to();
        let mut occ = pos.occupied() | Bitboard::from(to);
        let mut helpers = pos.pieces(us);
        if !m.is_drop() {
            occ ^= Bitboard::from(m.from());
            helpers ^= Bitboard::from(m.from());
        }
        pos.attackers(!us, to, occ).is_empty() || (pos.attackers(us, to, occ) & helpers).any()
    }

    /// Appends the quiet checking moves and drops that land safely.
    fn add_safe_checks(&self, pos: &Position, moves: &mut MoveList) {
        let mut quiet = MoveList::new();
        movegen::generate(pos, movegen::QUIET | movegen::DROPS, &mut quiet);
        for &m in quiet.iter() {
            if gives_check(pos, m) && Self::lands_safely(pos, m) {
                moves.push(m);
            }
        }
    }

    /// Counts a node, checks the limits now and then, and clears the node's PV; false when
    /// the search must stop.
    #[inline]
    fn enter_node(&mut self, ply: usize) -> bool {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_stop();
        } else if self.nodes & 63 == 0 && self.shared.stop.load(Ordering::Relaxed) {
            // A cheap, more frequent look at `stop` alone: with more threads than cores every
            // thread must notice the end of the search within a short time slice.
            self.stopped = true;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        !self.stopped
    }

    fn qsearch(&mut self, ply: usize, mut alpha: i32, beta: i32, qdepth: i32) -> i32 {
        if !self.enter_node(ply) {
            return 0;
        }
        let pos = self.stack[ply];
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.eval_at(ply) };
        }
        let key = pos.key();
        let tt = self.tt.probe(key);
        if let Some(e) = tt {
            let s = score_from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
                Bound::None => false,
            };
            if usable {
                return s;
            }
        }
        let mut moves = MoveList::new();
        let stand_pat;
        if in_check {
            movegen::generate(&pos, movegen::ALL, &mut moves);
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            stand_pat = -INFINITY;
        } else {
            stand_pat = match tt {
                Some(e) => e.eval,
                None => self.eval_at(ply),
            };
            if stand_pat >= beta {
                return stand_pat;
            }
            if stand_pat > alpha {
                alpha = stand_pat;
            }
            movegen::generate(&pos, NOISY, &mut moves);
            if qdepth > -QS_CHECK_PLIES {
                self.add_safe_checks(&pos, &mut moves);
            }
            // Captures, promotions and checks that lose material in the exchange are skipped.
            moves.retain(|m| see_ge(&pos, m, 0));
        }
        self.order(&pos, &mut moves, Move::NONE, ply.min(MAX_PLY), in_check);
        let mut best = stand_pat;
        for &m in moves.iter() {
            if !in_check {
                let victim = if m.is_drop() {
                    None
                } else {
                    pos.piece_on(m.to())
                };
                let gain = victim.map_or(0, |p| capture_value(p.kind))
                    + if m.is_promotion() { 400 } else { 0 };
                // Delta pruning.
                if stand_pat + gain + DELTA_MARGIN <= alpha {
                    continue;
                }
            }
            self.set_ply(ply + 1, pos.after(m), m, history_index(&pos, m));
            let score = -self.qsearch(ply + 1, -beta, -alpha, qdepth - 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Nodes this searcher (this thread alone) visited in its last search.
    pub fn nodes_searched(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_survive_the_tt_round_trip() {
        for ply in [0usize, 3, 17] {
            for s in [MATE - 5 - ply as i32, -MATE + 9 + ply as i32, 123, -77] {
                assert_eq!(score_from_tt(score_to_tt(s, ply), ply), s);
            }
        }
    }

    fn searcher_at(pos: Position, tt: &Arc<TranspositionTable>) -> Searcher {
        let mut s = Searcher::new(tt.clone(), Arc::new(Shared::default()));
        s.stack[0] = pos;
        s.set_game(&[pos]);
        s
    }

    #[test]
    fn an_interior_mate_in_one_ends_the_node_at_once() {
        // The horse mates next to the king; other moves exist by the dozen.
        let pos = Position::from_sfen("2+B2/4g/2k2/G3B/1KS2 b 2RSPp 1").unwrap();
        let mate = crate::mate::mate_in_one(&pos).unwrap();
        for pv_node in [false, true] {
            let tt = Arc::new(TranspositionTable::new(1));
            let mut s = searcher_at(pos, &tt);
            let score = s.search(0, 4, -INFINITY, INFINITY, pv_node, false);
            assert_eq!(score, MATE - 1);
            assert_eq!(s.nodes, 1, "the node itself only");
            assert_eq!(tt.probe(pos.key()).unwrap().mv, mate);
            if pv_node {
                assert_eq!(&s.pv[0][..s.pv_len[0]], &[mate]);
            }
            // Below the minimum depth the moves are searched, to the same score.
            let tt = Arc::new(TranspositionTable::new(1));
            let mut s = searcher_at(pos, &tt);
            let score = s.search(0, MATE1_MIN_DEPTH - 1, -INFINITY, INFINITY, pv_node, false);
            assert_eq!(score, MATE - 1);
            assert!(s.nodes > 1);
        }
        // No shortcut when the only mate in one is a pawn drop (uchifuzume, not a legal move).
        let pos = Position::from_sfen("4k/p1S2/3G1/5/K4 b P 1").unwrap();
        let b1 = crate::types::Square::new(9);
        assert!(movegen::is_pawn_drop_mate(&pos, b1));
        assert_eq!(crate::mate::mate_in_one(&pos), None);
        let tt = Arc::new(TranspositionTable::new(1));
        let mut s = searcher_at(pos, &tt);
        assert!(s.search(0, 4, -INFINITY, INFINITY, false, false) < MATE - 1);
        assert!(s.nodes > 1);
    }

    #[test]
    fn a_singular_extension_search_leaves_its_move_out() {
        // G*1b is the only move that leaves gote no legal reply (the pawn on 1c guards the
        // gold; gote's pawn rules out a stalemate by G*3b).
        let pos = Position::from_sfen("4k/1p3/4P/5/K4 b G 1").unwrap();
        let mate: Move = crate::mate::mate_in_one(&pos).unwrap();
        assert_eq!(mate.to_string(), "G*1b");
        for pv_node in [false, true] {
            let tt = Arc::new(TranspositionTable::new(1));
            let mut s = searcher_at(pos, &tt);
            assert_eq!(
                s.search(0, 4, -INFINITY, INFINITY, pv_node, false),
                MATE - 1
            );
            // The same node with the mate left out: no mate in one, and no table entry
            // written for the node (its result holds for a subset of the moves only).
            let tt = Arc::new(TranspositionTable::new(1));
            let mut s = searcher_at(pos, &tt);
            s.skip_move[0] = mate;
            let score = s.search(0, 4, -INFINITY, INFINITY, pv_node, false);
            assert!(score < MATE - 1, "{score}");
            assert!(tt.probe(pos.key()).is_none());
        }
    }

    /// `repetition_score` as it was before the game index (issue 15): a scan of the whole
    /// game, the reference the index must agree with exactly.
    fn scanned_repetition_score(
        keys: &[u64],
        checks: &[bool],
        us: Color,
        rule: SennichiteRule,
    ) -> Option<i32> {
        let n = keys.len() - 1;
        if n < 4 {
            return None;
        }
        let mut j = n - 4;
        loop {
            if keys[j] == keys[n] {
                let they_checked = (j + 2..=n).step_by(2).all(|i| checks[i]);
                let we_checked = (j + 1..n).step_by(2).all(|i| checks[i]);
                return Some(match (they_checked, we_checked) {
                    (true, false) => REPETITION_WIN,
                    (false, true) => -REPETITION_WIN,
                    _ => match rule.winner() {
                        None => 0,
                        Some(c) if c == us => REPETITION_WIN,
                        Some(_) => -REPETITION_WIN,
                    },
                });
            }
            if j < 2 {
                return None;
            }
            j -= 2;
        }
    }

    /// A pseudo-random walk of `plies` from `start` among the first few legal moves (a small
    /// world that repeats often), with a null move now and then when `nulls`.
    fn walk(start: Position, plies: usize, seed: &mut u64, nulls: bool) -> Vec<Position> {
        let mut line = vec![start];
        let mut pos = start;
        for _ in 0..plies {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = (*seed >> 33) as usize;
            let moves = legal_moves(&pos);
            if nulls && r.is_multiple_of(5) && !pos.in_check() {
                pos.do_null_move();
            } else if moves.is_empty() {
                break;
            } else {
                pos = pos.after(moves.as_slice()[r % moves.len().min(3)]);
            }
            line.push(pos);
        }
        line
    }

    #[test]
    fn the_game_index_finds_what_the_scan_found() {
        let tt = Arc::new(TranspositionTable::new(1));
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut found = [0usize; 3];
        for sfen in [
            "4k/2R2/5/5/K4 b - 1",
            "4k/1r3/5/3G1/K4 b - 1",
            "4k/5/2B2/5/K4 w - 1",
        ] {
            let start = Position::from_sfen(sfen).unwrap();
            for rule in [SennichiteRule::Draw, SennichiteRule::GoteWins] {
                for _ in 0..20 {
                    // A game, then a search path (with null moves) from its last position.
                    let game_len = (seed >> 40) as usize % 60;
                    let history = walk(start, game_len, &mut seed, false);
                    let root = *history.last().unwrap();
                    let path = walk(root, 40, &mut seed, true);
                    let mut s = searcher_at(root, &tt);
                    s.config.sennichite = rule;
                    s.set_game(&history);
                    let mut keys: Vec<u64> = history.iter().map(|p| p.key()).collect();
                    let mut checks: Vec<bool> = history.iter().map(|p| p.in_check()).collect();
                    for (ply, p) in path.iter().enumerate().skip(1).take(MAX_PLY) {
                        s.stack[ply] = *p;
                        s.push_key(ply);
                        keys.push(p.key());
                        checks.push(p.in_check());
                        let us = p.side_to_move();
                        let want = scanned_repetition_score(&keys, &checks, us, rule);
                        assert_eq!(s.repetition_score(us), want, "{sfen} {history:?} {ply}");
                        found[match want {
                            None => 0,
                            Some(0) => 1,
                            Some(_) => 2,
                        }] += 1;
                    }
                }
            }
        }
        // The walks met repetitions of both kinds, not only fresh positions.
        assert!(found.iter().all(|&n| n > 0), "{found:?}");
    }

    #[test]
    fn a_long_cycle_game_searches_like_a_short_one() {
        // Issue 15: a game of 200,000 plies made every node scan the game. The same cycle
        // played 4 times (every position of it already occurred three times) or 50,000 times
        // gives every node the same repetition verdict, hence the same search.
        let rook = Position::from_sfen("4k/2R2/5/5/K4 b - 1").unwrap();
        let perpetual = ["3b3a", "1a1b", "3a3b", "1b1a"];
        let quiet = ["5e4d", "1a2b", "4d5e", "2b1a"];
        for (start, cycle) in [(rook, perpetual), (Position::startpos(), quiet)] {
            let game = |times: usize| {
                let mut line = vec![start];
                for m in cycle.iter().cycle().take(4 * times) {
                    let last = *line.last().unwrap();
                    let mv = crate::notation::parse_move(&last, m).unwrap();
                    line.push(last.after(mv));
                }
                line
            };
            let limits = Limits {
                depth: Some(6),
                ..Default::default()
            };
            let config = SearchConfig {
                mate_probe: false,
                ..Default::default()
            };
            let search = |history: &[Position]| {
                let tt = Arc::new(TranspositionTable::new(1));
                let mut s = searcher_at(start, &tt);
                let r = s.think(history, &limits, &[], &config);
                (r.best, r.score, r.depth, r.nodes)
            };
            let short = search(&game(4));
            let long = search(&game(50_000));
            assert_eq!(long, short);
        }
    }

    /// Measures nodes per second at depth 14 on the start position and at the end of a
    /// 200,000-ply cycle game (issue 15). Release only: `cargo test --release -- --ignored
    /// long_game_nps --nocapture`.
    #[test]
    #[ignore]
    fn long_game_nps() {
        let cycle = ["5e4d", "1a2b", "4d5e", "2b1a"];
        let mut history = vec![Position::startpos()];
        for m in cycle.iter().cycle().take(200_000) {
            let last = *history.last().unwrap();
            let mv = crate::notation::parse_move(&last, m).unwrap();
            history.push(last.after(mv));
        }
        let limits = Limits {
            depth: Some(14),
            ..Default::default()
        };
        let config = SearchConfig {
            mate_probe: false,
            ..Default::default()
        };
        let nps = |history: &[Position]| {
            let tt = Arc::new(TranspositionTable::new(16));
            let mut s = searcher_at(Position::startpos(), &tt);
            let started = Instant::now();
            let r = s.think(history, &limits, &[], &config);
            let secs = started.elapsed().as_secs_f64();
            (r.nodes, r.nodes as f64 / secs)
        };
        let (short_nodes, short) = nps(&history[..1]);
        let (long_nodes, long) = nps(&history);
        println!("start position: {short_nodes} nodes, {short:.0} nps");
        println!("after 200,000 plies: {long_nodes} nodes, {long:.0} nps");
        // The setup (indexing the game) is in the long figure; before the index it was 70
        // times slower. A loose bound: the machine may be shared.
        assert!(long > short / 4.0, "{long:.0} nps against {short:.0}");
        let started = Instant::now();
        let depth1 = Limits {
            depth: Some(1),
            ..Default::default()
        };
        let tt = Arc::new(TranspositionTable::new(16));
        searcher_at(Position::startpos(), &tt).think(&history, &depth1, &[], &config);
        println!("depth 1 after 200,000 plies: {:?}", started.elapsed());
    }
}
