//! USI move notation, parsed in two stages: [`UsiMove::parse`] checks the syntax only
//! (`5e4d`, `2e2a+`, `G*2b`), and [`UsiMove::resolve`] turns it into a legal [`Move`] of a given
//! position, with a separate error type that says why a well-formed move is not legal there.

use crate::bitboard::Bitboard;
use crate::movegen;
use crate::position::Position;
use crate::types::{Move, PieceKind, Square};
use std::fmt;
use std::str::FromStr;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UsiMove {
    Board {
        from: Square,
        to: Square,
        promote: bool,
    },
    Drop {
        kind: PieceKind,
        to: Square,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveSyntaxError(pub String);

impl fmt::Display for MoveSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a USI move (expected e.g. 5e4d, 2e2a+ or G*2b)",
            self.0
        )
    }
}
impl std::error::Error for MoveSyntaxError {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    NoManOnSquare(Square),
    NotYourMan(Square),
    NotInHand(PieceKind),
    SquareOccupied(Square),
    CannotPromote,
    MustPromote,
    Nifu,
    Uchifuzume,
    /// Well formed, but the man cannot go there, or the move leaves the king in check.
    NotLegal,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use IllegalMove::*;
        match self {
            NoManOnSquare(sq) => write!(f, "there is no man on {sq}"),
            NotYourMan(sq) => write!(f, "the man on {sq} belongs to the side not to move"),
            NotInHand(k) => write!(f, "no {} in hand", k.letter()),
            SquareOccupied(sq) => write!(f, "cannot drop on occupied square {sq}"),
            CannotPromote => write!(f, "this move cannot promote"),
            MustPromote => write!(f, "a pawn reaching the last rank must promote"),
            Nifu => write!(f, "pawn drop on a file that already has a pawn (nifu)"),
            Uchifuzume => write!(f, "pawn drop that checkmates (uchifuzume)"),
            NotLegal => write!(f, "the move is not legal in this position"),
        }
    }
}
impl std::error::Error for IllegalMove {}

impl FromStr for UsiMove {
    type Err = MoveSyntaxError;
    fn from_str(s: &str) -> Result<UsiMove, MoveSyntaxError> {
        UsiMove::parse(s)
    }
}

impl UsiMove {
    pub fn parse(s: &str) -> Result<UsiMove, MoveSyntaxError> {
        let err = || MoveSyntaxError(s.chars().take(32).collect());
        let b = s.as_bytes();
        if !s.is_ascii() {
            return Err(err());
        }
        if b.len() == 4 && b[1] == b'*' {
            let kind = PieceKind::from_letter(b[0] as char)
                .filter(|k| *k != PieceKind::King && b[0].is_ascii_uppercase())
                .ok_or_else(err)?;
            let to = Square::parse(&s[2..4]).ok_or_else(err)?;
            return Ok(UsiMove::Drop { kind, to });
        }
        let promote = match b.len() {
            4 => false,
            5 if b[4] == b'+' => true,
            _ => return Err(err()),
        };
        let from = Square::parse(&s[0..2]).ok_or_else(err)?;
        let to = Square::parse(&s[2..4]).ok_or_else(err)?;
        if from == to {
            return Err(err());
        }
        Ok(UsiMove::Board { from, to, promote })
    }

    /// The encoded move (legal or not).
    pub fn to_move(self) -> Move {
        match self {
            UsiMove::Board { from, to, promote } => Move::board(from, to, promote),
            UsiMove::Drop { kind, to } => Move::drop(kind, to),
        }
    }

    /// Whether a man dropped on `to` would block the single check against the side to move.
    fn interposes(pos: &Position, to: Square) -> bool {
        let checkers = pos.checkers();
        match pos.king_square(pos.side_to_move()) {
            Some(k) if checkers.any() && !checkers.more_than_one() => {
                crate::attacks::between(k, checkers.lsb()).has(to)
            }
            _ => false,
        }
    }

    /// The legal move this denotes in `pos`, or why there is none.
    pub fn resolve(self, pos: &Position) -> Result<Move, IllegalMove> {
        let m = self.to_move();
        if movegen::is_legal(pos, m) {
            return Ok(m);
        }
        let us = pos.side_to_move();
        Err(match self {
            UsiMove::Drop { kind, to } => {
                if pos.hand(us).count(kind) == 0 {
                    IllegalMove::NotInHand(kind)
                } else if pos.occupied().has(to) {
                    IllegalMove::SquareOccupied(to)
                } else if pos.in_check() && !Self::interposes(pos, to) {
                    IllegalMove::NotLegal
                } else if kind == PieceKind::Pawn
                    && (pos.pieces_of(us, PieceKind::Pawn) & Bitboard::file(to.file())).any()
                {
                    IllegalMove::Nifu
                } else if kind == PieceKind::Pawn
                    && pos
                        .king_square(!us)
                        .is_some_and(|k| crate::attacks::pawn_attacks(us, to).has(k))
                    && movegen::is_pawn_drop_mate(pos, to)
                {
                    IllegalMove::Uchifuzume
                } else {
                    IllegalMove::NotLegal
                }
            }
            UsiMove::Board { from, to, promote } => match pos.piece_on(from) {
                None => IllegalMove::NoManOnSquare(from),
                Some(p) if p.color != us => IllegalMove::NotYourMan(from),
                Some(p) => {
                    let zone = Bitboard::zone(us);
                    if promote && (!p.kind.can_promote() || !(zone.has(from) || zone.has(to))) {
                        IllegalMove::CannotPromote
                    } else if !promote
                        && p.kind == PieceKind::Pawn
                        && zone.has(to)
                        && movegen::is_legal(pos, Move::board(from, to, true))
                    {
                        IllegalMove::MustPromote
                    } else {
                        IllegalMove::NotLegal
                    }
                }
            },
        })
    }
}

/// Why a move given as text cannot be played: bad syntax, or well formed but not legal here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    Syntax(MoveSyntaxError),
    Illegal { mv: Move, why: IllegalMove },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(e) => e.fmt(f),
            MoveError::Illegal { mv, why } => write!(f, "illegal move {mv}: {why}"),
        }
    }
}
impl std::error::Error for MoveError {}

impl From<MoveSyntaxError> for MoveError {
    fn from(e: MoveSyntaxError) -> MoveError {
        MoveError::Syntax(e)
    }
}

impl UsiMove {
    /// The notation of an encoded move.
    pub fn from_move(m: Move) -> UsiMove {
        if m.is_drop() {
            UsiMove::Drop {
                kind: m.drop_kind(),
                to: m.to(),
            }
        } else {
            UsiMove::Board {
                from: m.from(),
                to: m.to(),
                promote: m.is_promotion(),
            }
        }
    }

    /// [`UsiMove::resolve`] with the error carrying the move's text.
    pub fn resolve_or_explain(self, pos: &Position) -> Result<Move, MoveError> {
        self.resolve(pos).map_err(|why| MoveError::Illegal {
            mv: self.to_move(),
            why,
        })
    }
}

/// Parses and resolves a USI move string in one go.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    UsiMove::parse(text)?.resolve_or_explain(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_distinct_from_illegal_moves() {
        assert!(UsiMove::parse("5e4d").is_ok());
        assert!(UsiMove::parse("2e2a+").is_ok());
        assert!(UsiMove::parse("G*2b").is_ok());
        for bad in [
            "", "5e", "5e4", "6e4d", "5f4d", "5e4d=", "K*2b", "g*2b", "X*2b", "5e5e", "5e4d++",
            "P*6a",
        ] {
            assert!(UsiMove::parse(bad).is_err(), "{bad}");
        }
        let p = Position::startpos();
        assert_eq!(
            UsiMove::parse("5c5b").unwrap().resolve(&p),
            Err(IllegalMove::NoManOnSquare(Square::parse("5c").unwrap()))
        );
        assert_eq!(
            UsiMove::parse("1a2b").unwrap().resolve(&p),
            Err(IllegalMove::NotYourMan(Square::parse("1a").unwrap()))
        );
        assert_eq!(
            UsiMove::parse("G*3c").unwrap().resolve(&p),
            Err(IllegalMove::NotInHand(PieceKind::Gold))
        );
        assert_eq!(
            UsiMove::parse("5e4d+").unwrap().resolve(&p),
            Err(IllegalMove::CannotPromote)
        );
        assert_eq!(
            UsiMove::parse("5e5c").unwrap().resolve(&p),
            Err(IllegalMove::NotLegal)
        );
        assert!(parse_move(&p, "5e4d").is_ok());
    }

    #[test]
    fn moves_print_as_parsed() {
        for s in ["5e4d", "2e2a+", "G*2b", "P*3c"] {
            assert_eq!(UsiMove::parse(s).unwrap().to_move().to_string(), s);
        }
    }
}
