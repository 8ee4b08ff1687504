//! Self-play training data for the NNUE (see `docs/nnue.md`).
//!
//! Usage: `cargo run --release --example datagen -- --out FILE [--games N] [--threads N]
//! [--nodes N] [--seed S] [--random-plies N] [--max-start-score CP] [--max-plies N] [--seconds S] [--hash MB]
//! [--openings FILE]`
//!
//! Without `--openings` the 200 lines of `data/openings.txt` (built in) are used. Progress and
//! the final figures go to standard error.

use gogo::train::data::DataWriter;
use gogo::train::datagen::{self, Settings, Summary};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: datagen --out FILE [--games N] [--threads N] [--nodes N] [--seed S] \
                     [--random-plies N] [--max-start-score CP] [--max-plies N] [--seconds S] [--hash MB] [--openings FILE]";

fn parse_args() -> Result<(PathBuf, Settings), String> {
    let mut s = Settings {
        games: 1_000_000,
        openings: datagen::parse_openings(include_str!("../data/openings.txt")),
        ..Settings::default()
    };
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let num = |v: String| -> Result<u64, String> {
            v.parse()
                .map_err(|_| format!("{flag}: '{v}' is not a number"))
        };
        match flag.as_str() {
            "--out" => out = Some(PathBuf::from(value()?)),
            "--games" => s.games = num(value()?)?,
            "--threads" => s.threads = num(value()?)?.max(1) as usize,
            "--nodes" => s.nodes = num(value()?)?.max(1),
            "--seed" => s.seed = num(value()?)?,
            "--random-plies" => s.random_plies = num(value()?)? as usize,
            "--max-start-score" => s.max_start_score = num(value()?)? as i32,
            "--max-plies" => s.max_plies = num(value()?)? as u32,
            "--hash" => s.hash_mb = num(value()?)?.max(1) as usize,
            "--seconds" => s.time_limit = Some(Duration::from_secs(num(value()?)?)),
            "--openings" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                s.openings = datagen::parse_openings(&text);
                if s.openings.is_empty() {
                    return Err(format!("{path}: no opening lines"));
                }
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    Ok((out, s))
}

fn report(s: &Summary) -> String {
    let secs = s.seconds.max(1e-9);
    format!(
        "{} games, {} positions ({:.1} pos/s, {:.2} games/s, {:.0} knps), {} plies, \
         sente/gote/draw {}/{}/{}, dropped {} duplicate and {} unbalanced starts, {:.0} s",
        s.games,
        s.positions,
        s.positions as f64 / secs,
        s.games as f64 / secs,
        s.nodes as f64 / secs / 1000.0,
        s.plies,
        s.outcomes[0],
        s.outcomes[1],
        s.outcomes[2],
        s.dropped_duplicates,
        s.dropped_starts,
        s.seconds
    )
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .target(env_logger::Target::Stderr)
        .init();
    let (out, settings) = match parse_args() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    log::info!(
        "datagen: seed {}, {} games max, {} threads, {} nodes per move, {} random plies, \
         start |score| <= {}, {} openings -> {}",
        settings.seed,
        settings.games,
        settings.threads,
        settings.nodes,
        settings.random_plies,
        settings.max_start_score,
        settings.openings.len(),
        out.display()
    );
    let mut writer = match DataWriter::create(&out) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("{}: {e}", out.display());
            return ExitCode::FAILURE;
        }
    };
    let mut last = Instant::now();
    let result = datagen::run(
        &settings,
        |g| {
            for r in &g.records {
                writer.write(r).map_err(|e| e.to_string())?;
            }
            // The header counts every finished game: a run cut short still reads.
            writer.sync().map_err(|e| e.to_string())
        },
        |s| {
            if last.elapsed() >= Duration::from_secs(30) {
                last = Instant::now();
                log::info!("{}", report(s));
            }
        },
    );
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            log::error!("datagen stopped: {e}");
            let _ = writer.finish();
            return ExitCode::FAILURE;
        }
    };
    match writer.finish() {
        Ok(n) => log::info!("wrote {n} positions to {}", out.display()),
        Err(e) => {
            log::error!("{}: {e}", out.display());
            return ExitCode::FAILURE;
        }
    }
    log::info!("done: {}", report(&summary));
    ExitCode::SUCCESS
}
