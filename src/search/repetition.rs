//! Repetition inside the search: the keys of the game and of the current path, and the score
//! of a node whose position ends the game by repetition (sennichite by `SennichiteRule`,
//! perpetual check lost by the checking side): a cycle within the search, or the fourth
//! occurrence of a position of the game. The game up to the root is looked up in its index,
//! the path above the root (at most `MAX_PLY` entries) is scanned.

use super::{Searcher, REPETITION_WIN};
use crate::game::RepetitionIndex;
use crate::position::Position;
use crate::types::Color;

impl Searcher {
    /// Takes `history` (oldest first, the root last) as the game before the search path.
    pub(super) fn set_game(&mut self, history: &[Position]) {
        self.keys.clear();
        self.quiet.clear();
        self.game = RepetitionIndex::default();
        for p in history {
            // (`in_check` once per position: a game may be 200,000 plies long.)
            let in_check = p.in_check();
            self.push_entry(p.key(), in_check);
            self.game.push_known(p.key(), p.side_to_move(), in_check);
        }
        self.root_index = self.keys.len().saturating_sub(1);
    }

    #[inline]
    fn push_entry(&mut self, key: u64, in_check: bool) {
        let n = self.keys.len();
        let before = if n >= 2 { self.quiet[n - 2] } else { 0 };
        self.keys.push(key);
        self.quiet.push(before + !in_check as u32);
    }

    #[inline]
    pub(super) fn push_key(&mut self, ply: usize) {
        let p = &self.stack[ply];
        let (key, in_check) = (p.key(), p.in_check());
        self.push_entry(key, in_check);
    }

    #[inline]
    pub(super) fn pop_key(&mut self) {
        self.keys.pop();
        self.quiet.pop();
    }

    /// Where the cycle that ends the game at `n` (the end of `keys`) starts, if it does: an
    /// index `j <= n - 4` of the parity of `n` at which the position at `n` occurred before.
    ///
    /// A cycle within the search (the earlier occurrence on the path or at the root) ends
    /// the game: whoever chose to enter it had every other move at that node searched too.
    /// The search path above the root is scanned (at most `MAX_PLY` entries). An occurrence
    /// only in the game before the root is different: the side to move here had its other
    /// moves there, in the game, not in this search, and may still leave the cycle, so the
    /// node ends the game only as the fourth occurrence of its position (the rule), and the
    /// cycle starts at the first of the four. The game is looked up in its index.
    fn previous_occurrence(&self, n: usize) -> Option<usize> {
        let key = self.keys[n];
        let mut j = n.checked_sub(4)?;
        while j > self.root_index {
            if self.keys[j] == key {
                return Some(j);
            }
            j = j.checked_sub(2)?;
        }
        let mut earlier = self.game.latest_first(key, j, n % 2);
        match earlier.next()? {
            root if root == self.root_index => Some(root),
            // The first of four: two more back from the latest.
            _ => earlier.nth(1),
        }
    }

    /// The score of the current node (side to move `us`) if its position ends the game by
    /// repetition (see `previous_occurrence`): a cycle in which one side checked with every
    /// move is lost by that side (perpetual check); any other cycle scores by
    /// `SennichiteRule`.
    pub(super) fn repetition_score(&self, us: Color) -> Option<i32> {
        let n = self.keys.len() - 1;
        if n < 4 {
            return None;
        }
        let j = self.previous_occurrence(n)?;
        // The side that moved into n made the moves into n, n-2, ..., j+2; the side to move
        // made those into n-1, ..., j+1. A side checked with all of them when none of those
        // positions is quiet: the counts of quiet positions at the two ends are equal.
        let they_checked = self.quiet[n] == self.quiet[j];
        let we_checked = self.quiet[n - 1] == if j >= 1 { self.quiet[j - 1] } else { 0 };
        Some(match (they_checked, we_checked) {
            (true, false) => REPETITION_WIN,
            (false, true) => -REPETITION_WIN,
            _ => match self.config.sennichite.winner() {
                None => 0,
                Some(c) if c == us => REPETITION_WIN,
                Some(_) => -REPETITION_WIN,
            },
        })
    }
}
