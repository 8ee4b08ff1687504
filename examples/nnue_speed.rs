//! Speed of NNUE inference against the handcrafted evaluation, per kernel.
//!
//! Usage: `cargo run --release --example nnue_speed -- [NET.nnue]` (a random net without one).
//! Plays random games from the start position and times, over the same positions: the
//! handcrafted `evaluate`, a full NNUE refresh + output, and an incremental update + output.

use gogo::eval::evaluate;
use gogo::movegen::legal_moves;
use gogo::nnue::net::{Kernel, Network};
use gogo::nnue::HIDDEN;
use gogo::position::Position;
use gogo::train::float::FloatNet;
use gogo::train::rng::SplitMix64;
use gogo::types::Move;
use std::hint::black_box;
use std::time::Instant;

fn main() -> Result<(), String> {
    let net = match std::env::args().nth(1) {
        Some(path) => Network::load(path.as_ref()).map_err(|e| e.to_string())?,
        None => FloatNet::random(HIDDEN, 1)
            .quantise()
            .map_err(|e| e.to_string())?,
    };
    // (position before, move, position after) along random games.
    let mut rng = SplitMix64::new(7);
    let mut steps: Vec<(Position, Move, Position)> = Vec::new();
    let mut pos = Position::startpos();
    while steps.len() < 200_000 {
        let moves = legal_moves(&pos);
        if moves.is_empty() || pos.move_number() > 120 {
            pos = Position::startpos();
            continue;
        }
        let m = moves.as_slice()[rng.below(moves.len())];
        let next = pos.after(m);
        steps.push((pos, m, next));
        pos = next;
    }
    let n = steps.len() as f64;
    let t = Instant::now();
    let mut sum = 0i64;
    for (_, _, after) in &steps {
        sum += evaluate(black_box(after)) as i64;
    }
    let hce = t.elapsed().as_secs_f64();
    println!(
        "handcrafted evaluate: {:.0} ns/position ({sum})",
        hce / n * 1e9
    );
    for kernel in Kernel::available() {
        let t = Instant::now();
        let mut sum = 0i64;
        for (_, _, after) in &steps {
            let acc = net.refresh_all(black_box(after), kernel);
            sum += net.evaluate(&acc, after, kernel) as i64;
        }
        let refresh = t.elapsed().as_secs_f64();
        let mut acc = net.refresh_all(&steps[0].0, kernel);
        let t = Instant::now();
        let mut sum2 = 0i64;
        for (i, (before, m, after)) in steps.iter().enumerate() {
            if i > 0 && steps[i - 1].2 != *before {
                acc = net.refresh_all(before, kernel);
            }
            acc = net.update(before, *m, after, &acc, kernel);
            sum2 += net.evaluate(&acc, after, kernel) as i64;
        }
        let inc = t.elapsed().as_secs_f64();
        assert_eq!(sum, sum2);
        println!(
            "{kernel:?}: refresh + output {:.0} ns/position, incremental update + output {:.0} \
             ns/position ({sum})",
            refresh / n * 1e9,
            inc / n * 1e9
        );
    }
    Ok(())
}
