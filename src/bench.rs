//! `bench`: a fixed list of positions searched to a fixed depth on one thread with a fresh
//! hash table, printing the nodes per position and a last line `<nodes> nodes <nps> nps`. The
//! node count is deterministic: it is the behaviour's checksum (`Bench: <nodes>` in commit
//! messages).

use crate::event::Event;
use crate::game::Game;
use crate::search::{SearchConfig, Searcher, Signals};
use crate::time::Limits;
use crate::tt::TranspositionTable;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

pub const DEFAULT_DEPTH: i32 = 9;
const BENCH_HASH_MB: usize = 16;

/// Arguments of a `position` command: start-position lines from the opening suite and
/// positions from random games of the perft data.
pub const POSITIONS: &[&str] = &[
    "startpos",
    "startpos moves 1e1c 3a2b",
    "startpos moves 3e2d 4a5b",
    "startpos moves 1e1d 1a2b 1d3d",
    "startpos moves 2e4c 3a3b 4c3b",
    "startpos moves 3e3d 5a5c 4e3e",
    "startpos moves 5d5c 1b1c 3e4d",
    "startpos moves 1e1d 4a1d 4e3d 2a3b",
    "startpos moves 2e5b 3a2b 5b4c 2a3a",
    "startpos moves 3e4d 2a3b 4e3e 3b2c",
    "startpos moves 4e4d 4a5b 1e1c 3a4b",
    "sfen 2K1k/PG3/1GSS1/5/1+RBRB b P 1",
    "sfen 2+B2/4g/2k2/G3B/1KS2 b 2RSPp 1",
    "sfen 3g1/r1s2/4k/3PS/1K3 w Brbgp 1",
    "sfen R1s1g/3kp/SB3/1K3/P+b2R b g 1",
    "sfen 3br/1K3/b3k/1G3/2R2 b 2Sg2p 1",
    "sfen 1Ks1k/PG1R1/1GS2/+R4/3+bB b P 1",
    "sfen +PS1gg/4r/2Sk1/+b2B1/2K2 b Pr 1",
    "sfen 1Bsg1/3k1/p1R2/G4/K2Br w sp 1",
    "sfen 1b1gk/1K3/4p/2S2/1G1BR b RSP 1",
    "sfen K1s2/1+R3/3P1/sg1k1/5 b BPrbg 1",
    "sfen 5/G2g1/2rs1/PK1p1/4k w RBbs 1",
    "sfen 4r/1PK2/p3k/3g1/3gS b Brbs 1",
    "sfen 1s2g/5/2rk1/1G3/KS3 b r2b2p 1",
    "sfen R1+PB1/1k2B/5/K2p1/1g1S1 w RGS 1",
    "sfen 1b1gk/bs1r1/2p1P/GK3/2S2 b r 1",
    "sfen 2gk1/1srbP/5/1+RB2/K4 b Gsp 1",
    "sfen +P3k/2Kp1/2B1g/5/1G1B1 b 2R2S 1",
    "sfen 1B1k1/5/s1p2/G4/K1S2 w RBGrp 1",
    "sfen G1r1r/p4/P4/1S1Sb/GK1k1 b b 1",
    "sfen p2sk/4p/2G2/4b/GKs2 w B2r 1",
    "sfen 5/4k/g2gb/K1sp1/2bsR b RP 1",
    "sfen 4g/5/2s1k/1BG2/1K3 b RBrs2p 1",
];

/// Runs the bench at `depth` (default [`DEFAULT_DEPTH`]), reporting a `BenchPosition` event per
/// position and a final `BenchDone`; returns the total node count. `signals.stop` ends it early
/// (the total is then partial and `BenchDone` says so).
pub fn run(depth: Option<i32>, signals: &Arc<Signals>, emit: &dyn Fn(Event)) -> u64 {
    let depth = depth.unwrap_or(DEFAULT_DEPTH).clamp(1, 64);
    let config = SearchConfig {
        verbose: false,
        mate_probe: false,
        ..SearchConfig::default()
    };
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut total = 0u64;
    let mut complete = true;
    let start = Instant::now();
    for (i, text) in POSITIONS.iter().enumerate() {
        if signals.stop.load(Ordering::SeqCst) {
            complete = false;
            break;
        }
        let game = match Game::parse_position(text) {
            Ok(g) => g,
            Err(e) => {
                emit(Event::Message(format!(
                    "bench position {} rejected: {e}",
                    i + 1
                )));
                continue;
            }
        };
        let tt = Arc::new(TranspositionTable::new(BENCH_HASH_MB));
        let mut searcher = Searcher::new(tt, signals.clone());
        let r = searcher.think(game.positions(), &limits, &[], &config);
        total += r.nodes;
        if signals.stop.load(Ordering::SeqCst) {
            complete = false;
            break;
        }
        emit(Event::BenchPosition {
            index: i + 1,
            nodes: r.nodes,
            best: r.best,
        });
    }
    let ms = start.elapsed().as_millis().max(1) as u64;
    emit(Event::BenchDone {
        nodes: total,
        nps: total.saturating_mul(1000) / ms,
        complete,
    });
    total
}
