//! Static exchange evaluation: what a move wins or loses on its destination square when both
//! sides keep recapturing there with their least valuable man, each free to stop.
//!
//! Values are [`capture_value`] (the board value the loser gives up plus the hand value the
//! taker gains). Promotions along the exchange and pins are ignored; a king only recaptures
//! when the other side has nothing left on the square.

use crate::bitboard::Bitboard;
use crate::eval::capture_value;
use crate::position::Position;
use crate::types::{Color, Move, PieceKind};

/// Kinds from least to most valuable to give up (the king last).
fn kinds_by_value() -> &'static [PieceKind; PieceKind::COUNT] {
    static ORDER: std::sync::OnceLock<[PieceKind; PieceKind::COUNT]> = std::sync::OnceLock::new();
    ORDER.get_or_init(|| {
        let mut kinds = PieceKind::ALL;
        kinds.sort_by_key(|&k| capture_value(k));
        kinds
    })
}

/// Whether the exchange started by `m` gains at least `threshold` for the side to move.
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    let to = m.to();
    let us = pos.side_to_move();
    let (first_gain, mover_value, from_bb) = if m.is_drop() {
        (0, capture_value(m.drop_kind()), Bitboard::EMPTY)
    } else {
        let captured = pos.piece_on(to).map_or(0, |p| capture_value(p.kind));
        let mover = pos.piece_on(m.from()).map_or(0, |p| capture_value(p.kind));
        (captured, mover, Bitboard::from(m.from()))
    };
    // `swap`: what we are up if the opponent stops now, less the threshold.
    let mut swap = first_gain - threshold;
    if swap < 0 {
        return false;
    }
    // If the opponent takes our man and we stop, are we still at the threshold?
    swap = mover_value - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = (pos.occupied() ^ from_bb) | Bitboard::from(to);
    let mut attackers = (pos.attackers(Color::Black, to, occ)
        | pos.attackers(Color::White, to, occ))
        & occ
        & !Bitboard::from(to);
    let mut side = us;
    // 1 while the side to move in the exchange loop (before it moves) is content.
    let mut result = true;
    let order = kinds_by_value();
    loop {
        side = !side;
        let ours = attackers & pos.pieces(side);
        if ours.is_empty() {
            break;
        }
        result = !result;
        let (kind, sq) = match order.iter().find_map(|&k| {
            let bb = ours & pos.kind_bb(k);
            bb.any().then(|| (k, bb.lsb()))
        }) {
            Some(found) => found,
            None => break,
        };
        if kind == PieceKind::King {
            // The king may take only if the square is not defended any more.
            return if (attackers & pos.pieces(!side)).any() {
                !result
            } else {
                result
            };
        }
        swap = capture_value(kind) - swap;
        if swap < result as i32 {
            break;
        }
        occ ^= Bitboard::from(sq);
        attackers = (pos.attackers(Color::Black, to, occ) | pos.attackers(Color::White, to, occ))
            & occ
            & !Bitboard::from(to);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;
    use crate::notation::parse_move;

    fn see_value_bracket(pos: &Position, m: Move) -> (i32, i32) {
        // The largest threshold that passes, found by bisection over a wide range.
        let (mut lo, mut hi) = (-20_000, 20_000);
        assert!(see_ge(pos, m, lo));
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if see_ge(pos, m, mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo, hi)
    }

    #[test]
    fn an_undefended_capture_wins_the_man() {
        // Sente's rook takes a lone gote silver.
        let pos = Position::from_sfen("k4/5/2s2/5/2R1K b - 1").unwrap();
        let m = parse_move(&pos, "3e3c").unwrap();
        let (v, _) = see_value_bracket(&pos, m);
        assert_eq!(v, capture_value(PieceKind::Silver));
    }

    #[test]
    fn a_defended_capture_by_a_bigger_man_loses_the_difference() {
        // Rook takes a silver defended by a gote gold: silver won, rook lost.
        let pos = Position::from_sfen("k4/2g2/2s2/5/2R1K b - 1").unwrap();
        let m = parse_move(&pos, "3e3c").unwrap();
        let (v, _) = see_value_bracket(&pos, m);
        assert_eq!(
            v,
            capture_value(PieceKind::Silver) - capture_value(PieceKind::Rook)
        );
        assert!(!see_ge(&pos, m, 0));
    }

    #[test]
    fn a_drop_on_an_attacked_square_loses_the_man_and_a_defended_one_does_not() {
        let pos = Position::from_sfen("k4/2g2/5/5/4K b S 1").unwrap();
        // 3c is attacked by the gold and not defended: the silver is lost.
        let m = parse_move(&pos, "S*3c").unwrap();
        assert!(!see_ge(&pos, m, 0));
        assert_eq!(
            see_value_bracket(&pos, m).0,
            -capture_value(PieceKind::Silver)
        );
        // 1c is out of the gold's reach.
        let m = parse_move(&pos, "S*1c").unwrap();
        assert!(see_ge(&pos, m, 0));
        assert!(!see_ge(&pos, m, 1));
    }

    #[test]
    fn x_ray_defenders_count() {
        // Sente pawn takes a pawn defended by a gote rook, with a sente rook behind the pawn:
        // PxP, RxP, RxR -> sente is up a pawn and a rook, less its pawn.
        let pos = Position::from_sfen("k1r2/5/2p2/2P2/2R1K b - 1").unwrap();
        let m = parse_move(&pos, "3d3c").unwrap();
        let v = see_value_bracket(&pos, m).0;
        assert_eq!(
            v,
            capture_value(PieceKind::Pawn) // ... the opponent stops after PxP
        );
        assert!(see_ge(&pos, m, 0));
    }

    #[test]
    fn the_king_does_not_take_into_a_defended_square() {
        // Sente silver takes a pawn next to the gote king; sente's gold defends the square, so
        // the king cannot recapture.
        let pos = Position::from_sfen("2k2/2p2/2SG1/5/4K b - 1").unwrap();
        let m = parse_move(&pos, "3c3b").unwrap();
        assert_eq!(see_value_bracket(&pos, m).0, capture_value(PieceKind::Pawn));
    }

    #[test]
    fn every_legal_move_has_a_consistent_threshold_bracket() {
        // see_ge is monotone in the threshold on a busy position.
        let pos = Position::from_sfen("rbsgk/4p/5/P4/KGSBR b - 1").unwrap();
        for &m in legal_moves(&pos).iter() {
            let (lo, hi) = see_value_bracket(&pos, m);
            for t in [lo - 500, lo - 1, lo] {
                assert!(see_ge(&pos, m, t), "{m} {t}");
            }
            for t in [hi, hi + 1, hi + 500] {
                assert!(!see_ge(&pos, m, t), "{m} {t}");
            }
        }
    }
}
