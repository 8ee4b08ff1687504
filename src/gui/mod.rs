//! `gogo gui`: a local web board for playing and analysing with the engine.
//!
//! An HTTP server on 127.0.0.1 (hyper and axum on a small tokio runtime, see [`server`])
//! serves one page (HTML, CSS and JavaScript embedded in the binary) and a JSON API. The page
//! never implements the rules: legal moves, results, SFENs and records come from the rules core
//! through [`session::Session`]. All engine work goes through [`analysis::EngineAdapter`]; the
//! engine itself stays synchronous and the runtime only serves HTTP. See `docs/gui.md`.

pub mod analysis;
pub mod requests;
mod server;
pub mod session;

pub use server::{start, start_with, Config, Server};

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, taking the value of a mutex poisoned by a panic (the board's state stays usable).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

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
    pub fn busy(message: &str) -> ApiError {
        ApiError::new(503, message)
    }
}

/// Options of `gogo gui` (parsed by the binary's command line).
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, short, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Do not open a browser.
    #[arg(long)]
    pub no_open: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            port: DEFAULT_PORT,
            no_open: false,
        }
    }
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
pub fn run(args: &Args) -> anyhow::Result<()> {
    let server = start(args.port).map_err(|e| anyhow::anyhow!("gui: {e}"))?;
    let url = server.url();
    println!("Gogo board at {url}  (Ctrl-C to quit)");
    let quit = Arc::new(AtomicBool::new(false));
    {
        let quit = quit.clone();
        if let Err(e) = ctrlc::set_handler(move || quit.store(true, Ordering::SeqCst)) {
            log::warn!("no Ctrl-C handler: {e}");
        }
    }
    if !args.no_open {
        open_browser(&url);
    }
    while !quit.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("stopping");
    server.shutdown();
    Ok(())
}
