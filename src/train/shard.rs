//! Data generation in pieces that survive being killed: shards, their journals and the
//! manifest of a data directory.
//!
//! A shard is the games `first_game..first_game + games` of one seed ([`Settings`]), kept in
//! three files of the data directory:
//! - `NAME.bin`: the records, in the format of [`super::data`] (readable at any time; the
//!   header counts every finished game);
//! - `NAME.meta`: `key=value` lines written when the shard is created: the settings that
//!   decide its games ([`Settings::describe`], the net's hash among them) and the commit of
//!   the tool that made it. A run that resumes the shard must have the same settings, and a
//!   tool of another commit must replay the last journalled game identically;
//! - `NAME.journal`: one tab-separated line per finished game, appended after the game's
//!   records and header are written: game index, fate (`kept`, `duplicate`, `nostart`), start
//!   key, records in the shard after the game, plies, nodes, result (`b`, `w`, `d`; `*` when
//!   adjudicated; `-` for a game without one).
//!
//! The journal is the authority: a run killed at any moment (even by SIGKILL) leaves at most
//! one incomplete journal line and records after the last journalled game; [`Shard::open`]
//! drops both (and journal lines whose records never reached the disk, after a crash of the
//! machine) and continues with the next game, so a resumed shard holds the same bytes as one
//! written in a single run (games are pure functions of the seed and their index).
//!
//! `manifest.tsv` lists every shard of the directory (from the `.meta` files, with the counts
//! of the journals); [`write_manifest`] rewrites it from them, so it never disagrees with the
//! shards for long and several generators may share a directory. A shard made by an older tool
//! without a journal is described by a hand-written `.meta` with `journal=none` and the counts
//! (`games_done`, `games_kept`) it had; its positions are its header's count.

use super::data::{self, DataWriter};
use super::datagen::{Fate, GameOutput, Settings};
use crate::types::Color;
use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The version of the `.meta` and `.journal` formats.
pub const FORMAT: u32 = 1;

/// The name of the shard of `seed` that starts at game `first_game`: `s{seed}-{first_game:07}`.
pub fn shard_name(seed: u64, first_game: u64) -> String {
    format!("s{seed}-{first_game:07}")
}

/// One journal line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub index: u64,
    pub fate: Fate,
    pub start_key: u64,
    /// Records in the shard once this game's are written.
    pub positions_after: u64,
    pub plies: u64,
    pub nodes: u64,
    /// `b`, `w`, `d`, with `*` when adjudicated; `-` without a result.
    pub result: String,
}

fn fate_name(f: Fate) -> &'static str {
    match f {
        Fate::Kept => "kept",
        Fate::Duplicate => "duplicate",
        Fate::NoStart => "nostart",
    }
}

impl Entry {
    fn of(g: &GameOutput, fate: Fate, positions_after: u64) -> Entry {
        let result = match g.finish {
            None => "-".to_string(),
            Some(f) => {
                let w = match f.winner {
                    Some(Color::Black) => "b",
                    Some(Color::White) => "w",
                    None => "d",
                };
                format!("{w}{}", if f.adjudicated { "*" } else { "" })
            }
        };
        Entry {
            index: g.index,
            fate,
            start_key: g.start_key,
            positions_after,
            plies: g.plies as u64,
            nodes: g.nodes,
            result,
        }
    }

    fn line(&self) -> String {
        format!(
            "{}\t{}\t{:016x}\t{}\t{}\t{}\t{}\n",
            self.index,
            fate_name(self.fate),
            self.start_key,
            self.positions_after,
            self.plies,
            self.nodes,
            self.result
        )
    }

    fn parse(line: &str) -> Option<Entry> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 7 {
            return None;
        }
        Some(Entry {
            index: f[0].parse().ok()?,
            fate: match f[1] {
                "kept" => Fate::Kept,
                "duplicate" => Fate::Duplicate,
                "nostart" => Fate::NoStart,
                _ => return None,
            },
            start_key: u64::from_str_radix(f[2], 16).ok()?,
            positions_after: f[3].parse().ok()?,
            plies: f[4].parse().ok()?,
            nodes: f[5].parse().ok()?,
            result: f[6].to_string(),
        })
    }
}

/// Reads a journal: the complete lines, and the byte length they take (an incomplete last
/// line, from a run killed while writing it, is not counted). A complete line that does not
/// parse, or a game index out of order, is an error: that journal was not written by a shard.
pub fn read_journal(path: &Path, first_game: u64) -> Result<(Vec<Entry>, u64), String> {
    let mut text = String::new();
    File::open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut entries: Vec<Entry> = Vec::new();
    let mut used = 0u64;
    for line in text.split_inclusive('\n') {
        let Some(body) = line.strip_suffix('\n') else {
            break;
        };
        let e = Entry::parse(body)
            .ok_or_else(|| format!("{}: bad journal line '{body}'", path.display()))?;
        let expected = first_game + entries.len() as u64;
        let before = entries.last().map_or(0, |p| p.positions_after);
        if e.index != expected || e.positions_after < before {
            return Err(format!(
                "{}: line for game {} where game {expected} was expected (or counts going back)",
                path.display(),
                e.index
            ));
        }
        used += line.len() as u64;
        entries.push(e);
    }
    Ok((entries, used))
}

/// [`read_journal`] without the games whose records are not all in the data file: after a
/// crash of the machine (not only of the process) the journal may have reached the disk ahead
/// of the records; such games are played again.
pub fn journal_with_data(
    journal: &Path,
    data_path: &Path,
    first_game: u64,
) -> Result<(Vec<Entry>, u64), String> {
    let (mut entries, mut used) = read_journal(journal, first_game)?;
    let on_disk = std::fs::metadata(data_path)
        .map_err(|e| format!("{}: {e}", data_path.display()))?
        .len()
        .saturating_sub(data::HEADER_BYTES as u64)
        / data::RECORD_BYTES as u64;
    if entries.last().is_some_and(|e| e.positions_after > on_disk) {
        while entries.last().is_some_and(|e| e.positions_after > on_disk) {
            entries.pop();
        }
        used = entries.iter().map(|e| e.line().len() as u64).sum();
    }
    Ok((entries, used))
}

/// `key=value` lines (blank lines and `#` comments skipped).
pub fn parse_meta(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// An open shard, ready for its next game.
pub struct Shard {
    pub name: String,
    pub data_path: PathBuf,
    writer: DataWriter,
    journal: File,
    /// The next game to play; `end` when the shard is complete.
    pub next: u64,
    pub end: u64,
    /// Start keys of the kept games so far (duplicates are found within the shard).
    pub seen: HashSet<u64>,
    pub entries_done: u64,
}

impl Shard {
    /// Creates the shard `name` of `s` in `dir`, or resumes it: checks that its metadata has
    /// the same settings, cuts the journal and the data after the last finished game and
    /// continues from there. `extra` names the tool (e.g. the commit): when it differs from
    /// the shard's, the last journalled game is played again and must give the same journal
    /// line, and the metadata gets `KEY_resumed=VALUE`. `s.first_game` and `s.games` are the
    /// shard's range.
    pub fn open(
        dir: &Path,
        name: &str,
        s: &Settings,
        extra: &[(&str, String)],
    ) -> Result<Shard, String> {
        let data_path = dir.join(format!("{name}.bin"));
        let meta_path = dir.join(format!("{name}.meta"));
        let journal_path = dir.join(format!("{name}.journal"));
        let mut want: Vec<(String, String)> = vec![
            ("format".into(), FORMAT.to_string()),
            ("data".into(), format!("{name}.bin")),
        ];
        want.extend(s.describe().into_iter().map(|(k, v)| (k.to_string(), v)));
        want.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
        let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
        // Keys of `extra` whose value differs from the shard's: (key, shard's, this run's).
        let mut other_tool: Vec<(String, String, String)> = Vec::new();
        if !meta_path.exists() {
            // A shard killed while it was being created has no records yet: start it again.
            let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
            if size(&data_path) > data::HEADER_BYTES as u64 || size(&journal_path) > 0 {
                return Err(format!(
                    "{} or its journal exists without {}: not overwritten",
                    data_path.display(),
                    meta_path.display()
                ));
            }
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
            DataWriter::create(&data_path)
                .and_then(|w| w.finish())
                .map_err(|e| format!("{}: {e}", data_path.display()))?;
            File::create(&journal_path).map_err(|e| io(&journal_path, e))?;
            // The metadata last: a shard without it is one that never started.
            let text: String = want.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
            let tmp = meta_path.with_extension("meta.tmp");
            std::fs::write(&tmp, text).map_err(|e| io(&tmp, e))?;
            std::fs::rename(&tmp, &meta_path).map_err(|e| io(&meta_path, e))?;
        } else {
            let have =
                parse_meta(&std::fs::read_to_string(&meta_path).map_err(|e| io(&meta_path, e))?);
            for (k, v) in &want {
                if have.get(k) != Some(v) {
                    let was = have.get(k).map_or("(missing)", |s| s.as_str()).to_string();
                    if extra.iter().any(|(e, _)| e == k) {
                        // Checked once: a tool that has continued the shard may again.
                        if have.get(&format!("{k}_resumed")) != Some(v) {
                            other_tool.push((k.clone(), was, v.clone()));
                        }
                        continue;
                    }
                    return Err(format!(
                        "{}: {k} is '{was}', this run has '{v}': resume it with the settings \
                         that made it, or use another seed or directory",
                        meta_path.display(),
                    ));
                }
            }
        }
        let (entries, used) = journal_with_data(&journal_path, &data_path, s.first_game)?;
        // A complete shard gets nothing more from this tool: no check needed.
        if !other_tool.is_empty() && (entries.len() as u64) < s.games {
            // Another tool (commit) may continue the shard if it plays the same games: its
            // replay of the last journalled game must match that game's line exactly (the
            // node count is a fine fingerprint of the search).
            let what: Vec<String> = other_tool
                .iter()
                .map(|(k, was, v)| format!("{k} '{was}', this run '{v}'"))
                .collect();
            if let Some(last) = entries.last() {
                let g = super::datagen::play_game(s, last.index)?;
                let before = entries
                    .len()
                    .checked_sub(2)
                    .map_or(0, |i| entries[i].positions_after);
                let same = g.start_key == last.start_key
                    && g.plies as u64 == last.plies
                    && g.nodes == last.nodes
                    && (last.fate != Fate::Kept
                        || g.records.len() as u64 == last.positions_after - before);
                if !same {
                    return Err(format!(
                        "{}: {}, and this tool plays game {} differently ({} plies, {} nodes \
                         against {} and {}): resume it with the tool that made it, or use \
                         another seed or directory",
                        meta_path.display(),
                        what.join("; "),
                        last.index,
                        g.plies,
                        g.nodes,
                        last.plies,
                        last.nodes
                    ));
                }
                log::info!(
                    "{}: {}; game {} replays the same, so this tool continues the shard",
                    meta_path.display(),
                    what.join("; "),
                    last.index
                );
            }
            let mut f = OpenOptions::new()
                .append(true)
                .open(&meta_path)
                .map_err(|e| io(&meta_path, e))?;
            let lines: String = other_tool
                .iter()
                .map(|(k, _, v)| format!("{k}_resumed={v}\n"))
                .collect();
            f.write_all(lines.as_bytes())
                .map_err(|e| io(&meta_path, e))?;
        }
        let positions = entries.last().map_or(0, |e| e.positions_after);
        let writer = DataWriter::resume(&data_path, positions)
            .map_err(|e| format!("{}: {e}", data_path.display()))?;
        let journal = OpenOptions::new()
            .write(true)
            .open(&journal_path)
            .map_err(|e| io(&journal_path, e))?;
        journal.set_len(used).map_err(|e| io(&journal_path, e))?;
        let mut journal = journal;
        use std::io::Seek;
        journal
            .seek(std::io::SeekFrom::End(0))
            .map_err(|e| io(&journal_path, e))?;
        let seen = entries
            .iter()
            .filter(|e| e.fate == Fate::Kept)
            .map(|e| e.start_key)
            .collect();
        Ok(Shard {
            name: name.to_string(),
            data_path,
            writer,
            journal,
            next: s.first_game + entries.len() as u64,
            end: s.first_game + s.games,
            seen,
            entries_done: entries.len() as u64,
        })
    }

    pub fn is_complete(&self) -> bool {
        self.next >= self.end
    }

    pub fn positions(&self) -> u64 {
        self.writer.count()
    }

    /// Writes a finished game: its records (when kept), the header, then its journal line.
    pub fn record(&mut self, g: &GameOutput, fate: Fate) -> Result<(), String> {
        if g.index != self.next {
            return Err(format!(
                "shard {}: game {} where {} was expected",
                self.name, g.index, self.next
            ));
        }
        let err = |e: String| format!("shard {}: {e}", self.name);
        if fate == Fate::Kept {
            for r in &g.records {
                self.writer.write(r).map_err(|e| err(e.to_string()))?;
            }
        }
        self.writer.sync().map_err(|e| err(e.to_string()))?;
        let line = Entry::of(g, fate, self.writer.count()).line();
        self.journal
            .write_all(line.as_bytes())
            .and_then(|_| self.journal.flush())
            .map_err(|e| err(e.to_string()))?;
        self.next += 1;
        self.entries_done += 1;
        Ok(())
    }

    /// Flushes and syncs the data to disk.
    pub fn finish(self) -> Result<u64, String> {
        let _ = self.journal.sync_all();
        self.writer.finish().map_err(|e| e.to_string())
    }
}

/// What the manifest says of one shard.
#[derive(Clone, Debug)]
pub struct ShardInfo {
    pub name: String,
    pub meta: BTreeMap<String, String>,
    pub games_done: u64,
    pub games_kept: u64,
    pub positions: u64,
    pub nodes: u64,
    pub complete: bool,
}

impl ShardInfo {
    pub fn data_file(&self, dir: &Path) -> PathBuf {
        dir.join(
            self.meta
                .get("data")
                .cloned()
                .unwrap_or_else(|| format!("{}.bin", self.name)),
        )
    }
}

/// Every shard of `dir` (the `.meta` files, by name).
pub fn scan(dir: &Path) -> Result<Vec<ShardInfo>, String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".meta"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let meta_path = dir.join(format!("{name}.meta"));
        let meta = parse_meta(
            &std::fs::read_to_string(&meta_path)
                .map_err(|e| format!("{}: {e}", meta_path.display()))?,
        );
        let num = |k: &str| meta.get(k).and_then(|v| v.parse::<u64>().ok());
        let first = num("first_game").unwrap_or(0);
        let games = num("games").unwrap_or(0);
        let mut info = ShardInfo {
            name: name.clone(),
            meta: meta.clone(),
            games_done: 0,
            games_kept: 0,
            positions: 0,
            nodes: 0,
            complete: false,
        };
        if meta.get("journal").map(String::as_str) == Some("none") {
            info.games_done = num("games_done").unwrap_or(0);
            info.games_kept = num("games_kept").unwrap_or(0);
            info.nodes = num("nodes_total").unwrap_or(0);
            let path = info.data_file(dir);
            let mut h = [0u8; data::HEADER_BYTES];
            File::open(&path)
                .and_then(|mut f| f.read_exact(&mut h))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            info.positions = u64::from_le_bytes(h[16..24].try_into().expect("8 bytes"));
            info.complete = meta.get("state").map(String::as_str) == Some("complete");
        } else {
            let journal = dir.join(format!("{name}.journal"));
            let (entries, _) = journal_with_data(&journal, &info.data_file(dir), first)?;
            info.games_done = entries.len() as u64;
            info.games_kept = entries.iter().filter(|e| e.fate == Fate::Kept).count() as u64;
            info.positions = entries.last().map_or(0, |e| e.positions_after);
            info.nodes = entries.iter().map(|e| e.nodes).sum();
            info.complete = info.games_done >= games;
        }
        out.push(info);
    }
    Ok(out)
}

/// The columns of `manifest.tsv` after the shard's name and state; `settings` gathers the
/// remaining metadata.
const COLUMNS: [&str; 6] = ["seed", "first_game", "games", "nodes", "net", "commit"];

/// Rewrites `dir/manifest.tsv` from the shards of `dir` and returns its text.
pub fn write_manifest(dir: &Path) -> Result<String, String> {
    let shards = scan(dir)?;
    let mut text = String::from(
        "# shards of this directory (rewritten from the .meta and .journal files; see \
         docs/nnue.md)\nshard\tstate\tseed\tfirst_game\tgames\tnodes\tnet\tcommit\tgames_done\t\
         games_kept\tpositions\tnodes_searched\tsettings\n",
    );
    let (mut games, mut positions) = (0u64, 0u64);
    for s in &shards {
        let get = |k: &str| s.meta.get(k).cloned().unwrap_or_else(|| "?".into());
        let settings: Vec<String> = s
            .meta
            .iter()
            .filter(|(k, _)| !COLUMNS.contains(&k.as_str()) && k.as_str() != "format")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        // A shard without a journal says its own state (`stopped`: made by an older tool).
        let state = match s.meta.get("state") {
            Some(st)
                if !s.complete && s.meta.get("journal").map(String::as_str) == Some("none") =>
            {
                st.as_str()
            }
            _ if s.complete => "complete",
            _ => "partial",
        };
        text.push_str(&format!(
            "{}\t{state}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            s.name,
            get("seed"),
            get("first_game"),
            get("games"),
            get("nodes"),
            get("net"),
            get("commit"),
            s.games_done,
            s.games_kept,
            s.positions,
            s.nodes,
            settings.join("; ")
        ));
        games += s.games_kept;
        positions += s.positions;
    }
    text.push_str(&format!(
        "# {} shards, {games} games, {positions} positions\n",
        shards.len()
    ));
    let path = dir.join("manifest.tsv");
    let tmp = dir.join(format!("manifest.tsv.{}.tmp", std::process::id()));
    std::fs::write(&tmp, &text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text)
}

/// Data files to read, with the record count to read of each (see [`data::read_raw`]): a file
/// as it is (`None`: all its records, checked against its header), a directory as its shards,
/// each up to its last journalled game (or its header's count when it has no journal), so a
/// directory can be read while a generator writes into it.
pub fn data_files(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, Option<u64>)>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            for s in scan(input)? {
                files.push((s.data_file(input), Some(s.positions)));
            }
        } else {
            files.push((input.clone(), None));
        }
    }
    Ok(files)
}
