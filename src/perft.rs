//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, counted in bulk
//! at the last ply (one popcount per move group instead of making each move).

use crate::movegen::{count_legal, legal_moves};
use crate::position::Position;
use crate::types::Move;

pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal(pos),
        _ => {
            let mut total = 0;
            for &m in legal_moves(pos).iter() {
                total += perft(&pos.after(m), depth - 1);
            }
            total
        }
    }
}

/// Perft per root move, in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    legal_moves(pos)
        .iter()
        .map(|&m| (m, perft(&pos.after(m), depth - 1)))
        .collect()
}

/// The report printed by `gogo perft` and `go perft`: `<move>: <count>` per root move, sorted
/// by move text, a blank line, then `Nodes searched: <total>`.
pub fn report(pos: &Position, depth: u32) -> (String, u64) {
    let mut rows = divide(pos, depth);
    rows.sort_by_key(|(m, _)| m.to_string());
    let total: u64 = if depth == 0 {
        1
    } else {
        rows.iter().map(|r| r.1).sum()
    };
    let mut s = String::new();
    for (m, n) in &rows {
        s.push_str(&format!("{m}: {n}\n"));
    }
    s.push_str(&format!("\nNodes searched: {total}\n"));
    (s, total)
}
