//! Search limits as a `go` command gives them, and the time plan derived from them.
//!
//! Clock handling (all times in milliseconds, `MoveOverhead` always kept in reserve):
//! - `movetime`: search exactly that long (less the overhead).
//! - byoyomi with no main time left: use the byoyomi period nearly fully; unused byoyomi is
//!   lost anyway.
//! - sudden death / Fischer increment (and byoyomi on top of main time): a share of the
//!   remaining time (`remaining / moves-to-go + the increment`), stretched when the best
//!   move keeps changing and shortened when it is stable, never more than a safe fraction of
//!   the clock.

use crate::params::{TIME_INC_PERCENT, TIME_MOVES_TO_GO};
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

impl Limits {
    /// True when the `go` line gave a clock or a move time.
    pub fn is_timed(&self) -> bool {
        self.movetime.is_some() || self.time.iter().any(|t| t.is_some()) || self.byoyomi > 0
    }
}

/// How long to think: `soft` is checked between iterations (and scaled by stability), `hard`
/// is never exceeded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimePlan {
    pub soft: Duration,
    pub hard: Duration,
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
    let usable = (remaining + byo).saturating_sub(overhead).max(1);
    if remaining <= overhead && byo > 0 {
        // Byoyomi only: spend the period.
        let hard = usable.max(1);
        let soft = hard * 9 / 10;
        return Some(TimePlan {
            soft: Duration::from_millis(soft.max(1)),
            hard: Duration::from_millis(hard),
        });
    }
    let mtg = limits.movestogo.unwrap_or(TIME_MOVES_TO_GO).clamp(1, 40) as u64;
    let base = remaining / mtg + inc * TIME_INC_PERCENT / 100 + byo * 9 / 10;
    let soft = base.min(usable);
    // Never plan to use more than a fraction of the main time in one move (all of the
    // byoyomi period is fine).
    let cap = (remaining.saturating_sub(overhead)) * 2 / 5 + byo.saturating_sub(overhead);
    let hard = (soft * 4).min(cap.max(1)).min(usable).max(soft.min(usable));
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
                assert!(
                    ms(p.hard) <= (remaining + inc).saturating_sub(50).max(1),
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
