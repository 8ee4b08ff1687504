//! A game: a start position plus the moves played, with the positions in between, so that
//! repetition (sennichite) and the end of the game can be judged as docs/rules.md says:
//!
//! - the side to move with no legal move loses (checkmate, or no move at all);
//! - when the current position (board, hands, side to move) occurs for the fourth time, a side
//!   that gave check with every one of its moves since the first of those four occurrences
//!   loses; otherwise [`SennichiteRule`] decides (draw, or gote wins);
//! - with a move limit, the game is drawn once that many plies have been played.

use crate::movegen;
use crate::notation::{self, IllegalMove, MoveError, UsiMove};
use crate::position::{Position, SfenError};
use crate::types::{Color, Move, PieceKind};
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum SennichiteRule {
    /// A plain fourfold repetition is a draw.
    #[default]
    Draw,
    /// A plain fourfold repetition is a loss for sente.
    GoteWins,
}

impl SennichiteRule {
    pub fn parse(s: &str) -> Option<SennichiteRule> {
        match s.to_ascii_lowercase().as_str() {
            "draw" => Some(SennichiteRule::Draw),
            "gote-wins" => Some(SennichiteRule::GoteWins),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            SennichiteRule::Draw => "draw",
            SennichiteRule::GoteWins => "gote-wins",
        }
    }
    /// The winner of a plain (not perpetual-check) repetition.
    pub fn winner(self) -> Option<Color> {
        match self {
            SennichiteRule::Draw => None,
            SennichiteRule::GoteWins => Some(Color::White),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    Checkmate,
    /// The side to move is not in check but has no legal move.
    NoLegalMove,
    Sennichite,
    PerpetualCheck,
    MoveLimit,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: EndReason,
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = match self.winner {
            None => "draw".to_string(),
            Some(Color::Black) => "sente wins".to_string(),
            Some(Color::White) => "gote wins".to_string(),
        };
        write!(f, "{who} ({:?})", self.reason)
    }
}

/// The options that decide how a game ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct GameRules {
    pub sennichite: SennichiteRule,
    /// 0 means no limit.
    pub max_plies: u32,
}

/// How a repetition of the current position stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// Fewer than four occurrences.
    None,
    /// The fourth occurrence; `checker` gave check with all its moves since the first.
    Fourfold { checker: Option<Color> },
}

/// How a repetition of the last of `positions` (a game's positions, oldest first) stands.
pub fn repetition(positions: &[Position]) -> Repetition {
    let Some(n) = positions.len().checked_sub(1) else {
        return Repetition::None;
    };
    let key = positions[n].key();
    let same: Vec<usize> = (0..=n).filter(|&i| positions[i].key() == key).collect();
    if same.len() < 4 {
        return Repetition::None;
    }
    let first = same[same.len() - 4];
    // Position i (i > first) was reached by a move of the side to move in position i - 1;
    // that move gave check when position i has its side to move in check.
    let mut all_checks = [true, true];
    for i in first + 1..=n {
        let mover = positions[i - 1].side_to_move();
        if !positions[i].in_check() {
            all_checks[mover.index()] = false;
        }
    }
    let checker = match all_checks {
        [true, false] => Some(Color::Black),
        [false, true] => Some(Color::White),
        _ => None,
    };
    Repetition::Fourfold { checker }
}

/// The side that loses by sennichite if the game ends with `positions` (the last one being a
/// fourfold repetition), or `None` if it is no repetition or a draw.
pub fn repetition_loser(positions: &[Position], rule: SennichiteRule) -> Option<Color> {
    match repetition(positions) {
        Repetition::None => None,
        Repetition::Fourfold { checker: Some(c) } => Some(c),
        Repetition::Fourfold { checker: None } => rule.winner().map(|w| !w),
    }
}

/// Why a `position` description cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    Empty,
    BadStart(String),
    TextAfterStartpos,
    Sfen(SfenError),
    /// Move number `index` (1-based) of the move list.
    Move {
        index: usize,
        error: MoveError,
    },
}

impl From<SfenError> for PositionError {
    fn from(e: SfenError) -> PositionError {
        PositionError::Sfen(e)
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Empty => write!(f, "expected 'startpos' or 'sfen'"),
            PositionError::BadStart(s) => write!(
                f,
                "expected 'startpos' or 'sfen', got '{}'",
                crate::event::sanitize(s, 40)
            ),
            PositionError::TextAfterStartpos => write!(f, "unexpected text after startpos"),
            PositionError::Sfen(e) => write!(f, "bad SFEN: {e}"),
            PositionError::Move { index, error } => write!(f, "move {index}: {error}"),
        }
    }
}
impl std::error::Error for PositionError {}

#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Move>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    pub fn from_sfen(sfen: &str) -> Result<Game, SfenError> {
        Position::from_sfen(sfen).map(Game::new)
    }

    pub fn current(&self) -> &Position {
        // Never empty: `new` puts the start position in.
        self.positions.last().expect("a game has a start position")
    }

    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Plays a move after checking it is legal.
    pub fn play(&mut self, m: Move) -> Result<(), MoveError> {
        if !movegen::is_legal(self.current(), m) {
            let not_legal = MoveError::Illegal {
                mv: m,
                why: IllegalMove::NotLegal,
            };
            // Explain why, for moves that encode a real square and man (not raw junk).
            let well_formed = m.to().index() < 25
                && if m.is_drop() {
                    m.drop_kind().index() < PieceKind::King.index()
                } else {
                    m.from().index() < 25
                };
            if !well_formed {
                return Err(not_legal);
            }
            return Err(UsiMove::from_move(m)
                .resolve_or_explain(self.current())
                .err()
                .unwrap_or(not_legal));
        }
        let next = self.current().after(m);
        self.positions.push(next);
        self.moves.push(m);
        Ok(())
    }

    /// Parses a USI move, checks it and plays it.
    pub fn play_usi(&mut self, text: &str) -> Result<(), MoveError> {
        let m = notation::parse_move(self.current(), text)?;
        self.play(m)
    }

    /// A game from the arguments of a USI `position` command: `startpos` or `sfen <sfen>`,
    /// then optionally `moves <m>...` (USI notation). Also used by the command line, `bench`
    /// and the tools.
    pub fn parse_position(text: &str) -> Result<Game, PositionError> {
        let args: Vec<&str> = text.split_whitespace().collect();
        let moves_at = args.iter().position(|a| *a == "moves");
        let head = &args[..moves_at.unwrap_or(args.len())];
        let start = match head.first() {
            Some(&"startpos") if head.len() == 1 => Position::startpos(),
            Some(&"startpos") => return Err(PositionError::TextAfterStartpos),
            Some(&"sfen") => Position::from_sfen(&head[1..].join(" "))?,
            Some(other) => return Err(PositionError::BadStart(other.to_string())),
            None => return Err(PositionError::Empty),
        };
        let moves: Vec<UsiMove> = match moves_at {
            Some(at) => args[at + 1..]
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    UsiMove::parse(m).map_err(|e| PositionError::Move {
                        index: i + 1,
                        error: e.into(),
                    })
                })
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        Game::from_moves(start, &moves)
    }

    /// A game from its start position and moves, each checked for legality.
    pub fn from_moves(start: Position, moves: &[UsiMove]) -> Result<Game, PositionError> {
        let mut game = Game::new(start);
        game.positions.reserve(moves.len());
        game.moves.reserve(moves.len());
        for (i, m) in moves.iter().enumerate() {
            let mv = m
                .resolve_or_explain(game.current())
                .map_err(|error| PositionError::Move {
                    index: i + 1,
                    error,
                })?;
            let next = game.current().after(mv);
            game.positions.push(next);
            game.moves.push(mv);
        }
        Ok(game)
    }

    /// Takes the last move back; false when there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_some() {
            self.positions.pop();
            true
        } else {
            false
        }
    }

    /// How many times the current position has occurred (including now).
    pub fn occurrences(&self) -> usize {
        let key = self.current().key();
        self.positions.iter().filter(|p| p.key() == key).count()
    }

    pub fn repetition(&self) -> Repetition {
        repetition(&self.positions)
    }

    /// The result if the game is over in the current position.
    pub fn result(&self, rules: GameRules) -> Option<GameResult> {
        let pos = self.current();
        if movegen::count_legal(pos) == 0 {
            return Some(GameResult {
                winner: Some(!pos.side_to_move()),
                reason: if pos.in_check() {
                    EndReason::Checkmate
                } else {
                    EndReason::NoLegalMove
                },
            });
        }
        if let Repetition::Fourfold { checker } = self.repetition() {
            return Some(match checker {
                Some(c) => GameResult {
                    winner: Some(!c),
                    reason: EndReason::PerpetualCheck,
                },
                None => GameResult {
                    winner: rules.sennichite.winner(),
                    reason: EndReason::Sennichite,
                },
            });
        }
        if rules.max_plies > 0 && pos.move_number().saturating_sub(1) >= rules.max_plies {
            return Some(GameResult {
                winner: None,
                reason: EndReason::MoveLimit,
            });
        }
        None
    }
}
