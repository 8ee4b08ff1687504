//! Self-play data generation: Gogo against itself at a fixed node budget per move.
//!
//! Game `i` of a run with seed `s` is a pure function of `(s, i)` and the settings: its own
//! random stream picks an opening line and then `random_plies` random legal moves (drawn again
//! while a search of `start_nodes` scores the start beyond `max_start_score`), and every move
//! is a single-threaded search limited by nodes (not time), with a hash table and history
//! that are fresh for each game and kept between its moves. Games are played by `threads`
//! workers in parallel and handed to the sink in game order, so the output is the same
//! whatever the thread count, and a run of games `a..c` gives the games of `a..b` then those
//! of `b..c` (what makes a shard resumable, see [`super::shard`]). A game whose start position
//! (after the random plies) repeats an earlier game's start of the run is dropped, so a run
//! never holds the same game twice. Games end by the rules core ([`Game::result`]): mate, no
//! legal move, sennichite (a draw here), or the ply limit (a draw); or by adjudication
//! ([`Adjudication`]): a mate score, or a score held beyond a bound for some plies.
//!
//! Kept positions are quiet: not in check, the best move neither a capture nor a promotion,
//! and no mate score. Each gets the search score and the game result from its side to move.
//! The opening line and the random plies are never recorded: the first kept position is the
//! start of the searched game.

use super::data::Record;
use super::rng::{mix, SplitMix64};
use crate::game::{Game, GameRules, SennichiteRule};
use crate::movegen::legal_moves;
use crate::movepick::is_noisy;
use crate::nnue::Network;
use crate::search::{SearchConfig, Searcher, Signals, MATE_BOUND, SEARCH_STACK_BYTES};
use crate::time::Limits;
use crate::tt::TranspositionTable;
use crate::types::Color;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Draws of an opening line and random plies tried before a game is given up.
const START_ATTEMPTS: usize = 20;

/// When a game is decided before the rules end it. The positions of an adjudicated game up to
/// the decision are kept, with the adjudicated result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// End the game as soon as a search reports a mate score (the searched side wins or
    /// loses): the plies that play the mate out are never kept anyway.
    pub mate: bool,
    /// End the game when the searches of `score_plies` plies in a row give the same side at
    /// least this many centipawns; 0 turns it off.
    pub score: i32,
    pub score_plies: u32,
}

impl Adjudication {
    pub const OFF: Adjudication = Adjudication {
        mate: false,
        score: 0,
        score_plies: 0,
    };
}

/// Follows the search scores of a game for [`Adjudication`].
#[derive(Clone, Debug)]
pub struct Adjudicator {
    adj: Adjudication,
    /// The side the last searches favour by at least `adj.score`, and for how many plies.
    streak: (Option<Color>, u32),
}

impl Adjudicator {
    pub fn new(adj: Adjudication) -> Adjudicator {
        Adjudicator {
            adj,
            streak: (None, 0),
        }
    }

    /// After the search of the side to move `us` scored `score`: the winner, when that
    /// decides the game.
    pub fn judge(&mut self, us: Color, score: i32) -> Option<Color> {
        let adj = self.adj;
        let favoured = if score > 0 { us } else { !us };
        if adj.mate && score.abs() >= MATE_BOUND {
            return Some(favoured);
        }
        if adj.score > 0 && score.abs() >= adj.score {
            self.streak = match self.streak {
                (Some(c), n) if c == favoured => (Some(c), n + 1),
                _ => (Some(favoured), 1),
            };
            if self.streak.1 >= adj.score_plies.max(1) {
                return Some(favoured);
            }
        } else {
            self.streak = (None, 0);
        }
        None
    }
}

impl Default for Adjudication {
    /// Mate scores, and 2000 cp held for 4 plies: in the 23k positions of `gen1-s31` (5000
    /// nodes) the side with a score of at least 2000 won 99.8% of its games.
    fn default() -> Self {
        Adjudication {
            mate: true,
            score: 2000,
            score_plies: 4,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Settings {
    pub seed: u64,
    /// The run plays games `first_game..first_game + games` (it may stop earlier on
    /// `time_limit`).
    pub first_game: u64,
    pub games: u64,
    pub threads: usize,
    /// Node budget per move.
    pub nodes: u64,
    /// Node budget of the search that scores a start (0: `nodes`).
    pub start_nodes: u64,
    /// Node budget of the moves played in check (0: `nodes`). Those positions are never kept,
    /// so a smaller budget makes the kept ones cheaper, at the price of weaker evasions.
    pub check_nodes: u64,
    /// Node budget of a probe searched before each move out of check (0, or at least
    /// `nodes`: no probe). When the probe's best move is a capture or a promotion, or its
    /// score a mate, the position would not be kept: the probe's move is played and the full
    /// search is skipped. Otherwise the position is searched again with the rest of the
    /// budget (`nodes - probe_nodes`, finding the probe's table entries), so that a kept
    /// position costs `nodes` in all; the plies that are not kept cost the probe alone and
    /// are played more weakly.
    pub probe_nodes: u64,
    /// Random legal moves played after the opening line.
    pub random_plies: usize,
    /// Draw by the ply limit after this many plies.
    pub max_plies: u32,
    pub hash_mb: usize,
    /// Opening lines as `position` arguments (`startpos moves ...`).
    pub openings: Vec<String>,
    /// Largest |score| (search at `start_nodes`) of an acceptable start; 0 accepts any start.
    pub max_start_score: i32,
    pub adjudication: Adjudication,
    /// The net the searches evaluate with (`None`: the embedded one).
    pub net: Option<Arc<Network>>,
    /// Stop handing out new games after this long.
    pub time_limit: Option<Duration>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 1,
            first_game: 0,
            games: 100,
            threads: 1,
            nodes: 5000,
            start_nodes: 1000,
            check_nodes: 0,
            probe_nodes: 0,
            random_plies: 4,
            max_start_score: 300,
            max_plies: 300,
            hash_mb: 8,
            openings: vec!["startpos".to_string()],
            adjudication: Adjudication::default(),
            net: None,
            time_limit: None,
        }
    }
}

impl Settings {
    /// Whether the moves out of check are probed first (see `probe_nodes`).
    pub fn probes(&self) -> bool {
        self.probe_nodes > 0 && self.probe_nodes < self.nodes
    }

    /// The settings that decide the games (not `threads` or `time_limit`), as `(key, value)`
    /// pairs: what a shard's metadata records and a resumed run must repeat.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let openings = self.openings.join("\n");
        let net = self.net.clone().unwrap_or_else(crate::nnue::default_net);
        vec![
            ("net", format!("{:016x}", net.hash())),
            ("seed", self.seed.to_string()),
            ("first_game", self.first_game.to_string()),
            ("games", self.games.to_string()),
            ("nodes", self.nodes.to_string()),
            ("start_nodes", self.start_nodes.to_string()),
            ("random_plies", self.random_plies.to_string()),
            ("max_start_score", self.max_start_score.to_string()),
            ("max_plies", self.max_plies.to_string()),
            ("hash_mb", self.hash_mb.to_string()),
            (
                "openings",
                format!(
                    "{} lines, fnv1a {:016x}",
                    self.openings.len(),
                    crate::nnue::net::fnv1a(openings.as_bytes())
                ),
            ),
            (
                "adjudicate",
                format!(
                    "mate {}, score {} for {} plies",
                    self.adjudication.mate, self.adjudication.score, self.adjudication.score_plies
                ),
            ),
        ]
        .into_iter()
        // Listed only when set, so that shards made before it existed still resume.
        .chain((self.check_nodes > 0).then(|| ("check_nodes", self.check_nodes.to_string())))
        .chain(
            self.probes()
                .then(|| ("probe_nodes", self.probe_nodes.to_string())),
        )
        .collect()
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

/// Draws the start of a game from `rng`: a line of `openings` (as `position` arguments) and
/// `random_plies` random legal moves, drawn again while the game is already over, or while
/// `search` (which searches the start and gives its score for the side to move) says it is
/// beyond `max_start_score` (0: any start is taken, unsearched); at most `START_ATTEMPTS`
/// draws. `None` when no start was found.
pub fn draw_start(
    openings: &[String],
    random_plies: usize,
    max_start_score: i32,
    rules: GameRules,
    rng: &mut SplitMix64,
    mut search: impl FnMut(&Game) -> i32,
) -> Result<Option<Game>, String> {
    for _ in 0..START_ATTEMPTS {
        let line = &openings[rng.below(openings.len().max(1))];
        let mut game = Game::parse_position(line).map_err(|e| format!("opening '{line}': {e}"))?;
        for _ in 0..random_plies {
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
        if max_start_score > 0 && search(&game).abs() > max_start_score {
            continue;
        }
        return Ok(Some(game));
    }
    Ok(None)
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finish {
    /// `None` for a draw.
    pub winner: Option<Color>,
    /// Decided by [`Adjudication`], not by the rules.
    pub adjudicated: bool,
}

/// What became of a game in the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Kept,
    /// Its start repeats an earlier game's start of the run.
    Duplicate,
    /// No balanced, undecided start was found.
    NoStart,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameOutput {
    pub index: u64,
    /// Key of the position the searched part of the game started from.
    pub start_key: u64,
    pub records: Vec<Record>,
    /// `None` when no balanced, undecided start was found (such games are dropped).
    pub finish: Option<Finish>,
    pub plies: usize,
    /// Nodes searched in this game, the start searches included.
    pub nodes: u64,
}

/// A fresh searcher for one game's searches (its own table of `hash_mb`, the net `net` or
/// the embedded one) and the configuration data searches run with: silent, no mate probe,
/// repetition a draw. Self-play and rescoring both search this way.
pub fn game_searcher(hash_mb: usize, net: Option<&Arc<Network>>) -> (Searcher, SearchConfig) {
    let tt = Arc::new(TranspositionTable::new(hash_mb));
    let mut searcher = Searcher::new(tt, Arc::new(Signals::default()));
    if let Some(net) = net {
        searcher.set_net(Some(net.clone()));
    }
    let config = SearchConfig {
        verbose: false,
        mate_probe: false,
        sennichite: SennichiteRule::Draw,
        ..SearchConfig::default()
    };
    (searcher, config)
}

/// Plays game `index` of the run.
pub fn play_game(s: &Settings, index: u64) -> Result<GameOutput, String> {
    let mut rng = SplitMix64::new(mix(s.seed, index));
    let rules = GameRules {
        sennichite: SennichiteRule::Draw,
        max_plies: s.max_plies,
    };
    let (mut searcher, config) = game_searcher(s.hash_mb, s.net.as_ref());
    let limits = Limits {
        nodes: Some(s.nodes),
        ..Limits::default()
    };
    let check_limits = Limits {
        nodes: Some(if s.check_nodes == 0 {
            s.nodes
        } else {
            s.check_nodes
        }),
        ..Limits::default()
    };
    let probe_limits = Limits {
        nodes: Some(s.probe_nodes),
        ..Limits::default()
    };
    let after_probe_limits = Limits {
        nodes: Some(s.nodes.saturating_sub(s.probe_nodes).max(1)),
        ..Limits::default()
    };
    let start_limits = Limits {
        nodes: Some(if s.start_nodes == 0 {
            s.nodes
        } else {
            s.start_nodes
        }),
        ..Limits::default()
    };
    let mut out = GameOutput {
        index,
        start_key: 0,
        records: Vec::new(),
        finish: None,
        plies: 0,
        nodes: 0,
    };
    // An opening line plus random plies, searched once: a start whose score is beyond
    // `max_start_score` (a random move often loses a man) is drawn again.
    let chosen = draw_start(
        &s.openings,
        s.random_plies,
        s.max_start_score,
        rules,
        &mut rng,
        |game| {
            let r = searcher.think(game.positions(), &start_limits, &[], &config);
            out.nodes += r.nodes;
            r.score
        },
    )?;
    let Some(mut game) = chosen else {
        return Ok(out);
    };
    out.start_key = game.current().key();
    let mut adjudicator = Adjudicator::new(s.adjudication);
    // (position, score) of the kept positions; results are filled in at the end.
    let mut kept = Vec::new();
    let finish = loop {
        if let Some(r) = game.result(rules) {
            break Finish {
                winner: r.winner,
                adjudicated: false,
            };
        }
        let pos = *game.current();
        let r = if pos.in_check() {
            searcher.think(game.positions(), &check_limits, &[], &config)
        } else if s.probes() {
            let probe = searcher.think(game.positions(), &probe_limits, &[], &config);
            let unkept =
                probe.score.abs() >= MATE_BOUND || probe.best.is_some_and(|m| is_noisy(&pos, m));
            if unkept {
                probe
            } else {
                out.nodes += probe.nodes;
                searcher.think(game.positions(), &after_probe_limits, &[], &config)
            }
        } else {
            searcher.think(game.positions(), &limits, &[], &config)
        };
        out.nodes += r.nodes;
        let Some(best) = r.best else {
            return Err(format!("search found no move in {pos}"));
        };
        if let Some(winner) = adjudicator.judge(pos.side_to_move(), r.score) {
            break Finish {
                winner: Some(winner),
                adjudicated: true,
            };
        }
        if !pos.in_check() && !is_noisy(&pos, best) && r.score.abs() < MATE_BOUND {
            kept.push((pos, r.score.clamp(-32000, 32000) as i16));
        }
        game.play(best).map_err(|e| e.to_string())?;
        out.plies += 1;
    };
    out.finish = Some(finish);
    out.records = kept
        .into_iter()
        .map(|(pos, score)| Record {
            pos,
            score,
            result: match finish.winner {
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
    pub adjudicated: u64,
    pub positions: u64,
    pub plies: u64,
    pub nodes: u64,
    /// Sente wins, gote wins, draws.
    pub outcomes: [u64; 3],
    pub seconds: f64,
}

/// Plays games `s.first_game..s.first_game + s.games` on `s.threads` workers and hands every
/// game to `sink` in game order with its [`Fate`] (a game whose start key is in `seen`, or
/// repeats an earlier start of this run, is a duplicate; `seen` receives the kept games'
/// keys). A sink that writes the kept games' records makes the same bytes whatever the thread
/// count. `progress` is called after every game with the running totals.
pub fn run(
    s: &Settings,
    seen: &mut HashSet<u64>,
    mut sink: impl FnMut(&GameOutput, Fate) -> Result<(), String>,
    mut progress: impl FnMut(&Summary),
) -> Result<Summary, String> {
    let start = Instant::now();
    let end = s.first_game.saturating_add(s.games);
    let next = Arc::new(AtomicU64::new(s.first_game));
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
                if i >= end {
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
    let mut expected = s.first_game;
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
            if error.is_some() {
                continue;
            }
            summary.nodes += g.nodes;
            let fate = match g.finish {
                None => Fate::NoStart,
                Some(_) if !seen.insert(g.start_key) => Fate::Duplicate,
                Some(_) => Fate::Kept,
            };
            if let Err(e) = sink(&g, fate) {
                abort.store(true, Ordering::Relaxed);
                error = Some(e);
                continue;
            }
            match (fate, g.finish) {
                (Fate::Kept, Some(f)) => {
                    summary.games += 1;
                    summary.adjudicated += f.adjudicated as u64;
                    summary.positions += g.records.len() as u64;
                    summary.plies += g.plies as u64;
                    let slot = match f.winner {
                        Some(Color::Black) => 0,
                        Some(Color::White) => 1,
                        None => 2,
                    };
                    summary.outcomes[slot] += 1;
                }
                (Fate::Duplicate, _) => summary.dropped_duplicates += 1,
                _ => summary.dropped_starts += 1,
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

/// Convenience for tests: the records of the run's kept games, in order.
pub fn generate(s: &Settings) -> Result<Vec<Record>, String> {
    let mut all = Vec::new();
    run(
        s,
        &mut HashSet::new(),
        |g, fate| {
            if fate == Fate::Kept {
                all.extend_from_slice(&g.records);
            }
            Ok(())
        },
        |_| {},
    )?;
    Ok(all)
}
