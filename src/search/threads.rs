//! What the threads of a search share and how the helpers run: [`Signals`] (stop, ponder,
//! the node count, the clock thread) and Lazy SMP, where every helper runs the same iterative
//! deepening on its own thread, sharing only the transposition table and the signals.

use super::limit::Limiter;
use super::{SearchConfig, SearchResult, Searcher, SEARCH_STACK_BYTES};
use crate::params::SKILL_FULL;
use crate::position::Position;
use crate::time::Limits;
use crate::types::Move;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The signals shared between the engine controller and the threads of a search.
#[derive(Default)]
pub struct Signals {
    /// Ends the search of every thread. Cleared by the caller before a search (the engine
    /// controller does it in `go`); a search with helper threads sets it itself once the main
    /// thread is done. Set it through [`Signals::request_stop`] so that a waiting search wakes.
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

impl Signals {
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
    pub(super) fn wait_while(&self, keep_waiting: impl Fn() -> bool) {
        let mut guard = self.wake_lock.lock().unwrap_or_else(|e| e.into_inner());
        while keep_waiting() {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Sets `Signals::stop` when dropped.
struct StopOnDrop(Arc<Signals>);

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

    /// [`Searcher::think`] with Lazy SMP helpers (see [`Searcher::run`]).
    pub fn think_with_helpers(
        &mut self,
        helpers: &mut [Searcher],
        history: &[Position],
        limits: &Limits,
        searchmoves: &[Move],
        config: &SearchConfig,
    ) -> SearchResult {
        let us = history
            .last()
            .expect("a game has a position")
            .side_to_move();
        let limiter = Limiter::new(limits, us, config.move_overhead, config.skill_level);
        self.run(helpers, history, &limiter, searchmoves, config)
    }

    /// The search within `limiter`, with Lazy SMP: every searcher in `helpers` runs the same
    /// iterative deepening on its own thread, sharing only the transposition table (which must
    /// be this searcher's) and the signals. Helpers skip depths (see [`helper_skips`]), print
    /// nothing and obey no limit but `Signals::stop`; this (main) searcher reports, keeps the
    /// clock and decides. When it is done it sets `Signals::stop` and waits for the helpers.
    /// The result is the main thread's, with `nodes` counting all threads. Below full skill
    /// the helpers are not used (a weakened search stays single-threaded and reproducible).
    pub fn run(
        &mut self,
        helpers: &mut [Searcher],
        history: &[Position],
        limiter: &Limiter,
        searchmoves: &[Move],
        config: &SearchConfig,
    ) -> SearchResult {
        // Once per search, not per thread: entries age by one generation per move.
        self.tt.new_search();
        self.signals.nodes.store(0, Ordering::SeqCst);
        let helpers: &mut [Searcher] = if config.skill_level < SKILL_FULL {
            &mut []
        } else {
            helpers
        };
        if helpers.is_empty() {
            let result = self.iterate(0, history, limiter, searchmoves, config);
            self.wait_for_stop(limiter);
            return result;
        }
        let helper_limits = limiter.for_helper();
        // The helpers wait at this gate until all are started: otherwise, with more threads
        // than cores, the ones already searching starve the thread that starts the others.
        let gate = (Mutex::new(false), Condvar::new());
        let gate = &gate;
        let helper_limits = &helper_limits;
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
                        helper.iterate(i + 1, history, helper_limits, searchmoves, config);
                    });
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => log::warn!("could not start helper thread {}: {e}", i + 1),
                }
            }
            *gate.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            gate.1.notify_all();
            // Stops the helpers when the main thread is done, even by a panic.
            let stop_helpers = StopOnDrop(self.signals.clone());
            let mut result = self.iterate(0, history, limiter, searchmoves, config);
            self.wait_for_stop(limiter);
            drop(stop_helpers);
            for h in handles {
                if h.join().is_err() {
                    log::error!("a helper search thread panicked");
                }
            }
            result.nodes = self.signals.nodes.load(Ordering::SeqCst);
            result
        })
    }

    /// In infinite or ponder mode the answer waits for `stop` (or `ponderhit`); signalled, not
    /// polled.
    fn wait_for_stop(&self, limiter: &Limiter) {
        if limiter.waits_for_stop() {
            let infinite = limiter.is_infinite();
            self.signals.wait_while(|| {
                !self.signals.stop.load(Ordering::SeqCst)
                    && (infinite || self.signals.pondering.load(Ordering::SeqCst))
            });
        }
    }

    /// Adds the nodes not yet counted to `Signals::nodes`.
    pub(super) fn flush_nodes(&mut self) {
        let new = self.nodes - self.flushed;
        if new > 0 {
            self.signals.nodes.fetch_add(new, Ordering::Relaxed);
            self.flushed = self.nodes;
        }
    }

    /// Nodes of all threads so far (with one thread, exactly `self.nodes`).
    pub(super) fn total_nodes(&self) -> u64 {
        self.signals.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed)
    }

    /// Time counted against the clock: from `ponderhit` when pondering turned into a real search.
    pub(super) fn clock_elapsed(&self) -> Duration {
        let hit = self.signals.ponderhit_ms.load(Ordering::Relaxed);
        self.elapsed().saturating_sub(Duration::from_millis(hit))
    }

    pub(super) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub(super) fn pondering(&self) -> bool {
        self.signals.pondering.load(Ordering::Relaxed)
    }

    /// The stop check at nodes (every 1024): the `stop` signal, then the limiter.
    pub(super) fn check_stop(&mut self) {
        self.flush_nodes();
        if self.signals.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        // All threads' nodes; with one thread this is `self.nodes`, just flushed.
        let all = self.signals.nodes.load(Ordering::Relaxed);
        if self
            .limiter
            .node_stop(all, || self.clock_elapsed(), || self.pondering())
        {
            self.stopped = true;
        }
    }
}
