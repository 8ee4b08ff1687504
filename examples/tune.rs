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

use gogo::eval::{evaluate_with, Weights, WEIGHTS};
use gogo::game::Game;
use gogo::movegen::{generate, MoveList, NOISY};
use gogo::position::Position;
use gogo::types::Color;

struct Sample {
    pos: Position,
    /// What the evaluation should predict, from sente's view: the game result (1 sente won,
    /// 0 gote won, 0.5 draw), or a blend of it with a stronger engine's opinion.
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

/// Samples of every game, training and validation (every tenth game) apart.
fn load(paths: &[String], skip: usize) -> (Vec<Sample>, Vec<Sample>) {
    let mut out = Vec::new();
    let mut validation = Vec::new();
    let mut games = 0usize;
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
            let Ok(mut game) = gogo::game::Game::parse_position(f[7]) else {
                continue;
            };
            games += 1;
            let target = if games.is_multiple_of(10) {
                &mut validation
            } else {
                &mut out
            };
            let moves: Vec<&str> = f[8].split_whitespace().collect();
            for (i, m) in moves.iter().enumerate() {
                let pos = *game.current();
                let ply = game.moves().len();
                if ply >= skip && !pos.in_check() && i + 2 < moves.len() {
                    let (_, leaf) = quiet_leaf(&pos, -30000, 30000, &WEIGHTS, 6);
                    if !leaf.in_check() {
                        target.push(Sample { pos: leaf, result });
                    }
                }
                if game.play_usi(m).is_err() {
                    break;
                }
            }
            let _: &Game = &game;
        }
    }
    (out, validation)
}

/// Reads `sfen<TAB>result<TAB>set<TAB>score` lines (score: a reference engine's score in
/// centipawns from sente's view, mate scores clamped) and blends the two targets:
/// `lambda * result + (1 - lambda) * sigmoid(k_ref * score)`, with `k_ref` fitted to the results.
fn load_labels(path: &str, lambda: f64) -> (Vec<Sample>, Vec<Sample>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut rows = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 4 {
            continue;
        }
        let (Ok(pos), Ok(result), Ok(score)) = (
            Position::from_sfen(f[0]),
            f[1].parse::<f64>(),
            f[3].parse::<f64>(),
        ) else {
            continue;
        };
        rows.push((pos, result, f[2] == "v", score.clamp(-3000.0, 3000.0)));
    }
    let fit = |k: f64| -> f64 {
        rows.iter()
            .map(|(_, r, _, s)| {
                let p = 1.0 / (1.0 + 10f64.powf(-k * s / 400.0));
                (r - p) * (r - p)
            })
            .sum::<f64>()
    };
    let mut k = 1.0;
    let mut step = 0.5;
    while step > 0.001 {
        if fit(k + step) < fit(k) {
            k += step;
        } else if k - step > 0.0 && fit(k - step) < fit(k) {
            k -= step;
        } else {
            step /= 2.0;
        }
    }
    eprintln!("reference engine K = {k:.4}");
    let mut train = Vec::new();
    let mut valid = Vec::new();
    for (pos, r, v, s) in rows {
        let p = 1.0 / (1.0 + 10f64.powf(-k * s / 400.0));
        let sample = Sample {
            pos,
            result: lambda * r + (1.0 - lambda) * p,
        };
        if v {
            valid.push(sample);
        } else {
            train.push(sample);
        }
    }
    (train, valid)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    let mut passes = 10;
    let mut skip = 6;
    let mut dump: Option<String> = None;
    let mut labels: Option<String> = None;
    let mut lambda = 0.5;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--dump" => {
                dump = Some(args[i + 1].clone());
                i += 1;
            }
            "--labels" => {
                labels = Some(args[i + 1].clone());
                i += 1;
            }
            "--lambda" => {
                lambda = args[i + 1].parse().unwrap();
                i += 1;
            }
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
    let (samples, validation) = match &labels {
        Some(path) => load_labels(path, lambda),
        None => load(&files, skip),
    };
    if let Some(path) = dump {
        let mut text = String::new();
        for (set, list) in [("t", &samples), ("v", &validation)] {
            for s in list.iter() {
                text.push_str(&format!("{}\t{}\t{set}\n", s.pos.to_sfen(), s.result));
            }
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{path}: {e}"));
        eprintln!("wrote {path}");
        return;
    }
    eprintln!(
        "{} training samples, {} validation samples",
        samples.len(),
        validation.len()
    );
    let mut w = WEIGHTS.clone();
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
    eprintln!(
        "K = {k:.4}, error {best:.6}, validation {:.6}",
        error(&validation, &w, k)
    );
    let mut best_valid = error(&validation, &w, k);
    let mut best_weights = w.clone();
    let mut worse = 0;
    let n = w.weights_mut().len();
    for pass in 0..passes {
        let step = if pass < passes / 2 { 6 } else { 2 };
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
        let valid = error(&validation, &w, k);
        eprintln!("pass {pass}: error {best:.6}, validation {valid:.6}, {changed} weights changed");
        if valid < best_valid {
            best_valid = valid;
            best_weights = w.clone();
            worse = 0;
        } else {
            worse += 1;
            if worse >= 2 {
                break;
            }
        }
        if changed == 0 && step == 2 {
            break;
        }
    }
    println!("{best_weights:#?}");
}
