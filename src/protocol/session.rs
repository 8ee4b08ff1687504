//! The loop that reads commands, hands them to the engine controller and prints the events
//! of its jobs in the dialect each job started in.
//!
//! The loop never ends on bad input: every problem is one `info string` and the previous state
//! stays. Only `quit` and the end of input end it.

use super::command::{tokens, Command, CommandError, GoCommand, GoProblem};
use super::dialect::Dialect;
use super::reader::{Line, LineReader, MAX_LINE};
use super::uci::Uci;
use super::usi::Usi;
use crate::engine::Engine;
use crate::eval;
use crate::event::{Event, Sink};
use crate::game::{Game, PositionError};
use crate::notation::MoveError;
use crate::options::OPTIONS;
use crate::text::sanitize;
use crate::types::Move;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub const ENGINE_NAME: &str = "Gogo";
pub const ENGINE_AUTHOR: &str = "the Gogo developers";

/// The dialects a handshake can pick; the loop starts in USI.
const DIALECTS: [&dyn Dialect; 2] = [&Usi, &Uci];

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
    pub fn sink(&self, dialect: &'static dyn Dialect) -> Sink {
        let out = self.clone();
        Arc::new(move |event: Event| {
            for line in dialect.format(&event) {
                out.say(&line);
            }
        })
    }
}

/// The protocol loop: the engine, the dialect spoken now, and where output goes.
pub struct CommandLoop {
    engine: Engine,
    dialect: &'static dyn Dialect,
    out: Output,
}

impl CommandLoop {
    pub fn new(out: Output) -> CommandLoop {
        CommandLoop {
            engine: Engine::new(),
            dialect: &Usi,
            out,
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn info(&self, text: &str) {
        for line in self.dialect.format(&Event::Message(text.to_string())) {
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
                        let text = self.dialect.move_text(m.to_move());
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
        if let Some(dialect) = DIALECTS.iter().find(|d| d.handshake() == first) {
            self.dialect = *dialect;
            dialect.on_handshake(&mut self.engine);
        }
        log::debug!("command: {}", sanitize(line, 200));
        let parsed = self.dialect.parse(&words);
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
                    if let Some(name) = self.dialect.option_name(spec) {
                        self.out.say(&spec.line(name));
                    }
                }
                self.out.say(&format!("{}ok", self.dialect.handshake()));
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
                // The illegal move is named in the dialect's notation.
                Err(PositionError::Move {
                    index,
                    error: MoveError::Illegal { mv, why },
                }) => self.info(&format!(
                    "position rejected: move {index}: illegal move {}: {why}",
                    self.dialect.move_text(mv)
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
                lines.extend(self.dialect.describe(game.current()));
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
    let mut commands = CommandLoop::new(Output::new(std::io::stdout()));
    let stdin = std::io::stdin();
    commands.run(stdin.lock());
}
