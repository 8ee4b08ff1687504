//! Mate solver tests (`gogo::mate`).
//!
//! The suite `tests/data/mate.tsv` holds random positions whose shortest mate length (or the
//! absence of a mate) an independent brute force in this file proved; every problem is solved
//! as written and colour-flipped, and every line is checked move by move. Also: mate in one,
//! pawn-drop-mate traps, perpetual checks, repetitions in the game history, limits, random
//! positions against the brute force. Ignored: the slow checks (`cargo test --release --
//! --ignored`). The brute force, the problem files and the position generator live in
//! `tests/common/mate_tools.rs`, shared with the examples `mate_report` (timing),
//! `mate_generate` (candidate problems) and `mate_one`. See docs/mate.md.

mod common;

use common::mate_tools::{line_text, problems, random_position, Brute, Problem};
use common::Rng;
use gogo::mate::{mate_in_one, MateLimits, MateResult, MateSolver};
use gogo::movegen::legal_moves;
use gogo::position::Position;
use gogo::types::Move;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

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

fn suite() -> Vec<Problem> {
    problems("mate.tsv")
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
