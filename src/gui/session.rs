//! One game of the browser board: the rules core's [`Game`], who plays it, its engine and the
//! results of analysis. Every answer about the rules (legal moves, results, SFENs, records)
//! comes from here; the page only draws what it is told.

use super::analysis::{self, score_cp, EngineAdapter, ReviewSink, ReviewStep, SearchSpec, Task};
use super::requests::{Level, NewBody, OpponentKind, Side};
use super::{lock, ApiError};
use crate::event::{Event, MateAnswer, Score, SearchInfo, Sink};
use crate::game::{EndReason, Game, GameResult, GameRules, SennichiteRule};
use crate::kif;
use crate::movegen;
use crate::notation;
use crate::params::SKILL_FULL;
use crate::position::{Position, START_SFEN};
use crate::time::Limits;
use crate::tt::Bound;
use crate::types::{Color, Move, PieceKind, Square};
use serde_json::{json, Value};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The default move limit (plies), as in the minishogi app players know.
pub const DEFAULT_MAX_PLIES: u32 = 400;
/// Longest live analysis before it stops by itself (a forgotten tab must not burn a core).
const LIVE_ANALYSIS_MS: u64 = 120_000;
/// Most moves a loaded record or one move request may have.
pub const MAX_MOVES: usize = 2000;
/// Score loss (centipawns, mover's view) from which a move is an inaccuracy, a mistake, a blunder.
pub const INACCURACY: i32 = 80;
pub const MISTAKE: i32 = 200;
pub const BLUNDER: i32 = 500;

impl Level {
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

/// How a new game is set up: its start, the moves already played (a loaded record) and rules.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub opponent: Opponent,
    pub start: Position,
    pub moves: Vec<Move>,
    pub rules: GameRules,
    /// Thinking time of the computer at full strength, of a hint and of each position of a
    /// review (milliseconds).
    pub think_ms: u64,
}

/// A game from a record: a KIF, a USI `position ...` line, `startpos [moves ...]`,
/// `sfen ... [moves ...]` or a bare SFEN.
pub fn parse_record(text: &str) -> Result<Game, String> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return Err("the record is empty".into());
    }
    let usi = t.strip_prefix("position").map(str::trim_start).unwrap_or(t);
    let game = if usi.starts_with("startpos") || usi.starts_with("sfen ") {
        Game::parse_position(usi).map_err(|e| format!("bad USI position: {e}"))?
    } else if usi
        .split_whitespace()
        .next()
        .is_some_and(|w| w.contains('/'))
    {
        // A bare SFEN, perhaps with moves.
        Game::parse_position(&format!("sfen {usi}")).map_err(|e| format!("bad SFEN: {e}"))?
    } else {
        let k = kif::read(t).map_err(|e| format!("bad record: {e}"))?;
        k.game
    };
    if game.moves().len() > MAX_MOVES {
        return Err(format!("the record has more than {MAX_MOVES} moves"));
    }
    // Replayed move by move, so that the game knows its repetitions.
    let mut out = Game::new(*game.start());
    for &m in game.moves() {
        out.play(m)
            .map_err(|e| format!("bad move in the record: {e}"))?;
    }
    Ok(out)
}

impl NewGame {
    /// The typed body of `POST /api/new`; every field is optional.
    pub fn from_body(v: &NewBody) -> Result<NewGame, ApiError> {
        let level = v.level.unwrap_or(Level::Easy);
        let human = match v.human {
            None | Some(Side::Sente) => Color::Black,
            Some(Side::Gote) => Color::White,
        };
        let opponent = match v.opponent {
            None | Some(OpponentKind::Computer) => Opponent::Computer { level, human },
            Some(OpponentKind::Friend) => Opponent::Friend,
        };
        let sennichite = match v.sennichite.as_deref() {
            None => SennichiteRule::Draw,
            Some(s) => SennichiteRule::parse(s)
                .ok_or_else(|| ApiError::bad("sennichite must be draw or gote-wins"))?,
        };
        let max_plies = match v.max_plies {
            None => DEFAULT_MAX_PLIES,
            Some(n) if n <= 100_000 => n,
            Some(_) => return Err(ApiError::bad("max_plies must be a number 0..=100000")),
        };
        let think_ms = match v.think_ms {
            None => 1000,
            Some(n) if (10..=60_000).contains(&n) => n,
            Some(_) => return Err(ApiError::bad("think_ms must be 10..=60000")),
        };
        let game = match (v.sfen.as_deref().map(str::trim), v.record.as_deref()) {
            (Some(s), None) if !s.is_empty() => {
                let s = s.strip_prefix("sfen ").unwrap_or(s).trim();
                if s == "startpos" {
                    Game::new(Position::startpos())
                } else {
                    let p = Position::from_sfen(s)
                        .map_err(|e| ApiError::bad(&format!("bad SFEN: {e}")))?;
                    Game::new(p)
                }
            }
            (None | Some(_), None) => Game::new(Position::startpos()),
            (None, Some(r)) => parse_record(r).map_err(|e| ApiError::bad(&e))?,
            (Some(_), Some(_)) => return Err(ApiError::bad("give sfen or record, not both")),
        };
        Ok(NewGame {
            opponent,
            start: *game.start(),
            moves: game.moves().to_vec(),
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
    /// Index (ply) of the searched position in the game.
    pub index: usize,
    /// Side to move of the searched position.
    pub side: Option<Color>,
    /// Key of the searched position.
    pub key: u64,
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

impl Shared {
    /// The one place where a task's live state is set up; returns the task's number.
    fn begin(&mut self, kind: &'static str, index: usize, pos: &Position, total: usize) -> u64 {
        self.live = Live {
            task: self.live.task + 1,
            kind,
            running: true,
            index,
            side: Some(pos.side_to_move()),
            key: pos.key(),
            review_total: total,
            ..Live::default()
        };
        self.live.task
    }

    /// An engine event of task `task`: lines are kept (and scores of live analysis go to the
    /// graph); the final event ends the task. Events of an older task are dropped.
    fn on_event(&mut self, task: u64, ev: &Event) {
        if self.live.task != task {
            return;
        }
        match ev {
            Event::Info(info) => self.on_info(info),
            Event::BestMove { .. } | Event::Checkmate(_) => self.live.running = false,
            _ => {}
        }
    }

    fn on_info(&mut self, info: &SearchInfo) {
        let live = &mut self.live;
        if live.kind == "analysis" && info.multipv == 1 && info.bound == Bound::Exact {
            let (index, key) = (live.index, live.key);
            let cp = sente_cp(live.side.unwrap_or(Color::Black), info.score);
            let better = match self.evals.by_index.get(index).copied().flatten() {
                Some((k, _, d)) => k != key || d <= info.depth,
                None => true,
            };
            if better {
                self.evals.set(index, key, cp, info.depth);
            }
        }
        let slot = info.multipv.max(1) - 1;
        let lines = &mut live.lines;
        if lines.len() <= slot {
            lines.resize(slot + 1, info.clone());
        }
        if info.bound == Bound::Exact || lines[slot].pv.len() <= info.pv.len() {
            lines[slot] = info.clone();
        } else {
            // A fail-high/low report: keep the last exact line, count the work.
            let l = &mut lines[slot];
            l.nodes = info.nodes;
            l.nps = info.nps;
            l.time_ms = info.time_ms;
        }
    }

    /// The score of the first line of the task, if any.
    fn top_score(&self) -> Option<Score> {
        self.live.lines.first().map(|l| l.score)
    }
}

/// Names a task started for a waiting request: the game version and task number it began with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ticket {
    version: u64,
    task: u64,
}

/// The sentence that says how a game ended.
pub fn result_text(r: &GameResult) -> String {
    let winner = match r.winner {
        Some(Color::Black) => "Sente",
        Some(Color::White) => "Gote",
        None => "",
    };
    let loser = match r.winner {
        Some(Color::Black) => "Gote",
        _ => "Sente",
    };
    match r.reason {
        EndReason::Checkmate => format!("Checkmate: {winner} wins"),
        EndReason::NoLegalMove => format!("{loser} has no legal move: {winner} wins"),
        EndReason::Sennichite if r.winner.is_none() => "Fourfold repetition: draw".to_string(),
        EndReason::Sennichite => format!("Fourfold repetition: {winner} wins"),
        EndReason::PerpetualCheck => format!("Perpetual check: {loser} loses, {winner} wins"),
        EndReason::MoveLimit => "Move limit reached: draw".to_string(),
    }
}

fn game_over(r: &GameResult) -> ApiError {
    ApiError::conflict(&format!("the game is over: {}", result_text(r)))
}

pub struct Session {
    pub id: String,
    pub game: Game,
    pub setup: NewGame,
    /// Bumped with every change of the game; an engine answer for an older version is void.
    pub version: u64,
    pub engine: EngineAdapter,
    pub shared: Arc<Mutex<Shared>>,
    /// The last request for this game (a page polls while it analyses; see the watchdog).
    pub last_used: Instant,
    /// The last hint: (version, ply, move).
    hint: Option<(u64, usize, Move)>,
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
    json!({
        "winner": r.winner.map(color_name),
        "reason": reason_name(r.reason),
        "text": result_text(r),
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

/// The first `ply` moves of `game`, replayed (so that repetitions are known).
fn truncated(game: &Game, ply: usize) -> Game {
    let mut g = Game::new(*game.start());
    for &m in &game.moves()[..ply.min(game.moves().len())] {
        // The game's own moves were legal when played.
        if g.play(m).is_err() {
            break;
        }
    }
    g
}

impl Session {
    pub fn new(id: String, setup: NewGame) -> Session {
        let mut game = Game::new(setup.start);
        for &m in &setup.moves {
            if game.play(m).is_err() {
                break;
            }
        }
        Session {
            id,
            game,
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

    /// Whether the engine works on a live analysis or a review (the tasks nobody waits for).
    pub fn analysing(&self) -> bool {
        let sh = lock(&self.shared);
        sh.live.running && matches!(sh.live.kind, "analysis" | "review")
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

    /// Position `ply` of the game (default: the last) as a game of its own.
    fn game_at(&self, ply: Option<usize>) -> Result<Game, ApiError> {
        match ply {
            None => Ok(self.game.clone()),
            Some(p) if p == self.game.moves().len() => Ok(self.game.clone()),
            Some(p) if p < self.game.moves().len() => Ok(truncated(&self.game, p)),
            Some(_) => Err(ApiError::bad("ply is past the end of the game")),
        }
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

    /// Everything the page draws, showing position `view` of the game (default: the last).
    pub fn state_json(&self, view: Option<usize>) -> Result<Value, ApiError> {
        let ply = view.unwrap_or(self.game.moves().len());
        let shown = self.game_at(Some(ply))?;
        let pos = shown.current();
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
        let shown_result = shown.result(self.setup.rules);
        let legal: Vec<Value> = if shown_result.is_some() {
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
        let at_end = ply == self.game.moves().len();
        let hint = self
            .hint
            .filter(|&(v, p, _)| v == self.version && p == ply && shown_result.is_none())
            .map(|(_, _, m)| move_json(m));
        let japanese = kif::japanese_moves(self.game.start(), self.game.moves());
        Ok(json!({
            "id": self.id,
            "version": self.version,
            "sfen": pos.to_sfen(),
            "start_sfen": self.game.start().to_sfen(),
            "usi": self.usi_position(),
            "side": color_name(pos.side_to_move()),
            "ply": self.game.moves().len(),
            "view": ply,
            "move_number": pos.move_number(),
            "board": board,
            "hands": {"b": hand(Color::Black), "w": hand(Color::White)},
            "legal": legal,
            "check": check,
            "last_move": shown.moves().last().map(|&m| move_json(m)),
            "moves": self.game.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "moves_ja": japanese,
            "result": result.as_ref().map(result_json),
            "shown_result": shown_result.as_ref().map(result_json),
            "opponent": opponent,
            "level": level,
            "human": human,
            "computer_to_move": at_end && result.is_none()
                && self.computer_color() == Some(pos.side_to_move()),
            "rules": {"sennichite": self.setup.rules.sennichite.name(),
                      "max_plies": self.setup.rules.max_plies},
            "think_ms": self.setup.think_ms,
            "hint": hint,
            "evals": self.evals_json(),
        }))
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

    /// Plays `texts` (USI moves) from position `ply` (default: the last); the moves after
    /// `ply` are dropped (no branches are kept).
    pub fn play(&mut self, texts: &[String], ply: Option<usize>) -> Result<(), ApiError> {
        if texts.is_empty() {
            return Err(ApiError::bad("no move given"));
        }
        if texts.len() > MAX_MOVES {
            return Err(ApiError::bad("too many moves"));
        }
        let mut game = self.game_at(ply)?;
        for t in texts {
            if let Some(r) = game.result(self.setup.rules) {
                return Err(game_over(&r));
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

    /// Starts `task` on `game` (a position of this game); its events go to the live state and,
    /// when `tx` is given, to a waiting request. Returns the task's ticket.
    fn start_task(
        &mut self,
        kind: &'static str,
        game: Game,
        task: Task,
        tx: Option<mpsc::Sender<Event>>,
    ) -> Ticket {
        self.stop_engine();
        let index = game.moves().len();
        let task_no = lock(&self.shared).begin(kind, index, game.current(), 0);
        let shared = self.shared.clone();
        let tx = tx.map(Mutex::new);
        let sink: Sink = Arc::new(move |ev: Event| {
            lock(&shared).on_event(task_no, &ev);
            if let Some(tx) = &tx {
                let _ = lock(tx).send(ev);
            }
        });
        self.engine.go(game, task, sink);
        Ticket {
            version: self.version,
            task: task_no,
        }
    }

    /// Starts a task whose final event the caller waits for (computer move, hint, mate).
    fn start_waited(
        &mut self,
        kind: &'static str,
        game: Game,
        task: Task,
    ) -> (mpsc::Receiver<Event>, Ticket) {
        let (tx, rx) = mpsc::channel();
        let ticket = self.start_task(kind, game, task, Some(tx));
        (rx, ticket)
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
            return Err(game_over(&r));
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
        let (rx, v) = self.start_waited("move", self.game.clone(), Task::Search(spec));
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

    /// A game whose position `ply` is still to be played (not over).
    fn playable_at(&self, ply: Option<usize>) -> Result<Game, ApiError> {
        let game = self.game_at(ply)?;
        match game.result(self.setup.rules) {
            Some(r) => Err(ApiError::conflict(&format!(
                "the game is over in this position: {}",
                result_text(&r)
            ))),
            None => Ok(game),
        }
    }

    pub fn start_hint(
        &mut self,
        ply: Option<usize>,
    ) -> Result<(mpsc::Receiver<Event>, Ticket, u64), ApiError> {
        let game = self.playable_at(ply)?;
        let ms = self.setup.think_ms.min(3_000);
        let spec = self.spec(SKILL_FULL, analysis::movetime(ms), 1);
        let (rx, v) = self.start_waited("hint", game, Task::Search(spec));
        Ok((rx, v, ms + 10_000))
    }

    pub fn finish_hint(&mut self, t: Ticket, best: Option<Move>) -> Result<Value, ApiError> {
        if !self.current(t) {
            return Err(ApiError::conflict(
                "the game changed while the engine was thinking",
            ));
        }
        let m = best.ok_or_else(|| ApiError::conflict("no move to hint"))?;
        let (ply, score) = {
            let sh = lock(&self.shared);
            (sh.live.index, sh.top_score())
        };
        self.hint = Some((t.version, ply, m));
        Ok(json!({"hint": move_json(m), "ply": ply, "score": score.map(score_json)}))
    }

    /// Starts a mate search at position `ply`; the inner `Err` is the answer, given at once,
    /// when the side to move there has no move (already mated).
    #[allow(clippy::type_complexity)]
    pub fn start_mate(
        &mut self,
        ms: u64,
        ply: Option<usize>,
    ) -> Result<Result<(mpsc::Receiver<Event>, Ticket, u64), Value>, ApiError> {
        let game = self.game_at(ply)?;
        if !movegen::has_legal_move(game.current()) {
            let status = if game.current().in_check() {
                "mated"
            } else {
                "nomove"
            };
            return Ok(Err(json!({"status": status, "line": []})));
        }
        let (rx, v) = self.start_waited("mate", game, Task::Mate { ms });
        Ok(Ok((rx, v, ms + 10_000)))
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

    /// Starts live MultiPV analysis of position `ply` (default: the last); results are polled.
    pub fn start_analysis(&mut self, multipv: usize, ply: Option<usize>) -> Result<(), ApiError> {
        let game = self.playable_at(ply)?;
        let limits = Limits {
            movetime: Some(LIVE_ANALYSIS_MS),
            ..Limits::default()
        };
        let spec = self.spec(SKILL_FULL, limits, multipv.clamp(1, 5));
        self.start_task("analysis", game, Task::Search(spec), None);
        Ok(())
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
        let task_no = {
            let start = *self.game.start();
            lock(&self.shared).begin("review", 0, &start, keys.len())
        };
        let shared = self.shared.clone();
        let sink: ReviewSink = Arc::new(move |step: ReviewStep| {
            let mut sh = lock(&shared);
            if sh.live.task != task_no {
                return;
            }
            match step {
                ReviewStep::Position { index, score, .. } => {
                    let (key, side) = keys[index];
                    sh.evals.set(index, key, sente_cp(side, score), -1);
                    sh.live.review_done = index + 1;
                }
                ReviewStep::Done { .. } => sh.live.running = false,
            }
        });
        let spec = self.spec(SKILL_FULL, analysis::movetime(ms), 1);
        self.engine.review(self.game.clone(), spec, sink);
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
        let index_key = self.game.positions().get(live.index).map(|p| p.key());
        json!({
            "version": self.version,
            "kind": live.kind,
            "running": live.running,
            "index": live.index,
            "current": live.kind == "analysis" && index_key == Some(live.key),
            "depth": top.map(|l| l.depth),
            "nodes": top.map(|l| l.nodes),
            "nps": top.map(|l| l.nps),
            "lines": lines,
            "review": {"done": live.review_done, "total": live.review_total},
        })
    }

    /// The names of the players (sente, gote).
    fn players(&self) -> (String, String) {
        match self.setup.opponent {
            Opponent::Friend => ("Player".into(), "Player".into()),
            Opponent::Computer { level, human } => {
                let comp = format!("Gogo ({})", level.name());
                if human == Color::Black {
                    ("Player".into(), comp)
                } else {
                    (comp, "Player".into())
                }
            }
        }
    }

    /// The game as a KIF record (see `crate::kif`).
    pub fn kif(&self) -> String {
        let (sente, gote) = self.players();
        let header = kif::Header {
            sente,
            gote,
            event: "Gogo minishogi".into(),
        };
        kif::write(&self.game, &header, self.result())
    }
}

/// Waits for the final event of a task started with `start_waited`.
pub fn wait_closing(rx: &mpsc::Receiver<Event>, timeout_ms: u64) -> Option<Event> {
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(ev) if ev.is_final() => return Some(ev),
            Ok(_) => continue,
            Err(_) => return None,
        }
    }
}
