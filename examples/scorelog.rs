//! What each engine thought of the games it lost: reads the `--log` files of `usi-match` and
//! follows, per game, the last score each engine reported before each of its moves (its own
//! point of view; bounds skipped, a mate counted as `MATE_CP`). For each engine it prints its
//! wins and losses and sorts its lost games by that curve: lost from its first move (the
//! score already below `-LOW` after the opening line), level at first and lost later, or
//! lost after it had reported `+LOW` or more, or `+HIGH` or more (these are listed by game
//! number: the ones to replay when looking for a fault, as the repetition fault of 6229663
//! was found).
//!
//! Usage: `cargo run --release --example scorelog -- [--low 300] [--high 1000] MATCH.iolog`
//!
//! The runner's notes give each game (`gameN # start: sente=A gote=B opening=...` and
//! `gameN # end: sente wins (...)`); an engine process (`<engine>#<instance>`) starts a game
//! at `usinewgame`, and its game is the latest one started before that whose side it plays
//! and whose opening line its first `position` extends.

use std::collections::BTreeMap;
use std::process::ExitCode;

const MATE_CP: i32 = 30_000;

/// A game as the runner announced it.
struct Game {
    sente: String,
    gote: String,
    opening: Vec<String>,
    start: f64,
    /// "sente" or "gote" for a win, anything else for a draw; `None` until it ends.
    winner: Option<String>,
}

/// One process's part in one game.
#[derive(Default)]
struct Part {
    start: f64,
    /// The moves of its first `position` in this game.
    first_moves: Option<Vec<String>>,
    sente: bool,
    /// The last score before each move (none if it reported only bounds), one per `bestmove`.
    scores: Vec<Option<i32>>,
    last: Option<i32>,
}

/// The moves after `moves` in a `position` or `opening=` line.
fn moves_of(words: &[&str]) -> Vec<String> {
    words
        .iter()
        .position(|w| *w == "moves")
        .map_or(Vec::new(), |i| {
            words[i + 1..].iter().map(|s| s.to_string()).collect()
        })
}

/// The score of an `info` line, unless it is a bound.
fn score_of(words: &[&str]) -> Option<i32> {
    if words
        .iter()
        .any(|w| *w == "lowerbound" || *w == "upperbound")
    {
        return None;
    }
    let i = words.iter().position(|w| *w == "score")?;
    let n: i32 = words.get(i + 2)?.parse().ok()?;
    match *words.get(i + 1)? {
        "cp" => Some(n),
        "mate" if n >= 0 => Some(MATE_CP),
        "mate" => Some(-MATE_CP),
        _ => None,
    }
}

#[derive(Default)]
struct Log {
    games: BTreeMap<u32, Game>,
    /// Per process, its parts in order.
    parts: BTreeMap<String, Vec<Part>>,
}

fn parse(text: &str, log: &mut Log) {
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 4 {
            continue;
        }
        let Ok(t) = words[0].parse::<f64>() else {
            continue;
        };
        if let Some(id) = words[1]
            .strip_prefix("game")
            .and_then(|n| n.parse::<u32>().ok())
        {
            if words[2] != "#" {
                continue;
            }
            match words[3] {
                "start:" => {
                    let field = |key: &str| {
                        words
                            .iter()
                            .find_map(|w| w.strip_prefix(key))
                            .unwrap_or("")
                            .to_string()
                    };
                    log.games.insert(
                        id,
                        Game {
                            sente: field("sente="),
                            gote: field("gote="),
                            opening: moves_of(&words),
                            start: t,
                            winner: None,
                        },
                    );
                }
                "end:" => {
                    if let Some(g) = log.games.get_mut(&id) {
                        let wins = words.get(5) == Some(&"wins");
                        g.winner = Some(if wins { words[4] } else { "none" }.to_string());
                    }
                }
                _ => {}
            }
            continue;
        }
        if !words[1].contains('#') {
            continue;
        }
        let parts = log.parts.entry(words[1].to_string()).or_default();
        match (words[2], words[3]) {
            ("<", "usinewgame") => parts.push(Part {
                start: t,
                ..Part::default()
            }),
            ("<", "position") => {
                let Some(p) = parts.last_mut() else { continue };
                let moves = moves_of(&words);
                let first_sente = words.get(4) != Some(&"sfen") || words.get(6) != Some(&"w");
                p.sente = first_sente == moves.len().is_multiple_of(2);
                p.last = None;
                if p.first_moves.is_none() {
                    p.first_moves = Some(moves);
                }
            }
            (">", "info") => {
                if let (Some(p), Some(s)) = (parts.last_mut(), score_of(&words)) {
                    p.last = Some(s);
                }
            }
            (">", "bestmove") => {
                if let Some(p) = parts.last_mut() {
                    p.scores.push(p.last.take());
                }
            }
            _ => {}
        }
    }
}

/// How a lost game went, by the loser's own scores.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Loss {
    FromTheStart,
    LevelThenLost,
    HadLow,
    HadHigh,
}

fn classify(scores: &[i32], low: i32, high: i32) -> Option<Loss> {
    let first = *scores.first()?;
    let peak = *scores.iter().max()?;
    Some(if peak >= high {
        Loss::HadHigh
    } else if peak >= low {
        Loss::HadLow
    } else if first < -low {
        Loss::FromTheStart
    } else {
        Loss::LevelThenLost
    })
}

#[derive(Default)]
struct Summary {
    wins: u32,
    losses: u32,
    other: u32,
    lost: BTreeMap<Loss, Vec<u32>>,
}

/// Each process's parts matched to their games, pooled by engine name.
fn summarise(log: &Log, low: i32, high: i32) -> BTreeMap<String, Summary> {
    let mut out: BTreeMap<String, Summary> = BTreeMap::new();
    for (process, parts) in &log.parts {
        let engine = process.split_once('#').map_or(process.as_str(), |(n, _)| n);
        for p in parts {
            let Some(first) = &p.first_moves else {
                continue;
            };
            let side = if p.sente { "sente" } else { "gote" };
            let game = log
                .games
                .iter()
                .filter(|(_, g)| {
                    let plays = if p.sente { &g.sente } else { &g.gote };
                    plays == engine
                        && g.start <= p.start + 1e-6
                        && first.len() >= g.opening.len()
                        && first[..g.opening.len()] == g.opening[..]
                })
                .max_by(|a, b| a.1.start.total_cmp(&b.1.start));
            let Some((&id, g)) = game else { continue };
            let Some(winner) = &g.winner else { continue };
            let s = out.entry(engine.to_string()).or_default();
            if winner == side {
                s.wins += 1;
            } else if winner == "sente" || winner == "gote" {
                s.losses += 1;
                let seen: Vec<i32> = p.scores.iter().flatten().copied().collect();
                if let Some(kind) = classify(&seen, low, high) {
                    s.lost.entry(kind).or_default().push(id);
                }
            } else {
                s.other += 1;
            }
        }
    }
    for s in out.values_mut() {
        for ids in s.lost.values_mut() {
            ids.sort_unstable();
        }
    }
    out
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut low, mut high, mut paths) = (300, 1000, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => {
                println!("usage: scorelog [--low CP] [--high CP] MATCH.iolog [MORE.iolog ...]");
                return ExitCode::SUCCESS;
            }
            "--low" | "--high" => {
                let Some(v) = args.next().and_then(|v| v.parse::<i32>().ok()) else {
                    eprintln!("scorelog: {a} needs a number");
                    return ExitCode::from(2);
                };
                if a == "--low" {
                    low = v;
                } else {
                    high = v;
                }
            }
            _ => paths.push(a),
        }
    }
    if paths.is_empty() {
        eprintln!("usage: scorelog [--low CP] [--high CP] MATCH.iolog [MORE.iolog ...]");
        return ExitCode::from(2);
    }
    for path in &paths {
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("scorelog: {path}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let mut log = Log::default();
        parse(&String::from_utf8_lossy(&text), &mut log);
        println!("{path}:");
        for (engine, s) in summarise(&log, low, high) {
            println!(
                "  {engine}: won {}, lost {}, other {}",
                s.wins, s.losses, s.other
            );
            for (kind, ids) in &s.lost {
                let what = match kind {
                    Loss::FromTheStart => format!("below -{low} from its first move"),
                    Loss::LevelThenLost => "level at first, lost later".to_string(),
                    Loss::HadLow => format!("had reached +{low} to +{high}"),
                    Loss::HadHigh => format!("had reached +{high} or a mate"),
                };
                let list = if matches!(kind, Loss::HadLow | Loss::HadHigh) {
                    let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
                    format!(": games {}", ids.join(" "))
                } else {
                    String::new()
                };
                println!("    lost, {what}: {}{list}", ids.len());
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two games of one opening at once, the colours swapped: each process must be matched
    /// to its own game, and a loser's curve classified by its own scores.
    #[test]
    fn concurrent_games_are_matched_and_classified() {
        let log_text = "\
 0.00 game1 # start: sente=a gote=b opening=startpos moves 2e2d
 0.00 game2 # start: sente=b gote=a opening=startpos moves 2e2d
 0.01 a#1 < usinewgame
 0.01 a#2 < usinewgame
 0.02 a#1 < position startpos moves 2e2d 4a4b
 0.03 a#1 > info depth 5 score cp 120 pv 1e1d
 0.04 a#1 > info depth 6 score cp 350 lowerbound pv 1e1d
 0.05 a#1 > bestmove 1e1d
 0.06 a#2 < position startpos moves 2e2d
 0.07 a#2 > info depth 5 score cp -50 pv 4a4b
 0.08 a#2 > bestmove 4a4b
 0.10 a#1 < position startpos moves 2e2d 4a4b 1e1d 1a1b
 0.11 a#1 > info depth 7 score mate 3 pv 2d2b+
 0.12 a#1 > bestmove 2d2b+
 0.20 a#2 < position startpos moves 2e2d 4a4b 5e4d
 0.21 a#2 > info depth 7 score mate -2 pv 4b3b
 0.22 a#2 > bestmove 4b3b
 1.00 game1 # end: gote wins (checkmate)
 1.10 game2 # end: sente wins (checkmate)
";
        let mut log = Log::default();
        parse(log_text, &mut log);
        let out = summarise(&log, 300, 1000);
        let a = &out["a"];
        assert_eq!((a.wins, a.losses, a.other), (0, 2, 0));
        // Game 1: a (sente) reported 120 (the bound of 350 skipped), then a mate: lost after
        // a score of +1000 or more. Game 2: a (gote) never above -50: level, then lost.
        assert_eq!(a.lost.get(&Loss::HadHigh), Some(&vec![1]));
        assert_eq!(a.lost.get(&Loss::LevelThenLost), Some(&vec![2]));
        assert!(!out.contains_key("b"), "b's processes are not in the log");
    }

    #[test]
    fn classification_by_the_curve() {
        assert_eq!(classify(&[-400, -500], 300, 1000), Some(Loss::FromTheStart));
        assert_eq!(
            classify(&[-100, -900], 300, 1000),
            Some(Loss::LevelThenLost)
        );
        assert_eq!(classify(&[-400, 400, -900], 300, 1000), Some(Loss::HadLow));
        assert_eq!(classify(&[0, 1000, -900], 300, 1000), Some(Loss::HadHigh));
        assert_eq!(classify(&[], 300, 1000), None);
    }
}
