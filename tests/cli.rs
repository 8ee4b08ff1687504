//! The command line: `--help`, `--version`, the perft tool, and errors on standard error with a
//! non-zero exit.

use std::process::{Command, Output};

fn gogo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gogo"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_and_version() {
    let out = gogo(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).trim(),
        format!("gogo {}", env!("CARGO_PKG_VERSION"))
    );
    let out = gogo(&["--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for word in ["perft", "bench", "USI"] {
        assert!(help.contains(word), "{word}: {help}");
    }
    let out = gogo(&["perft", "--help"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("SFEN"));
}

#[test]
fn perft_of_any_position() {
    for (args, total) in [
        (vec!["perft", "3"], 2_512u64),
        (vec!["perft", "3", "4k/5/5/5/K4 b P 1"], 423),
        (
            vec!["perft", "3", "sfen", "4k/5/5/5/K4", "b", "P", "1"],
            423,
        ),
        (
            vec!["perft", "4", "startpos", "moves", "2e3d", "4a3b"],
            39_242,
        ),
    ] {
        let out = gogo(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(
            stdout.ends_with(&format!("Nodes searched: {total}\n")),
            "{args:?}: {stdout}"
        );
        // Timing goes to standard error, never into the counts.
        assert!(text(&out.stderr).contains("leaves in"), "{args:?}");
    }
}

#[test]
fn errors_go_to_stderr_with_a_failing_exit() {
    for (args, needle) in [
        (vec!["perft", "3", "not an sfen"], "bad SFEN"),
        (
            vec!["perft", "2", "startpos", "moves", "5e5a"],
            "illegal move 5e5a",
        ),
        (vec!["perft", "13"], "more than 12"),
        (vec!["perft"], "DEPTH"),
        (vec!["frobnicate"], "unrecognized subcommand"),
        (vec!["bench", "0"], "0"),
    ] {
        let out = gogo(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("backtrace"), "{args:?}: {err}");
    }
}

/// `gogo bench 2 | head -1`: the reader closes the pipe after one line; the tool stops and
/// exits quietly (status 0, nothing on standard error) instead of panicking on the write.
#[test]
fn a_closed_pipe_ends_bench_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gogo"))
        .args(["bench", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("info string position  1:"), "{first}");
    // The reader is gone (dropped with the BufReader above).
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(stderr.is_empty(), "{stderr}");
}
