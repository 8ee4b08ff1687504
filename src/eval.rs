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
    board_value: [128, 546, 629, 854, 582, 0, 610, 616, 1004, 1246],
    hand_value: [186, 596, 694, 892, 640],
    pst: [
        // pawn: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [8, 4, 0],
            [-28, 32, -6],
            [88, 84, -52],
            [44, 70, 66],
            [-62, 66, 62],
        ],
        // silver: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [80, -48, 46],
            [102, 42, -46],
            [97, 21, -51],
            [87, 79, -61],
            [-50, -58, 34],
        ],
        // bishop: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-49, 77, 71],
            [15, 77, -31],
            [88, 82, -56],
            [5, 77, 7],
            [-54, -60, 2],
        ],
        // rook: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [80, 78, 76],
            [80, 78, 76],
            [-9, 73, 71],
            [-62, -64, -66],
            [70, 60, -66],
        ],
        // gold: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [78, -60, -66],
            [42, -18, -56],
            [92, 86, 80],
            [-12, 26, -56],
            [-6, 74, -64],
        ],
        // king: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-52, -12, -124],
            [-127, -3, -111],
            [-102, 22, 6],
            [29, 37, -71],
            [-82, -74, 50],
        ],
        // tokin: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [20, 82, -56],
            [-34, 92, 86],
            [-36, 90, 84],
            [22, 16, 10],
            [12, 6, 0],
        ],
        // promoted silver: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [88, 82, -56],
            [96, 42, -48],
            [87, -45, -51],
            [20, -52, 8],
            [12, 6, 0],
        ],
        // horse: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-7, -45, 65],
            [93, 46, -25],
            [93, 87, -51],
            [88, 82, 60],
            [83, 29, 55],
        ],
        // dragon: rows 0 (far rank) .. 4 (own back rank), centre/side/edge files
        [
            [-14, 90, 86],
            [94, -26, -46],
            [5, -47, 81],
            [54, 80, -56],
            [79, -16, 39],
        ],
    ],
    mobility: [57, 66, 0, 47, 25, 0, 66, -2, 28, 43],
    attack_tropism: [
        [272, 204, 136, 68, 0],
        [304, 228, 152, 76, 0],
        [264, 198, 132, 66, 0],
        [144, 108, 72, 36, 0],
        [92, 69, 46, 23, 0],
        [0, 0, 0, 0, 0],
        [304, 228, 152, 76, 0],
        [300, 225, 150, 75, 0],
        [304, 228, 152, 76, 0],
        [88, 66, 44, 22, 0],
    ],
    defence_tropism: [
        [264, 198, 132, 66, 0],
        [184, 138, 92, 46, 0],
        [-124, -93, -62, -31, 0],
        [100, 75, 50, 25, 0],
        [304, 228, 152, 76, 0],
        [0, 0, 0, 0, 0],
        [280, 210, 140, 70, 0],
        [280, 210, 140, 70, 0],
        [272, 204, 136, 68, 0],
        [272, 204, 136, 68, 0],
    ],
    hanging_to_move: [0; 10],
    hanging_waiting: [0; 10],
    zone_attack_weight: [29, 40, 33, 11, 43, 0, -2, 74, 25, 15],
    undefended_zone_attack: -2,
    safe_drop_check: 20,
    hand_pressure: [27, 7, 5, 12, 19],
    zone_defender: 4,
    no_escape: 29,
    danger_divisor: 10,
    danger_cap: 1496,
    tempo: 86,
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
