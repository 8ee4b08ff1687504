//! MultiPV through the binary: at every depth the lines come as `multipv 1..k` in order of
//! score, and line 1 agrees with the MultiPV 1 search.

mod common;

use common::engine::{check_bestmove, game_after, Engine, SECOND};
use std::collections::BTreeMap;

/// The value of the word after `key` in an info line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let i = w.iter().position(|x| *x == key)?;
    w.get(i + 1).copied()
}

/// The score of an info line on one scale: centipawns, with mates beyond every centipawn
/// score (a shorter mate for us is better, a shorter mate against us worse).
fn score(line: &str) -> i64 {
    let w: Vec<&str> = line.split_whitespace().collect();
    let i = w.iter().position(|x| *x == "score").expect("a score");
    let n: i64 = w[i + 2].parse().unwrap();
    match w[i + 1] {
        "cp" => n,
        "mate" if n > 0 => 1_000_000 - n,
        "mate" => -1_000_000 - n,
        other => panic!("score {other} in {line}"),
    }
}

fn first_pv_move(line: &str) -> String {
    line.split(" pv ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// Runs `go depth <depth>` with `MultiPV k` from the position after `moves` on a fresh engine;
/// returns the info lines and the best move.
fn search(moves: &str, k: usize, depth: u32) -> (Vec<String>, String) {
    let mut e = Engine::start();
    e.send(&format!("setoption name MultiPV value {k}"));
    e.send(&format!("position startpos moves {moves}"));
    e.send(&format!("go depth {depth}"));
    let lines = e.until("bestmove", 60 * SECOND);
    let best = check_bestmove(&lines, &game_after(moves));
    e.quit();
    (lines, best)
}

/// The last exact line for each (depth, multipv index).
fn blocks(lines: &[String]) -> BTreeMap<u32, BTreeMap<usize, String>> {
    let mut out: BTreeMap<u32, BTreeMap<usize, String>> = BTreeMap::new();
    for l in lines.iter().filter(|l| l.starts_with("info depth ")) {
        if l.contains("lowerbound") || l.contains("upperbound") {
            continue;
        }
        let depth: u32 = field(l, "depth").unwrap().parse().unwrap();
        let i: usize = field(l, "multipv").map_or(1, |v| v.parse().unwrap());
        out.entry(depth).or_default().insert(i, l.clone());
    }
    out
}

/// FAILS on 7798dce: the lines of a depth are not sorted by score (the start position at
/// depth 4 prints 246, 115, 282; after 3e3d 5a5c 4e3e, depth 6 puts -417 before -37, and the
/// bestmove is the -417 line).
#[test]
fn lines_come_in_order_of_score_with_multipv_1_to_k() {
    let k = 3;
    let mut failures = Vec::new();
    for moves in [
        "",
        "3e3d 5a5c 4e3e",
        "5d5c 1b1c 3e4d",
        "2e4c 3a3b 4c3b",
        "1e1d 1a2b 1d3d",
    ] {
        let (lines, best) = search(moves, k, 6);
        let blocks = blocks(&lines);
        assert!(blocks.contains_key(&6), "{moves}: no depth 6 in {lines:?}");
        for (depth, block) in &blocks {
            let idx: Vec<usize> = block.keys().copied().collect();
            assert_eq!(idx, (1..=k).collect::<Vec<_>>(), "{moves} depth {depth}");
            let firsts: std::collections::BTreeSet<String> =
                block.values().map(|l| first_pv_move(l)).collect();
            assert_eq!(firsts.len(), k, "{moves} depth {depth}: {block:?}");
            let scores: Vec<i64> = block.values().map(|l| score(l)).collect();
            if scores.windows(2).any(|w| w[0] < w[1]) {
                failures.push(format!("{moves:?} depth {depth}: scores {scores:?}"));
            }
        }
        // The answer is line 1 of the last depth.
        let last = blocks.values().last().unwrap();
        assert_eq!(first_pv_move(&last[&1]), best, "{moves}");
    }
    assert!(failures.is_empty(), "lines out of order: {failures:#?}");
}

#[test]
fn line_one_is_the_single_pv_best_move_in_a_quiet_position() {
    // Positions where one move is clearly best at depth 6 with the default evaluation (by
    // 0.9 to 25 pawns over the second line).
    for moves in ["1e1c 3a2b", "5d5c 1b1c 3e4d", "1e1d 4a1d 4e3d 2a3b"] {
        let (_, single) = search(moves, 1, 6);
        let (lines, multi) = search(moves, 3, 6);
        let line1 = &blocks(&lines)[&6][&1];
        assert_eq!(first_pv_move(line1), single, "{moves}: {line1}");
        assert_eq!(multi, single, "{moves}");
    }
}
