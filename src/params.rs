//! Search parameters, gathered in one place. Depths are in plies, margins in evaluation units.
//!
//! The margins, reductions and depth limits listed in [`SEARCH_PARAMS`] are read by the search
//! at run time from a [`SearchParams`] (in `SearchConfig::params`), so that a tuner can play
//! games between two settings in one process; the constants below are their defaults, and a
//! tuned set is applied by editing them (see `docs/tuning.md`). Those of `SEARCH_PARAMS` are
//! the values of SPSA run tune-1, tuned with generation 2 of the net (docs/tuning.md).

/// Aspiration window half-width at the first try; it widens by `ASPIRATION_GROWTH` per fail.
pub const ASPIRATION_WINDOW: i32 = 35;
pub const ASPIRATION_GROWTH: i32 = 2;
/// Aspiration windows start from this depth.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;

/// Reverse futility pruning: at most this depth, margin per ply.
pub const RFP_DEPTH_LIMIT: i32 = 7;
pub const RFP_MARGIN: i32 = 94;

/// Null-move pruning: minimum depth, base reduction, extra reduction per `NMP_DEPTH_DIVISOR`
/// plies, and the depth from which a fail-high is verified by a reduced normal search.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 4;
pub const NMP_DEPTH_DIVISOR: i32 = 3;
pub const NMP_VERIFY_DEPTH: i32 = 10;

// "Improving" (static evaluation above the one two plies earlier): reverse futility pruning
// uses one ply less of margin, late move pruning keeps twice as many moves, late move
// reductions are one ply smaller than when not improving.

/// Futility pruning of quiet moves at shallow depth: eval + base + per-ply margin < alpha.
pub const FUTILITY_DEPTH_LIMIT: i32 = 7;
pub const FUTILITY_BASE: i32 = 79;
pub const FUTILITY_MARGIN: i32 = 96;

/// Late move pruning: at depth d, quiet moves after `LMP_BASE + d * d` are skipped.
pub const LMP_DEPTH_LIMIT: i32 = 6;
pub const LMP_BASE: usize = 5;

/// Late move reductions: from this depth and after this many moves.
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_MIN_MOVES: usize = 3;
/// reduction = LMR_BASE + ln(depth) * ln(moves) / LMR_DIVISOR, in plies (rounded down).
pub const LMR_BASE: f64 = 0.774;
pub const LMR_DIVISOR: f64 = 2.229;

/// Static exchange pruning: up to this depth, a move whose exchange on its destination loses
/// more than `SEE_NOISY_MARGIN * depth` (captures and promotions) or
/// `SEE_QUIET_MARGIN * depth * depth` (other moves and drops) is skipped. Checks are kept.
pub const SEE_PRUNING_DEPTH: i32 = 6;
pub const SEE_NOISY_MARGIN: i32 = 151;
pub const SEE_QUIET_MARGIN: i32 = 47;

/// Singular extension: at this depth or more, when the table holds a lower bound (or exact
/// score) for the hash move searched at most `SINGULAR_TT_DEPTH_SLACK` plies shallower, the
/// other moves are searched to half depth against that score less `SINGULAR_MARGIN` per ply.
/// If they all fail low, the hash move is extended by one ply; if they reach beta anyway, the
/// node is cut (multi-cut).
pub const SINGULAR_MIN_DEPTH: i32 = 6;
pub const SINGULAR_TT_DEPTH_SLACK: i32 = 3;
pub const SINGULAR_MARGIN: i32 = 3;

/// Internal iterative reduction: with no TT move at this depth or more, search one ply less.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Mate in one is looked for at nodes of at least this depth that are new to the table.
pub const MATE1_MIN_DEPTH: i32 = 2;
/// A mate in one is stored in the table as searched this many plies deeper than the node (not
/// deeper still, so that it does not crowd out other entries for the rest of the game).
pub const MATE1_TT_DEPTH_BONUS: i32 = 6;

/// Root mate probe: the df-pn solver runs for at most this many nodes, with a table of
/// `ROOT_MATE_PROBE_TABLE_MB` MiB. An analysis search runs it before its first iteration; a
/// timed search once, after the first iteration that scores at least
/// `ROOT_MATE_PROBE_MIN_SCORE`, for at most 1/`ROOT_MATE_PROBE_TIME_DIVISOR` of the move's
/// planned (soft) time and never past the hard limit.
pub const ROOT_MATE_PROBE_NODES: u64 = 20_000;
pub const ROOT_MATE_PROBE_MIN_SCORE: i32 = 500;
pub const ROOT_MATE_PROBE_TIME_DIVISOR: u32 = 16;
pub const ROOT_MATE_PROBE_TABLE_MB: usize = 4;

/// Time management with a main clock: plan `remaining / TIME_MOVES_TO_GO` (when the GUI sends
/// no `movestogo`) plus `TIME_INC_PERCENT`% of the increment per move.
pub const TIME_MOVES_TO_GO: u32 = 20;
pub const TIME_INC_PERCENT: u64 = 100;
/// After each iteration the search stops once it has used the soft time, scaled: by
/// `1 + TIME_INSTABILITY_PER_CHANGE * changes` where `changes` counts the changes of the best
/// move (halved after every iteration, at most `TIME_INSTABILITY_MAX_CHANGES`), and by
/// `TIME_SINGLE_MOVE_FACTOR` when there is only one legal move. Never beyond the hard limit.
pub const TIME_INSTABILITY_PER_CHANGE: f64 = 0.25;
pub const TIME_INSTABILITY_MAX_CHANGES: f64 = 4.0;
pub const TIME_SINGLE_MOVE_FACTOR: f64 = 0.2;
/// From `TIME_EFFORT_MIN_DEPTH` on, the soft time is also scaled by the best move's share of
/// the nodes and by the score's fall since our previous move ([`crate::time::effort_scale`]
/// and [`crate::time::drop_scale`] say how these constants are used).
pub const TIME_EFFORT_MIN_DEPTH: i32 = 6;
pub const TIME_EFFORT_BASE: f64 = 1.5;
pub const TIME_EFFORT_RANGE: (f64, f64) = (0.6, 1.3);
pub const TIME_DROP_DIVISOR: f64 = 200.0;
pub const TIME_DROP_RANGE: (f64, f64) = (0.8, 1.4);

/// Quiescence delta pruning margin.
pub const DELTA_MARGIN: i32 = 149;

/// History: maximum magnitude (gravity keeps values within it).
pub const HISTORY_MAX: i32 = 16384;

/// Check extension: a check that captures, promotes or lands where the opponent cannot simply
/// take it extends by one ply while the node's ply is below `2 * depth + 8`.
pub const CHECK_EXTENSION: bool = true;

/// Quiescence search also tries safe quiet checks (moves and drops) in its first
/// `QS_CHECK_PLIES` plies.
pub const QS_CHECK_PLIES: i32 = 1;

/// Skill levels (`SkillLevel`, or `USI_LimitStrength` with `USI_Strength`): 0 is the weakest,
/// `SKILL_FULL` the normal search. See `docs/skill.md` for the mapping and its rationale.
pub const SKILL_FULL: u8 = 20;
/// Node budget per level 0 ..= 19: no iteration starts once this many nodes are used. The
/// budgets follow the median cost of iterative deepening to depth 1, 1.5, 2, 2.5, ... (with 4
/// lines, over the bench positions; half depths by geometric interpolation), so that each
/// level searches about half a ply deeper than the one below.
pub const SKILL_NODES: [u64; 20] = [
    1, 180, 310, 520, 800, 1_200, 1_700, 2_400, 3_200, 4_300, 5_900, 8_000, 10_000, 12_700, 16_600,
    22_000, 27_000, 33_000, 41_000, 51_000,
];
/// Deepest iteration per level (a cap for positions where the budget lasts long).
pub const SKILL_DEPTH: [i32; 20] = [
    1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
];
/// Lines searched below full skill; the move played is picked among them.
pub const SKILL_MULTIPV: usize = 4;
/// Largest score loss (evaluation units) a picked move may have against the best line:
/// base + per level below 19.
pub const SKILL_LOSS_BASE: i32 = 60;
pub const SKILL_LOSS_PER_LEVEL: i32 = 30;
/// Softmax temperature of the pick (evaluation units): base + per level below 19.
pub const SKILL_TEMPERATURE_BASE: i32 = 15;
pub const SKILL_TEMPERATURE_PER_LEVEL: i32 = 12;

/// Move ordering (see `movepick.rs`): sort scores by class, highest first. The classes are
/// spaced so that no score of a lower class reaches a higher one: the hash move; captures and
/// promotions that do not lose material (`ORDER_GOOD_NOISY` plus `ORDER_VICTIM_SCALE` times
/// the victim's value and the promotion bonus, less the attacker's kind index); the killers
/// and the counter move around `ORDER_KILLER`; captures and promotions that lose material
/// (`ORDER_BAD_NOISY` plus the same terms); quiet moves and drops by history (within
/// `HISTORY_MAX`).
pub const ORDER_TT_MOVE: i32 = 1 << 30;
pub const ORDER_GOOD_NOISY: i32 = 1 << 24;
pub const ORDER_KILLER: i32 = 1 << 23;
pub const ORDER_BAD_NOISY: i32 = 1 << 20;
pub const ORDER_VICTIM_SCALE: i32 = 16;
/// A promotion counts as a capture of this value (scaled like a victim).
pub const ORDER_PROMOTION_BONUS: i32 = 300;

/// History bonus of a move that caused a cutoff at depth d: `HISTORY_BONUS_SCALE * d * d`,
/// at most `HISTORY_MAX / 4` (the other quiet moves tried get the same as a malus).
pub const HISTORY_BONUS_SCALE: i32 = 8;

/// How a search parameter's type converts to and from the `f64` that tuning works with.
pub trait ParamValue: Copy {
    /// Whether the value is an integer (tuned as a float, rounded to the nearest when used).
    const INTEGER: bool;
    fn to_f64(self) -> f64;
    /// `v`, already within the parameter's bounds, as this type (rounded for integers).
    fn from_f64(v: f64) -> Self;
}

impl ParamValue for i32 {
    const INTEGER: bool = true;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v.round() as i32
    }
}

impl ParamValue for usize {
    const INTEGER: bool = true;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v.round().max(0.0) as usize
    }
}

impl ParamValue for f64 {
    const INTEGER: bool = false;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

/// One entry of [`SEARCH_PARAMS`]: a search parameter read at run time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The name of its constant above (the default), e.g. `RFP_MARGIN`.
    pub name: &'static str,
    /// Its Rust type, as written in the constant (`i32`, `usize`, `f64`).
    pub rust_type: &'static str,
    pub integer: bool,
    pub default: f64,
    /// The bounds any value is clamped to (wide, but safe for the search).
    pub min: f64,
    pub max: f64,
    /// The perturbation an SPSA tuning uses at its end, by default (see `docs/tuning.md`).
    pub c_end: f64,
}

/// Declares the runtime search parameters once: the fields of [`SearchParams`] (whose
/// `Default` is the constants above), and the table [`SEARCH_PARAMS`] with each one's name,
/// bounds and SPSA perturbation, which the tuner, the tests and the docs read.
macro_rules! search_params {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident: $ty:ty = $konst:ident, $min:literal ..= $max:literal, c_end $c_end:literal;
    )*) => {
        /// The search parameters the search reads at run time (through
        /// `SearchConfig::params`); `Default` is the constants of this module, so that an
        /// engine that never changes them searches exactly as those constants say.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct SearchParams {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl Default for SearchParams {
            fn default() -> Self {
                SearchParams { $( $field: $konst, )* }
            }
        }

        /// Every runtime search parameter, in the order of [`SearchParams`]' fields.
        pub const SEARCH_PARAMS: &[ParamSpec] = &[$(
            ParamSpec {
                name: stringify!($konst),
                rust_type: stringify!($ty),
                integer: <$ty as ParamValue>::INTEGER,
                default: $konst as f64,
                min: $min as f64,
                max: $max as f64,
                c_end: $c_end as f64,
            },
        )*];

        impl SearchParams {
            /// The value of the parameter named `name` (its constant's name), if there is one.
            pub fn get(&self, name: &str) -> Option<f64> {
                match name {
                    $( stringify!($konst) => Some(ParamValue::to_f64(self.$field)), )*
                    _ => None,
                }
            }

            /// Sets the parameter named `name` to `value` clamped to its bounds (and rounded to
            /// the nearest integer for an integer parameter); returns the value it now has.
            pub fn set(&mut self, name: &str, value: f64) -> Result<f64, String> {
                let spec = param_spec(name)
                    .ok_or_else(|| format!("no search parameter is called '{name}'"))?;
                if value.is_nan() {
                    return Err(format!("{name}: not a number"));
                }
                let v = value.clamp(spec.min, spec.max);
                match name {
                    $( stringify!($konst) => self.$field = <$ty as ParamValue>::from_f64(v), )*
                    _ => unreachable!("param_spec knows the name"),
                }
                Ok(self.get(name).expect("a known name"))
            }
        }
    };
}

search_params! {
    aspiration_window: i32 = ASPIRATION_WINDOW, 5..=200, c_end 4;
    rfp_depth_limit: i32 = RFP_DEPTH_LIMIT, 1..=15, c_end 1;
    rfp_margin: i32 = RFP_MARGIN, 20..=300, c_end 8;
    nmp_min_depth: i32 = NMP_MIN_DEPTH, 1..=8, c_end 1;
    nmp_base_reduction: i32 = NMP_BASE_REDUCTION, 1..=8, c_end 1;
    /// At least 1 (a divisor).
    nmp_depth_divisor: i32 = NMP_DEPTH_DIVISOR, 1..=12, c_end 1;
    futility_depth_limit: i32 = FUTILITY_DEPTH_LIMIT, 1..=15, c_end 1;
    futility_base: i32 = FUTILITY_BASE, 0..=400, c_end 8;
    futility_margin: i32 = FUTILITY_MARGIN, 20..=400, c_end 8;
    lmp_depth_limit: i32 = LMP_DEPTH_LIMIT, 1..=15, c_end 1;
    lmp_base: usize = LMP_BASE, 0..=20, c_end 1;
    lmr_base: f64 = LMR_BASE, -1.0..=2.5, c_end 0.08;
    /// At least 1 (a divisor).
    lmr_divisor: f64 = LMR_DIVISOR, 1.0..=5.0, c_end 0.15;
    see_pruning_depth: i32 = SEE_PRUNING_DEPTH, 1..=15, c_end 1;
    see_noisy_margin: i32 = SEE_NOISY_MARGIN, 0..=500, c_end 12;
    see_quiet_margin: i32 = SEE_QUIET_MARGIN, 0..=200, c_end 4;
    singular_min_depth: i32 = SINGULAR_MIN_DEPTH, 4..=15, c_end 1;
    singular_margin: i32 = SINGULAR_MARGIN, 0..=10, c_end 1;
    delta_margin: i32 = DELTA_MARGIN, 0..=600, c_end 12;
    history_bonus_scale: i32 = HISTORY_BONUS_SCALE, 1..=64, c_end 1;
}

/// The entry of [`SEARCH_PARAMS`] named `name`.
pub fn param_spec(name: &str) -> Option<&'static ParamSpec> {
    SEARCH_PARAMS.iter().find(|p| p.name == name)
}

/// The late-move reduction table of `p`: `[depth][move number]`, see `LMR_BASE`.
pub fn lmr_table(p: &SearchParams) -> Box<[[i32; 64]; 64]> {
    let mut lmr = Box::new([[0i32; 64]; 64]);
    for (d, row) in lmr.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (p.lmr_base + (d as f64).ln() * (m as f64).ln() / p.lmr_divisor) as i32;
        }
    }
    lmr
}
