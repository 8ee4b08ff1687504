//! The one place where the browser board talks to the engine.
//!
//! Everything the server asks of the engine goes through [`EngineAdapter`]: a search (a
//! computer move, a hint, live MultiPV analysis), a mate search, or a review of every position
//! of a game. The adapter drives the engine controller ([`crate::engine::Engine`]) and passes
//! its structured events (`crate::event`) on, adding the score of the best move to the final
//! event and the review's own events. A new task stops (and joins) the one before it, so a
//! superseded analysis never keeps running.

use crate::engine::{Engine, GoRequest, MateLimit};
use crate::event::{self, MateAnswer, Score, SearchInfo};
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Info(SearchInfo),
    /// Ends a search task (also after `stop`), with the last score of the first line.
    BestMove {
        best: Option<Move>,
        score: Option<Score>,
    },
    /// Ends a mate task.
    Checkmate(MateAnswer),
    /// One position of a review is done: position `index` of the game, its score and best
    /// move (no move when the game is over there).
    Reviewed {
        index: usize,
        score: Score,
        best: Option<Move>,
    },
    /// Ends a review task; `complete` is false when it was stopped.
    ReviewDone {
        complete: bool,
    },
}

pub type Sink = Arc<dyn Fn(Event) + Send + Sync>;

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
    /// Score every position of the game in turn, `spec` each (from the first to the last).
    Review(SearchSpec),
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
    let settings: [(OptionId, OptionValue); 2] = [
        (OptionId::MultiPv, spec.multipv.max(1).into()),
        (OptionId::SkillLevel, spec.skill_level.into()),
    ];
    for (id, value) in settings {
        if let Err(e) = engine.set(id, value) {
            log::warn!("gui engine option {id:?}: {e}");
        }
    }
    engine.set_sennichite(spec.sennichite);
}

/// The engine's events as the board's: info lines pass, the bestmove gets the last score of
/// the first line, messages go to the log.
fn translate(sink: Sink) -> event::Sink {
    let last: Mutex<Option<Score>> = Mutex::new(None);
    Arc::new(move |ev: event::Event| match ev {
        event::Event::Info(info) => {
            if info.multipv == 1 {
                *super::session::lock(&last) = Some(info.score);
            }
            sink(Event::Info(info));
        }
        event::Event::BestMove { best, .. } => {
            let score = *super::session::lock(&last);
            sink(Event::BestMove { best, score });
        }
        event::Event::Checkmate(answer) => sink(Event::Checkmate(answer)),
        event::Event::Message(m) => log::debug!("engine: {m}"),
        other => log::debug!("engine event ignored: {other:?}"),
    })
}

impl EngineAdapter {
    pub fn new() -> EngineAdapter {
        EngineAdapter::default()
    }

    /// Starts `task` on `game`, stopping any task still running. Returns at once; the sink
    /// gets exactly one closing event ([`Event::BestMove`], [`Event::Checkmate`] or
    /// [`Event::ReviewDone`]).
    pub fn go(&mut self, game: Game, task: Task, sink: Sink) {
        self.stop();
        let mut engine = self.engine.take().unwrap_or_else(make_engine);
        match task {
            Task::Search(spec) => {
                configure(&mut engine, &spec);
                engine.set_game(game);
                let request = GoRequest {
                    limits: spec.limits,
                    ..GoRequest::default()
                };
                engine.go(request, translate(sink));
                self.engine = Some(engine);
            }
            Task::Mate { ms } => {
                engine.set_game(game);
                let request = GoRequest {
                    mate: Some(MateLimit::Millis(ms.max(1))),
                    ..GoRequest::default()
                };
                engine.go(request, translate(sink));
                self.engine = Some(engine);
            }
            Task::Review(spec) => {
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
    sink: &Sink,
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
            sink(Event::Reviewed {
                index,
                score: Score::Mate(0),
                best: None,
            });
            continue;
        }
        engine.set_game(part.clone());
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let inner: Sink = Arc::new(move |ev: Event| {
            if let Event::BestMove { best, score } = ev {
                let _ = super::session::lock(&tx).send((best, score));
            }
        });
        let request = GoRequest {
            limits: spec.limits.clone(),
            ..GoRequest::default()
        };
        engine.go(request, translate(inner));
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
            Some((best, Some(score))) => sink(Event::Reviewed { index, score, best }),
            _ => log::warn!("review: no score for position {index}"),
        }
    }
    sink(Event::ReviewDone { complete });
    engine
}

/// Limits for a search of `ms` milliseconds.
pub fn movetime(ms: u64) -> Limits {
    Limits {
        movetime: Some(ms.max(1)),
        ..Limits::default()
    }
}
