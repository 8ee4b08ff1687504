//! Static evaluation, in centipawn-like units from the side to move's point of view.
//!
//! Terms (each computed for both colours, sente minus gote, then signed for the side to move):
//! - material: a man in hand is worth more than the same man on the board (it can be dropped
//!   anywhere), a second man of a kind in hand less than the first; promoted men have their
//!   own values;
//! - piece-square tables over all 25 squares from the owner's point of view (gote's board
//!   rotated by 180 degrees; not left-right symmetric, since the kings start in opposite
//!   corners);
//! - mobility of the sliders;
//! - king tropism: men near the enemy king attack, golds and silvers near their own king
//!   defend;
//! - king safety: enemy men attacking the squares around the king, attacked squares nobody
//!   defends, drops that would give check on a safe square, and escape squares; the side to
//!   move, which can answer the threats first, counts only a share of its own king's danger.
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
    /// Correction for a second man of the same kind in hand (it is worth less, or more, than
    /// the first).
    pub hand_second: [i32; 5],
    /// Piece-square bonus by square as the owner sees the board, rank by rank from the far
    /// rank: index 0 is the far-left corner (5a for sente), 24 the own back-right corner (1e
    /// for sente); gote's squares are rotated by 180 degrees. Not left-right symmetric: the
    /// kings start in opposite corners.
    pub pst: [[i32; 25]; 10],
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
    /// The danger penalty of the side to move's king, in percent of the other king's (the
    /// side to move attacks first).
    pub danger_to_move: i32,
    /// Bonus for the side to move.
    pub tempo: i32,
}

/// Tuned by `examples/tune.rs` (Texel method, then distilled: 30 % game result, 70 % the
/// score of the current Fairy-Stockfish at depth 9) on 187k quiet positions: 102k from
/// Fairy-Stockfish self-play, match games and skill-level games, and 84k new ones from about
/// 5,000 games of Gogo's own matches (against Fairy-Stockfish 11.1 and itself). Started from
/// hand-set values; the full-board piece-square tables started from the earlier row-and-file
/// tables.
#[rustfmt::skip]
pub const DEFAULT_WEIGHTS: Weights = Weights {
    board_value: [80, 536, 703, 960, 626, 0, 532, 566, 1174, 1510],
    hand_value: [372, 624, 740, 898, 720],
    hand_second: [-174, -174, -174, -90, -150],
    pst: [
        // pawn
        [
            0, 4, 8, 4, 0,
            -212, -200, 18, 84, -234,
            -194, -90, 128, 386, 26,
            -96, 100, 100, 200, 60,
            76, -50, 62, 180, 90,
        ],
        // silver
        [
            -142, -182, 108, -492, -288,
            -286, 42, 164, -138, -126,
            -235, -69, 169, 273, 51,
            -327, 7, 131, 131, -129,
            -460, -12, -24, -246, -350,
        ],
        // bishop
        [
            331, 225, 261, 297, 371,
            -153, 107, 117, 17, -59,
            60, -64, 176, -186, 292,
            -19, 377, -205, 73, -47,
            438, -8, -192, -272, 176,
        ],
        // rook
        [
            480, 470, 346, 426, 362,
            122, 34, 74, 2, -146,
            13, -217, -345, -41, -57,
            -60, -182, -156, -66, -198,
            -434, 64, 128, 156, -162,
        ],
        // gold
        [
            -368, -268, 70, -520, -560,
            -374, 80, 340, -260, -550,
            -190, 70, 196, 374, 206,
            -242, 52, 244, 212, 22,
            -422, 74, 58, -158, -130,
        ],
        // king
        [
            20, 58, 150, 142, 188,
            53, 353, 87, 271, -223,
            -60, 14, -118, -298, -116,
            25, -111, -81, -47, -181,
            -134, -122, -208, -218, -302,
        ],
        // tokin
        [
            -138, 224, 56, -136, 6,
            58, 280, 26, 220, 184,
            222, 584, -182, 418, 418,
            10, 206, 94, 142, 184,
            0, -440, 12, -202, 0,
        ],
        // promoted silver
        [
            -184, 4, 354, 20, 124,
            -314, 182, 166, -286, -542,
            -33, -107, 425, -63, -445,
            -278, -138, 68, -248, -40,
            0, 6, -162, 6, 0,
        ],
        // horse
        [
            73, -23, -125, -121, -19,
            -3, 180, 283, 98, 35,
            -123, 79, 37, 225, -25,
            158, 228, 26, 122, -32,
            293, 241, 187, 59, -77,
        ],
        // dragon
        [
            74, 196, 240, 226, -18,
            -52, 126, 226, 254, -70,
            -55, -79, -259, 279, 27,
            -196, -106, 88, -70, -168,
            -281, -8, 101, 214, -435,
        ],
    ],
    mobility: [63, 44, 32, 31, 43, 0, 80, 44, 24, -7],
    attack_tropism: [
        [272, -4, 172, 128, 80], // pawn
        [304, 132, 290, 58, 10], // silver
        [264, 114, 304, 228, 210], // bishop
        [144, 320, 170, 66, 50], // rook
        [92, -155, 164, -107, -112], // gold
        [0, 0, 0, 0, 0], // king
        [304, 172, 6, -62, -12], // tokin
        [300, 117, 58, -133, -44], // promoted silver
        [304, 228, 144, 26, 10], // horse
        [88, 66, 242, 46, 46], // dragon
    ],
    defence_tropism: [
        [264, 186, 132, 88, -62], // pawn
        [184, 144, 150, 98, -10], // silver
        [-124, -39, -34, -135, -124], // bishop
        [100, -17, 74, 59, 20], // rook
        [304, 248, 210, 174, 78], // gold
        [0, 0, 0, 0, 0], // king
        [280, -136, 224, 228, -162], // tokin
        [280, 38, 290, 52, -74], // promoted silver
        [272, 196, 318, 226, 124], // horse
        [272, 314, 314, 254, 136], // dragon
    ],
    hanging_to_move: [66, 114, 238, 376, 210, 0, 86, 22, 222, 432],
    hanging_waiting: [68, -154, 404, 368, -118, 0, 234, 348, 262, 266],
    zone_attack_weight: [5, 6, 9, 9, 5, 0, -12, 20, 21, 19],
    undefended_zone_attack: 16,
    safe_drop_check: 24,
    hand_pressure: [-9, 13, 19, 24, 19],
    zone_defender: 4,
    no_escape: 11,
    danger_divisor: 10,
    danger_cap: 1332,
    danger_to_move: 20,
    tempo: 238,
};

impl Weights {
    /// Every tunable weight (all but the danger divisor), in a fixed order.
    pub fn weights_mut(&mut self) -> Vec<&mut i32> {
        let mut v: Vec<&mut i32> = Vec::new();
        v.extend(self.board_value.iter_mut());
        v.extend(self.hand_value.iter_mut());
        v.extend(self.hand_second.iter_mut());
        v.extend(self.pst.iter_mut().flatten());
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
        v.push(&mut self.danger_to_move);
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

/// The square as its owner sees the board (gote's rotated by 180 degrees).
#[inline]
fn owner_square(color: Color, sq: Square) -> usize {
    match color {
        Color::Black => sq.index(),
        Color::White => sq.flip().index(),
    }
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
            t[ci].placement += w.pst[k][owner_square(color, sq)];
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
            let n = hand.count(kind) as i32;
            t[ci].material += w.hand_value[kind.index()] * n;
            if n >= 2 {
                t[ci].material += w.hand_second[kind.index()] * (n - 1);
            }
        }
    }
    for color in Color::BOTH {
        let ci = color.index();
        t[ci].king_danger = king_danger(pos, w, color, kings[ci], &info);
        if color == pos.side_to_move() {
            t[ci].king_danger = t[ci].king_danger * w.danger_to_move / 100;
        }
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
    fn piece_square_tables_are_read_from_the_owners_side() {
        // Kings in their home corners (sente 5e, gote 1a): the same owner square, 20.
        let home = Position::from_sfen("4k/5/5/5/K4 b - 1").unwrap();
        // Kings in the other corners (sente 1e, gote 5a): owner square 24 for both.
        let other = Position::from_sfen("k4/5/5/5/4K b - 1").unwrap();
        let mut w = DEFAULT_WEIGHTS.clone();
        let king = PieceKind::King.index();
        let base = |p: &Position, w: &Weights| terms(p, w).0.map(|t| t.placement);
        let (h0, o0) = (base(&home, &w), base(&other, &w));
        w.pst[king][20] += 100;
        assert_eq!(base(&home, &w), [h0[0] + 100, h0[1] + 100]);
        assert_eq!(base(&other, &w), o0);
        w.pst[king][24] += 7;
        assert_eq!(base(&other, &w), [o0[0] + 7, o0[1] + 7]);
    }

    #[test]
    fn a_second_man_in_hand_gets_its_own_correction() {
        let one = Position::from_sfen("4k/5/5/5/K4 b P 1").unwrap();
        let two = Position::from_sfen("4k/5/5/5/K4 b 2P 1").unwrap();
        let mut w = DEFAULT_WEIGHTS.clone();
        let material = |p: &Position, w: &Weights| terms(p, w).0[0].material;
        let pawn = PieceKind::Pawn.index();
        let step = material(&two, &w) - material(&one, &w);
        assert_eq!(step, w.hand_value[pawn] + w.hand_second[pawn]);
        w.hand_second[pawn] += 40;
        assert_eq!(material(&two, &w) - material(&one, &w), step + 40);
        assert_eq!(material(&one, &w), material(&one, &DEFAULT_WEIGHTS));
    }

    #[test]
    fn the_side_to_move_has_its_king_danger_scaled() {
        // Gote's rook and gold in hand threaten sente's bare king.
        let sente_to_move = Position::from_sfen("4k/5/5/5/K4 b rg 1").unwrap();
        let waiting = Position::from_sfen("4k/5/5/5/K4 w rg 1").unwrap();
        let mut w = DEFAULT_WEIGHTS.clone();
        w.danger_to_move = 100;
        let danger = |p: &Position, w: &Weights| terms(p, w).0[0].king_danger;
        let full = danger(&waiting, &w);
        assert!(full > 0);
        assert_eq!(danger(&sente_to_move, &w), full);
        w.danger_to_move = 50;
        assert_eq!(danger(&sente_to_move, &w), full / 2);
        assert_eq!(danger(&waiting, &w), full);
    }

    #[test]
    fn three_golds_are_rejected_before_evaluation() {
        assert!(Position::from_sfen("rbsgk/4p/5/P4/KGSBR b G 1").is_err());
    }
}
