//! Texel-style tuning of the evaluation weights from game records.
//!
//! Input: match records as `usi-match --record` writes them (tab-separated: game, sente, gote,
//! winner side, reason code, reason, plies, opening, moves). Every position of every game
//! (after the first plies, not in check) is resolved to a quiet position by a small capture
//! search and labelled with the game's result. The weights are then adjusted one at a time
//! (coordinate descent) to minimise the squared error between the result and
//! `1 / (1 + 10^(-K * eval / 400))`, with K fitted first. The tuned weights are printed as Rust.
//!
//! Usage: `cargo run --release --example tune -- <record>... [--passes N] [--skip P]`

use gogo::eval::{evaluate_with, Weights, DEFAULT_WEIGHTS};
use gogo::game::Game;
use gogo::movegen::{generate, MoveList, NOISY};
use gogo::position::Position;
use gogo::types::Color;

struct Sample {
    pos: Position,
    /// 1 sente won, 0 gote won, 0.5 draw.
    result: f64,
}

/// Captures-only search returning the quiet leaf of its principal variation.
fn quiet_leaf(
    pos: &Position,
    mut alpha: i32,
    beta: i32,
    w: &Weights,
    depth: u32,
) -> (i32, Position) {
    let stand = evaluate_with(pos, w);
    if depth == 0 || pos.in_check() {
        return (stand, *pos);
    }
    let mut best = (stand, *pos);
    if stand >= beta {
        return best;
    }
    alpha = alpha.max(stand);
    let mut moves = MoveList::new();
    generate(pos, NOISY, &mut moves);
    for &m in moves.iter() {
        if m.is_drop() || pos.piece_on(m.to()).is_none() {
            continue;
        }
        let child = pos.after(m);
        let (s, leaf) = quiet_leaf(&child, -beta, -alpha, w, depth - 1);
        let s = -s;
        if s > best.0 {
            best = (s, leaf);
            if s > alpha {
                alpha = s;
                if s >= beta {
                    break;
                }
            }
        }
    }
    best
}

fn sente_eval(pos: &Position, w: &Weights) -> f64 {
    let e = evaluate_with(pos, w) as f64;
    match pos.side_to_move() {
        Color::Black => e,
        Color::White => -e,
    }
}

fn error(samples: &[Sample], w: &Weights, k: f64) -> f64 {
    let mut sum = 0.0;
    for s in samples {
        let e = sente_eval(&s.pos, w);
        let p = 1.0 / (1.0 + 10f64.powf(-k * e / 400.0));
        sum += (s.result - p) * (s.result - p);
    }
    sum / samples.len() as f64
}

fn load(paths: &[String], skip: usize) -> Vec<Sample> {
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() < 9 {
                continue;
            }
            let result = match f[3] {
                "sente" => 1.0,
                "gote" => 0.0,
                _ => 0.5,
            };
            let opening: Vec<&str> = f[7].split_whitespace().collect();
            let Ok(mut game) = gogo::usi::Engine::parse_position(&opening) else {
                continue;
            };
            let moves: Vec<&str> = f[8].split_whitespace().collect();
            for (i, m) in moves.iter().enumerate() {
                let pos = *game.current();
                let ply = game.moves().len();
                if ply >= skip && !pos.in_check() && i + 2 < moves.len() {
                    let (_, leaf) = quiet_leaf(&pos, -30000, 30000, &DEFAULT_WEIGHTS, 6);
                    if !leaf.in_check() {
                        out.push(Sample { pos: leaf, result });
                    }
                }
                if game.play_usi(m).is_err() {
                    break;
                }
            }
            let _: &Game = &game;
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    let mut passes = 10;
    let mut skip = 6;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--passes" => {
                passes = args[i + 1].parse().unwrap();
                i += 1;
            }
            "--skip" => {
                skip = args[i + 1].parse().unwrap();
                i += 1;
            }
            f => files.push(f.to_string()),
        }
        i += 1;
    }
    let samples = load(&files, skip);
    eprintln!("{} samples", samples.len());
    let mut w = DEFAULT_WEIGHTS;
    // Fit K.
    let mut k = 1.0;
    let mut step = 0.5;
    let mut best = error(&samples, &w, k);
    while step > 0.001 {
        let mut improved = false;
        for cand in [k + step, k - step] {
            if cand <= 0.0 {
                continue;
            }
            let e = error(&samples, &w, cand);
            if e < best {
                best = e;
                k = cand;
                improved = true;
            }
        }
        if !improved {
            step /= 2.0;
        }
    }
    eprintln!("K = {k:.4}, error {best:.6}");
    let n = w.weights_mut().len();
    for pass in 0..passes {
        let step = if pass < passes / 2 { 8 } else { 3 };
        let mut changed = 0;
        for p in 0..n {
            for delta in [step, -step] {
                let old = *w.weights_mut()[p];
                *w.weights_mut()[p] = old + delta;
                let e = error(&samples, &w, k);
                if e < best {
                    best = e;
                    changed += 1;
                    break;
                }
                *w.weights_mut()[p] = old;
            }
        }
        eprintln!("pass {pass}: error {best:.6}, {changed} weights changed");
        if changed == 0 && step == 3 {
            break;
        }
    }
    println!("{w:#?}");
}
