//! The engine controller: everything between a parsed command and the search. It owns the
//! game, the options, the hash table, the searchers (main and Lazy SMP helpers, kept with
//! their histories from move to move) and the one job that may be running: a search, a mate
//! search, perft or bench, each on its own thread so that the protocol loop keeps answering
//! (`isready`, `stop`, `quit`) while it runs.
//!
//! Each job reports through the [`Sink`] it was started with (so the dialect of its output is
//! fixed when it starts) and ends with exactly one final event (see `crate::event`). The
//! bestmove of a search is decided here, once: the search's choice if it is legal, else the
//! first legal move, else none (the side to move has no legal move).

use crate::bench;
use crate::event::{Event, MateAnswer, Sink};
use crate::game::{Game, GameRules};
use crate::mate::{MateLimits, MateResult, MateSolver};
use crate::movegen;
use crate::nnue::Network;
use crate::options::{self, Apply, EngineOptions, OptionError, OptionId, OptionSpec, OptionValue};
use crate::perft;
use crate::position::Position;
use crate::search::{Limiter, SearchConfig, Searcher, Signals, SEARCH_STACK_BYTES};
use crate::text::sanitize;
use crate::time::Limits;
use crate::tt::TranspositionTable;
use crate::types::Move;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Search time for a `go` that gives no usable limit.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// Deepest perft the engine runs (deeper ones would take days).
pub const MAX_PERFT_DEPTH: u32 = 12;

/// Search threads per hardware thread at most (see [`Engine::search_threads`]).
pub const THREADS_PER_CPU: usize = 8;

/// Hash table of the mate solver (`go mate`), at most this many megabytes.
const MATE_HASH_MAX_MB: usize = 1024;

/// `go mate`: how long to look.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MateLimit {
    Millis(u64),
    Infinite,
}

/// A search request, as a `go` command gives it (in either dialect).
#[derive(Clone, Debug, Default)]
pub struct GoRequest {
    /// Clocks and limits; `limits.start` should be when the command was read.
    pub limits: Limits,
    /// Root moves to consider (legal moves of the current position; empty: all).
    pub searchmoves: Vec<Move>,
    /// `go mate` (USI): run the mate solver instead of the search.
    pub mate: Option<MateLimit>,
}

/// The searchers, lent to a search job and given back when it ends.
struct Pool {
    main: Searcher,
    helpers: Vec<Searcher>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum JobKind {
    Search,
    Mate,
    Perft,
    Bench,
}

struct Job {
    kind: JobKind,
    handle: JoinHandle<Option<Pool>>,
    /// When the job's command was read (the ponder clock counts from here).
    start: Instant,
}

pub struct Engine {
    game: Game,
    options: EngineOptions,
    tt: Arc<TranspositionTable>,
    signals: Arc<Signals>,
    /// `None` while a search job holds the searchers.
    pool: Option<Pool>,
    /// The evaluation network (`EvalFile`, or the embedded one); used while `UseNNUE` is on.
    net: Arc<Network>,
    job: Option<Job>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        let options = EngineOptions::default();
        let tt = Arc::new(TranspositionTable::new(options.hash_mb));
        let signals = Arc::new(Signals::default());
        let main = Searcher::new(tt.clone(), signals.clone());
        Engine {
            game: Game::new(Position::startpos()),
            options,
            tt,
            signals,
            pool: Some(Pool {
                main,
                helpers: Vec::new(),
            }),
            net: crate::nnue::default_net(),
            job: None,
        }
    }

    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Sets the game to search next. A running job keeps its own copy.
    pub fn set_game(&mut self, game: Game) {
        self.game = game;
    }

    /// The rules the options select (for judging the end of the game).
    pub fn rules(&self) -> GameRules {
        GameRules {
            sennichite: self.options.sennichite,
            max_plies: self.options.max_moves_to_draw,
        }
    }

    /// Changes an option by name (either dialect's name or an alias). `Ok(Some(note))` when
    /// the value was taken with a remark for the user (fewer threads than asked). On an error
    /// nothing changes, except for a hash table that could not be had: the engine then keeps
    /// a table of the old size, emptied, and says so in the error.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<Option<String>, OptionError> {
        let spec = options::find(name).ok_or_else(|| OptionError::Unknown(sanitize(name, 40)))?;
        let v = spec.parse(value)?;
        self.apply(spec, v)
    }

    /// The typed setter for in-process callers (the browser board): `value` is checked as a
    /// `setoption` would be, and applied the same way.
    pub fn set(
        &mut self,
        id: OptionId,
        value: impl Into<OptionValue>,
    ) -> Result<Option<String>, OptionError> {
        let spec = options::spec(id);
        let v = value.into();
        spec.check(&v)?;
        self.apply(spec, v)
    }

    fn apply(&mut self, spec: &OptionSpec, v: OptionValue) -> Result<Option<String>, OptionError> {
        log::debug!("setoption {} = {v:?}", spec.usi_name);
        let wrong_type = OptionError::WrongType {
            option: spec.usi_name,
        };
        match spec.apply {
            Apply::Store => {
                if !self.options.store(spec.id, &v) {
                    return Err(wrong_type);
                }
                Ok(None)
            }
            Apply::ResizeHash => match v {
                OptionValue::Int(mb) => self.resize_hash(mb as usize).map(|()| None),
                _ => Err(wrong_type),
            },
            Apply::LoadNet => match v {
                OptionValue::Text(path) => self.load_net(path).map(|()| None),
                _ => Err(wrong_type),
            },
            Apply::ResizeHelpers => {
                if !self.options.store(spec.id, &v) {
                    return Err(wrong_type);
                }
                // Make the helpers now rather than when the next `go` has started its clock.
                self.reap();
                let threads = self.search_threads();
                if let Some(mut pool) = self.pool.take() {
                    self.fit_helpers(&mut pool, threads);
                    self.pool = Some(pool);
                }
                let asked = self.options.threads;
                Ok((threads < asked).then(|| {
                    format!(
                        "Threads {asked}: searching with {threads}, {THREADS_PER_CPU} per \
                         hardware thread of this machine"
                    )
                }))
            }
        }
    }

    /// Gives `pool` the `threads - 1` helpers a search of `threads` threads needs (kept ones
    /// keep their histories).
    fn fit_helpers(&self, pool: &mut Pool, threads: usize) {
        pool.helpers.truncate(threads - 1);
        while pool.helpers.len() + 1 < threads {
            pool.helpers
                .push(Searcher::new(self.tt.clone(), self.signals.clone()));
        }
    }

    /// How many threads a search uses: `Threads`, but at most [`THREADS_PER_CPU`] per hardware
    /// thread of this machine. Far more threads than cores only slow each other down, and
    /// with hundreds per core even the thread that keeps the clock waits too long for a turn.
    pub fn search_threads(&self) -> usize {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.options
            .threads
            .clamp(1, cpus.saturating_mul(THREADS_PER_CPU))
    }

    /// `EvalFile`: an empty name (or `<empty>`) selects the net embedded in the binary; a file
    /// that is not a valid network of this build is refused and the evaluation stays.
    fn load_net(&mut self, path: String) -> Result<(), OptionError> {
        self.reap();
        if self.job.is_some() {
            return Err(OptionError::Busy);
        }
        self.net = if path.is_empty() {
            crate::nnue::default_net()
        } else {
            let net = Network::load(std::path::Path::new(&path))
                .map_err(|e| OptionError::EvalFile(format!("{}: {e}", sanitize(&path, 80))))?;
            log::debug!("EvalFile {path}: network {:016x}", net.hash());
            Arc::new(net)
        };
        self.options.eval_file = path;
        Ok(())
    }

    fn resize_hash(&mut self, mb: usize) -> Result<(), OptionError> {
        self.reap();
        if self.job.is_some() {
            return Err(OptionError::Busy);
        }
        let old_mb = self.options.hash_mb;
        // Free the old table before allocating the new one, so that the two are never held
        // at once: every searcher drops its reference first.
        let placeholder = Arc::new(TranspositionTable::new(1));
        self.install_tt(placeholder);
        match TranspositionTable::try_new(mb) {
            Ok(tt) => {
                self.install_tt(Arc::new(tt));
                self.options.hash_mb = mb;
                log::debug!("hash table resized to {mb} MB");
                Ok(())
            }
            Err(e) => {
                log::warn!("hash table of {mb} MB: {e}");
                let kept = match TranspositionTable::try_new(old_mb) {
                    Ok(tt) => {
                        self.install_tt(Arc::new(tt));
                        old_mb
                    }
                    // The old size was there a moment ago; if even that fails, keep the
                    // placeholder rather than abort.
                    Err(_) => 1,
                };
                self.options.hash_mb = kept;
                Err(OptionError::OutOfMemory {
                    wanted_mb: mb,
                    kept_mb: kept,
                })
            }
        }
    }

    fn install_tt(&mut self, tt: Arc<TranspositionTable>) {
        self.tt = tt.clone();
        if let Some(pool) = self.pool.as_mut() {
            pool.main.set_tt(tt.clone());
            for h in pool.helpers.iter_mut() {
                h.set_tt(tt.clone());
            }
        }
    }

    /// `usinewgame`: ends any job, forgets the hash table and the histories.
    pub fn new_game(&mut self) {
        self.stop();
        self.tt.clear();
        if let Some(pool) = self.pool.as_mut() {
            pool.main.clear();
            for h in pool.helpers.iter_mut() {
                h.clear();
            }
        }
    }

    /// True while a job runs.
    pub fn is_busy(&mut self) -> bool {
        self.reap();
        self.job.is_some()
    }

    /// Collects a job that has ended on its own.
    fn reap(&mut self) {
        if self.job.as_ref().is_some_and(|j| j.handle.is_finished()) {
            self.join();
        }
    }

    fn join(&mut self) {
        if let Some(job) = self.job.take() {
            match job.handle.join() {
                Ok(Some(pool)) => self.pool = Some(pool),
                Ok(None) => {}
                Err(_) => log::error!("a {:?} job panicked", job.kind),
            }
            if self.pool.is_none() {
                self.pool = Some(Pool {
                    main: Searcher::new(self.tt.clone(), self.signals.clone()),
                    helpers: Vec::new(),
                });
            }
        }
    }

    /// Ends the running job, if any: it is asked to stop, still emits its final event (a
    /// stopped search its `bestmove`), and this returns once it has.
    pub fn stop(&mut self) {
        if self.job.is_some() {
            self.signals.request_stop();
            self.join();
        }
    }

    /// Waits for the running job to end on its own.
    pub fn wait(&mut self) {
        self.join();
    }

    /// `ponderhit`: the ponder search goes on as a normal search with its clock starting now.
    /// False (and nothing changes) when no ponder search is running.
    pub fn ponderhit(&mut self) -> bool {
        self.reap();
        match &self.job {
            Some(job)
                if job.kind == JobKind::Search && self.signals.pondering.load(Ordering::SeqCst) =>
            {
                let ms = job.start.elapsed().as_millis() as u64;
                self.signals.ponderhit(ms);
                true
            }
            _ => false,
        }
    }

    /// Starts a search (or, with `request.mate`, a mate search) of the current game. Returns
    /// at once; the job reports through `sink` and ends with one `BestMove` (or `Checkmate`).
    /// A running job is stopped first (its own final event comes before).
    pub fn go(&mut self, mut request: GoRequest, sink: Sink) {
        self.stop();
        let start = *request.limits.start.get_or_insert_with(Instant::now);
        if let Some(limit) = request.mate {
            self.go_mate(limit, start, sink);
            return;
        }
        let root = *self.game.current();
        let config = self.options.search_config();
        let limiter = self.limiter(&mut request.limits, &root, &sink);
        let threads = self.search_threads();
        log::debug!("go: {:?}, {limiter:?}, {threads} thread(s)", request.limits);
        let pool = self.lend_pool(threads, sink.clone());
        self.signals.stop.store(false, Ordering::SeqCst);
        self.signals
            .pondering
            .store(request.limits.ponder, Ordering::SeqCst);
        self.signals.ponderhit_ms.store(0, Ordering::SeqCst);
        let job = SearchJob {
            history: self.game.positions().to_vec(),
            searchmoves: request.searchmoves,
            limiter,
            config,
            signals: self.signals.clone(),
            sink: sink.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || Some(job.run(pool)));
        match spawned {
            Ok(handle) => {
                self.job = Some(Job {
                    kind: JobKind::Search,
                    handle,
                    start,
                })
            }
            Err(e) => {
                sink(Event::Message(format!(
                    "could not start the search thread: {e}"
                )));
                let best = movegen::legal_moves(&root).iter().next().copied();
                sink(Event::BestMove { best, ponder: None });
            }
        }
    }

    /// The limits of a search of `root`, built once. A `go` that names no usable limit for the
    /// side to move gets a search of [`DEFAULT_MOVETIME_MS`] (and says so).
    fn limiter(&self, limits: &mut Limits, root: &Position, sink: &Sink) -> Limiter {
        let (us, overhead) = (root.side_to_move(), self.options.move_overhead);
        let level = self.options.effective_skill_level();
        let limiter = Limiter::new(limits, us, overhead, level);
        if limiter.is_bounded() {
            return limiter;
        }
        let why = if limits.time.iter().any(Option::is_some) || limits.byoyomi > 0 {
            "no usable clock for the side to move"
        } else {
            "go without a usable limit"
        };
        sink(Event::Message(format!(
            "{why}: searching for {DEFAULT_MOVETIME_MS} ms"
        )));
        limits.movetime = Some(DEFAULT_MOVETIME_MS);
        Limiter::new(limits, us, overhead, level)
    }

    /// The searchers for a search of `threads` threads, set to this engine's table and
    /// evaluation, the main one reporting to `sink`.
    fn lend_pool(&mut self, threads: usize, sink: Sink) -> Pool {
        let mut pool = self.pool.take().unwrap_or_else(|| Pool {
            main: Searcher::new(self.tt.clone(), self.signals.clone()),
            helpers: Vec::new(),
        });
        let net = self.options.use_nnue.then(|| self.net.clone());
        self.fit_helpers(&mut pool, threads);
        for s in std::iter::once(&mut pool.main).chain(pool.helpers.iter_mut()) {
            s.set_tt(self.tt.clone());
            s.set_net(net.clone());
        }
        pool.main.set_sink(Some(sink));
        pool
    }

    /// `go mate`: the df-pn solver on a worker thread. The answer is one `Checkmate` event.
    fn go_mate(&mut self, limit: MateLimit, start: Instant, sink: Sink) {
        let history: Vec<Position> = self.game.positions().to_vec();
        self.signals.stop.store(false, Ordering::SeqCst);
        self.signals.pondering.store(false, Ordering::SeqCst);
        let signals = self.signals.clone();
        let overhead = self.options.move_overhead;
        let hash_mb = self.options.hash_mb.clamp(16, MATE_HASH_MAX_MB);
        let job_sink = sink.clone();
        let spawned = std::thread::Builder::new()
            .name("mate".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let limits = MateLimits {
                    deadline: match limit {
                        MateLimit::Millis(ms) => {
                            Some(start + Duration::from_millis(ms.saturating_sub(overhead).max(1)))
                        }
                        MateLimit::Infinite => None,
                    },
                    max_nodes: None,
                };
                let mut solver = MateSolver::new(hash_mb);
                let answer = match solver.solve(&history, &limits, &signals.stop) {
                    MateResult::Mate(moves) => MateAnswer::Mate(moves),
                    MateResult::NoMate => MateAnswer::NoMate,
                    MateResult::Timeout => MateAnswer::Timeout,
                };
                job_sink(Event::Message(format!(
                    "mate search: {} nodes in {} ms",
                    solver.nodes(),
                    start.elapsed().as_millis()
                )));
                job_sink(Event::Checkmate(answer));
                None
            });
        match spawned {
            Ok(handle) => {
                self.job = Some(Job {
                    kind: JobKind::Mate,
                    handle,
                    start,
                })
            }
            Err(e) => {
                sink(Event::Message(format!(
                    "could not start the mate search: {e}"
                )));
                sink(Event::Checkmate(MateAnswer::Timeout));
            }
        }
    }

    /// Perft of the current position on a worker thread: a `PerftMove` event per root move
    /// (sorted by move text), then `PerftDone` (partial when stopped).
    pub fn perft(&mut self, depth: u32, sink: Sink) {
        self.stop();
        if depth > MAX_PERFT_DEPTH {
            sink(Event::Message(format!(
                "perft depth {depth} is more than {MAX_PERFT_DEPTH}"
            )));
            sink(Event::PerftDone {
                nodes: 0,
                complete: false,
            });
            return;
        }
        let root = *self.game.current();
        self.signals.stop.store(false, Ordering::SeqCst);
        let signals = self.signals.clone();
        let job_sink = sink.clone();
        self.spawn_job(JobKind::Perft, sink, move || {
            let (nodes, complete) =
                perft::divide_stoppable(&root, depth, &signals.stop, |mv, nodes| {
                    job_sink(Event::PerftMove { mv, nodes })
                });
            job_sink(Event::PerftDone { nodes, complete });
        });
    }

    /// `bench` on a worker thread (one thread, fresh tables: the result does not depend on
    /// the engine's state).
    pub fn bench(&mut self, depth: Option<i32>, sink: Sink) {
        self.stop();
        self.signals.stop.store(false, Ordering::SeqCst);
        self.signals.pondering.store(false, Ordering::SeqCst);
        let signals = self.signals.clone();
        let job_sink = sink.clone();
        self.spawn_job(JobKind::Bench, sink, move || {
            bench::run(depth, &signals, &|e| job_sink(e));
        });
    }

    fn spawn_job(&mut self, kind: JobKind, sink: Sink, work: impl FnOnce() + Send + 'static) {
        let start = Instant::now();
        let spawned = std::thread::Builder::new()
            .name(format!("{kind:?}").to_lowercase())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                work();
                None
            });
        match spawned {
            Ok(handle) => {
                self.job = Some(Job {
                    kind,
                    handle,
                    start,
                })
            }
            Err(e) => {
                sink(Event::Message(format!("could not start {kind:?}: {e}")));
                sink(match kind {
                    JobKind::Bench => Event::BenchDone {
                        nodes: 0,
                        nps: 0,
                        complete: false,
                    },
                    _ => Event::PerftDone {
                        nodes: 0,
                        complete: false,
                    },
                });
            }
        }
    }
}

/// Everything a search thread needs, moved onto it.
struct SearchJob {
    history: Vec<Position>,
    searchmoves: Vec<Move>,
    limiter: Limiter,
    config: SearchConfig,
    signals: Arc<Signals>,
    sink: Sink,
}

impl SearchJob {
    /// Runs the search with a clock thread that stops it at its hard limit (whatever the
    /// load), emits the one `BestMove` and gives the searchers back.
    fn run(self, mut pool: Pool) -> Pool {
        let start = self.limiter.start;
        let clock = self.limiter.hard_limit().and_then(|hard| {
            let signals = self.signals.clone();
            std::thread::Builder::new()
                .name("clock".into())
                .spawn(move || signals.run_clock(start, hard))
                .ok()
        });
        let result = pool.main.run(
            &mut pool.helpers,
            &self.history,
            &self.limiter,
            &self.searchmoves,
            &self.config,
        );
        if let Some(clock) = clock {
            // The search is over: this also ends the clock.
            self.signals.request_stop();
            let _ = clock.join();
        }
        pool.main.set_sink(None);
        log::debug!(
            "search done after {} ms: depth {}, {} nodes, score {}",
            start.elapsed().as_millis(),
            result.depth,
            result.nodes,
            result.score
        );
        // The search settled the move (legal, or none when there is no legal move).
        (self.sink)(Event::BestMove {
            best: result.best,
            ponder: result.ponder,
        });
        pool
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    fn collecting_sink() -> (Sink, std::sync::mpsc::Receiver<Event>) {
        let (tx, rx) = channel();
        let tx = std::sync::Mutex::new(tx);
        let sink: Sink = Arc::new(move |e| {
            let _ = tx.lock().unwrap().send(e);
        });
        (sink, rx)
    }

    fn final_event(rx: &std::sync::mpsc::Receiver<Event>) -> Event {
        loop {
            let e = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the job ends");
            if e.is_final() {
                return e;
            }
        }
    }

    #[test]
    fn a_depth_search_ends_with_one_legal_bestmove() {
        let mut engine = Engine::new();
        let (sink, rx) = collecting_sink();
        let request = GoRequest {
            limits: Limits {
                depth: Some(3),
                ..Limits::default()
            },
            ..GoRequest::default()
        };
        engine.go(request, sink);
        engine.wait();
        let Event::BestMove { best, .. } = final_event(&rx) else {
            panic!("a search ends with a bestmove");
        };
        assert!(movegen::is_legal(engine.game().current(), best.unwrap()));
        assert!(rx.try_iter().all(|e| !e.is_final()));
    }

    #[test]
    fn no_legal_move_gives_no_bestmove() {
        let mut engine = Engine::new();
        // Sente is checkmated by the gold on 4d, which the silver on 3c protects.
        let game = Game::from_sfen("k4/5/2s2/1g3/K4 b - 1").unwrap();
        let mated = movegen::count_legal(game.current()) == 0;
        assert!(mated);
        engine.set_game(game);
        let (sink, rx) = collecting_sink();
        engine.go(
            GoRequest {
                limits: Limits {
                    depth: Some(2),
                    ..Limits::default()
                },
                ..GoRequest::default()
            },
            sink,
        );
        engine.wait();
        match final_event(&rx) {
            Event::BestMove { best, .. } => assert_eq!(best.is_none(), mated),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn a_failed_hash_allocation_keeps_a_table() {
        let mut engine = Engine::new();
        engine.set_option("Hash", "2").unwrap();
        assert_eq!(engine.options().hash_mb, 2);
        // Far beyond any machine's memory: refused by the allocator, not by the range check.
        let huge = (usize::MAX / (1024 * 1024)) as i64;
        let e = engine.resize_hash(huge as usize).unwrap_err();
        assert_eq!(
            e,
            OptionError::OutOfMemory {
                wanted_mb: huge as usize,
                kept_mb: 2
            }
        );
        assert_eq!(engine.options().hash_mb, 2);
        assert_eq!(engine.tt.size_mb(), 2);
    }

    #[test]
    fn eval_file_loads_a_net_and_refuses_a_bad_file() {
        let dir = std::env::temp_dir().join(format!("gogo-evalfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("zero.nnue");
        Network::zeros().save(&good).unwrap();
        let bad = dir.join("bad.nnue");
        std::fs::write(&bad, b"not a net").unwrap();
        let good = good.to_str().unwrap().to_string();

        let mut engine = Engine::new();
        let zero = Network::zeros().hash();
        assert_eq!(engine.net.hash(), crate::nnue::default_net().hash());
        engine.set_option("EvalFile", &good).unwrap();
        assert_eq!(engine.options().eval_file, good);
        assert_eq!(engine.net.hash(), zero);
        // A bad file is refused and the loaded net stays.
        let e = engine
            .set_option("EvalFile", bad.to_str().unwrap())
            .unwrap_err();
        assert!(matches!(e, OptionError::EvalFile(_)), "{e}");
        assert_eq!(engine.options().eval_file, good);
        assert_eq!(engine.net.hash(), zero);
        // The search runs with the net and answers with a legal move.
        let (sink, rx) = collecting_sink();
        engine.go(
            GoRequest {
                limits: Limits {
                    depth: Some(4),
                    ..Limits::default()
                },
                ..GoRequest::default()
            },
            sink,
        );
        engine.wait();
        let Event::BestMove { best, .. } = final_event(&rx) else {
            panic!("a search ends with a bestmove");
        };
        assert!(movegen::is_legal(engine.game().current(), best.unwrap()));
        // The empty name selects the embedded net again.
        engine.set_option("EvalFile", "<empty>").unwrap();
        assert_eq!(engine.net.hash(), crate::nnue::default_net().hash());
        assert_eq!(engine.options().eval_file, "");
        // UseNNUE off: the handcrafted evaluation.
        engine.set_option("UseNNUE", "false").unwrap();
        assert!(!engine.options().use_nnue);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stop_ends_perft_early() {
        let mut engine = Engine::new();
        let (sink, rx) = collecting_sink();
        engine.perft(9, sink);
        std::thread::sleep(Duration::from_millis(50));
        let t = Instant::now();
        engine.stop();
        assert!(t.elapsed() < Duration::from_secs(5));
        let events: Vec<Event> = rx.try_iter().collect();
        assert_eq!(events.iter().filter(|e| e.is_final()).count(), 1);
        assert!(matches!(
            events.last(),
            Some(Event::PerftDone {
                complete: false,
                ..
            })
        ));
    }
}
