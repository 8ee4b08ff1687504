//! SPSA tuning of the search parameters by self-play at a fixed node budget per move, in one
//! process (see `docs/tuning.md`; the method: `src/train/spsa.rs`).
//!
//! - `spsa run --state FILE [SETTINGS]`: starts a run, or resumes the one in FILE (kill it at
//!   any moment; the same command continues; other settings are refused). Theta goes to
//!   `FILE.log` every `--log-every` iterations; at the end the values are printed as Rust
//!   constants for `src/params.rs`.
//! - `spsa show FILE`: those constants for a state, finished or not.
//! - `spsa params`: the tunable parameters in the `--params` file format.
//!
//! Build it optimised: `cargo build --release --example spsa`. Logs go to standard error.

use clap::{Args, Parser, Subcommand};
use gogo::train::datagen::{parse_openings, Adjudication};
use gogo::train::spsa::{self, RunOptions, Settings, Tuner};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "spsa",
    about = "SPSA tuning of Gogo's search parameters by self-play at a fixed node budget \
             (docs/tuning.md)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start a tuning run, or resume the one in --state (same settings required)
    Run(RunArgs),
    /// Print a state file's current values as Rust constants for src/params.rs
    Show {
        /// The state file
        state: PathBuf,
    },
    /// Print the tunable parameters (defaults, bounds, c_end) in the --params file format
    Params {
        /// The learning rate at the end to write for each
        #[arg(long, default_value_t = spsa::DEFAULT_R_END)]
        r_end: f64,
    },
}

#[derive(Args)]
struct RunArgs {
    /// State file: created, or resumed when it exists; theta is logged to STATE.log
    #[arg(long)]
    state: PathBuf,
    /// Planned iterations (game pairs); the gains' schedule ends there
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    iterations: u64,
    /// Node budget per move
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Game pairs played in parallel (does not change the result)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Iterations played against the same theta [default: the state's when resuming, else
    /// --threads]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    batch: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Learning rate at the end, for parameters whose --params line gives none
    #[arg(long, default_value_t = spsa::DEFAULT_R_END, allow_negative_numbers = true)]
    r_end: f64,
    /// Parameters to tune, one `NAME, start, min, max, c_end[, r_end]` a line (see `spsa
    /// params`) [default: all of them, from their defaults]
    #[arg(long)]
    params: Option<PathBuf>,
    /// Hash table of each side, MiB
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=1024))]
    hash: u64,
    /// Opening lines (`startpos moves ...`, `#` comments) [default: data/openings.txt, built in]
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Random legal moves played after the opening line
    #[arg(long, default_value_t = 2)]
    random_plies: usize,
    /// Node budget of the search (default parameters) that checks a start
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    start_nodes: u64,
    /// Largest |score| of an accepted start, centipawns (0: any start, unsearched)
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(i32).range(0..))]
    max_start_score: i32,
    /// A game is drawn after this many plies
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..))]
    max_plies: u32,
    /// A game is won when the searches give one side at least this much for
    /// --adjudicate-plies plies in a row (0: never)
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(i32).range(0..))]
    adjudicate_score: i32,
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    adjudicate_plies: u32,
    /// Play games out instead of ending them at the first mate score a search reports
    #[arg(long)]
    no_adjudicate_mate: bool,
    /// Log theta every this many iterations
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    log_every: u64,
    /// Stop (after the current batch) once this many seconds have passed; resume later
    #[arg(long)]
    seconds: Option<u64>,
}

fn settings(a: &RunArgs) -> Result<Settings, String> {
    let params = match &a.params {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            spsa::parse_params(&text, a.r_end).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => {
            if !(a.r_end.is_finite() && a.r_end > 0.0) {
                return Err(format!("--r-end {}: must be positive", a.r_end));
            }
            spsa::table_params(a.r_end)
        }
    };
    let openings = match &a.openings {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let lines = parse_openings(&text);
            if lines.is_empty() {
                return Err(format!("{}: no opening lines", path.display()));
            }
            lines
        }
        None => spsa::default_openings(),
    };
    // A resumed run keeps its batch unless told otherwise (it is a setting; the threads are not).
    let batch = match a.batch {
        Some(b) => b,
        None => std::fs::read_to_string(&a.state)
            .ok()
            .and_then(|t| {
                gogo::train::shard::parse_meta(&t)
                    .get("batch")
                    .and_then(|b| b.parse().ok())
            })
            .unwrap_or(a.threads),
    };
    Ok(Settings {
        seed: a.seed,
        iterations: a.iterations,
        batch,
        nodes: a.nodes,
        hash_mb: a.hash as usize,
        openings,
        random_plies: a.random_plies,
        start_nodes: a.start_nodes,
        max_start_score: a.max_start_score,
        max_plies: a.max_plies,
        adjudication: Adjudication {
            mate: !a.no_adjudicate_mate,
            score: a.adjudicate_score,
            score_plies: a.adjudicate_plies,
        },
        params,
    })
}

/// Where the run stands, in one line.
fn report(t: &Tuner, pairs_per_s: f64) -> String {
    let s = &t.totals;
    let games = s.games.max(1) as f64;
    format!(
        "iteration {}/{} ({:.1}%): {:.2} pairs/s this session; plus side won {}, drew {}, lost {} \
         ({:.1}%), {} adjudicated, {:.1} plies a game, {:.0} nodes a move",
        t.iteration,
        t.settings.iterations,
        100.0 * t.iteration as f64 / t.settings.iterations as f64,
        pairs_per_s,
        s.plus_wins,
        s.draws,
        s.plus_losses,
        100.0 * (s.plus_wins as f64 + 0.5 * s.draws as f64) / games,
        s.adjudicated,
        s.plies as f64 / games,
        s.nodes as f64 / s.plies.max(1) as f64,
    )
}

fn theta_line(t: &Tuner) -> String {
    t.settings
        .params
        .iter()
        .zip(&t.theta)
        .map(|(p, th)| format!("{} {th:.2}", p.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn run(a: &RunArgs) -> Result<(), String> {
    let s = settings(a)?;
    let opts = RunOptions {
        threads: a.threads as usize,
        log_every: a.log_every,
        time_limit: a.seconds.map(Duration::from_secs),
        until: None,
    };
    log::info!(
        "spsa: state {}, seed {}, {} iterations, batch {}, {} threads, {} nodes a move, {} \
         parameters, {} openings + {} random plies",
        a.state.display(),
        s.seed,
        s.iterations,
        s.batch,
        opts.threads,
        s.nodes,
        s.params.len(),
        s.openings.len(),
        s.random_plies
    );
    let start = Instant::now();
    let mut first: Option<u64> = None;
    let mut last_report = Instant::now();
    let every = a.log_every;
    let tuner = spsa::run(&a.state, s, &opts, |t, batch| {
        let Some(k) = batch.first().map(|r| r.k) else {
            return;
        };
        let from = *first.get_or_insert(k - 1);
        let rate = (t.iteration - from) as f64 / start.elapsed().as_secs_f64().max(1e-9);
        let logged = t.iteration / every > (k - 1) / every;
        if logged || last_report.elapsed() >= Duration::from_secs(30) {
            last_report = Instant::now();
            log::info!("{}", report(t, rate));
        }
        if logged {
            log::info!("theta: {}", theta_line(t));
        }
    })?;
    let rate = first.map_or(0.0, |f| {
        (tuner.iteration - f) as f64 / start.elapsed().as_secs_f64().max(1e-9)
    });
    log::info!("{}", report(&tuner, rate));
    if tuner.is_done() {
        log::info!("the run is complete; its values:");
    } else {
        log::info!(
            "stopped at iteration {}; the same command resumes it. The values so far:",
            tuner.iteration
        );
    }
    print!("{}", tuner.rust_constants());
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Run(a) => run(a),
        Command::Show { state } => std::fs::read_to_string(state)
            .map_err(|e| format!("{}: {e}", state.display()))
            .and_then(|t| spsa::show(&t).map_err(|e| format!("{}: {e}", state.display())))
            .map(|text| print!("{text}")),
        Command::Params { r_end } => {
            if r_end.is_finite() && *r_end > 0.0 {
                print!("{}", spsa::format_params(&spsa::table_params(*r_end)));
                Ok(())
            } else {
                Err(format!("--r-end {r_end}: must be positive"))
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
