//! Mate solver (tsume): df-pn, depth-first proof-number search, over checks and evasions.
//!
//! The side to move at the root is the *attacker*. At OR nodes the attacker is to move and
//! only checking moves are searched; at AND nodes the *defender* is to move and every legal
//! move is searched. A defender with no legal move (always in check here) is mated. Pawn-drop
//! mates never appear: the move generator does not produce them. The attacker needs no king.
//!
//! # Search
//!
//! [`MateSolver::solve`] works in three phases, all with one transposition table:
//!
//! 1. df-pn without a depth limit, with Pawlewicz's 1+ε threshold trick (ε = 1/2) and
//!    df-pn+-style initial numbers: an AND node starts with its number of replies as proof
//!    number; each reply is tested for an immediate mate in one when first generated, and the
//!    position after it starts with its number of checks as disproof number. A proof comes
//!    with a length, an upper bound of the mate length (OR: 1 + the shortest proven child,
//!    AND: 1 + the longest child).
//! 2. Shortening: df-pn again with a depth limit of the best length found minus 2, until that
//!    is disproved. The table keeps, per position, the shortest proven length and the longest
//!    depth known to be disproved, so the bounded runs share what the others learned; working
//!    proof and disproof numbers from another depth serve as estimates.
//! 3. Extraction of the line with the exact length `L`: at OR nodes a check whose reply is
//!    provable within the remaining plies, at AND nodes a reply that is *not* provable within
//!    the remaining plies minus 2 (the defender's longest resistance).
//!
//! If a limit hits after the first proof, the line read from the proofs in the table is
//! returned instead (a correct mate, perhaps not the shortest); `Timeout` only when nothing is
//! proved.
//!
//! The table is indexed by the board (and side to move) and keeps both hands, for hand
//! domination: a position is proved if the same board with no more for the attacker in hand
//! and no less for the defender is proved (mate within the same length), and disproved the
//! other way round. (Uchifuzume does not spoil this: whether a pawn drop mates depends on the
//! board only, a check by a pawn cannot be blocked.)
//!
//! # Repetition
//!
//! A position that repeats one on the current path (from the root) counts as a failure for the
//! attacker. Such disproofs depend on the path: they are flagged, with the shallowest repeated
//! path index, and the flag spreads to every disproof that relies on them. At a node at or
//! above which no repeated position lies (the cycle returns to the node itself or below it),
//! the same cycle recurs whatever path leads there, and the flag is dropped. A still flagged
//! disproof is kept in the table with a hash of the path it was found on and is only reused on
//! that same path, so it never poisons other paths. Proofs never rely on repetition and are
//! reused anywhere.
//!
//! A flagged disproof at the root is still a correct "no mate": along a shortest mate the
//! remaining mate length strictly falls with every ply, so a shortest mate never returns to a
//! position of its own path, and forbidding repetitions on the path does not lose any mate.
//! The same argument makes the line extraction exact in the presence of the flags.
//!
//! Positions that occurred three times in the game history (`solve`'s `history`) are losses
//! for the attacker (a fourth occurrence ends the game); with any such position, hand
//! domination is off for that search.
//!
//! The transposition table (entry packing, buckets, domination) is in `table.rs`; this file
//! holds the values, the search and the public API.
//!
//! The search recursion runs on its own thread with a large stack; paths longer than
//! [`MAX_PLY`] plies are cut (flagged too, and a root disproof relying on such a cut is
//! reported as `Timeout`, not `NoMate`).

mod table;

use crate::movegen::{count_legal, generate, has_legal_move, CheckInfo, MoveList, ALL};
use crate::position::Position;
use crate::types::{Color, Move};
use crate::zobrist::KeyMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use table::{Ident, Probe, Table};

/// The answer of [`MateSolver::solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// The shortest mate found, from the root: attacker's check, defender's reply, ..., the
    /// final checkmating move. Always an odd number of moves.
    Mate(Vec<Move>),
    /// Proved: the side to move has no forced mate.
    NoMate,
    /// A limit (deadline, nodes, stop flag) hit before anything was proved.
    Timeout,
}

/// Limits of one [`MateSolver::solve`]; `Default` means no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MateLimits {
    pub deadline: Option<Instant>,
    pub max_nodes: Option<u64>,
}

/// Paths (in plies from the root) longer than this are cut.
pub const MAX_PLY: usize = 1000;

/// Stack of the search thread; the recursion is one frame per ply.
const STACK_BYTES: usize = 64 << 20;

/// Proof and disproof numbers are at most `INF`; `INF` means proved the other way.
const INF: u32 = 1 << 30;
/// Remaining depth "unlimited".
const REM_INF: u16 = u16::MAX;
/// `Entry::proof` when no proof is known.
const NO_PROOF: u16 = u16::MAX;
/// `Entry::dis` for a disproof that holds at every depth.
const DIS_ALL: u16 = u16::MAX;

/// Flags of a disproof: what it relies on besides the rules.
const F_DEPTH: u8 = 1; // the depth limit (holds for that depth or less)
const F_REP: u8 = 2; // a repetition on the current path
const F_CUT: u8 = 4; // a path longer than MAX_PLY
const PATH_DEPENDENT: u8 = F_REP | F_CUT;

const PATH_SEED: u64 = 0x6a09_e667_f3bc_c908;

#[inline(always)]
fn path_hash(ph: u64, key: u64) -> u64 {
    (ph ^ key)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(29)
}

/// `Val::rep` of a disproof that relies on no repetition.
const NO_REP: u16 = u16::MAX;

/// Proof number, disproof number, and for a proof its length (plies), for a disproof its flags
/// and, with `F_REP`, the shallowest path index of the repeated positions it relies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Val {
    pn: u32,
    dn: u32,
    len: u16,
    flags: u8,
    rep: u16,
}

impl Val {
    const fn proven(len: u16) -> Val {
        Val {
            pn: 0,
            dn: INF,
            len,
            flags: 0,
            rep: NO_REP,
        }
    }
    const fn disproved(flags: u8) -> Val {
        Val {
            pn: INF,
            dn: 0,
            len: 0,
            flags,
            rep: NO_REP,
        }
    }
    /// Disproved as a repetition of the position at path index `at`.
    const fn repetition(at: u16) -> Val {
        Val {
            pn: INF,
            dn: 0,
            len: 0,
            flags: F_REP,
            rep: at,
        }
    }
    const fn open(pn: u32, dn: u32) -> Val {
        Val {
            pn,
            dn,
            len: 0,
            flags: 0,
            rep: NO_REP,
        }
    }
    /// A disproof relying on both disproofs `self` and `o` (an OR node's).
    fn and_also(self, o: Val) -> Val {
        Val {
            flags: self.flags | o.flags,
            rep: self.rep.min(o.rep),
            ..self
        }
    }
    /// Of two disproofs, the one that holds more widely (an AND node's choice).
    fn wider(self, o: Val) -> Val {
        let rank = |v: Val| {
            (
                v.flags & PATH_DEPENDENT != 0,
                v.flags & F_CUT != 0,
                std::cmp::Reverse(v.rep),
                v.flags,
            )
        };
        if rank(o) < rank(self) {
            o
        } else {
            self
        }
    }
    /// The disproof as seen at the node with path index `ply`: repetitions of that node or of
    /// its descendants recur whatever path leads to it, so they do not make it path-dependent.
    fn localize(self, ply: usize) -> Val {
        if self.dn == 0
            && self.flags & F_REP != 0
            && self.flags & F_CUT == 0
            && self.rep as usize >= ply
        {
            Val {
                flags: self.flags & !F_REP,
                rep: NO_REP,
                ..self
            }
        } else {
            self
        }
    }
    #[inline(always)]
    fn is_final(self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

// ------------------------------------------------------------------ public API

/// A df-pn mate solver with its own transposition table.
pub struct MateSolver {
    table: Table,
    nodes: u64,
}

impl MateSolver {
    /// A solver whose table takes about `tt_mb` MiB (at least 1).
    pub fn new(tt_mb: usize) -> MateSolver {
        MateSolver {
            table: Table::new(tt_mb),
            nodes: 0,
        }
    }

    /// Solve for the side to move of `history.last()`; `history` is the game so far (oldest
    /// first, for repetition). Returns the shortest mate with the longest defence when it
    /// finishes in time, `NoMate` when the root is disproved, `Timeout` when a limit or `stop`
    /// hits before anything is proved.
    pub fn solve(
        &mut self,
        history: &[Position],
        limits: &MateLimits,
        stop: &AtomicBool,
    ) -> MateResult {
        self.nodes = 0;
        let Some(root) = history.last() else {
            return MateResult::NoMate;
        };
        // (Once per solve, but a game may be 200,000 plies long: a cheap hash.)
        let mut counts: KeyMap<u32> = KeyMap::default();
        for p in history {
            *counts.entry(p.key()).or_default() += 1;
        }
        let banned: KeyMap<()> = counts
            .into_iter()
            .filter(|&(_, n)| n >= 3)
            .map(|(k, _)| (k, ()))
            .collect();
        // Domination would carry results to positions of other hands, which the history may
        // forbid; without such positions it is sound.
        self.table
            .new_search(root.side_to_move(), banned.is_empty());
        let root = *root;
        let search = |table: &mut Table| {
            let mut s = Search {
                tt: table,
                stop,
                limits: *limits,
                nodes: 0,
                aborted: false,
                attacker: root.side_to_move(),
                path: Vec::with_capacity(64),
                banned: &banned,
            };
            let r = s.run(&root);
            (r, s.nodes)
        };
        // The recursion is one frame per ply: run it on a thread with a large stack.
        let spawned = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("mate".into())
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, || search(&mut self.table))
                .ok()
                .map(|h| h.join())
        });
        let (result, nodes) = match spawned {
            Some(Ok(r)) => r,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => search(&mut self.table),
        };
        self.nodes = nodes;
        if let MateResult::Mate(line) = &result {
            debug_assert!(
                check_mate_line(&root, line).is_ok(),
                "bad mate line for {root}: {:?}",
                check_mate_line(&root, line)
            );
        }
        result
    }

    /// Nodes searched by the last `solve`.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// A mate in one for the side to move, if any (never a pawn-drop mate: that is not a legal
/// move). Fast enough for the main search.
pub fn mate_in_one(pos: &Position) -> Option<Move> {
    mate1(pos).0
}

/// A mate in one, and the number of checking moves (counted up to the mate, if one is found).
fn mate1(pos: &Position) -> (Option<Move>, u32) {
    if pos.king_square(!pos.side_to_move()).is_none() {
        return (None, 0);
    }
    let mut list = MoveList::new();
    generate(pos, ALL, &mut list);
    mate_in_one_of(pos, list.as_slice(), &mut CheckInfo::new(pos))
}

/// The first of `moves` (legal moves of `pos`, in the caller's order) that mates at once,
/// and the number of checking moves among them up to it (all of them when none mates). The
/// one mate-in-one test of the engine: the solver's (through [`mate_in_one`]) and the main
/// search's at interior nodes, which already holds the node's legal moves and shares `checks`
/// (made for `pos`) with its move loop.
#[inline]
pub fn mate_in_one_of(
    pos: &Position,
    moves: &[Move],
    checks: &mut CheckInfo,
) -> (Option<Move>, u32) {
    let mut n = 0;
    for &m in moves {
        if checks.gives_check(pos, m) {
            n += 1;
            if !has_legal_move(&pos.after(m)) {
                return (Some(m), n);
            }
        }
    }
    (None, n)
}

/// Checks that `line` is a mate from `pos`: every move legal, the attacker's moves (even
/// indices) all give check, odd length, and the final position is checkmate.
pub fn check_mate_line(pos: &Position, line: &[Move]) -> Result<(), String> {
    if line.len().is_multiple_of(2) {
        return Err(format!("even length {}", line.len()));
    }
    let mut p = *pos;
    for (i, &m) in line.iter().enumerate() {
        if !crate::movegen::is_legal(&p, m) {
            return Err(format!("move {i} ({m}) is illegal in {p}"));
        }
        p.do_move(m);
        if i % 2 == 0 && !p.in_check() {
            return Err(format!("move {i} ({m}) does not give check"));
        }
    }
    if count_legal(&p) != 0 {
        return Err(format!("final position {p} is not checkmate"));
    }
    Ok(())
}

// ------------------------------------------------------------------ the search

struct Kid {
    pos: Position,
    id: Ident,
    ph: u64,
    /// A final result, known for this path.
    fin: Option<Val>,
    /// The child's numbers, once looked up (at the first look in this visit of the parent)
    /// and then as its own search returned them: the table is probed once per child and visit.
    known: Option<Val>,
    init: Val,
}

struct Search<'a> {
    tt: &'a mut Table,
    stop: &'a AtomicBool,
    limits: MateLimits,
    nodes: u64,
    aborted: bool,
    attacker: Color,
    /// Keys of the positions from the root to the current node.
    path: Vec<u64>,
    /// Positions that already occurred three times in the game.
    banned: &'a KeyMap<()>,
}

impl Search<'_> {
    fn run(&mut self, root: &Position) -> MateResult {
        self.path.clear();
        self.path.push(root.key());
        let ph = path_hash(PATH_SEED, root.key());
        let Some(first) = self.prove(root, ph, REM_INF) else {
            return MateResult::Timeout;
        };
        if first.dn == 0 {
            return if first.flags & F_CUT != 0 {
                MateResult::Timeout
            } else {
                MateResult::NoMate
            };
        }
        let mut upper = first.len;
        let fallback = self.line(root, ph, upper, false);
        let mut exact = true;
        while exact && upper >= 3 {
            match self.prove(root, ph, upper - 2) {
                None => {
                    exact = false;
                    break;
                }
                Some(v) if v.pn == 0 => {
                    debug_assert!(v.len <= upper - 2);
                    upper = v.len;
                }
                Some(_) => break,
            }
        }
        if exact {
            if let Some(line) = self.line(root, ph, upper, true) {
                return MateResult::Mate(line);
            }
        }
        // Out of time: a line from what the table holds, the shorter the better.
        let shorter = self.line(root, ph, upper, false);
        match (shorter, fallback) {
            (Some(a), Some(b)) => MateResult::Mate(if a.len() <= b.len() { a } else { b }),
            (Some(a), None) | (None, Some(a)) => MateResult::Mate(a),
            (None, None) => MateResult::Timeout,
        }
    }

    fn poll(&mut self) {
        if let Some(max) = self.limits.max_nodes {
            if self.nodes >= max {
                self.aborted = true;
            }
        }
        // About every millisecond (a node costs a few microseconds): the root mate probe of a
        // timed search must end close to its deadline.
        if self.nodes & 255 == 1 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            if let Some(d) = self.limits.deadline {
                if Instant::now() >= d {
                    self.aborted = true;
                }
            }
        }
    }

    /// Searches `pos` (whose key is on top of `self.path`) to a final result; `None` if a
    /// limit hit first (or had hit before).
    fn prove(&mut self, pos: &Position, ph: u64, rem: u16) -> Option<Val> {
        if self.aborted {
            return None;
        }
        // A final value is sound even when a limit cut the search short.
        let v = self.mid(pos, rem, ph, INF, INF);
        v.is_final().then_some(v)
    }

    fn kid(&self, pos: Position, ph: u64, init: Val) -> Kid {
        let key = pos.key();
        let fin = if let Some(i) = self.path.iter().position(|&k| k == key) {
            Some(Val::repetition(i as u16))
        } else if self.banned.contains_key(&key) {
            Some(Val::disproved(0))
        } else {
            None
        };
        Kid {
            id: Ident::of(&pos),
            pos,
            ph: path_hash(ph, key),
            fin,
            known: None,
            init,
        }
    }

    /// The children of a node, or its value when that is clear at once.
    #[inline(never)]
    fn expand(&mut self, pos: &Position, rem: u16, ph: u64, or: bool) -> Result<Vec<Kid>, Val> {
        let mut list = MoveList::new();
        generate(pos, ALL, &mut list);
        let child_rem = if rem == REM_INF {
            REM_INF
        } else {
            rem.saturating_sub(1)
        };
        if or {
            let mut kids = Vec::new();
            let mut any_check = false;
            let mut checks = CheckInfo::new(pos);
            for &m in list.iter() {
                if !checks.gives_check(pos, m) {
                    continue;
                }
                any_check = true;
                let child = pos.after(m);
                let n = count_legal(&child);
                if n == 0 {
                    return Err(Val::proven(1));
                }
                if rem > 1 {
                    kids.push(self.kid(child, ph, Val::open(n as u32, 1)));
                }
            }
            if !any_check {
                return Err(Val::disproved(0));
            }
            if rem <= 1 {
                return Err(Val::disproved(F_DEPTH));
            }
            Ok(kids)
        } else {
            if list.is_empty() {
                return Err(Val::proven(0));
            }
            if rem <= 1 {
                return Err(Val::disproved(F_DEPTH));
            }
            let mut kids = Vec::with_capacity(list.len());
            let mut refuted: Option<Val> = None;
            let ply = self.path.len() - 1;
            for &m in list.iter() {
                let child = pos.after(m);
                let mut kid = self.kid(child, ph, Val::open(1, 1));
                if kid.fin.is_none() {
                    match self.tt.probe(kid.id, child_rem, kid.ph) {
                        Probe::Hit(v) => {
                            if v.is_final() {
                                kid.fin = Some(v);
                            } else {
                                kid.known = Some(v);
                            }
                        }
                        Probe::Miss { seen: true } => kid.known = Some(kid.init),
                        Probe::Miss { seen: false } => {
                            let (mate, checks) = mate1(&child);
                            let v = if mate.is_some() {
                                Val::proven(1)
                            } else if checks == 0 {
                                Val::disproved(0)
                            } else {
                                Val::disproved(F_DEPTH)
                            };
                            // "No mate in one" is a depth-1 disproof.
                            self.tt.store(kid.id, 1, kid.ph, v, 1);
                            if v.pn == 0 || v.flags == 0 || child_rem <= 1 {
                                kid.fin = Some(v);
                            } else {
                                kid.init = Val::open(1, checks);
                                kid.known = Some(kid.init);
                            }
                        }
                    }
                }
                if let Some(v) = kid.fin {
                    if v.dn == 0 {
                        let v = v.localize(ply);
                        if v.flags == 0 {
                            return Err(v);
                        }
                        refuted = Some(refuted.map_or(v, |r| r.wider(v)));
                    }
                }
                kids.push(kid);
            }
            if let Some(v) = refuted {
                return Err(v);
            }
            Ok(kids)
        }
    }

    /// The node's numbers from its children's, the child to search next and its thresholds.
    fn gather(
        &self,
        ply: usize,
        kids: &mut [Kid],
        or: bool,
        child_rem: u16,
        th_pn: u32,
        th_dn: u32,
    ) -> (Val, usize, u32, u32) {
        let mut best = 0;
        let (mut m1, mut m2) = (u32::MAX, u32::MAX);
        let mut best_other = 0;
        let mut sum: u64 = 0;
        let mut len: u16 = if or { u16::MAX } else { 0 };
        let mut or_dis = Val::disproved(0);
        let mut and_dis: Option<Val> = None;
        for (i, k) in kids.iter_mut().enumerate() {
            let v = match (k.fin, k.known) {
                (Some(v), _) | (None, Some(v)) => v,
                (None, None) => {
                    let v = match self.tt.probe(k.id, child_rem, k.ph) {
                        Probe::Hit(v) => v,
                        Probe::Miss { .. } => k.init,
                    };
                    if v.is_final() {
                        k.fin = Some(v);
                    } else {
                        k.known = Some(v);
                    }
                    v
                }
            };
            let (sel, other) = if or { (v.pn, v.dn) } else { (v.dn, v.pn) };
            if or {
                if v.pn == 0 {
                    len = len.min(v.len);
                }
                if v.dn == 0 {
                    or_dis = or_dis.and_also(v);
                }
            } else {
                if v.pn == 0 {
                    len = len.max(v.len);
                }
                if v.dn == 0 {
                    and_dis = Some(and_dis.map_or(v, |d| d.wider(v)));
                }
            }
            sum += other as u64;
            if sel < m1 {
                m2 = m1;
                m1 = sel;
                best = i;
                best_other = other;
            } else if sel < m2 {
                m2 = sel;
            }
        }
        if m1 == 0 {
            let v = if or {
                Val::proven(len + 1)
            } else {
                and_dis.unwrap_or(Val::disproved(0)).localize(ply)
            };
            return (v, best, 0, 0);
        }
        if sum == 0 {
            let v = if or {
                or_dis.localize(ply)
            } else {
                Val::proven(len + 1)
            };
            return (v, best, 0, 0);
        }
        let total = sum.min(INF as u64 - 1) as u32;
        let v = if or {
            Val::open(m1, total)
        } else {
            Val::open(total, m1)
        };
        let (th_sel, th_other) = if or { (th_pn, th_dn) } else { (th_dn, th_pn) };
        let m2 = m2.min(INF);
        let c_sel = if m2 >= INF {
            th_sel
        } else {
            th_sel.min(m2 + m2 / 2 + 1)
        };
        let c_other =
            (th_other.saturating_sub(total) as u64 + best_other as u64).min(INF as u64) as u32;
        if or {
            (v, best, c_sel, c_other)
        } else {
            (v, best, c_other, c_sel)
        }
    }

    /// Multiple-iterative-deepening step of df-pn: searches `pos` until its proof number
    /// reaches `th_pn` or its disproof number `th_dn` (or it is resolved, or a limit hits).
    fn mid(&mut self, pos: &Position, rem: u16, ph: u64, th_pn: u32, th_dn: u32) -> Val {
        let start = self.nodes;
        self.nodes += 1;
        self.poll();
        if self.path.len() > MAX_PLY {
            return Val::disproved(F_CUT);
        }
        let id = Ident::of(pos);
        let or = pos.side_to_move() == self.attacker;
        let mut kids = match self.expand(pos, rem, ph, or) {
            Ok(k) => k,
            Err(v) => {
                self.tt.store(id, rem, ph, v, 1);
                return v;
            }
        };
        let child_rem = if rem == REM_INF { REM_INF } else { rem - 1 };
        loop {
            let ply = self.path.len() - 1;
            let (v, best, c_pn, c_dn) = self.gather(ply, &mut kids, or, child_rem, th_pn, th_dn);
            if v.is_final() || v.pn >= th_pn || v.dn >= th_dn || self.aborted {
                let amount = (self.nodes - start).min(u32::MAX as u64) as u32;
                self.tt.store(id, rem, ph, v, amount);
                return v;
            }
            let kid = &kids[best];
            self.path.push(kid.pos.key());
            let r = self.mid(&kid.pos, child_rem, kid.ph, c_pn, c_dn);
            self.path.pop();
            let kid = &mut kids[best];
            if r.is_final() {
                kid.fin = Some(r);
            } else {
                kid.known = Some(r);
            }
        }
    }

    /// A mating line of at most `len` plies from `root` (whose key is the whole of
    /// `self.path`). `exact`: `len` is the exact minimax length, and the line is the shortest
    /// mate against the longest defence; otherwise the line follows the proofs in the table.
    fn line(&mut self, root: &Position, ph: u64, len: u16, exact: bool) -> Option<Vec<Move>> {
        let base = self.path.len();
        let r = self.line_inner(root, ph, len, exact);
        self.path.truncate(base);
        r
    }

    fn line_inner(
        &mut self,
        root: &Position,
        mut ph: u64,
        len: u16,
        exact: bool,
    ) -> Option<Vec<Move>> {
        let mut pos = *root;
        let mut r = len;
        let mut line = Vec::new();
        loop {
            if count_legal(&pos) == 0 {
                // Mated (the defender is in check after every attacker move).
                return (pos.in_check() && line.len() % 2 == 1).then_some(line);
            }
            if r == 0 {
                return None;
            }
            let or = pos.side_to_move() == self.attacker;
            let mut list = MoveList::new();
            generate(&pos, ALL, &mut list);
            // (move, child, known proof length)
            let mut checks = CheckInfo::new(&pos);
            let mut cands: Vec<(Move, Position, u16)> = list
                .iter()
                .filter(|&&m| !or || checks.gives_check(&pos, m))
                .map(|&m| {
                    let c = pos.after(m);
                    let known = if count_legal(&c) == 0 && c.in_check() {
                        0
                    } else {
                        self.tt.proof_len(Ident::of(&c)).unwrap_or(NO_PROOF)
                    };
                    (m, c, known)
                })
                .collect();
            let chosen: Option<(Move, Position, u16)> = if or {
                // A check whose reply is mated within r - 1: the quickest known first.
                cands.sort_by_key(|c| c.2);
                let mut pick = cands.iter().find(|c| c.2 < r).copied();
                if pick.is_none() {
                    for &(m, c, _) in &cands {
                        let v = self.prove_child(&c, ph, r - 1)?;
                        if v.pn == 0 {
                            pick = Some((m, c, v.len));
                            break;
                        }
                    }
                }
                pick
            } else if exact {
                // A reply that is not mated within r - 3: the defender's longest resistance.
                cands.sort_by_key(|c| std::cmp::Reverse(c.2));
                let mut pick = None;
                if r < 3 {
                    pick = cands.first().copied();
                } else {
                    let target = r - 3;
                    for &(m, c, known) in &cands {
                        if known <= target {
                            continue;
                        }
                        if self.tt.no_mate_within(Ident::of(&c), target) {
                            pick = Some((m, c, r - 1));
                            break;
                        }
                        let v = self.prove_child(&c, ph, target)?;
                        if v.dn == 0 {
                            pick = Some((m, c, r - 1));
                            break;
                        }
                    }
                }
                pick
            } else {
                // Every reply is mated within r - 1; follow the longest known proof.
                let mut pick: Option<(Move, Position, u16)> = None;
                for &(m, c, known) in &cands {
                    let l = if known < r {
                        known
                    } else {
                        let v = self.prove_child(&c, ph, r - 1)?;
                        if v.pn != 0 {
                            return None;
                        }
                        v.len
                    };
                    if pick.is_none_or(|p| l > p.2) {
                        pick = Some((m, c, l));
                    }
                }
                pick
            };
            let (m, c, l) = chosen?;
            line.push(m);
            self.path.push(c.key());
            ph = path_hash(ph, c.key());
            pos = c;
            r = if exact { r - 1 } else { l.min(r - 1) };
        }
    }

    /// Proves or disproves `child` (a child of the node at the top of `self.path`) within
    /// `rem` plies; `None` if a limit hit.
    fn prove_child(&mut self, child: &Position, ph: u64, rem: u16) -> Option<Val> {
        let key = child.key();
        self.path.push(key);
        let v = self.prove(child, path_hash(ph, key), rem);
        self.path.pop();
        v
    }
}
