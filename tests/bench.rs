//! `bench` is deterministic, and its node count is the one recorded in `tests/data/bench.txt`
//! by the commit that last changed the search.

use std::process::Command;

/// The output of `gogo bench` (the engine binary's subcommand).
fn bench_output() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_gogo"))
        .arg("bench")
        .output()
        .expect("gogo bench runs");
    assert!(out.status.success(), "gogo bench failed: {out:?}");
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The node count of the last line, `<nodes> nodes <nps> nps`.
fn total_nodes(lines: &[String]) -> u64 {
    let last = lines.last().expect("bench prints a summary");
    let f: Vec<&str> = last.split_whitespace().collect();
    assert!(f.len() == 4 && f[1] == "nodes" && f[3] == "nps", "{last}");
    f[0].parse().unwrap()
}

fn recorded_nodes() -> u64 {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bench.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/bench.txt");
    let numbers: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(numbers.len(), 1, "one number in {path}");
    numbers[0].parse().expect("a node count")
}

#[test]
fn bench_is_deterministic_and_matches_the_recorded_node_count() {
    let first = bench_output();
    let second = bench_output();
    // Every line but the speed is the same from run to run.
    assert_eq!(first.len(), second.len());
    assert!(first.len() > 10, "{first:?}");
    assert_eq!(first[..first.len() - 1], second[..second.len() - 1]);
    let nodes = total_nodes(&first);
    assert_eq!(nodes, total_nodes(&second));
    // No position was skipped.
    assert!(first.iter().all(|l| !l.contains("rejected")), "{first:?}");
    assert_eq!(
        nodes,
        recorded_nodes(),
        "bench node count changed: if the search changed on purpose, record the new count in \
         tests/data/bench.txt and say 'Bench: {nodes}' in the commit message"
    );
}
