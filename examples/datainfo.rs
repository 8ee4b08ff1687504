//! Checks training-data files and prints what they hold.
//!
//! Usage: `cargo run --release --example datainfo -- FILE... [--show N] [--scale]`
//! For each file: the record count, results, score spread, plies, men in hand, and the first
//! `N` positions as SFEN with score and result. `--scale` compares the scale of the embedded
//! net's evaluation with the handcrafted one on the file's positions (the search's margins
//! were tuned on the handcrafted scale). A damaged or foreign file is reported with the
//! reader's error and the exit status is 1.

use gogo::eval::evaluate;
use gogo::train::data;
use gogo::types::Color;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut show = 0usize;
    let mut scale = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--scale" {
            scale = true;
        } else if a == "--show" {
            show = args.next().and_then(|v| v.parse().ok()).unwrap_or(5);
        } else {
            files.push(a);
        }
    }
    if files.is_empty() {
        eprintln!("usage: datainfo FILE... [--show N] [--scale]");
        return ExitCode::FAILURE;
    }
    let mut ok = true;
    for f in files {
        let records = match data::read_file(f.as_ref()) {
            Ok(r) => r,
            Err(e) => {
                println!("{f}: {e}");
                ok = false;
                continue;
            }
        };
        let n = records.len().max(1) as f64;
        let mut results = [0u64; 3];
        let mut abs_score = 0f64;
        let mut big = 0u64;
        let mut plies = 0f64;
        let mut in_hand = 0f64;
        let mut gote = 0u64;
        for r in &records {
            results[(r.result + 1) as usize] += 1;
            abs_score += (r.score as f64).abs();
            big += (r.score.abs() >= 1000) as u64;
            plies += r.ply as f64;
            in_hand += Color::BOTH
                .iter()
                .map(|&c| r.pos.hand(c).0.iter().map(|&x| x as f64).sum::<f64>())
                .sum::<f64>();
            gote += (r.pos.side_to_move() == Color::White) as u64;
        }
        println!(
            "{f}: {} positions; side to move won {:.1}%, drew {:.1}%, lost {:.1}%; gote to move \
             {:.1}%; mean |score| {:.0} cp, |score| >= 1000 in {:.1}%; mean ply {:.1}; \
             mean men in hand {:.2}",
            records.len(),
            100.0 * results[2] as f64 / n,
            100.0 * results[1] as f64 / n,
            100.0 * results[0] as f64 / n,
            100.0 * gote as f64 / n,
            abs_score / n,
            100.0 * big as f64 / n,
            plies / n,
            in_hand / n
        );
        if scale {
            print_scale(&records);
        }
        for r in records.iter().take(show) {
            println!("  {}  score {} result {}", r.pos, r.score, r.result);
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The net's evaluation against the handcrafted one on the positions where the handcrafted
/// one is within +-1000 (where pruning margins act): the least-squares slope through the
/// origin, mean absolute values, and how often they differ by more than 100 cp.
fn print_scale(records: &[data::Record]) {
    let net = gogo::nnue::default_net();
    let (mut xy, mut xx, mut ax, mut ay, mut far, mut n) = (0f64, 0f64, 0f64, 0f64, 0u64, 0u64);
    for r in records {
        let h = evaluate(&r.pos) as f64;
        if h.abs() > 1000.0 {
            continue;
        }
        let e = net.evaluate_position(&r.pos) as f64;
        xy += h * e;
        xx += h * h;
        ax += h.abs();
        ay += e.abs();
        far += ((e - h).abs() > 100.0) as u64;
        n += 1;
    }
    let n = n.max(1) as f64;
    println!(
        "  scale on {n} positions with |handcrafted| <= 1000: net = {:.3} x handcrafted \
         (least squares); mean |net| {:.0} cp, mean |handcrafted| {:.0} cp; they differ by \
         more than 100 cp on {:.1}%",
        xy / xx.max(1.0),
        ay / n,
        ax / n,
        100.0 * far as f64 / n
    );
}
