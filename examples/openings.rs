//! Widens an opening suite: each line of the input followed by a few random legal moves,
//! kept when a short search finds the position balanced.
//!
//! Usage: `cargo run --release --example openings -- --in FILE [--per-line 5] [--plies 2]
//! [--max-score 150] [--nodes 10000] [--seed 1]`; the new suite goes to standard output.
//!
//! Why: at a fixed node budget Gogo plays the same game every time from the same opening and
//! colour, so a match of two nets at `usi-match --nodes` has only as many different games as
//! the suite has lines, twice (`../shared/data/openings.txt`: 200 lines, 400 games; the games
//! after that repeat and add nothing but false confidence). A wider suite keeps every game of
//! a gate new. Each output line is an input line with `--plies` more moves (drawn again when
//! the game is over, the search's score for the side to move is beyond `--max-score`, or the
//! position repeats one already written), in the format `usi-match --openings` reads.

use gogo::game::{Game, GameRules, SennichiteRule};
use gogo::time::Limits;
use gogo::train::datagen::{draw_start, game_searcher, parse_openings};
use gogo::train::rng::SplitMix64;
use std::collections::HashSet;
use std::process::ExitCode;

const USAGE: &str = "usage: openings --in FILE [--per-line K] [--plies P] [--max-score S] \
                     [--nodes N] [--seed X]";

struct Options {
    input: String,
    per_line: usize,
    plies: usize,
    max_score: i32,
    nodes: u64,
    seed: u64,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        input: String::new(),
        per_line: 5,
        plies: 2,
        max_score: 150,
        nodes: 10_000,
        seed: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.to_string());
        }
        let v = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let bad = || format!("{flag}: bad value '{v}'\n{USAGE}");
        match flag.as_str() {
            "--in" => o.input = v.clone(),
            "--per-line" => o.per_line = v.parse().map_err(|_| bad())?,
            "--plies" => o.plies = v.parse().map_err(|_| bad())?,
            "--max-score" => o.max_score = v.parse().map_err(|_| bad())?,
            "--nodes" => o.nodes = v.parse().map_err(|_| bad())?,
            "--seed" => o.seed = v.parse().map_err(|_| bad())?,
            _ => return Err(format!("unknown option {flag}\n{USAGE}")),
        }
    }
    if o.input.is_empty() {
        return Err(format!("--in is required\n{USAGE}"));
    }
    if o.plies == 0 || o.per_line == 0 {
        return Err(format!(
            "--plies and --per-line must be at least 1\n{USAGE}"
        ));
    }
    Ok(o)
}

/// `line` with the moves of `game` after its first `skip` appended.
fn extended(line: &str, game: &Game, skip: usize) -> String {
    let new: Vec<String> = game.moves()[skip..].iter().map(|m| m.to_string()).collect();
    let joiner = if line.split_whitespace().any(|w| w == "moves") {
        " "
    } else {
        " moves "
    };
    format!("{line}{joiner}{}", new.join(" "))
}

fn run(o: &Options) -> Result<(), String> {
    let text = std::fs::read_to_string(&o.input).map_err(|e| format!("{}: {e}", o.input))?;
    let lines = parse_openings(&text);
    if lines.is_empty() {
        return Err(format!("{}: no opening lines", o.input));
    }
    let rules = GameRules {
        sennichite: SennichiteRule::Draw,
        max_plies: 0,
    };
    let limits = Limits {
        nodes: Some(o.nodes),
        ..Limits::default()
    };
    let mut rng = SplitMix64::new(o.seed);
    let mut seen = HashSet::new();
    let (mut written, mut short) = (0usize, 0usize);
    for line in &lines {
        let skip = Game::parse_position(line)
            .map_err(|e| format!("opening '{line}': {e}"))?
            .moves()
            .len();
        let mut kept = 0;
        // A few more tries than wanted: some draws repeat an earlier position.
        for _ in 0..o.per_line * 4 {
            if kept == o.per_line {
                break;
            }
            let (mut searcher, config) = game_searcher(16, None);
            let start = draw_start(
                std::slice::from_ref(line),
                o.plies,
                o.max_score,
                rules,
                &mut rng,
                |game| {
                    searcher
                        .think(game.positions(), &limits, &[], &config)
                        .score
                },
            )?;
            let Some(game) = start else {
                continue;
            };
            if !seen.insert(game.current().key()) {
                continue;
            }
            println!("{}", extended(line, &game, skip));
            kept += 1;
        }
        written += kept;
        if kept < o.per_line {
            short += 1;
        }
    }
    eprintln!(
        "{written} lines from {} ({short} input lines gave fewer than {})",
        lines.len(),
        o.per_line
    );
    Ok(())
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("openings: {e}");
            ExitCode::FAILURE
        }
    }
}
