//! Every rule that ends a search, in one value built once per `go`: the time plan, the node
//! cap, the depth cap, the skill level's caps and the stability rule. The engine builds it
//! when the command arrives (and gives its hard limit to the clock thread); the search asks it
//! "stop now?" at nodes ([`Limiter::node_stop`]) and after each iteration
//! ([`Limiter::stop_after_iteration`]). `Signals::stop` (the user's `stop`, the clock thread,
//! the main thread ending its helpers) is the one other way a search ends.

use super::MAX_PLY;
use crate::params::SKILL_FULL;
use crate::score::is_mate_score;
use crate::skill::SkillLimits;
use crate::time::{self, drop_scale, effort_scale, Limits, TimePlan};
use crate::types::Color;
use std::time::{Duration, Instant};

/// The deepest iteration a search runs.
pub const MAX_DEPTH: i32 = MAX_PLY as i32 - 1;

/// A proven mate ends a timed search after this depth (deeper ones find no shorter mate).
const MATE_STOP_DEPTH: i32 = 8;

#[derive(Clone, Debug)]
pub struct Limiter {
    /// When the clock started: when the `go` command was read.
    pub start: Instant,
    /// The time plan of a timed search; `None` for an untimed one (`depth`, `nodes`,
    /// `infinite`).
    plan: Option<TimePlan>,
    /// The deepest iteration: the `depth` limit, or the skill level's cap.
    max_depth: i32,
    /// All threads' nodes (`go nodes`).
    nodes: Option<u64>,
    /// The skill level's node budget: no new iteration once this thread has searched as many.
    skill_nodes: Option<u64>,
    /// `go infinite`: the answer waits for `stop`.
    infinite: bool,
    /// `go ponder`: the clock waits for `ponderhit`, the answer for `ponderhit` or `stop`.
    ponder: bool,
    /// Whether the request named any limit (a `go` without one gets a default search).
    bounded: bool,
}

/// What the limiter is told at the end of an iteration.
#[derive(Copy, Clone, Debug)]
pub struct IterationEnd {
    pub depth: i32,
    /// The best line's score.
    pub score: i32,
    /// Nodes of this thread so far.
    pub thread_nodes: u64,
    /// Legal root moves (a single one needs little thought).
    pub root_moves: usize,
    /// The share of this search's nodes spent on the best move.
    pub best_effort: f64,
    /// How far the best score fell since our previous move's search (negative: it rose);
    /// `None` without such a search or with a mate score.
    pub score_drop: Option<i32>,
    /// Time counted against the clock so far.
    pub clock_elapsed: Duration,
    pub pondering: bool,
}

/// When the root mate probe may run after an iteration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProbeWindow {
    /// Not now: no time is left before the hard limit.
    Closed,
    /// With no deadline of its own (an untimed search: its node limit still holds).
    Open,
    /// Until this instant.
    Until(Instant),
}

impl Limiter {
    /// The limits of a search by `us` with `move_overhead` ms in reserve, at `skill_level`.
    pub fn new(limits: &Limits, us: Color, move_overhead: u64, skill_level: u8) -> Limiter {
        let plan = time::plan(limits, us.index(), move_overhead);
        let skill = (skill_level < SKILL_FULL).then(|| SkillLimits::for_level(skill_level));
        let mut max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        if let Some(s) = &skill {
            max_depth = max_depth.min(s.depth);
        }
        Limiter {
            start: limits.start.unwrap_or_else(Instant::now),
            bounded: plan.is_some()
                || limits.depth.is_some()
                || limits.nodes.is_some()
                || limits.infinite,
            plan: if limits.infinite { None } else { plan },
            max_depth,
            nodes: limits.nodes,
            skill_nodes: skill.map(|s| s.nodes),
            infinite: limits.infinite,
            ponder: limits.ponder,
        }
    }

    /// A Lazy SMP helper's limits: the depth alone (helpers stop when the main thread does).
    pub fn for_helper(&self) -> Limiter {
        Limiter {
            plan: None,
            nodes: None,
            skill_nodes: None,
            infinite: false,
            ponder: false,
            ..self.clone()
        }
    }

    /// Whether the request named a limit; a `go` without one must be given a default.
    pub fn is_bounded(&self) -> bool {
        self.bounded
    }

    /// Whether time limits the search (then the root mate probe waits for a promising score,
    /// and a proven mate ends the search early).
    pub fn is_timed(&self) -> bool {
        self.plan.is_some()
    }

    pub fn max_depth(&self) -> i32 {
        self.max_depth
    }

    /// The limit the clock thread enforces, counted from `start` (or from `ponderhit`).
    pub fn hard_limit(&self) -> Option<Duration> {
        self.plan.map(|p| p.hard)
    }

    /// Whether the answer waits for `stop` (or `ponderhit`) even when the search ends sooner.
    pub fn waits_for_stop(&self) -> bool {
        self.infinite || self.ponder
    }

    pub fn is_infinite(&self) -> bool {
        self.infinite
    }

    /// Checked at nodes now and then: the node cap over `all_nodes` (every thread's), and the
    /// hard time limit (which does not run while `pondering`); the clock is read only for a
    /// timed search.
    #[inline]
    pub fn node_stop(
        &self,
        all_nodes: u64,
        clock_elapsed: impl FnOnce() -> Duration,
        pondering: impl FnOnce() -> bool,
    ) -> bool {
        if self.nodes.is_some_and(|n| all_nodes >= n) {
            return true;
        }
        match self.plan {
            Some(plan) => !pondering() && clock_elapsed() >= plan.hard,
            None => false,
        }
    }

    /// Whether to start no new iteration after one that ended as `it` says: the skill level's
    /// node budget, a proven mate in a timed search, and the soft time (stretched while the
    /// best move is unstable: `best_changes` is the decayed count of its changes, halved here
    /// at every timed iteration).
    pub fn stop_after_iteration(&self, it: &IterationEnd, best_changes: &mut f64) -> bool {
        if self.skill_nodes.is_some_and(|n| it.thread_nodes >= n) {
            return true;
        }
        if self.plan.is_some() && is_mate_score(it.score) && it.depth > MATE_STOP_DEPTH {
            return true;
        }
        if let Some(plan) = self.plan {
            if !it.pondering {
                let changes = *best_changes;
                *best_changes *= 0.5;
                let trend = effort_scale(it.depth, it.best_effort) * drop_scale(it.score_drop);
                return plan.should_stop_after_iteration(
                    it.clock_elapsed,
                    changes,
                    it.root_moves,
                    trend,
                );
            }
        }
        false
    }

    /// How long the root mate probe may run when it starts `clock_elapsed` into a timed move:
    /// it checks only its own deadline, so it must end by the hard limit.
    pub fn probe_window(&self, clock_elapsed: Duration, pondering: bool) -> ProbeWindow {
        let Some(plan) = self.plan else {
            return ProbeWindow::Open;
        };
        match plan.mate_probe_budget(clock_elapsed, pondering) {
            None => ProbeWindow::Closed,
            // A budget too large for the clock type means no deadline.
            Some(b) => match Instant::now().checked_add(b) {
                Some(t) => ProbeWindow::Until(t),
                None => ProbeWindow::Open,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(limits: Limits, level: u8) -> Limiter {
        Limiter::new(&limits, Color::Black, 50, level)
    }

    #[test]
    fn limits_become_one_limiter() {
        let untimed = limiter(Limits::default(), SKILL_FULL);
        assert!(!untimed.is_bounded() && !untimed.is_timed());
        assert_eq!(untimed.max_depth(), MAX_DEPTH);
        let depth = limiter(
            Limits {
                depth: Some(500),
                ..Limits::default()
            },
            SKILL_FULL,
        );
        assert!(depth.is_bounded() && !depth.is_timed());
        assert_eq!(depth.max_depth(), MAX_DEPTH);
        let infinite = limiter(
            Limits {
                infinite: true,
                movetime: Some(100),
                ..Limits::default()
            },
            SKILL_FULL,
        );
        assert!(infinite.is_bounded() && !infinite.is_timed() && infinite.waits_for_stop());
        assert_eq!(infinite.hard_limit(), None);
        let movetime = limiter(
            Limits {
                movetime: Some(1000),
                ..Limits::default()
            },
            SKILL_FULL,
        );
        assert_eq!(movetime.hard_limit(), Some(Duration::from_millis(950)));
        // A weak level caps the depth.
        let weak = limiter(Limits::default(), 0);
        assert_eq!(weak.max_depth(), SkillLimits::for_level(0).depth);
    }

    #[test]
    fn node_and_time_stops() {
        let nodes = limiter(
            Limits {
                nodes: Some(1000),
                ..Limits::default()
            },
            SKILL_FULL,
        );
        let at = |ms: u64| move || Duration::from_millis(ms);
        let (pondering, not) = (|| true, || false);
        assert!(!nodes.node_stop(999, at(100_000), not));
        assert!(nodes.node_stop(1000, at(0), not));
        let timed = limiter(
            Limits {
                movetime: Some(1000),
                ..Limits::default()
            },
            SKILL_FULL,
        );
        assert!(!timed.node_stop(u64::MAX - 1, at(900), not));
        assert!(timed.node_stop(0, at(950), not));
        // Pondering: the clock does not run yet.
        assert!(!timed.node_stop(0, at(100_000), pondering));
        // Helpers obey no limit but the depth.
        assert!(!timed.for_helper().node_stop(u64::MAX, at(u64::MAX), not));
    }

    #[test]
    fn iteration_stops() {
        let end = |depth, score, elapsed_ms| IterationEnd {
            depth,
            score,
            thread_nodes: 10,
            root_moves: 20,
            best_effort: 0.5,
            score_drop: None,
            clock_elapsed: Duration::from_millis(elapsed_ms),
            pondering: false,
        };
        let timed = limiter(
            Limits {
                time: [Some(10_000), Some(10_000)],
                ..Limits::default()
            },
            SKILL_FULL,
        );
        let mut changes = 4.0;
        assert!(!timed.stop_after_iteration(&end(5, 0, 1), &mut changes));
        assert_eq!(changes, 2.0, "the count of best-move changes decays");
        assert!(timed.stop_after_iteration(&end(5, 0, 5000), &mut changes));
        // A mate found deep enough ends a timed search; not a shallow one.
        assert!(timed.stop_after_iteration(&end(9, crate::score::MATE - 3, 1), &mut 0.0));
        assert!(!timed.stop_after_iteration(&end(8, crate::score::MATE - 3, 1), &mut 0.0));
        // Untimed: only the depth (and stop) end it.
        let untimed = limiter(Limits::default(), SKILL_FULL);
        let mut changes = 4.0;
        assert!(
            !untimed.stop_after_iteration(&end(60, crate::score::MATE - 3, 1 << 40), &mut changes)
        );
        assert_eq!(changes, 4.0);
        // A weak level's node budget.
        let weak = limiter(Limits::default(), 0);
        let budget = SkillLimits::for_level(0).nodes;
        let mut e = end(1, 0, 0);
        e.thread_nodes = budget;
        assert!(weak.stop_after_iteration(&e, &mut 0.0));
        e.thread_nodes = budget - 1;
        assert!(!weak.stop_after_iteration(&e, &mut 0.0));
    }
}
