//! What the two text dialects share: the typed [`Command`] each line is parsed into, the
//! `go` parameters (one keyword list, one number parser), bounded line reading, and the loop
//! that reads commands, hands them to the engine controller and prints the events of its jobs
//! in the dialect each job started in.
//!
//! The loop never ends on bad input: every problem is one `info string` and the previous state
//! stays. Only `quit` and the end of input end it.

use crate::engine::{Engine, GoRequest, MateLimit};
use crate::event::{Event, Sink};
use crate::game::{Game, PositionError, SennichiteRule};
use crate::notation::{MoveError, UsiMove};
use crate::options::{parse_integer, Dialect, OPTIONS};
use crate::position::Position;
use crate::text::sanitize;
use crate::types::Move;
use crate::{eval, uci, usi};
use std::fmt;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub const ENGINE_NAME: &str = "Gogo";
pub const ENGINE_AUTHOR: &str = "the Gogo developers";

/// Longest input line handled (a position with thousands of moves still fits); longer lines
/// are discarded as they are read, never held whole.
pub const MAX_LINE: usize = 1 << 20;

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
    /// A move of a `position ... moves` list that is not a move in the dialect's syntax.
    MoveSyntax {
        index: usize,
        text: String,
        dialect: Dialect,
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
                dialect,
            } => {
                let examples = match dialect {
                    Dialect::Usi => "5e4d, 2e2a+ or G*2b",
                    Dialect::Uci => "c1d2, a4a1+ or P@d3",
                };
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

/// A number after a `go` keyword: an integer (negative counts as 0, beyond `u64` saturates);
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

/// Parses the arguments of `go` in `dialect`. `parse_move` reads one move of the dialect's
/// syntax. The clocks are given per colour in USI terms (`btime` is sente's); the UCI dialect
/// swaps them, and turns `mate N` (moves) into a search of `2N - 1` plies.
pub fn parse_go(
    args: &[&str],
    dialect: Dialect,
    parse_move: fn(&str) -> Option<UsiMove>,
) -> GoCommand {
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
        let (sente, gote) = match dialect {
            Dialect::Usi => (0, 1),
            Dialect::Uci => (1, 0),
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
            "mate" => match dialect {
                Dialect::Usi => {
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
                Dialect::Uci => {
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
/// and the moves, read with the dialect's `parse_move` (syntax only; legality is judged when
/// the game is set up).
pub fn split_position<'a>(
    args: &'a [&'a str],
    dialect: Dialect,
    parse_move: fn(&str) -> Option<UsiMove>,
) -> Result<(&'a [&'a str], Vec<UsiMove>), CommandError> {
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
                dialect,
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

/// The commands that read the same in both dialects.
pub fn parse_common(cmd: &str, args: &[&str]) -> Option<Result<Command, CommandError>> {
    Some(Ok(match cmd {
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

// ------------------------------------------------------------------------------ reading

/// One line of input, or the note that a line was too long (and skipped).
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    TooLong(usize),
}

/// Reads lines ending in LF, CR LF or a lone CR, keeping at most [`MAX_LINE`] bytes of a line
/// in memory.
pub struct LineReader<R> {
    inner: R,
    /// The last line ended with CR: a LF right after it belongs to that line end.
    after_cr: bool,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader::with_limit(inner, MAX_LINE)
    }

    pub fn with_limit(inner: R, limit: usize) -> Self {
        LineReader {
            inner,
            after_cr: false,
            limit,
        }
    }

    /// The next line; `None` at the end of input (a last line without a line end counts).
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut length = 0usize;
        let mut any = false;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(any.then(|| self.finish(line, length)));
            }
            let mut start = 0;
            if self.after_cr {
                self.after_cr = false;
                if buf[0] == b'\n' {
                    start = 1;
                }
            }
            let end = buf[start..].iter().position(|&b| b == b'\n' || b == b'\r');
            let chunk_end = end.map_or(buf.len(), |e| start + e);
            let chunk = &buf[start..chunk_end];
            any |= !chunk.is_empty() || end.is_some();
            length += chunk.len();
            if line.len() < self.limit {
                let room = self.limit - line.len();
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            match end {
                Some(_) => {
                    self.after_cr = buf[chunk_end] == b'\r';
                    self.inner.consume(chunk_end + 1);
                    return Ok(Some(self.finish(line, length)));
                }
                None => {
                    let n = buf.len();
                    self.inner.consume(n);
                }
            }
        }
    }

    fn finish(&self, line: Vec<u8>, length: usize) -> Line {
        if length > self.limit {
            Line::TooLong(length)
        } else {
            Line::Text(String::from_utf8_lossy(&line).into_owned())
        }
    }
}

// ------------------------------------------------------------------------------ the loop

/// Where the protocol's text goes: whole lines, flushed at once, from any thread.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Box::new(w))))
    }

    pub fn say(&self, line: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A closed output (the GUI is gone) is not worth a panic.
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }

    /// A sink that prints events in `dialect`.
    pub fn sink(&self, dialect: Dialect) -> Sink {
        let out = self.clone();
        Arc::new(move |event: Event| {
            for line in format_event(dialect, &event) {
                out.say(&line);
            }
        })
    }
}

pub fn format_event(dialect: Dialect, event: &Event) -> Vec<String> {
    match dialect {
        Dialect::Usi => usi::format(event),
        Dialect::Uci => uci::format(event),
    }
}

/// The protocol loop: the engine, the dialect spoken now, and where output goes.
pub struct Session {
    engine: Engine,
    dialect: Dialect,
    out: Output,
}

impl Session {
    pub fn new(out: Output) -> Session {
        Session {
            engine: Engine::new(),
            dialect: Dialect::Usi,
            out,
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn info(&self, text: &str) {
        for line in format_event(self.dialect, &Event::Message(text.to_string())) {
            self.out.say(&line);
        }
    }

    /// The legal moves among a `go`'s `searchmoves`. Entries that are not moves (syntax) or
    /// not legal here are summed up in one problem line, naming the first in the dialect's
    /// notation; when none is left the search considers every move.
    fn resolve_searchmoves(&self, go: &mut GoCommand) -> Vec<Move> {
        let root = self.engine.game().current();
        let (mut bad, mut first) = (0usize, None);
        go.problems.retain(|p| match p {
            GoProblem::BadSearchMoves { count, first: f } => {
                bad += count;
                first = Some(format!("'{f}' is not a move"));
                false
            }
            _ => true,
        });
        let mut moves = Vec::new();
        for m in &go.searchmoves {
            match m.resolve(root) {
                Ok(mv) => {
                    if !moves.contains(&mv) {
                        moves.push(mv);
                    }
                }
                Err(why) => {
                    bad += 1;
                    if first.is_none() {
                        let text = match self.dialect {
                            Dialect::Usi => m.to_move().to_string(),
                            Dialect::Uci => uci::move_text(m.to_move()),
                        };
                        first = Some(format!("{text}: {why}"));
                    }
                }
            }
        }
        if let Some(first) = first {
            go.problems.push(GoProblem::SearchMovesIgnored {
                ignored: bad,
                given: bad + moves.len(),
                first,
                none_left: moves.is_empty(),
            });
        }
        moves
    }

    /// Reads and handles lines until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead) {
        let mut reader = LineReader::new(input);
        loop {
            match reader.next_line() {
                Ok(Some(Line::Text(line))) => {
                    if !self.handle_line(&line) {
                        break;
                    }
                }
                Ok(Some(Line::TooLong(n))) => {
                    self.info(&format!(
                        "input line of {n} bytes ignored (longer than {MAX_LINE})"
                    ));
                }
                Ok(None) => break,
                Err(e) => {
                    log::error!("reading input: {e}");
                    break;
                }
            }
        }
        self.engine.stop();
    }

    /// Handles one line; false after `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        let words = tokens(line);
        let Some(&first) = words.first() else {
            return true;
        };
        // The handshake picks the dialect.
        match first {
            "usi" => self.dialect = Dialect::Usi,
            "uci" => {
                self.dialect = Dialect::Uci;
                // UCI tools (cutechess, Fairy-Stockfish, lishogi) count a plain repetition as
                // a loss for sente.
                self.engine.set_sennichite(SennichiteRule::GoteWins);
            }
            _ => {}
        }
        log::debug!("command: {}", sanitize(line, 200));
        let parsed = match self.dialect {
            Dialect::Usi => usi::parse(&words),
            Dialect::Uci => uci::parse(&words),
        };
        match parsed {
            Ok(command) => self.execute(command, Instant::now()),
            Err(e) => {
                self.info(&e.to_string());
                true
            }
        }
    }

    /// Carries out a command; false for `quit`. `read_at` is when its line was read (a
    /// search's clock starts then).
    pub fn execute(&mut self, command: Command, read_at: Instant) -> bool {
        match command {
            Command::Hello => {
                let id = format!("id name {ENGINE_NAME} {}", env!("CARGO_PKG_VERSION"));
                self.out.say(&id);
                self.out.say(&format!("id author {ENGINE_AUTHOR}"));
                for spec in OPTIONS {
                    if let Some(line) = spec.line(self.dialect) {
                        self.out.say(&line);
                    }
                }
                self.out.say(match self.dialect {
                    Dialect::Usi => "usiok",
                    Dialect::Uci => "uciok",
                });
            }
            Command::IsReady => self.out.say("readyok"),
            Command::SetOption { name, value } => match self.engine.set_option(&name, &value) {
                Err(e) => self.info(&format!("setoption {}: {e}", sanitize(&name, 40))),
                Ok(Some(note)) => self.info(&note),
                Ok(None) => {}
            },
            Command::NewGame => self.engine.new_game(),
            Command::Position { start, moves } => match Game::from_moves(start, &moves) {
                Ok(game) => self.engine.set_game(game),
                // The UCI dialect names the move in its own notation.
                Err(PositionError::Move {
                    index,
                    error: MoveError::Illegal { mv, why },
                }) if self.dialect == Dialect::Uci => self.info(&format!(
                    "position rejected: move {index}: illegal move {}: {why}",
                    uci::move_text(mv)
                )),
                Err(e) => self.info(&CommandError::Position(e).to_string()),
            },
            Command::Go(mut go) => {
                let sink = self.out.sink(self.dialect);
                go.request.searchmoves = self.resolve_searchmoves(&mut go);
                for p in &go.problems {
                    sink(Event::Message(p.to_string()));
                }
                go.request.limits.start = Some(read_at);
                self.engine.go(go.request, sink);
            }
            Command::Perft(depth) => {
                let sink = self.out.sink(self.dialect);
                self.engine.perft(depth, sink);
            }
            Command::Bench(depth) => {
                let sink = self.out.sink(self.dialect);
                self.engine.bench(depth, sink);
            }
            Command::Stop | Command::GameOver => self.engine.stop(),
            Command::PonderHit => {
                if !self.engine.ponderhit() {
                    self.info("ponderhit ignored: no ponder search is running");
                }
            }
            Command::Quit => return false,
            Command::Display => {
                let game = self.engine.game();
                let mut lines: Vec<String> = game
                    .current()
                    .pretty()
                    .lines()
                    .map(str::to_string)
                    .collect();
                if self.dialect == Dialect::Uci {
                    lines.push(format!("Fen: {}", uci::position_to_fen(game.current())));
                }
                if let Some(r) = game.result(self.engine.rules()) {
                    lines.push(format!("game over: {r}"));
                }
                for l in lines {
                    self.out.say(&l);
                }
            }
            Command::Eval => {
                for l in eval::trace(self.engine.game().current()).lines() {
                    self.out.say(l);
                }
            }
            Command::Nothing => {}
        }
        true
    }
}

/// The binary's default mode: the protocol on stdin/stdout.
pub fn run_stdio() {
    let mut session = Session::new(Output::new(std::io::stdout()));
    let stdin = std::io::stdin();
    session.run(stdin.lock());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        let mut r = LineReader::with_limit(input, limit);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    fn text(s: &str) -> Line {
        Line::Text(s.to_string())
    }

    #[test]
    fn every_line_end_counts() {
        assert_eq!(
            lines(b"isready\rquit\r", 100),
            vec![text("isready"), text("quit")]
        );
        assert_eq!(
            lines(b"a\r\nb\nc\r\rd", 100),
            vec![text("a"), text("b"), text("c"), text(""), text("d")]
        );
        assert_eq!(lines(b"", 100), vec![]);
    }

    #[test]
    fn long_lines_are_counted_not_kept() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(lines(&input, 10), vec![Line::TooLong(50), text("ok")]);
        // A small buffer splits the line into many reads.
        let reader = std::io::BufReader::with_capacity(4, &input[..]);
        let mut r = LineReader::with_limit(reader, 10);
        assert_eq!(r.next_line().unwrap(), Some(Line::TooLong(50)));
        assert_eq!(r.next_line().unwrap(), Some(text("ok")));
        assert_eq!(r.next_line().unwrap(), None);
    }

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
        let go = parse_go(&args, Dialect::Usi, |m| UsiMove::parse(m).ok());
        assert_eq!(go.request.limits.time, [None, Some(1000)]);
        assert_eq!(go.problems.len(), 3, "{:?}", go.problems);
        let bad: Vec<String> = std::iter::repeat_n("zz".to_string(), 1000).collect();
        let mut args: Vec<&str> = vec!["depth", "1", "searchmoves"];
        args.extend(bad.iter().map(String::as_str));
        let go = parse_go(&args, Dialect::Usi, |m| UsiMove::parse(m).ok());
        assert_eq!(
            go.problems,
            vec![GoProblem::BadSearchMoves {
                count: 1000,
                first: "zz".into()
            }]
        );
    }
}
