//! The node search: principal variation search over the transposition table, in numbered
//! steps: 1 quiescence at depth 0; 2 node bookkeeping and stop checks; 3 repetition
//! (sennichite, perpetual check) and mate-distance pruning; 4 transposition table probe;
//! 5 static evaluation; 6 reverse futility pruning; 7 null move (verified at high depth);
//! 8 internal iterative reduction; 9 the move loop (after a look for a mate in one) with
//! late-move pruning, futility pruning, static-exchange pruning, singular and check
//! extensions and late-move reductions; 10 mate when there is no legal move (shogi has no
//! stalemate); 11 history and killer updates and the TT store.

use super::{
    score_from_tt, score_to_tt, Searcher, INFINITY, MATE, MATE_BOUND, MAX_PLY, REPETITION_WIN,
};
use crate::bitboard::Bitboard;
use crate::mate::mate_in_one_of;
use crate::movegen::{self, legal_moves, CheckInfo, MoveList};
use crate::movepick::{self, history_bonus, history_index, is_noisy, update_history, OrderHints};
use crate::params::*;
use crate::position::Position;
use crate::see::see_ge;
use crate::tt::{Bound, TtEntry};
use crate::types::Move;
use std::sync::atomic::Ordering;

/// What the move loop of a node needs to know of the node.
#[derive(Copy, Clone)]
struct Node<'a> {
    pos: &'a Position,
    ply: usize,
    depth: i32,
    beta: i32,
    pv_node: bool,
    cut_node: bool,
    in_check: bool,
    improving: bool,
    static_eval: i32,
    tt: Option<TtEntry>,
    tt_move: Move,
    /// The move a singular-extension search leaves out (`Move::NONE` in a normal search).
    skip: Move,
}

/// What the singular-extension search says of the table move.
enum Singular {
    /// Every other move fails low by the margin: the table move is extended.
    Extend,
    /// The other moves hold the reduced bound too, which is already at or above `beta`: the
    /// node fails high without searching the table move.
    Cut(i32),
    /// Neither, or the search did not apply.
    No,
    Stopped,
}

impl Searcher {
    /// Orders `moves` in place for the node at `ply` (see [`movepick::order`]).
    pub(super) fn order(
        &self,
        pos: &Position,
        moves: &mut MoveList,
        tt_move: Move,
        ply: usize,
        see_losers: bool,
    ) {
        let hints = OrderHints {
            tt_move,
            killers: self.killers[ply],
            counter: self.counter_move(pos, ply),
            history: &self.history,
            see_losers,
        };
        movepick::order(pos, moves, &hints);
    }

    fn counter_move(&self, pos: &Position, ply: usize) -> Move {
        if ply == 0 {
            return Move::NONE;
        }
        let (prev, idx) = self.path[ply];
        movepick::counter_move(&self.counter, pos, prev, idx)
    }

    /// The node search of the position at `ply` (see the steps in the module documentation).
    pub(super) fn search(
        &mut self,
        ply: usize,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        pv_node: bool,
        cut_node: bool,
    ) -> i32 {
        // Step 1: quiescence at the horizon.
        if depth <= 0 {
            return self.qsearch(ply, alpha, beta, 0);
        }
        // Step 2: bookkeeping.
        if !self.enter_node(ply) {
            return 0;
        }
        let pos = self.stack[ply];
        let in_check = pos.in_check();
        // Step 3: repetition and mate-distance pruning.
        if let Some(s) = self.repetition_score(pos.side_to_move()) {
            return s;
        }
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.eval_at(ply) };
        }
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        // Step 4: transposition table.
        let skip = self.skip_move[ply];
        let tt = self.tt.probe(pos.key());
        let mut tt_move = Move::NONE;
        if let Some(e) = tt {
            if movegen::is_legal(&pos, e.mv) {
                tt_move = e.mv;
            }
            let s = score_from_tt(e.score, ply);
            if !pv_node && skip.is_none() && e.depth >= depth && e.bound.cuts(s, alpha, beta) {
                return s;
            }
        }

        // Step 5: static evaluation.
        let static_eval = if in_check {
            -INFINITY
        } else if let Some(e) = tt {
            e.eval
        } else {
            self.eval_at(ply)
        };
        self.evals[ply] = static_eval;
        // Improving: our static evaluation is better than two plies ago (or we were in check
        // then). Pruning is less eager, reductions smaller.
        let improving = !in_check
            && (ply < 2 || static_eval > self.evals[ply - 2] || self.evals[ply - 2] == -INFINITY);

        if !pv_node && !in_check && skip.is_none() {
            // Step 6: reverse futility pruning.
            let p = &self.params;
            if depth <= p.rfp_depth_limit
                && static_eval - p.rfp_margin * (depth - improving as i32) >= beta
                && static_eval.abs() < MATE_BOUND
            {
                return static_eval;
            }
            // Step 7: null move.
            if let Some(s) = self.null_move(&pos, ply, depth, beta, static_eval, cut_node) {
                return s;
            }
        }

        // Step 8: internal iterative reduction.
        if tt_move.is_none() && depth >= IIR_MIN_DEPTH && (pv_node || cut_node) {
            depth -= 1;
        }

        // Step 9: the move loop (after a look for a mate in one).
        let node = Node {
            pos: &pos,
            ply,
            depth,
            beta,
            pv_node,
            cut_node,
            in_check,
            improving,
            static_eval,
            tt,
            tt_move,
            skip,
        };
        self.search_moves(&node, alpha)
    }

    /// Step 7: the null move. Gives the score to return when passing still fails high
    /// (verified by a reduced search of the node itself at high depth); `Some(0)` when the
    /// search was stopped.
    #[inline(always)]
    fn null_move(
        &mut self,
        pos: &Position,
        ply: usize,
        depth: i32,
        beta: i32,
        static_eval: i32,
        cut_node: bool,
    ) -> Option<i32> {
        let p = &self.params;
        if depth < p.nmp_min_depth || static_eval < beta || beta.abs() >= MATE_BOUND {
            return None;
        }
        let r = p.nmp_base_reduction + depth / p.nmp_depth_divisor;
        let mut next = *pos;
        next.do_null_move();
        self.tt.prefetch(next.key());
        self.set_ply(ply + 1, next, Move::NONE, 0);
        self.push_key(ply + 1);
        let s = -self.search(ply + 1, depth - 1 - r, -beta, -beta + 1, false, !cut_node);
        self.pop_key();
        if self.stopped {
            return Some(0);
        }
        if s < beta {
            return None;
        }
        let s = if s >= MATE_BOUND { beta } else { s };
        if depth < NMP_VERIFY_DEPTH {
            return Some(s);
        }
        let v = self.search(ply, depth - 1 - r, beta - 1, beta, false, false);
        (v >= beta).then_some(s)
    }

    /// Steps 9 to 11: the moves of `node` in order, searched with PVS, pruning, extensions
    /// and reductions; mate when there is none; histories, killers and the table entry.
    #[inline(always)]
    fn search_moves(&mut self, node: &Node, mut alpha: i32) -> i32 {
        let (pos, ply, depth, beta) = (*node.pos, node.ply, node.depth, node.beta);
        let mut moves = legal_moves(&pos);
        if moves.is_empty() {
            // Step 10: no legal move loses, in check or not.
            return -MATE + ply as i32;
        }
        let mut check_info = CheckInfo::new(&pos);
        if let Some(s) = self.interior_mate_in_one(node, moves.as_slice(), &mut check_info) {
            return s;
        }
        self.order(&pos, &mut moves, node.tt_move, ply, true);
        let mut best = -INFINITY;
        let mut best_move = Move::NONE;
        let original_alpha = alpha;
        let mut quiets_tried: [Move; 64] = [Move::NONE; 64];
        let mut n_quiets = 0;
        for (i, &m) in moves.iter().enumerate() {
            if m == node.skip {
                continue;
            }
            let noisy = is_noisy(&pos, m);
            let checks = check_info.gives_check(&pos, m);
            // A check that captures, promotes or lands where it cannot simply be taken: never
            // pruned, and extended.
            let safe_check = checks && (noisy || Self::lands_safely(&pos, m));
            if best > -MATE_BOUND && self.prunes(node, i, m, noisy, safe_check, alpha) {
                continue;
            }
            let singular = match self.singular(node, m) {
                Singular::Extend => true,
                Singular::No => false,
                Singular::Cut(s) => return s,
                Singular::Stopped => return 0,
            };
            let next = pos.after(m);
            self.tt.prefetch(next.key());
            self.set_ply(ply + 1, next, m, history_index(&pos, m));
            self.push_key(ply + 1);
            // One ply more for a singular move or a safe check.
            let extends =
                singular || (CHECK_EXTENSION && safe_check && (ply as i32) < 2 * depth + 8);
            let new_depth = depth - 1 + extends as i32;
            let score = if i == 0 {
                -self.search(ply + 1, new_depth, -beta, -alpha, node.pv_node, false)
            } else {
                let r = if depth >= LMR_MIN_DEPTH && i >= LMR_MIN_MOVES && !noisy && !node.in_check
                {
                    self.reduction(node, i, m, checks, new_depth)
                } else {
                    0
                };
                self.zero_window_then_full(node, new_depth, r, alpha)
            };
            self.pop_key();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    if node.pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
            if !noisy && n_quiets < 64 {
                quiets_tried[n_quiets] = m;
                n_quiets += 1;
            }
        }

        if !node.skip.is_none() {
            return if best == -INFINITY { alpha } else { best };
        }
        // Step 11: histories, killers, TT.
        if best >= beta && !is_noisy(&pos, best_move) {
            self.reward_quiet(&pos, ply, depth, best_move, &quiets_tried[..n_quiets]);
        }
        let bound = if best.abs() == REPETITION_WIN {
            // A repetition's outcome depends on the path to the node, not on its position:
            // the table keeps the move, not the score.
            Bound::None
        } else if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_eval = if node.in_check { 0 } else { node.static_eval };
        self.tt.store(
            pos.key(),
            best_move,
            score_to_tt(best, ply),
            stored_eval,
            depth,
            bound,
        );
        best
    }

    /// A mate in one ends the search of a node. Looked for only where the node is new to the
    /// table (a searched node has seen its checks) and deep enough for the look to pay; at
    /// depth 1 the quiescence search's checks find such mates anyway.
    #[inline(always)]
    fn interior_mate_in_one(
        &mut self,
        node: &Node,
        moves: &[Move],
        checks: &mut CheckInfo,
    ) -> Option<i32> {
        if node.in_check
            || node.depth < MATE1_MIN_DEPTH
            || node.tt.is_some()
            || !node.skip.is_none()
        {
            return None;
        }
        let (Some(m), _) = mate_in_one_of(node.pos, moves, checks) else {
            return None;
        };
        let ply = node.ply;
        let s = MATE - ply as i32 - 1;
        let d = (node.depth + MATE1_TT_DEPTH_BONUS).min(MAX_PLY as i32 - 1);
        self.tt
            .store(node.pos.key(), m, score_to_tt(s, ply), 0, d, Bound::Exact);
        if node.pv_node {
            self.pv[ply][0] = m;
            self.pv_len[ply] = 1;
        }
        Some(s)
    }

    /// Whether move `i`, `m`, of a node is pruned unsearched: late-move, futility and
    /// static-exchange pruning (never in check, at PV nodes, or for a safe check: one that
    /// captures, promotes or lands on a square the opponent cannot simply take). A quiet check
    /// that hangs the man (a drop or move into an undefended attacked square) is pruned like
    /// any quiet move.
    #[inline(always)]
    fn prunes(
        &self,
        node: &Node,
        i: usize,
        m: Move,
        noisy: bool,
        safe_check: bool,
        alpha: i32,
    ) -> bool {
        if node.in_check || node.pv_node || safe_check {
            return false;
        }
        let depth = node.depth;
        let p = &self.params;
        if !noisy {
            // Late move pruning.
            let lmp_limit = (p.lmp_base + (depth * depth) as usize) >> (!node.improving as usize);
            if depth <= p.lmp_depth_limit && i >= lmp_limit {
                return true;
            }
            // Futility pruning.
            if depth <= p.futility_depth_limit
                && node.static_eval + p.futility_base + p.futility_margin * depth <= alpha
            {
                return true;
            }
        }
        // Static exchange pruning.
        if depth <= p.see_pruning_depth {
            let threshold = if noisy {
                -p.see_noisy_margin * depth
            } else {
                -p.see_quiet_margin * depth * depth
            };
            if !see_ge(node.pos, m, threshold) {
                return true;
            }
        }
        false
    }

    /// The singular-extension test of `m`: the table move is the only good one when every
    /// other move, searched to half depth, fails below its score by a margin.
    #[inline(always)]
    fn singular(&mut self, node: &Node, m: Move) -> Singular {
        let (ply, depth) = (node.ply, node.depth);
        if m != node.tt_move
            || ply == 0
            || !node.skip.is_none()
            || depth < self.params.singular_min_depth
            || (ply as i32) >= 2 * self.root_depth
        {
            return Singular::No;
        }
        let Some(e) = node.tt else {
            return Singular::No;
        };
        let ts = score_from_tt(e.score, ply);
        if e.depth < depth - SINGULAR_TT_DEPTH_SLACK
            || !matches!(e.bound, Bound::Lower | Bound::Exact)
            || ts.abs() >= MATE_BOUND
        {
            return Singular::No;
        }
        let sbeta = ts - self.params.singular_margin * depth;
        self.skip_move[ply] = m;
        let v = self.search(ply, (depth - 1) / 2, sbeta - 1, sbeta, false, node.cut_node);
        self.skip_move[ply] = Move::NONE;
        if self.stopped {
            Singular::Stopped
        } else if v < sbeta {
            Singular::Extend
        } else if sbeta >= node.beta {
            Singular::Cut(sbeta)
        } else {
            Singular::No
        }
    }

    /// The late-move reduction of quiet move `i`, `m`, searched to `new_depth` otherwise.
    #[inline(always)]
    fn reduction(&self, node: &Node, i: usize, m: Move, checks: bool, new_depth: i32) -> i32 {
        let mut r = self.lmr[(node.depth as usize).min(63)][i.min(63)];
        if node.pv_node {
            r -= 1;
        }
        if node.cut_node {
            r += 1;
        }
        if !node.improving {
            r += 1;
        }
        if checks {
            r -= 1;
        }
        if m == self.killers[node.ply][0] || m == self.killers[node.ply][1] {
            r -= 1;
        }
        r.clamp(0, new_depth - 1)
    }

    /// A later move (already made at `ply + 1`): a zero-window search reduced by `r`, again
    /// unreduced when it beats `alpha`, and with the full window at a PV node when it lands
    /// inside it.
    #[inline(always)]
    fn zero_window_then_full(&mut self, node: &Node, new_depth: i32, r: i32, alpha: i32) -> i32 {
        let (child, beta) = (node.ply + 1, node.beta);
        let mut s = -self.search(child, new_depth - r, -alpha - 1, -alpha, false, true);
        if s > alpha && r > 0 {
            s = -self.search(child, new_depth, -alpha - 1, -alpha, false, !node.cut_node);
        }
        if s > alpha && s < beta && node.pv_node {
            s = -self.search(child, new_depth, -beta, -alpha, true, false);
        }
        s
    }

    /// The PV of `ply` becomes `m` followed by the child's PV.
    #[inline(always)]
    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][0] = m;
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    /// A quiet move that failed high: its history up, the other quiets tried before it down,
    /// the counter move of the previous move, and the killers.
    fn reward_quiet(&mut self, pos: &Position, ply: usize, depth: i32, best: Move, tried: &[Move]) {
        let bonus = history_bonus(depth, self.params.history_bonus_scale);
        update_history(&mut self.history, pos, best, bonus);
        for &q in tried {
            if q != best {
                update_history(&mut self.history, pos, q, -bonus);
            }
        }
        let (prev, idx) = self.path[ply];
        if ply > 0 && !prev.is_none() {
            self.counter[pos.side_to_move().index()][idx][prev.to().index()] = best;
        }
        if self.killers[ply][0] != best {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = best;
        }
    }

    /// Whether the man that `m` moves or drops cannot simply be taken for nothing on its
    /// destination: the square is not attacked by the opponent, or we defend it.
    pub(super) fn lands_safely(pos: &Position, m: Move) -> bool {
        let us = pos.side_to_move();
        let to = m.to();
        let mut occ = pos.occupied() | Bitboard::from(to);
        let mut helpers = pos.pieces(us);
        if !m.is_drop() {
            occ ^= Bitboard::from(m.from());
            helpers ^= Bitboard::from(m.from());
        }
        pos.attackers(!us, to, occ).is_empty() || (pos.attackers(us, to, occ) & helpers).any()
    }

    /// Counts a node, checks the limits now and then, and clears the node's PV; false when
    /// the search must stop.
    #[inline]
    pub(super) fn enter_node(&mut self, ply: usize) -> bool {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_stop();
        } else if self.nodes & 63 == 0 && self.signals.stop.load(Ordering::Relaxed) {
            // A cheap, more frequent look at `stop` alone: with more threads than cores every
            // thread must notice the end of the search within a short time slice.
            self.stopped = true;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        !self.stopped
    }
}
