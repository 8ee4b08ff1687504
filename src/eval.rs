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

/// Board values by kind index (pawn, silver, bishop, rook, gold, king, tokin, promoted silver,
/// horse, dragon).
pub const BOARD_VALUE: [i32; 10] = [100, 480, 680, 820, 540, 0, 560, 550, 1000, 1180];
/// Hand values by hand kind index (pawn, silver, bishop, rook, gold).
pub const HAND_VALUE: [i32; 5] = [120, 530, 760, 920, 590];

/// Value of a man for exchange purposes (move ordering, pruning margins): its board value
/// plus what its capture puts in the captor's hand.
#[inline]
pub fn capture_value(kind: PieceKind) -> i32 {
    match kind {
        // Never captured in a legal game; large so that ordering treats it as precious.
        PieceKind::King => 5000,
        _ => BOARD_VALUE[kind.index()] + HAND_VALUE[kind.unpromote().index()],
    }
}

/// Piece-square bonus by rows from the owner's far rank (row 0) to its own back rank (row 4);
/// columns are symmetric, so a row value plus a centre term suffices.
const ROW_BONUS: [[i32; 5]; 10] = [
    [0, 30, 14, 0, -4],     // pawn
    [10, 20, 15, 5, 0],     // silver
    [5, 5, 10, 5, 0],       // bishop
    [10, 10, 5, 0, 0],      // rook
    [0, 10, 14, 10, 2],     // gold
    [-70, -45, -20, -5, 0], // king
    [10, 20, 18, 10, 0],    // tokin
    [10, 18, 15, 8, 0],     // promoted silver
    [15, 15, 15, 10, 5],    // horse
    [20, 20, 15, 10, 5],    // dragon
];
const CENTRE_BONUS: [i32; 10] = [4, 8, 6, 2, 6, -8, 6, 6, 6, 4];

const MOBILITY: [i32; 10] = [0, 0, 6, 5, 0, 0, 0, 0, 5, 4];
/// Bonus per step closer to the enemy king (distance 4 - Chebyshev distance).
const ATTACK_TROPISM: [i32; 10] = [2, 10, 6, 6, 8, 0, 10, 9, 10, 12];
/// Bonus per step closer to the own king, for defenders.
const DEFENCE_TROPISM: [i32; 10] = [0, 6, 0, 0, 10, 0, 4, 4, 2, 2];

/// Attack weight of a man that hits the king's surroundings.
const ZONE_ATTACK_WEIGHT: [i32; 10] = [4, 8, 6, 8, 8, 0, 8, 8, 12, 14];
const UNDEFENDED_ZONE_ATTACK: i32 = 14;
const SAFE_DROP_CHECK: i32 = 18;
const HAND_PRESSURE: [i32; 5] = [1, 4, 4, 6, 5];
const ZONE_DEFENDER: i32 = 6;
const NO_ESCAPE: i32 = 10;
const DANGER_DIVISOR: i32 = 20;
const DANGER_CAP: i32 = 900;

/// Tempo for the side to move.
const TEMPO: i32 = 20;

#[inline]
fn chebyshev(a: Square, b: Square) -> i32 {
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    let df = (a.file() as i32 - b.file() as i32).abs();
    dr.max(df)
}

/// Row from the owner's far rank: 0 = far rank.
#[inline]
fn owner_row(color: Color, sq: Square) -> usize {
    match color {
        Color::Black => sq.rank() as usize,
        Color::White => 4 - sq.rank() as usize,
    }
}

#[inline]
fn centre(sq: Square) -> i32 {
    2 - (sq.file() as i32 - 3).abs()
}

/// Evaluation terms for one colour (positive = good for that colour).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    pub material: i32,
    pub placement: i32,
    pub mobility: i32,
    pub tropism: i32,
    pub king_danger: i32,
}

impl Terms {
    pub fn total(&self) -> i32 {
        self.material + self.placement + self.mobility + self.tropism - self.king_danger
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

fn terms(pos: &Position) -> ([Terms; 2], AttackInfo) {
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
            t[ci].material += BOARD_VALUE[k];
            t[ci].placement += ROW_BONUS[k][owner_row(color, sq)] + CENTRE_BONUS[k] * centre(sq);
            let att = attacks(color, p.kind, sq, occ);
            info.all[ci] |= att;
            if p.kind != PieceKind::King {
                info.no_king[ci] |= att;
                t[ci].mobility += MOBILITY[k] * (att & !pos.pieces(color)).count() as i32;
                if let Some(ek) = enemy_king {
                    t[ci].tropism += ATTACK_TROPISM[k] * (4 - chebyshev(sq, ek));
                    if (att & zones[1 - ci]).any() {
                        info.zone_weight[ci] += ZONE_ATTACK_WEIGHT[k];
                    }
                }
                if let Some(ok) = own_king {
                    t[ci].tropism += DEFENCE_TROPISM[k] * (4 - chebyshev(sq, ok));
                }
            }
        }
        let hand = pos.hand(color);
        for kind in PieceKind::HAND {
            t[ci].material += HAND_VALUE[kind.index()] * hand.count(kind) as i32;
        }
    }
    for color in Color::BOTH {
        t[color.index()].king_danger = king_danger(pos, color, kings[color.index()], &info);
    }
    (t, info)
}

/// Danger to `color`'s king (a penalty for `color`).
fn king_danger(pos: &Position, color: Color, king: Option<Square>, info: &AttackInfo) -> i32 {
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
    danger += UNDEFENDED_ZONE_ATTACK * (zone & enemy_att & !defended).count() as i32;
    danger -= ZONE_DEFENDER * (zone & own & !pos.kind_bb(PieceKind::King)).count() as i32;

    // Drops the enemy could make to give check on a square we do not defend.
    let hand = pos.hand(them);
    if !hand.is_empty() {
        let empty = !occ;
        for kind in PieceKind::HAND {
            let n = hand.count(kind);
            if n == 0 {
                continue;
            }
            danger += HAND_PRESSURE[kind.index()] * n as i32;
            // Squares from which an enemy `kind` attacks `k`: where our `kind` on `k` would attack.
            let checks = attacks(color, kind, k, occ) & empty;
            let safe = checks & !defended;
            if safe.any() {
                danger += SAFE_DROP_CHECK;
            }
        }
    }
    let escapes = zone & !own & !enemy_att;
    if escapes.is_empty() {
        danger += NO_ESCAPE;
    }
    if danger <= 0 {
        return 0;
    }
    (danger * danger / DANGER_DIVISOR).min(DANGER_CAP)
}

/// The evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let (t, _) = terms(pos);
    let score = t[0].total() - t[1].total();
    let score = match pos.side_to_move() {
        Color::Black => score,
        Color::White => -score,
    };
    score + TEMPO
}

/// The terms for the `eval` command: (name, sente, gote) rows and the final score for sente.
pub fn trace(pos: &Position) -> String {
    let (t, _) = terms(pos);
    let mut s = String::new();
    s.push_str("term          sente     gote    total\n");
    type Row = (&'static str, fn(&Terms) -> i32);
    let rows: [Row; 5] = [
        ("material", |t| t.material),
        ("placement", |t| t.placement),
        ("mobility", |t| t.mobility),
        ("tropism", |t| t.tropism),
        ("king danger", |t| -t.king_danger),
    ];
    for (name, f) in rows {
        let (b, w) = (f(&t[0]), f(&t[1]));
        s.push_str(&format!("{name:<12} {b:>6} {w:>8} {:>8}\n", b - w));
    }
    let tempo = match pos.side_to_move() {
        Color::Black => TEMPO,
        Color::White => -TEMPO,
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
        assert_eq!(evaluate(&p), TEMPO);
    }

    #[test]
    fn extra_material_is_good() {
        let p = Position::from_sfen("rbsgk/4p/5/P4/KGSBR b G 1");
        assert!(p.is_err()); // three golds
        let up = Position::from_sfen("rbs1k/4p/5/P4/KGSBR b G 1").unwrap();
        assert!(evaluate(&up) > 400);
    }
}
