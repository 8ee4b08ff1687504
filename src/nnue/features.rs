//! Input features and their changes by a move.
//!
//! For a perspective `p` (the colour whose accumulator it is) the board is seen as `p` sees
//! it: squares of gote's perspective are rotated by 180 degrees and colours are relative (own,
//! enemy). The bucket is `p`'s own king square so seen (25 buckets; a position without `p`'s
//! king, possible in hand-made SFENs, uses the king's start square). Within a bucket:
//! - `rel * 250 + kind * 25 + square` for each man on the board (`rel` 0 own, 1 enemy; all ten
//!   kinds, kings and promoted kinds included);
//! - `500 + rel * 10 + hand_kind * 2 + (n - 1)` for `n = 1 ..= count` of each hand kind.
//!
//! Every man is either on the board or in a hand, so a position with the full set has exactly
//! twelve active features per perspective. Why the king square and not a coarser bucket: the
//! board has only 25 squares, a refresh touches at most twelve rows, and king safety dominates
//! minishogi; the trainer shares statistics between buckets with a factoriser (the same
//! features without bucket, folded into every bucket on export).

use crate::position::Position;
use crate::types::{Color, Move, PieceKind, Square};

pub const BUCKETS: usize = 25;
pub const BOARD_FEATURES: usize = 2 * PieceKind::COUNT * Square::COUNT;
pub const HAND_FEATURES: usize = 2 * 5 * 2;
pub const PER_BUCKET: usize = BOARD_FEATURES + HAND_FEATURES;
pub const FEATURES: usize = BUCKETS * PER_BUCKET;
/// Upper bound of active features per perspective (12 men in the set; SFENs cannot hold more).
pub const MAX_ACTIVE: usize = 32;
/// Bucket of a perspective without its king: the king's start square (5e as sente sees it).
const NO_KING_BUCKET: usize = 20;

/// A square as perspective `p` sees it.
#[inline(always)]
pub fn orient(p: Color, sq: Square) -> usize {
    match p {
        Color::Black => sq.index(),
        Color::White => 24 - sq.index(),
    }
}

/// The king bucket of perspective `p`.
#[inline]
pub fn bucket(pos: &Position, p: Color) -> usize {
    pos.king_square(p).map_or(NO_KING_BUCKET, |k| orient(p, k))
}

#[inline(always)]
fn rel(p: Color, c: Color) -> usize {
    (p != c) as usize
}

/// Index of a man of colour `c` and kind `kind` on `sq`, for perspective `p` in `bucket`.
#[inline(always)]
pub fn board_index(p: Color, bucket: usize, c: Color, kind: PieceKind, sq: Square) -> u16 {
    (bucket * PER_BUCKET + rel(p, c) * 250 + kind.index() * 25 + orient(p, sq)) as u16
}

/// Index of the `n`-th (1 or 2) man of `kind` in `c`'s hand, for perspective `p` in `bucket`.
#[inline(always)]
pub fn hand_index(p: Color, bucket: usize, c: Color, kind: PieceKind, n: u8) -> u16 {
    debug_assert!((1..=2).contains(&n));
    (bucket * PER_BUCKET + BOARD_FEATURES + rel(p, c) * 10 + kind.index() * 2 + (n as usize - 1))
        as u16
}

/// Output buckets of a net that has them: the net keeps one set of output weights per bucket
/// and evaluates a position with the set of its bucket. The bucket is the phase, counted as
/// the men in both hands (0, 1-2, 3-4, 5 or more): every man not on the board is in a hand,
/// and drops change what a man is worth.
pub const OUTPUT_BUCKETS: usize = 4;

/// The output bucket a net of `buckets` output buckets (1 or [`OUTPUT_BUCKETS`]) evaluates
/// `pos` with.
#[inline]
pub fn net_bucket(buckets: usize, pos: &Position) -> usize {
    if buckets == 1 {
        0
    } else {
        output_bucket(pos)
    }
}

/// The output bucket of `pos` (`0..OUTPUT_BUCKETS`).
#[inline]
pub fn output_bucket(pos: &Position) -> usize {
    let men: u8 = Color::BOTH
        .into_iter()
        .map(|c| pos.hand(c).0.iter().sum::<u8>())
        .sum();
    match men {
        0 => 0,
        1..=2 => 1,
        3..=4 => 2,
        _ => 3,
    }
}

/// A short list of feature indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeatureList {
    len: usize,
    items: [u16; MAX_ACTIVE],
}

impl FeatureList {
    #[inline(always)]
    pub fn push(&mut self, f: u16) {
        self.items[self.len] = f;
        self.len += 1;
    }
    #[inline(always)]
    pub fn as_slice(&self) -> &[u16] {
        &self.items[..self.len]
    }
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The active features of `pos` for perspective `p`.
pub fn active(pos: &Position, p: Color) -> FeatureList {
    let b = bucket(pos, p);
    let mut list = FeatureList::default();
    for c in Color::BOTH {
        for sq in pos.pieces(c) {
            let kind = pos.piece_on(sq).expect("bitboard and board agree").kind;
            list.push(board_index(p, b, c, kind, sq));
        }
        let hand = pos.hand(c);
        for kind in PieceKind::HAND {
            for n in 1..=hand.count(kind).min(2) {
                list.push(hand_index(p, b, c, kind, n));
            }
        }
    }
    list
}

/// How perspective `p`'s accumulator changes when a move is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The perspective's own king moved: its bucket changed, recompute from the new position.
    Refresh,
    /// Features switched on and off (at most two each).
    Delta {
        add: [u16; 2],
        n_add: usize,
        sub: [u16; 2],
        n_sub: usize,
    },
}

/// A feature before it is placed in a perspective's bucket.
#[derive(Clone, Copy)]
enum Man {
    Board(Color, PieceKind, Square),
    /// The `n`-th man of a kind in a colour's hand.
    Hand(Color, PieceKind, u8),
}

impl Man {
    #[inline(always)]
    fn index(self, p: Color, bucket: usize) -> u16 {
        match self {
            Man::Board(c, kind, sq) => board_index(p, bucket, c, kind, sq),
            Man::Hand(c, kind, n) => hand_index(p, bucket, c, kind, n),
        }
    }
}

/// The changes of both perspectives' features (indexed by colour) when the legal move `m` is
/// played in `before`. What the move does is worked out once; each perspective only places
/// it in its own bucket.
pub fn changes(before: &Position, m: Move) -> [Change; 2] {
    let us = before.side_to_move();
    let them = !us;
    let to = m.to();
    let placeholder = Man::Hand(us, PieceKind::Pawn, 1);
    let mut on = [placeholder; 2];
    let mut off = [placeholder; 2];
    let (mut n_on, mut n_off) = (0, 0);
    let mut king_moved = false;
    if m.is_drop() {
        let kind = m.drop_kind();
        off[n_off] = Man::Hand(us, kind, before.hand(us).count(kind));
        n_off += 1;
        on[n_on] = Man::Board(us, kind, to);
        n_on += 1;
    } else {
        let from = m.from();
        let piece = before.piece_on(from).expect("a legal move starts on a man");
        king_moved = piece.kind == PieceKind::King;
        let new_kind = if m.is_promotion() {
            piece.kind.promote()
        } else {
            piece.kind
        };
        off[n_off] = Man::Board(us, piece.kind, from);
        n_off += 1;
        on[n_on] = Man::Board(us, new_kind, to);
        n_on += 1;
        if let Some(cap) = before.piece_on(to) {
            debug_assert_eq!(cap.color, them);
            off[n_off] = Man::Board(them, cap.kind, to);
            n_off += 1;
            let hk = cap.kind.unpromote();
            let count = before.hand(us).count(hk) + 1;
            on[n_on] = Man::Hand(us, hk, count.min(2));
            n_on += 1;
        }
    }
    let mut out = [Change::Refresh; 2];
    for p in Color::BOTH {
        if king_moved && p == us {
            continue;
        }
        let b = bucket(before, p);
        let mut add = [0u16; 2];
        let mut sub = [0u16; 2];
        for i in 0..n_on {
            add[i] = on[i].index(p, b);
        }
        for i in 0..n_off {
            sub[i] = off[i].index(p, b);
        }
        out[p.index()] = Change::Delta {
            add,
            n_add: n_on,
            sub,
            n_sub: n_off,
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_has_twelve_features_per_side_in_range() {
        let pos = Position::startpos();
        for p in Color::BOTH {
            let f = active(&pos, p);
            assert_eq!(f.len(), 12);
            assert!(f.as_slice().iter().all(|&i| (i as usize) < FEATURES));
            let mut sorted = f.as_slice().to_vec();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 12, "features are distinct");
        }
        // Both kings stand on their start squares: both perspectives see the same features.
        let sorted = |p| {
            let mut v = active(&pos, p).as_slice().to_vec();
            v.sort();
            v
        };
        assert_eq!(sorted(Color::Black), sorted(Color::White));
    }
}
