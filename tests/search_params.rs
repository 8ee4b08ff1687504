//! The runtime search parameters (`SearchParams`, `SEARCH_PARAMS`): the defaults are the
//! constants of `params.rs` and search exactly as before (`tests/bench.rs` checks the bench
//! node count with them), every parameter in the table is read by the search, and values are
//! clamped to their bounds.

use gogo::bench::POSITIONS;
use gogo::game::Game;
use gogo::params::*;
use gogo::search::{SearchConfig, Searcher, Signals};
use gogo::time::Limits;
use gogo::tt::TranspositionTable;
use std::sync::Arc;

/// A few bench positions searched to `depth` by `searcher` (cleared, fresh table for each),
/// with `params`: each position's (nodes, best move, score).
fn search(searcher: &mut Searcher, params: SearchParams, depth: i32) -> Vec<(u64, String, i32)> {
    let config = SearchConfig {
        verbose: false,
        mate_probe: false,
        params,
        ..SearchConfig::default()
    };
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    POSITIONS[..4]
        .iter()
        .map(|text| {
            let game = Game::parse_position(text).unwrap();
            searcher.set_tt(Arc::new(TranspositionTable::new(4)));
            searcher.clear();
            let r = searcher.think(game.positions(), &limits, &[], &config);
            (r.nodes, r.best.unwrap().to_string(), r.score)
        })
        .collect()
}

fn new_searcher() -> Searcher {
    Searcher::new(
        Arc::new(TranspositionTable::new(4)),
        Arc::new(Signals::default()),
    )
}

#[test]
fn the_defaults_are_the_constants_and_lie_within_their_bounds() {
    let d = SearchParams::default();
    assert_eq!(d, SearchConfig::default().params);
    assert_eq!(
        (
            d.rfp_margin,
            d.futility_base,
            d.lmp_base,
            d.lmr_base,
            d.lmr_divisor
        ),
        (RFP_MARGIN, FUTILITY_BASE, LMP_BASE, LMR_BASE, LMR_DIVISOR)
    );
    assert_eq!(
        (d.aspiration_window, d.delta_margin, d.history_bonus_scale),
        (ASPIRATION_WINDOW, DELTA_MARGIN, HISTORY_BONUS_SCALE)
    );
    assert!(SEARCH_PARAMS.len() >= 16);
    let mut names: Vec<&str> = SEARCH_PARAMS.iter().map(|p| p.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), SEARCH_PARAMS.len(), "names are unique");
    for p in SEARCH_PARAMS {
        assert_eq!(d.get(p.name), Some(p.default), "{}", p.name);
        assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
        assert!(p.c_end > 0.0 && p.c_end < p.max - p.min, "{p:?}");
        assert_eq!(p.integer, p.rust_type != "f64", "{p:?}");
        assert_eq!(param_spec(p.name), Some(p));
    }
    // Divisors can never be zero.
    assert!(param_spec("NMP_DEPTH_DIVISOR").unwrap().min >= 1.0);
    assert!(param_spec("LMR_DIVISOR").unwrap().min >= 1.0);
}

#[test]
fn values_are_clamped_to_their_bounds_and_integers_rounded() {
    let mut p = SearchParams::default();
    let spec = param_spec("RFP_MARGIN").unwrap();
    assert_eq!(p.set("RFP_MARGIN", 1e9), Ok(spec.max));
    assert_eq!(p.rfp_margin, spec.max as i32);
    assert_eq!(p.set("RFP_MARGIN", -1e9), Ok(spec.min));
    assert_eq!(p.rfp_margin, spec.min as i32);
    assert_eq!(p.set("RFP_MARGIN", 97.4), Ok(97.0));
    assert_eq!(p.set("RFP_MARGIN", 97.6), Ok(98.0));
    assert_eq!(p.rfp_margin, 98);
    // An unsigned parameter below its bounds, and a float one (not rounded).
    assert_eq!(p.set("LMP_BASE", -3.0), Ok(0.0));
    assert_eq!(p.lmp_base, 0);
    assert_eq!(p.set("LMR_BASE", 0.8125), Ok(0.8125));
    assert_eq!(p.lmr_base, 0.8125);
    assert_eq!(p.set("LMR_DIVISOR", 0.0), Ok(1.0));
    assert_eq!(p.lmr_divisor, 1.0);
    assert!(p.set("NO_SUCH_PARAM", 1.0).is_err());
    assert!(p.set("RFP_MARGIN", f64::NAN).is_err());
    assert_eq!(p.rfp_margin, 98, "a refused value changes nothing");
}

#[test]
fn every_parameter_is_read_by_the_search_and_the_defaults_come_back() {
    const DEPTH: i32 = 8;
    let mut searcher = new_searcher();
    let base = search(&mut searcher, SearchParams::default(), DEPTH);
    let mut unchanged = Vec::new();
    for spec in SEARCH_PARAMS {
        // Each bound in turn: a parameter the search reads changes it at one of them at least
        // (a depth limit only at its lower one, at this depth).
        let changes = [spec.min, spec.max].iter().any(|&v| {
            let mut p = SearchParams::default();
            p.set(spec.name, v).unwrap();
            search(&mut searcher, p, DEPTH) != base
        });
        if !changes {
            unchanged.push(spec.name);
        }
    }
    assert!(
        unchanged.is_empty(),
        "the search did not change with {unchanged:?} at either bound"
    );
    // The same searcher, back on the defaults (the reduction table rebuilt), and a fresh
    // one search as the constants say.
    assert_eq!(search(&mut searcher, SearchParams::default(), DEPTH), base);
    assert_eq!(
        search(&mut new_searcher(), SearchParams::default(), DEPTH),
        base
    );
}

#[test]
fn docs_tuning_lists_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tuning.md");
    let doc = std::fs::read_to_string(path).expect("docs/tuning.md");
    // Rows `| `NAME` | type | default | min | max | c_end |`.
    let rows: Vec<Vec<String>> = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.split('|')
                .map(|c| c.trim().trim_matches('`').to_string())
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    let want: Vec<Vec<String>> = SEARCH_PARAMS
        .iter()
        .map(|p| {
            vec![
                p.name.to_string(),
                p.rust_type.to_string(),
                p.default.to_string(),
                p.min.to_string(),
                p.max.to_string(),
                p.c_end.to_string(),
            ]
        })
        .collect();
    assert_eq!(rows, want, "the table of docs/tuning.md");
}
