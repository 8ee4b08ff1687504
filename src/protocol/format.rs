//! The lines both dialects write alike but for the notation of moves and scores.

use crate::event::{Event, SearchInfo};
use crate::score::Score;
use crate::text::sanitize;
use crate::tt::Bound;
use crate::types::Move;

/// The `info` line of a search report, with moves written by `write_move` and scores by
/// `write_score` (each dialect passes its own notations).
pub fn info_line(
    info: &SearchInfo,
    write_move: fn(Move) -> String,
    write_score: fn(Score) -> String,
) -> String {
    let bound = match info.bound {
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
        _ => "",
    };
    let pv: Vec<String> = info.pv.iter().map(|&m| write_move(m)).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {}{bound} nodes {} nps {} time {} hashfull {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        write_score(info.score),
        info.nodes,
        info.nps,
        info.time_ms,
        info.hashfull,
        pv.join(" ")
    )
}

/// The lines of an event that are the same in both dialects but for the notation of moves.
pub fn common_lines(event: &Event, write_move: fn(Move) -> String) -> Option<Vec<String>> {
    Some(match event {
        Event::Message(text) => vec![format!("info string {}", sanitize(text, 2000))],
        Event::PerftMove { mv, nodes } => vec![format!("{}: {nodes}", write_move(*mv))],
        Event::PerftDone { nodes, complete } => {
            let mut v = vec![String::new(), format!("Nodes searched: {nodes}")];
            if !*complete {
                v.push("info string perft stopped: the count is partial".to_string());
            }
            v
        }
        Event::BenchPosition { index, nodes, best } => vec![format!(
            "info string position {index:>2}: {nodes:>9} nodes, bestmove {}",
            best.map_or("none".to_string(), write_move)
        )],
        Event::BenchDone {
            nodes,
            nps,
            complete,
        } => {
            let mut v = vec![format!("{nodes} nodes {nps} nps")];
            if !*complete {
                v.push("info string bench stopped: the count is partial".to_string());
            }
            v
        }
        _ => return None,
    })
}
