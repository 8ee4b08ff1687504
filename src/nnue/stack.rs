//! The accumulators along a search path: one per ply, each computed from its parent by
//! [`Network::update`] when a move is made, a copy for a null move, dropped when the move is
//! taken back. The search holds [`PlyAccumulators`] instead (one per search thread, updated
//! lazily); this stack serves simple walkers such as the evalmatch example.

use super::net::{Accumulator, Kernel, Network};
use crate::position::Position;
use crate::types::Move;

pub struct AccumulatorStack<'a> {
    net: &'a Network,
    kernel: Kernel,
    accs: Vec<Accumulator>,
}

impl<'a> AccumulatorStack<'a> {
    /// A stack holding the accumulators of `root`.
    pub fn new(net: &'a Network, root: &Position) -> AccumulatorStack<'a> {
        let kernel = Kernel::best();
        let mut accs = Vec::with_capacity(160);
        accs.push(net.refresh_all(root, kernel));
        AccumulatorStack { net, kernel, accs }
    }

    /// Starts again from `root` (a new search).
    pub fn reset(&mut self, root: &Position) {
        self.accs.clear();
        self.accs.push(self.net.refresh_all(root, self.kernel));
    }

    /// The legal move `m` was made in `before`, giving `after`.
    pub fn push_move(&mut self, before: &Position, m: Move, after: &Position) {
        let top = self.top();
        let next = self.net.update(before, m, after, top, self.kernel);
        self.accs.push(next);
    }

    /// A null move: the men do not change.
    pub fn push_null(&mut self) {
        let top = *self.top();
        self.accs.push(top);
    }

    /// Takes the last move back; the root's accumulators stay.
    pub fn pop(&mut self) {
        if self.accs.len() > 1 {
            self.accs.pop();
        }
    }

    pub fn top(&self) -> &Accumulator {
        self.accs
            .last()
            .expect("the root's accumulators are never popped")
    }

    /// Plies above the root.
    pub fn depth(&self) -> usize {
        self.accs.len() - 1
    }

    /// The evaluation of `pos`, which must be the position of the top of the stack.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.net.evaluate(self.top(), pos, self.kernel)
    }
}

/// The accumulators of the positions along a search path, indexed by ply and computed only
/// when a position is evaluated (many nodes take their evaluation from the hash table or are
/// cut before it). Writing a new position at a ply marks that ply stale; evaluating a ply
/// walks back to the nearest fresh one and brings it forward move by move, or refreshes the
/// ply's parent when that walk would cost more than a refresh. The search keeps the root
/// fresh ([`PlyAccumulators::refresh`] at the start of each search), so that the walk always
/// finds a fresh ply within `ply` steps.
pub struct PlyAccumulators {
    kernel: Kernel,
    accs: Vec<Accumulator>,
    fresh: Vec<bool>,
}

/// How far back an evaluation looks for fresh accumulators before it refreshes instead. A
/// refresh adds a row for every man on the board and in hand (about 15 a side), a move changes
/// at most four, and the plies brought forward on the way serve their other children too.
/// Measured on `gogo bench 12` while the root was still left stale: 6 about 6% faster than 3,
/// 12 no faster than 6. With the root fresh (474bf70) long walks are rare: 4, 6 and 10 differ
/// by under 0.04% of the instructions of `gogo bench`.
const MAX_WALK: usize = 6;

impl PlyAccumulators {
    /// Room for plies `0..plies`, all stale.
    pub fn new(plies: usize) -> PlyAccumulators {
        PlyAccumulators {
            kernel: Kernel::best(),
            accs: vec![Accumulator::default(); plies],
            fresh: vec![false; plies],
        }
    }

    /// The position at `ply` has changed.
    #[inline]
    pub fn invalidate(&mut self, ply: usize) {
        self.fresh[ply] = false;
    }

    /// Computes the accumulators of `pos`, the position at `ply`, from scratch.
    pub fn refresh(&mut self, net: &Network, pos: &Position, ply: usize) {
        net.refresh_into(pos, &mut self.accs[ply], self.kernel);
        self.fresh[ply] = true;
    }

    /// Every ply is stale (another network).
    pub fn invalidate_all(&mut self) {
        self.fresh.fill(false);
    }

    /// The evaluation of `path[ply]` for its side to move, where each `path[i]` (`0 < i <=
    /// ply`) is `path[i - 1]` after the legal move `move_to(i)`, or after a null move when that
    /// is `Move::NONE`.
    pub fn evaluate(
        &mut self,
        net: &Network,
        path: &[Position],
        move_to: impl Fn(usize) -> Move,
        ply: usize,
    ) -> i32 {
        let mut base = ply;
        while !self.fresh[base] {
            if base == 0 || ply - base >= MAX_WALK {
                // Too far (or nothing fresh): start from a refresh of the parent, which then
                // serves this ply's siblings too (the children of a node are mostly evaluated
                // one after another: refreshing each of them cost 0.9% of `bench`'s
                // instructions more than refreshing their parent once).
                let at = ply.saturating_sub(1);
                self.refresh(net, &path[at], at);
                base = at;
                break;
            }
            base -= 1;
        }
        for i in base + 1..=ply {
            let m = move_to(i);
            // Written in place: a returned accumulator cost a zeroing and a copy.
            let (done, rest) = self.accs.split_at_mut(i);
            let (prev, next) = (&done[i - 1], &mut rest[0]);
            if m.is_none() {
                *next = *prev;
            } else {
                net.update_into(&path[i - 1], m, &path[i], prev, next, self.kernel);
            }
            self.fresh[i] = true;
        }
        net.evaluate(&self.accs[ply], &path[ply], self.kernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    /// The tests' random stream (the engine's SplitMix64 step over a counter).
    struct SplitMix64(u64);

    impl SplitMix64 {
        fn new(seed: u64) -> SplitMix64 {
            SplitMix64(seed)
        }

        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_add(1);
            (crate::skill::splitmix64(self.0) % n as u64) as usize
        }
    }

    /// A small tree walk (depth 3, a few moves per node) with null moves, comparing every
    /// node's stacked evaluation with a fresh one.
    fn walk(
        stack: &mut AccumulatorStack,
        net: &Network,
        pos: &Position,
        depth: u32,
        rng: &mut SplitMix64,
    ) -> u32 {
        assert_eq!(stack.evaluate(pos), net.evaluate_position(pos), "{pos}");
        if depth == 0 {
            return 1;
        }
        let mut nodes = 1;
        let moves = legal_moves(pos);
        for _ in 0..3.min(moves.len()) {
            let m = moves.as_slice()[rng.below(moves.len())];
            let next = pos.after(m);
            let d = stack.depth();
            stack.push_move(pos, m, &next);
            nodes += walk(stack, net, &next, depth - 1, rng);
            stack.pop();
            assert_eq!(stack.depth(), d);
        }
        if !pos.in_check() {
            let mut null = *pos;
            null.do_null_move();
            stack.push_null();
            nodes += walk(stack, net, &null, depth - 1, rng);
            stack.pop();
        }
        nodes
    }

    #[test]
    fn stacked_evaluations_equal_fresh_ones_through_a_tree() {
        let net = crate::nnue::default_net();
        let mut rng = SplitMix64::new(2);
        let mut pos = Position::startpos();
        let mut stack = AccumulatorStack::new(&net, &pos);
        let mut nodes = 0;
        for _ in 0..12 {
            stack.reset(&pos);
            nodes += walk(&mut stack, &net, &pos, 3, &mut rng);
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.after(moves.as_slice()[rng.below(moves.len())]);
        }
        assert!(nodes > 300, "{nodes} nodes");
    }

    /// A tree walk like the search's: positions written at each ply of a path, evaluated only
    /// at some nodes (so that evaluations walk back over several plies, or refresh), with null
    /// moves; every evaluation equals a fresh one.
    fn lazy_walk(
        accs: &mut PlyAccumulators,
        net: &Network,
        path: &mut Vec<(Position, Move)>,
        depth: u32,
        rng: &mut SplitMix64,
        evaluated: &mut u32,
    ) {
        let ply = path.len() - 1;
        let pos = path[ply].0;
        if rng.below(3) == 0 || depth == 0 {
            let positions: Vec<Position> = path.iter().map(|p| p.0).collect();
            let moves: Vec<Move> = path.iter().map(|p| p.1).collect();
            let e = accs.evaluate(net, &positions, |i| moves[i], ply);
            assert_eq!(e, net.evaluate_position(&pos), "{pos}");
            *evaluated += 1;
        }
        if depth == 0 {
            return;
        }
        let moves = legal_moves(&pos);
        for _ in 0..2.min(moves.len()) {
            let m = moves.as_slice()[rng.below(moves.len())];
            path.push((pos.after(m), m));
            accs.invalidate(ply + 1);
            lazy_walk(accs, net, path, depth - 1, rng, evaluated);
            path.pop();
        }
        if !pos.in_check() {
            let mut null = pos;
            null.do_null_move();
            path.push((null, Move::NONE));
            accs.invalidate(ply + 1);
            lazy_walk(accs, net, path, depth - 1, rng, evaluated);
            path.pop();
        }
    }

    #[test]
    fn lazy_evaluations_along_a_path_equal_fresh_ones() {
        let net = crate::nnue::default_net();
        let mut rng = SplitMix64::new(3);
        let mut accs = PlyAccumulators::new(16);
        let mut pos = Position::startpos();
        let mut evaluated = 0;
        for round in 0..10 {
            let mut path = vec![(pos, Move::NONE)];
            // The search refreshes the root before it starts; a stale root must work too.
            if round % 2 == 0 {
                accs.refresh(&net, &pos, 0);
            } else {
                accs.invalidate(0);
            }
            // Deep enough that some evaluations look back further than MAX_WALK plies.
            lazy_walk(&mut accs, &net, &mut path, 7, &mut rng, &mut evaluated);
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.after(moves.as_slice()[rng.below(moves.len())]);
        }
        assert!(evaluated > 1000, "{evaluated} evaluations");
    }
}
