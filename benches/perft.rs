//! `cargo bench`: perft speed from the start position, single thread, release build.
//!
//! A plain harness (no external crate): each depth is run a few times and the best time is
//! reported with the leaves per second, so the figure is comparable across runs on a shared
//! machine. `gogo perft 7` on the command line measures the same thing once.

use gogo::perft::perft;
use gogo::position::Position;
use std::time::Instant;

fn main() {
    // `cargo bench -- <depth>` picks the deepest depth (default 7).
    let max_depth: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(7);
    let start = Position::startpos();
    for depth in 5..=max_depth {
        let runs = if depth >= 7 { 3 } else { 5 };
        let mut best = f64::MAX;
        let mut leaves = 0;
        for _ in 0..runs {
            let t = Instant::now();
            leaves = perft(&start, depth);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "perft {depth}: {leaves} leaves, best of {runs}: {best:.3} s, {:.1} M leaves/s",
            leaves as f64 / best / 1e6
        );
    }
}
