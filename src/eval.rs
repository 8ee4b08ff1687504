//! Static evaluation, in centipawn-like units from the side to move's point of view.
//!
//! Terms (each computed for both colours, sente minus gote, then signed for the side to move):
//! - material: a man in hand is worth more than the same man on the board (it can be dropped
//!   anywhere); promoted men have their own values;
//! - piece-square tables from the owner's point of view (rank 0 = the owner's far rank);
//! - mobility of the sliders;
//! - king tropism: men near the enemy king attack, golds and silvers near their own king
//!   defend;
//! - king safety: enemy men attacking the squares around the king, attacked squares nobody
//!   defends, drops that would give check on a safe square, and escape squares.
//!
//! The evaluation is colour-symmetric: a position and its colour-flipped mirror evaluate to
//! the same value for their sides to move (tested).

use crate::attacks::{attacks, king_attacks};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, PieceKind, Square};

/// Every evaluation weight, so that a tuner can adjust them (`weights_mut`). Arrays indexed by
/// piece kind use `PieceKind::index()`; hand arrays the hand kind index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Board values (pawn, silver, bishop, rook, gold, king, tokin, promoted silver, horse,
    /// dragon).
    pub board_value: [i32; 10],
    /// Hand values (pawn, silver, bishop, rook, gold).
    pub hand_value: [i32; 5],
    /// Piece-square bonus by row from the owner's far rank (row 0) to its back rank (row 4)
    /// and by distance from the centre file (0, 1, 2); the board is left-right symmetric.
    pub pst: [[[i32; 3]; 5]; 10],
    pub mobility: [i32; 10],
    /// Bonus by Chebyshev distance (0..4) to the enemy king.
    pub attack_tropism: [[i32; 5]; 10],
    /// Bonus by Chebyshev distance (0..4) to the own king.
    pub defence_tropism: [[i32; 5]; 10],
    /// Penalty for a man attacked by the enemy and defended by nothing, when its side is to
    /// move (it can still be saved) ...
    pub hanging_to_move: [i32; 10],
    /// ... and when the other side is to move (it can be taken now).
    pub hanging_waiting: [i32; 10],
    /// King danger: weight of a man that hits the squares around the enemy king.
    pub zone_attack_weight: [i32; 10],
    pub undefended_zone_attack: i32,
    pub safe_drop_check: i32,
    pub hand_pressure: [i32; 5],
    pub zone_defender: i32,
    pub no_escape: i32,
    /// Danger is turned into a penalty as danger^2 / divisor, capped.
    pub danger_divisor: i32,
    pub danger_cap: i32,
    /// Bonus for the side to move.
    pub tempo: i32,
}

/// Tuned by `examples/tune.rs` (Texel method, then distilled: 30 % game result, 70 % the
/// score of the current Fairy-Stockfish at depth 9) on 78k quiet positions from
/// Fairy-Stockfish self-play, match games and skill-level games, starting from hand-set
/// values.
pub const DEFAULT_WEIGHTS: Weights = Weights {
    board_value: [52, 524, 681, 936, 558, 0, 650, 506, 1084, 1414],
    hand_value: [296, 562, 628, 782, 672],
    pst: [
        // pawn: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [8, 4, 0],
            [-220, 20, -144],
            [248, 148, -84],
            [-22, -34, -80],
            [-88, -58, -98],
        ],
        // silver: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-70, -262, -50],
            [64, -38, -214],
            [161, 35, -187],
            [205, 109, -219],
            [108, -8, -222],
        ],
        // bishop: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [207, 237, 249],
            [253, 219, -39],
            [252, -30, 72],
            [-153, 267, -49],
            [-280, -206, 258],
        ],
        // rook: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [332, 334, 332],
            [240, -76, 92],
            [-265, -127, 51],
            [-162, -158, -218],
            [212, 154, -210],
        ],
        // gold: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [126, -282, -322],
            [224, -22, -312],
            [288, 142, -32],
            [244, 68, -216],
            [44, 30, -184],
        ],
        // king: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [168, 28, -50],
            [-45, 253, -53],
            [-192, -122, -52],
            [-21, -47, -5],
            [-62, -22, -102],
        ],
        // tokin: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-120, 102, -104],
            [-34, 252, 10],
            [-292, 346, 244],
            [22, -32, 10],
            [12, -202, 0],
        ],
        // promoted silver: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [178, 54, -114],
            [200, -48, -304],
            [187, -301, -271],
            [180, -248, -40],
            [12, 6, 0],
        ],
        // horse: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-155, -61, 147],
            [305, -18, 135],
            [-119, 93, -135],
            [0, 142, -80],
            [267, 263, 55],
        ],
        // dragon: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [146, 226, 220],
            [346, 154, -136],
            [-239, 41, 137],
            [20, 26, -246],
            [201, 62, -217],
        ],
    ],
    mobility: [65, 50, 24, 33, 41, 0, 0, 12, 22, -7],
    attack_tropism: [
        [272, -18, 178, 168, 48],
        [304, 108, 232, 26, -78],
        [264, -38, 138, 186, 238],
        [144, 268, 96, 52, 22],
        [92, -85, -30, -19, -28],
        [0, 0, 0, 0, 0],
        [304, 376, 132, 74, -46],
        [300, 109, 4, -33, -16],
        [304, 228, -4, 172, 38],
        [88, 66, 72, 72, 36],
    ],
    defence_tropism: [
        [264, 218, 70, 66, -38],
        [184, 78, 82, 144, 90],
        [-124, 51, -64, -227, -118],
        [100, -77, 0, 65, 120],
        [304, 206, 130, 162, -36],
        [0, 0, 0, 0, 0],
        [280, 4, 162, 326, -256],
        [280, 136, 300, 0, -142],
        [272, 150, 282, 120, -8],
        [272, 178, 232, 258, 22],
    ],
    hanging_to_move: [-160, 12, 158, 232, 150, 0, 124, -106, 0, 256],
    hanging_waiting: [188, -180, 256, 256, -110, 0, 196, 256, 24, 28],
    zone_attack_weight: [11, 12, 15, -3, 27, 0, -28, 20, 29, 13],
    undefended_zone_attack: 14,
    safe_drop_check: 20,
    hand_pressure: [1, 13, 19, 24, 17],
    zone_defender: 2,
    no_escape: 11,
    danger_divisor: 10,
    danger_cap: 1240,
    tempo: 342,
};

impl Weights {
    /// Every tunable weight (all but the danger divisor), in a fixed order.
    pub fn weights_mut(&mut self) -> Vec<&mut i32> {
        let mut v: Vec<&mut i32> = Vec::new();
        v.extend(self.board_value.iter_mut());
        v.extend(self.hand_value.iter_mut());
        v.extend(self.pst.iter_mut().flatten().flatten());
        v.extend(self.mobility.iter_mut());
        v.extend(self.attack_tropism.iter_mut().flatten());
        v.extend(self.defence_tropism.iter_mut().flatten());
        v.extend(self.hanging_to_move.iter_mut());
        v.extend(self.hanging_waiting.iter_mut());
        v.extend(self.zone_attack_weight.iter_mut());
        v.push(&mut self.undefended_zone_attack);
        v.push(&mut self.safe_drop_check);
        v.extend(self.hand_pressure.iter_mut());
        v.push(&mut self.zone_defender);
        v.push(&mut self.no_escape);
        v.push(&mut self.danger_cap);
        v.push(&mut self.tempo);
        v
    }
}

/// The weights the engine plays with.
pub static WEIGHTS: Weights = DEFAULT_WEIGHTS;

/// Value of a man for exchange purposes (move ordering, pruning margins): its board value
/// plus what its capture puts in the captor's hand.
#[inline]
pub fn capture_value(kind: PieceKind) -> i32 {
    match kind {
        // Never captured in a legal game; large so that ordering treats it as precious.
        PieceKind::King => 5000,
        _ => WEIGHTS.board_value[kind.index()] + WEIGHTS.hand_value[kind.unpromote().index()],
    }
}

#[inline]
fn chebyshev(a: Square, b: Square) -> usize {
    let dr = (a.rank() as i32 - b.rank() as i32).unsigned_abs();
    let df = (a.file() as i32 - b.file() as i32).unsigned_abs();
    dr.max(df) as usize
}

/// Row from the owner's far rank: 0 = far rank.
#[inline]
fn owner_row(color: Color, sq: Square) -> usize {
    match color {
        Color::Black => sq.rank() as usize,
        Color::White => 4 - sq.rank() as usize,
    }
}

/// Distance from the centre file: 0, 1 or 2.
#[inline]
fn centre_distance(sq: Square) -> usize {
    (sq.file() as i32 - 3).unsigned_abs() as usize
}

/// Evaluation terms for one colour (positive = good for that colour).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    pub material: i32,
    pub placement: i32,
    pub mobility: i32,
    pub tropism: i32,
    pub king_danger: i32,
    /// Penalty for men left hanging.
    pub threats: i32,
}

impl Terms {
    pub fn total(&self) -> i32 {
        self.material + self.placement + self.mobility + self.tropism
            - self.king_danger
            - self.threats
    }
}

/// Per-colour attack maps used by king safety.
struct AttackInfo {
    /// Squares attacked by each colour (kings included).
    all: [Bitboard; 2],
    /// Squares attacked by each colour without its king.
    no_king: [Bitboard; 2],
    /// Sum of weights of men attacking the enemy king zone, per attacking colour.
    zone_weight: [i32; 2],
}

fn terms(pos: &Position, w: &Weights) -> ([Terms; 2], AttackInfo) {
    let occ = pos.occupied();
    let mut t = [Terms::default(); 2];
    let mut info = AttackInfo {
        all: [Bitboard::EMPTY; 2],
        no_king: [Bitboard::EMPTY; 2],
        zone_weight: [0; 2],
    };
    let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
    let zones = kings.map(|k| k.map_or(Bitboard::EMPTY, king_attacks));
    for color in Color::BOTH {
        let ci = color.index();
        let own_king = kings[ci];
        let enemy_king = kings[1 - ci];
        for sq in pos.pieces(color) {
            let Some(p) = pos.piece_on(sq) else { continue };
            let k = p.kind.index();
            t[ci].material += w.board_value[k];
            t[ci].placement += w.pst[k][owner_row(color, sq)][centre_distance(sq)];
            let att = attacks(color, p.kind, sq, occ);
            info.all[ci] |= att;
            if p.kind != PieceKind::King {
                info.no_king[ci] |= att;
                t[ci].mobility += w.mobility[k] * (att & !pos.pieces(color)).count() as i32;
                if let Some(ek) = enemy_king {
                    t[ci].tropism += w.attack_tropism[k][chebyshev(sq, ek)];
                    if (att & zones[1 - ci]).any() {
                        info.zone_weight[ci] += w.zone_attack_weight[k];
                    }
                }
                if let Some(ok) = own_king {
                    t[ci].tropism += w.defence_tropism[k][chebyshev(sq, ok)];
                }
            }
        }
        let hand = pos.hand(color);
        for kind in PieceKind::HAND {
            t[ci].material += w.hand_value[kind.index()] * hand.count(kind) as i32;
        }
    }
    for color in Color::BOTH {
        let ci = color.index();
        t[ci].king_danger = king_danger(pos, w, color, kings[ci], &info);
        let hanging =
            pos.pieces(color) & !pos.kind_bb(PieceKind::King) & info.all[1 - ci] & !info.all[ci];
        let table = if color == pos.side_to_move() {
            &w.hanging_to_move
        } else {
            &w.hanging_waiting
        };
        for sq in hanging {
            if let Some(p) = pos.piece_on(sq) {
                t[ci].threats += table[p.kind.index()];
            }
        }
    }
    (t, info)
}

/// Danger to `color`'s king (a penalty for `color`).
fn king_danger(
    pos: &Position,
    w: &Weights,
    color: Color,
    king: Option<Square>,
    info: &AttackInfo,
) -> i32 {
    let Some(k) = king else { return 0 };
    let ci = color.index();
    let ei = 1 - ci;
    let them = !color;
    let zone = king_attacks(k);
    let own = pos.pieces(color);
    let occ = pos.occupied();
    let enemy_att = info.all[ei];
    let defended = info.no_king[ci];

    let mut danger = info.zone_weight[ei];
    danger += w.undefended_zone_attack * (zone & enemy_att & !defended).count() as i32;
    danger -= w.zone_defender * (zone & own & !pos.kind_bb(PieceKind::King)).count() as i32;

    // Drops the enemy could make to give check on a square we do not defend.
    let hand = pos.hand(them);
    if !hand.is_empty() {
        let empty = !occ;
        for kind in PieceKind::HAND {
            let n = hand.count(kind);
            if n == 0 {
                continue;
            }
            danger += w.hand_pressure[kind.index()] * n as i32;
            // Squares from which an enemy `kind` attacks `k`: where our `kind` on `k` would attack.
            let checks = attacks(color, kind, k, occ) & empty;
            let safe = checks & !defended;
            if safe.any() {
                danger += w.safe_drop_check;
            }
        }
    }
    let escapes = zone & !own & !enemy_att;
    if escapes.is_empty() {
        danger += w.no_escape;
    }
    if danger <= 0 {
        return 0;
    }
    (danger * danger / w.danger_divisor.max(1)).min(w.danger_cap)
}

/// The evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &WEIGHTS)
}

/// The evaluation with other weights (for tuning).
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    let (t, _) = terms(pos, w);
    let score = t[0].total() - t[1].total();
    let score = match pos.side_to_move() {
        Color::Black => score,
        Color::White => -score,
    };
    score + w.tempo
}

/// The terms for the `eval` command: (name, sente, gote) rows and the final score for sente.
pub fn trace(pos: &Position) -> String {
    let w = &WEIGHTS;
    let (t, _) = terms(pos, w);
    let mut s = String::new();
    s.push_str("term          sente     gote    total\n");
    type Row = (&'static str, fn(&Terms) -> i32);
    let rows: [Row; 6] = [
        ("material", |t| t.material),
        ("placement", |t| t.placement),
        ("mobility", |t| t.mobility),
        ("tropism", |t| t.tropism),
        ("king danger", |t| -t.king_danger),
        ("threats", |t| -t.threats),
    ];
    for (name, f) in rows {
        let (b, w) = (f(&t[0]), f(&t[1]));
        s.push_str(&format!("{name:<12} {b:>6} {w:>8} {:>8}\n", b - w));
    }
    let tempo = match pos.side_to_move() {
        Color::Black => w.tempo,
        Color::White => -w.tempo,
    };
    s.push_str(&format!("{:<12} {:>24}\n", "tempo", tempo));
    let total = t[0].total() - t[1].total() + tempo;
    s.push_str(&format!("{:<12} {:>24}  (sente's view)\n", "total", total));
    s.push_str(&format!(
        "evaluation for the side to move: {}\n",
        evaluate(pos)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_but_for_tempo() {
        let p = Position::startpos();
        assert_eq!(evaluate(&p), WEIGHTS.tempo);
    }

    #[test]
    fn three_golds_are_rejected_before_evaluation() {
        assert!(Position::from_sfen("rbsgk/4p/5/P4/KGSBR b G 1").is_err());
    }
}
