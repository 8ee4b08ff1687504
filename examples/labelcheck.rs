//! How close the labels of data generation's two ways of searching a kept position come to a
//! deeper search: the plain search at `--nodes`, and a probe of `--probe-nodes` followed by
//! the rest of the budget (`datagen --probe-nodes`). Each game of the data is searched in
//! game order by a fresh searcher per way (as data generation and rescoring search a game),
//! and by a third at `--ref-nodes`; the errors against the reference are printed as the mean
//! squared difference of the win probabilities (the trainer's `sigmoid(cp / SCALE)`) and
//! the mean absolute difference in centipawns (scores clipped to +-2000).
//!
//! Usage: `cargo run --release --example labelcheck -- --data FILE [--games N] [--nodes N]
//! [--probe-nodes N] [--ref-nodes N]` (defaults: 200 games, 5,000, 1,000 and 100,000 nodes).

use gogo::nnue::SCALE;
use gogo::search::MATE_BOUND;
use gogo::time::Limits;
use gogo::train::data::{games, read_records};
use gogo::train::datagen::game_searcher;
use gogo::train::trainer::sigmoid;
use std::path::PathBuf;
use std::process::ExitCode;

fn limits(nodes: u64) -> Limits {
    Limits {
        nodes: Some(nodes),
        ..Limits::default()
    }
}

/// The win probability of a score, on the trainer's scale (`SCALE` cp = 1.0 before the
/// sigmoid).
fn win_probability(cp: i32) -> f64 {
    sigmoid(cp as f32 / SCALE as f32) as f64
}

/// Sums of one way's errors against the reference.
#[derive(Default)]
struct Errors {
    squared: f64,
    absolute: f64,
}

impl Errors {
    /// Adds one label's errors; returns its squared error.
    fn add(&mut self, score: i32, reference: i32) -> f64 {
        let e = (win_probability(score) - win_probability(reference)).powi(2);
        self.squared += e;
        self.absolute += (score.clamp(-2000, 2000) - reference.clamp(-2000, 2000)).abs() as f64;
        e
    }
}

fn main() -> ExitCode {
    let mut data = None;
    let (mut max_games, mut nodes, mut probe, mut reference) = (200usize, 5000, 1000, 100_000);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let Some(v) = args.next() else {
            eprintln!("labelcheck: {flag} needs a value");
            return ExitCode::FAILURE;
        };
        let n = v.parse::<u64>();
        match (flag.as_str(), n) {
            ("--data", _) => data = Some(PathBuf::from(v)),
            ("--games", Ok(n)) => max_games = n as usize,
            ("--nodes", Ok(n)) => nodes = n,
            ("--probe-nodes", Ok(n)) => probe = n,
            ("--ref-nodes", Ok(n)) => reference = n,
            _ => {
                eprintln!("labelcheck: bad argument {flag} {v}");
                return ExitCode::FAILURE;
            }
        }
    }
    if probe == 0 || probe >= nodes {
        eprintln!("labelcheck: --probe-nodes must be above 0 and below --nodes ({nodes})");
        return ExitCode::FAILURE;
    }
    let Some(data) = data else {
        eprintln!("usage: labelcheck --data FILE [--games N] [--nodes N] [--probe-nodes N] [--ref-nodes N]");
        return ExitCode::FAILURE;
    };
    let records = match read_records(&data, None) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("labelcheck: {}: {e}", data.display());
            return ExitCode::FAILURE;
        }
    };
    let all = games(&records);
    let step = (all.len() / max_games.max(1)).max(1);
    let (mut plain, mut probed, mut count) = (Errors::default(), Errors::default(), 0u64);
    // Per position, the probed label's squared error less the plain one's (for an error bar).
    let mut diffs = Vec::new();
    for range in all.iter().step_by(step).take(max_games) {
        let (mut a, config) = game_searcher(8, None);
        let (mut b, _) = game_searcher(8, None);
        let (mut r, _) = game_searcher(8, None);
        for rec in &records[range.clone()] {
            let history = [rec.pos];
            let want = r.think(&history, &limits(reference), &[], &config).score;
            if want.abs() >= MATE_BOUND {
                continue;
            }
            let s_plain = a.think(&history, &limits(nodes), &[], &config).score;
            b.think(&history, &limits(probe), &[], &config);
            let s_probed = b
                .think(&history, &limits(nodes - probe), &[], &config)
                .score;
            if s_plain.abs() >= MATE_BOUND || s_probed.abs() >= MATE_BOUND {
                continue;
            }
            let e_plain = plain.add(s_plain, want);
            diffs.push(probed.add(s_probed, want) - e_plain);
            count += 1;
        }
    }
    let n = count.max(1) as f64;
    println!(
        "positions {count} (games {}), reference {reference} nodes",
        all.len().min(max_games)
    );
    for (name, e) in [
        (format!("plain {nodes}"), &plain),
        (format!("probe {probe} + {}", nodes - probe), &probed),
    ] {
        println!(
            "{name:>20}: mean squared error {:.6}, mean |cp| error {:.1}",
            e.squared / n,
            e.absolute / n
        );
    }
    let mean = diffs.iter().sum::<f64>() / n;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    println!(
        "probed less plain: {mean:+.6} +- {:.6} (95%)",
        1.96 * (var / n).sqrt()
    );
    ExitCode::SUCCESS
}
