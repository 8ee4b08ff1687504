//! Skill levels (`SkillLevel`, `USI_LimitStrength`): the limits a level puts on the search and
//! the random pick among the candidate lines (see `docs/skill.md`). The search applies the
//! limits; this module only decides them, as pure functions of the level and a seed.

use crate::params::*;

/// What a skill level below `SKILL_FULL` allows (see `docs/skill.md`): the search stops after
/// the iteration at `depth`, or after the first complete iteration that has used `nodes`;
/// `multipv` lines are searched and one of them is picked at random, never one that scores
/// more than `max_loss` below the best, with a probability proportional to
/// `exp(-(best - score) / temperature)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SkillLimits {
    pub depth: i32,
    pub nodes: u64,
    pub multipv: usize,
    pub max_loss: i32,
    pub temperature: i32,
}

impl SkillLimits {
    /// The limits of `level` (values above `SKILL_FULL - 1` give those of `SKILL_FULL - 1`).
    pub fn for_level(level: u8) -> SkillLimits {
        let l = (level as usize).min(SKILL_FULL as usize - 1);
        let weakness = (SKILL_FULL as i32 - 1) - l as i32;
        SkillLimits {
            depth: SKILL_DEPTH[l],
            nodes: SKILL_NODES[l],
            multipv: SKILL_MULTIPV,
            max_loss: SKILL_LOSS_BASE + SKILL_LOSS_PER_LEVEL * weakness,
            temperature: SKILL_TEMPERATURE_BASE + SKILL_TEMPERATURE_PER_LEVEL * weakness,
        }
    }
}

/// The skill level of a USI strength grade: -20 ..= -1 are 20 kyu .. 1 kyu (0 reads as 1
/// kyu), 1 ..= 5 are 1 .. 5 dan; values outside clamp. The 25 grades spread evenly over the
/// levels 0 ..= `SKILL_FULL - 1` (full strength is not a grade).
pub fn strength_to_skill_level(strength: i32) -> u8 {
    let s = strength.clamp(-20, 5);
    let grade = if s <= 0 { 20 + s.min(-1) } else { 19 + s }; // 0 ..= 24
    let top = SKILL_FULL as i32 - 1;
    ((grade * top + 12) / 24) as u8
}

/// SplitMix64: the skill level's random numbers (a pure function of the seed).
pub fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The index of the move played at `level` among root moves scored `scores` (the lines of a
/// MultiPV search, any order): moves more than `max_loss` below the best are never chosen; the
/// others with probability proportional to `exp(-(best - score) / temperature)`, drawn from
/// `seed`. Equal inputs give equal picks.
pub fn skill_pick(scores: &[i32], level: u8, seed: u64) -> usize {
    let Some(&top) = scores.iter().max() else {
        return 0;
    };
    let limits = SkillLimits::for_level(level);
    let weights: Vec<f64> = scores
        .iter()
        .map(|&s| {
            let loss = (top - s) as f64;
            if loss > limits.max_loss as f64 {
                0.0
            } else {
                (-loss / limits.temperature.max(1) as f64).exp()
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    // 53 random bits as a fraction in [0, 1).
    let r = (splitmix64(seed) >> 11) as f64 / (1u64 << 53) as f64 * total;
    let mut acc = 0.0;
    let mut last = 0;
    for (i, &w) in weights.iter().enumerate() {
        if w == 0.0 {
            continue;
        }
        acc += w;
        last = i;
        if r < acc {
            return i;
        }
    }
    last
}
