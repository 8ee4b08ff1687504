//! SPSA tuning (`gogo::train::spsa`): the schedule's numbers, a tiny run that is the same
//! whatever the thread count and however often it is stopped (or killed) and resumed, the
//! update rule, bounds, the state file's refusal of other settings, and the printed constants.

mod common;

use common::child::kill_ignored_test_at;
use gogo::params::{
    param_spec, SearchParams, LMP_BASE, LMR_BASE, LMR_DIVISOR, RFP_MARGIN, SEARCH_PARAMS,
};
use gogo::train::spsa::{
    self, log_path, parse_params, perturbed, run, IterationResult, Param, RunOptions, Schedule,
    Settings, Tuner,
};
use gogo::types::Color;
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gogo-spsa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A tiny run: short games at a few hundred nodes a move.
fn tiny(iterations: u64) -> Settings {
    Settings {
        seed: 3,
        iterations,
        batch: 2,
        nodes: 300,
        hash_mb: 1,
        start_nodes: 200,
        max_plies: 40,
        ..Settings::default()
    }
}

fn opts(threads: usize, until: Option<u64>) -> RunOptions {
    RunOptions {
        threads,
        log_every: 2,
        time_limit: None,
        until,
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_schedule_ends_at_c_end_and_r_end() {
    // Fishtest's numbers for c_end 10, r_end 0.002 and 1000 iterations (A = 100), worked out
    // apart: c = 10 * 1000^0.101, a = 0.002 * 10^2 * 1100^0.602.
    let s = Schedule::new(10.0, 0.002, 1000);
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1.0);
    assert!(close(s.big_a, 100.0), "{s:?}");
    assert!(close(s.c, 20.09092812608728), "{s:?}");
    assert!(close(s.a, 13.550283827094189), "{s:?}");
    assert!(close(s.c_k(1), s.c));
    assert!(close(s.c_k(10), 15.922087270511701));
    assert!(close(s.a_k(1), 0.8420675373028179));
    assert!(close(s.a_k(10), 0.799889499522195));
    assert!(close(s.c_k(1000), 10.0));
    assert!(close(s.r_k(1000), 0.002));
    // theta moves by a_k / c_k per point of the pair's result, along delta.
    assert!(close(s.step(1, 2, -1), -0.0838256482744992));
    assert_eq!(s.step(7, 0, 1), 0.0);
    // Both shrink as the run goes on.
    assert!(s.c_k(500) < s.c_k(100) && s.a_k(500) < s.a_k(100));
}

#[test]
fn values_played_stay_within_the_bounds_and_integers_are_rounded() {
    let params: Vec<Param> = ["RFP_MARGIN", "LMR_BASE"]
        .iter()
        .map(|n| Param::from_spec(param_spec(n).unwrap(), 0.002))
        .collect();
    let schedules: Vec<Schedule> = params
        .iter()
        .map(|p| Schedule::new(p.c_end, p.r_end, 100))
        .collect();
    let c = schedules[0].c_k(1);
    // RFP_MARGIN at its upper bound: the plus side cannot go beyond it.
    let theta = [params[0].max, 0.75];
    let plus = perturbed(&params, &schedules, &theta, 1, &[1, -1], 1.0);
    let minus = perturbed(&params, &schedules, &theta, 1, &[1, -1], -1.0);
    assert_eq!(plus[0], params[0].max);
    assert!((minus[0] - (params[0].max - c)).abs() < 1e-9);
    assert!((plus[1] - (0.75 - schedules[1].c_k(1))).abs() < 1e-12);
    let sp = spsa::search_params(&params, &minus);
    assert_eq!(sp.rfp_margin, (params[0].max - c).round() as i32);
    assert_eq!(sp.lmr_base, minus[1], "a float parameter is not rounded");
    // The parameters not tuned keep their defaults.
    assert_eq!(sp.futility_margin, SearchParams::default().futility_margin);
}

/// Theta worked out again from the run's iterations: the starts, then each iteration's step
/// `a_k / c_k * result * delta` (the gains computed here from the formulas), clamped.
fn replay(s: &Settings, results: &[IterationResult]) -> Vec<f64> {
    let n = s.iterations as f64;
    let mut theta: Vec<f64> = s.params.iter().map(|p| p.start).collect();
    for r in results {
        let k = r.k as f64;
        for (i, p) in s.params.iter().enumerate() {
            let c_k = p.c_end * n.powf(0.101) / k.powf(0.101);
            let a_k =
                p.r_end * p.c_end * p.c_end * (0.1 * n + n).powf(0.602) / (0.1 * n + k).powf(0.602);
            theta[i] =
                (theta[i] + a_k / c_k * r.result() as f64 * r.delta[i] as f64).clamp(p.min, p.max);
        }
    }
    theta
}

#[test]
fn a_tiny_run_is_deterministic_and_resumes_to_the_state_of_one_run() {
    let dir = temp_dir("resume");
    let s = tiny(6);
    // One run, two threads.
    let whole = dir.join("whole.spsa");
    let mut results = Vec::new();
    let t = run(&whole, s.clone(), &opts(2, None), |_, batch| {
        results.extend_from_slice(batch)
    })
    .unwrap();
    assert!(t.is_done());
    assert_eq!(t.iteration, 6);
    assert_eq!(
        results.iter().map(|r| r.k).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    for r in &results {
        assert_eq!(r.games.len(), 2, "a balanced start was found");
        assert_eq!(
            (r.games[0].plus, r.games[1].plus),
            (Color::Black, Color::White)
        );
        assert_eq!(r.delta.len(), SEARCH_PARAMS.len());
        assert!(r.delta.iter().all(|&d| d == 1 || d == -1));
    }
    assert!(
        results.iter().any(|r| r.result() != 0),
        "some pair was decided: {results:?}"
    );
    assert!(results.iter().any(|r| r.delta != results[0].delta));
    let totals = t.totals;
    assert_eq!((totals.pairs, totals.games), (6, 12));
    assert_eq!(totals.plus_wins + totals.draws + totals.plus_losses, 12);
    // Theta is the replay of the iterations, and moved.
    let expect = replay(&s, &results);
    for ((p, &th), &e) in s.params.iter().zip(&t.theta).zip(&expect) {
        assert!((th - e).abs() < 1e-9, "{}: {th} against {e}", p.name());
        assert!(p.min <= th && th <= p.max);
    }
    assert!(t.theta.iter().zip(&s.params).any(|(&th, p)| th != p.start));

    // The same run on one thread, stopped after two batches and resumed twice: the same state
    // and the same log.
    let parts = dir.join("parts.spsa");
    let mut first_two = Vec::new();
    let t1 = run(&parts, s.clone(), &opts(1, Some(2)), |_, batch| {
        first_two.extend_from_slice(batch)
    })
    .unwrap();
    assert_eq!(t1.iteration, 2);
    assert!(!t1.is_done());
    let t2 = run(&parts, s.clone(), &opts(1, Some(3)), |_, _| {}).unwrap();
    assert_eq!(t2.iteration, 4, "whole batches");
    let t3 = run(&parts, s.clone(), &opts(3, None), |_, _| {}).unwrap();
    assert!(t3.is_done());
    assert_eq!(read(&parts), read(&whole));
    assert_eq!(read(&log_path(&parts)), read(&log_path(&whole)));
    // The log: a header, the start, then every second iteration.
    let log = read(&log_path(&whole));
    let its: Vec<&str> = log
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(its, ["0", "2", "4", "6"], "{log}");
    assert!(log.starts_with("iteration\tpairs\tplus_wins\tdraws\tplus_losses\tASPIRATION_WINDOW"));

    // A complete run plays nothing more.
    let again = run(&whole, s.clone(), &opts(1, None), |_, _| panic!("no batch")).unwrap();
    assert_eq!(again.theta, t.theta);
    // Another seed plays other games (theta may still come out the same: every pair can
    // split 1-1).
    let other = dir.join("other.spsa");
    let s7 = Settings { seed: 7, ..s };
    let mut seven = Vec::new();
    let t7 = run(&other, s7, &opts(2, Some(2)), |_, batch| {
        seven.extend_from_slice(batch)
    })
    .unwrap();
    assert_eq!(t7.iteration, 2);
    let games = |rs: &[IterationResult]| -> Vec<(u32, u64)> {
        rs.iter()
            .flat_map(|r| r.games.iter().map(|g| (g.plies, g.nodes)))
            .collect()
    };
    assert_eq!(games(&first_two).len(), 4);
    assert_ne!(games(&seven), games(&first_two));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn theta_is_kept_within_its_bounds() {
    // One parameter with a narrow range and a learning rate so large that any decided pair
    // throws theta past a bound.
    let dir = temp_dir("bounds");
    let text = "RFP_MARGIN, 120, 100, 140, 8, 50\n";
    // (Most pairs of these 40-ply games split 1-1 or end level: 12 iterations of 2 pairs
    // make a decided one likely; with 4, the search of 3 Dec 2026 decided none.)
    let s = Settings {
        params: parse_params(text, 0.002).unwrap(),
        ..tiny(12)
    };
    let mut results = Vec::new();
    let t = run(&dir.join("b.spsa"), s, &opts(2, None), |_, b| {
        results.extend_from_slice(b)
    })
    .unwrap();
    assert!(
        results.iter().any(|r| r.result() != 0),
        "some pair was decided"
    );
    assert!(
        t.theta[0] == 100.0 || t.theta[0] == 140.0,
        "theta {} at a bound",
        t.theta[0]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_state_refuses_other_settings_and_reads_back_exactly() {
    let dir = temp_dir("settings");
    let path = dir.join("s.spsa");
    let s = tiny(10);
    let mut t = Tuner::new(s.clone()).unwrap();
    t.iteration = 4;
    t.theta[0] = 31.123456789012345;
    t.theta[11] = 0.1 + 0.2; // LMR_BASE: a float that must read back bit for bit
    t.totals.pairs = 4;
    t.totals.games = 8;
    t.save(&path).unwrap();
    let back = Tuner::open(&path, s.clone()).unwrap();
    assert_eq!(back.iteration, 4);
    assert_eq!(back.theta, t.theta);
    assert_eq!(back.totals, t.totals);
    assert_eq!(back.to_text(), read(&path));

    let refused = |other: Settings, words: &[&str]| {
        let e = Tuner::open(&path, other).unwrap_err();
        assert!(e.contains("other settings"), "{e}");
        for w in words {
            assert!(e.contains(w), "'{w}' in: {e}");
        }
    };
    refused(
        Settings {
            nodes: 301,
            ..s.clone()
        },
        &["nodes", "'300'", "'301'"],
    );
    refused(
        Settings {
            iterations: 11,
            seed: 4,
            ..s.clone()
        },
        &["iterations", "seed"],
    );
    refused(
        Settings {
            batch: 1,
            ..s.clone()
        },
        &["batch"],
    );
    refused(
        Settings {
            openings: vec!["startpos".into()],
            ..s.clone()
        },
        &["openings"],
    );
    // Other parameters, or one left out, or another c_end.
    let mut fewer = s.clone();
    fewer.params.remove(3);
    refused(fewer, &["param.NMP_MIN_DEPTH", "does not tune"]);
    let mut wider = s.clone();
    wider.params[2].c_end = 9.0;
    refused(wider, &["param.RFP_MARGIN"]);
    // A damaged state is refused too, not taken for a new one.
    let theta_line = format!("theta.RFP_MARGIN={RFP_MARGIN}");
    let text = read(&path);
    assert!(text.contains(&theta_line), "{theta_line} in {text}");
    std::fs::write(&path, text.replace(&theta_line, "theta.RFP_MARGIN=x")).unwrap();
    assert!(Tuner::open(&path, s)
        .unwrap_err()
        .contains("theta.RFP_MARGIN"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parameter_files_are_checked() {
    let p = parse_params(
        "# comment\nRFP_MARGIN, 95, 50, 150, 6\n\nLMR_BASE,0.8,0.5,1.2,0.05,0.004 # note\n",
        0.002,
    )
    .unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(
        (p[0].name(), p[0].start, p[0].min, p[0].max),
        ("RFP_MARGIN", 95.0, 50.0, 150.0)
    );
    assert_eq!((p[0].c_end, p[0].r_end), (6.0, 0.002));
    assert_eq!((p[1].name(), p[1].r_end), ("LMR_BASE", 0.004));
    for (bad, why) in [
        ("NO_SUCH, 1, 0, 2, 1", "no search parameter"),
        ("RFP_MARGIN, 95, 0, 150, 6", "within"),
        ("RFP_MARGIN, 200, 50, 150, 6", "outside"),
        ("RFP_MARGIN, 95, 50, 150, 0", "positive"),
        ("RFP_MARGIN, 95, 50, 150", "want NAME"),
        ("RFP_MARGIN, 95, 50, x, 6", "not a number"),
        (
            "RFP_MARGIN, 95, 50, 150, 6\nRFP_MARGIN, 95, 50, 150, 6",
            "twice",
        ),
        ("# nothing", "no parameter"),
    ] {
        let e = parse_params(bad, 0.002).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    // What `spsa params` writes reads back as the table.
    let all = spsa::table_params(0.002);
    assert_eq!(parse_params(&spsa::format_params(&all), 0.1).unwrap(), all);
}

#[test]
fn the_values_print_as_rust_constants() {
    let mut t = Tuner::new(tiny(10)).unwrap();
    let idx = |n: &str| {
        t.settings
            .params
            .iter()
            .position(|p| p.name() == n)
            .unwrap()
    };
    let (rfp, lmr, lmp) = (idx("RFP_MARGIN"), idx("LMR_BASE"), idx("LMP_BASE"));
    t.theta[rfp] = 93.6;
    t.theta[lmr] = 0.8;
    t.theta[lmp] = 4.49;
    let text = spsa::show(&t.to_text()).unwrap();
    // The starts are the table's defaults, the constants of src/params.rs.
    let line = |name: &str, ty: &str, value: &str, start: f64, theta: &str| {
        format!("pub const {name}: {ty} = {value}; // start {start}, theta {theta}\n")
    };
    for expected in [
        line("RFP_MARGIN", "i32", "94", RFP_MARGIN as f64, "93.600"),
        line("LMR_BASE", "f64", "0.8", LMR_BASE, "0.800"),
        line("LMP_BASE", "usize", "4", LMP_BASE as f64, "4.490"),
    ] {
        assert!(text.contains(&expected), "{expected} in {text}");
    }
    // An untouched parameter keeps its start.
    let untouched = format!("pub const LMR_DIVISOR: f64 = {LMR_DIVISOR};");
    assert!(text.contains(&untouched), "{untouched} in {text}");
    assert_eq!(text.matches("pub const").count(), SEARCH_PARAMS.len());
    assert_eq!(text.lines().count(), SEARCH_PARAMS.len() + 1);
    assert!(text.starts_with("// SPSA: iteration 0 of 10"), "{text}");
    assert_eq!(t.rust_constants(), text.split_once('\n').unwrap().1);
    assert!(spsa::show("iteration=3\n").is_err());
}

/// The run the kill test's child process plays (`GOGO_SPSA_CHILD_STATE`); not a test of its
/// own, run only by `a_run_killed_by_sigkill_resumes_to_the_state_of_one_run`.
#[test]
#[ignore]
fn spsa_child_process() {
    if let Ok(path) = std::env::var("GOGO_SPSA_CHILD_STATE") {
        run(Path::new(&path), tiny(8), &opts(1, None), |_, _| {}).unwrap();
    }
}

fn state_iteration(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("iteration=").map(str::to_string))
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_run_killed_by_sigkill_resumes_to_the_state_of_one_run() {
    let dir = temp_dir("kill");
    let whole = dir.join("whole.spsa");
    run(&whole, tiny(8), &opts(2, None), |_, _| {}).unwrap();
    let killed = dir.join("killed.spsa");
    let mut kills = 0;
    for target in [2, 4] {
        if kill_ignored_test_at(
            "spsa_child_process",
            "GOGO_SPSA_CHILD_STATE",
            &killed,
            target,
            || state_iteration(&killed),
        ) {
            kills += 1;
        }
    }
    let done = state_iteration(&killed);
    assert!(
        kills >= 1 && done < 8,
        "the child was killed mid-run ({done} iterations)"
    );
    let t = run(&killed, tiny(8), &opts(1, None), |_, _| {}).unwrap();
    assert!(t.is_done());
    assert_eq!(read(&killed), read(&whole));
    assert_eq!(read(&log_path(&killed)), read(&log_path(&whole)));
    let _ = std::fs::remove_dir_all(&dir);
}
