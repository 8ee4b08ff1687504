//! The `gogo` binary: dispatches to the USI loop (default) or a command-line tool.

use gogo::game::Game;
use std::process::ExitCode;
use std::time::Instant;

fn usage() -> &'static str {
    "usage: gogo                 run the USI engine on stdin/stdout\n       \
     gogo perft <depth> [<sfen> | startpos] [moves <m>...]\n       \
     gogo bench [<depth>]\n       \
     gogo gui [--port N] [--no-open]\n"
}

fn perft_command(args: &[String]) -> Result<(), String> {
    let depth: u32 = args
        .first()
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| format!("perft needs a depth\n{}", usage()))?;
    let rest = &args[1..];
    let moves_at = rest.iter().position(|a| a == "moves").unwrap_or(rest.len());
    let pos_text = rest[..moves_at].join(" ");
    let mut game = if pos_text.is_empty() || pos_text == "startpos" {
        Game::new(gogo::position::Position::startpos())
    } else {
        Game::from_sfen(&pos_text).map_err(|e| format!("bad SFEN: {e}"))?
    };
    for m in rest.iter().skip(moves_at + 1) {
        game.play_usi(m)?;
    }
    let t = Instant::now();
    let (text, total) = gogo::perft::report(game.current(), depth);
    let secs = t.elapsed().as_secs_f64();
    print!("{text}");
    eprintln!(
        "perft {depth}: {total} leaves in {secs:.3} s ({:.1} M leaves/s)",
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("perft") => perft_command(&args[1..]),
        Some("-h") | Some("--help") | Some("help") => {
            print!("{}", usage());
            Ok(())
        }
        #[cfg(feature = "gui")]
        Some("gui") => gogo::gui::run(&args[1..]),
        Some("bench") => {
            let depth = args.get(1).and_then(|d| d.parse().ok());
            gogo::bench::run(depth, &|l: &str| println!("{l}"));
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n{}", usage())),
        None => {
            gogo::usi::run();
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
