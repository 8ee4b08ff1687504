//! Basic value types: colours, squares, piece kinds, pieces and moves.
//!
//! Square order (the one order every mask derives from): index = 5 * rank + (5 - file), where
//! rank 0 is rank `a` (gote's back rank) and file is the USI file digit 1..5. So index 0 is `5a`,
//! index 4 is `1a`, index 20 is `5e` and index 24 is `1e`; the indices run in the order an SFEN
//! board is written. Sente moves towards lower indices (forward = -5), gote towards higher.
//!
//! Piece kinds are numbered so that the five kinds that can be held in hand come first
//! (pawn, silver, bishop, rook, gold = 0..4), then the king (5) and the promoted kinds
//! (6..9), with `promoted = unpromoted + 6` for pawn, silver, bishop and rook.
//!
//! A [`Move`] is 16 bits: bits 0..5 the destination, bits 5..10 the origin square (or, for a
//! drop, the hand kind), bit 10 promotion, bit 11 drop. The all-zero value is [`Move::NONE`]
//! (the non-move `5a5a`), never a legal move.

use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Sente, the first player, written in upper case; `b` in SFEN.
    Black = 0,
    /// Gote, written in lower case; `w` in SFEN.
    White = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.flip()
    }
}

/// A square of the 5x5 board; see the module documentation for the order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 25;

    /// # Panics
    /// In debug builds, if `index >= 25`.
    #[inline(always)]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < 25);
        Square(index)
    }

    /// The square on USI file `file` (1..=5) and rank index `rank` (0 = `a` .. 4 = `e`).
    pub const fn from_file_rank(file: u8, rank: u8) -> Option<Square> {
        if file >= 1 && file <= 5 && rank < 5 {
            Some(Square(rank * 5 + (5 - file)))
        } else {
            None
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// USI file digit, 1..=5.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        5 - self.0 % 5
    }

    /// Rank index, 0 (`a`) ..= 4 (`e`).
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 / 5
    }

    /// The same square seen from the other side (rotated by 180 degrees).
    #[inline(always)]
    pub const fn flip(self) -> Square {
        Square(24 - self.0)
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..25u8).map(Square)
    }

    /// Parses `5e`-style notation.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'0');
        let rank = b[1].wrapping_sub(b'a');
        Square::from_file_rank(file, rank)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), (b'a' + self.rank()) as char)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceKind {
    Pawn = 0,
    Silver = 1,
    Bishop = 2,
    Rook = 3,
    Gold = 4,
    King = 5,
    Tokin = 6,
    ProSilver = 7,
    Horse = 8,
    Dragon = 9,
}

impl PieceKind {
    pub const COUNT: usize = 10;
    pub const ALL: [PieceKind; 10] = [
        PieceKind::Pawn,
        PieceKind::Silver,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Gold,
        PieceKind::King,
        PieceKind::Tokin,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];
    /// The kinds that can be held in hand, in index order.
    pub const HAND: [PieceKind; 5] = [
        PieceKind::Pawn,
        PieceKind::Silver,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Gold,
    ];
    /// The order SFEN writes hands in.
    pub const SFEN_HAND_ORDER: [PieceKind; 5] = [
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Gold,
        PieceKind::Silver,
        PieceKind::Pawn,
    ];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn from_index(i: usize) -> PieceKind {
        PieceKind::ALL[i]
    }

    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        (self as u8) < 4
    }

    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 6
    }

    /// The promoted kind; only meaningful when `can_promote`.
    #[inline(always)]
    pub const fn promote(self) -> PieceKind {
        PieceKind::ALL[self as usize + 6]
    }

    /// The kind a captured man becomes in hand.
    #[inline(always)]
    pub const fn unpromote(self) -> PieceKind {
        if self.is_promoted() {
            PieceKind::ALL[self as usize - 6]
        } else {
            self
        }
    }

    /// Upper-case SFEN letter of the unpromoted kind.
    pub const fn letter(self) -> char {
        match self.unpromote() {
            PieceKind::Pawn => 'P',
            PieceKind::Silver => 'S',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            PieceKind::Gold => 'G',
            _ => 'K',
        }
    }

    /// The unpromoted kind for an SFEN letter of either case.
    pub fn from_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'P' => PieceKind::Pawn,
            'S' => PieceKind::Silver,
            'B' => PieceKind::Bishop,
            'R' => PieceKind::Rook,
            'G' => PieceKind::Gold,
            'K' => PieceKind::King,
            _ => return None,
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    #[inline(always)]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.is_promoted() {
            f.write_str("+")?;
        }
        let c = self.kind.letter();
        let c = match self.color {
            Color::Black => c,
            Color::White => c.to_ascii_lowercase(),
        };
        write!(f, "{c}")
    }
}

/// A compact move; see the module documentation for the encoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(u16);

impl Move {
    pub const NONE: Move = Move(0);
    const PROMOTE: u16 = 1 << 10;
    const DROP: u16 = 1 << 11;

    #[inline(always)]
    pub const fn board(from: Square, to: Square, promote: bool) -> Move {
        Move(to.0 as u16 | (from.0 as u16) << 5 | if promote { Move::PROMOTE } else { 0 })
    }

    #[inline(always)]
    pub const fn drop(kind: PieceKind, to: Square) -> Move {
        Move(to.0 as u16 | (kind as u16) << 5 | Move::DROP)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square((self.0 & 31) as u8)
    }

    /// Origin square of a board move (meaningless for drops).
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square(((self.0 >> 5) & 31) as u8)
    }

    /// The dropped kind of a drop (meaningless for board moves).
    #[inline(always)]
    pub const fn drop_kind(self) -> PieceKind {
        PieceKind::ALL[((self.0 >> 5) & 7) as usize]
    }

    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        self.0 & Move::DROP != 0
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & Move::PROMOTE != 0
    }

    #[inline(always)]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline(always)]
    pub const fn from_raw(raw: u16) -> Move {
        Move(raw)
    }
}

impl fmt::Display for Move {
    /// USI notation: `5e4d`, `2e2a+`, `G*2b`; `none` for [`Move::NONE`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return f.write_str("none");
        }
        if self.is_drop() {
            write!(f, "{}*{}", self.drop_kind().letter(), self.to())
        } else {
            write!(f, "{}{}", self.from(), self.to())?;
            if self.is_promotion() {
                f.write_str("+")?;
            }
            Ok(())
        }
    }
}

/// Counts of each hand kind (indexed by `PieceKind::index()` for kinds 0..5) for one side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Hand(pub [u8; 5]);

impl Hand {
    #[inline(always)]
    pub const fn count(self, kind: PieceKind) -> u8 {
        self.0[kind as usize]
    }

    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0 == [0; 5]
    }

    /// True when every count of `self` is at least the count in `other`.
    pub fn dominates(self, other: Hand) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a >= b)
    }
}
