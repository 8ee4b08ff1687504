//! Perft against the reference data: start position and every position of tests/data.

mod common;

use gogo::movegen::legal_moves;
use gogo::perft::perft;
use gogo::position::Position;

fn startpos_counts() -> Vec<u64> {
    common::data_rows("startpos-perft.txt")
        .iter()
        .map(|r| r[1].trim().parse().unwrap())
        .collect()
}

fn check_startpos(depth: usize) {
    let counts = startpos_counts();
    assert_eq!(
        perft(&Position::startpos(), depth as u32),
        counts[depth - 1],
        "depth {depth}"
    );
}

#[test]
fn startpos_perft_1_to_6() {
    for d in 1..=6 {
        check_startpos(d);
    }
}

#[test]
#[ignore = "deep: run in release with --ignored"]
fn startpos_perft_7() {
    check_startpos(7);
}

#[test]
#[ignore = "deep: run in release with --ignored"]
fn startpos_perft_8() {
    check_startpos(8);
}

/// (sfen, counts by depth) for every row of perft.tsv.
fn perft_rows() -> Vec<(String, Vec<u64>)> {
    common::data_rows("perft.tsv")
        .into_iter()
        .map(|r| {
            // sfen, 4 or 5 counts, comment last
            let counts = r[1..r.len() - 1]
                .iter()
                .map(|c| c.parse().unwrap())
                .collect();
            (r[0].clone(), counts)
        })
        .collect()
}

fn check_rows(depths: std::ops::RangeInclusive<usize>) {
    let rows = perft_rows();
    assert_eq!(rows.len(), 340);
    let mut failures = Vec::new();
    for (sfen, counts) in &rows {
        let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        for d in depths.clone() {
            if let Some(&want) = counts.get(d - 1) {
                let got = perft(&pos, d as u32);
                if got != want {
                    failures.push(format!("{sfen} depth {d}: got {got}, want {want}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn data_positions_depth_1_to_3() {
    check_rows(1..=3);
}

#[test]
#[ignore = "deep: run in release with --ignored"]
fn data_positions_depth_4_and_5() {
    check_rows(4..=5);
}

#[test]
fn data_move_lists_match_move_for_move() {
    let rows = common::data_rows("perft-moves.tsv");
    assert_eq!(rows.len(), 340);
    for r in rows {
        let pos = Position::from_sfen(&r[0]).unwrap();
        let mut got: Vec<String> = legal_moves(&pos).iter().map(|m| m.to_string()).collect();
        got.sort();
        let want: Vec<String> = r
            .get(1)
            .map(|m| m.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let missing: Vec<_> = want.iter().filter(|m| !got.contains(m)).collect();
        let extra: Vec<_> = got.iter().filter(|m| !want.contains(m)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{}: missing {missing:?}, extra {extra:?}",
            r[0]
        );
        assert_eq!(got, want, "{}", r[0]);
    }
}
