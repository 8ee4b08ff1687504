//! The one place where the browser board talks to the engine.
//!
//! Everything the server asks of the engine goes through [`EngineAdapter`]: a search (a
//! computer move, a hint, live MultiPV analysis), a mate search, or a review of every position
//! of a game. The adapter drives the engine controller ([`crate::engine::Engine`]) and passes
//! the engine's own events (`crate::event`) on unchanged; a review (one search per position of
//! a game) reports its [`ReviewStep`]s. A new task stops (and joins) the one before it, so a
//! superseded analysis never keeps running.

use super::lock;
use crate::engine::{Engine, GoRequest, MateLimit};
use crate::event::{Event, Score, Sink};
use crate::game::{Game, SennichiteRule};
use crate::movegen;
use crate::options::{OptionId, OptionValue};
use crate::time::Limits;
use crate::types::Move;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Hash table of one game's engine (MB).
const HASH_MB: usize = 8;

/// Centipawn-like number for graphs and move marks: mates are +-10000 less the distance.
pub fn score_cp(s: Score) -> i32 {
    match s {
        Score::Cp(c) => c,
        Score::Mate(n) if n > 0 => 10_000 - n,
        Score::Mate(n) => -10_000 - n,
    }
}

/// A step of a review (the review is the board's own task: one search per position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReviewStep {
    /// Position `index` of the game is done: its score (side to move's view) and best move
    /// (no move when the game is over there).
    Position {
        index: usize,
        score: Score,
        best: Option<Move>,
    },
    /// The review ended; `complete` is false when it was stopped.
    Done { complete: bool },
}

/// Where a review's steps go. Called from the review's thread.
pub type ReviewSink = Arc<dyn Fn(ReviewStep) + Send + Sync>;

/// What a search may use.
#[derive(Clone, Debug)]
pub struct SearchSpec {
    pub limits: Limits,
    pub multipv: usize,
    /// 0 ..= `SKILL_FULL`.
    pub skill_level: u8,
    pub sennichite: SennichiteRule,
}

#[derive(Clone, Debug)]
pub enum Task {
    /// Search the current position of the game.
    Search(SearchSpec),
    /// Look for a forced mate for the side to move within `ms` milliseconds.
    Mate { ms: u64 },
}

struct Review {
    cancel: Arc<AtomicBool>,
    /// Gives the engine back.
    handle: JoinHandle<Engine>,
}

/// The engine of one game: at most one task at a time.
#[derive(Default)]
pub struct EngineAdapter {
    /// `None` before the first task and while a review holds it.
    engine: Option<Engine>,
    review: Option<Review>,
}

fn make_engine() -> Engine {
    let mut e = Engine::new();
    if let Err(e) = e.set(OptionId::Hash, HASH_MB) {
        log::warn!("gui engine hash: {e}");
    }
    e
}

fn configure(engine: &mut Engine, spec: &SearchSpec) {
    let settings: [(OptionId, OptionValue); 3] = [
        (OptionId::MultiPv, spec.multipv.max(1).into()),
        (OptionId::SkillLevel, spec.skill_level.into()),
        (OptionId::SennichiteRule, spec.sennichite.into()),
    ];
    for (id, value) in settings {
        if let Err(e) = engine.set(id, value) {
            log::warn!("gui engine option {id:?}: {e}");
        }
    }
}

impl EngineAdapter {
    pub fn new() -> EngineAdapter {
        EngineAdapter::default()
    }

    /// Starts `task` on the current position of `game`, stopping any task still running.
    /// Returns at once; the engine's events go to `sink`, which gets exactly one final event
    /// (`BestMove` or `Checkmate`).
    pub fn go(&mut self, game: Game, task: Task, sink: Sink) {
        self.stop();
        let mut engine = self.engine.take().unwrap_or_else(make_engine);
        let request = match task {
            Task::Search(spec) => {
                configure(&mut engine, &spec);
                GoRequest {
                    limits: spec.limits,
                    ..GoRequest::default()
                }
            }
            Task::Mate { ms } => GoRequest {
                mate: Some(MateLimit::Millis(ms.max(1))),
                ..GoRequest::default()
            },
        };
        engine.set_game(game);
        engine.go(request, sink);
        self.engine = Some(engine);
    }

    /// Starts the review of every position of `game` in turn, `spec` each (from the first to
    /// the last), stopping any task still running. `sink` gets one step per position and then
    /// exactly one [`ReviewStep::Done`].
    pub fn review(&mut self, game: Game, spec: SearchSpec, sink: ReviewSink) {
        self.stop();
        let mut engine = self.engine.take().unwrap_or_else(make_engine);
        configure(&mut engine, &spec);
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let spawned = std::thread::Builder::new()
            .name("gui-review".into())
            .spawn(move || review(engine, game, spec, &flag, &sink));
        match spawned {
            Ok(handle) => self.review = Some(Review { cancel, handle }),
            Err(e) => log::error!("could not start the review: {e}"),
        }
    }

    /// Stops the running task, if any, and waits for it to end.
    pub fn stop(&mut self) {
        if let Some(r) = self.review.take() {
            r.cancel.store(true, Ordering::SeqCst);
            match r.handle.join() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => log::error!("the review thread panicked"),
            }
        }
        if let Some(e) = self.engine.as_mut() {
            e.stop();
        }
    }
}

impl Drop for EngineAdapter {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The review: each position of `game` searched in turn with `spec`; gives the engine back.
fn review(
    mut engine: Engine,
    game: Game,
    spec: SearchSpec,
    cancel: &AtomicBool,
    sink: &ReviewSink,
) -> Engine {
    let mut part = Game::new(*game.start());
    let total = game.positions().len();
    let mut complete = true;
    for index in 0..total {
        if index > 0 && part.play(game.moves()[index - 1]).is_err() {
            log::error!("review: the game's own move {index} was refused");
            complete = false;
            break;
        }
        if cancel.load(Ordering::SeqCst) {
            complete = false;
            break;
        }
        if !movegen::has_legal_move(part.current()) {
            sink(ReviewStep::Position {
                index,
                score: Score::Mate(0),
                best: None,
            });
            continue;
        }
        engine.set_game(part.clone());
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        // The score of the best move is the last one of the first line.
        let last: Mutex<Option<Score>> = Mutex::new(None);
        let inner: Sink = Arc::new(move |ev: Event| match ev {
            Event::Info(info) if info.multipv == 1 => *lock(&last) = Some(info.score),
            Event::BestMove { best, .. } => {
                let _ = lock(&tx).send((best, *lock(&last)));
            }
            _ => {}
        });
        let request = GoRequest {
            limits: spec.limits.clone(),
            ..GoRequest::default()
        };
        engine.go(request, inner);
        let answer = loop {
            match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(a) => break Some(a),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.load(Ordering::SeqCst) {
                        engine.stop();
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            }
        };
        engine.wait();
        if cancel.load(Ordering::SeqCst) {
            complete = false;
            break;
        }
        match answer {
            Some((best, Some(score))) => sink(ReviewStep::Position { index, score, best }),
            _ => log::warn!("review: no score for position {index}"),
        }
    }
    sink(ReviewStep::Done { complete });
    engine
}

/// Limits for a search of `ms` milliseconds.
pub fn movetime(ms: u64) -> Limits {
    Limits {
        movetime: Some(ms.max(1)),
        ..Limits::default()
    }
}
