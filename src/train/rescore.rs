//! Rescoring: the positions of existing data searched again, usually deeper or by a newer
//! engine, keeping their game results. A net's data then carries labels deeper than the
//! self-play that chose the positions, for the cost of the kept positions' searches alone
//! (the games' other plies and their start checks are not searched again).
//!
//! Each game of the input (a run of records whose plies rise) is searched by a fresh
//! [`Searcher`] with its own table, position after position in game order, as data generation
//! searches a game, so the output does not depend on the thread count. A position is kept
//! when the new search still calls it quiet, as data generation does: the best move neither
//! captures nor promotes and the score is not a mate.

use super::data::{games, Record};
use super::datagen::game_searcher;
use crate::movepick::is_noisy;
use crate::nnue::Network;
use crate::search::{MATE_BOUND, SEARCH_STACK_BYTES};
use crate::time::Limits;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub struct Settings {
    /// Nodes of each position's search.
    pub nodes: u64,
    pub threads: usize,
    pub hash_mb: usize,
    /// The net to search with (`None`: the embedded one).
    pub net: Option<Arc<Network>>,
}

/// Counts of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    pub positions_in: u64,
    pub kept: u64,
    /// Dropped: the new best move captures or promotes.
    pub noisy: u64,
    /// Dropped: the new score is a mate.
    pub mates: u64,
    pub nodes: u64,
}

/// What became of one input record.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    Kept(Record),
    /// The new best move captures or promotes.
    Noisy,
    /// The new score is a mate.
    Mate,
}

/// One game's outcomes, in record order, and the nodes searched.
type GameOutcome = (Vec<Outcome>, u64);

/// Searches one game's records again.
fn rescore_game(records: &[Record], s: &Settings) -> GameOutcome {
    let (mut searcher, config) = game_searcher(s.hash_mb, s.net.as_ref());
    let limits = Limits {
        nodes: Some(s.nodes),
        ..Limits::default()
    };
    let mut nodes = 0;
    let out = records
        .iter()
        .map(|r| {
            let res = searcher.think(&[r.pos], &limits, &[], &config);
            nodes += res.nodes;
            if res.score.abs() >= MATE_BOUND {
                return Outcome::Mate;
            }
            match res.best {
                Some(m) if !is_noisy(&r.pos, m) => Outcome::Kept(Record {
                    score: res.score.clamp(-32000, 32000) as i16,
                    ..*r
                }),
                _ => Outcome::Noisy,
            }
        })
        .collect();
    (out, nodes)
}

/// `records` searched again at `s.nodes` on `s.threads` workers: the kept records in input
/// order, with their new scores (positions, results and plies unchanged).
pub fn rescore(records: &[Record], s: &Settings) -> (Vec<Record>, Summary) {
    let games = games(records);
    let results: Mutex<Vec<Option<GameOutcome>>> = Mutex::new(vec![None; games.len()]);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..s.threads.max(1) {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(scope, || loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    let Some(range) = games.get(g) else { break };
                    let done = rescore_game(&records[range.clone()], s);
                    results.lock().expect("no worker panics")[g] = Some(done);
                })
                .expect("a rescoring thread starts");
        }
    });
    let mut summary = Summary {
        games: games.len() as u64,
        positions_in: records.len() as u64,
        ..Summary::default()
    };
    let mut out = Vec::with_capacity(records.len());
    for game in results.into_inner().expect("no worker panics") {
        let (recs, nodes) = game.expect("every game was searched");
        summary.nodes += nodes;
        for r in recs {
            match r {
                Outcome::Kept(r) => out.push(r),
                Outcome::Mate => summary.mates += 1,
                Outcome::Noisy => summary.noisy += 1,
            }
        }
    }
    summary.kept = out.len() as u64;
    (out, summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::datagen::{self, Settings as GenSettings};

    fn small_data() -> Vec<Record> {
        let s = GenSettings {
            games: 4,
            nodes: 300,
            start_nodes: 100,
            threads: 1,
            seed: 7,
            ..GenSettings::default()
        };
        datagen::generate(&s).expect("data generation runs")
    }

    #[test]
    fn games_split_where_the_ply_does_not_rise() {
        let recs = small_data();
        let g = games(&recs);
        assert!(g.len() >= 2, "{} games", g.len());
        assert_eq!(g.first().unwrap().start, 0);
        assert_eq!(g.last().unwrap().end, recs.len());
        for w in g.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(recs[w[1].start].ply <= recs[w[0].end - 1].ply);
        }
        for r in &g {
            assert!(recs[r.clone()].windows(2).all(|w| w[0].ply < w[1].ply));
        }
    }

    #[test]
    fn rescoring_keeps_positions_and_results_and_does_not_depend_on_threads() {
        let recs = small_data();
        let settings = |threads| Settings {
            nodes: 2_000,
            threads,
            hash_mb: 1,
            net: Some(crate::nnue::default_net()),
        };
        let (one, s1) = rescore(&recs, &settings(1));
        let (two, s2) = rescore(&recs, &settings(2));
        assert_eq!(one, two);
        assert_eq!(s1, s2);
        assert_eq!(s1.kept + s1.noisy + s1.mates, recs.len() as u64);
        assert!(s1.kept * 2 > recs.len() as u64, "{s1:?}");
        assert!(s1.nodes >= 2_000 * recs.len() as u64 / 2, "{s1:?}");
        // Every kept record is an input record with only its score changed, in input order.
        let mut input = recs.iter();
        let mut changed = 0;
        for r in &one {
            let orig = input
                .find(|o| o.pos == r.pos && o.ply == r.ply)
                .expect("kept records keep the input order");
            assert_eq!((orig.result, orig.ply), (r.result, r.ply));
            changed += (orig.score != r.score) as usize;
        }
        // Deeper searches than the 300-node labels change most scores.
        assert!(
            changed * 2 > one.len(),
            "{changed} of {} changed",
            one.len()
        );
    }
}
