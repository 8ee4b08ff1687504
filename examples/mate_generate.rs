//! Candidate mate problems for `tests/data/mate*.tsv`: random tsume-like positions solved by
//! the mate solver, printed as `MATE`, `NOMATE`, `TIMEOUT` lines (`UCHI` marks positions where
//! a pawn drop would mate), with the lengths verified by the brute force of
//! `tests/common/mate_tools.rs` where it stays within its budget. A generator, not a check.
//!
//! ```text
//! MATE_SEED=1 MATE_COUNT=2000 cargo run --release --example mate_generate
//! ```
//!
//! Variables: `MATE_SEED`, `MATE_COUNT`, `MATE_MIN` (shortest mate length printed),
//! `MATE_UCHI=1` (only positions with a pawn-drop mate and no mate in one), `MATE_NODES`
//! (solver budget), `MATE_BRUTE` (brute-force budget).

#[allow(dead_code)]
#[path = "../tests/common/data.rs"]
mod data;
#[allow(dead_code)]
#[path = "../tests/common/mate_tools.rs"]
mod mate_tools;
#[allow(dead_code)]
#[path = "../tests/common/rng.rs"]
mod rng;

use gogo::mate::{mate_in_one, MateLimits, MateResult, MateSolver};
use mate_tools::{has_pawn_drop_mate, line_text, random_position, Brute};
use rng::Rng;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn main() {
    let env = |k: &str, d: u64| -> u64 {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let mut rng = Rng::new(env("MATE_SEED", 1));
    let count = env("MATE_COUNT", 2000);
    let min_len = env("MATE_MIN", 1) as usize;
    let mut solver = MateSolver::new(64);
    let stop = AtomicBool::new(false);
    let mut hist: HashMap<String, usize> = HashMap::new();
    for _ in 0..count {
        let Some(p) = random_position(&mut rng) else {
            continue;
        };
        if env("MATE_UCHI", 0) == 1 && (!has_pawn_drop_mate(&p) || mate_in_one(&p).is_some()) {
            continue;
        }
        let limits = MateLimits {
            deadline: None,
            max_nodes: Some(env("MATE_NODES", 1_000_000)),
        };
        let t = Instant::now();
        let r = solver.solve(&[p], &limits, &stop);
        let ms = t.elapsed().as_millis();
        let uchi = if has_pawn_drop_mate(&p) { "UCHI " } else { "" };
        let label = match &r {
            MateResult::Mate(line) => format!("{}", line.len()),
            MateResult::NoMate => "nomate".into(),
            MateResult::Timeout => "timeout".into(),
        };
        *hist.entry(label).or_default() += 1;
        match r {
            MateResult::Mate(line) if line.len() >= min_len => {
                let mut b = Brute::new(true);
                b.budget = env("MATE_BRUTE", 20_000_000);
                let bl = if line.len() <= 21 {
                    b.shortest(&p, line.len() as u32)
                } else {
                    None
                };
                println!(
                    "{uchi}MATE\t{}\t{}\t# brute {:?} bnodes {} nodes {} ms {} line {}",
                    p.to_sfen(),
                    line.len(),
                    bl,
                    b.nodes,
                    solver.nodes(),
                    ms,
                    line_text(&line)
                );
            }
            MateResult::NoMate => {
                let mut b = Brute::new(true);
                b.budget = 5_000_000;
                let bl = b.shortest(&p, 9);
                println!(
                    "{uchi}NOMATE\t{}\t# brute9 {:?} exhausted {} nodes {} ms {}",
                    p.to_sfen(),
                    bl,
                    b.exhausted,
                    solver.nodes(),
                    ms
                );
            }
            MateResult::Timeout => println!("{uchi}TIMEOUT\t{}", p.to_sfen()),
            _ => {}
        }
    }
    let mut h: Vec<_> = hist.into_iter().collect();
    h.sort();
    println!("{h:?}");
}
