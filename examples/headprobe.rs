//! Heads on a trained net's frozen accumulators: how much would another last layer gain?
//!
//! The feature transformer of a net (the embedded one by default) is kept as it is; each
//! position of the data becomes its two activated accumulators (`screlu`, side to move first,
//! 2 x H values), and three heads are fitted on them with the trainer's target and loss, on the
//! trainer's split by whole games:
//!
//! - `linear`: the net's own output layer, trained on (a refit; where it starts is the net);
//! - `buckets`: the same with one output layer per output bucket (`--buckets 4` of `train`,
//!   [`gogo::nnue::features::output_bucket`]), each starting as the net's;
//! - `layer`: the net's output layer plus a second small layer beside it, `w2 . crelu(W1 a +
//!   c1)` with `--hidden2` neurons (its output weights start at zero, so it too starts as the
//!   net).
//!
//! A head that cannot lower the held-out loss with the features frozen has little to give
//! the net; one that does is worth building into the net and training whole. Usage:
//!
//! ```text
//! cargo run --release --example headprobe -- --data DIR [--data FILE ...] [--net NET]
//!     [--epochs 6] [--hidden2 16] [--lr 0.001] [--lambda 0.3] [--val 0.05] [--max N]
//! ```
//!
//! `--net` is `embedded` (the default), a `.nnue` or a `.fnet` of one output bucket; `--max`
//! caps the positions read (files in order, whole files).

use gogo::nnue::features::OUTPUT_BUCKETS;
use gogo::train::data::{self, Record};
use gogo::train::float::{screlu, FloatNet};
use gogo::train::rng::SplitMix64;
use gogo::train::shard;
use gogo::train::trainer::{sample, sigmoid, validation_mask, Split};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

struct Options {
    data: Vec<PathBuf>,
    net: String,
    epochs: usize,
    hidden2: usize,
    lr: f32,
    lambda: f32,
    val: f64,
    max: usize,
    batch: usize,
}

/// The most neurons of the second layer (its activations live in a fixed array).
const MAX_HIDDEN2: usize = 64;

const USAGE: &str = "usage: headprobe --data PATH [--data PATH ...] [--net embedded|NET] \
    [--epochs N] [--hidden2 N] [--lr X] [--lambda X] [--val X] [--max N] [--batch N]";

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        data: Vec::new(),
        net: "embedded".into(),
        epochs: 6,
        hidden2: 16,
        lr: 0.001,
        lambda: 0.3,
        val: 0.05,
        max: usize::MAX,
        batch: 4096,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.into());
        }
        let v = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let bad = || format!("{flag}: bad value '{v}'");
        match flag.as_str() {
            "--data" => o.data.push(PathBuf::from(&v)),
            "--net" => o.net = v,
            "--epochs" => o.epochs = v.parse().map_err(|_| bad())?,
            "--hidden2" => o.hidden2 = v.parse().map_err(|_| bad())?,
            "--lr" => o.lr = v.parse().map_err(|_| bad())?,
            "--lambda" => o.lambda = v.parse().map_err(|_| bad())?,
            "--val" => o.val = v.parse().map_err(|_| bad())?,
            "--max" => o.max = v.parse().map_err(|_| bad())?,
            "--batch" => o.batch = v.parse().map_err(|_| bad())?,
            _ => return Err(format!("unknown argument '{flag}'\n{USAGE}")),
        }
    }
    if o.data.is_empty() {
        return Err(format!("--data is required\n{USAGE}"));
    }
    if !(1..=MAX_HIDDEN2).contains(&o.hidden2) {
        return Err(format!("--hidden2: 1 to {MAX_HIDDEN2}"));
    }
    if o.batch == 0 || o.epochs == 0 || !(0.0..1.0).contains(&o.val) {
        return Err(format!("bad sizes\n{USAGE}"));
    }
    Ok(o)
}

/// The positions as activations: `a[i * 2H ..]` the side to move's then the other side's
/// activated accumulator.
struct Set {
    a: Vec<f32>,
    bucket: Vec<u8>,
    target: Vec<f32>,
}

impl Set {
    fn len(&self) -> usize {
        self.target.len()
    }
}

fn activations(net: &FloatNet, records: &[Record], lambda: f32) -> Set {
    let h2 = 2 * net.hidden;
    let mut set = Set {
        a: vec![0.0; records.len() * h2],
        bucket: Vec::with_capacity(records.len()),
        target: Vec::with_capacity(records.len()),
    };
    let chunk = records.len().div_ceil(2).max(1);
    std::thread::scope(|sc| {
        for (rs, out) in records.chunks(chunk).zip(set.a.chunks_mut(chunk * h2)) {
            sc.spawn(move || {
                for (r, dst) in rs.iter().zip(out.chunks_mut(h2)) {
                    let stm = r.pos.side_to_move();
                    for (side, p) in [stm, !stm].into_iter().enumerate() {
                        let acc = net.accumulate(&r.pos, p);
                        for (d, x) in dst[side * net.hidden..(side + 1) * net.hidden]
                            .iter_mut()
                            .zip(acc)
                        {
                            *d = screlu(x);
                        }
                    }
                }
            });
        }
    });
    for r in records {
        let s = sample(r, lambda);
        set.bucket.push(s.bucket);
        set.target.push(s.target);
    }
    set
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Linear,
    Buckets,
    Layer(usize),
}

/// A head's parameters: `Linear`: w (2H), b; `Buckets`: per bucket w (2H), b; `Layer(n)`:
/// w (2H), b, then W1 (n x 2H), c1 (n), w2 (n).
struct Head {
    kind: Kind,
    h2: usize,
    p: Vec<f32>,
}

impl Head {
    fn new(kind: Kind, net: &FloatNet, rng: &mut SplitMix64) -> Head {
        let h2 = 2 * net.hidden;
        let mut lin = net.out_w[..h2].to_vec();
        lin.push(net.out_b[0]);
        let p = match kind {
            Kind::Linear => lin,
            Kind::Buckets => lin.repeat(OUTPUT_BUCKETS),
            Kind::Layer(n) => {
                let scale = 1.0 / (h2 as f32).sqrt();
                lin.extend((0..n * h2).map(|_| rng.symmetric(scale)));
                lin.extend((0..n).map(|_| 0.5));
                lin.extend(std::iter::repeat_n(0.0, n));
                lin
            }
        };
        Head { kind, h2, p }
    }

    fn name(&self) -> String {
        match self.kind {
            Kind::Linear => "linear".into(),
            Kind::Buckets => format!("buckets x{OUTPUT_BUCKETS}"),
            Kind::Layer(n) => format!("layer of {n}"),
        }
    }

    /// The loss of one position; with `g`, adds its gradient times `scale`.
    fn step(&self, a: &[f32], bucket: u8, target: f32, g: Option<(&mut [f32], f32)>) -> f32 {
        let h2 = self.h2;
        let lin = match self.kind {
            Kind::Buckets => bucket as usize * (h2 + 1),
            _ => 0,
        };
        let dot = |w: &[f32]| w.iter().zip(a).map(|(w, x)| w * x).sum::<f32>();
        let mut out = dot(&self.p[lin..lin + h2]) + self.p[lin + h2];
        let mut hidden = [0.0f32; MAX_HIDDEN2];
        if let Kind::Layer(n) = self.kind {
            let (w1, c1, w2) = (h2 + 1, h2 + 1 + n * h2, h2 + 1 + n * h2 + n);
            for (j, zj) in hidden.iter_mut().enumerate().take(n) {
                let z = dot(&self.p[w1 + j * h2..w1 + (j + 1) * h2]) + self.p[c1 + j];
                *zj = z;
                out += z.clamp(0.0, 1.0) * self.p[w2 + j];
            }
        }
        let pred = sigmoid(out);
        let err = pred - target;
        if let Some((g, scale)) = g {
            let d = 2.0 * err * pred * (1.0 - pred) * scale;
            for (gw, x) in g[lin..lin + h2].iter_mut().zip(a) {
                *gw += d * x;
            }
            g[lin + h2] += d;
            if let Kind::Layer(n) = self.kind {
                let (w1, c1, w2) = (h2 + 1, h2 + 1 + n * h2, h2 + 1 + n * h2 + n);
                for j in 0..n {
                    let z = hidden[j];
                    g[w2 + j] += d * z.clamp(0.0, 1.0);
                    if z > 0.0 && z < 1.0 {
                        let dz = d * self.p[w2 + j];
                        g[c1 + j] += dz;
                        for (gw, x) in g[w1 + j * h2..w1 + (j + 1) * h2].iter_mut().zip(a) {
                            *gw += dz * x;
                        }
                    }
                }
            }
        }
        err * err
    }

    fn loss(&self, set: &Set) -> f64 {
        let h2 = self.h2;
        (0..set.len())
            .map(|i| {
                let a = &set.a[i * h2..(i + 1) * h2];
                self.step(a, set.bucket[i], set.target[i], None) as f64
            })
            .sum::<f64>()
            / set.len().max(1) as f64
    }
}

/// Fits `head` on `train` with Adam and a cosine learning rate; returns the held-out loss at
/// the start and after each epoch, and the training loss of each epoch.
fn fit(head: &mut Head, train: &Set, val: &Set, o: &Options) -> (Vec<f64>, Vec<f64>) {
    let h2 = head.h2;
    let len = head.p.len();
    let (mut m, mut v, mut g) = (vec![0.0f32; len], vec![0.0f32; len], vec![0.0f32; len]);
    let mut rng = SplitMix64::new(7);
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let total = (train.len().div_ceil(o.batch) * o.epochs).max(1);
    let mut t: i32 = 0;
    let mut vals = vec![head.loss(val)];
    let mut trains = Vec::new();
    for _ in 0..o.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut sum = 0.0f64;
        for batch in order.chunks(o.batch) {
            let scale = 1.0 / batch.len() as f32;
            for &i in batch {
                let i = i as usize;
                let a = &train.a[i * h2..(i + 1) * h2];
                sum += head.step(a, train.bucket[i], train.target[i], Some((&mut g, scale))) as f64;
            }
            t += 1;
            let lr = o.lr * 0.5 * (1.0 + (std::f32::consts::PI * t as f32 / total as f32).cos());
            let (c1, c2) = (1.0 - 0.9f32.powi(t), 1.0 - 0.999f32.powi(t));
            for k in 0..len {
                m[k] = 0.9 * m[k] + 0.1 * g[k];
                v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k];
                head.p[k] -= lr * (m[k] / c1) / ((v[k] / c2).sqrt() + 1e-8);
                g[k] = 0.0;
            }
        }
        trains.push(sum / train.len().max(1) as f64);
        vals.push(head.loss(val));
    }
    (vals, trains)
}

fn run(o: &Options) -> Result<(), String> {
    let t0 = Instant::now();
    let net = FloatNet::open(o.net.as_ref())?;
    if net.buckets != 1 {
        return Err("--net: a net of one output bucket".into());
    }
    let (mut train_r, mut val_r) = (Vec::new(), Vec::new());
    for (path, count) in &shard::data_files(&o.data)? {
        if train_r.len() + val_r.len() >= o.max {
            break;
        }
        let records =
            data::read_records(path, *count).map_err(|e| format!("{}: {e}", path.display()))?;
        let mask = validation_mask(&records, o.val, Split::Game);
        for (r, held) in records.into_iter().zip(mask) {
            if held {
                val_r.push(r);
            } else {
                train_r.push(r);
            }
        }
    }
    let train = activations(&net, &train_r, o.lambda);
    let val = activations(&net, &val_r, o.lambda);
    drop((train_r, val_r));
    log::info!(
        "{} training and {} held-out positions (split by game), activations in {:.1} s",
        train.len(),
        val.len(),
        t0.elapsed().as_secs_f64()
    );
    if train.len() == 0 || val.len() == 0 {
        return Err("not enough positions".into());
    }
    let mut rng = SplitMix64::new(11);
    let mut heads = [
        Head::new(Kind::Linear, &net, &mut rng),
        Head::new(Kind::Buckets, &net, &mut rng),
        Head::new(Kind::Layer(o.hidden2), &net, &mut rng),
    ];
    let results: Vec<(String, Vec<f64>, Vec<f64>, f64)> = std::thread::scope(|sc| {
        let handles: Vec<_> = heads
            .iter_mut()
            .map(|head| {
                let (train, val) = (&train, &val);
                sc.spawn(move || {
                    let t = Instant::now();
                    let (vals, trains) = fit(head, train, val, o);
                    (head.name(), vals, trains, t.elapsed().as_secs_f64())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("head"))
            .collect()
    });
    for (name, vals, trains, secs) in results {
        let start = vals[0];
        let best = vals.iter().cloned().fold(f64::INFINITY, f64::min);
        let fmt = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.6}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "{name}: held-out loss {start:.6} at the start, best {best:.6} ({:+.2}%); by epoch {}; \
             training loss by epoch {}; {secs:.0} s",
            100.0 * (best - start) / start,
            fmt(&vals[1..]),
            fmt(&trains)
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .target(env_logger::Target::Stderr)
        .init();
    match parse_args().and_then(|o| run(&o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each head's gradient against finite differences of its loss.
    #[test]
    #[allow(clippy::needless_range_loop)] // parameter i of p and g together
    fn head_gradients_match_finite_differences() {
        let net = FloatNet::random(8, 3);
        let h2 = 16;
        let mut rng = SplitMix64::new(5);
        let a: Vec<f32> = (0..h2).map(|_| rng.next_f32()).collect();
        for kind in [Kind::Linear, Kind::Buckets, Kind::Layer(4)] {
            let mut head = Head::new(kind, &net, &mut rng);
            // Output weights of the layer away from zero, so that its inner gradients live.
            for x in head.p.iter_mut() {
                *x += rng.symmetric(0.3);
            }
            let (bucket, target) = (2u8, 0.7f32);
            let mut g = vec![0.0f32; head.p.len()];
            head.step(&a, bucket, target, Some((&mut g, 1.0)));
            let mut nonzero = 0;
            for i in 0..head.p.len() {
                let e = 1e-3f32;
                let old = head.p[i];
                head.p[i] = old + e;
                let up = head.step(&a, bucket, target, None) as f64;
                head.p[i] = old - e;
                let down = head.step(&a, bucket, target, None) as f64;
                head.p[i] = old;
                let numeric = (up - down) / (2.0 * e as f64);
                assert!(
                    (numeric - g[i] as f64).abs() <= 1e-4 + 0.02 * numeric.abs(),
                    "{} parameter {i}: analytic {} numeric {numeric}",
                    head.name(),
                    g[i]
                );
                nonzero += (g[i] != 0.0) as usize;
            }
            assert!(nonzero > h2, "{}: {nonzero} live gradients", head.name());
            if kind == Kind::Buckets {
                // Only the position's bucket learns.
                let own = bucket as usize * (h2 + 1)..(bucket as usize + 1) * (h2 + 1);
                assert!(g
                    .iter()
                    .enumerate()
                    .all(|(i, &x)| own.contains(&i) || x == 0.0));
            }
        }
    }

    /// Every head starts as the net: the same held-out loss.
    #[test]
    fn every_head_starts_as_the_net() {
        let net = FloatNet::random(8, 3);
        let mut rng = SplitMix64::new(1);
        let a: Vec<f32> = (0..16).map(|_| rng.next_f32()).collect();
        let losses: Vec<f32> = [Kind::Linear, Kind::Buckets, Kind::Layer(4)]
            .into_iter()
            .map(|k| Head::new(k, &net, &mut rng).step(&a, 3, 0.4, None))
            .collect();
        assert!(
            losses.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-7),
            "{losses:?}"
        );
    }
}
