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
