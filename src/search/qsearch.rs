//! The quiescence search: captures, promotions and (for a few plies) safe checks until the
//! position is quiet, with stand-pat, delta pruning and static-exchange filtering; every
//! evasion when in check.

use super::{score_from_tt, Searcher, INFINITY, MATE, MAX_PLY};
use crate::eval::capture_value;
use crate::movegen::{self, MoveList, NOISY};
use crate::movepick::history_index;
use crate::params::*;
use crate::position::Position;
use crate::see::see_ge;
use crate::tt::Bound;
use crate::types::Move;

impl Searcher {
    /// Appends the quiet checking moves and drops that land safely.
    fn add_safe_checks(&self, pos: &Position, moves: &mut MoveList) {
        let start = moves.len();
        movegen::quiet_checks(pos, moves);
        moves.retain_from(start, |m| Self::lands_safely(pos, m));
    }

    /// The quiescence search of the node at `ply` (`qdepth` 0 at the horizon, negative below).
    pub(super) fn qsearch(&mut self, ply: usize, mut alpha: i32, beta: i32, qdepth: i32) -> i32 {
        if !self.enter_node(ply) {
            return 0;
        }
        let pos = self.stack[ply];
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.eval_at(ply) };
        }
        let key = pos.key();
        let tt = self.tt.probe(key);
        if let Some(e) = tt {
            let s = score_from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
                Bound::None => false,
            };
            if usable {
                return s;
            }
        }
        let mut moves = MoveList::new();
        let stand_pat;
        if in_check {
            movegen::generate(&pos, movegen::ALL, &mut moves);
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            stand_pat = -INFINITY;
        } else {
            stand_pat = match tt {
                Some(e) => e.eval,
                None => self.eval_at(ply),
            };
            if stand_pat >= beta {
                return stand_pat;
            }
            if stand_pat > alpha {
                alpha = stand_pat;
            }
            movegen::generate(&pos, NOISY, &mut moves);
            if qdepth > -QS_CHECK_PLIES {
                self.add_safe_checks(&pos, &mut moves);
            }
            // Captures, promotions and checks that lose material in the exchange are skipped.
            moves.retain(|m| see_ge(&pos, m, 0));
        }
        self.order(&pos, &mut moves, Move::NONE, ply.min(MAX_PLY), in_check);
        let mut best = stand_pat;
        for &m in moves.iter() {
            if !in_check {
                let victim = if m.is_drop() {
                    None
                } else {
                    pos.piece_on(m.to())
                };
                let gain = victim.map_or(0, |p| capture_value(p.kind))
                    + if m.is_promotion() { 400 } else { 0 };
                // Delta pruning.
                if stand_pat + gain + self.params.delta_margin <= alpha {
                    continue;
                }
            }
            let next = pos.after(m);
            self.tt.prefetch(next.key());
            self.set_ply(ply + 1, next, m, history_index(&pos, m));
            let score = -self.qsearch(ply + 1, -beta, -alpha, qdepth - 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
