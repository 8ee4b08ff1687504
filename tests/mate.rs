//! Mate solver tests (`gogo::mate`).
//!
//! The suite `tests/data/mate.tsv` holds random positions whose shortest mate length (or the
//! absence of a mate) an independent brute force in this file proved; every problem is solved
//! as written and colour-flipped, and every line is checked move by move. Also: mate in one,
//! pawn-drop-mate traps, perpetual checks, repetitions in the game history, limits, random
//! positions against the brute force. Ignored: the slow checks, timing (`report`), and the
//! generator of candidate problems (`generate`). See docs/mate.md.

mod common;

use common::Rng;
use gogo::mate::{mate_in_one, MateLimits, MateResult, MateSolver};
use gogo::movegen::legal_moves;
use gogo::position::Position;
use gogo::types::Move;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

// ------------------------------------------------------------------ brute force

/// Plain minimax over checks (attacker) and all replies (defender), sharing nothing with the
/// solver but the move generator: a check is a legal move after which the opponent is in
/// check. `memo` (position key and depth, both node kinds) may be `None` for a pure search;
/// without repetition rules the depth-limited value is a function of (position, depth), so
/// memoising it is exact.
struct Brute {
    memo: Option<HashMap<(u64, u32), bool>>,
    nodes: u64,
    /// Node budget; once spent, every answer is "no" and `exhausted` is set.
    budget: u64,
    exhausted: bool,
}

impl Brute {
    fn new(memo: bool) -> Brute {
        Brute {
            memo: memo.then(HashMap::new),
            nodes: 0,
            budget: u64::MAX,
            exhausted: false,
        }
    }

    /// The attacker (to move) mates within `d` plies.
    fn attack(&mut self, pos: &Position, d: u32) -> bool {
        if d == 0 {
            return false;
        }
        if let Some(&v) = self.memo.as_ref().and_then(|m| m.get(&(pos.key(), d))) {
            return v;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            self.exhausted = true;
            return false;
        }
        let mut result = false;
        for &m in legal_moves(pos).iter() {
            let c = pos.after(m);
            if c.in_check() && self.defend(&c, d - 1) {
                result = true;
                break;
            }
        }
        if let Some(memo) = self.memo.as_mut() {
            memo.insert((pos.key(), d), result);
        }
        result
    }

    /// The defender (to move, in check) is mated within `d` plies whatever it does.
    fn defend(&mut self, pos: &Position, d: u32) -> bool {
        let moves = legal_moves(pos);
        if moves.is_empty() {
            return true;
        }
        if d < 2 {
            return false;
        }
        if let Some(&v) = self.memo.as_ref().and_then(|m| m.get(&(pos.key(), d))) {
            return v;
        }
        self.nodes += 1;
        let mut result = true;
        for &m in moves.iter() {
            if !self.attack(&pos.after(m), d - 1) {
                result = false;
                break;
            }
        }
        if let Some(memo) = self.memo.as_mut() {
            memo.insert((pos.key(), d), result);
        }
        result
    }

    /// The shortest mate length up to `max` plies (`None` also when the budget ran out).
    fn shortest(&mut self, pos: &Position, max: u32) -> Option<u32> {
        let r = (1..=max).step_by(2).find(|&d| self.attack(pos, d));
        if self.exhausted {
            None
        } else {
            r
        }
    }
}

// ------------------------------------------------------------------ helpers

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn no_limits() -> MateLimits {
    MateLimits::default()
}

fn solve_history(history: &[Position]) -> MateResult {
    let stop = AtomicBool::new(false);
    MateSolver::new(16).solve(history, &no_limits(), &stop)
}

fn solve(p: &Position) -> MateResult {
    solve_history(&[*p])
}

/// Checks a mating line independently of the solver: legal moves, a check by every attacker
/// move, checkmate at the end.
fn assert_mate_line(p: &Position, line: &[Move]) {
    let mut q = *p;
    for (i, &m) in line.iter().enumerate() {
        assert!(
            legal_moves(&q).contains(m),
            "{p}: move {i} {m} illegal in {q}"
        );
        q.do_move(m);
        if i % 2 == 0 {
            assert!(q.in_check(), "{p}: move {i} {m} is no check");
        }
    }
    assert!(line.len() % 2 == 1, "{p}: even line {}", line_text(line));
    assert!(
        q.in_check() && legal_moves(&q).is_empty(),
        "{p}: {q} is no mate"
    );
}

/// The solver's mate, checked, or a panic.
fn expect_mate(p: &Position, r: &MateResult) -> Vec<Move> {
    match r {
        MateResult::Mate(line) => {
            assert_mate_line(p, line);
            line.clone()
        }
        other => panic!("{p}: expected a mate, got {other:?}"),
    }
}

fn line_text(line: &[Move]) -> String {
    line.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A problem of `tests/data/mate.tsv`: the position and its shortest mate length in plies
/// (`None`: no mate).
struct Problem {
    pos: Position,
    len: Option<usize>,
    note: String,
}

fn suite() -> Vec<Problem> {
    problems("mate.tsv")
}

fn problems(file: &str) -> Vec<Problem> {
    common::data_rows(file)
        .into_iter()
        .map(|row| {
            let len = match row[1].trim() {
                "nomate" => None,
                n => Some(
                    n.parse()
                        .unwrap_or_else(|_| panic!("bad length in {row:?}")),
                ),
            };
            Problem {
                pos: pos(&row[0]),
                len,
                note: row.get(2).cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// Each problem as written (sente attacks) and colour-flipped (gote attacks).
fn both_colours(p: &Position) -> [Position; 2] {
    let f = p.flipped();
    // The flipped position is a valid SFEN itself.
    assert_eq!(Position::from_sfen(&f.to_sfen()), Ok(f));
    [*p, f]
}

// ------------------------------------------------------------------ the suite

#[test]
fn suite_is_large_and_spans_lengths() {
    let problems = suite();
    let mates: Vec<usize> = problems.iter().filter_map(|p| p.len).collect();
    assert!(mates.len() >= 50, "{} mate problems", mates.len());
    for len in (1..=15).step_by(2) {
        assert!(mates.contains(&len), "no mate in {len} plies");
    }
    assert!(mates.iter().any(|&l| l >= 17));
    assert!(problems.iter().filter(|p| p.len.is_none()).count() >= 5);
    // Tsume style: most problems have no attacking king, some do.
    let kingless = problems
        .iter()
        .filter(|p| p.pos.king_square(p.pos.side_to_move()).is_none())
        .count();
    assert!(kingless >= 20 && kingless < problems.len());
    for p in &problems {
        assert_eq!(p.pos.side_to_move(), gogo::types::Color::Black, "{}", p.pos);
    }
}

#[test]
fn suite_mates_are_shortest_and_correct() {
    // One solver for everything, both colours: the table must not leak between problems.
    let mut solver = MateSolver::new(16);
    let stop = AtomicBool::new(false);
    for prob in suite() {
        for p in both_colours(&prob.pos) {
            let r = solver.solve(&[p], &no_limits(), &stop);
            match prob.len {
                Some(len) => {
                    let line = expect_mate(&p, &r);
                    assert_eq!(
                        line.len(),
                        len,
                        "{p} ({}): line {}",
                        prob.note,
                        line_text(&line)
                    );
                }
                None => assert_eq!(r, MateResult::NoMate, "{p} ({})", prob.note),
            }
        }
    }
}

/// The stored lengths against the brute force, up to `max_len` plies (the no-mate problems to
/// `nomate_depth` plies).
fn check_suite_brute(max_len: usize, nomate_depth: u32) {
    for prob in suite() {
        let p = &prob.pos;
        match prob.len {
            Some(len) if len <= max_len => {
                let mut b = Brute::new(true);
                assert_eq!(b.shortest(p, len as u32), Some(len as u32), "{p}");
                if len <= 5 {
                    let mut pure = Brute::new(false);
                    assert_eq!(pure.shortest(p, len as u32), Some(len as u32), "{p}");
                }
            }
            Some(_) => {}
            None => {
                let mut b = Brute::new(true);
                assert_eq!(b.shortest(p, nomate_depth), None, "{p}");
            }
        }
    }
}

#[test]
fn suite_short_lengths_agree_with_brute_force() {
    check_suite_brute(9, 7);
}

/// `cargo test --release --test mate -- --ignored brute_force_all --nocapture`
#[test]
#[ignore]
fn suite_lengths_agree_with_brute_force_all() {
    check_suite_brute(usize::MAX, 11);
}

/// Solves `set` with one solver and prints nodes and time per problem and in total.
fn time_set(name: &str, set: &[Problem], solver: &mut MateSolver) {
    let stop = AtomicBool::new(false);
    let (mut nodes, mut ms) = (0u64, 0f64);
    let (mut max_nodes, mut max_ms) = (0u64, 0f64);
    for prob in set {
        let t = Instant::now();
        let r = solver.solve(&[prob.pos], &no_limits(), &stop);
        let el = t.elapsed().as_secs_f64() * 1000.0;
        let got = match &r {
            MateResult::Mate(l) => l.len().to_string(),
            other => format!("{other:?}"),
        };
        println!(
            "{:<45} {:>7} {:>9} nodes {:>9.1} ms",
            prob.pos.to_sfen(),
            got,
            solver.nodes(),
            el
        );
        nodes += solver.nodes();
        ms += el;
        max_nodes = max_nodes.max(solver.nodes());
        max_ms = max_ms.max(el);
    }
    println!(
        "{name}: {} problems, {nodes} nodes, {ms:.0} ms in total; at most {max_nodes} nodes, \
         {max_ms:.0} ms\n",
        set.len()
    );
}

/// Prints nodes and time per problem and in total (run it in release):
/// `cargo test --release --test mate -- --ignored report --nocapture`
#[test]
#[ignore]
fn report() {
    let t = Instant::now();
    let mut solver = MateSolver::new(64);
    println!("new(64): {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    time_set("tests/data/mate.tsv", &suite(), &mut solver);
    time_set(
        "tests/data/mate-long.tsv",
        &problems("mate-long.tsv"),
        &mut solver,
    );
    time_set(
        "tests/data/mate-hard.tsv",
        &problems("mate-hard.tsv"),
        &mut solver,
    );
}

/// The long mates still come out at their recorded lengths, as correct mates.
#[test]
#[ignore]
fn long_mates() {
    let mut solver = MateSolver::new(64);
    let stop = AtomicBool::new(false);
    let set = problems("mate-long.tsv");
    assert!(set.len() >= 20);
    for prob in set {
        let r = solver.solve(&[prob.pos], &no_limits(), &stop);
        let line = expect_mate(&prob.pos, &r);
        assert_eq!(Some(line.len()), prob.len, "{}", prob.pos);
    }
}

/// Hard no-mates: the solver disproves them, the brute force finds no mate within 7 plies.
#[test]
#[ignore]
fn hard_no_mates() {
    let mut solver = MateSolver::new(64);
    let stop = AtomicBool::new(false);
    let set = problems("mate-hard.tsv");
    assert!(set.len() >= 5);
    for prob in set {
        assert_eq!(prob.len, None);
        let r = solver.solve(&[prob.pos], &no_limits(), &stop);
        assert_eq!(r, MateResult::NoMate, "{}", prob.pos);
        let mut b = Brute::new(true);
        assert_eq!(b.shortest(&prob.pos, 7), None, "{}", prob.pos);
    }
}

#[test]
fn a_large_table_is_cheap_to_create() {
    // The table comes zeroed from the allocator: pages the search never touches are free.
    let t = Instant::now();
    let mut solver = MateSolver::new(512);
    let p = pos("4k/5/4P/5/5 b G 1");
    let stop = AtomicBool::new(false);
    expect_mate(&p, &solver.solve(&[p], &no_limits(), &stop));
    assert!(t.elapsed().as_millis() < 2000, "{:?}", t.elapsed());
}

// ------------------------------------------------------------------ mate in one

#[test]
fn mate_in_one_agrees_with_the_suite() {
    for prob in suite() {
        for p in both_colours(&prob.pos) {
            match (prob.len, mate_in_one(&p)) {
                (Some(1), Some(m)) => assert_mate_line(&p, &[m]),
                (Some(1), None) => panic!("{p}: mate in one not found"),
                (_, Some(m)) => panic!("{p}: {m} is no mate in one"),
                (_, None) => {}
            }
        }
    }
}

#[test]
fn mate_in_one_handmade() {
    // G*1b, guarded by the pawn on 1c.
    let p = pos("4k/5/4P/5/5 b G 1");
    let m = mate_in_one(&p).expect("G*1b");
    assert_eq!(m.to_string(), "G*1b");
    assert_mate_line(&p, &[m]);
    assert_eq!(
        mate_in_one(&p.flipped()).map(|m| m.to_string()),
        Some("G*5d".into())
    );
    // A board move: the pawn steps to 1b, guarded by the gold; the silver covers 2a.
    let p = pos("4k/2S2/3GP/5/K4 b - 1");
    let m = mate_in_one(&p).expect("1c1b or 2c1b");
    assert_mate_line(&p, &[m]);
    // The pawn checks, but the king takes it.
    let p = pos("4k/5/4P/5/K4 b - 1");
    assert_eq!(mate_in_one(&p), None);
    // Nothing to mate with, and a check that is no mate. (No king to mate cannot be set up:
    // the SFEN parser refuses it.)
    assert_eq!(mate_in_one(&pos("4k/5/5/5/K4 b - 1")), None);
    assert_eq!(mate_in_one(&pos("4k/5/5/5/K4 b G 1")), None);
}

#[test]
fn mate_in_one_never_drops_a_pawn_to_mate() {
    // P*1b would mate: illegal (uchifuzume), so there is no mate in one.
    for sfen in [
        "4k/2S2/3G1/5/K4 b P 1",
        "4k/2S2/2S2/5/KB3 b P 1",
        "4k/2S2/3G1/5/5 b P 1",
    ] {
        for p in both_colours(&pos(sfen)) {
            assert_eq!(mate_in_one(&p), None, "{p}");
            assert!(
                !matches!(solve(&p), MateResult::Mate(ref l) if l.len() == 1),
                "{p}"
            );
        }
    }
    // With a gold in hand as well, G*1b mates.
    let p = pos("4k/2S2/3G1/5/K4 b GP 1");
    let m = mate_in_one(&p).expect("G*1b or G*2a");
    assert!(!m.is_drop() || m.drop_kind() != gogo::types::PieceKind::Pawn);
    assert_mate_line(&p, &[m]);
}

// ------------------------------------------------------------------ special cases

#[test]
fn pawn_drop_mate_traps() {
    // Positions where a pawn drop would mate at once. The solver must find the mate the
    // brute force finds (or none), never the pawn drop.
    for sfen in [
        "4k/2S2/3G1/5/K4 b P 1",
        "4k/2S2/2S2/5/KB3 b P 1",
        "4k/2Sg1/4G/1B3/K4 b P 1",
        "R2sk/5/3G1/5/K4 b P 1",
    ] {
        for p in both_colours(&pos(sfen)) {
            let mut b = Brute::new(true);
            let brute = b.shortest(&p, 7);
            match solve(&p) {
                MateResult::Mate(line) => {
                    assert_mate_line(&p, &line);
                    assert_eq!(Some(line.len() as u32), brute, "{p}: {}", line_text(&line));
                }
                MateResult::NoMate => assert_eq!(brute, None, "{p}"),
                MateResult::Timeout => panic!("{p}: timeout"),
            }
        }
    }
    for prob in suite().iter().filter(|p| p.note.contains("uchifuzume")) {
        // (Covered by the suite tests; here only: the first move is no pawn-drop mate.)
        if let MateResult::Mate(line) = solve(&prob.pos) {
            let after = prob.pos.after(line[0]);
            assert!(
                !(line[0].is_drop()
                    && line[0].drop_kind() == gogo::types::PieceKind::Pawn
                    && legal_moves(&after).is_empty()),
                "{}",
                prob.pos
            );
        }
    }
    assert!(
        suite()
            .iter()
            .filter(|p| p.note.contains("uchifuzume"))
            .count()
            >= 3
    );
}

#[test]
fn perpetual_check_is_no_mate() {
    // The attacker can check forever, but never mate: the search must see through the
    // repetitions and report no mate (not hang, not claim a mate).
    for sfen in [
        "4k/5/5/5/R4 b - 1",
        "4k/5/5/5/+R4 b - 1",
        "2k2/5/5/5/1R3 b - 1",
        "4k/5/5/5/1B3 b - 1",
        "4k/5/5/+B4/3K1 b - 1",
        "5/5/2k2/5/R3R b - 1",
        "5/5/2k2/5/1+B1+B1 b - 1",
    ] {
        for p in both_colours(&pos(sfen)) {
            let mut b = Brute::new(true);
            assert_eq!(b.shortest(&p, 7), None, "{p}");
            let limits = MateLimits {
                deadline: None,
                max_nodes: Some(2_000_000),
            };
            let stop = AtomicBool::new(false);
            let r = MateSolver::new(16).solve(&[p], &limits, &stop);
            assert_eq!(r, MateResult::NoMate, "{p}");
        }
    }
}

#[test]
fn history_repetitions_ban_a_fourth_occurrence() {
    // A mate in 3 whose every mating line starts with the same check: after that check has
    // happened three times in the game, a fourth time ends the game (no mate by it).
    for prob in suite().iter().filter(|p| p.len == Some(3)) {
        let p = prob.pos;
        let first_moves: Vec<Move> = legal_moves(&p)
            .iter()
            .copied()
            .filter(|&m| {
                let c = p.after(m);
                c.in_check() && Brute::new(true).defend(&c, 2)
            })
            .collect();
        if first_moves.len() != 1 {
            continue;
        }
        let q = p.after(first_moves[0]);
        // Twice before: still a mate in 3 (the line makes it the third occurrence).
        let r = solve_history(&[q, p, q, p]);
        assert_eq!(expect_mate(&p, &r).len(), 3, "{p}");
        // Three times before: the check would be the fourth occurrence.
        let r = solve_history(&[q, p, q, p, q, p]);
        let mut b = Brute::new(true);
        match r {
            MateResult::Mate(line) => {
                assert_mate_line(&p, &line);
                assert_ne!(line[0], first_moves[0], "{p}");
                assert!(line.len() > 3);
            }
            MateResult::NoMate => assert_eq!(b.shortest(&p, 3), Some(3)),
            MateResult::Timeout => panic!("{p}"),
        }
        return;
    }
    panic!("no suitable mate in 3 in the suite");
}

#[test]
fn history_does_not_change_the_mate() {
    // The same position reached by a game: the history before it is no repetition.
    let mut g = gogo::game::Game::from_sfen("4k/5/5/5/K4 b GGP 1").unwrap();
    for m in ["5e4e", "1a2a", "4e5e", "2a1a"] {
        g.play_usi(m).unwrap();
    }
    let r = solve_history(g.positions());
    let alone = solve(g.current());
    assert_eq!(r, alone);
}

#[test]
fn limits_and_stop_give_timeout() {
    let hard = suite()
        .into_iter()
        .filter(|p| p.len.is_some_and(|l| l >= 9))
        .map(|p| p.pos)
        .next()
        .expect("a long problem");
    let stop = AtomicBool::new(false);
    let mut s = MateSolver::new(4);
    let r = s.solve(
        &[hard],
        &MateLimits {
            deadline: None,
            max_nodes: Some(5),
        },
        &stop,
    );
    assert_eq!(r, MateResult::Timeout);
    assert!(s.nodes() <= 6, "{}", s.nodes());
    let r = s.solve(
        &[hard],
        &MateLimits {
            deadline: Some(Instant::now()),
            max_nodes: None,
        },
        &stop,
    );
    assert_eq!(r, MateResult::Timeout);
    let stopped = AtomicBool::new(true);
    assert_eq!(
        s.solve(&[hard], &no_limits(), &stopped),
        MateResult::Timeout
    );
    // A later search with no limit is unaffected.
    expect_mate(&hard, &s.solve(&[hard], &no_limits(), &stop));
    assert!(s.nodes() > 6);
    // A mate in one is proved before any limit can bite.
    let p = pos("4k/5/4P/5/5 b G 1");
    assert!(matches!(
        s.solve(&[p], &no_limits(), &stopped),
        MateResult::Mate(_)
    ));
}

#[test]
fn small_table_still_solves() {
    // 1 MiB: heavy replacement, the answers stay right.
    let mut solver = MateSolver::new(1);
    let stop = AtomicBool::new(false);
    for prob in suite()
        .iter()
        .filter(|p| p.len.is_none_or(|l| (7..=11).contains(&l)))
    {
        let r = solver.solve(&[prob.pos], &no_limits(), &stop);
        match prob.len {
            Some(l) => assert_eq!(expect_mate(&prob.pos, &r).len(), l, "{}", prob.pos),
            None => assert_eq!(r, MateResult::NoMate, "{}", prob.pos),
        }
    }
}

#[test]
fn no_position_and_no_defending_king() {
    let stop = AtomicBool::new(false);
    assert_eq!(
        MateSolver::new(1).solve(&[], &no_limits(), &stop),
        MateResult::NoMate
    );
    // Only the attacker has a king: such a position is refused before it reaches the solver.
    assert!(Position::from_sfen("5/5/5/5/K4 b 2R2B 1").is_err());
    // The side to move is mated already: it has no mate either.
    let mated = pos("4k/2GG1/5/5/K4 w - 1");
    assert!(mated.in_check() && legal_moves(&mated).is_empty());
    assert_eq!(solve(&mated), MateResult::NoMate);
}

/// Random positions, the solver against the brute force to `depth` plies: a mate within
/// `depth` must be found with that length, `NoMate` must mean no mate within `depth`.
fn random_cross_check(seed: u64, count: usize, depth: u32, max_nodes: u64) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let mut solver = MateSolver::new(16);
    let stop = AtomicBool::new(false);
    let (mut mates, mut nomates) = (0, 0);
    let mut done = 0;
    while done < count {
        let Some(p0) = random_position(&mut rng) else {
            continue;
        };
        done += 1;
        let p = if rng.below(2) == 0 { p0 } else { p0.flipped() };
        let limits = MateLimits {
            deadline: None,
            max_nodes: Some(max_nodes),
        };
        let r = solver.solve(&[p], &limits, &stop);
        let mut b = Brute::new(true);
        let brute = b.shortest(&p, depth);
        match r {
            MateResult::Mate(line) => {
                assert_mate_line(&p, &line);
                if let Some(d) = brute {
                    assert_eq!(line.len() as u32, d, "{p}: {}", line_text(&line));
                } else {
                    assert!(line.len() as u32 > depth, "{p}: {}", line_text(&line));
                }
                mates += 1;
            }
            MateResult::NoMate => {
                assert_eq!(brute, None, "{p}: solver says no mate");
                nomates += 1;
            }
            MateResult::Timeout => {}
        }
    }
    (mates, nomates)
}

#[test]
fn random_positions_agree_with_brute_force() {
    let (mates, nomates) = random_cross_check(2024, 150, 5, 30_000);
    assert!(mates >= 20 && nomates >= 20, "{mates} {nomates}");
}

/// `cargo test --release --test mate -- --ignored random_positions_deep --nocapture`
#[test]
#[ignore]
fn random_positions_deep() {
    let (mates, nomates) = random_cross_check(99, 3000, 9, 1_000_000);
    println!("{mates} mates, {nomates} no-mates");
}

// ------------------------------------------------------------------ generator

/// A random tsume-like position with gote's king, or `None` if it came out invalid.
fn random_position(rng: &mut Rng) -> Option<Position> {
    let mut board: [Option<String>; 25] = Default::default();
    let mut stock: Vec<char> = "RRBBGGSSPP".chars().collect();
    let mut take = |rng: &mut Rng| -> Option<char> {
        if stock.is_empty() {
            return None;
        }
        let i = rng.below(stock.len());
        Some(stock.swap_remove(i))
    };
    // Gote's king, mostly near its back ranks.
    let kr = [0, 0, 0, 1, 1, 2][rng.below(6)];
    let ksq = kr * 5 + rng.below(5);
    board[ksq] = Some("k".into());
    if rng.below(3) == 0 {
        loop {
            let s = 15 + rng.below(10);
            if board[s].is_none() {
                board[s] = Some("K".into());
                break;
            }
        }
    }
    let place = |rng: &mut Rng, letter: char, black: bool, board: &mut [Option<String>; 25]| {
        for _ in 0..20 {
            let s = rng.below(25);
            if board[s].is_some() {
                continue;
            }
            let promote = letter != 'G' && rng.below(4) == 0;
            let mut t = String::new();
            if promote {
                t.push('+');
            }
            t.push(if black {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
            board[s] = Some(t);
            return;
        }
    };
    let n_att = 1 + rng.below(3);
    for _ in 0..n_att {
        if let Some(l) = take(rng) {
            place(rng, l, true, &mut board);
        }
    }
    let n_def = rng.below(4);
    for _ in 0..n_def {
        if let Some(l) = take(rng) {
            place(rng, l, false, &mut board);
        }
    }
    let mut hand = String::new();
    let n_hand = 1 + rng.below(3);
    for _ in 0..n_hand {
        if let Some(l) = take(rng) {
            hand.push(l);
        }
    }
    // The rest to gote's hand, sometimes.
    if rng.below(2) == 0 {
        while let Some(l) = take(rng) {
            hand.push(l.to_ascii_lowercase());
        }
    }
    let mut sfen = String::new();
    for r in 0..5 {
        let mut empty = 0;
        for c in 0..5 {
            match &board[r * 5 + c] {
                None => empty += 1,
                Some(t) => {
                    if empty > 0 {
                        sfen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    sfen.push_str(t);
                }
            }
        }
        if empty > 0 {
            sfen.push_str(&empty.to_string());
        }
        if r < 4 {
            sfen.push('/');
        }
    }
    if hand.is_empty() {
        hand.push('-');
    }
    let sfen = format!("{sfen} b {hand} 1");
    let p = Position::from_sfen(&sfen).ok()?;
    // Keep the canonical form.
    Position::from_sfen(&p.to_sfen()).ok()
}

/// Whether the side to move could mate by a pawn drop if uchifuzume were allowed.
fn has_pawn_drop_mate(p: &Position) -> bool {
    use gogo::types::{Color, PieceKind};
    let us = p.side_to_move();
    let Some(k) = p.king_square(!us) else {
        return false;
    };
    if p.hand(us).count(PieceKind::Pawn) == 0 {
        return false;
    }
    let front = match us {
        Color::Black => k.index() + 5,
        Color::White => k.index().wrapping_sub(5),
    };
    if front >= 25 {
        return false;
    }
    let sq = gogo::types::Square::new(front as u8);
    if p.piece_on(sq).is_some() {
        return false;
    }
    let file = gogo::bitboard::Bitboard::file(sq.file());
    if (p.pieces_of(us, PieceKind::Pawn) & file).any() {
        return false;
    }
    gogo::movegen::is_pawn_drop_mate(p, sq)
}

/// Prints candidate problems (`MATE`, `NOMATE`, `TIMEOUT`, `UCHI` lines), the lengths
/// verified by the brute force where it stays within its budget.
/// `MATE_SEED=1 MATE_COUNT=2000 cargo test --release --test mate -- --ignored generate --nocapture`
#[test]
#[ignore]
fn generate() {
    let env = |k: &str, d: u64| -> u64 {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let mut rng = Rng::new(env("MATE_SEED", 1));
    let count = env("MATE_COUNT", 2000);
    let min_len = env("MATE_MIN", 1) as usize;
    let mut solver = MateSolver::new(64);
    let stop = AtomicBool::new(false);
    let mut hist: HashMap<String, usize> = HashMap::new();
    for _ in 0..count {
        let Some(p) = random_position(&mut rng) else {
            continue;
        };
        if env("MATE_UCHI", 0) == 1 && (!has_pawn_drop_mate(&p) || mate_in_one(&p).is_some()) {
            continue;
        }
        let limits = MateLimits {
            deadline: None,
            max_nodes: Some(env("MATE_NODES", 1_000_000)),
        };
        let t = Instant::now();
        let r = solver.solve(&[p], &limits, &stop);
        let ms = t.elapsed().as_millis();
        let uchi = if has_pawn_drop_mate(&p) { "UCHI " } else { "" };
        let label = match &r {
            MateResult::Mate(line) => format!("{}", line.len()),
            MateResult::NoMate => "nomate".into(),
            MateResult::Timeout => "timeout".into(),
        };
        *hist.entry(label).or_default() += 1;
        match r {
            MateResult::Mate(line) if line.len() >= min_len => {
                let mut b = Brute::new(true);
                b.budget = env("MATE_BRUTE", 20_000_000);
                let bl = if line.len() <= 21 {
                    b.shortest(&p, line.len() as u32)
                } else {
                    None
                };
                println!(
                    "{uchi}MATE\t{}\t{}\t# brute {:?} bnodes {} nodes {} ms {} line {}",
                    p.to_sfen(),
                    line.len(),
                    bl,
                    b.nodes,
                    solver.nodes(),
                    ms,
                    line_text(&line)
                );
            }
            MateResult::NoMate => {
                let mut b = Brute::new(true);
                b.budget = 5_000_000;
                let bl = b.shortest(&p, 9);
                println!(
                    "{uchi}NOMATE\t{}\t# brute9 {:?} exhausted {} nodes {} ms {}",
                    p.to_sfen(),
                    bl,
                    b.exhausted,
                    solver.nodes(),
                    ms
                );
            }
            MateResult::Timeout => println!("{uchi}TIMEOUT\t{}", p.to_sfen()),
            _ => {}
        }
    }
    let mut h: Vec<_> = hist.into_iter().collect();
    h.sort();
    println!("{h:?}");
}

/// Solves the SFENs in `MATE_SFEN` (separated by `|`) and prints the result.
#[test]
#[ignore]
fn one() {
    let Ok(list) = std::env::var("MATE_SFEN") else {
        return;
    };
    let mut solver = MateSolver::new(
        std::env::var("MATE_MB")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(64),
    );
    let stop = AtomicBool::new(false);
    for sfen in list.split('|') {
        let p = pos(sfen.trim());
        let t = Instant::now();
        let limits = MateLimits {
            deadline: None,
            max_nodes: std::env::var("MATE_NODES")
                .ok()
                .and_then(|s| s.parse().ok()),
        };
        let r = solver.solve(&[p], &limits, &stop);
        let ms = t.elapsed().as_millis();
        match &r {
            MateResult::Mate(line) => println!(
                "{p}\tmate {} nodes {} ms {ms}: {}",
                line.len(),
                solver.nodes(),
                line_text(line)
            ),
            other => println!("{p}\t{other:?} nodes {} ms {ms}", solver.nodes()),
        }
    }
}
