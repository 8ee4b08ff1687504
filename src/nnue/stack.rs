//! The accumulators along a search path: one per ply, each computed from its parent by
//! [`Network::update`] when a move is made, a copy for a null move, dropped when the move is
//! taken back. This is the piece the search will hold (one per search thread).

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
        self.net
            .evaluate(self.top(), pos.side_to_move(), self.kernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;
    use crate::nnue::float::FloatNet;
    use crate::nnue::rng::SplitMix64;
    use crate::nnue::HIDDEN;

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
        let net = FloatNet::random(HIDDEN, 11).quantise().unwrap();
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
}
