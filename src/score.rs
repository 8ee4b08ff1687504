//! Search scores and their bounds, at the bottom of the crate so that the search, the events
//! that report its scores and the front ends that print them share one definition.
//!
//! A search value is from the side to move's point of view: `MATE - ply` for mating at `ply`,
//! anything beyond `MATE_BOUND` is a mate score, and repetition outcomes use `REPETITION_WIN`
//! (not a mate score: the game ends by sennichite).

pub const MATE: i32 = 32000;
pub const MATE_BOUND: i32 = MATE - 512;
pub const INFINITY: i32 = 32500;
pub const REPETITION_WIN: i32 = 20000;

/// Whether `s` is a mate score (mating or mated).
#[inline]
pub fn is_mate_score(s: i32) -> bool {
    s.abs() >= MATE_BOUND
}

/// A search score from the side to move's point of view, as it is reported.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_from_search_values() {
        assert_eq!(Score::from_search(MATE - 3), Score::Mate(3));
        assert_eq!(Score::from_search(-MATE + 4), Score::Mate(-4));
        assert_eq!(Score::from_search(12), Score::Cp(12));
        assert_eq!(Score::from_search(-20000), Score::Cp(-20000));
        assert!(is_mate_score(MATE_BOUND) && is_mate_score(-MATE + 1));
        assert!(!is_mate_score(REPETITION_WIN));
    }
}
