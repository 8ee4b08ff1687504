//! Unit tests of the search's internals (the node search, repetition, mate scores).

use super::*;
use crate::game::SennichiteRule;
use crate::movegen::{self, legal_moves};
use crate::params::MATE1_MIN_DEPTH;
use crate::position::Position;
use crate::time::Limits;
use crate::tt::TranspositionTable;
use crate::types::{Color, Move};
use std::sync::Arc;
use std::time::Instant;

#[test]
fn mate_scores_survive_the_tt_round_trip() {
    for ply in [0usize, 3, 17] {
        for s in [MATE - 5 - ply as i32, -MATE + 9 + ply as i32, 123, -77] {
            assert_eq!(score_from_tt(score_to_tt(s, ply), ply), s);
        }
    }
}

fn searcher_at(pos: Position, tt: &Arc<TranspositionTable>) -> Searcher {
    let mut s = Searcher::new(tt.clone(), Arc::new(Signals::default()));
    s.stack[0] = pos;
    s.set_game(&[pos]);
    s
}

#[test]
fn an_interior_mate_in_one_ends_the_node_at_once() {
    // The horse mates next to the king; other moves exist by the dozen.
    let pos = Position::from_sfen("2+B2/4g/2k2/G3B/1KS2 b 2RSPp 1").unwrap();
    let mate = crate::mate::mate_in_one(&pos).unwrap();
    for pv_node in [false, true] {
        let tt = Arc::new(TranspositionTable::new(1));
        let mut s = searcher_at(pos, &tt);
        let score = s.search(0, 4, -INFINITY, INFINITY, pv_node, false);
        assert_eq!(score, MATE - 1);
        assert_eq!(s.nodes, 1, "the node itself only");
        assert_eq!(tt.probe(pos.key()).unwrap().mv, mate);
        if pv_node {
            assert_eq!(&s.pv[0][..s.pv_len[0]], &[mate]);
        }
        // Below the minimum depth the moves are searched, to the same score.
        let tt = Arc::new(TranspositionTable::new(1));
        let mut s = searcher_at(pos, &tt);
        let score = s.search(0, MATE1_MIN_DEPTH - 1, -INFINITY, INFINITY, pv_node, false);
        assert_eq!(score, MATE - 1);
        assert!(s.nodes > 1);
    }
    // No shortcut when the only mate in one is a pawn drop (uchifuzume, not a legal move).
    let pos = Position::from_sfen("4k/p1S2/3G1/5/K4 b P 1").unwrap();
    let b1 = crate::types::Square::new(9);
    assert!(movegen::is_pawn_drop_mate(&pos, b1));
    assert_eq!(crate::mate::mate_in_one(&pos), None);
    let tt = Arc::new(TranspositionTable::new(1));
    let mut s = searcher_at(pos, &tt);
    assert!(s.search(0, 4, -INFINITY, INFINITY, false, false) < MATE - 1);
    assert!(s.nodes > 1);
}

#[test]
fn a_singular_extension_search_leaves_its_move_out() {
    // G*1b is the only move that leaves gote no legal reply (the pawn on 1c guards the
    // gold; gote's pawn rules out a stalemate by G*3b).
    let pos = Position::from_sfen("4k/1p3/4P/5/K4 b G 1").unwrap();
    let mate: Move = crate::mate::mate_in_one(&pos).unwrap();
    assert_eq!(mate.to_string(), "G*1b");
    for pv_node in [false, true] {
        let tt = Arc::new(TranspositionTable::new(1));
        let mut s = searcher_at(pos, &tt);
        assert_eq!(
            s.search(0, 4, -INFINITY, INFINITY, pv_node, false),
            MATE - 1
        );
        // The same node with the mate left out: no mate in one, and no table entry
        // written for the node (its result holds for a subset of the moves only).
        let tt = Arc::new(TranspositionTable::new(1));
        let mut s = searcher_at(pos, &tt);
        s.skip_move[0] = mate;
        let score = s.search(0, 4, -INFINITY, INFINITY, pv_node, false);
        assert!(score < MATE - 1, "{score}");
        assert!(tt.probe(pos.key()).is_none());
    }
}

/// `repetition_score` as a scan of the whole game (the root at `root`), the reference the
/// index must agree with exactly: a cycle within the search ends the game, a repetition of
/// the game before the root only as the fourth occurrence, the cycle counted from the first
/// of the four.
fn scanned_repetition_score(
    keys: &[u64],
    checks: &[bool],
    root: usize,
    us: Color,
    rule: SennichiteRule,
) -> Option<i32> {
    let n = keys.len() - 1;
    if n < 4 {
        return None;
    }
    let mut j = n - 4;
    loop {
        if keys[j] == keys[n] {
            if j < root {
                let same: Vec<usize> = (0..=j)
                    .rev()
                    .step_by(2)
                    .filter(|&i| keys[i] == keys[n])
                    .collect();
                j = *same.get(2)?;
            }
            let they_checked = (j + 2..=n).step_by(2).all(|i| checks[i]);
            let we_checked = (j + 1..n).step_by(2).all(|i| checks[i]);
            return Some(match (they_checked, we_checked) {
                (true, false) => REPETITION_WIN,
                (false, true) => -REPETITION_WIN,
                _ => match rule.winner() {
                    None => 0,
                    Some(c) if c == us => REPETITION_WIN,
                    Some(_) => -REPETITION_WIN,
                },
            });
        }
        if j < 2 {
            return None;
        }
        j -= 2;
    }
}

/// A pseudo-random walk of `plies` from `start` among the first few legal moves (a small
/// world that repeats often), with a null move now and then when `nulls`.
fn walk(start: Position, plies: usize, seed: &mut u64, nulls: bool) -> Vec<Position> {
    let mut line = vec![start];
    let mut pos = start;
    for _ in 0..plies {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let r = (*seed >> 33) as usize;
        let moves = legal_moves(&pos);
        if nulls && r.is_multiple_of(5) && !pos.in_check() {
            pos.do_null_move();
        } else if moves.is_empty() {
            break;
        } else {
            pos = pos.after(moves.as_slice()[r % moves.len().min(3)]);
        }
        line.push(pos);
    }
    line
}

#[test]
fn the_game_index_finds_what_the_scan_found() {
    let tt = Arc::new(TranspositionTable::new(1));
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut found = [0usize; 3];
    for sfen in [
        "4k/2R2/5/5/K4 b - 1",
        "4k/1r3/5/3G1/K4 b - 1",
        "4k/5/2B2/5/K4 w - 1",
    ] {
        let start = Position::from_sfen(sfen).unwrap();
        for rule in [SennichiteRule::Draw, SennichiteRule::GoteWins] {
            for _ in 0..20 {
                // A game, then a search path (with null moves) from its last position.
                let game_len = (seed >> 40) as usize % 60;
                let history = walk(start, game_len, &mut seed, false);
                let root = *history.last().unwrap();
                let path = walk(root, 40, &mut seed, true);
                let mut s = searcher_at(root, &tt);
                s.config.sennichite = rule;
                s.set_game(&history);
                let mut keys: Vec<u64> = history.iter().map(|p| p.key()).collect();
                let mut checks: Vec<bool> = history.iter().map(|p| p.in_check()).collect();
                for (ply, p) in path.iter().enumerate().skip(1).take(MAX_PLY) {
                    s.stack[ply] = *p;
                    s.push_key(ply);
                    keys.push(p.key());
                    checks.push(p.in_check());
                    let us = p.side_to_move();
                    let want =
                        scanned_repetition_score(&keys, &checks, history.len() - 1, us, rule);
                    assert_eq!(s.repetition_score(us), want, "{sfen} {history:?} {ply}");
                    found[match want {
                        None => 0,
                        Some(0) => 1,
                        Some(_) => 2,
                    }] += 1;
                }
            }
        }
    }
    // The walks met repetitions of both kinds, not only fresh positions.
    assert!(found.iter().all(|&n| n > 0), "{found:?}");
}

/// The positions of the game from `start` through `moves`.
fn game_line<'a>(start: Position, moves: impl IntoIterator<Item = &'a str>) -> Vec<Position> {
    let mut line = vec![start];
    for m in moves {
        let last = *line.last().unwrap();
        let mv = crate::notation::parse_move(&last, m).unwrap();
        line.push(last.after(mv));
    }
    line
}

#[test]
fn a_position_of_the_game_repeated_once_does_not_end_it() {
    // Against Fairy-Stockfish (3 Dec 2026): after 3e2d 3a2b 1e1d 2a3a 1d1e, gote's 3a2a
    // brings back the position after 3e2d 3a2b. The search scored that node as sennichite
    // won by gote (gote-wins) at depth 2, played 3a2a, and sente simply left the cycle.
    let opening = ["3e2d", "3a2b"];
    let cycle = ["1e1d", "2a3a", "1d1e", "3a2a"];
    let tt = Arc::new(TranspositionTable::new(1));
    // `times` cycles played, then the first three moves of one more: gote's 3a2a brings
    // back the position after the opening for the (times + 2)-th time.
    let verdict = |times: usize| {
        let moves = opening
            .iter()
            .chain(cycle.iter().cycle().take(4 * times + 3))
            .copied();
        let game = game_line(Position::startpos(), moves);
        let root = *game.last().unwrap();
        let mut s = searcher_at(root, &tt);
        s.config.sennichite = SennichiteRule::GoteWins;
        s.set_game(&game);
        s.stack[1] = root.after(crate::notation::parse_move(&root, "3a2a").unwrap());
        s.push_key(1);
        s.repetition_score(Color::Black)
    };
    assert_eq!(verdict(0), None, "second occurrence");
    assert_eq!(verdict(1), None, "third occurrence");
    assert_eq!(
        verdict(2),
        Some(-REPETITION_WIN),
        "fourth occurrence: sente loses"
    );
    assert_eq!(verdict(3), Some(-REPETITION_WIN), "fifth occurrence");

    // The search from that root no longer reports a won sennichite.
    let game = game_line(
        Position::startpos(),
        ["3e2d", "3a2b", "1e1d", "2a3a", "1d1e"],
    );
    let root = *game.last().unwrap();
    let limits = Limits {
        depth: Some(6),
        ..Default::default()
    };
    let config = SearchConfig {
        mate_probe: false,
        sennichite: SennichiteRule::GoteWins,
        ..Default::default()
    };
    let mut s = searcher_at(root, &tt);
    let r = s.think(&game, &limits, &[], &config);
    assert!(r.score < REPETITION_WIN / 2, "{} {:?}", r.score, r.best);
}

#[test]
fn a_long_cycle_game_searches_like_a_short_one() {
    // Issue 15: a game of 200,000 plies made every node scan the game. The same cycle
    // played 4 times (every position of it already occurred three times) or 50,000 times
    // gives every node the same repetition verdict, hence the same search.
    let rook = Position::from_sfen("4k/2R2/5/5/K4 b - 1").unwrap();
    let perpetual = ["3b3a", "1a1b", "3a3b", "1b1a"];
    let quiet = ["5e4d", "1a2b", "4d5e", "2b1a"];
    for (start, cycle) in [(rook, perpetual), (Position::startpos(), quiet)] {
        let game = |times: usize| game_line(start, cycle.iter().cycle().take(4 * times).copied());
        let limits = Limits {
            depth: Some(6),
            ..Default::default()
        };
        let config = SearchConfig {
            mate_probe: false,
            ..Default::default()
        };
        let search = |history: &[Position]| {
            let tt = Arc::new(TranspositionTable::new(1));
            let mut s = searcher_at(start, &tt);
            let r = s.think(history, &limits, &[], &config);
            (r.best, r.score, r.depth, r.nodes)
        };
        let short = search(&game(4));
        let long = search(&game(50_000));
        assert_eq!(long, short);
    }
}

/// Measures nodes per second at depth 14 on the start position and at the end of a
/// 200,000-ply cycle game (issue 15). Release only: `cargo test --release -- --ignored
/// long_game_nps --nocapture`.
#[test]
#[ignore]
fn long_game_nps() {
    let cycle = ["5e4d", "1a2b", "4d5e", "2b1a"];
    let history = game_line(
        Position::startpos(),
        cycle.iter().cycle().take(200_000).copied(),
    );
    let limits = Limits {
        depth: Some(14),
        ..Default::default()
    };
    let config = SearchConfig {
        mate_probe: false,
        ..Default::default()
    };
    let nps = |history: &[Position]| {
        let tt = Arc::new(TranspositionTable::new(16));
        let mut s = searcher_at(Position::startpos(), &tt);
        let started = Instant::now();
        let r = s.think(history, &limits, &[], &config);
        let secs = started.elapsed().as_secs_f64();
        (r.nodes, r.nodes as f64 / secs)
    };
    let (short_nodes, short) = nps(&history[..1]);
    let (long_nodes, long) = nps(&history);
    println!("start position: {short_nodes} nodes, {short:.0} nps");
    println!("after 200,000 plies: {long_nodes} nodes, {long:.0} nps");
    // The setup (indexing the game) is in the long figure; before the index it was 70
    // times slower. A loose bound: the machine may be shared.
    assert!(long > short / 4.0, "{long:.0} nps against {short:.0}");
    let started = Instant::now();
    let depth1 = Limits {
        depth: Some(1),
        ..Default::default()
    };
    let tt = Arc::new(TranspositionTable::new(16));
    searcher_at(Position::startpos(), &tt).think(&history, &depth1, &[], &config);
    println!("depth 1 after 200,000 plies: {:?}", started.elapsed());
}

#[test]
fn the_table_keeps_no_score_of_a_repetition() {
    // Two cycles of the opening's moves, then 1e1d 2a3a: sente's 1d1e lets gote's 3a2a
    // bring back the position after 3e2d 3a2b for the fourth time (sennichite, won by gote
    // under gote-wins). That outcome belongs to this game's path, not to the position after
    // 1d1e: reached another way, the position is an ordinary one. The table keeps the node's
    // move and evaluation but no score.
    let moves = ["3e2d", "3a2b"]
        .iter()
        .chain(["1e1d", "2a3a", "1d1e", "3a2a"].iter().cycle().take(10))
        .copied();
    let game = game_line(Position::startpos(), moves);
    let root = *game.last().unwrap();
    let node = root.after(crate::notation::parse_move(&root, "1d1e").unwrap());
    let tt = Arc::new(TranspositionTable::new(1));
    let limits = Limits {
        depth: Some(5),
        ..Default::default()
    };
    let config = SearchConfig {
        mate_probe: false,
        sennichite: SennichiteRule::GoteWins,
        ..Default::default()
    };
    let mut s = searcher_at(root, &tt);
    s.think(&game, &limits, &[], &config);
    let e = tt
        .probe(node.key())
        .expect("the node after 1d1e was searched");
    assert_eq!(e.mv, crate::notation::parse_move(&node, "3a2a").unwrap());
    assert_eq!(e.bound, crate::tt::Bound::None, "{e:?}");
}

#[test]
fn a_timed_search_hands_its_score_to_the_next_one_of_the_game() {
    // The time rule compares the score with that of our previous move's search: it counts
    // only when that search was timed and its root is the position two plies back.
    let game = game_line(Position::startpos(), ["3e2d", "3a2b"]);
    let timed = Limits {
        time: [Some(2000), Some(2000)],
        ..Default::default()
    };
    let config = SearchConfig {
        mate_probe: false,
        ..Default::default()
    };
    let tt = Arc::new(TranspositionTable::new(1));
    let mut s = searcher_at(*game.last().unwrap(), &tt);
    let r = s.think(&game, &timed, &[], &config);
    let best = r.best.expect("a move");
    let after = game.last().unwrap().after(best);
    let answer = legal_moves(&after).as_slice()[0];
    let mut later = game.clone();
    later.push(after);
    later.push(after.after(answer));
    assert_eq!(s.previous_score(&later), Some(r.score));
    // Not the game that search was in: its root is not two plies back.
    assert_eq!(s.previous_score(&game), None);
    assert_eq!(s.previous_score(&later[..later.len() - 1]), None);
    // An untimed search hands nothing on.
    let depth = Limits {
        depth: Some(3),
        ..Default::default()
    };
    s.think(&game, &depth, &[], &config);
    assert_eq!(s.previous_score(&later), None);
    // A timed search hands it on again; a new game (`clear`, as `usinewgame`) drops it.
    s.think(&game, &timed, &[], &config);
    assert!(s.previous_score(&later).is_some());
    s.clear();
    assert_eq!(s.previous_score(&later), None);
}
