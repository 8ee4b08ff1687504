//! Data generation in shards: resuming after a kill gives the bytes of one uninterrupted run,
//! the manifest, merging, and adjudication.

mod common;

use common::child::kill_ignored_test_at;
use gogo::train::data::{self, Record, HEADER_BYTES, RECORD_BYTES};
use gogo::train::datagen::{self, Adjudication, Fate, Settings};
use gogo::train::merge;
use gogo::train::shard::{self, Shard};
use std::path::{Path, PathBuf};

fn settings(first_game: u64, games: u64) -> Settings {
    Settings {
        seed: 7,
        first_game,
        games,
        threads: 1,
        nodes: 300,
        start_nodes: 200,
        random_plies: 2,
        max_plies: 40,
        hash_mb: 1,
        openings: datagen::parse_openings(include_str!("../data/openings.txt")),
        ..Settings::default()
    }
}

/// The keys of the settings a shard records.
fn keys(s: &Settings) -> Vec<&'static str> {
    s.describe().into_iter().map(|(k, _)| k).collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gogo-datagen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const EXTRA: [(&str, &str); 1] = [("commit", "test")];

fn extra() -> Vec<(&'static str, String)> {
    EXTRA.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

/// Opens (or resumes) the shard `name` of `s` and plays it to the end, or until `stop_after`
/// games of this call.
fn play_shard(dir: &Path, name: &str, s: &Settings, stop_after: Option<u64>) -> bool {
    let mut shard = Shard::open(dir, name, s, &extra()).unwrap();
    let mut run = s.clone();
    run.first_game = shard.next;
    run.games = shard.end - shard.next;
    let mut seen = std::mem::take(&mut shard.seen);
    let mut played = 0;
    let r = datagen::run(
        &run,
        &mut seen,
        |g, fate| {
            if stop_after == Some(played) {
                return Err("stopped".into());
            }
            played += 1;
            shard.record(g, fate)
        },
        |_| {},
    );
    let complete = shard.is_complete();
    shard.finish().unwrap();
    assert_eq!(r.is_ok(), stop_after.is_none(), "{r:?}");
    complete
}

fn files(dir: &Path, name: &str) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(dir.join(format!("{name}.bin"))).unwrap(),
        std::fs::read(dir.join(format!("{name}.journal"))).unwrap(),
    )
}

fn journal_lines(dir: &Path, name: &str) -> usize {
    std::fs::read_to_string(dir.join(format!("{name}.journal")))
        .map(|t| t.matches('\n').count())
        .unwrap_or(0)
}

/// The shard that the kill test's child process writes (`GOGO_SHARD_CHILD_DIR`); not a test
/// of its own, run only by `a_shard_killed_by_sigkill_resumes_to_the_bytes_of_one_run`.
#[test]
#[ignore]
fn shard_child_process() {
    if let Ok(dir) = std::env::var("GOGO_SHARD_CHILD_DIR") {
        let s = settings(0, 16);
        play_shard(Path::new(&dir), "s7-0000000", &s, None);
    }
}

#[test]
fn a_shard_killed_by_sigkill_resumes_to_the_bytes_of_one_run() {
    let name = "s7-0000000";
    let s = settings(0, 16);
    let whole = temp_dir("whole");
    assert!(play_shard(&whole, name, &s, None));
    let (bin, journal) = files(&whole, name);
    assert_eq!(journal.iter().filter(|&&b| b == b'\n').count(), 16);
    assert!(
        bin.len() > HEADER_BYTES + 40 * RECORD_BYTES,
        "{} bytes",
        bin.len()
    );

    // Killed twice by SIGKILL while writing, then resumed in this process.
    let killed = temp_dir("killed");
    let mut kills = 0;
    for round in 0..2 {
        let target = 3 + round * 4;
        if kill_ignored_test_at(
            "shard_child_process",
            "GOGO_SHARD_CHILD_DIR",
            &killed,
            target,
            || journal_lines(&killed, name) as u64,
        ) {
            kills += 1;
        }
    }
    let done = journal_lines(&killed, name);
    assert!(
        kills >= 1 && done < 16,
        "the child was killed mid-shard ({done} games)"
    );
    assert!(play_shard(&killed, name, &s, None));
    assert_eq!(files(&killed, name), (bin, journal));
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&killed);
}

#[test]
fn a_torn_shard_resumes_and_a_shard_refuses_other_settings() {
    let name = "s7-0000100";
    let s = settings(100, 8);
    let whole = temp_dir("torn-whole");
    play_shard(&whole, name, &s, None);
    let (bin, journal) = files(&whole, name);

    // What a kill can leave: the records (and header) of a game whose journal line is
    // incomplete, after a run that stopped after 3 games.
    let torn = temp_dir("torn");
    assert!(!play_shard(&torn, name, &s, Some(3)));
    let (b3, j3) = files(&torn, name);
    assert_eq!(j3.iter().filter(|&&b| b == b'\n').count(), 3);
    // Another commit continues the shard only if it replays the last game the same way.
    let journal_path = torn.join(format!("{name}.journal"));
    let text = String::from_utf8(j3.clone()).unwrap();
    let last = text.lines().last().unwrap();
    let mut f: Vec<&str> = last.split('\t').collect();
    let nodes = (f[5].parse::<u64>().unwrap() + 1).to_string();
    f[5] = &nodes;
    let forged = text.replace(last, &f.join("\t"));
    std::fs::write(&journal_path, &forged).unwrap();
    let meta_path = torn.join(format!("{name}.meta"));
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    let e = Shard::open(&torn, name, &s, &[("commit", "other".to_string())])
        .err()
        .unwrap();
    assert!(
        e.contains("commit 'test', this run 'other'") && e.contains("plays game 102"),
        "{e}"
    );
    std::fs::write(&journal_path, &j3).unwrap();
    drop(Shard::open(&torn, name, &s, &[("commit", "other".to_string())]).unwrap());
    let meta2 = std::fs::read_to_string(&meta_path).unwrap();
    assert_eq!(meta2, format!("{meta}commit_resumed=other\n"));
    // Once continued by that tool, it is not checked (or recorded) again.
    std::fs::write(&journal_path, &forged).unwrap();
    drop(Shard::open(&torn, name, &s, &[("commit", "other".to_string())]).unwrap());
    assert_eq!(std::fs::read_to_string(&meta_path).unwrap(), meta2);
    std::fs::write(&journal_path, &j3).unwrap();
    std::fs::write(&meta_path, &meta).unwrap();
    let mut b = b3.clone();
    b.extend_from_slice(&bin[HEADER_BYTES..HEADER_BYTES + 5 * RECORD_BYTES]);
    let n = (b.len() - HEADER_BYTES) / RECORD_BYTES;
    b[16..24].copy_from_slice(&(n as u64).to_le_bytes());
    std::fs::write(torn.join(format!("{name}.bin")), &b).unwrap();
    let mut j = j3.clone();
    // A complete line whose records are not in the data file (a machine crash), then a torn one.
    j.extend_from_slice(format!("103\tkept\t{:016x}\t{}\t9\t9\tb\n", 1, n + 100).as_bytes());
    j.extend_from_slice(b"104\tkept\t00ab");
    std::fs::write(torn.join(format!("{name}.journal")), &j).unwrap();
    // The data so far still reads, up to the journal's count.
    let info = &shard::scan(&torn).unwrap()[0];
    assert_eq!(info.games_done, 3);
    assert_eq!(
        data::read_raw(&info.data_file(&torn), Some(info.positions))
            .unwrap()
            .len() as u64,
        info.positions
    );

    let other = Settings {
        nodes: 301,
        ..s.clone()
    };
    let e = Shard::open(&torn, name, &other, &extra()).err().unwrap();
    assert!(e.contains("nodes is '300', this run has '301'"), "{e}");

    assert!(play_shard(&torn, name, &s, None));
    assert_eq!(files(&torn, name), (bin.clone(), journal));
    // A shard killed while being created (files without metadata, no records) starts again;
    // one with records but no metadata is not overwritten.
    let fresh = temp_dir("fresh");
    std::fs::write(fresh.join("s7-0000100.bin"), &bin[..HEADER_BYTES]).unwrap();
    std::fs::write(fresh.join("s7-0000100.journal"), b"").unwrap();
    assert!(play_shard(&fresh, name, &s, None));
    assert_eq!(files(&fresh, name).0, bin);
    std::fs::remove_file(fresh.join("s7-0000100.meta")).unwrap();
    let e = Shard::open(&fresh, name, &s, &extra()).err().unwrap();
    assert!(e.contains("not overwritten"), "{e}");
    let _ = std::fs::remove_dir_all(&fresh);
    // A complete shard plays nothing more.
    let again = Shard::open(&torn, name, &s, &extra()).unwrap();
    assert!(again.is_complete());
    drop(again);
    assert_eq!(files(&torn, name).0, bin);
    // Nor is it checked against another tool, which would add nothing to it.
    let meta_done = std::fs::read_to_string(torn.join(format!("{name}.meta"))).unwrap();
    let other = Shard::open(&torn, name, &s, &[("commit", "third".to_string())]).unwrap();
    assert!(other.is_complete());
    drop(other);
    let meta_after = std::fs::read_to_string(torn.join(format!("{name}.meta"))).unwrap();
    assert_eq!(meta_after, meta_done);
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&torn);
}

#[test]
fn shards_of_a_range_are_the_games_of_one_run_and_the_manifest_counts_them() {
    let dir = temp_dir("manifest");
    let one = datagen::generate(&settings(0, 8)).unwrap();
    let a = settings(0, 4);
    let b = settings(4, 4);
    play_shard(&dir, &shard::shard_name(7, 0), &a, None);
    play_shard(&dir, &shard::shard_name(7, 4), &b, Some(2));
    let mut joined = data::read_file(&dir.join("s7-0000000.bin")).unwrap();
    let first = joined.len();
    joined.extend(data::read_file(&dir.join("s7-0000004.bin")).unwrap());
    assert!(joined.len() > first && joined.len() < one.len());
    assert_eq!(
        joined[..],
        one[..joined.len()],
        "shards continue the same run"
    );

    // An older file, described by hand.
    data::DataWriter::create(&dir.join("old.bin"))
        .and_then(|mut w| {
            for r in &one[..5] {
                w.write(r)?;
            }
            w.finish()
        })
        .unwrap();
    std::fs::write(
        dir.join("old.meta"),
        "data=old.bin\njournal=none\nseed=31\nnodes=5000\ncommit=e882c41\ngames_done=2\n\
         games_kept=2\nstate=stopped\n",
    )
    .unwrap();
    let text = shard::write_manifest(&dir).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows[0][..3], ["shard", "state", "seed"]);
    assert_eq!(rows.len(), 4, "{text}");
    let col = |name: &str| rows[0].iter().position(|c| *c == name).unwrap();
    let (old, s0, s4) = (&rows[1], &rows[2], &rows[3]);
    assert_eq!(
        (old[0], old[1], old[col("commit")], old[col("positions")]),
        ("old", "stopped", "e882c41", "5")
    );
    assert_eq!(
        (s0[0], s0[1], s0[col("games_done")]),
        ("s7-0000000", "complete", "4")
    );
    assert_eq!((s4[1], s4[col("games_done")]), ("partial", "2"));
    assert_eq!(s0[col("positions")], first.to_string());
    assert_eq!(s0[col("net")].len(), 16);
    assert_eq!(
        std::fs::read_to_string(dir.join("manifest.tsv")).unwrap(),
        text
    );
    assert!(text
        .lines()
        .last()
        .unwrap()
        .ends_with(&format!("{} positions", joined.len() + 5)));
    // A directory reads as its shards, each up to its counted records.
    let files = shard::data_files(std::slice::from_ref(&dir)).unwrap();
    let counts: Vec<Option<u64>> = files.iter().map(|f| f.1).collect();
    assert_eq!(
        counts,
        [
            Some(5),
            Some(first as u64),
            Some((joined.len() - first) as u64)
        ]
    );
    let read: usize = files
        .iter()
        .map(|(p, n)| data::read_raw(p, *n).unwrap().len())
        .sum();
    assert_eq!(read, joined.len() + 5);
    let _ = std::fs::remove_dir_all(&dir);
}

fn raw(records: &[Record]) -> Vec<[u8; RECORD_BYTES]> {
    records.iter().map(Record::encode).collect()
}

#[test]
fn merge_drops_repeated_positions_and_shuffles_by_seed() {
    let recs = datagen::generate(&settings(0, 4)).unwrap();
    assert!(recs.len() > 20);
    let mut changed = recs[..10].to_vec();
    for r in &mut changed {
        r.score += 1;
        r.ply += 1;
    }
    let (a, sa) = merge::merge(vec![raw(&recs), raw(&changed)], true, 5);
    let unique = {
        let mut keys: Vec<_> = raw(&recs).iter().map(data::position_key).collect();
        keys.sort();
        keys.dedup();
        keys.len()
    };
    assert_eq!(sa.read as usize, recs.len() + 10);
    assert_eq!(a.len(), unique);
    assert_eq!(sa.duplicates as usize, recs.len() + 10 - unique);
    // The first occurrence stays: no record of the changed copies is in the merge.
    for r in raw(&changed) {
        assert!(!a.contains(&r));
    }
    let (b, _) = merge::merge(vec![raw(&recs), raw(&changed)], true, 5);
    let (c, _) = merge::merge(vec![raw(&recs), raw(&changed)], true, 6);
    assert_eq!(a, b, "the same seed, the same order");
    assert_ne!(a, c, "another seed, another order");
    let (mut x, mut y) = (a.clone(), c.clone());
    x.sort();
    y.sort();
    assert_eq!(x, y);
    assert_ne!(a[..], raw(&recs)[..a.len()], "shuffled");
    let (all, s) = merge::merge(vec![raw(&recs), raw(&changed)], false, 5);
    assert_eq!((all.len(), s.duplicates), (recs.len() + 10, 0));

    // Through files.
    let dir = temp_dir("merge");
    let f = dir.join("a.bin");
    std::fs::write(&f, data::encode_all(&recs)).unwrap();
    let out = dir.join("m.bin");
    let m = merge::merge_files(&[(f.clone(), None), (f, None)], &out, true, 5).unwrap();
    assert_eq!(m.written as usize, unique);
    assert_eq!(data::read_file(&out).unwrap().len(), unique);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn adjudicated_games_are_the_start_of_the_games_played_out() {
    let mut played_out = settings(0, 6);
    played_out.adjudication = Adjudication::OFF;
    played_out.max_plies = 120;
    let adjudicated = Settings {
        adjudication: Adjudication {
            mate: true,
            score: 1000,
            score_plies: 3,
        },
        ..played_out.clone()
    };
    let (mut shorter, mut any) = (0, 0);
    for i in 0..6 {
        let a = datagen::play_game(&adjudicated, i).unwrap();
        let b = datagen::play_game(&played_out, i).unwrap();
        let (Some(fa), Some(fb)) = (a.finish, b.finish) else {
            continue;
        };
        any += 1;
        assert!(!fb.adjudicated);
        assert!(a.plies <= b.plies);
        assert!(a.records.len() <= b.records.len());
        for (x, y) in a.records.iter().zip(&b.records) {
            assert_eq!((x.pos, x.score), (y.pos, y.score));
        }
        if fa.adjudicated {
            shorter += (a.plies < b.plies) as u32;
            let w = fa.winner.expect("an adjudicated game has a winner");
            for r in &a.records {
                assert_eq!(r.result, if r.pos.side_to_move() == w { 1 } else { -1 });
            }
        } else {
            assert_eq!(a.plies, b.plies);
        }
    }
    assert!(
        any >= 4 && shorter >= 2,
        "{shorter} of {any} games adjudicated early"
    );
    // The kept and dropped games of a run.
    let mut fates = Vec::new();
    datagen::run(
        &settings(0, 6),
        &mut Default::default(),
        |g, f| {
            fates.push((g.index, f));
            Ok(())
        },
        |_| {},
    )
    .unwrap();
    assert_eq!(
        fates.iter().map(|f| f.0).collect::<Vec<_>>(),
        (0..6).collect::<Vec<_>>()
    );
    assert!(fates.iter().any(|f| f.1 == Fate::Kept));
}

#[test]
fn a_smaller_budget_in_check_is_recorded_only_when_set() {
    let s = settings(0, 2);
    assert!(
        !keys(&s).contains(&"check_nodes"),
        "older shards still resume"
    );
    let cheap = Settings {
        check_nodes: 50,
        ..s.clone()
    };
    assert!(cheap
        .describe()
        .contains(&("check_nodes", "50".to_string())));
    // The same games with the budget in check set to the move budget.
    let same = Settings {
        check_nodes: s.nodes,
        ..s.clone()
    };
    assert_eq!(
        datagen::generate(&same).unwrap(),
        datagen::generate(&s).unwrap()
    );
    // Some game of a few gives a check, and its searches in check cost fewer nodes (the
    // search looks at its node limit every 1,024 nodes, so the budgets are above that).
    let full = Settings {
        nodes: 2500,
        max_plies: 24,
        ..s.clone()
    };
    let cheap = Settings {
        check_nodes: 1,
        ..full.clone()
    };
    let differs = (0..4).any(|i| {
        let a = datagen::play_game(&full, i).unwrap();
        let b = datagen::play_game(&cheap, i).unwrap();
        (a.nodes, a.plies) != (b.nodes, b.plies)
    });
    assert!(differs);
}

#[test]
fn a_probe_before_each_move_is_recorded_only_when_it_applies() {
    let s = settings(0, 2);
    assert!(
        !keys(&s).contains(&"probe_nodes"),
        "older shards still resume"
    );
    let probed = Settings {
        probe_nodes: 50,
        ..s.clone()
    };
    assert!(probed.probes());
    assert!(probed
        .describe()
        .contains(&("probe_nodes", "50".to_string())));
    // A probe of the whole budget or more is no probe: the same games, not recorded.
    let whole = Settings {
        probe_nodes: s.nodes,
        ..s.clone()
    };
    assert!(!whole.probes());
    assert!(!keys(&whole).contains(&"probe_nodes"));
    assert_eq!(
        datagen::generate(&whole).unwrap(),
        datagen::generate(&s).unwrap()
    );
}

#[test]
fn a_probe_makes_the_plies_that_are_not_kept_cheaper() {
    // The budgets of `datagen`: the search checks its node limit every 1,024 nodes, so the
    // probe stops at 1,024 and a kept ply's rest of the budget at 4,096.
    let full = Settings {
        nodes: 5000,
        max_plies: 20,
        ..settings(0, 3)
    };
    let probed = Settings {
        probe_nodes: 1000,
        ..full.clone()
    };
    let (mut a, mut b) = ((0, 0), (0, 0));
    for i in 0..3 {
        let x = datagen::play_game(&full, i).unwrap();
        let y = datagen::play_game(&probed, i).unwrap();
        // The probe keeps what is kept as before: no position in check, no mate score.
        for r in &y.records {
            assert!(!r.pos.in_check());
            assert!((r.score as i32).abs() < gogo::search::MATE_BOUND);
        }
        a = (a.0 + x.nodes, a.1 + x.plies as u64);
        b = (b.0 + y.nodes, b.1 + y.plies as u64);
    }
    assert!(a.1 > 0 && b.1 > 0);
    // Fewer nodes a ply: a ply whose probe picks a capture or promotion costs the probe alone,
    // a kept one the probe and the rest of the budget.
    assert!(
        b.0 * a.1 < a.0 * b.1,
        "probed {} nodes in {} plies, plain {} in {}",
        b.0,
        b.1,
        a.0,
        a.1
    );
}

#[test]
fn the_games_of_a_shard_are_told_apart_by_their_plies() {
    // The trainer holds out whole games (`train --split game`), found as runs of rising plies:
    // every game of the journal must lie inside one run, or the split would cut it in two.
    let dir = temp_dir("games");
    let name = shard::shard_name(7, 0);
    play_shard(&dir, &name, &settings(0, 16), None);
    let records = data::read_file(&dir.join(format!("{name}.bin"))).unwrap();
    let (entries, _) = shard::read_journal(&dir.join(format!("{name}.journal")), 0).unwrap();
    let runs = data::games(&records);
    let mut start = 0u64;
    let mut kept = 0;
    for e in entries.iter().filter(|e| e.fate == Fate::Kept) {
        let (a, b) = (start as usize, e.positions_after as usize);
        start = e.positions_after;
        if a == b {
            continue;
        }
        kept += 1;
        assert!(
            runs.iter().any(|r| r.start <= a && b <= r.end),
            "game {} (records {a}..{b}) is cut by the runs {runs:?}",
            e.index
        );
    }
    assert_eq!(start as usize, records.len());
    // A run joins two games only when a game starts at a later ply than the last one ended:
    // rare, and harmless for the split (both games on one side).
    assert!(
        kept >= 10 && runs.len() * 10 >= kept * 9,
        "{} runs, {kept} games",
        runs.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
