//! Search limits as a `go` command gives them, and the time plan derived from them.
//!
//! Clock handling (all times in milliseconds, `MoveOverhead` always kept in reserve):
//! - `movetime`: search exactly that long (less the overhead).
//! - byoyomi with no main time left: use the byoyomi period nearly fully; unused byoyomi is
//!   lost anyway.
//! - sudden death / Fischer increment (and byoyomi on top of main time): a share of the
//!   remaining time (`remaining / moves-to-go + the increment`), stretched when the best
//!   move keeps changing, when it shares the search with close rivals or when the score
//!   falls, shortened when it is stable or clear, never more than 2/5 of the main
//!   time after the overhead (plus the byoyomi period), whatever the increment: the rest is
//!   the reserve for a move that overruns its hard limit.
//!
//! The stopping rule between iterations ([`TimePlan::should_stop_after_iteration`]) is here
//! too, so that every decision about time is in one file. The numbers come from the GUI:
//! every operation on them saturates (a clock of `u64::MAX` ms means "plenty", not a wrap to
//! a few milliseconds).

use crate::params::{
    ROOT_MATE_PROBE_TIME_DIVISOR, TIME_DROP_DIVISOR, TIME_DROP_RANGE, TIME_EFFORT_BASE,
    TIME_EFFORT_MIN_DEPTH, TIME_EFFORT_RANGE, TIME_INC_PERCENT, TIME_INSTABILITY_MAX_CHANGES,
    TIME_INSTABILITY_PER_CHANGE, TIME_MOVES_TO_GO, TIME_SINGLE_MOVE_FACTOR,
};
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Remaining main time per colour (index 0 = sente), if given.
    pub time: [Option<u64>; 2],
    pub inc: [u64; 2],
    pub byoyomi: u64,
    pub movestogo: Option<u32>,
    pub movetime: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// When the `go` command was read: the clock runs from then (`None`: from the search's
    /// start).
    pub start: Option<Instant>,
}

/// How long to think: `soft` is checked between iterations (and scaled by stability), `hard`
/// is never exceeded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimePlan {
    pub soft: Duration,
    pub hard: Duration,
}

impl TimePlan {
    /// Whether the search should start no new iteration after one that ended `elapsed` into
    /// the move (clock time), with `best_changes` the decayed count of best-move changes,
    /// `root_moves` legal moves and `trend` the scale of [`effort_scale`] and [`drop_scale`]:
    /// an unstable best move gets more of the soft time, a single legal move much less, and
    /// the hard limit always holds.
    pub fn should_stop_after_iteration(
        &self,
        elapsed: Duration,
        best_changes: f64,
        root_moves: usize,
        trend: f64,
    ) -> bool {
        let instability =
            1.0 + best_changes.min(TIME_INSTABILITY_MAX_CHANGES) * TIME_INSTABILITY_PER_CHANGE;
        let single = if root_moves == 1 {
            TIME_SINGLE_MOVE_FACTOR
        } else {
            1.0
        };
        let soft = self.soft.as_secs_f64() * instability * single * trend;
        elapsed.as_secs_f64() >= soft.min(self.hard.as_secs_f64())
    }

    /// How long the root mate probe may run when it starts `elapsed` (clock time) into the
    /// move: its share of the soft time, but never past the hard limit (the probe checks no
    /// clock but its own deadline); `None` when no time is left. While `pondering` the
    /// limits do not run yet, and the share alone applies.
    pub fn mate_probe_budget(&self, elapsed: Duration, pondering: bool) -> Option<Duration> {
        let share = self.soft / ROOT_MATE_PROBE_TIME_DIVISOR;
        let budget = if pondering {
            share
        } else {
            share.min(self.hard.checked_sub(elapsed)?)
        };
        (!budget.is_zero()).then_some(budget)
    }
}

/// The soft time's scale by the share of the search's nodes spent on the best move, from
/// `TIME_EFFORT_MIN_DEPTH` on: `TIME_EFFORT_BASE - share` within `TIME_EFFORT_RANGE`. A
/// move that took nearly all the effort is clear and stops sooner; one among close rivals
/// searches longer.
pub fn effort_scale(depth: i32, best_effort: f64) -> f64 {
    if depth < TIME_EFFORT_MIN_DEPTH || !best_effort.is_finite() {
        return 1.0;
    }
    let (lo, hi) = TIME_EFFORT_RANGE;
    (TIME_EFFORT_BASE - best_effort).clamp(lo, hi)
}

/// The soft time's scale by how far the score fell since our previous move's search
/// (`1 + drop / TIME_DROP_DIVISOR` within `TIME_DROP_RANGE`): a falling score gets more
/// time, a rising one less; 1 without a previous search.
pub fn drop_scale(score_drop: Option<i32>) -> f64 {
    let (lo, hi) = TIME_DROP_RANGE;
    score_drop.map_or(1.0, |d| (1.0 + d as f64 / TIME_DROP_DIVISOR).clamp(lo, hi))
}

/// `a * num / den`, rounded down, without overflow (saturating at `u64::MAX`); the same as
/// the plain expression whenever that does not overflow.
fn mul_div(a: u64, num: u64, den: u64) -> u64 {
    let r = a as u128 * num as u128 / den.max(1) as u128;
    r.min(u64::MAX as u128) as u64
}

/// The plan for `us` (0 = sente) given the limits and the reserve `overhead` (ms), or `None`
/// for an untimed search.
pub fn plan(limits: &Limits, us: usize, overhead: u64) -> Option<TimePlan> {
    if let Some(mt) = limits.movetime {
        let t = Duration::from_millis(mt.saturating_sub(overhead).max(1));
        return Some(TimePlan { soft: t, hard: t });
    }
    let byo = limits.byoyomi;
    let inc = limits.inc[us];
    let remaining = limits.time[us].or(if byo > 0 { Some(0) } else { None })?;
    // What can be spent this move without losing on time.
    let usable = remaining
        .saturating_add(byo)
        .saturating_sub(overhead)
        .max(1);
    if remaining <= overhead && byo > 0 {
        // Byoyomi only: spend the period.
        let hard = usable.max(1);
        let soft = mul_div(hard, 9, 10);
        return Some(TimePlan {
            soft: Duration::from_millis(soft.max(1)),
            hard: Duration::from_millis(hard),
        });
    }
    let mtg = limits.movestogo.unwrap_or(TIME_MOVES_TO_GO).clamp(1, 40) as u64;
    let base = (remaining / mtg)
        .saturating_add(mul_div(inc, TIME_INC_PERCENT, 100))
        .saturating_add(mul_div(byo, 9, 10));
    // Never plan to use more than a fraction of the main time in one move (all of the
    // byoyomi period is fine), whatever the increment: the increment arrives only after the
    // move, so with a low clock a plan of the whole increment would be the whole clock. The
    // rest of the main time is the reserve for a move that runs past its hard limit.
    let cap = mul_div(remaining.saturating_sub(overhead), 2, 5)
        .saturating_add(byo.saturating_sub(overhead))
        .max(1)
        .min(usable);
    let soft = base.min(cap);
    let hard = soft.saturating_mul(4).min(cap);
    Some(TimePlan {
        soft: Duration::from_millis(soft.max(1)),
        hard: Duration::from_millis(hard.max(1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> u64 {
        d.as_millis() as u64
    }

    #[test]
    fn movetime_is_exact_less_overhead() {
        let l = Limits {
            movetime: Some(1000),
            ..Default::default()
        };
        let p = plan(&l, 0, 30).unwrap();
        assert_eq!((ms(p.soft), ms(p.hard)), (970, 970));
    }

    #[test]
    fn byoyomi_only_uses_the_period() {
        let l = Limits {
            time: [Some(0), Some(0)],
            byoyomi: 1000,
            ..Default::default()
        };
        let p = plan(&l, 1, 50).unwrap();
        assert_eq!(ms(p.hard), 950);
        assert!(ms(p.soft) >= 800);
    }

    #[test]
    fn sudden_death_never_exceeds_the_clock() {
        for remaining in [1u64, 10, 50, 100, 500, 1000, 60_000] {
            for inc in [0u64, 100, 1000] {
                let l = Limits {
                    time: [Some(remaining), Some(remaining)],
                    inc: [inc, inc],
                    ..Default::default()
                };
                let p = plan(&l, 0, 50).unwrap();
                assert!(ms(p.soft) <= ms(p.hard));
                // At most 2/5 of the clock after the overhead, however large the increment
                // (which comes only after the move).
                assert!(
                    ms(p.hard) <= (remaining.saturating_sub(50) * 2 / 5).max(1),
                    "{remaining}+{inc}: {p:?}"
                );
            }
        }
    }

    #[test]
    fn fischer_games_spend_the_bank_and_never_flag() {
        // 1 s + 0.1 s: a player who always thinks for the planned (soft) time, or for the hard
        // limit on every fifth move, keeps a positive clock and spends most of the starting
        // bank over 40 moves instead of hoarding it.
        for hard_every in [0usize, 5] {
            let mut clock = 1000u64;
            for n in 1..=80 {
                let l = Limits {
                    time: [Some(clock), Some(clock)],
                    inc: [100, 100],
                    ..Default::default()
                };
                let p = plan(&l, 0, 50).unwrap();
                let used = if hard_every > 0 && n % hard_every == 0 {
                    ms(p.hard)
                } else {
                    ms(p.soft)
                };
                assert!(used + 50 <= clock.max(50), "move {n}: {used} of {clock}");
                clock = clock - used + 100;
                if n == 40 {
                    assert!(clock < 500, "hoarding: {clock} ms left after 40 moves");
                }
            }
        }
    }

    #[test]
    fn a_move_that_overruns_its_hard_limit_does_not_flag() {
        // Issue 16: at 1 s + 0.1 s a move used its whole allowance. The plan spent up to
        // `remaining - overhead` whenever the increment share exceeded the clock: the clock
        // settled at 150 ms with every move planned to 100 ms (hard = soft = usable), so a
        // move that ran past its hard limit by the overhead (a late stop check, the root mate
        // probe, a loaded machine, the GUI's lag) left 0 ms. Here every move runs to its hard
        // limit plus the whole overhead, and the clock must stay clear of zero. (With an
        // increment below the overrun nothing can absorb overruns for ever; not tested.)
        for (start, inc) in [
            (1000u64, 100u64),
            (10_000, 100),
            (300, 1000),
            (60_000, 2000),
        ] {
            let mut clock = start;
            let mut least = u64::MAX;
            for n in 1..=200 {
                let l = Limits {
                    time: [Some(clock), Some(clock)],
                    inc: [inc, inc],
                    ..Default::default()
                };
                let p = plan(&l, 0, 50).unwrap();
                let used = ms(p.hard) + 50;
                assert!(
                    used < clock,
                    "{start}+{inc}, move {n}: {used} of {clock} ms"
                );
                least = least.min(clock - used);
                clock = clock - used + inc;
            }
            // Even then a reserve is left, not a sliver.
            assert!(least >= 50, "{start}+{inc}: least slack {least} ms");
        }
    }

    #[test]
    fn the_mate_probe_stays_inside_the_hard_limit() {
        let p = TimePlan {
            soft: Duration::from_millis(160),
            hard: Duration::from_millis(400),
        };
        let at = Duration::from_millis;
        assert_eq!(p.mate_probe_budget(at(0), false), Some(at(10)));
        assert_eq!(p.mate_probe_budget(at(395), false), Some(at(5)));
        assert_eq!(p.mate_probe_budget(at(400), false), None);
        assert_eq!(p.mate_probe_budget(at(450), false), None);
        // Pondering: the clock has not started, the share applies.
        assert_eq!(p.mate_probe_budget(at(450), true), Some(at(10)));
        // For every plan and every start, the probe ends by the hard limit.
        for clock in (0..3000).step_by(7) {
            let l = Limits {
                time: [Some(clock), Some(clock)],
                inc: [100, 100],
                ..Default::default()
            };
            let p = plan(&l, 0, 50).unwrap();
            for e in (0..ms(p.hard) + 5).step_by(3) {
                if let Some(b) = p.mate_probe_budget(at(e), false) {
                    assert!(at(e) + b <= p.hard, "{p:?} at {e} ms: {b:?}");
                }
            }
        }
    }

    #[test]
    fn huge_clocks_saturate_instead_of_wrapping() {
        // `go btime 18446744073709551615 ... byoyomi 1000` once wrapped `remaining + byo` to
        // 999 ms. Every branch, with u64::MAX in every number it reads, must plan at least a
        // day (and not panic).
        const DAY: u64 = 86_400_000;
        let max = u64::MAX;
        let cases = [
            (
                "movetime",
                Limits {
                    movetime: Some(max),
                    time: [Some(max), Some(max)],
                    byoyomi: max,
                    ..Default::default()
                },
            ),
            (
                "byoyomi only",
                Limits {
                    time: [Some(0), Some(0)],
                    byoyomi: max,
                    ..Default::default()
                },
            ),
            (
                "byoyomi on main time",
                Limits {
                    time: [Some(max), Some(max)],
                    byoyomi: 1000,
                    ..Default::default()
                },
            ),
            (
                "byoyomi and main time both huge",
                Limits {
                    time: [Some(max), Some(max)],
                    byoyomi: max,
                    ..Default::default()
                },
            ),
            (
                "Fischer",
                Limits {
                    time: [Some(max), Some(max)],
                    inc: [max, max],
                    ..Default::default()
                },
            ),
            (
                "Fischer, huge increment only",
                Limits {
                    time: [Some(1000), Some(1000)],
                    inc: [max, max],
                    ..Default::default()
                },
            ),
            (
                "sudden death",
                Limits {
                    time: [Some(max), Some(max)],
                    ..Default::default()
                },
            ),
            (
                "movestogo",
                Limits {
                    time: [Some(max), Some(max)],
                    inc: [max, max],
                    movestogo: Some(1),
                    ..Default::default()
                },
            ),
        ];
        for (name, l) in cases {
            for overhead in [0, 50, max] {
                let p = plan(&l, 0, overhead).unwrap();
                assert!(p.soft <= p.hard, "{name}: {p:?}");
                if overhead == max {
                    // Nothing usable: the least possible plan, not a wrapped one.
                    assert!(ms(p.hard) >= 1, "{name}: {p:?}");
                } else if name == "Fischer, huge increment only" {
                    // The increment comes after the move: the clock still bounds it.
                    assert!(ms(p.hard) <= 1000 - overhead.min(999), "{name}: {p:?}");
                } else {
                    assert!(ms(p.hard) >= DAY, "{name}, overhead {overhead}: {p:?}");
                    assert!(ms(p.soft) >= DAY / 40, "{name}, overhead {overhead}: {p:?}");
                    // The stopping rule copes with such plans too.
                    assert!(!p.should_stop_after_iteration(Duration::from_secs(1), 4.0, 1, 1.0));
                }
            }
        }
    }

    #[test]
    fn the_soft_rule_scales_by_instability_and_single_moves() {
        let p = TimePlan {
            soft: Duration::from_millis(100),
            hard: Duration::from_millis(400),
        };
        let at = Duration::from_millis;
        // (One millisecond either side of each threshold: the rule computes in floating point.)
        // Stable best move: stop at the soft time.
        assert!(!p.should_stop_after_iteration(at(99), 0.0, 30, 1.0));
        assert!(p.should_stop_after_iteration(at(101), 0.0, 30, 1.0));
        // Two changes: 1.5 times the soft time.
        assert!(!p.should_stop_after_iteration(at(149), 2.0, 30, 1.0));
        assert!(p.should_stop_after_iteration(at(151), 2.0, 30, 1.0));
        // At most twice the soft time however often it changed.
        assert!(!p.should_stop_after_iteration(at(199), 100.0, 30, 1.0));
        assert!(p.should_stop_after_iteration(at(201), 100.0, 30, 1.0));
        // A single legal move: a fifth.
        assert!(!p.should_stop_after_iteration(at(19), 0.0, 1, 1.0));
        assert!(p.should_stop_after_iteration(at(21), 0.0, 1, 1.0));
        // Never past the hard limit.
        let tight = TimePlan {
            soft: Duration::from_millis(300),
            hard: Duration::from_millis(350),
        };
        assert!(tight.should_stop_after_iteration(at(350), 4.0, 30, 1.0));
        assert!(!tight.should_stop_after_iteration(at(349), 4.0, 30, 1.0));
    }

    #[test]
    fn the_soft_rule_scales_by_effort_and_by_the_score_trend() {
        // The effort: only from TIME_EFFORT_MIN_DEPTH on, within its range.
        assert_eq!(effort_scale(TIME_EFFORT_MIN_DEPTH - 1, 0.99), 1.0);
        let (lo, hi) = TIME_EFFORT_RANGE;
        assert_eq!(
            effort_scale(TIME_EFFORT_MIN_DEPTH, 1.0),
            lo.max(TIME_EFFORT_BASE - 1.0)
        );
        assert_eq!(effort_scale(20, 0.0), hi.min(TIME_EFFORT_BASE));
        assert!(effort_scale(10, 0.9) < effort_scale(10, 0.6));
        assert!(effort_scale(10, 0.6) < effort_scale(10, 0.3));
        assert_eq!(effort_scale(10, f64::NAN), 1.0);
        // The trend: 1 without a previous search; more time when the score falls.
        let (lo, hi) = TIME_DROP_RANGE;
        assert_eq!(drop_scale(None), 1.0);
        assert_eq!(drop_scale(Some(0)), 1.0);
        assert!(drop_scale(Some(40)) > 1.0 && drop_scale(Some(40)) < drop_scale(Some(80)));
        assert!(drop_scale(Some(-40)) < 1.0);
        assert_eq!(drop_scale(Some(100_000)), hi);
        assert_eq!(drop_scale(Some(-100_000)), lo);
        // The scale multiplies the soft time, and the hard limit still holds.
        let p = TimePlan {
            soft: Duration::from_millis(100),
            hard: Duration::from_millis(130),
        };
        let at = Duration::from_millis;
        assert!(!p.should_stop_after_iteration(at(59), 0.0, 30, 0.6));
        assert!(p.should_stop_after_iteration(at(61), 0.0, 30, 0.6));
        assert!(!p.should_stop_after_iteration(at(119), 0.0, 30, 1.2));
        assert!(p.should_stop_after_iteration(at(121), 0.0, 30, 1.2));
        assert!(p.should_stop_after_iteration(at(131), 0.0, 30, 1.4));
    }

    #[test]
    fn untimed_has_no_plan() {
        assert!(plan(
            &Limits {
                depth: Some(5),
                ..Default::default()
            },
            0,
            50
        )
        .is_none());
    }
}
