//! How engines used their clocks in a match: reads the `--log` files of `usi-match` (the
//! USI traffic with timestamps) and prints, for each engine, the time from `go` to
//! `bestmove` (mean, median, 90th percentile, maximum) and, per game, the share of the time
//! it had before its last move (its main time plus the increments of the moves it made) that
//! it had spent, with the least clock it was left with.
//!
//! Usage: `cargo run --release --example clockuse -- MATCH.iolog [MORE.iolog ...]`
//!
//! A log line reads `<seconds> <engine>#<instance> <direction> <text>`, with `<` for what the
//! runner sent and `>` for what the engine answered. A game starts at `usinewgame`; the side
//! the engine plays is read from the `position` line before each `go` (the SFEN's side to
//! move and the number of moves after it). Each process (`<engine>#<instance>`: with
//! `--concurrency 2` an engine runs two, each in its own game) is followed on its own, and
//! the figures are pooled by engine name.

use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(Default)]
struct EngineLog {
    /// Milliseconds from each `go` to its `bestmove`.
    think: Vec<f64>,
    /// Per game, per move: (own remaining main time, own increment) as sent with `go`.
    games: Vec<Vec<(u64, u64)>>,
    /// Whether the engine is sente at its next `go`.
    sente: bool,
    /// Time of the `go` still waiting for its `bestmove`.
    pending: Option<f64>,
}

fn value_after(words: &[&str], key: &str) -> Option<u64> {
    let i = words.iter().position(|w| *w == key)?;
    words.get(i + 1)?.parse().ok()
}

fn read(path: &str, engines: &mut BTreeMap<String, EngineLog>) -> std::io::Result<()> {
    let text = std::fs::read(path)?;
    parse(&String::from_utf8_lossy(&text), engines);
    Ok(())
}

/// Reads one log into `processes`, keyed by `<engine>#<instance>`.
fn parse(text: &str, processes: &mut BTreeMap<String, EngineLog>) {
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 4 || words[0].starts_with('#') || !words[1].contains('#') {
            continue;
        }
        let Ok(t) = words[0].parse::<f64>() else {
            continue;
        };
        let e = processes.entry(words[1].to_string()).or_default();
        match (words[2], words[3]) {
            ("<", "usinewgame") => e.games.push(Vec::new()),
            ("<", "position") => {
                let moves = words
                    .iter()
                    .position(|w| *w == "moves")
                    .map_or(0, |i| words.len() - i - 1);
                let first_sente = words.get(4) != Some(&"sfen") || words.get(6) != Some(&"w");
                e.sente = first_sente == (moves % 2 == 0);
            }
            ("<", "go") => {
                let (time, inc) = if e.sente {
                    ("btime", "binc")
                } else {
                    ("wtime", "winc")
                };
                if let (Some(own), Some(game)) = (value_after(&words, time), e.games.last_mut()) {
                    game.push((own, value_after(&words, inc).unwrap_or(0)));
                }
                e.pending = Some(t);
            }
            (">", "bestmove") => {
                if let Some(t0) = e.pending.take() {
                    e.think.push((t - t0) * 1000.0);
                }
            }
            _ => {}
        }
    }
}

/// The processes' logs pooled by engine name (the part before `#`).
fn by_engine(processes: BTreeMap<String, EngineLog>) -> BTreeMap<String, EngineLog> {
    let mut engines: BTreeMap<String, EngineLog> = BTreeMap::new();
    for (key, p) in processes {
        let name = key.split_once('#').map_or(key.as_str(), |(n, _)| n);
        let e = engines.entry(name.to_string()).or_default();
        e.think.extend(p.think);
        e.games.extend(p.games);
    }
    engines
}

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() || paths.iter().any(|p| p == "-h" || p == "--help") {
        eprintln!("usage: clockuse MATCH.iolog [MORE.iolog ...]");
        return ExitCode::from(2);
    }
    let mut processes = BTreeMap::new();
    for p in &paths {
        if let Err(e) = read(p, &mut processes) {
            eprintln!("clockuse: {p}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let engines = by_engine(processes);
    for (name, e) in &engines {
        let mut t = e.think.clone();
        if t.is_empty() {
            continue;
        }
        t.sort_by(f64::total_cmp);
        let n = t.len();
        let mut shares = Vec::new();
        let mut least = u64::MAX;
        for g in e.games.iter().filter(|g| g.len() >= 2) {
            let (start, inc) = g[0];
            let had = start + inc * (g.len() as u64 - 1);
            let left = g[g.len() - 1].0;
            shares.push(had.saturating_sub(left) as f64 / had.max(1) as f64);
            least = least.min(g.iter().map(|m| m.0).min().unwrap_or(u64::MAX));
        }
        shares.sort_by(f64::total_cmp);
        print!(
            "{name}: {n} moves, {:.0} ms a move (median {:.0}, 90th percentile {:.0}, max {:.0})",
            t.iter().sum::<f64>() / n as f64,
            t[n / 2],
            t[n * 9 / 10],
            t[n - 1]
        );
        if shares.is_empty() {
            println!();
        } else {
            println!(
                "; {} games: spent {:.0}% of the time it had before its last move (median \
                 {:.0}%), least clock {least} ms",
                shares.len(),
                100.0 * shares.iter().sum::<f64>() / shares.len() as f64,
                100.0 * shares[shares.len() / 2]
            );
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two games at once, one per process of engine `a`: the processes' lines interleave, and
    /// each `bestmove` must be timed from its own process's `go`.
    #[test]
    fn concurrent_processes_are_followed_apart() {
        let log = "\
 0.000 a#1 < usinewgame
 0.000 a#2 < usinewgame
 0.010 a#1 < position startpos
 0.010 a#1 < go btime 1000 wtime 1000 binc 100 winc 100
 0.020 a#2 < position startpos moves 5e4d
 0.020 a#2 < go btime 900 wtime 1000 binc 100 winc 100
 0.110 a#1 > bestmove 2e2d
 0.320 a#2 > bestmove 1a2b
";
        let mut processes = BTreeMap::new();
        parse(log, &mut processes);
        let engines = by_engine(processes);
        assert_eq!(engines.len(), 1);
        let a = &engines["a"];
        let mut think = a.think.clone();
        think.sort_by(f64::total_cmp);
        assert_eq!(think.len(), 2);
        assert!(
            (think[0] - 100.0).abs() < 1e-6 && (think[1] - 300.0).abs() < 1e-6,
            "{think:?}"
        );
        // a#1 is sente (its clock is btime), a#2 gote after one move (wtime).
        let mut games = a.games.clone();
        games.sort();
        assert_eq!(games, vec![vec![(1000, 100)], vec![(1000, 100)]]);
    }
}
