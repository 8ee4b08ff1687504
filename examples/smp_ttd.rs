//! Time to depth with 1 and more search threads (Lazy SMP) on the bench positions: a
//! measurement, not a check, so it is an example rather than a test. Run it in release:
//!
//! ```text
//! cargo run --release --example smp_ttd
//! TTD_DEPTH=12 TTD_RUNS=3 TTD_THREADS=1,2 cargo run --release --example smp_ttd
//! ```
//!
//! Every search starts from a fresh 64 MB table and fresh searchers (no history), searches to
//! `TTD_DEPTH` (default 11), and is timed from the call to the return of the main thread's
//! result. The thread counts alternate position by position, so that a change in the machine's
//! load hits all of them alike. Printed per thread count, with speedups against the first count
//! (ratios of the totals over all positions and runs; `TTD_VERBOSE=1` adds a line per position):
//! - wall time to depth: the real figure on an otherwise idle machine;
//! - CPU time of the main search thread to depth: on idle cores the main thread never waits, so
//!   this equals the wall time there; on a loaded machine it removes the time spent waiting
//!   for a core, and stays a fair estimate as long as the helpers got about the same CPU share
//!   as the main thread (printed: other threads' CPU time / the main thread's, about
//!   `threads - 1` when they did);
//! - nodes of all threads (search overhead).

use gogo::bench::POSITIONS;
use gogo::game::Game;
use gogo::search::{SearchConfig, Searcher, Signals};
use gogo::time::Limits;
use gogo::tt::TranspositionTable;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// User + system CPU time of this process in seconds (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which is in parentheses).
    let rest = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    ticks / 100.0
}

/// CPU time of the calling thread in seconds (Linux schedstat, nanoseconds; 0 elsewhere).
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

struct Sample {
    wall: f64,
    /// CPU time of the main search thread (the calling thread).
    main_cpu: f64,
    /// CPU time of the whole process (all threads), 10 ms resolution.
    cpu: f64,
    nodes: u64,
    depth: i32,
}

/// One search of `text` to `depth` with `threads` threads.
fn search(text: &str, threads: usize, depth: i32) -> Sample {
    let game = Game::parse_position(text).expect("bench positions are good");
    let tt = Arc::new(TranspositionTable::new(64));
    let signals = Arc::new(Signals::default());
    let mut main = Searcher::new(tt.clone(), signals.clone());
    let mut helpers: Vec<Searcher> = (1..threads)
        .map(|_| Searcher::new(tt.clone(), signals.clone()))
        .collect();
    let config = SearchConfig {
        verbose: false,
        ..SearchConfig::default()
    };
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    signals.stop.store(false, Ordering::SeqCst);
    let cpu = cpu_seconds();
    let main_cpu = thread_cpu_seconds();
    let t = Instant::now();
    let r = main.think_with_helpers(&mut helpers, game.positions(), &limits, &[], &config);
    Sample {
        wall: t.elapsed().as_secs_f64(),
        main_cpu: thread_cpu_seconds() - main_cpu,
        cpu: cpu_seconds() - cpu,
        nodes: r.nodes,
        depth: r.depth,
    }
}

fn main() {
    let depth: i32 = env_or("TTD_DEPTH", 11);
    let runs: usize = env_or("TTD_RUNS", 2);
    let count: usize = env_or("TTD_POSITIONS", POSITIONS.len());
    let threads: Vec<usize> = std::env::var("TTD_THREADS")
        .unwrap_or_else(|_| "1,2".into())
        .split(',')
        .filter_map(|t| t.trim().parse().ok())
        .collect();
    let positions = &POSITIONS[..count.min(POSITIONS.len())];
    println!(
        "time to depth {depth}: {} positions x {runs} runs, threads {threads:?}, load average {}",
        positions.len(),
        load_average()
    );
    // wall[t][p] summed over runs, likewise cpu and nodes.
    let mut wall = vec![vec![0.0f64; positions.len()]; threads.len()];
    let mut cpu = vec![0.0f64; threads.len()];
    let mut main_cpu = vec![vec![0.0f64; positions.len()]; threads.len()];
    let mut nodes = vec![vec![0u64; positions.len()]; threads.len()];
    for run in 0..runs {
        for (p, text) in positions.iter().enumerate() {
            // Alternate the order so neither count always goes first.
            let order: Vec<usize> = if (run + p) % 2 == 0 {
                (0..threads.len()).collect()
            } else {
                (0..threads.len()).rev().collect()
            };
            for ti in order {
                let s = search(text, threads[ti], depth);
                assert_eq!(s.depth, depth, "position {} did not reach the depth", p + 1);
                wall[ti][p] += s.wall;
                cpu[ti] += s.cpu;
                main_cpu[ti][p] += s.main_cpu;
                nodes[ti][p] += s.nodes;
            }
        }
    }
    let total = |ti: usize| wall[ti].iter().sum::<f64>();
    let total_nodes = |ti: usize| nodes[ti].iter().sum::<u64>();
    let main_total = |ti: usize| main_cpu[ti].iter().sum::<f64>();
    if std::env::var("TTD_VERBOSE").is_ok() {
        for p in 0..positions.len() {
            let cells: Vec<String> = (0..threads.len())
                .map(|ti| format!("{:8.3} {:8.3}", wall[ti][p], main_cpu[ti][p]))
                .collect();
            println!("position {:>2}: {}", p + 1, cells.join("  |  "));
        }
    }
    for (ti, &t) in threads.iter().enumerate() {
        println!(
            "threads {t:>2}: wall {:8.3} s (speedup {:.2})  main-thread cpu {:8.3} s (speedup {:.2})  \
             other threads' cpu / main's {:.2}  nodes {:>11} (x{:.2})",
            total(ti),
            total(0) / total(ti).max(1e-9),
            main_total(ti),
            main_total(0) / main_total(ti).max(1e-9),
            (cpu[ti] - main_total(ti)).max(0.0) / main_total(ti).max(1e-9),
            total_nodes(ti),
            total_nodes(ti) as f64 / total_nodes(0).max(1) as f64,
        );
    }
    println!("load average after: {}", load_average());
}
