//! SPSA tuning of the search parameters ([`SEARCH_PARAMS`]) by self-play at a fixed node
//! budget per move, in one process (commands: `docs/tuning.md`).
//!
//! The method is Fishtest's. Each tuned parameter has a start, bounds, `c_end` (its
//! perturbation at the last iteration) and `r_end` (its learning rate there). For a run of `N`
//! planned iterations, with `A = N / 10`, iteration `k` (1 ..= N) perturbs by
//! `c_k = c / k^0.101` and steps by `a_k / c_k` times the result, `a_k = a / (A + k)^0.602`,
//! where `c = c_end * N^0.101` and `a = r_end * c_end^2 * (A + N)^0.602` (so `c_N = c_end` and
//! `a_N / c_N^2 = r_end`): see [`Schedule`]. Each iteration draws a sign `delta` (±1) per
//! parameter and plays a game pair from one start, colours swapped, between
//! `theta + c_k * delta` (the plus side) and `theta - c_k * delta`; then
//! `theta += a_k / c_k * result * delta`, `result` being the plus side's wins less its losses
//! in the pair (-2 ..= 2), and theta is kept within the bounds. Theta is kept as floats;
//! an integer parameter is rounded to the nearest when a side plays with it.
//!
//! A game: one [`Searcher`] with its own hash table per side (fresh for each game, kept from
//! move to move within it), each move a single-threaded search limited by nodes; the start is
//! an opening line and random plies ([`draw_start`], as data generation draws them, scored by
//! a search with the default parameters); the end is the rules core's ([`Game::result`]: mate,
//! no legal move, sennichite under the default rule, the ply limit) or an [`Adjudication`].
//!
//! Determinism: iteration `k` of a run with seed `s` draws its signs and its start from its own
//! stream `mix(s, k)`. Iterations run in batches of `batch`: every pair of a batch plays with
//! the theta of the batch's start, and the batch's steps are applied in iteration order once
//! all its pairs are done. Searches are limited by nodes, not time. So the state after each
//! batch is a function of the settings alone, whatever the thread count, and a run stopped
//! after any batch and resumed goes through the same states as one uninterrupted run.
//!
//! The state file ([`Tuner::to_text`]) is `key=value` text rewritten atomically after every
//! batch; a log (`STATE.log`, tab-separated) gets theta every `log_every` iterations.

use super::datagen::{draw_start, parse_openings, Adjudication, Adjudicator};
use super::rng::{mix, SplitMix64};
use super::shard::parse_meta;
use crate::game::{Game, GameRules, SennichiteRule};
use crate::params::{param_spec, ParamSpec, SearchParams, SEARCH_PARAMS};
use crate::search::{SearchConfig, SearchResult, Searcher, Signals, SEARCH_STACK_BYTES};
use crate::time::Limits;
use crate::tt::TranspositionTable;
use crate::types::Color;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The decay exponent of the perturbation (`c_k = c / k^GAMMA`).
pub const GAMMA: f64 = 0.101;
/// The decay exponent of the gain (`a_k = a / (A + k)^ALPHA`).
pub const ALPHA: f64 = 0.602;
/// `A` is this fraction of the planned iterations.
pub const A_FRACTION: f64 = 0.1;
/// Fishtest's usual learning rate at the end.
pub const DEFAULT_R_END: f64 = 0.002;
/// The first line of the state's settings: a state of another format is refused.
const FORMAT: &str = "gogo-spsa-1";

/// One tuned parameter: an entry of [`SEARCH_PARAMS`] with the run's start, bounds and gains.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub spec: &'static ParamSpec,
    pub start: f64,
    /// Theta and the values played stay within these (inside the table's bounds).
    pub min: f64,
    pub max: f64,
    pub c_end: f64,
    pub r_end: f64,
}

impl Param {
    /// The table's entry as it is: its default, bounds and `c_end`.
    pub fn from_spec(spec: &'static ParamSpec, r_end: f64) -> Param {
        Param {
            spec,
            start: spec.default,
            min: spec.min,
            max: spec.max,
            c_end: spec.c_end,
            r_end,
        }
    }

    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// What the state file records of it (compared when a run resumes).
    fn describe(&self) -> String {
        format!(
            "start {} min {} max {} c_end {} r_end {}",
            self.start, self.min, self.max, self.c_end, self.r_end
        )
    }

    fn check(&self) -> Result<(), String> {
        let name = self.name();
        let s = self.spec;
        let all = [self.start, self.min, self.max, self.c_end, self.r_end];
        if all.iter().any(|v| !v.is_finite()) {
            return Err(format!("{name}: every number must be finite"));
        }
        if self.min < s.min || self.max > s.max || self.min >= self.max {
            return Err(format!(
                "{name}: bounds {} ..= {} must be increasing and within {} ..= {}",
                self.min, self.max, s.min, s.max
            ));
        }
        if self.start < self.min || self.start > self.max {
            return Err(format!(
                "{name}: start {} is outside {} ..= {}",
                self.start, self.min, self.max
            ));
        }
        if self.c_end <= 0.0 || self.r_end <= 0.0 {
            return Err(format!("{name}: c_end and r_end must be positive"));
        }
        Ok(())
    }
}

/// Every parameter of the table, from its default.
pub fn table_params(r_end: f64) -> Vec<Param> {
    SEARCH_PARAMS
        .iter()
        .map(|s| Param::from_spec(s, r_end))
        .collect()
}

/// A parameter file, Fishtest's format: one `NAME, start, min, max, c_end[, r_end]` a line
/// (`r_end` left out: `default_r_end`), `#` comments and blank lines skipped. The names are
/// those of [`SEARCH_PARAMS`]; the bounds must lie within the table's.
pub fn parse_params(text: &str, default_r_end: f64) -> Result<Vec<Param>, String> {
    let mut out: Vec<Param> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |e: String| format!("line {}: {e}", i + 1);
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if !(5..=6).contains(&f.len()) {
            return Err(at(format!(
                "'{line}': want NAME, start, min, max, c_end[, r_end]"
            )));
        }
        let spec = param_spec(f[0]).ok_or_else(|| {
            at(format!(
                "no search parameter is called '{}' (see `spsa params`)",
                f[0]
            ))
        })?;
        if out.iter().any(|p| p.name() == spec.name) {
            return Err(at(format!("{} is given twice", spec.name)));
        }
        let num = |s: &str| -> Result<f64, String> {
            s.parse::<f64>()
                .map_err(|_| at(format!("'{s}' is not a number")))
        };
        let p = Param {
            spec,
            start: num(f[1])?,
            min: num(f[2])?,
            max: num(f[3])?,
            c_end: num(f[4])?,
            r_end: match f.get(5) {
                Some(v) => num(v)?,
                None => default_r_end,
            },
        };
        p.check().map_err(at)?;
        out.push(p);
    }
    if out.is_empty() {
        return Err("no parameter to tune".to_string());
    }
    Ok(out)
}

/// `params` in the format [`parse_params`] reads.
pub fn format_params(params: &[Param]) -> String {
    let mut text = String::from("# NAME, start, min, max, c_end, r_end\n");
    for p in params {
        text.push_str(&format!(
            "{}, {}, {}, {}, {}, {}\n",
            p.name(),
            p.start,
            p.min,
            p.max,
            p.c_end,
            p.r_end
        ));
    }
    text
}

/// The gains of one parameter over a run (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    pub c: f64,
    pub a: f64,
    /// Fishtest's `A`: a tenth of the planned iterations.
    pub big_a: f64,
}

impl Schedule {
    /// The schedule that ends, after `iterations`, with perturbation `c_end` and learning
    /// rate `r_end`.
    pub fn new(c_end: f64, r_end: f64, iterations: u64) -> Schedule {
        let n = iterations.max(1) as f64;
        let big_a = A_FRACTION * n;
        Schedule {
            c: c_end * n.powf(GAMMA),
            a: r_end * c_end * c_end * (big_a + n).powf(ALPHA),
            big_a,
        }
    }

    /// The perturbation of iteration `k` (from 1).
    pub fn c_k(&self, k: u64) -> f64 {
        self.c / (k as f64).powf(GAMMA)
    }

    /// The gain of iteration `k`.
    pub fn a_k(&self, k: u64) -> f64 {
        self.a / (self.big_a + k as f64).powf(ALPHA)
    }

    /// The learning rate of iteration `k`, `a_k / c_k^2`.
    pub fn r_k(&self, k: u64) -> f64 {
        self.a_k(k) / (self.c_k(k) * self.c_k(k))
    }

    /// How far theta moves at iteration `k` for a pair `result` (-2 ..= 2) and sign `delta`.
    pub fn step(&self, k: u64, result: i32, delta: i8) -> f64 {
        self.a_k(k) / self.c_k(k) * result as f64 * delta as f64
    }
}

/// What decides a run: everything but the thread count. The state file records it and a
/// resumed run must repeat it.
#[derive(Clone, Debug)]
pub struct Settings {
    pub seed: u64,
    /// Planned iterations (game pairs): the schedule ends there.
    pub iterations: u64,
    /// Iterations that play against the same theta (see the module documentation).
    pub batch: u64,
    /// Node budget per move.
    pub nodes: u64,
    /// Hash table of each side, MiB.
    pub hash_mb: usize,
    /// Opening lines as `position` arguments.
    pub openings: Vec<String>,
    /// Random legal moves after the opening line.
    pub random_plies: usize,
    /// Node budget of the search (default parameters) that scores a start.
    pub start_nodes: u64,
    /// Largest |score| of an acceptable start; 0 accepts any (unsearched).
    pub max_start_score: i32,
    /// A draw after this many plies.
    pub max_plies: u32,
    pub adjudication: Adjudication,
    pub params: Vec<Param>,
}

/// The opening suite of the repository (`data/openings.txt`).
pub fn default_openings() -> Vec<String> {
    parse_openings(include_str!("../../data/openings.txt"))
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 1,
            iterations: 20_000,
            batch: 1,
            nodes: 10_000,
            hash_mb: 4,
            openings: default_openings(),
            random_plies: 2,
            start_nodes: 1000,
            max_start_score: 300,
            max_plies: 300,
            adjudication: Adjudication::default(),
            params: table_params(DEFAULT_R_END),
        }
    }
}

impl Settings {
    fn rules(&self) -> GameRules {
        GameRules {
            sennichite: SennichiteRule::default(),
            max_plies: self.max_plies,
        }
    }

    fn check(&self) -> Result<(), String> {
        if self.iterations == 0 || self.batch == 0 || self.nodes == 0 || self.hash_mb == 0 {
            return Err("iterations, batch, nodes and hash must be at least 1".to_string());
        }
        if self.openings.is_empty() {
            return Err("no opening lines".to_string());
        }
        for line in &self.openings {
            Game::parse_position(line).map_err(|e| format!("opening '{line}': {e}"))?;
        }
        if self.params.is_empty() {
            return Err("no parameter to tune".to_string());
        }
        for (i, p) in self.params.iter().enumerate() {
            p.check()?;
            if self.params[..i].iter().any(|q| q.name() == p.name()) {
                return Err(format!("{} is given twice", p.name()));
            }
        }
        Ok(())
    }

    /// The settings as `(key, value)` pairs, as the state file records them.
    pub fn describe(&self) -> Vec<(String, String)> {
        let adj = self.adjudication;
        let mut v: Vec<(String, String)> = [
            ("format", FORMAT.to_string()),
            ("net", format!("{:016x}", crate::nnue::default_net().hash())),
            ("seed", self.seed.to_string()),
            ("iterations", self.iterations.to_string()),
            ("batch", self.batch.to_string()),
            ("nodes", self.nodes.to_string()),
            ("hash_mb", self.hash_mb.to_string()),
            (
                "openings",
                format!(
                    "{} lines, fnv1a {:016x}",
                    self.openings.len(),
                    crate::nnue::net::fnv1a(self.openings.join("\n").as_bytes())
                ),
            ),
            ("random_plies", self.random_plies.to_string()),
            ("start_nodes", self.start_nodes.to_string()),
            ("max_start_score", self.max_start_score.to_string()),
            ("max_plies", self.max_plies.to_string()),
            ("sennichite", self.rules().sennichite.name().to_string()),
            (
                "adjudicate",
                format!(
                    "mate {}, score {} for {} plies",
                    adj.mate, adj.score, adj.score_plies
                ),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for p in &self.params {
            v.push((format!("param.{}", p.name()), p.describe()));
        }
        v
    }
}

/// Totals of a run, from the plus side's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub pairs: u64,
    pub games: u64,
    pub plus_wins: u64,
    pub draws: u64,
    pub plus_losses: u64,
    pub adjudicated: u64,
    /// Pairs not played: no balanced start was found (they move nothing).
    pub no_start: u64,
    pub plies: u64,
    pub nodes: u64,
}

impl Totals {
    const KEYS: [&'static str; 9] = [
        "pairs",
        "games",
        "plus_wins",
        "draws",
        "plus_losses",
        "adjudicated",
        "no_start",
        "plies",
        "nodes_searched",
    ];

    fn values(&self) -> [u64; 9] {
        [
            self.pairs,
            self.games,
            self.plus_wins,
            self.draws,
            self.plus_losses,
            self.adjudicated,
            self.no_start,
            self.plies,
            self.nodes,
        ]
    }

    fn from_values(v: [u64; 9]) -> Totals {
        Totals {
            pairs: v[0],
            games: v[1],
            plus_wins: v[2],
            draws: v[3],
            plus_losses: v[4],
            adjudicated: v[5],
            no_start: v[6],
            plies: v[7],
            nodes: v[8],
        }
    }
}

/// How one game of a pair ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The side the plus parameters played.
    pub plus: Color,
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub adjudicated: bool,
    pub plies: u32,
    pub nodes: u64,
}

impl GameEnd {
    /// 1, 0 or -1 for the plus side.
    pub fn plus_score(&self) -> i32 {
        match self.winner {
            None => 0,
            Some(c) if c == self.plus => 1,
            Some(_) => -1,
        }
    }
}

/// One iteration: its signs and its game pair (none when no start was found).
#[derive(Clone, Debug, PartialEq)]
pub struct IterationResult {
    pub k: u64,
    pub delta: Vec<i8>,
    pub games: Vec<GameEnd>,
}

impl IterationResult {
    /// The plus side's wins less its losses, -2 ..= 2.
    pub fn result(&self) -> i32 {
        self.games.iter().map(GameEnd::plus_score).sum()
    }
}

/// One side of a game: a searcher with its own hash table and parameters.
struct Player {
    searcher: Searcher,
    config: SearchConfig,
    limits: Limits,
}

impl Player {
    fn new(hash_mb: usize, params: SearchParams, nodes: u64) -> Player {
        let tt = Arc::new(TranspositionTable::new(hash_mb));
        Player {
            searcher: Searcher::new(tt, Arc::new(Signals::default())),
            config: SearchConfig {
                verbose: false,
                mate_probe: false,
                sennichite: SennichiteRule::default(),
                params,
                ..SearchConfig::default()
            },
            limits: Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
        }
    }

    fn think(&mut self, game: &Game) -> SearchResult {
        self.searcher
            .think(game.positions(), &self.limits, &[], &self.config)
    }
}

/// [`SearchParams`] with the tuned parameters at `values` (clamped and rounded by
/// [`SearchParams::set`]), the others at their defaults.
pub fn search_params(params: &[Param], values: &[f64]) -> SearchParams {
    let mut sp = SearchParams::default();
    for (p, &v) in params.iter().zip(values) {
        sp.set(p.name(), v).expect("a parameter of the table");
    }
    sp
}

/// Plays one game from `start`, `sente` and `gote` the two sides' parameters.
fn play_game(
    s: &Settings,
    start: &Game,
    sente: SearchParams,
    gote: SearchParams,
    plus: Color,
) -> Result<GameEnd, String> {
    let mut players = [
        Player::new(s.hash_mb, sente, s.nodes),
        Player::new(s.hash_mb, gote, s.nodes),
    ];
    let rules = s.rules();
    let mut game = start.clone();
    let mut adjudicator = Adjudicator::new(s.adjudication);
    let mut end = GameEnd {
        plus,
        winner: None,
        adjudicated: false,
        plies: 0,
        nodes: 0,
    };
    loop {
        if let Some(r) = game.result(rules) {
            end.winner = r.winner;
            return Ok(end);
        }
        let us = game.current().side_to_move();
        let r = players[us.index()].think(&game);
        end.nodes += r.nodes;
        let best = r
            .best
            .ok_or_else(|| format!("search found no move in {}", game.current()))?;
        if let Some(w) = adjudicator.judge(us, r.score) {
            end.winner = Some(w);
            end.adjudicated = true;
            return Ok(end);
        }
        game.play(best).map_err(|e| e.to_string())?;
        end.plies += 1;
    }
}

/// The values a side plays with at iteration `k`: `theta + sign * c_k * delta`, within the
/// parameters' bounds.
pub fn perturbed(
    params: &[Param],
    schedules: &[Schedule],
    theta: &[f64],
    k: u64,
    delta: &[i8],
    sign: f64,
) -> Vec<f64> {
    params
        .iter()
        .enumerate()
        .map(|(i, p)| (theta[i] + sign * schedules[i].c_k(k) * delta[i] as f64).clamp(p.min, p.max))
        .collect()
}

/// Plays iteration `k` against `theta`: draws the signs and a start from the iteration's own
/// stream, then the pair (the plus side as sente first).
pub fn play_iteration(
    s: &Settings,
    schedules: &[Schedule],
    theta: &[f64],
    k: u64,
) -> Result<IterationResult, String> {
    let mut rng = SplitMix64::new(mix(s.seed, k));
    let delta: Vec<i8> = s
        .params
        .iter()
        .map(|_| if rng.next_u64() >> 63 == 0 { 1 } else { -1 })
        .collect();
    let plus = search_params(
        &s.params,
        &perturbed(&s.params, schedules, theta, k, &delta, 1.0),
    );
    let minus = search_params(
        &s.params,
        &perturbed(&s.params, schedules, theta, k, &delta, -1.0),
    );
    let mut scorer = Player::new(s.hash_mb, SearchParams::default(), s.start_nodes.max(1));
    let start = draw_start(
        &s.openings,
        s.random_plies,
        s.max_start_score,
        s.rules(),
        &mut rng,
        |game| scorer.think(game).score,
    )?;
    let mut games = Vec::new();
    if let Some(start) = start {
        games.push(play_game(s, &start, plus, minus, Color::Black)?);
        games.push(play_game(s, &start, minus, plus, Color::White)?);
    }
    Ok(IterationResult { k, delta, games })
}

/// A run: its settings, its schedules and where it stands.
#[derive(Clone, Debug)]
pub struct Tuner {
    pub settings: Settings,
    pub schedules: Vec<Schedule>,
    /// Iterations done.
    pub iteration: u64,
    /// Where each parameter stands (the order of `settings.params`).
    pub theta: Vec<f64>,
    pub totals: Totals,
}

impl Tuner {
    /// A new run at iteration 0, theta at the starts.
    pub fn new(settings: Settings) -> Result<Tuner, String> {
        settings.check()?;
        let schedules = settings
            .params
            .iter()
            .map(|p| Schedule::new(p.c_end, p.r_end, settings.iterations))
            .collect();
        let theta = settings.params.iter().map(|p| p.start).collect();
        Ok(Tuner {
            settings,
            schedules,
            iteration: 0,
            theta,
            totals: Totals::default(),
        })
    }

    pub fn is_done(&self) -> bool {
        self.iteration >= self.settings.iterations
    }

    /// The state file's text: the position, then the settings, then theta.
    pub fn to_text(&self) -> String {
        let mut t = String::from(
            "# Gogo SPSA state (docs/tuning.md): rewritten after every batch; the command that \
             made it resumes it, other settings are refused.\n",
        );
        t.push_str(&format!("iteration={}\n", self.iteration));
        for (k, v) in Totals::KEYS.iter().zip(self.totals.values()) {
            t.push_str(&format!("{k}={v}\n"));
        }
        for (k, v) in self.settings.describe() {
            t.push_str(&format!("{k}={v}\n"));
        }
        // `{}` of an f64 is the shortest text that reads back to the same number.
        for (p, th) in self.settings.params.iter().zip(&self.theta) {
            t.push_str(&format!("theta.{}={th}\n", p.name()));
        }
        t
    }

    /// The run of `settings` where `text` (a state file's) left it; refused, with every
    /// difference listed, when the state was made with other settings.
    pub fn from_text(settings: Settings, text: &str) -> Result<Tuner, String> {
        let mut tuner = Tuner::new(settings)?;
        let have = parse_meta(text);
        let want = tuner.settings.describe();
        let mut diffs = Vec::new();
        for (k, v) in &want {
            match have.get(k) {
                Some(h) if h == v => {}
                Some(h) => diffs.push(format!("  {k}: the state has '{h}', this run '{v}'")),
                None => diffs.push(format!("  {k}: not in the state, this run '{v}'")),
            }
        }
        for (k, h) in &have {
            if k.starts_with("param.") && !want.iter().any(|(w, _)| w == k) {
                diffs.push(format!(
                    "  {k}: the state has '{h}', this run does not tune it"
                ));
            }
        }
        if !diffs.is_empty() {
            return Err(format!(
                "the state was made with other settings; resume it with the same ones (or start \
                 another state file):\n{}",
                diffs.join("\n")
            ));
        }
        let num = |k: &str| -> Result<u64, String> {
            have.get(k)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("the state has no valid '{k}'"))
        };
        tuner.iteration = num("iteration")?;
        if tuner.iteration > tuner.settings.iterations {
            return Err(format!(
                "the state is at iteration {}, beyond the planned {}",
                tuner.iteration, tuner.settings.iterations
            ));
        }
        let mut totals = [0u64; 9];
        for (slot, k) in totals.iter_mut().zip(Totals::KEYS) {
            *slot = num(k)?;
        }
        tuner.totals = Totals::from_values(totals);
        for (i, p) in tuner.settings.params.iter().enumerate() {
            let k = format!("theta.{}", p.name());
            let th: f64 = have
                .get(&k)
                .and_then(|v| v.parse().ok())
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| format!("the state has no valid '{k}'"))?;
            tuner.theta[i] = th;
        }
        Ok(tuner)
    }

    /// The run of `settings` in the state file at `path`, or a new one when there is none.
    pub fn open(path: &Path, settings: Settings) -> Result<Tuner, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                Tuner::from_text(settings, &text).map_err(|e| format!("{}: {e}", path.display()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Tuner::new(settings),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Writes the state to `path` atomically (a synced temporary file renamed over it).
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let tmp = with_suffix(path, ".tmp");
        let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
        let mut f = std::fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
        f.write_all(self.to_text().as_bytes())
            .and_then(|_| f.sync_all())
            .map_err(|e| io(&tmp, e))?;
        drop(f);
        std::fs::rename(&tmp, path).map_err(|e| io(path, e))
    }

    /// Plays the next batch (at most `batch` iterations, not beyond the planned ones) on up to
    /// `threads` threads, then applies its steps in iteration order. Returns its iterations.
    pub fn play_batch(&mut self, threads: usize) -> Result<Vec<IterationResult>, String> {
        let first = self.iteration + 1;
        let last = (self.iteration + self.settings.batch).min(self.settings.iterations);
        if first > last {
            return Ok(Vec::new());
        }
        let count = (last - first + 1) as usize;
        let next = AtomicU64::new(first);
        let abort = AtomicBool::new(false);
        let slots: Mutex<Vec<Option<Result<IterationResult, String>>>> =
            Mutex::new(vec![None; count]);
        let (s, schedules, theta) = (&self.settings, &self.schedules, &self.theta);
        std::thread::scope(|scope| -> Result<(), String> {
            for w in 0..threads.clamp(1, count) {
                let (next, abort, slots) = (&next, &abort, &slots);
                std::thread::Builder::new()
                    .name(format!("spsa {w}"))
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, move || loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k > last || abort.load(Ordering::Relaxed) {
                            break;
                        }
                        let r = play_iteration(s, schedules, theta, k);
                        if r.is_err() {
                            abort.store(true, Ordering::Relaxed);
                        }
                        slots.lock().unwrap_or_else(|e| e.into_inner())[(k - first) as usize] =
                            Some(r);
                    })
                    .map_err(|e| format!("cannot start a game thread: {e}"))?;
            }
            Ok(())
        })?;
        let slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut results = Vec::with_capacity(count);
        for (i, slot) in slots.into_iter().enumerate() {
            match slot {
                Some(Ok(r)) => results.push(r),
                Some(Err(e)) => return Err(format!("iteration {}: {e}", first + i as u64)),
                None => return Err(format!("iteration {} was not played", first + i as u64)),
            }
        }
        for r in &results {
            self.apply(r);
        }
        Ok(results)
    }

    /// Moves theta by one iteration's result and counts it.
    pub fn apply(&mut self, r: &IterationResult) {
        let result = r.result();
        for (i, p) in self.settings.params.iter().enumerate() {
            let step = self.schedules[i].step(r.k, result, r.delta[i]);
            self.theta[i] = (self.theta[i] + step).clamp(p.min, p.max);
        }
        let t = &mut self.totals;
        t.pairs += 1;
        t.no_start += r.games.is_empty() as u64;
        for g in &r.games {
            t.games += 1;
            match g.plus_score() {
                1 => t.plus_wins += 1,
                0 => t.draws += 1,
                _ => t.plus_losses += 1,
            }
            t.adjudicated += g.adjudicated as u64;
            t.plies += g.plies as u64;
            t.nodes += g.nodes;
        }
        self.iteration = self.iteration.max(r.k);
    }

    /// The current values (theta rounded as played) as Rust constants for `src/params.rs`.
    pub fn rust_constants(&self) -> String {
        let rows: Vec<(&ParamSpec, f64, f64)> = self
            .settings
            .params
            .iter()
            .zip(&self.theta)
            .map(|(p, &th)| (p.spec, p.start, th))
            .collect();
        rust_constants(&rows)
    }
}

/// `path` with `suffix` added to its file name.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = OsString::from(path.as_os_str());
    s.push(suffix);
    PathBuf::from(s)
}

/// The log of a state file: `STATE.log`.
pub fn log_path(state: &Path) -> PathBuf {
    with_suffix(state, ".log")
}

/// A float constant with at most 3 decimals (at least one).
fn float_text(v: f64) -> String {
    let t = format!("{v:.3}");
    let t = t.trim_end_matches('0');
    if t.ends_with('.') {
        format!("{t}0")
    } else {
        t.to_string()
    }
}

/// The value `theta` gives a parameter, as Rust source (rounded for an integer).
fn value_text(spec: &ParamSpec, theta: f64) -> String {
    let v = theta.clamp(spec.min, spec.max);
    if spec.integer {
        format!("{}", v.round() as i64)
    } else {
        float_text(v)
    }
}

/// `pub const NAME: TYPE = VALUE;` lines for `(spec, start, theta)` rows, each with its start
/// and theta in a comment.
pub fn rust_constants(rows: &[(&ParamSpec, f64, f64)]) -> String {
    rows.iter()
        .map(|(spec, start, theta)| {
            format!(
                "pub const {}: {} = {}; // start {}, theta {:.3}\n",
                spec.name,
                spec.rust_type,
                value_text(spec, *theta),
                value_text(spec, *start),
                theta
            )
        })
        .collect()
}

/// What `spsa show` prints of a state file's text: where it stands and its values as Rust
/// constants, read from the file alone.
pub fn show(text: &str) -> Result<String, String> {
    let have = parse_meta(text);
    if have.get("format").map(String::as_str) != Some(FORMAT) {
        return Err(format!("not a state file of this tool (format {FORMAT})"));
    }
    let get = |k: &str| have.get(k).map_or("?", String::as_str);
    let mut rows = Vec::new();
    for spec in SEARCH_PARAMS {
        let Some(th) = have.get(&format!("theta.{}", spec.name)) else {
            continue;
        };
        let theta: f64 = th
            .parse()
            .map_err(|_| format!("theta.{}: '{th}' is not a number", spec.name))?;
        let start = have
            .get(&format!("param.{}", spec.name))
            .and_then(|d| d.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(spec.default);
        rows.push((spec, start, theta));
    }
    if rows.is_empty() {
        return Err("the state has no theta".to_string());
    }
    Ok(format!(
        "// SPSA: iteration {} of {}, {} games (plus side won {}, drew {}, lost {}); seed {}, \
         {} nodes per move\n{}",
        get("iteration"),
        get("iterations"),
        get("games"),
        get("plus_wins"),
        get("draws"),
        get("plus_losses"),
        get("seed"),
        get("nodes"),
        rust_constants(&rows)
    ))
}

/// How [`run`] goes about it (nothing here changes the result).
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub threads: usize,
    /// Theta goes to the log every this many iterations (and at the start and the end).
    pub log_every: u64,
    /// No new batch after this long.
    pub time_limit: Option<Duration>,
    /// No new batch once this many iterations are done.
    pub until: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 1,
            log_every: 100,
            time_limit: None,
            until: None,
        }
    }
}

/// The log's header line.
fn log_header(params: &[Param]) -> String {
    let mut h = String::from("iteration\tpairs\tplus_wins\tdraws\tplus_losses");
    for p in params {
        h.push('\t');
        h.push_str(p.name());
    }
    h.push('\n');
    h
}

fn log_line(t: &Tuner) -> String {
    let mut l = format!(
        "{}\t{}\t{}\t{}\t{}",
        t.iteration, t.totals.pairs, t.totals.plus_wins, t.totals.draws, t.totals.plus_losses
    );
    for th in &t.theta {
        l.push_str(&format!("\t{th}"));
    }
    l.push('\n');
    l
}

/// Opens the log for appending: created with its header, or kept up to the state's
/// iteration (a line written just before a kill, for a batch the state does not have, goes).
fn open_log(path: &Path, t: &Tuner) -> Result<std::fs::File, String> {
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    let old = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(e)),
    };
    let header = log_header(&t.settings.params);
    let mut text = header.clone();
    for line in old.lines().skip(1) {
        let it = line.split('\t').next().and_then(|v| v.parse::<u64>().ok());
        if it.is_some_and(|i| i <= t.iteration) {
            text.push_str(line);
            text.push('\n');
        }
    }
    if text == header {
        text.push_str(&log_line(t));
    }
    if text != old {
        // Atomically: a kill here must not lose the lines already there.
        let tmp = with_suffix(path, ".tmp");
        std::fs::write(&tmp, &text)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(io)?;
    }
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io)
}

/// Opens (or resumes) the run in the state file `path` and plays batches until the planned
/// iterations are done or `opts` says to stop. After every batch theta goes to the log (every
/// `log_every` iterations, see [`log_path`]) and then the state is saved, and `progress` sees
/// the run and the batch. A run killed at any moment resumes from its last saved batch.
pub fn run(
    path: &Path,
    settings: Settings,
    opts: &RunOptions,
    mut progress: impl FnMut(&Tuner, &[IterationResult]),
) -> Result<Tuner, String> {
    let start = Instant::now();
    let mut tuner = Tuner::open(path, settings)?;
    if !path.exists() {
        tuner.save(path)?;
    }
    let log_file = log_path(path);
    let mut log = open_log(&log_file, &tuner)?;
    let every = opts.log_every.max(1);
    while !tuner.is_done()
        && opts.until.is_none_or(|u| tuner.iteration < u)
        && opts.time_limit.is_none_or(|t| start.elapsed() < t)
    {
        let before = tuner.iteration;
        let batch = tuner.play_batch(opts.threads)?;
        if tuner.iteration / every > before / every || tuner.is_done() {
            log.write_all(log_line(&tuner).as_bytes())
                .and_then(|_| log.sync_data())
                .map_err(|e| format!("{}: {e}", log_file.display()))?;
        }
        tuner.save(path)?;
        progress(&tuner, &batch);
    }
    Ok(tuner)
}
