//! Mate solver timing: solves every problem of `tests/data/mate.tsv`, `mate-long.tsv` and
//! `mate-hard.tsv` with one solver and prints nodes and time per problem and in total. A
//! measurement, not a check (the checks are in `tests/mate.rs`). Run it in release:
//!
//! ```text
//! cargo run --release --example mate_report
//! ```

#[allow(dead_code)]
#[path = "../tests/common/data.rs"]
mod data;
#[allow(dead_code)]
#[path = "../tests/common/mate_tools.rs"]
mod mate_tools;
#[allow(dead_code)]
#[path = "../tests/common/rng.rs"]
mod rng;

use gogo::mate::{MateResult, MateSolver};
use mate_tools::{problems, Problem};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Solves `set` with one solver and prints nodes and time per problem and in total.
fn time_set(name: &str, set: &[Problem], solver: &mut MateSolver) {
    let stop = AtomicBool::new(false);
    let (mut nodes, mut ms) = (0u64, 0f64);
    let (mut max_nodes, mut max_ms) = (0u64, 0f64);
    for prob in set {
        let t = Instant::now();
        let r = solver.solve(&[prob.pos], &Default::default(), &stop);
        let el = t.elapsed().as_secs_f64() * 1000.0;
        let got = match &r {
            MateResult::Mate(l) => l.len().to_string(),
            other => format!("{other:?}"),
        };
        println!(
            "{:<45} {:>7} {:>9} nodes {:>9.1} ms",
            prob.pos.to_sfen(),
            got,
            solver.nodes(),
            el
        );
        nodes += solver.nodes();
        ms += el;
        max_nodes = max_nodes.max(solver.nodes());
        max_ms = max_ms.max(el);
    }
    println!(
        "{name}: {} problems, {nodes} nodes, {ms:.0} ms in total; at most {max_nodes} nodes, \
         {max_ms:.0} ms\n",
        set.len()
    );
}

fn main() {
    let t = Instant::now();
    let mut solver = MateSolver::new(64);
    println!("new(64): {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    time_set("tests/data/mate.tsv", &problems("mate.tsv"), &mut solver);
    time_set(
        "tests/data/mate-long.tsv",
        &problems("mate-long.tsv"),
        &mut solver,
    );
    time_set(
        "tests/data/mate-hard.tsv",
        &problems("mate-hard.tsv"),
        &mut solver,
    );
}
