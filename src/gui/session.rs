//! One game of the browser board: the rules core's [`Game`], who plays it, its engine and the
//! results of analysis. Every answer about the rules (legal moves, results, SFENs) comes from
//! here; the page only draws what it is told.

use super::analysis::{self, score_cp, EngineAdapter, Event, SearchSpec, Sink, Task};
use super::ApiError;
use crate::event::{MateAnswer, Score, SearchInfo};
use crate::game::{EndReason, Game, GameResult, GameRules, SennichiteRule};
use crate::movegen;
use crate::notation;
use crate::params::SKILL_FULL;
use crate::position::{Position, START_SFEN};
use crate::time::Limits;
use crate::tt::Bound;
use crate::types::{Color, Move, PieceKind, Square};
use serde_json::{json, Value};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The default move limit (plies), as in the minishogi app players know.
pub const DEFAULT_MAX_PLIES: u32 = 400;
/// Longest live analysis before it stops by itself (a forgotten tab must not burn a core).
const LIVE_ANALYSIS_MS: u64 = 120_000;
/// Score loss (centipawns, mover's view) from which a move is an inaccuracy, a mistake, a blunder.
pub const INACCURACY: i32 = 80;
pub const MISTAKE: i32 = 200;
pub const BLUNDER: i32 = 500;

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Level {
    Easy,
    Medium,
    Hard,
    Full,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "easy" => Level::Easy,
            "medium" => Level::Medium,
            "hard" => Level::Hard,
            "full" => Level::Full,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Full => "full",
        }
    }
    /// The engine's `SkillLevel` (see docs/skill.md).
    pub fn skill_level(self) -> u8 {
        match self {
            Level::Easy => 2,
            Level::Medium => 8,
            Level::Hard => 14,
            Level::Full => SKILL_FULL,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    Friend,
    Computer { level: Level, human: Color },
}

/// How a new game is set up.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub opponent: Opponent,
    pub sfen: Option<String>,
    pub rules: GameRules,
    /// Thinking time of the computer at full strength, of a hint and of each position of a
    /// review (milliseconds).
    pub think_ms: u64,
}

impl NewGame {
    /// Reads the JSON body of `POST /api/new`; every field is optional.
    pub fn from_json(v: &Value) -> Result<NewGame, ApiError> {
        let text = |k: &str| v.get(k).and_then(Value::as_str);
        let level = match text("level") {
            None => Level::Easy,
            Some(s) => Level::parse(s)
                .ok_or_else(|| ApiError::bad("level must be easy, medium, hard or full"))?,
        };
        let human = match text("human") {
            None | Some("b") | Some("sente") => Color::Black,
            Some("w") | Some("gote") => Color::White,
            Some(_) => return Err(ApiError::bad("human must be \"b\" (sente) or \"w\" (gote)")),
        };
        let opponent = match text("opponent") {
            None | Some("computer") => Opponent::Computer { level, human },
            Some("friend") => Opponent::Friend,
            Some(_) => return Err(ApiError::bad("opponent must be computer or friend")),
        };
        let sennichite = match text("sennichite") {
            None => SennichiteRule::Draw,
            Some(s) => SennichiteRule::parse(s)
                .ok_or_else(|| ApiError::bad("sennichite must be draw or gote-wins"))?,
        };
        let max_plies = match v.get("max_plies") {
            None | Some(Value::Null) => DEFAULT_MAX_PLIES,
            Some(n) => n
                .as_u64()
                .filter(|&n| n <= 100_000)
                .ok_or_else(|| ApiError::bad("max_plies must be a number 0..=100000"))?
                as u32,
        };
        let think_ms = match v.get("think_ms") {
            None | Some(Value::Null) => 1000,
            Some(n) => n
                .as_u64()
                .filter(|&n| (10..=60_000).contains(&n))
                .ok_or_else(|| ApiError::bad("think_ms must be 10..=60000"))?,
        };
        let sfen = match v.get("sfen") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => {
                let s = s.trim();
                let s = s.strip_prefix("sfen ").unwrap_or(s).trim();
                if s == "startpos" {
                    None
                } else {
                    Position::from_sfen(s).map_err(|e| ApiError::bad(&format!("bad SFEN: {e}")))?;
                    Some(s.to_string())
                }
            }
            Some(_) => return Err(ApiError::bad("sfen must be a string")),
        };
        Ok(NewGame {
            opponent,
            sfen,
            rules: GameRules {
                sennichite,
                max_plies,
            },
            think_ms,
        })
    }
}

/// What the engine of a game is doing, for `GET .../analysis`.
#[derive(Clone, Debug, Default)]
pub struct Live {
    /// Changes with every task: events of older tasks are dropped.
    pub task: u64,
    /// "analysis", "review", "move", "hint", "mate" or "" when idle.
    pub kind: &'static str,
    pub running: bool,
    /// Index of the analysed position in the game (live analysis).
    pub index: usize,
    /// Side to move of the analysed position.
    pub side: Option<Color>,
    /// Latest line per MultiPV slot.
    pub lines: Vec<SearchInfo>,
    pub review_done: usize,
    pub review_total: usize,
}

/// Scores known per position of the game: (position key, score from sente's view).
#[derive(Clone, Debug, Default)]
pub struct Evals {
    pub by_index: Vec<Option<(u64, i32, i32)>>, // key, sente cp, depth (-1 = review)
}

impl Evals {
    fn set(&mut self, index: usize, key: u64, cp: i32, depth: i32) {
        if self.by_index.len() <= index {
            self.by_index.resize(index + 1, None);
        }
        self.by_index[index] = Some((key, cp, depth));
    }
}

/// The part of a game that the engine thread writes to (kept apart from the game so that
/// stopping a search under the game's lock never waits for that lock).
#[derive(Default)]
pub struct Shared {
    pub live: Live,
    pub evals: Evals,
}

/// Names a task started for a waiting request: the game version and task number it began with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ticket {
    version: u64,
    task: u64,
}

pub struct Session {
    pub id: String,
    pub game: Game,
    pub setup: NewGame,
    /// Bumped with every change of the game; an engine answer for an older version is void.
    pub version: u64,
    pub engine: EngineAdapter,
    pub shared: Arc<Mutex<Shared>>,
    pub last_used: Instant,
    /// The last hint: (version, move).
    hint: Option<(u64, Move)>,
}

fn sente_cp(side: Color, score: Score) -> i32 {
    let cp = score_cp(score);
    if side == Color::Black {
        cp
    } else {
        -cp
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

fn kind_name(k: PieceKind) -> String {
    if k.is_promoted() {
        format!("+{}", k.letter())
    } else {
        k.letter().to_string()
    }
}

fn reason_name(r: EndReason) -> &'static str {
    match r {
        EndReason::Checkmate => "checkmate",
        EndReason::NoLegalMove => "no-legal-move",
        EndReason::Sennichite => "repetition",
        EndReason::PerpetualCheck => "perpetual-check",
        EndReason::MoveLimit => "move-limit",
    }
}

pub fn result_json(r: &GameResult) -> Value {
    let winner = match r.winner {
        Some(Color::Black) => "Sente",
        Some(Color::White) => "Gote",
        None => "",
    };
    let loser = match r.winner {
        Some(Color::Black) => "Gote",
        _ => "Sente",
    };
    let text = match r.reason {
        EndReason::Checkmate => format!("Checkmate: {winner} wins"),
        EndReason::NoLegalMove => format!("{loser} has no legal move: {winner} wins"),
        EndReason::Sennichite if r.winner.is_none() => "Fourfold repetition: draw".to_string(),
        EndReason::Sennichite => format!("Fourfold repetition: {winner} wins"),
        EndReason::PerpetualCheck => {
            format!("Perpetual check: {loser} loses, {winner} wins")
        }
        EndReason::MoveLimit => "Move limit reached: draw".to_string(),
    };
    json!({
        "winner": r.winner.map(color_name),
        "reason": reason_name(r.reason),
        "text": text,
    })
}

pub fn move_json(m: Move) -> Value {
    if m.is_drop() {
        json!({"usi": m.to_string(), "from": null, "drop": m.drop_kind().letter().to_string(),
               "to": m.to().to_string(), "promote": false})
    } else {
        json!({"usi": m.to_string(), "from": m.from().to_string(), "drop": null,
               "to": m.to().to_string(), "promote": m.is_promotion()})
    }
}

fn score_json(s: Score) -> Value {
    match s {
        Score::Cp(c) => json!({"cp": c}),
        Score::Mate(n) => json!({"mate": n}),
    }
}

fn mark_of(loss: i32) -> &'static str {
    if loss >= BLUNDER {
        "blunder"
    } else if loss >= MISTAKE {
        "mistake"
    } else if loss >= INACCURACY {
        "inaccuracy"
    } else {
        "good"
    }
}

impl Session {
    pub fn new(id: String, setup: NewGame) -> Session {
        let start = match &setup.sfen {
            Some(s) => Position::from_sfen(s).unwrap_or_else(|_| Position::startpos()),
            None => Position::startpos(),
        };
        Session {
            id,
            game: Game::new(start),
            setup,
            version: 1,
            engine: EngineAdapter::new(),
            shared: Arc::new(Mutex::new(Shared::default())),
            last_used: Instant::now(),
            hint: None,
        }
    }

    pub fn result(&self) -> Option<GameResult> {
        self.game.result(self.setup.rules)
    }

    fn computer_color(&self) -> Option<Color> {
        match self.setup.opponent {
            Opponent::Friend => None,
            Opponent::Computer { human, .. } => Some(!human),
        }
    }

    /// Stops whatever the engine does (the game is about to change, or a new task starts).
    pub fn stop_engine(&mut self) {
        self.engine.stop();
        let mut sh = lock(&self.shared);
        sh.live.running = false;
        sh.live.task += 1;
    }

    fn changed(&mut self) {
        self.stop_engine();
        self.version += 1;
        self.hint = None;
    }

    /// The USI `position` command of the game.
    pub fn usi_position(&self) -> String {
        let start = self.game.start().to_sfen();
        let mut s = if start == START_SFEN {
            "position startpos".to_string()
        } else {
            format!("position sfen {start}")
        };
        if !self.game.moves().is_empty() {
            s.push_str(" moves");
            for m in self.game.moves() {
                s.push(' ');
                s.push_str(&m.to_string());
            }
        }
        s
    }

    /// Everything the page draws.
    pub fn state_json(&self) -> Value {
        let pos = self.game.current();
        let board: Vec<Value> = Square::all()
            .map(|sq| match pos.piece_on(sq) {
                Some(p) => json!({"c": color_name(p.color), "k": kind_name(p.kind)}),
                None => Value::Null,
            })
            .collect();
        let hand = |c: Color| {
            let h = pos.hand(c);
            let mut o = serde_json::Map::new();
            for k in PieceKind::HAND {
                if h.count(k) > 0 {
                    o.insert(k.letter().to_string(), json!(h.count(k)));
                }
            }
            Value::Object(o)
        };
        let result = self.result();
        let legal: Vec<Value> = if result.is_some() {
            Vec::new()
        } else {
            movegen::legal_moves(pos)
                .iter()
                .map(|&m| move_json(m))
                .collect()
        };
        let check = if pos.in_check() {
            pos.king_square(pos.side_to_move()).map(|s| s.to_string())
        } else {
            None
        };
        let (opponent, level, human) = match self.setup.opponent {
            Opponent::Friend => ("friend", None, None),
            Opponent::Computer { level, human } => {
                ("computer", Some(level.name()), Some(color_name(human)))
            }
        };
        let hint = self
            .hint
            .filter(|&(v, _)| v == self.version)
            .map(|(_, m)| move_json(m));
        json!({
            "id": self.id,
            "version": self.version,
            "sfen": pos.to_sfen(),
            "start_sfen": self.game.start().to_sfen(),
            "usi": self.usi_position(),
            "side": color_name(pos.side_to_move()),
            "ply": self.game.moves().len(),
            "move_number": pos.move_number(),
            "board": board,
            "hands": {"b": hand(Color::Black), "w": hand(Color::White)},
            "legal": legal,
            "check": check,
            "last_move": self.game.moves().last().map(|&m| move_json(m)),
            "moves": self.game.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "result": result.as_ref().map(result_json),
            "opponent": opponent,
            "level": level,
            "human": human,
            "computer_to_move": result.is_none()
                && self.computer_color() == Some(pos.side_to_move()),
            "rules": {"sennichite": self.setup.rules.sennichite.name(),
                      "max_plies": self.setup.rules.max_plies},
            "think_ms": self.setup.think_ms,
            "hint": hint,
            "evals": self.evals_json(),
        })
    }

    /// Scores per position (sente's view) and marks per move, where known.
    fn evals_json(&self) -> Value {
        let sh = lock(&self.shared);
        let positions = self.game.positions();
        let cps: Vec<Option<i32>> = positions
            .iter()
            .enumerate()
            .map(|(i, p)| match sh.evals.by_index.get(i).copied().flatten() {
                Some((key, cp, _)) if key == p.key() => Some(cp),
                _ => None,
            })
            .collect();
        let marks: Vec<Value> = (0..self.game.moves().len())
            .map(|i| match (cps[i], cps[i + 1]) {
                (Some(before), Some(after)) => {
                    let clamp = |x: i32| x.clamp(-2000, 2000);
                    let (b, a) = (clamp(before), clamp(after));
                    let loss = if positions[i].side_to_move() == Color::Black {
                        b - a
                    } else {
                        a - b
                    };
                    json!({"loss": loss.max(0), "mark": mark_of(loss)})
                }
                _ => Value::Null,
            })
            .collect();
        json!({"scores": cps, "marks": marks})
    }

    pub fn play(&mut self, texts: &[String]) -> Result<(), ApiError> {
        if texts.is_empty() {
            return Err(ApiError::bad("no move given"));
        }
        let mut game = self.game.clone();
        for t in texts {
            if let Some(r) = game.result(self.setup.rules) {
                return Err(ApiError::conflict(&format!(
                    "the game is over: {}",
                    result_json(&r)["text"].as_str().unwrap_or("")
                )));
            }
            let m = notation::parse_move(game.current(), t)
                .map_err(|e| ApiError::bad(&e.to_string()))?;
            game.play(m).map_err(|e| ApiError::bad(&e.to_string()))?;
        }
        self.changed();
        self.game = game;
        Ok(())
    }

    /// Takes back one move against a friend; against the computer, back to the human's turn
    /// (the computer's answer and the human's move).
    pub fn undo(&mut self) -> Result<(), ApiError> {
        if self.game.moves().is_empty() {
            return Err(ApiError::conflict("there is no move to take back"));
        }
        self.changed();
        self.game.undo();
        if let Opponent::Computer { human, .. } = self.setup.opponent {
            while self.game.current().side_to_move() != human && !self.game.moves().is_empty() {
                self.game.undo();
            }
        }
        Ok(())
    }

    fn spec(&self, level: u8, limits: Limits, multipv: usize) -> SearchSpec {
        SearchSpec {
            limits,
            multipv,
            skill_level: level,
            sennichite: self.setup.rules.sennichite,
        }
    }

    /// Starts a task whose events go to the caller through a channel (computer move, hint,
    /// mate search); returns the receiver and the game version it was started for.
    fn start_waited(&mut self, kind: &'static str, task: Task) -> (mpsc::Receiver<Event>, Ticket) {
        self.stop_engine();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let shared = self.shared.clone();
        let task_no = {
            let mut sh = lock(&self.shared);
            sh.live = Live {
                task: sh.live.task + 1,
                kind,
                running: true,
                index: self.game.moves().len(),
                side: Some(self.game.current().side_to_move()),
                ..Live::default()
            };
            sh.live.task
        };
        let sink: Sink = Arc::new(move |ev: Event| {
            let closing = matches!(ev, Event::BestMove { .. } | Event::Checkmate(_));
            if closing {
                let mut sh = lock(&shared);
                if sh.live.task == task_no {
                    sh.live.running = false;
                }
            }
            let _ = lock(&tx).send(ev);
        });
        self.engine.go(self.game.clone(), task, sink);
        (
            rx,
            Ticket {
                version: self.version,
                task: task_no,
            },
        )
    }

    /// Whether the task of `t` is still the game's latest and the game unchanged.
    fn current(&self, t: Ticket) -> bool {
        t.version == self.version && lock(&self.shared).live.task == t.task
    }

    /// Starts the computer's move; the caller waits on the receiver without the lock.
    pub fn start_computer_move(
        &mut self,
    ) -> Result<(mpsc::Receiver<Event>, Ticket, u64), ApiError> {
        if let Some(r) = self.result() {
            return Err(ApiError::conflict(&format!(
                "the game is over: {}",
                result_json(&r)["text"].as_str().unwrap_or("")
            )));
        }
        let Opponent::Computer { level, .. } = self.setup.opponent else {
            return Err(ApiError::conflict("this game is against a friend"));
        };
        if self.computer_color() != Some(self.game.current().side_to_move()) {
            return Err(ApiError::conflict("it is not the computer's turn"));
        }
        let ms = self.setup.think_ms;
        let skill = level.skill_level();
        let limits = if skill >= SKILL_FULL {
            analysis::movetime(ms)
        } else {
            // The level's own depth and node caps end the search; the time is a safety net.
            analysis::movetime(ms.max(5_000))
        };
        let spec = self.spec(skill, limits, 1);
        let (rx, v) = self.start_waited("move", Task::Search(spec));
        Ok((rx, v, ms.max(5_000) + 10_000))
    }

    /// Plays the computer's answer if the game did not change meanwhile.
    pub fn finish_computer_move(&mut self, t: Ticket, best: Option<Move>) -> Result<(), ApiError> {
        if !self.current(t) {
            return Err(ApiError::conflict(
                "the game changed while the computer was thinking",
            ));
        }
        let m = best.ok_or_else(|| ApiError::conflict("the computer found no move"))?;
        self.changed();
        self.game
            .play(m)
            .map_err(|e| ApiError::internal(&format!("engine move rejected: {e}")))
    }

    pub fn start_hint(&mut self) -> Result<(mpsc::Receiver<Event>, Ticket, u64), ApiError> {
        if let Some(r) = self.result() {
            return Err(ApiError::conflict(&format!(
                "the game is over: {}",
                result_json(&r)["text"].as_str().unwrap_or("")
            )));
        }
        let ms = self.setup.think_ms.min(3_000);
        let spec = self.spec(SKILL_FULL, analysis::movetime(ms), 1);
        let (rx, v) = self.start_waited("hint", Task::Search(spec));
        Ok((rx, v, ms + 10_000))
    }

    pub fn finish_hint(
        &mut self,
        t: Ticket,
        best: Option<Move>,
        score: Option<Score>,
    ) -> Result<Value, ApiError> {
        if !self.current(t) {
            return Err(ApiError::conflict(
                "the game changed while the engine was thinking",
            ));
        }
        let m = best.ok_or_else(|| ApiError::conflict("no move to hint"))?;
        self.hint = Some((t.version, m));
        Ok(json!({"hint": move_json(m), "score": score.map(score_json)}))
    }

    pub fn start_mate(&mut self, ms: u64) -> (mpsc::Receiver<Event>, Ticket, u64) {
        let (rx, v) = self.start_waited("mate", Task::Mate { ms });
        (rx, v, ms + 10_000)
    }

    pub fn finish_mate(&mut self, t: Ticket, answer: MateAnswer) -> Result<Value, ApiError> {
        if !self.current(t) {
            return Err(ApiError::conflict(
                "the game changed during the mate search",
            ));
        }
        let v = match &answer {
            MateAnswer::Mate(line) => json!({"status": "mate", "plies": line.len(),
                "line": line.iter().map(|m| m.to_string()).collect::<Vec<_>>()}),
            MateAnswer::NoMate => json!({"status": "nomate", "line": []}),
            MateAnswer::Timeout => json!({"status": "timeout", "line": []}),
        };
        Ok(v)
    }

    /// Starts live MultiPV analysis of the current position; results are polled.
    pub fn start_analysis(&mut self, multipv: usize) {
        self.stop_engine();
        let index = self.game.moves().len();
        let pos = *self.game.current();
        let side = pos.side_to_move();
        let key = pos.key();
        let task_no = {
            let mut sh = lock(&self.shared);
            sh.live = Live {
                task: sh.live.task + 1,
                kind: "analysis",
                running: true,
                index,
                side: Some(side),
                ..Live::default()
            };
            sh.live.task
        };
        let shared = self.shared.clone();
        let sink: Sink = Arc::new(move |ev: Event| {
            let mut sh = lock(&shared);
            if sh.live.task != task_no {
                return;
            }
            match ev {
                Event::Info(info) => {
                    if info.multipv == 1 && info.bound == Bound::Exact {
                        let cp = sente_cp(side, info.score);
                        let better = match sh.evals.by_index.get(index).copied().flatten() {
                            Some((k, _, d)) => k != key || d <= info.depth,
                            None => true,
                        };
                        if better {
                            sh.evals.set(index, key, cp, info.depth);
                        }
                    }
                    let slot = info.multipv - 1;
                    let lines = &mut sh.live.lines;
                    if lines.len() <= slot {
                        lines.resize(slot + 1, info.clone());
                    }
                    if info.bound == Bound::Exact || lines[slot].pv.len() <= info.pv.len() {
                        lines[slot] = info;
                    } else {
                        // A fail-high/low report: keep the last exact line, count the work.
                        let l = &mut lines[slot];
                        l.nodes = info.nodes;
                        l.nps = info.nps;
                        l.time_ms = info.time_ms;
                    }
                }
                Event::BestMove { .. } => sh.live.running = false,
                _ => {}
            }
        });
        let limits = Limits {
            movetime: Some(LIVE_ANALYSIS_MS),
            ..Limits::default()
        };
        let spec = self.spec(SKILL_FULL, limits, multipv.clamp(1, 5));
        self.engine.go(self.game.clone(), Task::Search(spec), sink);
    }

    /// Starts the review of every position of the game, `ms` each.
    pub fn start_review(&mut self, ms: u64) {
        self.stop_engine();
        let keys: Vec<(u64, Color)> = self
            .game
            .positions()
            .iter()
            .map(|p| (p.key(), p.side_to_move()))
            .collect();
        let total = keys.len();
        let task_no = {
            let mut sh = lock(&self.shared);
            sh.live = Live {
                task: sh.live.task + 1,
                kind: "review",
                running: true,
                review_total: total,
                ..Live::default()
            };
            sh.live.task
        };
        let shared = self.shared.clone();
        let sink: Sink = Arc::new(move |ev: Event| {
            let mut sh = lock(&shared);
            if sh.live.task != task_no {
                return;
            }
            match ev {
                Event::Reviewed { index, score, .. } => {
                    let (key, side) = keys[index];
                    sh.evals.set(index, key, sente_cp(side, score), -1);
                    sh.live.review_done = index + 1;
                }
                Event::ReviewDone { .. } => sh.live.running = false,
                _ => {}
            }
        });
        let spec = self.spec(SKILL_FULL, analysis::movetime(ms), 1);
        self.engine.go(self.game.clone(), Task::Review(spec), sink);
    }

    /// The engine's state for polling.
    pub fn analysis_json(&self) -> Value {
        let sh = lock(&self.shared);
        let live = &sh.live;
        let side = live.side;
        let lines: Vec<Value> = live
            .lines
            .iter()
            .map(|l| {
                json!({
                    "multipv": l.multipv,
                    "depth": l.depth,
                    "seldepth": l.seldepth,
                    "score": score_json(l.score),
                    "sente_cp": side.map(|s| sente_cp(s, l.score)),
                    "bound": match l.bound {
                        Bound::Lower => "lower",
                        Bound::Upper => "upper",
                        _ => "",
                    },
                    "nodes": l.nodes,
                    "nps": l.nps,
                    "time_ms": l.time_ms,
                    "pv": l.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let top = live.lines.first();
        json!({
            "version": self.version,
            "kind": live.kind,
            "running": live.running,
            "index": live.index,
            "current": live.kind == "analysis" && live.index == self.game.moves().len(),
            "depth": top.map(|l| l.depth),
            "nodes": top.map(|l| l.nodes),
            "nps": top.map(|l| l.nps),
            "lines": lines,
            "review": {"done": live.review_done, "total": live.review_total},
        })
    }

    /// A plain-text record of the game.
    pub fn record(&self) -> String {
        let mut s = String::new();
        s.push_str("# Gogo minishogi game record\n");
        s.push_str(&format!("Start: {}\n", self.game.start().to_sfen()));
        match self.setup.opponent {
            Opponent::Friend => s.push_str("Sente: Player\nGote: Player\n"),
            Opponent::Computer { level, human } => {
                let comp = format!("Gogo ({})", level.name());
                let (b, w) = if human == Color::Black {
                    ("Player".to_string(), comp)
                } else {
                    (comp, "Player".to_string())
                };
                s.push_str(&format!("Sente: {b}\nGote: {w}\n"));
            }
        }
        s.push_str(&format!(
            "Rules: repetition {}, move limit {}\n",
            self.setup.rules.sennichite.name(),
            self.setup.rules.max_plies
        ));
        s.push_str(&format!("USI: {}\n\n", self.usi_position()));
        let first = self.game.start().move_number();
        for (i, (m, p)) in self
            .game
            .moves()
            .iter()
            .zip(self.game.positions())
            .enumerate()
        {
            let mark = if p.side_to_move() == Color::Black {
                "☗"
            } else {
                "☖"
            };
            s.push_str(&format!("{:>4} {mark}{m}\n", first as usize + i));
        }
        match self.result() {
            Some(r) => s.push_str(&format!(
                "\nResult: {}\n",
                result_json(&r)["text"].as_str().unwrap_or("")
            )),
            None => s.push_str("\nResult: unfinished\n"),
        }
        s
    }
}

/// Waits for the closing event of a task started with `start_waited`.
pub fn wait_closing(rx: &mpsc::Receiver<Event>, timeout_ms: u64) -> Option<Event> {
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(ev @ Event::BestMove { .. }) | Ok(ev @ Event::Checkmate(_)) => return Some(ev),
            Ok(_) => continue,
            Err(_) => return None,
        }
    }
}
