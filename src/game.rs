//! A game: a start position plus the moves played, with the positions in between, so that
//! repetition (sennichite) and the end of the game can be judged as docs/rules.md says:
//!
//! - the side to move with no legal move loses (checkmate, or no move at all);
//! - when the current position (board, hands, side to move) occurs for the fourth time, a side
//!   that gave check with every one of its moves since the first of those four occurrences
//!   loses; otherwise [`SennichiteRule`] decides (draw, or gote wins);
//! - with a move limit, the game is drawn once that many plies have been played.
//!
//! [`RepetitionIndex`] answers the repetition questions without scanning the game, so that
//! playing, judging and searching a game of 200,000 plies costs what a short one does (issue
//! 15); [`repetition`] is the plain scan it must agree with.

use crate::movegen;
use crate::notation::{self, IllegalMove, MoveError, UsiMove};
use crate::position::{Position, SfenError};
use crate::types::{Color, Move, PieceKind};
use crate::zobrist::KeyMap;
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

impl Repetition {
    /// The side that loses by it under `rule`, or `None` if it is no repetition or a draw.
    pub fn loser(self, rule: SennichiteRule) -> Option<Color> {
        match self {
            Repetition::None => None,
            Repetition::Fourfold { checker: Some(c) } => Some(c),
            Repetition::Fourfold { checker: None } => rule.winner().map(|w| !w),
        }
    }
}

/// The side that loses by sennichite if the game ends with `positions` (the last one being a
/// fourfold repetition), or `None` if it is no repetition or a draw.
pub fn repetition_loser(positions: &[Position], rule: SennichiteRule) -> Option<Color> {
    repetition(positions).loser(rule)
}

/// The keys of a game's positions (oldest first) indexed for repetition questions: where each
/// key occurred, and per side prefix counts of the moves that gave no check, so that
/// [`RepetitionIndex::repetition`] and the rest cost a hash lookup, not a scan of the game.
#[derive(Clone, Debug)]
pub struct RepetitionIndex {
    keys: Vec<u64>,
    /// The side to move of each position.
    sides: Vec<Color>,
    /// Indices of each key, ascending.
    at: KeyMap<Vec<u32>>,
    /// `quiet[c][i]`: how many of the positions `1..i` were reached by a move of side `c` that
    /// gave no check (`len() + 1` entries per side).
    quiet: [Vec<u32>; 2],
}

impl Default for RepetitionIndex {
    /// No positions yet.
    fn default() -> RepetitionIndex {
        RepetitionIndex {
            keys: Vec::new(),
            sides: Vec::new(),
            at: KeyMap::default(),
            quiet: [vec![0], vec![0]],
        }
    }
}

impl RepetitionIndex {
    pub fn new(positions: &[Position]) -> RepetitionIndex {
        let mut index = RepetitionIndex::default();
        index.keys.reserve(positions.len());
        index.sides.reserve(positions.len());
        for p in positions {
            index.push(p);
        }
        index
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key of the position at `i`.
    pub fn key(&self, i: usize) -> u64 {
        self.keys[i]
    }

    /// The side that moved into a position that comes after the last one, and whether that
    /// move gave no check (the position is not in check); `None` for the first position.
    fn quiet_move_into(&self, in_check: bool) -> Option<(Color, bool)> {
        self.sides.last().map(|&mover| (mover, !in_check))
    }

    /// Appends the next position of the game.
    pub fn push(&mut self, pos: &Position) {
        self.push_known(pos.key(), pos.side_to_move(), pos.in_check());
    }

    /// [`RepetitionIndex::push`] for a caller that already knows the position's key, side to
    /// move and whether it is in check.
    pub fn push_known(&mut self, key: u64, side: Color, in_check: bool) {
        let moved = self.quiet_move_into(in_check);
        for c in Color::BOTH {
            let last = self.quiet[c.index()].last().copied().unwrap_or(0);
            let add = moved.is_some_and(|(mover, quiet)| mover == c && quiet);
            self.quiet[c.index()].push(last + add as u32);
        }
        self.at.entry(key).or_default().push(self.keys.len() as u32);
        self.keys.push(key);
        self.sides.push(side);
    }

    /// Removes the last position (a move taken back).
    pub fn pop(&mut self) {
        let Some(key) = self.keys.pop() else {
            return;
        };
        self.sides.pop();
        for q in self.quiet.iter_mut() {
            q.pop();
        }
        if let Some(list) = self.at.get_mut(&key) {
            list.pop();
            if list.is_empty() {
                self.at.remove(&key);
            }
        }
    }

    /// How many times `key` occurs.
    pub fn occurrences(&self, key: u64) -> usize {
        self.at.get(&key).map_or(0, Vec::len)
    }

    /// The latest index `j <= limit` with `j % 2 == parity` at which `key` occurs. (In a game
    /// a key keeps its side to move, so all its indices have one parity and this is a binary
    /// search; the step back over the other parity is for the search's null moves only.)
    pub fn latest(&self, key: u64, limit: usize, parity: usize) -> Option<usize> {
        self.latest_first(key, limit, parity).next()
    }

    /// Every index `j <= limit` with `j % 2 == parity` at which `key` occurs, the latest
    /// first (one lookup of the key).
    pub fn latest_first(
        &self,
        key: u64,
        limit: usize,
        parity: usize,
    ) -> impl Iterator<Item = usize> + '_ {
        let list = self.at.get(&key).map_or(&[][..], Vec::as_slice);
        let end = list.partition_point(|&i| i as usize <= limit);
        list[..end]
            .iter()
            .rev()
            .map(|&i| i as usize)
            .filter(move |i| i % 2 == parity)
    }

    /// How a repetition of the last position stands (as [`repetition`] of the positions).
    pub fn repetition(&self) -> Repetition {
        let Some(n) = self.keys.len().checked_sub(1) else {
            return Repetition::None;
        };
        let Some(same) = self.at.get(&self.keys[n]) else {
            return Repetition::None;
        };
        if same.len() < 4 {
            return Repetition::None;
        }
        let first = same[same.len() - 4] as usize;
        let quiet = |c: Color| self.quiet[c.index()][n + 1] - self.quiet[c.index()][first + 1];
        Repetition::Fourfold {
            checker: Self::checker(quiet(Color::Black), quiet(Color::White)),
        }
    }

    /// How a repetition would stand with `next` appended (without appending it).
    pub fn repetition_after(&self, next: &Position) -> Repetition {
        let n = self.keys.len();
        let same = self.at.get(&next.key()).map_or(&[][..], Vec::as_slice);
        if same.len() < 3 {
            return Repetition::None;
        }
        let first = same[same.len() - 3] as usize;
        let moved = self.quiet_move_into(next.in_check());
        let quiet = |c: Color| {
            let q = &self.quiet[c.index()];
            let last = moved.is_some_and(|(mover, quiet)| mover == c && quiet);
            q[n] - q[first + 1] + last as u32
        };
        Repetition::Fourfold {
            checker: Self::checker(quiet(Color::Black), quiet(Color::White)),
        }
    }

    /// The side that checked with all its moves of the cycle, from each side's count of quiet
    /// moves in it.
    fn checker(black_quiet: u32, white_quiet: u32) -> Option<Color> {
        match (black_quiet == 0, white_quiet == 0) {
            (true, false) => Some(Color::Black),
            (false, true) => Some(Color::White),
            _ => None,
        }
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
                crate::text::sanitize(s, 40)
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
    /// The positions' keys, for repetitions without a scan of the game.
    index: RepetitionIndex,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            index: RepetitionIndex::new(&[start]),
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
        self.index.push(&next);
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
            // The repetition index must see every position, as `play` does: without it a
            // game set up by `position ... moves` never ends by sennichite.
            game.index.push(&next);
            game.moves.push(mv);
        }
        Ok(game)
    }

    /// Takes the last move back; false when there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_some() {
            self.positions.pop();
            self.index.pop();
            true
        } else {
            false
        }
    }

    /// How many times the current position has occurred (including now).
    pub fn occurrences(&self) -> usize {
        self.index.occurrences(self.current().key())
    }

    pub fn repetition(&self) -> Repetition {
        self.index.repetition()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The game of `start` and the USI moves `cycle` played `times` times.
    fn cycle_game(start: Position, cycle: &[&str], times: usize) -> Game {
        let mut game = Game::new(start);
        for _ in 0..times {
            for m in cycle {
                game.play_usi(m).expect("a legal cycle");
            }
        }
        game
    }

    /// Every answer of the index against the plain scan, for the game's current position and
    /// for every move from it.
    fn agree(game: &Game) {
        let positions = game.positions();
        assert_eq!(
            game.repetition(),
            repetition(positions),
            "{:?}",
            game.moves()
        );
        let key = game.current().key();
        let scanned = positions.iter().filter(|p| p.key() == key).count();
        assert_eq!(game.occurrences(), scanned);
        let mut line = positions.to_vec();
        line.push(*game.current());
        for &m in movegen::legal_moves(game.current()).iter() {
            let next = game.current().after(m);
            *line.last_mut().expect("pushed") = next;
            assert_eq!(game.index.repetition_after(&next), repetition(&line), "{m}");
        }
    }

    #[test]
    fn the_index_agrees_with_the_scan_on_random_walks() {
        // Few men on the board, so that a random walk comes back to its positions often, with
        // and without checks; moves are taken back now and then.
        for sfen in [
            "4k/2R2/5/5/K4 b - 1",
            "4k/p1R2/5/5/K4 b - 1",
            "4k/5/2B2/5/K4 w - 1",
            "4k/1r3/5/3G1/K4 b - 1",
        ] {
            let mut game = Game::from_sfen(sfen).expect("a valid SFEN");
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut fourfold = 0;
            for _ in 0..400 {
                agree(&game);
                if game.repetition() != Repetition::None {
                    fourfold += 1;
                }
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let r = (seed >> 33) as usize;
                let moves = movegen::legal_moves(game.current());
                if moves.is_empty() || r.is_multiple_of(7) {
                    game.undo();
                    continue;
                }
                // Among the first few moves only: a small world, visited again and again.
                let m = moves.as_slice()[r % moves.len().min(3)];
                game.play(m).expect("a legal move");
            }
            assert!(fourfold > 0, "{sfen}: the walk never repeated four times");
        }
    }

    #[test]
    fn a_long_cycle_game_judges_like_a_short_one() {
        // Sente's rook checks, gote's king steps away and back: perpetual check by sente. And
        // the kings of the start position stepping out and back: a plain repetition.
        let rook = Position::from_sfen("4k/2R2/5/5/K4 b - 1").expect("a valid SFEN");
        let perpetual = ["3b3a", "1a1b", "3a3b", "1b1a"];
        let quiet = ["5e4d", "1a2b", "4d5e", "2b1a"];
        for (start, cycle) in [(rook, perpetual), (Position::startpos(), quiet)] {
            let short = cycle_game(start, &cycle, 3);
            // 200,000 plies: every move costs the same however long the game (issue 15).
            let started = std::time::Instant::now();
            let long = cycle_game(start, &cycle, 50_000);
            let built = started.elapsed();
            assert_eq!(long.moves().len(), 200_000);
            assert_eq!(long.repetition(), short.repetition());
            assert_ne!(long.repetition(), Repetition::None);
            assert_eq!(long.occurrences(), 50_001);
            for rules in [
                GameRules::default(),
                GameRules {
                    sennichite: SennichiteRule::GoteWins,
                    max_plies: 0,
                },
            ] {
                assert_eq!(long.result(rules), short.result(rules));
            }
            // Generous for a debug build on a busy machine; a scan per move took minutes.
            assert!(built.as_secs() < 20, "{built:?}");
            // Ply by ply through five cycles, the index agrees with the scan; and taking
            // moves back keeps it right.
            let mut g = Game::new(start);
            for m in cycle.iter().cycle().take(20) {
                agree(&g);
                g.play_usi(m).expect("a legal cycle");
            }
            for _ in 0..6 {
                agree(&g);
                g.undo();
            }
        }
    }
}
