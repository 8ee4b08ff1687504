//! The NNUE trainer: CPU only, hand-written, sparse (see `docs/nnue.md`).
//!
//! Why hand-written: the net's first layer is a sparse sum of about 24 rows out of 13,520
//! (twelve features per perspective, plus the bucket-free factoriser rows), the rest is one
//! dot product. A tensor crate would either densify the input (13,520 x batch) or need its
//! sparse API; the whole forward and backward pass here is a few loops, has no dependency,
//! and runs both cores through `std::thread::scope` (each thread accumulates the gradient of
//! half of the batch; the halves are summed before the AdamW step).
//!
//! Target: `lambda * result + (1 - lambda) * sigmoid(score / SCALE)` (result 1 win, 0.5 draw,
//! 0 loss, side to move's view); prediction `sigmoid(output)` where output 1.0 = SCALE cp;
//! loss: mean squared error. All `--data` files are pooled (a directory: all its shards, see
//! `gogo::train::shard`); a `--val` share of the games (`--split game`, the default: runs of
//! records whose plies rise, chosen by a hash of their first position) or of the positions
//! (`--split position`: a hash of each position, the split of the nets up to generation 5) is
//! held out for the validation loss; either split is the same whatever the files' order. Split
//! by position, the other positions of a held-out position's game are trained on and share its
//! result, so that loss rewards learning the training games; give the trainer the generator's
//! files (in game order), not a shuffled merge, for a split by game. The training set is
//! shuffled every epoch, the learning rate falls along a cosine to `--lr-floor` times `--lr`,
//! training stops after `--patience` epochs without a better
//! validation loss (0: never early), and the net written is that of the epoch with the lowest
//! validation loss ([`gogo::train::trainer::fit`]).
//!
//! Usage: `cargo run --release --example train -- --data FILE [--data FILE ...] --out PREFIX
//! [--hidden N] [--epochs N] [--batch N] [--lr X] [--wd X] [--lambda X] [--threads N]
//! [--val X] [--seed S] [--init NET] [--no-factoriser] [--patience N] [--lr-floor X]
//! [--compare NET.nnue ...] [--buckets N]`
//!
//! `--freeze-features` trains the output layer alone (the `--init` net's feature weights and
//! biases stay as they are): a cheap refit of a trained net's output, into buckets say.
//!
//! `--buckets 4` trains a net with output buckets (one set of output weights for each phase,
//! by the men in both hands: [`gogo::nnue::features::output_bucket`]); from a net of one
//! bucket (`--init`), every bucket starts as a copy of its output weights. The default is
//! the `--init` net's buckets (1 without `--init`).
//!
//! `--init NET` starts from a net instead of random weights: a float net (`.fnet`), a
//! quantised net file (`.nnue`, divided back by its scales), or `embedded`, the engine's own
//! net (how a generation is trained on from the one before; the factoriser rows start at zero).
//!
//! Writes `PREFIX.fnet` (float) and, when the hidden size is the engine's, `PREFIX.nnue`
//! (quantised, loadable by `gogo::nnue::Network::load`).

use gogo::eval::evaluate;
use gogo::nnue::{default_net, Network, HIDDEN, SCALE};
use gogo::position::Position;
use gogo::train::data::{self, Record};
use gogo::train::float::FloatNet;
use gogo::train::shard;
use gogo::train::trainer::{
    export, fit, import, sample, sigmoid, validation_mask, FitOptions, Layout, Split,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// A static evaluation in centipawns (a float net's is not rounded), side to move's view.
type Evaluator<'a> = Box<dyn Fn(&Position) -> f64 + 'a>;

struct Options {
    data: Vec<PathBuf>,
    out: PathBuf,
    hidden: usize,
    epochs: usize,
    batch: usize,
    lr: f32,
    wd: f32,
    lambda: f32,
    threads: usize,
    val: f64,
    seed: u64,
    init: Option<PathBuf>,
    factoriser: bool,
    patience: usize,
    lr_floor: f32,
    compare: Vec<PathBuf>,
    split: Split,
    buckets: Option<usize>,
    freeze_features: bool,
}

const USAGE: &str = "usage: train --data FILE [--data FILE ...] --out PREFIX [--hidden N] \
    [--epochs N] [--batch N] [--lr X] [--wd X] [--lambda X] [--threads N] [--val X] [--seed S] \
    [--init NET] [--no-factoriser] [--patience N] [--lr-floor X] [--split game|position] \
    [--compare NET.nnue ...] [--buckets 1|4] [--freeze-features]";

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        data: Vec::new(),
        out: PathBuf::new(),
        hidden: HIDDEN,
        epochs: 10,
        batch: 8192,
        lr: 0.002,
        wd: 0.01,
        lambda: 0.3,
        threads: 2,
        val: 0.05,
        seed: 1,
        init: None,
        factoriser: true,
        patience: 0,
        lr_floor: 0.01,
        compare: Vec::new(),
        split: Split::Game,
        buckets: None,
        freeze_features: false,
    };
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--no-factoriser" {
            o.factoriser = false;
            continue;
        }
        if flag == "--freeze-features" {
            o.freeze_features = true;
            continue;
        }
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.into());
        }
        let v = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let bad = || format!("{flag}: bad value '{v}'");
        match flag.as_str() {
            "--data" => o.data.push(PathBuf::from(&v)),
            "--out" => out = Some(PathBuf::from(&v)),
            "--hidden" => o.hidden = v.parse().map_err(|_| bad())?,
            "--epochs" => o.epochs = v.parse().map_err(|_| bad())?,
            "--batch" => o.batch = v.parse().map_err(|_| bad())?,
            "--lr" => o.lr = v.parse().map_err(|_| bad())?,
            "--wd" => o.wd = v.parse().map_err(|_| bad())?,
            "--lambda" => o.lambda = v.parse().map_err(|_| bad())?,
            "--threads" => o.threads = v.parse().map_err(|_| bad())?,
            "--val" => o.val = v.parse().map_err(|_| bad())?,
            "--seed" => o.seed = v.parse().map_err(|_| bad())?,
            "--init" => o.init = Some(PathBuf::from(&v)),
            "--patience" => o.patience = v.parse().map_err(|_| bad())?,
            "--lr-floor" => o.lr_floor = v.parse().map_err(|_| bad())?,
            "--compare" => o.compare.push(PathBuf::from(&v)),
            "--buckets" => {
                let n: usize = v.parse().map_err(|_| bad())?;
                if !gogo::nnue::net::valid_buckets(n) {
                    return Err(format!(
                        "--buckets: 1 or {}, not {n}",
                        gogo::nnue::features::OUTPUT_BUCKETS
                    ));
                }
                o.buckets = Some(n);
            }
            "--split" => {
                o.split = match v.as_str() {
                    "game" => Split::Game,
                    "position" => Split::Position,
                    _ => return Err(format!("--split: 'game' or 'position', not '{v}'")),
                }
            }
            _ => return Err(format!("unknown argument '{flag}'\n{USAGE}")),
        }
    }
    o.out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    if o.data.is_empty() {
        return Err(format!("--data is required\n{USAGE}"));
    }
    if o.hidden == 0 || o.batch == 0 || o.threads == 0 || !(0.0..1.0).contains(&o.val) {
        return Err(format!("bad sizes\n{USAGE}"));
    }
    Ok(o)
}

fn run(o: &Options) -> Result<(), String> {
    let t0 = Instant::now();
    // The pool: every file's positions, split into training and validation by whole games
    // (`--split game`, the first position of each game hashed) or by position. Either way the
    // split does not depend on the files' order. Only the validation records are kept whole,
    // for the comparisons at the end.
    let mut train = Vec::new();
    let mut val = Vec::new();
    let mut val_records: Vec<Record> = Vec::new();
    let (mut games, mut val_games) = (0usize, 0usize);
    for (path, count) in &shard::data_files(&o.data)? {
        let records =
            data::read_records(path, *count).map_err(|e| format!("{}: {e}", path.display()))?;
        let runs = data::games(&records);
        log::info!(
            "{}: {} positions in {} games",
            path.display(),
            records.len(),
            runs.len()
        );
        if o.split == Split::Game && records.len() > 100 && records.len() < 3 * runs.len() {
            log::warn!(
                "{}: fewer than 3 positions a game: a shuffled (merged) file? its games cannot \
                 be told apart, so its split is nearly by position",
                path.display()
            );
        }
        let mask = validation_mask(&records, o.val, o.split);
        games += runs.len();
        val_games += runs.iter().filter(|g| mask[g.start]).count();
        for (r, held) in records.into_iter().zip(mask) {
            if held {
                val.push(sample(&r, o.lambda));
                val_records.push(r);
            } else {
                train.push(sample(&r, o.lambda));
            }
        }
    }
    match o.split {
        Split::Game => log::info!("split by game: {val_games} of {games} games held out"),
        Split::Position => log::info!("split by position ({games} games in the data)"),
    }
    if train.is_empty() || val.is_empty() {
        return Err(format!(
            "{} training and {} validation positions: not enough",
            train.len(),
            val.len()
        ));
    }
    log::info!(
        "{} training and {} validation positions, prepared in {:.1} s",
        train.len(),
        val.len(),
        t0.elapsed().as_secs_f64()
    );

    // The nets to compare with, loaded before training so that a bad path fails at once:
    // the embedded net (the generation a new net must beat), each --compare net, and the
    // handcrafted evaluation.
    let embedded = default_net();
    let mut others: Vec<(String, Evaluator)> = vec![(
        format!("embedded net {:016x}", embedded.hash()),
        Box::new(move |pos: &Position| embedded.evaluate_position(pos) as f64),
    )];
    for path in &o.compare {
        let q = Network::load(path).map_err(|e| format!("{}: {e}", path.display()))?;
        others.push((
            format!("{} {:016x}", path.display(), q.hash()),
            Box::new(move |pos: &Position| q.evaluate_position(pos) as f64),
        ));
    }
    others.push((
        "handcrafted".into(),
        Box::new(|pos: &Position| evaluate(pos) as f64),
    ));

    let init = match &o.init {
        Some(path) => FloatNet::open(path)?,
        None => FloatNet::random(o.hidden, o.seed),
    };
    if init.hidden != o.hidden {
        return Err(format!("--init net has hidden size {}", init.hidden));
    }
    if init.buckets > 1 || o.buckets.is_some_and(|n| n > 1) {
        let mut per = [0usize; gogo::nnue::features::OUTPUT_BUCKETS];
        for s in &train {
            per[s.bucket as usize] += 1;
        }
        log::info!("training positions by output bucket (men in hand 0, 1-2, 3-4, 5+): {per:?}");
    }
    let init = match o.buckets {
        Some(n) if n == init.buckets => init,
        Some(n) if init.buckets == 1 => init.with_buckets(n),
        Some(n) => {
            return Err(format!(
                "--init net has {} output buckets, --buckets asks {n}",
                init.buckets
            ))
        }
        None => init,
    };
    let l = Layout::new(o.hidden, init.buckets);
    let fit_options = FitOptions {
        epochs: o.epochs,
        batch: o.batch,
        lr: o.lr,
        lr_floor: o.lr_floor,
        wd: o.wd,
        threads: o.threads,
        seed: o.seed,
        factoriser: o.factoriser,
        patience: o.patience,
        freeze_features: o.freeze_features,
    };
    log::info!(
        "{} parameters, hidden {}, {} output buckets, factoriser {}, lambda {}, batch {}, lr {} (cosine to x{}), \
         wd {}, patience {}, {} threads{}",
        l.len,
        o.hidden,
        l.buckets,
        o.factoriser,
        o.lambda,
        o.batch,
        o.lr,
        o.lr_floor,
        o.wd,
        o.patience,
        o.threads,
        if o.freeze_features {
            ", features frozen (output layer only)"
        } else {
            ""
        }
    );
    let train_start = Instant::now();
    let f = fit(&l, import(&init), &train, &val, &fit_options, |e| {
        log::info!(
            "epoch {}/{}: train loss {:.6}, validation loss {:.6}, lr {:.6}, {:.0} pos/s, {:.1} s",
            e.epoch,
            o.epochs,
            e.train_loss,
            e.val_loss,
            e.lr,
            train.len() as f64 / e.seconds,
            e.seconds
        );
    });
    log::info!(
        "trained {} epochs in {:.1} s; kept epoch {} (validation loss {:.6}, start {:.6})",
        f.epochs.len(),
        train_start.elapsed().as_secs_f64(),
        f.best_epoch,
        f.best_val,
        f.start_val
    );
    let p = f.params;
    let records = val_records;
    let net = export(&l, &p, o.factoriser);
    let fpath = gogo::train::prefixed(&o.out, "fnet");
    net.save(&fpath)
        .map_err(|e| format!("{}: {e}", fpath.display()))?;
    log::info!("float net written to {}", fpath.display());
    let mut evaluators: Vec<(String, Evaluator)> = vec![(
        "new net (float)".into(),
        Box::new(|pos: &Position| net.evaluate(pos) as f64),
    )];
    evaluators.extend(others);
    compare(&evaluators, &records, o.lambda);
    if o.hidden == HIDDEN {
        let q = net.quantise().map_err(|e| e.to_string())?;
        let qpath = gogo::train::prefixed(&o.out, "nnue");
        q.save(&qpath)
            .map_err(|e| format!("{}: {e}", qpath.display()))?;
        let (mut sum, mut worst) = (0.0f64, 0.0f64);
        let n = records.len().min(2000);
        for r in &records[..n] {
            let d = (q.evaluate_position(&r.pos) as f64 - net.evaluate(&r.pos) as f64).abs();
            sum += d;
            worst = worst.max(d);
        }
        log::info!(
            "quantised net written to {} (hash {:016x}); quantised - float on {n} validation \
             positions: mean {:.2} cp, worst {:.1} cp",
            qpath.display(),
            q.hash(),
            sum / n as f64,
            worst
        );
    } else {
        log::info!(
            "hidden size {} is not the engine's {HIDDEN}: no quantised net",
            o.hidden
        );
    }
    Ok(())
}

/// How each evaluator (the new net first) agrees with the search scores and results of the
/// validation positions, and how the new net agrees with each of the others.
fn compare(evaluators: &[(String, Evaluator)], val: &[Record], lambda: f32) {
    let n = val.len() as f64;
    let scores: Vec<f64> = val.iter().map(|r| r.score as f64).collect();
    // The trainer's own target of each position.
    let targets: Vec<f32> = val.iter().map(|r| sample(r, lambda).target).collect();
    let corr = |a: &[f64], b: &[f64]| {
        let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
        let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
        cov / (va * vb).sqrt()
    };
    let mut all_evals = Vec::with_capacity(evaluators.len());
    for (name, eval) in evaluators {
        // |eval - score| (capped at 2000 cp), loss, sign agreement with the score
        let (mut diff, mut loss, mut sign) = (0.0f64, 0.0f64, 0.0f64);
        let mut evals = Vec::with_capacity(val.len());
        for ((r, &s), &target) in val.iter().zip(&scores).zip(&targets) {
            let e = eval(&r.pos);
            diff += (e - s).abs().min(2000.0);
            let p = sigmoid(e as f32 / SCALE as f32);
            loss += ((p - target) * (p - target)) as f64;
            sign += ((e > 0.0) == (s > 0.0)) as u8 as f64;
            evals.push(e);
        }
        log::info!(
            "{name} on {} validation positions: loss {:.6}, mean |eval - search score| \
             {:.0} cp, correlation with the score {:.3}, same sign {:.1}%",
            val.len(),
            loss / n,
            diff / n,
            corr(&evals, &scores),
            100.0 * sign / n
        );
        all_evals.push(evals);
    }
    for (k, (name, _)) in evaluators.iter().enumerate().skip(1) {
        let same = all_evals[0]
            .iter()
            .zip(&all_evals[k])
            .filter(|(a, b)| (**a > 0.0) == (**b > 0.0))
            .count();
        log::info!(
            "new net against {name}: correlation {:.3}, same sign {:.1}%",
            corr(&all_evals[0], &all_evals[k]),
            100.0 * same as f64 / n
        );
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .target(env_logger::Target::Stderr)
        .init();
    let result = parse_args().and_then(|o| run(&o));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
