//! `Threads` (Lazy SMP): the binary on pipes with several search threads, and the library's
//! `think_with_helpers`.

mod common;

use common::engine::{game_after, Engine, SECOND};
use gogo::game::Game;
use gogo::movegen;
use gogo::search::{helper_skips, SearchConfig, Searcher, Signals};
use gogo::time::Limits;
use gogo::tt::TranspositionTable;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

const MS: Duration = Duration::from_millis(1);

/// An engine with `Threads n`, checked to have accepted it silently.
fn with_threads(n: usize) -> Engine {
    let mut e = Engine::start();
    e.send(&format!("setoption name Threads value {n}"));
    let lines = e.ready();
    assert!(
        lines.iter().all(|l| !l.starts_with("info string")),
        "{lines:?}"
    );
    e
}

/// Checks that `lines` hold exactly one `bestmove`, legal in `game` (its ponder move too), that
/// every PV is legal, and that the `info depth` lines come from one thread: the depths of the
/// exact (not lowerbound/upperbound) lines never go down. Returns the move.
fn check_bestmove(lines: &[String], game: &Game) -> String {
    // The signals check also replays every PV from the root.
    let mv = common::engine::check_bestmove(lines, game);
    let mut last_depth = 0;
    for l in lines.iter().filter(|l| l.starts_with("info depth")) {
        assert!(l.contains(" pv "), "info lines have a pv: {l}");
        if !l.contains("lowerbound") && !l.contains("upperbound") {
            let d: i32 = l.split_whitespace().nth(2).unwrap().parse().unwrap();
            assert!(d > last_depth, "depth {d} after {last_depth}: {lines:?}");
            last_depth = d;
        }
    }
    mv
}

/// The `nodes N` of an info line.
fn nodes_of(line: &str) -> u64 {
    let t: Vec<&str> = line.split_whitespace().collect();
    let i = t.iter().position(|w| *w == "nodes").unwrap();
    t[i + 1].parse().unwrap()
}

#[test]
fn threads_option_is_accepted_and_checked() {
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", 2 * SECOND);
    assert!(lines
        .iter()
        .any(|l| l == "option name Threads type spin default 1 min 1 max 256"));
    for bad in ["0", "257", "two"] {
        e.send(&format!("setoption name Threads value {bad}"));
        let lines = e.ready();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string setoption Threads")),
            "{bad}: {lines:?}"
        );
    }
    e.quit();
}

#[test]
fn go_depth_with_two_threads_gives_one_legal_bestmove() {
    let mut e = with_threads(2);
    let moves = "2e3d 4a3b";
    e.send(&format!("position startpos moves {moves}"));
    e.send("go depth 9");
    let lines = e.until("bestmove", 30 * SECOND);
    check_bestmove(&lines, &game_after(moves));
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 9 ")),
        "depth 9 reported: {lines:?}"
    );
    // The node counts (of both threads) only grow from report to report, and each report's
    // nps is its nodes over its time.
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth "))
        .collect();
    let field = |l: &str, name: &str| -> u64 {
        let t: Vec<&str> = l.split_whitespace().collect();
        let i = t.iter().position(|w| *w == name).unwrap();
        t[i + 1].parse().unwrap()
    };
    let nodes: Vec<u64> = infos.iter().map(|l| nodes_of(l)).collect();
    assert!(nodes.windows(2).all(|w| w[0] <= w[1]), "{nodes:?}");
    assert!(nodes[0] > 0, "{nodes:?}");
    for l in &infos {
        let (n, ms) = (field(l, "nodes"), field(l, "time"));
        assert_eq!(field(l, "nps"), n * 1000 / ms.max(1), "{l}");
    }
    // Nothing more comes after the bestmove.
    let late = e.drain(SECOND / 4);
    assert!(late.is_empty(), "{late:?}");
    e.quit();
}

#[test]
fn go_movetime_and_clock_with_threads_answer_in_time() {
    for threads in [2, 3] {
        let mut e = with_threads(threads);
        e.send("position startpos");
        e.ready();
        // From sending go to reading bestmove: within the time plus MoveOverhead (default
        // 50 ms), the helpers' start and end included.
        let (lines, _) = e.timed_go_within("go movetime 400", 450 * MS);
        check_bestmove(&lines, &game_after(""));
        e.send("position startpos moves 3e2d");
        let (lines, _) = e.timed_go_within("go btime 2000 wtime 2000 byoyomi 300", 2350 * MS);
        check_bestmove(&lines, &game_after("3e2d"));
        e.quit();
    }
}

#[test]
fn infinite_and_ponder_with_threads_wait_for_stop_and_ponderhit() {
    let mut e = with_threads(2);
    e.send("position startpos");
    e.send("go infinite");
    let early = e.drain(SECOND / 2);
    assert!(
        early.iter().all(|l| !l.starts_with("bestmove")),
        "{early:?}"
    );
    e.ready(); // answered while the threads search
    e.send("stop");
    let lines = e.until("bestmove", 5 * SECOND);
    let mut all = early;
    all.extend(lines);
    check_bestmove(&all, &game_after(""));
    let late = e.drain(SECOND / 4);
    assert!(late.iter().all(|l| !l.starts_with("bestmove")), "{late:?}");

    e.send("position startpos moves 2e3d");
    e.send("go ponder btime 1000 wtime 1000 byoyomi 300");
    let early = e.drain(SECOND / 2);
    assert!(
        early.iter().all(|l| !l.starts_with("bestmove")),
        "{early:?}"
    );
    e.send("ponderhit");
    let lines = e.until("bestmove", 5 * SECOND);
    let mut all = early;
    all.extend(lines);
    check_bestmove(&all, &game_after("2e3d"));

    // A go infinite that is stopped at once, and a go that replaces a running search: one
    // bestmove each.
    e.send("position startpos");
    e.send("go infinite");
    e.send("stop");
    let lines = e.until("bestmove", 5 * SECOND);
    check_bestmove(&lines, &game_after(""));
    e.send("go infinite");
    std::thread::sleep(SECOND / 5);
    e.send("go depth 4");
    let first = e.until("bestmove", 5 * SECOND);
    check_bestmove(&first, &game_after(""));
    let second = e.until("bestmove", 10 * SECOND);
    check_bestmove(&second, &game_after(""));
    e.quit();
}

#[test]
fn thread_count_changes_and_new_games_between_searches() {
    let mut e = Engine::start();
    let mut moves = String::new();
    for threads in [2, 1, 4, 2] {
        e.send(&format!("setoption name Threads value {threads}"));
        if threads == 4 {
            e.send("usinewgame");
        }
        e.send(&format!("position startpos moves {moves}"));
        e.send("go depth 6");
        let lines = e.until("bestmove", 20 * SECOND);
        let mv = check_bestmove(&lines, &game_after(&moves));
        moves.push(' ');
        moves.push_str(&mv);
    }
    // Nodes limit: counts all threads, still one answer.
    e.send("setoption name Threads value 2");
    e.send("position startpos");
    e.send("go nodes 30000");
    let lines = e.until("bestmove", 20 * SECOND);
    check_bestmove(&lines, &game_after(""));
    e.quit();
}

#[test]
fn quit_while_searching_with_threads_exits() {
    let mut e = with_threads(3);
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(SECOND / 4);
    e.quit();
}

#[test]
fn helpers_spread_over_depths() {
    // The main thread searches every depth.
    assert!((1..100).all(|d| !helper_skips(0, d)));
    // With two or more helpers they never all search, nor all skip, the same depth: they are
    // spread over the depths rather than on one iteration.
    for helpers in 2..40 {
        for d in 1..40 {
            let searching = (1..=helpers).filter(|&t| !helper_skips(t, d)).count();
            assert!(
                searching > 0 && searching < helpers,
                "{helpers} helpers at depth {d}: {searching} search"
            );
        }
    }
    // Every helper searches at least one depth in any window of eight.
    for t in 1..40 {
        for d in 1..40 {
            assert!((d..d + 8).any(|d| !helper_skips(t, d)), "helper {t} at {d}");
        }
    }
}

#[test]
fn library_search_helpers_search_and_their_nodes_are_counted() {
    let tt = Arc::new(TranspositionTable::new(8));
    let signals = Arc::new(Signals::default());
    let mut main = Searcher::new(tt.clone(), signals.clone());
    let mut helpers: Vec<Searcher> = (0..2)
        .map(|_| Searcher::new(tt.clone(), signals.clone()))
        .collect();
    let game = game_after("1e1d 1a2b 1d3d");
    let config = SearchConfig {
        verbose: false,
        ..SearchConfig::default()
    };
    // A fixed time, deeper than it can reach: every thread searches for the whole of it.
    let limits = Limits {
        movetime: Some(300),
        ..Limits::default()
    };
    for _ in 0..2 {
        signals.stop.store(false, Ordering::SeqCst);
        let t = Instant::now();
        let r = main.think_with_helpers(&mut helpers, game.positions(), &limits, &[], &config);
        assert!(t.elapsed().as_millis() < 2000, "{:?}", t.elapsed());
        let best = r.best.expect("a move");
        assert!(movegen::is_legal(game.current(), best));
        let own = main.nodes_searched();
        let theirs: Vec<u64> = helpers.iter().map(Searcher::nodes_searched).collect();
        // Every helper searched a real share of the time (it has its own thread; on a loaded
        // machine it still gets a slice comparable to the main thread's).
        for (i, &n) in theirs.iter().enumerate() {
            assert!(
                n * 10 > own,
                "helper {} searched {n} nodes, main {own}",
                i + 1
            );
        }
        // The result counts every thread's nodes exactly once.
        assert_eq!(
            r.nodes,
            own + theirs.iter().sum::<u64>(),
            "{own} {theirs:?}"
        );
        assert!(r.nodes > own);
        // The main thread's end stops the helpers through the signals flag.
        assert!(signals.stop.load(Ordering::SeqCst));
    }
    // One thread: the count is the searcher's own, and the flag is left alone.
    signals.stop.store(false, Ordering::SeqCst);
    let r = main.think(game.positions(), &limits, &[], &config);
    assert_eq!(r.nodes, main.nodes_searched());
    assert!(r.nodes > 0);
    assert!(!signals.stop.load(Ordering::SeqCst));
}
