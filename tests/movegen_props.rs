//! Properties over many random games (fixed seed) that perft alone cannot see.

mod common;

use common::{RefPos, Rng};
use gogo::movegen::{
    checks, count_legal, evasions, generate, gives_check, has_legal_move, is_legal, legal_moves,
    quiet_checks, CheckInfo, MoveList, DROPS, NOISY, QUIET,
};
use gogo::position::Position;
use gogo::types::Move;
use std::collections::BTreeSet;

/// Start positions: the start position and every data position.
fn seeds() -> Vec<Position> {
    let mut v = vec![Position::startpos()];
    for r in common::data_rows("perft.tsv") {
        v.push(Position::from_sfen(&r[0]).unwrap());
    }
    v
}

/// Plays random games and calls `check` on every position reached.
fn random_positions(games: usize, max_plies: usize, mut check: impl FnMut(&Position)) {
    let mut rng = Rng::new(0x5eed);
    let seeds = seeds();
    for g in 0..games {
        let mut pos = seeds[g % seeds.len()];
        for _ in 0..max_plies {
            check(&pos);
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            // Prefer captures and drops now and then so hands fill up.
            let m = moves.as_slice()[rng.below(moves.len())];
            let before = pos;
            let next = pos.after(m);
            assert_eq!(before, pos, "copy-make must leave the original untouched");
            pos = next;
        }
    }
}

fn strings(list: &MoveList) -> BTreeSet<String> {
    list.iter().map(|m| m.to_string()).collect()
}

#[test]
fn generator_equals_reference_and_keys_and_sfen_hold() {
    let mut n = 0;
    random_positions(400, 60, |pos| {
        n += 1;
        assert_eq!(pos.key(), pos.compute_key(), "incremental key of {pos}");
        let sfen = pos.to_sfen();
        let back = Position::from_sfen(&sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        assert_eq!(&back, pos, "SFEN round trip of {sfen}");
        assert_eq!(back.to_sfen(), sfen);

        let legal = legal_moves(pos);
        let ours = strings(&legal);
        assert_eq!(ours.len(), legal.len(), "duplicate moves in {sfen}");
        let reference = RefPos::from_sfen(&sfen).legal_moves();
        assert_eq!(ours, reference, "legal moves of {sfen}");
        assert_eq!(count_legal(pos), legal.len() as u64, "bulk count of {sfen}");
    });
    assert!(n > 10_000, "only {n} positions");
}

#[test]
fn specialised_generators_partition_the_legal_moves() {
    random_positions(300, 60, |pos| {
        let all = legal_moves(pos);
        let mut parts = MoveList::new();
        for class in [NOISY, QUIET, DROPS] {
            let mut l = MoveList::new();
            generate(pos, class, &mut l);
            for &m in l.iter() {
                let capture = !m.is_drop() && pos.piece_on(m.to()).is_some();
                match class {
                    NOISY => assert!(capture || m.is_promotion(), "{m} is not noisy"),
                    QUIET => assert!(!capture && !m.is_promotion() && !m.is_drop(), "{m}"),
                    _ => assert!(m.is_drop()),
                }
                parts.push(m);
            }
        }
        let mut a: Vec<Move> = all.as_slice().to_vec();
        let mut b: Vec<Move> = parts.as_slice().to_vec();
        a.sort();
        b.sort();
        assert_eq!(a, b, "noisy + quiet + drops of {pos}");

        let ev = evasions(pos);
        if pos.in_check() {
            assert_eq!(strings(&ev), strings(&all));
        } else {
            assert!(ev.is_empty());
        }

        let want: BTreeSet<String> = all
            .iter()
            .filter(|&&m| pos.after(m).in_check())
            .map(|m| m.to_string())
            .collect();
        assert_eq!(strings(&checks(pos)), want, "checks of {pos}");
        let mut info = CheckInfo::new(pos);
        for &m in all.iter() {
            let want = pos.after(m).in_check();
            assert_eq!(gives_check(pos, m), want, "gives_check {m} in {pos}");
            assert_eq!(info.gives_check(pos, m), want, "CheckInfo {m} in {pos}");
        }
    });
}

#[test]
fn quiet_checks_are_the_checking_quiet_moves_and_drops_in_generation_order() {
    let (mut drops, mut discovered, mut board) = (0, 0, 0);
    random_positions(300, 60, |pos| {
        let mut quiet = MoveList::new();
        generate(pos, QUIET | DROPS, &mut quiet);
        let want: Vec<Move> = quiet
            .iter()
            .copied()
            .filter(|&m| pos.after(m).in_check())
            .collect();
        let mut got = MoveList::new();
        quiet_checks(pos, &mut got);
        assert_eq!(got.as_slice(), want.as_slice(), "quiet checks of {pos}");
        for &m in &want {
            if m.is_drop() {
                drops += 1;
            } else {
                board += 1;
                // Discovered: the man that moved does not itself attack the king.
                let after = pos.after(m);
                if !after.checkers().has(m.to()) || after.checkers().more_than_one() {
                    discovered += 1;
                }
            }
        }
    });
    // The walk meets every kind of quiet check, so the comparison is not empty.
    assert!(
        drops > 100 && board > 100 && discovered > 10,
        "{drops} {board} {discovered}"
    );
}

#[test]
fn is_legal_agrees_with_the_generator_on_every_encoding() {
    random_positions(60, 50, |pos| {
        let all = legal_moves(pos);
        for raw in 0..8192u16 {
            let m = Move::from_raw(raw);
            assert_eq!(is_legal(pos, m), all.contains(m), "is_legal({m}) in {pos}");
        }
    });
}

#[test]
fn has_legal_move_agrees_with_the_count_also_after_checks() {
    let (mut positions, mut mated) = (0, 0);
    random_positions(300, 60, |pos| {
        let mut check = |p: &Position| {
            positions += 1;
            let any = count_legal(p) > 0;
            mated += usize::from(!any);
            assert_eq!(has_legal_move(p), any, "{p}");
        };
        check(pos);
        for &m in legal_moves(pos).iter() {
            if gives_check(pos, m) {
                check(&pos.after(m));
            }
        }
    });
    // Both answers were exercised.
    assert!(mated > 0 && mated < positions, "{mated} of {positions}");
}

#[test]
fn retain_keeps_the_chosen_moves_in_order() {
    let pos = Position::startpos();
    let all = legal_moves(&pos);
    let mut kept = all.clone();
    kept.retain(|m| m.is_drop() || m.to().index() % 2 == 0);
    let expected: Vec<Move> = all
        .iter()
        .copied()
        .filter(|m| m.is_drop() || m.to().index() % 2 == 0)
        .collect();
    assert!(!expected.is_empty() && expected.len() < all.len());
    assert_eq!(kept.as_slice(), &expected[..]);
    // From an index on: the moves before it stay whatever `keep` says of them.
    let mut tail = all.clone();
    tail.retain_from(3, |_| false);
    assert_eq!(tail.as_slice(), &all.as_slice()[..3]);
    let mut tail = all.clone();
    tail.retain_from(3, |m| m.is_drop() || m.to().index() % 2 == 0);
    let mut want: Vec<Move> = all.as_slice()[..3].to_vec();
    want.extend(
        expected
            .iter()
            .copied()
            .filter(|m| !all.as_slice()[..3].contains(m)),
    );
    assert_eq!(tail.as_slice(), &want[..]);
}
