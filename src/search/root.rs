//! The root and the iterative deepening of one thread: set up the root moves, then for each
//! depth search every MultiPV line within an aspiration window, then choose the move. The
//! root mate probe, the reports and the skill-level pick are here too; when to stop is the
//! [`Limiter`]'s to say.

use super::limit::{IterationEnd, Limiter, ProbeWindow};
use super::threads::helper_skips;
use super::{score_to_tt, RootMove, SearchConfig, SearchResult, Searcher, INFINITY, MATE};
use super::{MATE_BOUND, MAX_PLY};
use crate::event::{Event, SearchInfo};
use crate::mate::{MateLimits, MateResult, MateSolver};
use crate::movegen::{self, legal_moves};
use crate::movepick::history_index;
use crate::params::*;
use crate::position::Position;
use crate::score::Score;
use crate::skill::{skill_pick, splitmix64, SkillLimits};
use crate::tt::Bound;
use crate::types::Move;
use std::time::{Duration, Instant};

/// The root of one thread's search.
struct Root {
    pos: Position,
    /// Legal moves (less `searchmoves`' leavings and moves that lose by repetition), best
    /// first after every iteration.
    moves: Vec<RootMove>,
    /// The skill level's limits below full strength.
    skill: Option<SkillLimits>,
    /// Lines searched per iteration (more than reported below full skill: the candidates).
    multipv: usize,
    /// Lines reported.
    reported: usize,
    /// Whether the root mate probe may run at all.
    probe_allowed: bool,
}

/// What the iterations have found so far.
struct Progress {
    result: SearchResult,
    /// The lines of the last complete iteration, for the skill-level pick.
    candidates: Vec<RootMove>,
    /// Decayed count of best-move changes (the limiter's instability rule).
    best_changes: f64,
    last_best: Move,
    completed_depth: i32,
    probed: bool,
    /// The root mate probe's mating line.
    proven: Option<Vec<Move>>,
    /// The score of the previous timed search of this game, two plies ago (main thread).
    previous_score: Option<i32>,
}

impl Searcher {
    /// The iterative deepening of one thread: `thread` 0 is the main thread, others are
    /// helpers (no output, no limits but the depth, no MultiPV, skipped depths).
    pub(super) fn iterate(
        &mut self,
        thread: usize,
        history: &[Position],
        limiter: &Limiter,
        searchmoves: &[Move],
        config: &SearchConfig,
    ) -> SearchResult {
        let Some(mut root) = self.set_up(thread, history, limiter, searchmoves, config) else {
            return SearchResult::default();
        };
        let mut progress = Progress {
            result: SearchResult {
                best: Some(root.moves[0].mv),
                ..SearchResult::default()
            },
            candidates: Vec::new(),
            best_changes: 0.0,
            last_best: root.moves[0].mv,
            completed_depth: 0,
            probed: false,
            proven: None,
            previous_score: if thread == 0 {
                self.previous_score(history)
            } else {
                None
            },
        };
        // An analysis search runs the root mate probe before the first iteration; a timed one
        // once its score says the opponent's king is in danger (see `end_iteration`).
        if root.probe_allowed && !self.limiter.is_timed() {
            progress.probed = true;
            progress.proven = self.root_mate_probe(history, &root.moves, None);
        }
        let max_depth = self.limiter.max_depth();
        for depth in 1..=max_depth {
            if thread > 0 && helper_skips(thread, depth) && depth < max_depth {
                continue;
            }
            self.search_depth(&mut root, depth);
            if self.stopped && depth > 1 {
                break;
            }
            if self.end_iteration(&mut root, &mut progress, history, depth) {
                break;
            }
        }
        let result = self.choose(&root, progress);
        if thread == 0 {
            self.last_timed_root = self
                .limiter
                .is_timed()
                .then_some((root.pos.key(), result.score));
        }
        result
    }

    /// The score of this game's previous timed search, when it was ours two plies before
    /// `history`'s last position.
    pub(super) fn previous_score(&self, history: &[Position]) -> Option<i32> {
        let (key, score) = self.last_timed_root?;
        let n = history.len();
        (n >= 3 && history[n - 3].key() == key).then_some(score)
    }

    /// Resets this thread for a search of `history.last()` and makes the root moves, in the
    /// order of the hash move, then a one-ply look; `None` when there is no move to search.
    fn set_up(
        &mut self,
        thread: usize,
        history: &[Position],
        limiter: &Limiter,
        searchmoves: &[Move],
        config: &SearchConfig,
    ) -> Option<Root> {
        self.reset(thread, history, limiter, config);
        let pos = self.stack[0];
        let skill = (self.config.skill_level < SKILL_FULL)
            .then(|| SkillLimits::for_level(self.config.skill_level));
        let mut moves: Vec<RootMove> = legal_moves(&pos)
            .iter()
            .filter(|m| searchmoves.is_empty() || searchmoves.contains(m))
            .map(|&mv| RootMove::new(mv))
            .collect();
        if moves.is_empty() {
            return None;
        }
        self.drop_repetition_losses(&pos, &mut moves);
        // Order the first iteration by the hash move, then by a one-ply look.
        let tt_move = self.tt.probe(pos.key()).map(|e| e.mv);
        for rm in moves.iter_mut() {
            rm.prev_score = if Some(rm.mv) == tt_move {
                INFINITY
            } else {
                -self.static_eval(&pos.after(rm.mv))
            };
        }
        moves.sort_by_key(|rm| -rm.prev_score);
        self.proven_mate = None;
        let probe_allowed = thread == 0
            && self.config.mate_probe
            && skill.is_none()
            && self.config.multipv == 1
            && searchmoves.is_empty();
        let reported = self.config.multipv.clamp(1, moves.len());
        let multipv = match &skill {
            Some(s) => s.multipv.max(self.config.multipv),
            None => self.config.multipv,
        }
        .clamp(1, moves.len());
        Some(Root {
            pos,
            moves,
            skill,
            multipv,
            reported,
            probe_allowed,
        })
    }

    /// Takes the search's configuration and limits (a helper's are pared down), the game up
    /// to the root, and fresh counters; the killers go, the history is halved.
    fn reset(
        &mut self,
        thread: usize,
        history: &[Position],
        limiter: &Limiter,
        config: &SearchConfig,
    ) {
        self.config = config.clone();
        self.set_params(config.params);
        if thread > 0 {
            self.config.verbose = false;
            self.config.multipv = 1;
            self.config.skill_level = SKILL_FULL;
        }
        // The clock runs from when the `go` command was read, not from when this thread
        // started (starting many helper threads takes time).
        self.limiter = limiter.clone();
        self.start = limiter.start;
        self.nodes = 0;
        self.flushed = 0;
        self.stopped = false;
        self.set_game(history);
        self.stack[0] = *history.last().expect("a game has a position");
        // The root's accumulators, computed now: evaluations deeper in the tree walk back to
        // the nearest fresh ply, and a root left stale (the root's own evaluation often comes
        // from the table, or is never asked for) made every such walk end in a refresh (8% of
        // the instructions of `gogo bench`).
        match &self.net {
            Some(net) => self.accs.refresh(net, &self.stack[0], 0),
            None => self.accs.invalidate(0),
        }
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 2;
                }
            }
        }
    }

    /// A move that ends the game at once by a repetition we lose (perpetual check, or a
    /// plain fourfold repetition under gote-wins as sente) is played only if every move
    /// does; some GUIs even call such a move illegal.
    fn drop_repetition_losses(&self, pos: &Position, moves: &mut Vec<RootMove>) {
        let us = pos.side_to_move();
        let losing: Vec<Move> = moves
            .iter()
            .map(|rm| rm.mv)
            .filter(|&m| {
                let after = self.game.repetition_after(&pos.after(m));
                after.loser(self.config.sennichite) == Some(us)
            })
            .collect();
        if losing.len() < moves.len() {
            moves.retain(|rm| !losing.contains(&rm.mv));
        }
    }

    /// One iteration to `depth`: each MultiPV line in turn, the better ones left out.
    fn search_depth(&mut self, root: &mut Root, depth: i32) {
        for rm in root.moves.iter_mut() {
            rm.prev_score = rm.score;
        }
        self.excluded.clear();
        self.root_depth = depth;
        for pv_index in 0..root.multipv {
            self.aspirate(&mut root.moves, pv_index, depth, root.reported);
            self.excluded.push(root.moves[pv_index].mv);
            if self.stopped {
                break;
            }
        }
    }

    /// Line `pv_index` at `depth` within an aspiration window around its last score, widened
    /// on every fail (and opened fully once it is wide).
    fn aspirate(&mut self, moves: &mut [RootMove], pv_index: usize, depth: i32, reported: usize) {
        self.seldepth = 0;
        let prev = moves[pv_index].prev_score;
        let mut window = self.params.aspiration_window;
        let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH && prev.abs() < MATE_BOUND {
            (
                (prev - window).max(-INFINITY),
                (prev + window).min(INFINITY),
            )
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.search_root(&mut moves[pv_index..], depth, alpha, beta);
            // Stable sort keeps the order of equal (unsearched) moves.
            moves[pv_index..].sort_by_key(|rm| -rm.score);
            if self.stopped {
                return;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - window).max(-INFINITY);
                moves[pv_index].bound = Bound::Upper;
            } else if score >= beta {
                beta = (score + window).min(INFINITY);
                moves[pv_index].bound = Bound::Lower;
            } else {
                moves[pv_index].bound = Bound::Exact;
                return;
            }
            window *= ASPIRATION_GROWTH;
            if window > 1000 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
            if self.config.verbose
                && pv_index < reported
                && self.elapsed() > Duration::from_millis(1000)
            {
                self.report(moves, pv_index, depth);
            }
        }
    }

    /// After iteration `depth`: orders and reports the lines, runs the root mate probe when
    /// the score calls for it, records the result, and asks the limiter whether to go on.
    /// True: stop.
    fn end_iteration(
        &mut self,
        root: &mut Root,
        p: &mut Progress,
        history: &[Position],
        depth: i32,
    ) -> bool {
        // Each line was searched with the better ones left out, so a later line can score
        // above an earlier one: order the lines by score, as they are reported and played
        // (a stable sort: equal scores keep their order; one line is left as it is).
        root.moves[..root.multipv].sort_by_key(|rm| -rm.score);
        p.completed_depth = depth;
        if self.config.verbose {
            for i in 0..root.reported {
                self.report(&root.moves, i, depth);
            }
        }
        if root.probe_allowed
            && !p.probed
            && !self.stopped
            && (ROOT_MATE_PROBE_MIN_SCORE..MATE_BOUND).contains(&root.moves[0].score)
        {
            p.probed = true;
            let deadline = match self
                .limiter
                .probe_window(self.clock_elapsed(), self.pondering())
            {
                ProbeWindow::Closed => None,
                ProbeWindow::Open => Some(None),
                ProbeWindow::Until(t) => Some(Some(t)),
            };
            if let Some(deadline) = deadline {
                p.proven = self.root_mate_probe(history, &root.moves, deadline);
                if p.proven.is_some() && !self.pondering() {
                    return true;
                }
            }
        }
        let best = &root.moves[0];
        p.result.best = Some(best.mv);
        p.result.score = best.score;
        p.result.depth = depth;
        if best.mv != p.last_best {
            p.best_changes += 1.0;
            p.last_best = best.mv;
        }
        if self.stopped {
            return true;
        }
        if root.skill.is_some() {
            // The lines of the last complete iteration are the candidates.
            p.candidates = root.moves[..root.multipv].to_vec();
        }
        let end = IterationEnd {
            depth,
            score: best.score,
            best_effort: best.effort as f64 / self.nodes.max(1) as f64,
            score_drop: p
                .previous_score
                .filter(|s| s.abs() < MATE_BOUND && best.score.abs() < MATE_BOUND)
                .map(|s| s - best.score),
            thread_nodes: self.nodes,
            root_moves: root.moves.len(),
            clock_elapsed: self.clock_elapsed(),
            pondering: self.pondering(),
        };
        self.limiter.stop_after_iteration(&end, &mut p.best_changes)
    }

    /// The move to play, settled once: the best line (or the skill level's pick among the
    /// candidates), unless the root mate probe proved a shorter mate; the ponder move from
    /// the line or the table, kept only when legal after the move.
    fn choose(&mut self, root: &Root, p: Progress) -> SearchResult {
        self.flush_nodes();
        let mut result = p.result;
        result.depth = p.completed_depth;
        result.nodes = self.nodes;
        let mut best = &root.moves[0];
        if root.skill.is_some() && !p.candidates.is_empty() {
            let scores: Vec<i32> = p.candidates.iter().map(|c| c.score).collect();
            let seed = root.pos.key() ^ splitmix64(self.skill_picks);
            self.skill_picks += 1;
            best = &p.candidates[skill_pick(&scores, self.config.skill_level, seed)];
        }
        let (line, score) = match &p.proven {
            Some(line) if best.score < MATE - line.len() as i32 => {
                (&line[..], MATE - line.len() as i32)
            }
            _ => (&best.pv[..], best.score),
        };
        let mv = line[0];
        let after = root.pos.after(mv);
        result.best = Some(mv);
        result.score = score;
        // The line's second move, else the table's move after `mv`; kept only when legal.
        result.ponder = line
            .get(1)
            .copied()
            .or_else(|| self.tt.probe(after.key()).map(|e| e.mv))
            .filter(|&m| movegen::is_legal(&after, m));
        result
    }

    /// Runs the mate solver on the root for at most `ROOT_MATE_PROBE_NODES` nodes (and until
    /// `deadline`). When it proves a mate that starts with one of `root_moves` (which leave out
    /// moves that lose by repetition), it is reported at once and returned.
    fn root_mate_probe(
        &mut self,
        history: &[Position],
        root_moves: &[RootMove],
        deadline: Option<Instant>,
    ) -> Option<Vec<Move>> {
        let limits = MateLimits {
            deadline,
            max_nodes: Some(ROOT_MATE_PROBE_NODES),
        };
        let solver = self
            .mate_solver
            .get_or_insert_with(|| MateSolver::new(ROOT_MATE_PROBE_TABLE_MB));
        let started = Instant::now();
        let result = solver.solve(history, &limits, &self.signals.stop);
        log::debug!(
            "root mate probe: {:?} after {} nodes in {:?}",
            result,
            solver.nodes(),
            started.elapsed()
        );
        let line = match result {
            MateResult::Mate(line) if root_moves.iter().any(|rm| rm.mv == line[0]) => line,
            _ => return None,
        };
        let plies = line.len() as i32;
        if self.config.verbose {
            self.print_info(plies, line.len(), 0, MATE - plies, Bound::Exact, &line);
        }
        self.proven_mate = Some(line.clone());
        Some(line)
    }

    /// Prints the `info` line of root line `i` after an iteration to `depth`. While the root
    /// mate probe's mate is better than what the search has for its best line, that mate is
    /// shown as the first line instead.
    fn report(&self, root_moves: &[RootMove], i: usize, depth: i32) {
        let rm = &root_moves[i];
        if rm.score == -INFINITY {
            return;
        }
        match &self.proven_mate {
            Some(line) if i == 0 && rm.score < MATE - line.len() as i32 => self.print_info(
                depth,
                rm.seldepth.max(line.len()),
                0,
                MATE - line.len() as i32,
                Bound::Exact,
                line,
            ),
            _ => self.print_info(depth, rm.seldepth, i, rm.score, rm.bound, &rm.pv),
        }
    }

    fn print_info(
        &self,
        depth: i32,
        seldepth: usize,
        index: usize,
        score: i32,
        bound: Bound,
        pv: &[Move],
    ) {
        let Some(sink) = &self.sink else {
            return;
        };
        let ms = self.elapsed().as_millis() as u64;
        let nodes = self.total_nodes();
        sink(Event::Info(SearchInfo {
            depth,
            seldepth: seldepth.max(1),
            multipv: index + 1,
            score: Score::from_search(score),
            bound,
            nodes,
            nps: nodes.saturating_mul(1000) / ms.max(1),
            time_ms: ms,
            hashfull: self.tt.hashfull(),
            pv: pv.to_vec(),
        }));
    }

    fn search_root(
        &mut self,
        root_moves: &mut [RootMove],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let root = self.stack[0];
        let mut best = -INFINITY;
        self.nodes += 1;
        self.keys.truncate(self.root_index + 1);
        self.quiet.truncate(self.root_index + 1);
        #[allow(clippy::needless_range_loop)] // the body borrows self mutably
        for i in 0..root_moves.len() {
            let mv = root_moves[i].mv;
            let nodes_before = self.nodes;
            self.set_ply(1, root.after(mv), mv, history_index(&root, mv));
            self.push_key(1);
            let new_depth = depth - 1;
            let score = if i == 0 {
                -self.search(1, new_depth, -beta, -alpha, true, false)
            } else {
                let mut s = -self.search(1, new_depth, -alpha - 1, -alpha, false, true);
                if s > alpha && !self.stopped {
                    s = -self.search(1, new_depth, -beta, -alpha, true, false);
                }
                s
            };
            self.pop_key();
            root_moves[i].effort += self.nodes - nodes_before;
            if self.stopped {
                break;
            }
            let rm = &mut root_moves[i];
            if i == 0 || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(&self.pv[1][..self.pv_len[1]]);
            } else {
                rm.score = -INFINITY;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        if !self.stopped && best > -INFINITY {
            let bound = if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            let first = root_moves.iter().max_by_key(|r| r.score).map(|r| r.mv);
            if self.excluded.is_empty() {
                self.tt.store(
                    root.key(),
                    first.unwrap_or(Move::NONE),
                    score_to_tt(best, 0),
                    self.static_eval(&root),
                    depth,
                    bound,
                );
            }
        }
        best
    }
}
