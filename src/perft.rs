//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, counted in bulk
//! at the last ply (one popcount per move group instead of making each move).

use crate::movegen::{count_legal, legal_moves};
use crate::position::Position;
use crate::types::Move;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Perft that gives up (`None`) soon after `stop` is set: checked at every node three or more
/// plies above the leaves, so a stop is seen within a few milliseconds.
fn perft_stoppable(pos: &Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth < 3 {
        return Some(perft(pos, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut total = 0;
    for &m in legal_moves(pos).iter() {
        total += perft_stoppable(&pos.after(m), depth - 1, stop)?;
    }
    Some(total)
}

/// Perft per root move in the order of the report (sorted by move text), handing each root
/// move's count to `on_move` as soon as it is known. Returns the total and whether it is
/// complete (false when `stop` ended it early; the total then counts the finished moves).
pub fn divide_stoppable(
    pos: &Position,
    depth: u32,
    stop: &AtomicBool,
    mut on_move: impl FnMut(Move, u64),
) -> (u64, bool) {
    if depth == 0 {
        return (1, true);
    }
    let mut moves: Vec<Move> = legal_moves(pos).iter().copied().collect();
    moves.sort_by_key(|m| m.to_string());
    let mut total = 0;
    for m in moves {
        match perft_stoppable(&pos.after(m), depth - 1, stop) {
            Some(n) => {
                total += n;
                on_move(m, n);
            }
            None => return (total, false),
        }
    }
    (total, true)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stoppable_divide_agrees_and_stops() {
        let pos = Position::startpos();
        let stop = AtomicBool::new(false);
        let mut rows = Vec::new();
        let (total, complete) = divide_stoppable(&pos, 4, &stop, |m, n| rows.push((m, n)));
        assert!(complete);
        assert_eq!(total, perft(&pos, 4));
        let mut expected = divide(&pos, 4);
        expected.sort_by_key(|(m, _)| m.to_string());
        assert_eq!(rows, expected);
        stop.store(true, Ordering::Relaxed);
        let (partial, complete) = divide_stoppable(&pos, 5, &stop, |_, _| {});
        assert!(!complete);
        assert_eq!(partial, 0);
    }
}
