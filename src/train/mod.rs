//! What only training needs, kept apart from the evaluation the engine runs
//! ([`crate::nnue`]): the training-data format, self-play data generation in resumable
//! shards, rescoring data with deeper searches, merging data into a training set, the float
//! net and the trainer; and SPSA tuning of the search parameters ([`spsa`]). Nothing in the
//! engine imports this module. Commands and figures: `docs/nnue.md`, `docs/tuning.md`.

pub mod data;
pub mod datagen;
pub mod float;
pub mod merge;
pub mod rescore;
pub mod rng;
pub mod shard;
pub mod spsa;
pub mod trainer;

use std::path::{Path, PathBuf};

/// `PREFIX.EXT`, the file a training tool writes for its `--out PREFIX`. The extension is
/// appended, not swapped in: a prefix with a dot in its name (`soup-0.25`) stays whole.
pub fn prefixed(prefix: &Path, ext: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::prefixed;
    use std::path::Path;

    #[test]
    fn an_output_prefix_keeps_its_dots() {
        assert_eq!(
            prefixed(Path::new("nets/soup-0.25"), "nnue"),
            Path::new("nets/soup-0.25.nnue")
        );
        assert_eq!(
            prefixed(Path::new("net4-h128"), "fnet"),
            Path::new("net4-h128.fnet")
        );
    }
}
