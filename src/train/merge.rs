//! Joining data files (shards, earlier sets) into one training set.

use super::data::{self, DataError, RECORD_BYTES};
use super::rng::SplitMix64;
use std::collections::HashSet;
use std::path::Path;

/// Totals of a merge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    pub read: u64,
    /// Records dropped because an earlier record (in input order) has the same position.
    pub duplicates: u64,
    pub written: u64,
}

/// Joins record sets in the order given: with `dedup`, a record whose position (board, hands,
/// side to move) an earlier record already has is dropped (the first one stays, with its score
/// and result); then the whole set is shuffled by `seed`. The result depends only on the
/// inputs, their order, `dedup` and `seed`.
pub fn merge(
    inputs: Vec<Vec<[u8; RECORD_BYTES]>>,
    dedup: bool,
    seed: u64,
) -> (Vec<[u8; RECORD_BYTES]>, MergeSummary) {
    let mut summary = MergeSummary::default();
    let total: usize = inputs.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    let mut seen = HashSet::with_capacity(if dedup { total } else { 0 });
    for set in inputs {
        summary.read += set.len() as u64;
        for r in set {
            if dedup && !seen.insert(data::position_key(&r)) {
                summary.duplicates += 1;
                continue;
            }
            out.push(r);
        }
    }
    let mut rng = SplitMix64::new(seed);
    for i in (1..out.len()).rev() {
        out.swap(i, rng.below(i + 1));
    }
    summary.written = out.len() as u64;
    (out, summary)
}

/// [`merge`] of files into `out`: each input is `(path, count)`, `count` as for
/// [`data::read_raw`].
pub fn merge_files(
    inputs: &[(std::path::PathBuf, Option<u64>)],
    out: &Path,
    dedup: bool,
    seed: u64,
) -> Result<MergeSummary, String> {
    let mut sets = Vec::with_capacity(inputs.len());
    for (path, count) in inputs {
        let set = data::read_raw(path, *count)
            .map_err(|e: DataError| format!("{}: {e}", path.display()))?;
        log::info!("{}: {} positions", path.display(), set.len());
        sets.push(set);
    }
    let (records, summary) = merge(sets, dedup, seed);
    data::write_raw(out, &records).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(summary)
}
