//! Skill levels: the level -> limits mapping, the random pick, and the engine at low and full
//! strength (the library and the binary on pipes).

mod common;

use common::engine::{Engine, SECOND};
use gogo::bench::POSITIONS;
use gogo::game::Game;
use gogo::movegen;
use gogo::params::{SKILL_FULL, SKILL_MULTIPV};
use gogo::search::{
    skill_pick, strength_to_skill_level, SearchConfig, SearchResult, Searcher, Signals, SkillLimits,
};
use gogo::time::Limits;
use gogo::tt::TranspositionTable;
use std::sync::Arc;

fn game(text: &str) -> Game {
    Game::parse_position(text).expect("a good position")
}

fn searcher() -> Searcher {
    let tt = Arc::new(TranspositionTable::new(4));
    Searcher::new(tt, Arc::new(Signals::default()))
}

fn config(level: u8) -> SearchConfig {
    SearchConfig {
        verbose: false,
        skill_level: level,
        ..SearchConfig::default()
    }
}

fn search(s: &mut Searcher, g: &Game, limits: &Limits, level: u8) -> SearchResult {
    s.think(g.positions(), limits, &[], &config(level))
}

/// A handful of the bench positions: openings and middle games, both sides to move.
fn sample() -> Vec<Game> {
    [0, 3, 7, 11, 13, 18, 24, 30]
        .iter()
        .map(|&i| game(POSITIONS[i]))
        .collect()
}

#[test]
fn level_limits_are_monotone() {
    let all: Vec<SkillLimits> = (0..SKILL_FULL).map(SkillLimits::for_level).collect();
    for w in all.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert!(a.depth <= b.depth, "{a:?} {b:?}");
        assert!(a.nodes <= b.nodes, "{a:?} {b:?}");
        assert!(a.max_loss >= b.max_loss, "{a:?} {b:?}");
        assert!(a.temperature >= b.temperature, "{a:?} {b:?}");
    }
    assert!(all
        .iter()
        .all(|l| l.depth >= 1 && l.multipv == SKILL_MULTIPV));
    assert!(all[0].depth < all[SKILL_FULL as usize - 1].depth);
    assert!(all[0].nodes < all[SKILL_FULL as usize - 1].nodes);
    // Grades: 20 kyu is the weakest level, 5 dan the strongest limited one, and the scale
    // never goes down.
    assert_eq!(strength_to_skill_level(-20), 0);
    assert_eq!(strength_to_skill_level(5), SKILL_FULL - 1);
    assert_eq!(strength_to_skill_level(0), strength_to_skill_level(-1));
    let levels: Vec<u8> = (-20..=5).map(strength_to_skill_level).collect();
    assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{levels:?}");
    assert!(levels.iter().all(|&l| l < SKILL_FULL));
}

#[test]
fn pick_is_reproducible_bounded_and_favours_better_moves() {
    let scores = [120, 100, 40, -2000];
    for level in [0u8, 10, 19] {
        let mut counts = [0usize; 4];
        for seed in 0..20_000u64 {
            let i = skill_pick(&scores, level, seed);
            assert_eq!(i, skill_pick(&scores, level, seed));
            counts[i] += 1;
        }
        // Never the absurd move; better moves more often.
        assert_eq!(counts[3], 0, "level {level}: {counts:?}");
        assert!(counts[0] > counts[1], "level {level}: {counts:?}");
        assert!(counts[1] >= counts[2], "level {level}: {counts:?}");
        if level == 0 {
            assert!(counts[1] > 0 && counts[2] > 0, "{counts:?}");
        }
    }
    // Weaker levels stray more often.
    let strays = |level: u8| {
        (0..20_000u64)
            .filter(|&s| skill_pick(&scores, level, s) != 0)
            .count()
    };
    assert!(strays(0) > strays(10) && strays(10) > strays(19));
    // Mate scores: a mating move is never traded for a merely good one.
    let mate = gogo::search::MATE - 5;
    for seed in 0..1000 {
        assert_eq!(skill_pick(&[300, mate, 250], 0, seed), 1);
    }
}

#[test]
fn low_levels_return_legal_moves_reproducibly() {
    let limits = Limits::default();
    let mut differs = 0;
    for level in [0u8, 3, 8, 14] {
        let mut a = searcher();
        let mut b = searcher();
        for g in sample() {
            let ra = search(&mut a, &g, &limits, level);
            let rb = search(&mut b, &g, &limits, level);
            let best = ra.best.expect("a move");
            assert!(movegen::is_legal(g.current(), best), "level {level}");
            if let Some(p) = ra.ponder {
                assert!(movegen::is_legal(&g.current().after(best), p));
            }
            // The caps hold.
            let cap = SkillLimits::for_level(level);
            assert!(ra.depth >= 1 && ra.depth <= cap.depth, "{ra:?}");
            // Same game, same searcher history: the same move.
            assert_eq!(ra.best, rb.best, "level {level}");
            assert_eq!(ra.nodes, rb.nodes, "level {level}");
            let full = search(&mut searcher(), &g, &fixed_depth(), SKILL_FULL);
            if full.best != ra.best {
                differs += 1;
            }
        }
    }
    assert!(differs > 0, "the weak levels never played differently");
}

/// A fixed depth for the full-strength comparisons.
fn fixed_depth() -> Limits {
    Limits {
        depth: Some(7),
        ..Limits::default()
    }
}

/// Runs the binary on the lines of `input`, waiting for the `bestmove` after every `go`
/// before sending the next line, then sends `quit`; returns all output lines.
fn run_engine(input: &str) -> Vec<String> {
    let mut e = Engine::start();
    let mut lines = Vec::new();
    for l in input.lines() {
        e.send(l);
        if l.starts_with("go") {
            lines.extend(e.until("bestmove", 60 * SECOND));
        }
    }
    // What the lines after the last search printed, without the `readyok` that ends it.
    let mut tail = e.ready();
    tail.pop();
    lines.extend(tail);
    e.quit();
    lines
}

/// Output lines without what depends on timing: the `nps` and `time` fields, and the
/// lowerbound/upperbound lines (printed only after the first second of search).
fn timeless(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.contains(" lowerbound ") && !l.contains(" upperbound "))
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let mut out = Vec::new();
            let mut i = 0;
            while i < t.len() {
                if t[i] == "nps" || t[i] == "time" {
                    i += 2;
                } else {
                    out.push(t[i]);
                    i += 1;
                }
            }
            out.join(" ")
        })
        .collect()
}

#[test]
fn usi_options_full_strength_output_is_unchanged() {
    let go = "position startpos moves 1e1d 1a2b 1d3d\ngo depth 8\n";
    let plain = run_engine(go);
    let set = run_engine(&format!(
        "setoption name SkillLevel value 20\nsetoption name USI_Strength value -12\n\
         setoption name USI_LimitStrength value false\n{go}"
    ));
    assert!(plain.iter().any(|l| l.starts_with("bestmove")));
    assert_eq!(timeless(&plain), timeless(&set));
}

#[test]
fn usi_limited_strength_plays_one_legal_move() {
    let out = run_engine(
        "usi\nsetoption name USI_LimitStrength value true\nsetoption name USI_Strength value -15\n\
         position startpos moves 3e2d\ngo btime 1000 wtime 1000 byoyomi 200\n\
         setoption name USI_LimitStrength value false\nsetoption name SkillLevel value 2\n\
         position startpos moves 3e2d 3a4b\ngo movetime 300\nisready\n",
    );
    for opt in [
        "option name SkillLevel type spin default 20 min 0 max 20",
        "option name USI_LimitStrength type check default false",
        "option name USI_Strength type spin default 1 min -20 max 5",
    ] {
        assert!(out.iter().any(|l| l == opt), "{opt} missing: {out:?}");
    }
    let best: Vec<&String> = out.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 2, "{out:?}");
    for (b, moves) in best.iter().zip(["3e2d", "3e2d 3a4b"]) {
        let mut g = game(&format!("startpos moves {moves}"));
        for m in b.split_whitespace().skip(1).filter(|w| *w != "ponder") {
            g.play_usi(m)
                .unwrap_or_else(|e| panic!("'{b}' after {moves}: {e}"));
        }
    }
    // The weak levels search shallow: no info line deeper than the level-2 cap... or the
    // 15-kyu one (level 4).
    let cap = SkillLimits::for_level(strength_to_skill_level(-15))
        .depth
        .max(SkillLimits::for_level(2).depth);
    for l in out.iter().filter(|l| l.starts_with("info depth ")) {
        let d: i32 = l.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(d <= cap, "{l}");
    }
    assert!(!out.iter().any(|l| l.starts_with("info string")), "{out:?}");
}

#[test]
fn usi_skill_options_reject_bad_values() {
    let out = run_engine(
        "setoption name SkillLevel value 21\nsetoption name USI_Strength value -21\n\
         setoption name USI_Strength value 6\nsetoption name USI_Strength value x\n\
         setoption name USI_LimitStrength value maybe\nisready\n",
    );
    let errors = out
        .iter()
        .filter(|l| l.starts_with("info string setoption"))
        .count();
    assert_eq!(errors, 5, "{out:?}");
}
