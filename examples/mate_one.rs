//! Solves the SFENs in `MATE_SFEN` (separated by `|`) with the mate solver and prints each
//! result with its node count and time. A tool, not a check.
//!
//! ```text
//! MATE_SFEN='2+B2/4g/2k2/G3B/1KS2 b 2RSPp 1' cargo run --release --example mate_one
//! ```
//!
//! Variables: `MATE_MB` (table size, default 64), `MATE_NODES` (node budget).

use gogo::mate::{MateLimits, MateResult, MateSolver};
use gogo::position::Position;
use gogo::types::Move;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn line_text(line: &[Move]) -> String {
    line.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let Ok(list) = std::env::var("MATE_SFEN") else {
        eprintln!("usage: MATE_SFEN='<sfen>|<sfen>...' cargo run --release --example mate_one");
        std::process::exit(2);
    };
    let mut solver = MateSolver::new(
        std::env::var("MATE_MB")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(64),
    );
    let stop = AtomicBool::new(false);
    for sfen in list.split('|') {
        let p = match Position::from_sfen(sfen.trim()) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{sfen}: {e}");
                continue;
            }
        };
        let t = Instant::now();
        let limits = MateLimits {
            deadline: None,
            max_nodes: std::env::var("MATE_NODES")
                .ok()
                .and_then(|s| s.parse().ok()),
        };
        let r = solver.solve(&[p], &limits, &stop);
        let ms = t.elapsed().as_millis();
        match &r {
            MateResult::Mate(line) => println!(
                "{p}\tmate {} nodes {} ms {ms}: {}",
                line.len(),
                solver.nodes(),
                line_text(line)
            ),
            other => println!("{p}\t{other:?} nodes {} ms {ms}", solver.nodes()),
        }
    }
}
