//! `Bitboard(u32)`: one bit per square, bit `i` for square index `i` (see [`crate::types`]
//! for the square order: bit 0 is `5a`, bit 4 is `1a`, bit 24 is `1e`). Bits 25..32 are always
//! zero; every operation here keeps that invariant.

use crate::types::{Color, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u32);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard((1 << 25) - 1);

    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Rank index 0 (`a`) ..= 4 (`e`).
    #[inline(always)]
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(0b11111 << (rank * 5))
    }

    /// USI file 1..=5.
    #[inline(always)]
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(0x0108421 << (5 - file))
    }

    /// The promotion zone of `color`: its far rank.
    #[inline(always)]
    pub const fn zone(color: Color) -> Bitboard {
        match color {
            Color::Black => Bitboard::rank(0),
            Color::White => Bitboard::rank(4),
        }
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline(always)]
    pub const fn has(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square; only meaningful when not empty.
    #[inline(always)]
    pub const fn lsb(self) -> Square {
        Square::new(self.0.trailing_zeros() as u8)
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Square {
        let sq = self.lsb();
        self.0 &= self.0 - 1;
        sq
    }

    /// The board rotated by 180 degrees (the other side's view).
    #[inline]
    pub const fn flip(self) -> Bitboard {
        Bitboard(self.0.reverse_bits() >> 7)
    }

    /// Shifted one rank towards rank `a` (sente's forward).
    #[inline(always)]
    pub const fn north(self) -> Bitboard {
        Bitboard(self.0 >> 5)
    }

    /// Shifted one rank towards rank `e` (gote's forward).
    #[inline(always)]
    pub const fn south(self) -> Bitboard {
        Bitboard((self.0 << 5) & Bitboard::FULL.0)
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(self.pop())
        }
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline(always)]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_follow_the_square_order() {
        assert!(Bitboard::file(5).has(Square::parse("5a").unwrap()));
        assert!(Bitboard::file(1).has(Square::parse("1e").unwrap()));
        assert_eq!(Bitboard::file(3).count(), 5);
        assert!(Bitboard::rank(4).has(Square::parse("3e").unwrap()));
        assert_eq!(
            Bitboard::from_square(Square::parse("5a").unwrap()).flip(),
            Bitboard::from_square(Square::parse("1e").unwrap())
        );
        let all: Vec<_> = Bitboard::FULL.collect();
        assert_eq!(all.len(), 25);
        assert_eq!((!Bitboard::EMPTY), Bitboard::FULL);
    }
}
