//! Self-play training data for the NNUE (see `docs/nnue.md`).
//!
//! Usage:
//! - `datagen --dir DIR [--seed S] [--shard-games N] [--first-shard K] [--shards N] [SETTINGS]`:
//!   shards `K..K + N` of seed `S` (shard `k` = games `k * N_games..(k + 1) * N_games`) into
//!   `DIR`, each resumed where it stopped, complete ones skipped; `DIR/manifest.tsv` rewritten
//!   after every shard. Kill it at any moment; the same command continues.
//! - `datagen --out FILE [--games N] [SETTINGS]`: games `0..N` into one file (no resuming).
//! - `datagen merge --out FILE [--seed S] [--no-dedup] INPUT...`: joins data files, and the
//!   shards of data directories, into one shuffled training set without repeated positions.
//! - `datagen manifest DIR`: rewrites and prints `DIR/manifest.tsv`.
//!
//! SETTINGS: `[--threads N] [--nodes N] [--start-nodes N] [--check-nodes N]
//! [--probe-nodes N] [--random-plies N] [--max-start-score CP] [--max-plies N] [--hash MB]
//! [--openings FILE] [--net FILE] [--adjudicate-score CP] [--adjudicate-plies N]
//! [--no-adjudicate-mate] [--seconds S] [--commit ID]`.
//!
//! Without `--openings` the 200 lines of `data/openings.txt` (built in) are used. The commit
//! recorded in a shard's metadata is `--commit`, else `GOGO_COMMIT` at build time
//! (`GOGO_COMMIT=$(git rev-parse --short HEAD) cargo build --release --example datagen`),
//! else `unknown`. Progress and the final figures go to standard error.

use gogo::nnue::Network;
use gogo::train::data::DataWriter;
use gogo::train::datagen::{self, Fate, Settings, Summary};
use gogo::train::merge;
use gogo::train::shard::{self, Shard};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: datagen (--dir DIR [--seed S] [--shard-games N] [--first-shard K] \
    [--shards N] | --out FILE [--games N]) [--threads N] [--nodes N] [--start-nodes N] \
    [--check-nodes N] [--probe-nodes N] [--random-plies N] [--max-start-score CP] [--max-plies N] [--hash MB] \
    [--openings FILE] [--net FILE] [--adjudicate-score CP] [--adjudicate-plies N] [--no-adjudicate-mate] \
    [--seconds S] [--commit ID]\n       datagen merge --out FILE [--seed S] [--no-dedup] \
    INPUT...\n       datagen manifest DIR";

struct Options {
    settings: Settings,
    out: Option<PathBuf>,
    dir: Option<PathBuf>,
    shard_games: u64,
    first_shard: u64,
    shards: u64,
    commit: String,
}

fn parse_args(args: Vec<String>) -> Result<Options, String> {
    let mut o = Options {
        settings: Settings {
            games: 1_000_000,
            openings: datagen::parse_openings(include_str!("../data/openings.txt")),
            ..Settings::default()
        },
        out: None,
        dir: None,
        shard_games: 4000,
        first_shard: 0,
        shards: 1_000_000,
        commit: option_env!("GOGO_COMMIT").unwrap_or("unknown").to_string(),
    };
    let s = &mut o.settings;
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        if flag == "--no-adjudicate-mate" {
            s.adjudication.mate = false;
            continue;
        }
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.to_string());
        }
        let v = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let num = || -> Result<u64, String> {
            v.parse()
                .map_err(|_| format!("{flag}: '{v}' is not a number"))
        };
        match flag.as_str() {
            "--out" => o.out = Some(PathBuf::from(&v)),
            "--dir" => o.dir = Some(PathBuf::from(&v)),
            "--shard-games" => o.shard_games = num()?.max(1),
            "--first-shard" => o.first_shard = num()?,
            "--shards" => o.shards = num()?,
            "--commit" => o.commit = v.clone(),
            "--games" => s.games = num()?,
            "--threads" => s.threads = num()?.max(1) as usize,
            "--nodes" => s.nodes = num()?.max(1),
            "--start-nodes" => s.start_nodes = num()?,
            "--check-nodes" => s.check_nodes = num()?,
            "--probe-nodes" => s.probe_nodes = num()?,
            "--seed" => s.seed = num()?,
            "--random-plies" => s.random_plies = num()? as usize,
            "--max-start-score" => s.max_start_score = num()? as i32,
            "--max-plies" => s.max_plies = num()? as u32,
            "--hash" => s.hash_mb = num()?.max(1) as usize,
            "--seconds" => s.time_limit = Some(Duration::from_secs(num()?)),
            "--adjudicate-score" => s.adjudication.score = num()? as i32,
            "--adjudicate-plies" => s.adjudication.score_plies = num()? as u32,
            "--net" => {
                let net = Network::load(Path::new(&v)).map_err(|e| format!("--net {v}: {e}"))?;
                s.net = Some(Arc::new(net));
            }
            "--openings" => {
                let text = std::fs::read_to_string(&v).map_err(|e| format!("{v}: {e}"))?;
                s.openings = datagen::parse_openings(&text);
                if s.openings.is_empty() {
                    return Err(format!("{v}: no opening lines"));
                }
            }
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    if o.out.is_some() == o.dir.is_some() {
        return Err(format!("give one of --out and --dir\n{USAGE}"));
    }
    Ok(o)
}

fn report(s: &Summary) -> String {
    let secs = s.seconds.max(1e-9);
    format!(
        "{} games, {} positions ({:.1} pos/s, {:.2} games/s, {:.0} knps), {} plies, \
         sente/gote/draw {}/{}/{}, {} adjudicated, dropped {} duplicate and {} unbalanced \
         starts, {:.0} s",
        s.games,
        s.positions,
        s.positions as f64 / secs,
        s.games as f64 / secs,
        s.nodes as f64 / secs / 1000.0,
        s.plies,
        s.outcomes[0],
        s.outcomes[1],
        s.outcomes[2],
        s.adjudicated,
        s.dropped_duplicates,
        s.dropped_starts,
        s.seconds
    )
}

fn describe(o: &Options) {
    let s = &o.settings;
    log::info!(
        "datagen: seed {}, {} threads, {} nodes per move ({} for a start), {} random plies, \
         start |score| <= {}, adjudication {:?}, {} openings, net {}, commit {}",
        s.seed,
        s.threads,
        s.nodes,
        s.start_nodes,
        s.random_plies,
        s.max_start_score,
        s.adjudication,
        s.openings.len(),
        s.describe()[0].1,
        o.commit
    );
}

/// Games `0..games` into one file.
fn one_file(o: &Options, out: &Path) -> Result<(), String> {
    let mut writer = DataWriter::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut last = Instant::now();
    let result = datagen::run(
        &o.settings,
        &mut HashSet::new(),
        |g, fate| {
            if fate == Fate::Kept {
                for r in &g.records {
                    writer.write(r).map_err(|e| e.to_string())?;
                }
                // The header counts every finished game: a run cut short still reads.
                writer.sync().map_err(|e| e.to_string())?;
            }
            Ok(())
        },
        |s| {
            if last.elapsed() >= Duration::from_secs(30) {
                last = Instant::now();
                log::info!("{}", report(s));
            }
        },
    );
    let n = writer
        .finish()
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let summary = result?;
    log::info!("wrote {n} positions to {}", out.display());
    log::info!("done: {}", report(&summary));
    Ok(())
}

/// The shards `first_shard..first_shard + shards` into `dir`.
fn sharded(o: &Options, dir: &Path) -> Result<(), String> {
    let start = Instant::now();
    let extra = [("commit", o.commit.clone())];
    for k in o.first_shard..o.first_shard.saturating_add(o.shards) {
        if o.settings.time_limit.is_some_and(|t| start.elapsed() >= t) {
            break;
        }
        let mut s = o.settings.clone();
        s.first_game = k * o.shard_games;
        s.games = o.shard_games;
        let name = shard::shard_name(s.seed, s.first_game);
        let mut shard = Shard::open(dir, &name, &s, &extra)?;
        if shard.is_complete() {
            continue;
        }
        log::info!(
            "shard {name}: games {}..{}, {} done ({} positions)",
            s.first_game,
            s.first_game + s.games,
            shard.entries_done,
            shard.positions()
        );
        s.games = shard.end - shard.next;
        s.first_game = shard.next;
        s.time_limit = o
            .settings
            .time_limit
            .map(|t| t.saturating_sub(start.elapsed()));
        let mut seen = std::mem::take(&mut shard.seen);
        let mut last = Instant::now();
        let result = datagen::run(
            &s,
            &mut seen,
            |g, fate| shard.record(g, fate),
            |sum| {
                if last.elapsed() >= Duration::from_secs(60) {
                    last = Instant::now();
                    log::info!("shard {name}: {}", report(sum));
                }
            },
        );
        let complete = shard.is_complete();
        let positions = shard.finish()?;
        let summary = result?;
        log::info!(
            "shard {name} {}: {positions} positions; this run: {}",
            if complete { "complete" } else { "stopped" },
            report(&summary)
        );
        shard::write_manifest(dir)?;
    }
    let text = shard::write_manifest(dir)?;
    if let Some(total) = text.lines().last() {
        log::info!("{}: {}", dir.join("manifest.tsv").display(), total);
    }
    Ok(())
}

fn merge_cmd(args: Vec<String>) -> Result<(), String> {
    let (mut out, mut seed, mut dedup, mut inputs) = (None, 1u64, true, Vec::new());
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().map(PathBuf::from),
            "--seed" => {
                let v = args.next().unwrap_or_default();
                seed = v
                    .parse()
                    .map_err(|_| format!("--seed: '{v}' is not a number"))?;
            }
            "--no-dedup" => dedup = false,
            _ if a.starts_with("--") => return Err(format!("unknown argument '{a}'\n{USAGE}")),
            _ => inputs.push(PathBuf::from(a)),
        }
    }
    let out = out.ok_or_else(|| format!("merge needs --out\n{USAGE}"))?;
    let files = shard::data_files(&inputs)?;
    if files.is_empty() {
        return Err(format!("merge needs inputs\n{USAGE}"));
    }
    let m = merge::merge_files(&files, &out, dedup, seed)?;
    log::info!(
        "{}: {} positions from {} files ({} read, {} repeated positions dropped)",
        out.display(),
        m.written,
        files.len(),
        m.read,
        m.duplicates
    );
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("merge") => merge_cmd(args[1..].to_vec()),
        Some("manifest") => match args.get(1) {
            Some(dir) => shard::write_manifest(Path::new(dir)).map(|t| print!("{t}")),
            None => Err(USAGE.to_string()),
        },
        _ => parse_args(args).and_then(|o| {
            describe(&o);
            match (&o.out, &o.dir) {
                (Some(out), _) => one_file(&o, out),
                (_, Some(dir)) => sharded(&o, dir),
                _ => unreachable!("parse_args checks"),
            }
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
