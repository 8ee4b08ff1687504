//! The `gogo` binary: the protocol loop on stdin/stdout by default, or a command-line tool.
//! It only parses the command line and dispatches to the library; anyhow carries errors to
//! the one place that prints them (standard error, non-zero exit).

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use gogo::event::Event;
use gogo::game::Game;
use gogo::search::Signals;
use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "gogo",
    version,
    about = "Gogo, a minishogi (5x5 shogi) engine.",
    long_about = "Gogo, a minishogi (5x5 shogi) engine. Without a command it speaks USI on \
                  standard input and output (and the UCI dialect after a `uci` command), for \
                  a GUI or a match runner. Logs go to standard error (RUST_LOG=debug)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Tool>,
}

#[derive(Subcommand)]
enum Tool {
    /// Count the leaves of the legal move tree to a depth, per root move.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// The position: `startpos` (default), an SFEN, or `sfen <sfen>`, then optionally
        /// `moves <m>...` in USI notation.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        position: Vec<String>,
    },
    /// Search the fixed bench positions to a fixed depth on one thread (deterministic node
    /// count: the `Bench:` line of commit messages).
    Bench {
        /// Depth in plies (default 9).
        #[arg(value_parser = clap::value_parser!(i32).range(1..=64))]
        depth: Option<i32>,
    },
    /// Play and analyse in the browser: a local web board on 127.0.0.1 (docs/gui.md).
    #[cfg(feature = "gui")]
    Gui(gogo::gui::Args),
}

fn perft(depth: u32, position: &[String]) -> anyhow::Result<()> {
    if depth > gogo::engine::MAX_PERFT_DEPTH {
        bail!(
            "perft depth {depth} is more than {}",
            gogo::engine::MAX_PERFT_DEPTH
        );
    }
    let text = position.join(" ");
    let text = match position.first().map(String::as_str) {
        None => "startpos".to_string(),
        Some("startpos") | Some("sfen") => text,
        Some(_) => format!("sfen {text}"),
    };
    let game = Game::parse_position(&text).with_context(|| format!("position '{text}'"))?;
    let t = Instant::now();
    let (report, total) = gogo::perft::report(game.current(), depth);
    let secs = t.elapsed().as_secs_f64();
    write_stdout(&report)?;
    eprintln!(
        "perft {depth}: {total} leaves in {secs:.3} s ({:.1} M leaves/s)",
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

/// Standard output closed by the reader (`gogo bench | head -1`): not an error worth a word.
#[derive(Debug)]
struct OutputClosed;

impl std::fmt::Display for OutputClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output was closed")
    }
}
impl std::error::Error for OutputClosed {}

/// Writes `text` to standard output; a closed pipe becomes [`OutputClosed`].
fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(OutputClosed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("writing to standard output")),
    }
}

fn bench(depth: Option<i32>) -> anyhow::Result<()> {
    let signals = Arc::new(Signals::default());
    let failed: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    gogo::bench::run(depth, &signals, &|e: Event| {
        let mut failed = failed.lock().unwrap_or_else(|e| e.into_inner());
        if failed.is_some() {
            return;
        }
        let mut text = String::new();
        for line in gogo::usi::format(&e) {
            text.push_str(&line);
            text.push('\n');
        }
        if let Err(e) = write_stdout(&text) {
            // Nobody reads any more: the rest of the bench is not worth running.
            *failed = Some(e);
            signals.request_stop();
        }
    });
    match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn run(command: Option<Tool>) -> anyhow::Result<()> {
    match command {
        None => gogo::protocol::run_stdio(),
        Some(Tool::Perft { depth, position }) => perft(depth, &position)?,
        Some(Tool::Bench { depth }) => bench(depth)?,
        #[cfg(feature = "gui")]
        Some(Tool::Gui(args)) => gogo::gui::run(&args)?,
    }
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    match run(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<OutputClosed>() => ExitCode::SUCCESS,
        Err(e) => {
            // One line with its causes ("position '...': bad SFEN: ..."), no backtrace.
            eprintln!("gogo: {e:#}");
            ExitCode::FAILURE
        }
    }
}
