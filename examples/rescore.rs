//! Searches the positions of training data again and writes them with the new scores
//! (`gogo::train::rescore`): deeper labels for data made at a smaller node budget.
//!
//! Usage: `cargo run --release --example rescore -- --data PATH [--data PATH ...] --out FILE
//! --nodes N [--threads N] [--hash MB] [--block N] [--eval-file NET]`
//!
//! `--data` takes files and shard directories, as the trainer does (a directory is read up to
//! the last game its generator journalled). The output is one data file. The run goes in
//! blocks of about `--block` input records (default 20,000, cut at game boundaries); after
//! each block the records are flushed and `FILE.progress` says how far the input is done, so
//! a run that is stopped continues where it was when started again with the same arguments.
//! The output does not depend on `--threads` (each game is searched by a fresh searcher).

use gogo::nnue::Network;
use gogo::train::data::{self, games, DataWriter, Record};
use gogo::train::rescore::{rescore, Settings};
use gogo::train::shard;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

struct Options {
    data: Vec<PathBuf>,
    out: PathBuf,
    nodes: u64,
    threads: usize,
    hash_mb: usize,
    block: usize,
    eval_file: Option<PathBuf>,
}

const USAGE: &str = "usage: rescore --data PATH [--data PATH ...] --out FILE --nodes N \
    [--threads N] [--hash MB] [--block N] [--eval-file NET]";

fn parse() -> Result<Options, String> {
    let mut o = Options {
        data: Vec::new(),
        out: PathBuf::new(),
        nodes: 0,
        threads: 1,
        hash_mb: 8,
        block: 20_000,
        eval_file: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--help" || a == "-h" {
            return Err(USAGE.to_string());
        }
        let v = args.next().ok_or(format!("{a} needs a value\n{USAGE}"))?;
        let bad = || format!("bad value for {a}: {v}");
        match a.as_str() {
            "--data" => o.data.push(v.into()),
            "--out" => o.out = v.into(),
            "--nodes" => o.nodes = v.parse().map_err(|_| bad())?,
            "--threads" => o.threads = v.parse().map_err(|_| bad())?,
            "--hash" => o.hash_mb = v.parse().map_err(|_| bad())?,
            "--block" => o.block = v.parse().map_err(|_| bad())?,
            "--eval-file" => o.eval_file = Some(v.into()),
            _ => return Err(format!("unknown option {a}\n{USAGE}")),
        }
    }
    if o.data.is_empty() || o.out.as_os_str().is_empty() || o.nodes == 0 {
        return Err(USAGE.to_string());
    }
    if o.threads == 0 || o.block == 0 || o.hash_mb == 0 {
        return Err("--threads, --block and --hash must be positive".to_string());
    }
    Ok(o)
}

/// `FILE.progress`: the input records done, the records written, and what the run was started
/// with (a restart with other inputs or another budget is refused).
fn progress_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".progress");
    PathBuf::from(p)
}

fn run(o: &Options) -> Result<(), String> {
    let mut records: Vec<Record> = Vec::new();
    for (path, count) in &shard::data_files(&o.data)? {
        records.extend(
            data::read_records(path, *count).map_err(|e| format!("{}: {e}", path.display()))?,
        );
    }
    let net = match &o.eval_file {
        Some(p) => Some(Arc::new(Network::load(p).map_err(|e| e.to_string())?)),
        None => None,
    };
    let net_name = o
        .eval_file
        .as_ref()
        .map_or("embedded".to_string(), |p| p.display().to_string());
    let run_id = format!("inputs {} nodes {} net {net_name}", records.len(), o.nodes);
    let progress = progress_path(&o.out);
    let (mut done, mut writer) = match std::fs::read_to_string(&progress) {
        Ok(text) => {
            let mut lines = text.lines();
            let counts: Vec<u64> = lines
                .next()
                .unwrap_or("")
                .split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            let id = lines.next().unwrap_or("");
            if counts.len() != 2 || id != run_id {
                return Err(format!(
                    "{} belongs to another run ({id:?}; this one is {run_id:?}): remove it and {} to start again",
                    progress.display(),
                    o.out.display()
                ));
            }
            let w = DataWriter::resume(&o.out, counts[1]).map_err(|e| e.to_string())?;
            (counts[0] as usize, w)
        }
        Err(_) => (0, DataWriter::create(&o.out).map_err(|e| e.to_string())?),
    };
    log::info!(
        "rescore: {} positions ({} done), {} nodes each, {} threads, net {net_name}",
        records.len(),
        done,
        o.nodes,
        o.threads
    );
    let settings = Settings {
        nodes: o.nodes,
        threads: o.threads,
        hash_mb: o.hash_mb,
        net,
    };
    let start = Instant::now();
    let (mut kept, mut searched, mut nodes) = (0u64, 0u64, 0u64);
    // Blocks end at the first game end at least `block` records after their start; `done` is
    // always a game end (a block's, or 0).
    let ends: Vec<usize> = games(&records).iter().map(|g| g.end).collect();
    while done < records.len() {
        let end = ends
            .iter()
            .copied()
            .find(|&e| e >= done + o.block)
            .unwrap_or(records.len());
        let (out, s) = rescore(&records[done..end], &settings);
        for r in &out {
            writer.write(r).map_err(|e| e.to_string())?;
        }
        writer.sync().map_err(|e| e.to_string())?;
        done = end;
        let tmp = progress.with_extension("progress.tmp");
        std::fs::write(&tmp, format!("{done} {}\n{run_id}\n", writer.count()))
            .and_then(|_| std::fs::rename(&tmp, &progress))
            .map_err(|e| format!("{}: {e}", progress.display()))?;
        kept += s.kept;
        searched += s.positions_in;
        nodes += s.nodes;
        let secs = start.elapsed().as_secs_f64();
        log::info!(
            "{done} of {} done: block of {} kept {} (noisy {}, mate {}); {:.1} positions/s, {:.0} knps",
            records.len(),
            s.positions_in,
            s.kept,
            s.noisy,
            s.mates,
            searched as f64 / secs,
            nodes as f64 / secs / 1000.0
        );
    }
    let total = writer.finish().map_err(|e| e.to_string())?;
    log::info!(
        "done: {total} records in {} ({kept} kept of {searched} searched in this run)",
        o.out.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rescore: {e}");
            ExitCode::FAILURE
        }
    }
}
