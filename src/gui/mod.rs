//! `gogo gui`: a local web board for playing and analysing with the engine.
//!
//! A small synchronous HTTP server (`tiny_http`) on 127.0.0.1 serves one page (HTML, CSS and
//! JavaScript embedded in the binary) and a JSON API. The page never implements the rules:
//! legal moves, results and SFENs come from the rules core through [`session::Session`]. All
//! engine work goes through [`analysis::EngineAdapter`]. See `docs/gui.md`.

pub mod analysis;
mod server;
pub mod session;

pub use server::{start, Server};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Default port of `gogo gui`.
pub const DEFAULT_PORT: u16 = 8765;

/// An API error: an HTTP status and a message for the page (sent as `{"error": "..."}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: &str) -> ApiError {
        ApiError {
            status,
            message: message.to_string(),
        }
    }
    pub fn bad(message: &str) -> ApiError {
        ApiError::new(400, message)
    }
    pub fn conflict(message: &str) -> ApiError {
        ApiError::new(409, message)
    }
    pub fn internal(message: &str) -> ApiError {
        ApiError::new(500, message)
    }
}

/// Options of `gogo gui`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub port: u16,
    pub open: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            port: DEFAULT_PORT,
            open: true,
        }
    }
}

pub const USAGE: &str = "usage: gogo gui [--port N] [--no-open]\n  \
    --port N    listen on 127.0.0.1:N (default 8765; 0 picks a free port)\n  \
    --no-open   do not open a browser\n";

/// Parses the arguments after `gui`.
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--port" | "-p" => {
                let v = args.get(i + 1).ok_or("--port needs a number")?;
                o.port = v.parse().map_err(|_| format!("bad port '{v}'"))?;
                i += 1;
            }
            s if s.starts_with("--port=") => {
                let v = &s["--port=".len()..];
                o.port = v.parse().map_err(|_| format!("bad port '{v}'"))?;
            }
            "--no-open" => o.open = false,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("gui: unknown argument '{other}'\n{USAGE}")),
        }
        i += 1;
    }
    Ok(o)
}

fn open_browser(url: &str) {
    let candidates: &[(&str, &[&str])] = if cfg!(target_os = "macos") {
        &[("open", &[])]
    } else if cfg!(windows) {
        &[("cmd", &["/C", "start", ""])]
    } else {
        &[("xdg-open", &[])]
    };
    for (prog, pre) in candidates {
        let r = std::process::Command::new(prog)
            .args(*pre)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if r.is_ok() {
            return;
        }
    }
    log::info!("could not open a browser; open {url} yourself");
}

/// `gogo gui [--port N] [--no-open]`: serves until Ctrl-C.
pub fn run(args: &[String]) -> Result<(), String> {
    let options = parse_args(args)?;
    let server = start(options.port).map_err(|e| format!("gui: {e}"))?;
    let url = server.url();
    println!("Gogo board at {url}  (Ctrl-C to quit)");
    let quit = Arc::new(AtomicBool::new(false));
    {
        let quit = quit.clone();
        if let Err(e) = ctrlc::set_handler(move || quit.store(true, Ordering::SeqCst)) {
            log::warn!("no Ctrl-C handler: {e}");
        }
    }
    if options.open {
        open_browser(&url);
    }
    while !quit.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("stopping");
    server.shutdown();
    Ok(())
}
