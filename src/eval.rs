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

/// Tuned by `examples/tune.rs` (Texel method) on Fairy-Stockfish self-play games and match
/// games, starting from hand-set values.
pub const DEFAULT_WEIGHTS: Weights = Weights {
    board_value: [54, 508, 663, 936, 554, 0, 698, 540, 1076, 1386],
    hand_value: [292, 580, 612, 780, 664],
    pst: [
        // pawn: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [8, 4, 0],
            [-230, -16, -108],
            [296, 196, -54],
            [-68, -70, -128],
            [-136, -46, -146],
        ],
        // silver: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-32, -256, -2],
            [88, -58, -242],
            [205, -13, -235],
            [203, 135, -267],
            [142, 36, -174],
        ],
        // bishop: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [159, 285, 279],
            [223, 189, -11],
            [256, -10, 56],
            [-117, 243, -7],
            [-262, -186, 210],
        ],
        // rook: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [284, 286, 284],
            [288, -36, 44],
            [-217, -135, 43],
            [-186, -206, -220],
            [240, 158, -230],
        ],
        // gold: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [92, -234, -274],
            [250, -70, -264],
            [276, 94, -32],
            [196, 32, -264],
            [68, 16, -136],
        ],
        // king: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [120, 26, -98],
            [-79, 205, -5],
            [-180, -90, -20],
            [-27, -7, -53],
            [-26, -12, -78],
        ],
        // tokin: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-166, 54, -56],
            [-82, 300, -26],
            [-244, 298, 292],
            [22, 16, 10],
            [12, -154, 0],
        ],
        // promoted silver: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [212, 102, -162],
            [176, 0, -256],
            [139, -253, -223],
            [228, -200, 8],
            [12, 6, 0],
        ],
        // horse: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-107, -107, 177],
            [301, -66, 183],
            [-71, 99, -99],
            [24, 186, -124],
            [291, 237, 7],
        ],
        // dragon: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [98, 274, 242],
            [298, 170, -184],
            [-203, 75, 181],
            [-28, 74, -264],
            [247, 38, -169],
        ],
    ],
    mobility: [79, 56, 24, 41, 39, 0, 0, 32, 22, -7],
    attack_tropism: [
        [272, -4, 212, 184, 8],
        [304, 130, 208, 18, -88],
        [264, -10, 120, 170, 202],
        [144, 316, 102, 28, 10],
        [92, -37, -34, -3, -34],
        [0, 0, 0, 0, 0],
        [304, 328, 180, 122, 2],
        [300, 137, -14, -1, 2],
        [304, 228, -44, 178, 32],
        [88, 66, 24, 116, 52],
    ],
    defence_tropism: [
        [264, 244, 56, 94, -86],
        [184, 38, 102, 162, 58],
        [-124, 47, -60, -205, -106],
        [100, -57, 2, 59, 116],
        [304, 226, 142, 160, -84],
        [0, 0, 0, 0, 0],
        [280, 52, 210, 278, -208],
        [280, 184, 348, -24, -178],
        [272, 102, 330, 76, -56],
        [272, 184, 278, 210, -26],
    ],
    hanging_to_move: [-208, -12, 146, 184, 156, 0, 172, -88, -48, 208],
    hanging_waiting: [194, -208, 208, 208, -66, 0, 208, 208, -24, 76],
    zone_attack_weight: [15, 12, 17, -15, 31, 0, -40, 30, 31, 13],
    undefended_zone_attack: 16,
    safe_drop_check: 18,
    hand_pressure: [1, 13, 21, 24, 17],
    zone_defender: 6,
    no_escape: 15,
    danger_divisor: 10,
    danger_cap: 1288,
    tempo: 294,
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
