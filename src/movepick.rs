//! Move ordering for the search: the hash move, then captures and promotions by value, the
//! killers and the counter move, then the rest by history. The weights are in `params.rs`
//! (`ORDER_*`); the tables they read (history, counter moves, killers) belong to the
//! `Searcher`, which passes them in, so that ordering is a pure function of its inputs.

use crate::eval::capture_value;
use crate::movegen::{self, MoveList};
use crate::params::*;
use crate::position::Position;
use crate::see::see_ge;
use crate::types::Move;
use std::mem::MaybeUninit;

/// history[color][kind (0..10) or 10 + dropped kind][to]
pub type HistoryTable = [[[i32; 25]; 15]; 2];

/// counter[color][history index of the previous move][its destination]: the reply that last
/// refuted it.
pub type CounterTable = [[[Move; 25]; 15]; 2];

/// The row of `m` in the history and counter tables: the kind of the man moved, or 10 plus
/// the kind dropped (a drop and a move of the same kind are different ideas).
#[inline]
pub fn history_index(pos: &Position, m: Move) -> usize {
    if m.is_drop() {
        10 + m.drop_kind().index()
    } else {
        pos.piece_on(m.from()).map_or(0, |p| p.kind.index())
    }
}

/// Captures and promotions: ordered by value, and spared the quiet-move pruning.
#[inline]
pub fn is_noisy(pos: &Position, m: Move) -> bool {
    m.is_promotion() || (!m.is_drop() && pos.piece_on(m.to()).is_some())
}

/// Adds `bonus` (negative for a malus) to the history of `m`, with gravity: the closer the
/// entry already is to `HISTORY_MAX` in the bonus's direction, the less it moves, so that
/// entries stay within the bound and old successes fade.
#[inline]
pub fn update_history(history: &mut HistoryTable, pos: &Position, m: Move, bonus: i32) {
    let idx = history_index(pos, m);
    let h = &mut history[pos.side_to_move().index()][idx][m.to().index()];
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

/// The history bonus of a cutoff at `depth`, with `HISTORY_BONUS_SCALE` = `scale`.
#[inline]
pub fn history_bonus(depth: i32, scale: i32) -> i32 {
    (depth * depth * scale).min(HISTORY_MAX / 4)
}

/// The counter move for the reply to `prev` (with its history index `prev_index`), or
/// `Move::NONE` after a null move or at the root.
#[inline]
pub fn counter_move(counter: &CounterTable, pos: &Position, prev: Move, prev_index: usize) -> Move {
    if prev.is_none() {
        return Move::NONE;
    }
    counter[pos.side_to_move().index()][prev_index][prev.to().index()]
}

/// What besides the position decides the order of a node's moves.
pub struct OrderHints<'a> {
    pub tt_move: Move,
    pub killers: [Move; 2],
    pub counter: Move,
    pub history: &'a HistoryTable,
    /// Put captures and promotions that lose material in the exchange after the killers;
    /// callers that already removed such moves pass false to save the exchange evaluation.
    pub see_losers: bool,
}

/// The sort score of `m` (higher first).
#[inline]
fn score(pos: &Position, m: Move, hints: &OrderHints) -> i32 {
    if m == hints.tt_move {
        ORDER_TT_MOVE
    } else if is_noisy(pos, m) {
        let victim = if m.is_drop() {
            0
        } else {
            pos.piece_on(m.to()).map_or(0, |p| capture_value(p.kind))
        };
        let attacker = pos.piece_on(m.from()).map_or(0, |p| p.kind.index() as i32);
        let promo = if m.is_promotion() {
            ORDER_PROMOTION_BONUS
        } else {
            0
        };
        let base = if !hints.see_losers || see_ge(pos, m, 0) {
            ORDER_GOOD_NOISY
        } else {
            ORDER_BAD_NOISY
        };
        base + (victim + promo) * ORDER_VICTIM_SCALE - attacker
    } else if m == hints.killers[0] {
        ORDER_KILLER + 1
    } else if m == hints.killers[1] {
        ORDER_KILLER
    } else if m == hints.counter {
        ORDER_KILLER - 1
    } else {
        hints.history[pos.side_to_move().index()][history_index(pos, m)][m.to().index()]
    }
}

/// Orders `moves` in place, highest score first; moves of equal score keep their order.
pub fn order(pos: &Position, moves: &mut MoveList, hints: &OrderHints) {
    // Sort keys: the inverted score in the high 32 bits, then the original index (so that an
    // unstable sort without allocation gives the order of a stable sort by score), then the
    // move itself, read back after the sort. The key array is left uninitialised beyond the
    // list's length: zeroing all of it cost more than sorting a short list.
    let n = moves.len();
    let mut room = [const { MaybeUninit::<u64>::uninit() }; movegen::MAX_MOVES];
    for (i, (&m, key)) in moves.iter().zip(room.iter_mut()).enumerate() {
        let s = score(pos, m, hints);
        // Higher scores first: invert the (offset) score, which then fits in 32 bits.
        let inverted = (i32::MAX as i64 - s as i64) as u64;
        key.write((inverted << 32) | (i as u64) << 16 | m.raw() as u64);
    }
    // SAFETY: the loop wrote `room[..n]` (a list holds at most MAX_MOVES moves), and
    // `MaybeUninit<u64>` has the layout of `u64`.
    let keys = unsafe { std::slice::from_raw_parts_mut(room.as_mut_ptr().cast::<u64>(), n) };
    keys.sort_unstable();
    for (slot, &k) in moves.as_mut_slice().iter_mut().zip(keys.iter()) {
        *slot = Move::from_raw(k as u16);
    }
}
