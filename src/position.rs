//! The position: board, hands, side to move, Zobrist key and the checkers of the side to move.
//!
//! Invariants of a [`Position`] (established by [`Position::from_sfen`] and kept by
//! [`Position::do_move`] for legal moves): `board`, `by_color` and `by_kind` describe the same
//! men; `key` equals [`Position::compute_key`]; `checkers` holds the men of the side not to move
//! that attack the king of the side to move; the side not to move is not in check. Moves are
//! made by copy: the struct is small and `Copy`, so search and perft keep a stack of positions
//! instead of undo records.

use crate::attacks::{
    between, bishop_attacks, gold_attacks, king_attacks, pawn_attacks, rook_attacks, silver_attacks,
};
use crate::bitboard::Bitboard;
use crate::types::{Color, Hand, Move, Piece, PieceKind, Square};
use crate::zobrist;
use std::fmt;

pub const START_SFEN: &str = "rbsgk/4p/5/P4/KGSBR b - 1";

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Position {
    board: [Option<Piece>; 25],
    by_color: [Bitboard; 2],
    by_kind: [Bitboard; 10],
    hands: [Hand; 2],
    side: Color,
    /// SFEN move number (the ply number, 1 for the first move).
    move_number: u32,
    key: u64,
    checkers: Bitboard,
}

/// Everything that can be wrong with an SFEN string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenError {
    Empty,
    MissingFields(usize),
    TooManyFields(usize),
    NineByNine,
    RankCount(usize),
    RankLength {
        rank: char,
        length: usize,
    },
    UnknownPiece(char),
    BadPromotion(String),
    BadSide(String),
    BadHand(String),
    BadMoveNumber(String),
    TooMany {
        kind: PieceKind,
        count: u32,
    },
    TwoKings(Color),
    /// The side not to move has no king. Only the side to move may lack one (the attacker of
    /// a tsume problem); without the other king there is nothing to play for.
    NoKing(Color),
    PawnOnLastRank(Square),
    Nifu {
        color: Color,
        file: u8,
    },
    SideNotToMoveInCheck,
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "sente",
        Color::White => "gote",
    }
}

fn kind_name(k: PieceKind) -> &'static str {
    match k.unpromote() {
        PieceKind::Pawn => "pawns",
        PieceKind::Silver => "silvers",
        PieceKind::Bishop => "bishops",
        PieceKind::Rook => "rooks",
        PieceKind::Gold => "golds",
        _ => "kings",
    }
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SfenError::*;
        match self {
            Empty => write!(f, "empty SFEN"),
            MissingFields(n) => write!(
                f,
                "SFEN has {n} field(s); it needs board, side to move and hands"
            ),
            TooManyFields(n) => write!(f, "SFEN has {n} fields; at most 4 are allowed"),
            NineByNine => write!(
                f,
                "this is a 9x9 shogi SFEN; minishogi needs a 5x5 board (5 ranks of 5 squares)"
            ),
            RankCount(n) => write!(f, "board has {n} ranks; minishogi has 5"),
            RankLength { rank, length } => {
                write!(f, "rank {rank} has {length} squares; each rank needs 5")
            }
            UnknownPiece(c) => write!(f, "unknown piece letter '{c}'"),
            BadPromotion(s) => write!(f, "'{s}' cannot be promoted"),
            BadSide(s) => write!(f, "side to move must be 'b' or 'w', not '{s}'"),
            BadHand(s) => write!(f, "bad hand field '{s}'"),
            BadMoveNumber(s) => write!(f, "move number must be a positive integer, not '{s}'"),
            TooMany { kind, count } => write!(
                f,
                "{count} {} on board and in hand; the set has only 2",
                kind_name(*kind)
            ),
            TwoKings(c) => write!(f, "{} has more than one king", side_name(*c)),
            NoKing(c) => write!(
                f,
                "{} (the side not to move) has no king; only the side to move may lack one",
                side_name(*c)
            ),
            PawnOnLastRank(sq) => write!(f, "unpromoted pawn on its last rank at {sq}"),
            Nifu { color, file } => {
                write!(
                    f,
                    "{} has two unpromoted pawns on file {file} (nifu)",
                    side_name(*color)
                )
            }
            SideNotToMoveInCheck => write!(f, "the side not to move is in check"),
        }
    }
}

impl std::error::Error for SfenError {}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl Position {
    pub fn startpos() -> Position {
        // The constant is a valid SFEN; the unit tests parse it.
        Position::from_sfen(START_SFEN).expect("start SFEN is valid")
    }

    fn empty() -> Position {
        Position {
            board: [None; 25],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 10],
            hands: [Hand::default(); 2],
            side: Color::Black,
            move_number: 1,
            key: 0,
            checkers: Bitboard::EMPTY,
        }
    }

    /// Parses and validates an SFEN (`board side hands [move number]`).
    pub fn from_sfen(sfen: &str) -> Result<Position, SfenError> {
        let fields: Vec<&str> = sfen.split_whitespace().collect();
        if fields.is_empty() {
            return Err(SfenError::Empty);
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() == 9 {
            return Err(SfenError::NineByNine);
        }
        if fields.len() < 3 {
            return Err(SfenError::MissingFields(fields.len()));
        }
        if fields.len() > 4 {
            return Err(SfenError::TooManyFields(fields.len()));
        }
        if ranks.len() != 5 {
            return Err(SfenError::RankCount(ranks.len()));
        }
        let mut pos = Position::empty();
        for (r, text) in ranks.iter().enumerate() {
            let rank_char = (b'a' + r as u8) as char;
            let mut col = 0usize;
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 {
                        return Err(SfenError::UnknownPiece(c));
                    }
                    col += d as usize;
                    continue;
                }
                let (promoted, c) = if c == '+' {
                    match chars.next() {
                        Some(n) => (true, n),
                        None => return Err(SfenError::BadPromotion("+".into())),
                    }
                } else {
                    (false, c)
                };
                let mut kind = PieceKind::from_letter(c).ok_or(SfenError::UnknownPiece(c))?;
                if promoted {
                    if !kind.can_promote() {
                        return Err(SfenError::BadPromotion(format!("+{c}")));
                    }
                    kind = kind.promote();
                }
                let color = if c.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                if col < 5 {
                    pos.put(Square::new((r * 5 + col) as u8), Piece::new(color, kind));
                }
                col += 1;
            }
            if col != 5 {
                return Err(SfenError::RankLength {
                    rank: rank_char,
                    length: col,
                });
            }
        }
        pos.side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(SfenError::BadSide(s.to_string())),
        };
        pos.parse_hands(fields[2])?;
        if let Some(n) = fields.get(3) {
            pos.move_number = match n.parse::<u32>() {
                Ok(v) if v >= 1 => v,
                _ => return Err(SfenError::BadMoveNumber(n.to_string())),
            };
        }
        pos.validate()?;
        pos.key = pos.compute_key();
        pos.checkers = pos.compute_checkers();
        Ok(pos)
    }

    fn parse_hands(&mut self, text: &str) -> Result<(), SfenError> {
        if text == "-" {
            return Ok(());
        }
        let bad = || SfenError::BadHand(text.to_string());
        let mut count: Option<u32> = None;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10) {
                let n = count.unwrap_or(0) * 10 + d;
                if n > 99 {
                    return Err(bad());
                }
                count = Some(n);
                continue;
            }
            let kind = PieceKind::from_letter(c).ok_or_else(bad)?;
            if kind == PieceKind::King {
                return Err(bad());
            }
            let n = count.take().unwrap_or(1);
            if n == 0 {
                return Err(bad());
            }
            let color = if c.is_ascii_uppercase() {
                Color::Black
            } else {
                Color::White
            };
            let slot = &mut self.hands[color.index()].0[kind.index()];
            let total = *slot as u32 + n;
            if total > 2 {
                return Err(SfenError::TooMany { kind, count: total });
            }
            *slot = total as u8;
        }
        if count.is_some() || text.is_empty() {
            return Err(bad());
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), SfenError> {
        for color in Color::BOTH {
            if self.pieces_of(color, PieceKind::King).more_than_one() {
                return Err(SfenError::TwoKings(color));
            }
        }
        if self.king_square(!self.side).is_none() {
            return Err(SfenError::NoKing(!self.side));
        }
        for kind in PieceKind::HAND {
            let mut count = (self.by_kind[kind.index()]).count();
            if kind.can_promote() {
                count += self.by_kind[kind.promote().index()].count();
            }
            count += self.hands[0].count(kind) as u32 + self.hands[1].count(kind) as u32;
            if count > 2 {
                return Err(SfenError::TooMany { kind, count });
            }
        }
        for color in Color::BOTH {
            let pawns = self.pieces_of(color, PieceKind::Pawn);
            if let Some(sq) = (pawns & Bitboard::zone(color)).next() {
                return Err(SfenError::PawnOnLastRank(sq));
            }
            for file in 1..=5 {
                if (pawns & Bitboard::file(file)).more_than_one() {
                    return Err(SfenError::Nifu { color, file });
                }
            }
        }
        let them = !self.side;
        if let Some(k) = self.king_square(them) {
            if self.attackers(self.side, k, self.occupied()).any() {
                return Err(SfenError::SideNotToMoveInCheck);
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn put(&mut self, sq: Square, p: Piece) {
        self.board[sq.index()] = Some(p);
        let b = Bitboard::from(sq);
        self.by_color[p.color.index()] |= b;
        self.by_kind[p.kind.index()] |= b;
    }

    #[inline(always)]
    fn remove(&mut self, sq: Square, p: Piece) {
        self.board[sq.index()] = None;
        let b = Bitboard::from(sq);
        self.by_color[p.color.index()] ^= b;
        self.by_kind[p.kind.index()] ^= b;
    }

    /// The key from scratch; `key()` must always equal it.
    pub fn compute_key(&self) -> u64 {
        let mut k = 0;
        for sq in Square::all() {
            if let Some(p) = self.board[sq.index()] {
                k ^= zobrist::piece(p.color, p.kind, sq);
            }
        }
        for color in Color::BOTH {
            for kind in PieceKind::HAND {
                for n in 1..=self.hands[color.index()].count(kind) {
                    k ^= zobrist::hand(color, kind, n);
                }
            }
        }
        if self.side == Color::White {
            k ^= zobrist::side();
        }
        k
    }

    fn compute_checkers(&self) -> Bitboard {
        match self.king_square(self.side) {
            Some(k) => self.attackers(!self.side, k, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    // ----- accessors -----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }
    #[inline(always)]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }
    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }
    #[inline(always)]
    pub fn hand(&self, color: Color) -> Hand {
        self.hands[color.index()]
    }
    #[inline(always)]
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }
    #[inline(always)]
    pub fn kind_bb(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }
    #[inline(always)]
    pub fn pieces_of(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_color[color.index()] & self.by_kind[kind.index()]
    }
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.any()
    }
    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Option<Square> {
        self.pieces_of(color, PieceKind::King).next()
    }

    /// Men that move like a gold (gold, tokin, promoted silver).
    #[inline(always)]
    pub fn gold_movers(&self) -> Bitboard {
        self.by_kind[PieceKind::Gold.index()]
            | self.by_kind[PieceKind::Tokin.index()]
            | self.by_kind[PieceKind::ProSilver.index()]
    }
    #[inline(always)]
    pub fn rook_movers(&self) -> Bitboard {
        self.by_kind[PieceKind::Rook.index()] | self.by_kind[PieceKind::Dragon.index()]
    }
    #[inline(always)]
    pub fn bishop_movers(&self) -> Bitboard {
        self.by_kind[PieceKind::Bishop.index()] | self.by_kind[PieceKind::Horse.index()]
    }

    /// Men of `by` that attack `sq`, with sliders blocked by `occ`.
    #[inline]
    pub fn attackers(&self, by: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let opp = !by;
        // A king step covers the horse's orthogonal and the dragon's diagonal steps too: the
        // other adjacent squares are reached by their slides anyway.
        let steppers = (pawn_attacks(opp, sq) & self.by_kind[PieceKind::Pawn.index()])
            | (silver_attacks(opp, sq) & self.by_kind[PieceKind::Silver.index()])
            | (gold_attacks(opp, sq) & self.gold_movers())
            | (king_attacks(sq)
                & (self.by_kind[PieceKind::King.index()]
                    | self.by_kind[PieceKind::Horse.index()]
                    | self.by_kind[PieceKind::Dragon.index()]));
        let sliders = (rook_attacks(sq, occ) & self.rook_movers())
            | (bishop_attacks(sq, occ) & self.bishop_movers());
        (steppers | sliders) & self.by_color[by.index()]
    }

    /// Men of `color` that are the only man between `color`'s king and an enemy slider:
    /// pinned men (own colour) and discovered-check candidates (if `color` is the enemy's).
    pub fn blockers(&self, king_color: Color, king: Square) -> Bitboard {
        let them = self.by_color[(!king_color).index()];
        let snipers = ((rook_attacks(king, Bitboard::EMPTY) & self.rook_movers())
            | (bishop_attacks(king, Bitboard::EMPTY) & self.bishop_movers()))
            & them;
        let occ = self.occupied();
        let mut result = Bitboard::EMPTY;
        for s in snipers {
            let b = between(king, s) & occ;
            if b.any() && !b.more_than_one() {
                result |= b;
            }
        }
        result
    }

    /// Pinned men of the side to move.
    #[inline]
    pub fn pinned(&self) -> Bitboard {
        match self.king_square(self.side) {
            Some(k) => self.blockers(self.side, k) & self.by_color[self.side.index()],
            None => Bitboard::EMPTY,
        }
    }

    // ----- making moves -----

    /// Plays `m`, which must be legal in this position.
    #[inline]
    pub fn do_move(&mut self, m: Move) {
        let us = self.side;
        let to = m.to();
        if m.is_drop() {
            let kind = m.drop_kind();
            let hand = &mut self.hands[us.index()].0[kind.index()];
            self.key ^= zobrist::hand(us, kind, *hand);
            *hand -= 1;
            self.put(to, Piece::new(us, kind));
            self.key ^= zobrist::piece(us, kind, to);
        } else {
            let from = m.from();
            let piece = self.board[from.index()].expect("legal move starts on a man");
            if let Some(cap) = self.board[to.index()] {
                self.remove(to, cap);
                self.key ^= zobrist::piece(cap.color, cap.kind, to);
                let k = cap.kind.unpromote();
                let hand = &mut self.hands[us.index()].0[k.index()];
                *hand += 1;
                self.key ^= zobrist::hand(us, k, *hand);
            }
            self.remove(from, piece);
            self.key ^= zobrist::piece(us, piece.kind, from);
            let kind = if m.is_promotion() {
                piece.kind.promote()
            } else {
                piece.kind
            };
            self.put(to, Piece::new(us, kind));
            self.key ^= zobrist::piece(us, kind, to);
        }
        self.side = !us;
        self.key ^= zobrist::side();
        // Saturating: a move number read as u32::MAX stays there rather than wrapping to 0,
        // which `from_sfen` would refuse when the position is printed and read back.
        self.move_number = self.move_number.saturating_add(1);
        self.checkers = match self.king_square(!us) {
            Some(k) => self.attackers(us, k, self.occupied()),
            None => Bitboard::EMPTY,
        };
    }

    /// A copy of the position after `m` (which must be legal).
    #[inline]
    pub fn after(&self, m: Move) -> Position {
        let mut p = *self;
        p.do_move(m);
        p
    }

    /// Passes the move to the other side (null move for search). Only valid when not in check.
    pub fn do_null_move(&mut self) {
        self.side = !self.side;
        self.key ^= zobrist::side();
        self.move_number = self.move_number.saturating_add(1);
        self.checkers = Bitboard::EMPTY;
    }

    /// The same position with colours swapped and the board rotated (for symmetry tests).
    pub fn flipped(&self) -> Position {
        let mut p = Position::empty();
        for sq in Square::all() {
            if let Some(pc) = self.board[sq.index()] {
                p.put(sq.flip(), Piece::new(!pc.color, pc.kind));
            }
        }
        p.hands = [self.hands[1], self.hands[0]];
        p.side = !self.side;
        p.move_number = self.move_number;
        p.key = p.compute_key();
        p.checkers = p.compute_checkers();
        p
    }

    /// Canonical SFEN, with the move number.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(40);
        for r in 0..5 {
            let mut empty = 0;
            for c in 0..5 {
                match self.board[r * 5 + c] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push_str(&p.to_string());
                    }
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if r < 4 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(if self.side == Color::Black { 'b' } else { 'w' });
        s.push(' ');
        let mut hand = String::new();
        for color in Color::BOTH {
            for kind in PieceKind::SFEN_HAND_ORDER {
                let n = self.hands[color.index()].count(kind);
                if n == 0 {
                    continue;
                }
                if n > 1 {
                    hand.push_str(&n.to_string());
                }
                let l = kind.letter();
                hand.push(if color == Color::Black {
                    l
                } else {
                    l.to_ascii_lowercase()
                });
            }
        }
        if hand.is_empty() {
            hand.push('-');
        }
        s.push_str(&hand);
        s.push(' ');
        s.push_str(&self.move_number.to_string());
        s
    }

    /// A text diagram of the board for the `d` command.
    pub fn pretty(&self) -> String {
        let mut s = String::new();
        s.push_str("  5  4  3  2  1\n");
        for r in 0..5 {
            s.push_str("+--+--+--+--+--+\n");
            for c in 0..5 {
                s.push('|');
                match self.board[r * 5 + c] {
                    None => s.push_str("  "),
                    Some(p) => {
                        let t = p.to_string();
                        if t.len() == 1 {
                            s.push(' ');
                        }
                        s.push_str(&t);
                    }
                }
            }
            s.push_str(&format!("| {}\n", (b'a' + r as u8) as char));
        }
        s.push_str("+--+--+--+--+--+\n");
        let hand_text = |c: Color| {
            let mut t = String::new();
            for kind in PieceKind::SFEN_HAND_ORDER {
                let n = self.hands[c.index()].count(kind);
                if n > 0 {
                    t.push_str(&format!("{}{} ", kind.letter(), n));
                }
            }
            if t.is_empty() {
                t.push('-');
            }
            t
        };
        s.push_str(&format!("sente hand: {}\n", hand_text(Color::Black)));
        s.push_str(&format!("gote hand:  {}\n", hand_text(Color::White)));
        s.push_str(&format!(
            "side to move: {}\nsfen: {}\nkey: {:016x}\n",
            side_name(self.side),
            self.to_sfen(),
            self.key
        ));
        s
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_sfen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_round_trips() {
        let p = Position::startpos();
        assert_eq!(p.to_sfen(), START_SFEN);
        assert_eq!(p.key(), p.compute_key());
        assert!(!p.in_check());
        assert_eq!(p.king_square(Color::Black), Square::parse("5e"));
        assert_eq!(p.king_square(Color::White), Square::parse("1a"));
    }

    #[test]
    fn hands_print_in_canonical_order() {
        let p = Position::from_sfen("4k/5/5/5/K4 w PBrg 3").unwrap();
        assert_eq!(p.to_sfen(), "4k/5/5/5/K4 w BPrg 3");
        let p = Position::from_sfen("4k/5/5/5/K4 b 2P 1").unwrap();
        assert_eq!(p.to_sfen(), "4k/5/5/5/K4 b 2P 1");
    }

    #[test]
    fn the_side_not_to_move_needs_a_king() {
        // No king at all.
        assert_eq!(
            Position::from_sfen("5/2r2/5/2R2/5 b - 1"),
            Err(SfenError::NoKing(Color::White))
        );
        // Only the side to move has a king.
        assert_eq!(
            Position::from_sfen("5/5/5/5/K4 b 2R2B 1"),
            Err(SfenError::NoKing(Color::White))
        );
        assert_eq!(
            Position::from_sfen("4k/5/5/5/5 w 2r 1"),
            Err(SfenError::NoKing(Color::Black))
        );
        // A tsume problem: only the attacker (to move) lacks its king.
        let p = Position::from_sfen("4k/5/5/5/5 b 2R 1").unwrap();
        assert_eq!(p.king_square(Color::Black), None);
        let p = Position::from_sfen("5/5/5/5/K4 w 2r 1").unwrap();
        assert_eq!(p.king_square(Color::White), None);
        assert!(SfenError::NoKing(Color::White).to_string().contains("gote"));
    }

    #[test]
    fn the_move_number_saturates_instead_of_wrapping() {
        let mut p = Position::from_sfen("4k/5/5/5/K4 b - 4294967295").unwrap();
        let m = crate::movegen::legal_moves(&p).as_slice()[0];
        p.do_move(m);
        assert_eq!(p.move_number(), u32::MAX);
        let again = Position::from_sfen(&p.to_sfen()).unwrap();
        assert_eq!(again.to_sfen(), p.to_sfen());
        let mut q = Position::from_sfen("4k/5/5/5/K4 w - 4294967294").unwrap();
        q.do_null_move();
        assert_eq!(q.move_number(), u32::MAX);
    }
}
