//! The command grammar both text dialects share: the typed [`Command`] each line is parsed
//! into, the `go` parameters (one keyword list, one number parser) and the arguments of
//! `position`, `perft`, `bench` and `setoption`. What differs between the dialects (move
//! syntax, clock names, what `go mate` means) comes in as a [`Notation`].

use crate::engine::{GoRequest, MateLimit};
use crate::game::PositionError;
use crate::notation::UsiMove;
use crate::options::parse_integer;
use crate::position::Position;
use crate::text::sanitize;
use std::fmt;

/// What the grammar needs to know of a dialect.
#[derive(Copy, Clone, Debug)]
pub struct Notation {
    /// Reads one move in the dialect's syntax (syntax only).
    pub parse_move: fn(&str) -> Option<UsiMove>,
    /// `wtime`/`winc` are sente's clock (UCI: white moves first), not gote's (USI).
    pub white_is_sente: bool,
    /// `go mate N` is a search for a mate in N moves answered by `bestmove` (UCI), not the
    /// mate solver with a time limit answered by `checkmate` (USI).
    pub mate_is_depth: bool,
    /// Moves in the dialect's syntax, for error messages.
    pub move_examples: &'static str,
}

/// The keywords of `go` in both dialects: a `searchmoves` list ends at any of them.
pub const GO_KEYWORDS: [&str; 14] = [
    "btime",
    "wtime",
    "binc",
    "winc",
    "byoyomi",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "infinite",
    "ponder",
    "searchmoves",
    "mate",
    "perft",
];

/// One input line, parsed.
#[derive(Clone, Debug)]
pub enum Command {
    /// `usi` or `uci`: the handshake (the loop switches dialect on it).
    Hello,
    IsReady,
    SetOption {
        name: String,
        value: String,
    },
    NewGame,
    Position {
        start: Position,
        moves: Vec<UsiMove>,
    },
    Go(GoCommand),
    Perft(u32),
    Bench(Option<i32>),
    Stop,
    PonderHit,
    GameOver,
    Quit,
    /// `d`: show the position.
    Display,
    /// `eval`: the static evaluation's terms.
    Eval,
    /// A command that needs no answer (`debug`, `register`, a blank line).
    Nothing,
}

/// A parsed `go`: the request, plus what was wrong with it (reported, then ignored: every
/// `go` is answered).
#[derive(Clone, Debug, Default)]
pub struct GoCommand {
    pub request: GoRequest,
    /// `searchmoves`, checked for syntax only (legality is judged against the position when
    /// the search starts).
    pub searchmoves: Vec<UsiMove>,
    pub problems: Vec<GoProblem>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoProblem {
    BadValue {
        keyword: &'static str,
        value: String,
    },
    MissingValue(&'static str),
    UnknownParameter(String),
    /// `searchmoves` entries that are not moves in the dialect's syntax: how many, and the
    /// first.
    BadSearchMoves {
        count: usize,
        first: String,
    },
    /// `searchmoves` entries left out (bad syntax or not legal in the position): how many of
    /// how many, why the first was, and whether any legal one is left.
    SearchMovesIgnored {
        ignored: usize,
        given: usize,
        first: String,
        none_left: bool,
    },
}

impl fmt::Display for GoProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GoProblem::BadValue { keyword, value } => {
                write!(f, "go: {keyword} needs a number, got '{value}'; ignored")
            }
            GoProblem::MissingValue(keyword) => {
                write!(f, "go: {keyword} needs a value; ignored")
            }
            GoProblem::UnknownParameter(p) => write!(f, "go: unknown parameter '{p}' ignored"),
            GoProblem::BadSearchMoves { count, first } => write!(
                f,
                "searchmoves: {count} entries are not moves (first: '{first}'); ignored"
            ),
            GoProblem::SearchMovesIgnored {
                ignored,
                given,
                first,
                none_left,
            } => write!(
                f,
                "searchmoves: {ignored} of {given} moves ignored (first: {first}); {}",
                if *none_left {
                    "none left: searching all moves"
                } else {
                    "searching the others"
                }
            ),
        }
    }
}

/// Why a line could not be parsed into a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    Unknown(String),
    Position(PositionError),
    /// A FEN (UCI dialect) that does not map onto a valid SFEN.
    Fen(String),
    /// A move of a `position ... moves` list that is not a move in the dialect's syntax
    /// (`examples`: moves that are, in that syntax).
    MoveSyntax {
        index: usize,
        text: String,
        examples: &'static str,
    },
    Usage(&'static str),
    /// `perft` deeper than the engine runs.
    TooDeep {
        depth: i64,
        max: u32,
    },
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Unknown(c) => write!(f, "unknown command '{c}'"),
            CommandError::Position(e) => write!(f, "position rejected: {e}"),
            CommandError::Fen(e) => write!(f, "position rejected: {e}"),
            CommandError::MoveSyntax {
                index,
                text,
                examples,
            } => {
                write!(
                    f,
                    "position rejected: move {index} '{text}' is not a move (expected e.g. {examples})"
                )
            }
            CommandError::Usage(u) => f.write_str(u),
            CommandError::TooDeep { depth, max } => {
                write!(
                    f,
                    "perft depth {depth} is more than {max}; nothing was counted"
                )
            }
        }
    }
}
impl std::error::Error for CommandError {}

impl From<PositionError> for CommandError {
    fn from(e: PositionError) -> CommandError {
        CommandError::Position(e)
    }
}

/// A number after a `go` keyword: an integer (negative counts as 0, beyond `i64` saturates
/// at `i64::MAX`, as `parse_integer` reads it);
/// for clock values a decimal fraction (`0.9`) is read as seconds, as some GUIs send them.
pub fn parse_go_number(text: &str, seconds_if_fraction: bool) -> Option<u64> {
    if let Some(n) = parse_integer(text) {
        return Some(n.max(0) as u64);
    }
    if !seconds_if_fraction {
        return None;
    }
    let (whole, fraction) = text.split_once('.')?;
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || fraction.is_empty() || !digits(whole) || !digits(fraction) {
        return None;
    }
    let seconds: f64 = text.parse().ok()?;
    Some((seconds * 1000.0).round().min(u64::MAX as f64) as u64)
}

/// Parses the arguments of `go` in a dialect's `notation`. The clocks are given per colour
/// in USI terms (`btime` is sente's); the UCI dialect swaps them, and turns `mate N` (moves)
/// into a search of `2N - 1` plies.
pub fn parse_go(args: &[&str], notation: &Notation) -> GoCommand {
    let parse_move = notation.parse_move;
    let mut go = GoCommand::default();
    let limits = &mut go.request.limits;
    let mut bad_moves = 0usize;
    let mut first_bad = String::new();
    let mut uci_mate_depth = None;
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        i += 1;
        let Some(&keyword) = GO_KEYWORDS.iter().find(|k| **k == word) else {
            go.problems
                .push(GoProblem::UnknownParameter(sanitize(word, 20)));
            continue;
        };
        let problems = &mut go.problems;
        let value = |seconds: bool, i: &mut usize, problems: &mut Vec<GoProblem>| -> Option<u64> {
            take_value(args, i, keyword, seconds, problems)
        };
        // USI `btime` is sente's clock; UCI's `wtime` is (white moves first).
        let (sente, gote) = if notation.white_is_sente {
            (1, 0)
        } else {
            (0, 1)
        };
        match keyword {
            "btime" => limits.time[sente] = value(true, &mut i, problems),
            "wtime" => limits.time[gote] = value(true, &mut i, problems),
            "binc" => limits.inc[sente] = value(true, &mut i, problems).unwrap_or(0),
            "winc" => limits.inc[gote] = value(true, &mut i, problems).unwrap_or(0),
            "byoyomi" => limits.byoyomi = value(true, &mut i, problems).unwrap_or(0),
            "movestogo" => {
                limits.movestogo = value(false, &mut i, problems).map(|n| n.min(1000) as u32)
            }
            "movetime" => limits.movetime = value(true, &mut i, problems),
            "depth" => limits.depth = value(false, &mut i, problems).map(|n| n.min(200) as i32),
            "nodes" => limits.nodes = value(false, &mut i, problems),
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "mate" => match notation.mate_is_depth {
                false => {
                    go.request.mate = Some(match args.get(i) {
                        Some(&"infinite") => {
                            i += 1;
                            MateLimit::Infinite
                        }
                        None => MateLimit::Infinite,
                        Some(v) if GO_KEYWORDS.contains(v) => MateLimit::Infinite,
                        Some(_) => match value(true, &mut i, problems) {
                            Some(ms) => MateLimit::Millis(ms),
                            None => MateLimit::Infinite,
                        },
                    })
                }
                // UCI `go mate N` asks for a mate in N moves and still wants a `bestmove`.
                true => {
                    uci_mate_depth =
                        value(false, &mut i, problems).map(|n| (2 * n.clamp(1, 100) - 1) as i32)
                }
            },
            "searchmoves" => {
                while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                    match parse_move(args[i]) {
                        Some(m) => go.searchmoves.push(m),
                        None => {
                            if bad_moves == 0 {
                                first_bad = sanitize(args[i], 20);
                            }
                            bad_moves += 1;
                        }
                    }
                    i += 1;
                }
            }
            // `go perft` is parsed by the caller.
            _ => problems.push(GoProblem::UnknownParameter(keyword.to_string())),
        }
    }
    if bad_moves > 0 {
        go.problems.push(GoProblem::BadSearchMoves {
            count: bad_moves,
            first: first_bad,
        });
    }
    if limits.depth.is_none() {
        limits.depth = uci_mate_depth;
    }
    go
}

/// The value after `keyword` at `args[*i]` (advancing past it), unless it is the next keyword;
/// a missing or unreadable value is recorded in `problems`.
fn take_value(
    args: &[&str],
    i: &mut usize,
    keyword: &'static str,
    seconds: bool,
    problems: &mut Vec<GoProblem>,
) -> Option<u64> {
    match args.get(*i) {
        Some(v) if !GO_KEYWORDS.contains(v) => {
            *i += 1;
            let n = parse_go_number(v, seconds);
            if n.is_none() {
                problems.push(GoProblem::BadValue {
                    keyword,
                    value: sanitize(v, 20),
                });
            }
            n
        }
        _ => {
            problems.push(GoProblem::MissingValue(keyword));
            None
        }
    }
}

/// The arguments of `position` split at `moves`: the start (`startpos`, `sfen ...`, `fen ...`)
/// and the moves, read in the dialect's `notation` (syntax only; legality is judged when the
/// game is set up).
pub fn split_position<'a>(
    args: &'a [&'a str],
    notation: &Notation,
) -> Result<(&'a [&'a str], Vec<UsiMove>), CommandError> {
    let parse_move = notation.parse_move;
    let Some(at) = args.iter().position(|a| *a == "moves") else {
        return Ok((args, Vec::new()));
    };
    let moves = args[at + 1..]
        .iter()
        .enumerate()
        .map(|(i, m)| {
            parse_move(m).ok_or_else(|| CommandError::MoveSyntax {
                index: i + 1,
                text: sanitize(m, 20),
                examples: notation.move_examples,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((&args[..at], moves))
}

/// `perft <depth>` and `go perft <depth>`: one depth of 0 to
/// [`MAX_PERFT_DEPTH`](crate::engine::MAX_PERFT_DEPTH), nothing after it.
pub fn parse_perft(args: &[&str]) -> Result<Command, CommandError> {
    let max = crate::engine::MAX_PERFT_DEPTH;
    let [depth] = args else {
        return Err(CommandError::Usage("perft takes one depth"));
    };
    match parse_integer(depth) {
        Some(d) if (0..=i64::from(max)).contains(&d) => Ok(Command::Perft(d as u32)),
        Some(d) if d > i64::from(max) => Err(CommandError::TooDeep { depth: d, max }),
        _ => Err(CommandError::Usage("perft needs a depth")),
    }
}

/// `bench [depth]`.
pub fn parse_bench(args: &[&str]) -> Result<Command, CommandError> {
    match args {
        [] => Ok(Command::Bench(None)),
        [d] => parse_integer(d)
            .filter(|d| (1..=64).contains(d))
            .map(|d| Command::Bench(Some(d as i32)))
            .ok_or(CommandError::Usage("bench takes a depth of 1 to 64")),
        _ => Err(CommandError::Usage(
            "bench takes at most one argument, a depth of 1 to 64",
        )),
    }
}

/// `setoption name <id...> [value <x...>]`.
pub fn parse_setoption(args: &[&str]) -> Result<Command, CommandError> {
    let usage = CommandError::Usage("setoption needs 'name <id> [value <x>]'");
    let name_at = args
        .iter()
        .position(|a| *a == "name")
        .ok_or(usage.clone())?;
    let value_at = args.iter().position(|a| *a == "value");
    let name_end = value_at.unwrap_or(args.len());
    if name_end <= name_at + 1 {
        return Err(usage);
    }
    Ok(Command::SetOption {
        name: args[name_at + 1..name_end].join(" "),
        value: value_at
            .map(|v| args[v + 1..].join(" "))
            .unwrap_or_default(),
    })
}

/// The commands that read the same in both dialects, `go` with the dialect's `notation`.
pub fn parse_common(
    cmd: &str,
    args: &[&str],
    notation: &Notation,
) -> Option<Result<Command, CommandError>> {
    Some(Ok(match cmd {
        "go" if args.first() == Some(&"perft") => return Some(parse_perft(&args[1..])),
        "go" => Command::Go(parse_go(args, notation)),
        "isready" => Command::IsReady,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "d" => Command::Display,
        "eval" => Command::Eval,
        "gameover" => Command::GameOver,
        "bench" => return Some(parse_bench(args)),
        "perft" => return Some(parse_perft(args)),
        "setoption" => return Some(parse_setoption(args)),
        _ => return None,
    }))
}

/// Splits a line into its command word and arguments (whitespace-separated; a byte-order mark
/// is ignored).
pub fn tokens(line: &str) -> Vec<&str> {
    line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .split_whitespace()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::usi;

    #[test]
    fn go_numbers() {
        assert_eq!(parse_go_number("1000", true), Some(1000));
        assert_eq!(parse_go_number("-5", true), Some(0));
        assert_eq!(parse_go_number("0.9", true), Some(900));
        assert_eq!(parse_go_number("0.9", false), None);
        assert_eq!(parse_go_number("1e2", true), None);
        assert_eq!(
            parse_go_number("18446744073709551615", true),
            Some(i64::MAX as u64)
        );
        assert_eq!(parse_go_number("abc", true), None);
    }

    #[test]
    fn go_reports_problems_and_keeps_the_rest() {
        let args = ["btime", "abc", "wtime", "1000", "foo", "depth"];
        let go = parse_go(&args, &usi::NOTATION);
        assert_eq!(go.request.limits.time, [None, Some(1000)]);
        assert_eq!(go.problems.len(), 3, "{:?}", go.problems);
        let bad: Vec<String> = std::iter::repeat_n("zz".to_string(), 1000).collect();
        let mut args: Vec<&str> = vec!["depth", "1", "searchmoves"];
        args.extend(bad.iter().map(String::as_str));
        let go = parse_go(&args, &usi::NOTATION);
        assert_eq!(
            go.problems,
            vec![GoProblem::BadSearchMoves {
                count: 1000,
                first: "zz".into()
            }]
        );
    }
}
