//! Killing a test's child process mid-run: the resumable tools (data shards, SPSA state) must
//! continue after a SIGKILL to the bytes of an uninterrupted run.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the ignored test `test` of this test binary as a child process with `env_key` set to
/// `env_value`, waits until `progress()` reaches `target` (or the child ends, or two minutes
/// pass), then kills it with SIGKILL if it still runs. True when it was killed.
pub fn kill_ignored_test_at(
    test: &str,
    env_key: &str,
    env_value: &Path,
    target: u64,
    progress: impl Fn() -> u64,
) -> bool {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--ignored", "--test-threads=1"])
        .env(env_key, env_value)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while progress() < target && t0.elapsed() < Duration::from_secs(120) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed = child.try_wait().unwrap().is_none();
    if killed {
        child.kill().unwrap(); // SIGKILL
    }
    child.wait().unwrap();
    killed
}
