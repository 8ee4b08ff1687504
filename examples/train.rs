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
//! loss: mean squared error. The last `--val` share of the data (whole games, since the file
//! is in game order) is held out for the validation loss.
//!
//! Usage: `cargo run --release --example train -- --data FILE [--data FILE ...] --out PREFIX
//! [--hidden N] [--epochs N] [--batch N] [--lr X] [--wd X] [--lambda X] [--threads N]
//! [--val X] [--seed S] [--init FLOAT_NET] [--no-factoriser]`
//!
//! Writes `PREFIX.fnet` (float) and, when the hidden size is the engine's, `PREFIX.nnue`
//! (quantised, loadable by `gogo::nnue::Network::load`).

use gogo::eval::evaluate;
use gogo::nnue::{HIDDEN, SCALE};
use gogo::train::data::{self, Record};
use gogo::train::float::FloatNet;
use gogo::train::rng::SplitMix64;
use gogo::train::trainer::{
    export, import, sample, sigmoid, step, validate, AdamW, Layout, Sample,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

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
}

const USAGE: &str = "usage: train --data FILE [--data FILE ...] --out PREFIX [--hidden N] \
    [--epochs N] [--batch N] [--lr X] [--wd X] [--lambda X] [--threads N] [--val X] [--seed S] \
    [--init FLOAT_NET] [--no-factoriser]";

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
    };
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--no-factoriser" {
            o.factoriser = false;
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
    let mut records = Vec::new();
    for path in &o.data {
        let r = data::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
        log::info!("{}: {} positions", path.display(), r.len());
        records.extend(r);
    }
    if records.len() < 2 {
        return Err("not enough positions".into());
    }
    let n_val = ((records.len() as f64 * o.val) as usize).max(1);
    let n_train = records.len() - n_val;
    let samples: Vec<Sample> = records.iter().map(|r| sample(r, o.lambda)).collect();
    let (train, val) = samples.split_at(n_train);
    log::info!(
        "{} training and {} validation positions, prepared in {:.1} s",
        train.len(),
        val.len(),
        t0.elapsed().as_secs_f64()
    );

    let l = Layout::new(o.hidden);
    let init = match &o.init {
        Some(path) => FloatNet::load(path).map_err(|e| format!("{}: {e}", path.display()))?,
        None => FloatNet::random(o.hidden, o.seed),
    };
    if init.hidden != o.hidden {
        return Err(format!("--init net has hidden size {}", init.hidden));
    }
    let mut p = import(&init);
    let mut opt = AdamW::new(l.len);
    let threads = o.threads;
    let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0.0f32; l.len]).collect();
    let steps_per_epoch = train.len().div_ceil(o.batch);
    let total_steps = (steps_per_epoch * o.epochs).max(1);
    let mut t = 0usize;
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = SplitMix64::new(o.seed ^ 0x5eed);
    log::info!(
        "start: validation loss {:.6}; {} parameters, hidden {}, factoriser {}, lambda {}, \
         batch {}, lr {}, wd {}, {} threads",
        validate(&l, &p, val, o.factoriser, threads),
        l.len,
        o.hidden,
        o.factoriser,
        o.lambda,
        o.batch,
        o.lr,
        o.wd,
        threads
    );
    let train_start = Instant::now();
    for epoch in 1..=o.epochs {
        let e0 = Instant::now();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut epoch_loss = 0.0f64;
        let mut last_report = Instant::now();
        for (bi, batch) in order.chunks(o.batch).enumerate() {
            let scale = 1.0 / batch.len() as f32;
            let chunk = batch.len().div_ceil(threads);
            let pr = &p;
            let lr_ = &l;
            let losses: Vec<f64> = std::thread::scope(|sc| {
                let handles: Vec<_> = batch
                    .chunks(chunk)
                    .zip(grads.iter_mut())
                    .map(|(part, g)| {
                        sc.spawn(move || {
                            let mut acc = [vec![0.0; lr_.h], vec![0.0; lr_.h]];
                            let mut loss = 0.0f64;
                            for &i in part {
                                loss += step(
                                    lr_,
                                    pr,
                                    &train[i as usize],
                                    o.factoriser,
                                    &mut acc,
                                    Some((g, scale)),
                                ) as f64;
                            }
                            loss
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("training thread"))
                    .collect()
            });
            epoch_loss += losses.iter().sum::<f64>();
            let (first, rest) = grads.split_at_mut(1);
            for other in rest.iter_mut() {
                for (a, b) in first[0].iter_mut().zip(other.iter_mut()) {
                    *a += *b;
                    *b = 0.0;
                }
            }
            // AdamW with a cosine learning-rate schedule.
            t += 1;
            let cos = (std::f32::consts::PI * t as f32 / total_steps as f32).cos();
            let lr = (o.lr * 0.5 * (1.0 + cos)).max(o.lr * 0.01);
            opt.step(&l, &mut p, &mut first[0], lr, o.wd);
            if last_report.elapsed().as_secs() >= 20 {
                last_report = Instant::now();
                let done = (bi + 1) * o.batch;
                let rate = done as f64 / e0.elapsed().as_secs_f64();
                let left = (train.len() * (o.epochs - epoch) + train.len().saturating_sub(done))
                    as f64
                    / rate;
                log::info!(
                    "epoch {epoch}: {done}/{} positions, loss {:.6}, {:.0} pos/s, ETA {:.0} s",
                    train.len(),
                    epoch_loss / done as f64,
                    rate,
                    left
                );
            }
        }
        let secs = e0.elapsed().as_secs_f64();
        let rate = train.len() as f64 / secs;
        log::info!(
            "epoch {epoch}/{}: train loss {:.6}, validation loss {:.6}, {:.0} pos/s, {:.1} s, \
             ETA {:.0} s",
            o.epochs,
            epoch_loss / train.len() as f64,
            validate(&l, &p, val, o.factoriser, threads),
            rate,
            secs,
            (o.epochs - epoch) as f64 * secs
        );
    }
    log::info!("trained in {:.1} s", train_start.elapsed().as_secs_f64());

    let net = export(&l, &p, o.factoriser);
    let fpath = o.out.with_extension("fnet");
    net.save(&fpath)
        .map_err(|e| format!("{}: {e}", fpath.display()))?;
    log::info!("float net written to {}", fpath.display());
    compare(&net, &records[n_train..], o.lambda);
    if o.hidden == HIDDEN {
        let q = net.quantise().map_err(|e| e.to_string())?;
        let qpath = o.out.with_extension("nnue");
        q.save(&qpath)
            .map_err(|e| format!("{}: {e}", qpath.display()))?;
        let (mut sum, mut worst) = (0.0f64, 0.0f64);
        let n = val.len().min(2000);
        for r in &records[n_train..n_train + n] {
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

/// How the net and the handcrafted evaluation agree with the search scores and results of the
/// validation positions.
fn compare(net: &FloatNet, val: &[Record], lambda: f32) {
    let n = val.len() as f64;
    let mut stats = [[0.0f64; 3]; 2]; // per evaluator: |eval - score|, loss, sign agreement
    let mut scores = Vec::with_capacity(val.len());
    let mut evals = [Vec::with_capacity(val.len()), Vec::with_capacity(val.len())];
    for r in val {
        let target = lambda * (r.result as f32 + 1.0) / 2.0
            + (1.0 - lambda) * sigmoid(r.score as f32 / SCALE as f32);
        let e = [net.evaluate(&r.pos) as f64, evaluate(&r.pos) as f64];
        let s = r.score as f64;
        scores.push(s);
        for k in 0..2 {
            evals[k].push(e[k]);
            stats[k][0] += (e[k] - s).abs().min(2000.0);
            let p = sigmoid(e[k] as f32 / SCALE as f32);
            stats[k][1] += ((p - target) * (p - target)) as f64;
            stats[k][2] += ((e[k] > 0.0) == (s > 0.0)) as u8 as f64;
        }
    }
    let corr = |a: &[f64], b: &[f64]| {
        let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
        let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
        cov / (va * vb).sqrt()
    };
    for (k, name) in ["net", "handcrafted"].iter().enumerate() {
        log::info!(
            "{name:>11} on {} validation positions: loss {:.6}, mean |eval - search score| \
             {:.0} cp, correlation with the score {:.3}, same sign {:.1}%",
            val.len(),
            stats[k][1] / n,
            stats[k][0] / n,
            corr(&evals[k], &scores),
            100.0 * stats[k][2] / n
        );
    }
    let same = evals[0]
        .iter()
        .zip(&evals[1])
        .filter(|(a, b)| (**a > 0.0) == (**b > 0.0))
        .count();
    log::info!(
        "net against handcrafted: correlation {:.3}, same sign {:.1}%",
        corr(&evals[0], &evals[1]),
        100.0 * same as f64 / n
    );
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
