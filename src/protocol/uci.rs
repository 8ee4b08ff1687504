//! The UCI dialect: minishogi spoken the way Fairy-Stockfish speaks it in UCI mode, so that
//! chess GUIs and match runners (cutechess-cli, pychess-style clients) can play the engine.
//! Like `crate::usi` it parses lines into the shared [`Command`] and formats the engine's
//! events; only the notations differ, and they map onto the rules core's own types (a FEN is
//! turned into an SFEN and read by the one SFEN parser; a UCI move into a [`UsiMove`]).
//!
//! The conventions, each checked against the Fairy-Stockfish binary (`uci`,
//! `setoption name UCI_Variant value minishogi`):
//!
//! * Colours: `w` (white) is sente, the side that moves first and is written in upper case;
//!   `b` (black) is gote. So `wtime`/`winc` are sente's clock and `btime`/`binc` gote's, the
//!   other way round from USI.
//! * Squares: chess coordinates seen from sente: files `a`..`e` from sente's left, ranks
//!   `1`..`5` from sente's side. USI `5e` (sente's king square) is `a1`, USI `1a` is `e5`.
//! * Moves: `c1d2`; a promotion ends in `+` (`a4a1+`); a drop is `P@c3` with the piece letter
//!   in upper case for both sides (never `P*`). `(none)` stands for "no move" (USI `resign`).
//! * FEN: the board field is exactly the SFEN board, with promoted men as `+P`, `+S`, `+B`,
//!   `+R`. The hands follow in brackets, each man repeated (no counts), sente's in upper case
//!   first, in the order gold, pawn, silver, rook, bishop (Fairy-Stockfish's piece-type order):
//!   `[GPPSsb]`; empty hands are `[]` (`[-]` is read as empty too). Then the side to move, the
//!   castling and en-passant fields `- -`, the half-move clock and the full-move number:
//!   start position `rbsgk/4p/5/P4/KGSBR[] w - - 0 1`.
//! * Move numbers: a FEN full-move number `N` with side `s` is the SFEN move count
//!   `2 * (N - 1) + (1 if gote to move) + 1`; SFEN count `M` becomes full-move
//!   `1 + (max(M - 1, 0) - (1 if gote to move)) / 2` (integer division towards zero), exactly
//!   as Fairy-Stockfish converts them. The half-move clock has no SFEN counterpart: it is
//!   written as 0 and ignored on input.
//! * `score mate N` counts moves, not plies: `N` plies becomes `(N + 1) / 2` moves, and `-N`
//!   plies `-(N + 1) / 2` (Fairy-Stockfish prints `mate 2` in UCI where it prints `mate 3` in
//!   USI, and `mate -1` for USI `mate -2`).
//! * `go mate N` asks for a mate in N moves and is answered by a `bestmove`: it becomes a
//!   search of `2N - 1` plies.

use super::command::{self, Command, CommandError, Notation};
use super::dialect::Dialect;
use super::format::{common_lines, info_line};
use crate::engine::Engine;
use crate::event::{Event, MateAnswer, Score};
use crate::game::SennichiteRule;
use crate::notation::UsiMove;
use crate::options::{parse_integer, OptionId, OptionSpec};
use crate::position::{Position, SfenError};
use crate::text::sanitize;
use crate::types::{Color, Move, PieceKind, Square};
use std::fmt;

/// The UCI dialect, as the loop holds it.
pub struct Uci;

impl Dialect for Uci {
    fn handshake(&self) -> &'static str {
        "uci"
    }
    /// UCI tools (cutechess, Fairy-Stockfish, lishogi) count a plain repetition as a loss for
    /// sente.
    fn on_handshake(&self, engine: &mut Engine) {
        if let Err(e) = engine.set(OptionId::SennichiteRule, SennichiteRule::GoteWins) {
            log::error!("UCI handshake: SennichiteRule gote-wins: {e}");
        }
    }
    fn parse(&self, words: &[&str]) -> Result<Command, CommandError> {
        parse(words)
    }
    fn format(&self, event: &Event) -> Vec<String> {
        format(event)
    }
    fn move_text(&self, m: Move) -> String {
        move_text(m)
    }
    fn option_name(&self, spec: &OptionSpec) -> Option<&'static str> {
        spec.uci_name
    }
    fn describe(&self, pos: &Position) -> Vec<String> {
        vec![format!("Fen: {}", position_to_fen(pos))]
    }
}

/// UCI's move syntax and clocks for the command grammar.
pub const NOTATION: Notation = Notation {
    parse_move,
    white_is_sente: true,
    mate_is_depth: true,
    move_examples: "c1d2, a4a1+ or P@d3",
};

/// Piece kinds in the order Fairy-Stockfish writes FEN holdings.
const FEN_HAND_ORDER: [PieceKind; 5] = [
    PieceKind::Gold,
    PieceKind::Pawn,
    PieceKind::Silver,
    PieceKind::Rook,
    PieceKind::Bishop,
];

// ------------------------------------------------------------------------------- squares

/// A UCI square (`a1`).
fn parse_square(b: &[u8]) -> Option<Square> {
    match *b {
        [f @ b'a'..=b'e', r @ b'1'..=b'5'] => Square::from_file_rank(5 - (f - b'a'), b'5' - r),
        _ => None,
    }
}

fn square_text(sq: Square) -> [char; 2] {
    [
        (b'a' + (5 - sq.file())) as char,
        (b'1' + (4 - sq.rank())) as char,
    ]
}

// ------------------------------------------------------------------------------- moves

/// A UCI move (`c1d2`, `a4a1+`, `P@d3`), syntax only. Also accepted: a trailing `=`
/// (declining a promotion, as Fairy-Stockfish reads it) and a lower-case drop letter.
pub fn parse_move(text: &str) -> Option<UsiMove> {
    let b = text.as_bytes();
    if b.len() == 4 && b[1] == b'@' {
        let kind = PieceKind::from_letter(b[0].to_ascii_uppercase() as char)
            .filter(|k| *k != PieceKind::King)?;
        return Some(UsiMove::Drop {
            kind,
            to: parse_square(&b[2..4])?,
        });
    }
    let promote = match b.len() {
        4 => false,
        5 if b[4] == b'+' => true,
        5 if b[4] == b'=' => false,
        _ => return None,
    };
    let from = parse_square(&b[0..2])?;
    let to = parse_square(&b[2..4])?;
    (from != to).then_some(UsiMove::Board { from, to, promote })
}

/// A move in UCI notation; `(none)` for [`Move::NONE`].
pub fn move_text(m: Move) -> String {
    if m.is_none() {
        return "(none)".to_string();
    }
    let mut s = String::with_capacity(5);
    if m.is_drop() {
        s.push(m.drop_kind().letter());
        s.push('@');
    } else {
        s.extend(square_text(m.from()));
    }
    s.extend(square_text(m.to()));
    if m.is_promotion() {
        s.push('+');
    }
    s
}

/// A USI move string in UCI notation (syntax only; `None` when it is not a USI move).
pub fn usi_move_to_uci(m: &str) -> Option<String> {
    UsiMove::parse(m).ok().map(|u| move_text(u.to_move()))
}

/// A UCI move string in USI notation (syntax only; `None` when it is not a UCI move).
pub fn uci_move_to_usi(m: &str) -> Option<String> {
    parse_move(m).map(|u| u.to_move().to_string())
}

// ------------------------------------------------------------------------------- FEN

/// What is wrong with a FEN. The board and the rules are checked by the SFEN parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    Empty,
    Hands(String),
    Side(String),
    Field(String),
    Number(String),
    Sfen(SfenError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "empty FEN"),
            FenError::Hands(h) => write!(f, "bad FEN hands '{h}'"),
            FenError::Side(s) => write!(f, "bad FEN side to move '{s}' (w = sente, b = gote)"),
            FenError::Field(s) => write!(f, "unexpected FEN field '{s}'"),
            FenError::Number(s) => write!(f, "'{s}' is not a valid FEN move number"),
            FenError::Sfen(e) => write!(f, "bad FEN: {e}"),
        }
    }
}
impl std::error::Error for FenError {}

/// The position of a FEN in Fairy-Stockfish's minishogi format. Accepted:
/// `board[hands] side [castling [ep]] [halfmove] [fullmove]`, where the hands may also be
/// written as a sixth rank (`.../KGSBR/Pp`), `-` in the hands is ignored, and a count before a
/// letter (`[2P]`) repeats it. With only one number after the side it is taken as the
/// full-move number (cutechess writes `rbsgk/4p/5/P4/KGSBR[-] w - 1`).
pub fn parse_fen(fen: &str) -> Result<Position, FenError> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let Some(&first) = fields.first() else {
        return Err(FenError::Empty);
    };
    let (board, holdings) = match first.find('[') {
        Some(open) => {
            let rest = &first[open + 1..];
            match rest.find(']') {
                Some(close) if close + 1 == rest.len() => (&first[..open], &rest[..close]),
                _ => return Err(FenError::Hands(sanitize(rest, 20))),
            }
        }
        None if first.split('/').count() == 6 => first.rsplit_once('/').unwrap_or((first, "")),
        None => (first, ""),
    };
    let hands = sfen_hands(holdings)?;
    let gote = match fields.get(1) {
        Some(&"w") => false,
        Some(&"b") => true,
        Some(s) => return Err(FenError::Side(sanitize(s, 20))),
        None => return Err(FenError::Side(String::new())),
    };
    // Castling and en-passant fields, if present, are `-`.
    let mut rest = &fields[2..];
    let mut skipped = 0;
    while skipped < 2 && rest.first() == Some(&"-") {
        rest = &rest[1..];
        skipped += 1;
    }
    let number = |s: &str| {
        parse_integer(s)
            .filter(|n| (0..=i64::from(u32::MAX)).contains(n))
            .ok_or_else(|| FenError::Number(sanitize(s, 20)))
    };
    let fullmove = match rest {
        [] => 1,
        [full] => number(full)?,
        [half, full] => {
            number(half)?;
            number(full)?
        }
        _ => return Err(FenError::Field(sanitize(rest[0], 20))),
    };
    let move_number = 2 * (fullmove.max(1) - 1) + i64::from(gote) + 1;
    if move_number > i64::from(u32::MAX) {
        return Err(FenError::Number(fullmove.to_string()));
    }
    let side = if gote { 'w' } else { 'b' };
    Position::from_sfen(&format!("{board} {side} {hands} {move_number}")).map_err(FenError::Sfen)
}

/// FEN holdings (men repeated or counted, any order, `-` ignored) as an SFEN hand field.
/// Letters are only tallied here; the SFEN parser judges them.
fn sfen_hands(holdings: &str) -> Result<String, FenError> {
    let bad = || FenError::Hands(sanitize(holdings, 20));
    let mut counts: Vec<(char, u32)> = Vec::new();
    let mut count: Option<u32> = None;
    for c in holdings.chars() {
        if let Some(d) = c.to_digit(10) {
            count = Some(count.unwrap_or(0).saturating_mul(10).saturating_add(d));
            continue;
        }
        if c == '-' {
            if count.is_some() {
                return Err(bad());
            }
            continue;
        }
        let n = count.take().unwrap_or(1);
        if n == 0 {
            return Err(bad());
        }
        match counts.iter_mut().find(|(l, _)| *l == c) {
            Some((_, total)) => *total = total.saturating_add(n),
            None => counts.push((c, n)),
        }
    }
    if count.is_some() {
        return Err(bad());
    }
    if counts.is_empty() {
        return Ok("-".to_string());
    }
    let mut s = String::new();
    for (c, n) in counts {
        if n > 1 {
            s.push_str(&n.to_string());
        }
        s.push(c);
    }
    Ok(s)
}

/// A position as Fairy-Stockfish writes its FEN.
pub fn position_to_fen(pos: &Position) -> String {
    let sfen = pos.to_sfen();
    let board = sfen.split(' ').next().unwrap_or("");
    let mut hands = String::new();
    for color in [Color::Black, Color::White] {
        for kind in FEN_HAND_ORDER {
            let letter = match color {
                Color::Black => kind.letter(),
                Color::White => kind.letter().to_ascii_lowercase(),
            };
            for _ in 0..pos.hand(color).count(kind) {
                hands.push(letter);
            }
        }
    }
    let gote = pos.side_to_move() == Color::White;
    let ply = i64::from(pos.move_number().saturating_sub(1));
    // Fairy-Stockfish: 1 + (gamePly - (side == black)) / 2, truncating towards zero.
    let fullmove = 1 + (ply - i64::from(gote)) / 2;
    format!(
        "{board}[{hands}] {} - - 0 {fullmove}",
        if gote { 'b' } else { 'w' }
    )
}

/// A FEN as the canonical SFEN of its position.
pub fn fen_to_sfen(fen: &str) -> Result<String, FenError> {
    parse_fen(fen).map(|p| p.to_sfen())
}

/// An SFEN as Fairy-Stockfish's FEN of its position.
pub fn sfen_to_fen(sfen: &str) -> Result<String, SfenError> {
    Position::from_sfen(sfen).map(|p| position_to_fen(&p))
}

// ------------------------------------------------------------------------------- input

/// Parses one UCI command line (already split into words).
pub fn parse(words: &[&str]) -> Result<Command, CommandError> {
    let Some((&cmd, args)) = words.split_first() else {
        return Ok(Command::Nothing);
    };
    if let Some(common) = command::parse_common(cmd, args, &NOTATION) {
        return common;
    }
    match cmd {
        "uci" => Ok(Command::Hello),
        "ucinewgame" => Ok(Command::NewGame),
        "debug" | "register" => Ok(Command::Nothing),
        "position" => parse_position(args),
        _ => Err(CommandError::Unknown(sanitize(cmd, 40))),
    }
}

/// `position startpos|fen <fen>|sfen <sfen> [moves <m>...]` with the moves in UCI notation
/// (Fairy-Stockfish also takes an SFEN in UCI mode).
fn parse_position(args: &[&str]) -> Result<Command, CommandError> {
    let (head, moves) = command::split_position(args, &NOTATION)?;
    let start = match head.first() {
        Some(&"fen") => {
            parse_fen(&head[1..].join(" ")).map_err(|e| CommandError::Fen(e.to_string()))?
        }
        _ => *crate::game::Game::parse_position(&head.join(" "))?.start(),
    };
    Ok(Command::Position { start, moves })
}

// ------------------------------------------------------------------------------- output

/// Mate distances count moves in UCI, as Fairy-Stockfish counts them.
fn score(s: Score) -> String {
    match s {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(plies) if plies >= 0 => format!("mate {}", (plies + 1) / 2),
        Score::Mate(plies) => format!("mate -{}", (-plies + 1) / 2),
    }
}

/// An event as UCI lines.
pub fn format(event: &Event) -> Vec<String> {
    if let Some(lines) = common_lines(event, move_text) {
        return lines;
    }
    vec![match event {
        Event::Info(info) => info_line(info, move_text, score),
        Event::BestMove {
            best: Some(b),
            ponder: Some(p),
        } => format!("bestmove {} ponder {}", move_text(*b), move_text(*p)),
        Event::BestMove { best, .. } => {
            format!("bestmove {}", move_text(best.unwrap_or(Move::NONE)))
        }
        // UCI has no mate search of its own (`go mate` is a search); shown for completeness.
        Event::Checkmate(MateAnswer::Mate(moves)) => {
            let text: Vec<String> = moves.iter().map(|&m| move_text(m)).collect();
            format!("info string checkmate {}", text.join(" "))
        }
        Event::Checkmate(MateAnswer::NoMate) => "info string checkmate nomate".to_string(),
        Event::Checkmate(MateAnswer::Timeout) => "info string checkmate timeout".to_string(),
        _ => return Vec::new(),
    }]
}
