//! Self-play data generation: Gogo against itself at a fixed node budget per move.
//!
//! Game `i` of a run with seed `s` is a pure function of `(s, i)` and the settings: its own
//! random stream picks an opening line and then `random_plies` random legal moves (drawn again
//! while a search scores the start beyond `max_start_score`), and every
//! move is a single-threaded search with a fresh hash table and fresh history, limited by
//! nodes (not time). Games are played by `threads` workers in parallel and handed to the sink
//! in game order, so the output file is the same whatever the thread count. A game whose start
//! position (after the random plies) repeats an earlier game's start is dropped, so a run
//! never holds the same game twice. Games end by the rules core ([`Game::result`]): mate, no
//! legal move, sennichite (a draw here), or the ply limit (a draw).
//!
//! Kept positions are quiet: not in check, the best move neither a capture nor a promotion,
//! and no mate score. Each gets the search score and the game result from its side to move.

use super::data::Record;
use super::rng::{mix, SplitMix64};
use crate::game::{Game, GameResult, GameRules, SennichiteRule};
use crate::movegen::legal_moves;
use crate::search::{SearchConfig, Searcher, Shared, MATE_BOUND, SEARCH_STACK_BYTES};
use crate::time::Limits;
use crate::tt::TranspositionTable;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Draws of an opening line and random plies tried before a game is given up.
const START_ATTEMPTS: usize = 20;

#[derive(Clone, Debug)]
pub struct Settings {
    pub seed: u64,
    /// Games to play (the run may stop earlier on `time_limit`).
    pub games: u64,
    pub threads: usize,
    /// Node budget per move.
    pub nodes: u64,
    /// Random legal moves played after the opening line.
    pub random_plies: usize,
    /// Draw by the ply limit after this many plies.
    pub max_plies: u32,
    pub hash_mb: usize,
    /// Opening lines as `position` arguments (`startpos moves ...`).
    pub openings: Vec<String>,
    /// Largest |score| (search at `nodes`) of an acceptable start; 0 accepts any start.
    pub max_start_score: i32,
    /// Stop handing out new games after this long.
    pub time_limit: Option<Duration>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 1,
            games: 100,
            threads: 1,
            nodes: 5000,
            random_plies: 4,
            max_start_score: 300,
            max_plies: 300,
            hash_mb: 8,
            openings: vec!["startpos".to_string()],
            time_limit: None,
        }
    }
}

/// The opening lines of a file in the format of `data/openings.txt` (comments start with `#`).
pub fn parse_openings(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameOutput {
    pub index: u64,
    /// Key of the position the searched part of the game started from.
    pub start_key: u64,
    pub records: Vec<Record>,
    /// `None` when no balanced, undecided start was found (such games are dropped).
    pub result: Option<GameResult>,
    pub plies: usize,
    /// Nodes searched in this game.
    pub nodes: u64,
}

/// Plays game `index` of the run.
pub fn play_game(s: &Settings, index: u64) -> Result<GameOutput, String> {
    let mut rng = SplitMix64::new(mix(s.seed, index));
    let rules = GameRules {
        sennichite: SennichiteRule::Draw,
        max_plies: s.max_plies,
    };
    let tt = Arc::new(TranspositionTable::new(s.hash_mb));
    let mut searcher = Searcher::new(tt, Arc::new(Shared::default()));
    let config = SearchConfig {
        verbose: false,
        mate_probe: false,
        sennichite: SennichiteRule::Draw,
        ..SearchConfig::default()
    };
    let limits = Limits {
        nodes: Some(s.nodes),
        ..Limits::default()
    };
    let mut out = GameOutput {
        index,
        start_key: 0,
        records: Vec::new(),
        result: None,
        plies: 0,
        nodes: 0,
    };
    // An opening line plus random plies, searched once: a start whose score is beyond
    // `max_start_score` (a random move often loses a man) is drawn again.
    let mut chosen = None;
    for _ in 0..START_ATTEMPTS {
        let line = &s.openings[rng.below(s.openings.len().max(1))];
        let mut game = Game::parse_position(line).map_err(|e| format!("opening '{line}': {e}"))?;
        for _ in 0..s.random_plies {
            if game.result(rules).is_some() {
                break;
            }
            let moves = legal_moves(game.current());
            let m = moves.as_slice()[rng.below(moves.len())];
            game.play(m).map_err(|e| e.to_string())?;
        }
        if game.result(rules).is_some() {
            continue;
        }
        if s.max_start_score > 0 {
            let r = searcher.think(game.positions(), &limits, &[], &config);
            out.nodes += r.nodes;
            if r.score.abs() > s.max_start_score {
                continue;
            }
        }
        chosen = Some(game);
        break;
    }
    let Some(mut game) = chosen else {
        return Ok(out);
    };
    out.start_key = game.current().key();
    // (position, score, side to move) of the kept positions; results are filled in at the end.
    let mut kept = Vec::new();
    let result = loop {
        if let Some(r) = game.result(rules) {
            break r;
        }
        let r = searcher.think(game.positions(), &limits, &[], &config);
        out.nodes += r.nodes;
        let pos = *game.current();
        let Some(best) = r.best else {
            return Err(format!("search found no move in {pos}"));
        };
        let noisy = best.is_promotion() || (!best.is_drop() && pos.piece_on(best.to()).is_some());
        if !pos.in_check() && !noisy && r.score.abs() < MATE_BOUND {
            kept.push((pos, r.score.clamp(-32000, 32000) as i16));
        }
        game.play(best).map_err(|e| e.to_string())?;
        out.plies += 1;
    };
    out.result = Some(result);
    out.records = kept
        .into_iter()
        .map(|(pos, score)| Record {
            pos,
            score,
            result: match result.winner {
                None => 0,
                Some(w) if w == pos.side_to_move() => 1,
                Some(_) => -1,
            },
            ply: pos.move_number().saturating_sub(1).min(u16::MAX as u32) as u16,
        })
        .collect();
    Ok(out)
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub dropped_duplicates: u64,
    pub dropped_starts: u64,
    pub positions: u64,
    pub plies: u64,
    pub nodes: u64,
    /// Sente wins, gote wins, draws.
    pub outcomes: [u64; 3],
    pub seconds: f64,
}

/// Plays the run's games on `s.threads` workers and hands each kept game to `sink` in game
/// order (duplicates of an earlier start and games without a balanced start are dropped).
/// `progress` is called after every game with the running totals.
pub fn run(
    s: &Settings,
    mut sink: impl FnMut(&GameOutput) -> Result<(), String>,
    mut progress: impl FnMut(&Summary),
) -> Result<Summary, String> {
    let start = Instant::now();
    let next = Arc::new(AtomicU64::new(0));
    let abort = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<Result<GameOutput, String>>();
    let mut workers = Vec::new();
    for w in 0..s.threads.max(1) {
        let (s, next, abort, tx) = (s.clone(), next.clone(), abort.clone(), tx.clone());
        let h = std::thread::Builder::new()
            .name(format!("datagen {w}"))
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || loop {
                if abort.load(Ordering::Relaxed)
                    || s.time_limit.is_some_and(|t| start.elapsed() >= t)
                {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= s.games {
                    break;
                }
                if tx.send(play_game(&s, i)).is_err() {
                    break;
                }
            })
            .map_err(|e| format!("cannot start a worker: {e}"))?;
        workers.push(h);
    }
    drop(tx);
    let mut summary = Summary::default();
    let mut pending: BTreeMap<u64, GameOutput> = BTreeMap::new();
    let mut seen = HashSet::new();
    let mut expected = 0u64;
    let mut error = None;
    for msg in rx {
        let g = match msg {
            Ok(g) => g,
            Err(e) => {
                abort.store(true, Ordering::Relaxed);
                error.get_or_insert(e);
                continue;
            }
        };
        pending.insert(g.index, g);
        while let Some(g) = pending.remove(&expected) {
            expected += 1;
            summary.nodes += g.nodes;
            match g.result {
                None => summary.dropped_starts += 1,
                Some(_) if !seen.insert(g.start_key) => summary.dropped_duplicates += 1,
                Some(r) => {
                    if error.is_none() {
                        if let Err(e) = sink(&g) {
                            abort.store(true, Ordering::Relaxed);
                            error = Some(e);
                        }
                    }
                    summary.games += 1;
                    summary.positions += g.records.len() as u64;
                    summary.plies += g.plies as u64;
                    let slot = match r.winner {
                        Some(crate::types::Color::Black) => 0,
                        Some(crate::types::Color::White) => 1,
                        None => 2,
                    };
                    summary.outcomes[slot] += 1;
                }
            }
            summary.seconds = start.elapsed().as_secs_f64();
            progress(&summary);
        }
    }
    for h in workers {
        if h.join().is_err() {
            error.get_or_insert("a datagen worker panicked".to_string());
        }
    }
    if !pending.is_empty() {
        log::info!(
            "{} finished games after a gap in the game order were not written (time limit)",
            pending.len()
        );
    }
    summary.seconds = start.elapsed().as_secs_f64();
    match error {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// Convenience for tests: the records of the first `games` games of a run, in order.
pub fn generate(s: &Settings) -> Result<Vec<Record>, String> {
    let mut all = Vec::new();
    run(
        s,
        |g| {
            all.extend_from_slice(&g.records);
            Ok(())
        },
        |_| {},
    )?;
    Ok(all)
}
