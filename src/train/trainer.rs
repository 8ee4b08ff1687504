//! The training core used by `examples/train.rs`: samples, the parameter layout (with a
//! bucket-free factoriser), forward and backward pass of one position, the AdamW step, the
//! validation split and loss, the training loop with its learning-rate schedule and choice of
//! the best epoch ([`fit`]), and export to a [`FloatNet`]. In the library so that they are
//! tested.
//!
//! Target: `lambda * result + (1 - lambda) * sigmoid(score / SCALE)` (result 1 win, 0.5 draw,
//! 0 loss, side to move's view); prediction `sigmoid(output)`, output 1.0 = SCALE cp; loss:
//! squared error.

// Index loops over the two perspectives read several parallel arrays.
#![allow(clippy::needless_range_loop)]

use super::data::Record;
use super::float::{FloatNet, WEIGHT_CLIP};
use crate::nnue::features::{self, FEATURES, PER_BUCKET};
use crate::nnue::SCALE;

pub const MAX_FEATURES: usize = 16;

/// One training position as feature lists and a target.
#[derive(Clone, Copy)]
pub struct Sample {
    pub f: [[u16; MAX_FEATURES]; 2],
    pub n: [u8; 2],
    /// The position's output bucket ([`features::output_bucket`]); a layout of one bucket
    /// ignores it.
    pub bucket: u8,
    pub target: f32,
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

pub fn sample(r: &Record, lambda: f32) -> Sample {
    let stm = r.pos.side_to_move();
    let mut s = Sample {
        f: [[0; MAX_FEATURES]; 2],
        n: [0; 2],
        bucket: features::output_bucket(&r.pos) as u8,
        target: lambda * (r.result as f32 + 1.0) / 2.0
            + (1.0 - lambda) * sigmoid(r.score as f32 / SCALE as f32),
    };
    for (i, p) in [stm, !stm].into_iter().enumerate() {
        let list = features::active(&r.pos, p);
        assert!(
            list.len() <= MAX_FEATURES,
            "at most 12 men in a legal position"
        );
        s.f[i][..list.len()].copy_from_slice(list.as_slice());
        s.n[i] = list.len() as u8;
    }
    s
}

/// All parameters in one vector: feature rows (FEATURES x H), factoriser rows (PER_BUCKET x
/// H), feature biases (H), output weights (2H per output bucket), output biases (one per
/// output bucket).
pub struct Layout {
    pub h: usize,
    pub buckets: usize,
    pub fact: usize,
    pub b1: usize,
    pub w2: usize,
    pub b2: usize,
    pub len: usize,
}

impl Layout {
    pub fn new(h: usize, buckets: usize) -> Layout {
        let fact = FEATURES * h;
        let b1 = fact + PER_BUCKET * h;
        let w2 = b1 + h;
        let b2 = w2 + buckets * 2 * h;
        Layout {
            h,
            buckets,
            fact,
            b1,
            w2,
            b2,
            len: b2 + buckets,
        }
    }

    /// The output bucket of sample `s` under this layout.
    #[inline(always)]
    pub fn bucket(&self, s: &Sample) -> usize {
        if self.buckets == 1 {
            0
        } else {
            s.bucket as usize
        }
    }
}

/// Forward pass; with `grad`, also accumulates the gradient of the loss (scaled by `scale`).
/// Returns the loss.
pub fn step(
    l: &Layout,
    p: &[f32],
    s: &Sample,
    factoriser: bool,
    acc: &mut [Vec<f32>; 2],
    grad: Option<(&mut [f32], f32)>,
) -> f32 {
    let h = l.h;
    for side in 0..2 {
        let a = &mut acc[side];
        a.copy_from_slice(&p[l.b1..l.b1 + h]);
        for &f in &s.f[side][..s.n[side] as usize] {
            let f = f as usize;
            for (x, w) in a.iter_mut().zip(&p[f * h..(f + 1) * h]) {
                *x += w;
            }
            if factoriser {
                let v = l.fact + (f % PER_BUCKET) * h;
                for (x, w) in a.iter_mut().zip(&p[v..v + h]) {
                    *x += w;
                }
            }
        }
    }
    let bucket = l.bucket(s);
    let w2b = l.w2 + bucket * 2 * h;
    let b2 = l.b2 + bucket;
    let mut out = p[b2];
    for side in 0..2 {
        let w2 = &p[w2b + side * h..w2b + (side + 1) * h];
        for (x, w) in acc[side].iter().zip(w2) {
            let c = x.clamp(0.0, 1.0);
            out += c * c * w;
        }
    }
    let pred = sigmoid(out);
    let err = pred - s.target;
    let loss = err * err;
    if let Some((g, scale)) = grad {
        let d = 2.0 * err * pred * (1.0 - pred) * scale;
        g[b2] += d;
        for side in 0..2 {
            let w2o = w2b + side * h;
            // The feature-side gradient of this perspective, reusing acc as the buffer.
            for j in 0..h {
                let x = acc[side][j];
                let c = x.clamp(0.0, 1.0);
                g[w2o + j] += d * c * c;
                acc[side][j] = if x > 0.0 && x < 1.0 {
                    d * p[w2o + j] * 2.0 * x
                } else {
                    0.0
                };
            }
            let da = &acc[side];
            for (gb, x) in g[l.b1..l.b1 + h].iter_mut().zip(da) {
                *gb += x;
            }
            for &f in &s.f[side][..s.n[side] as usize] {
                let f = f as usize;
                for (gw, x) in g[f * h..(f + 1) * h].iter_mut().zip(da) {
                    *gw += x;
                }
                if factoriser {
                    let v = l.fact + (f % PER_BUCKET) * h;
                    for (gw, x) in g[v..v + h].iter_mut().zip(da) {
                        *gw += x;
                    }
                }
            }
        }
    }
    loss
}

/// Mean loss over `samples`, on `threads` threads.
pub fn validate(
    l: &Layout,
    p: &[f32],
    samples: &[Sample],
    factoriser: bool,
    threads: usize,
) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let chunk = samples.len().div_ceil(threads);
    let total: f64 = std::thread::scope(|sc| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                sc.spawn(move || {
                    let mut acc = [vec![0.0; l.h], vec![0.0; l.h]];
                    part.iter()
                        .map(|s| step(l, p, s, factoriser, &mut acc, None) as f64)
                        .sum::<f64>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("validation thread"))
            .sum()
    });
    total / samples.len() as f64
}

/// The float net with the factoriser folded into every bucket.
pub fn export(l: &Layout, p: &[f32], factoriser: bool) -> FloatNet {
    let h = l.h;
    let mut ft_w = p[..FEATURES * h].to_vec();
    if factoriser {
        for f in 0..FEATURES {
            let v = l.fact + (f % PER_BUCKET) * h;
            for j in 0..h {
                ft_w[f * h + j] += p[v + j];
            }
        }
    }
    FloatNet {
        hidden: h,
        ft_w,
        ft_b: p[l.b1..l.b1 + h].to_vec(),
        buckets: l.buckets,
        out_w: p[l.w2..l.b2].to_vec(),
        out_b: p[l.b2..l.len].to_vec(),
    }
}

/// AdamW over the whole parameter vector: no weight decay on the biases, every parameter
/// clipped to +-[`WEIGHT_CLIP`] (so that the quantised output weights fit the SCReLU product).
pub struct AdamW {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl AdamW {
    const B1: f32 = 0.9;
    const B2: f32 = 0.999;
    const EPS: f32 = 1e-8;

    pub fn new(len: usize) -> AdamW {
        AdamW {
            m: vec![0.0; len],
            v: vec![0.0; len],
            t: 0,
        }
    }

    /// One step with gradient `g`, which is zeroed on the way. Parameters below index `from`
    /// are frozen: they keep their values (and their gradient is zeroed).
    pub fn step(
        &mut self,
        l: &Layout,
        p: &mut [f32],
        g: &mut [f32],
        lr: f32,
        wd: f32,
        from: usize,
    ) {
        self.t += 1;
        let c1 = 1.0 - Self::B1.powi(self.t);
        let c2 = 1.0 - Self::B2.powi(self.t);
        g[..from].fill(0.0);
        for i in from..l.len {
            let gi = g[i];
            g[i] = 0.0;
            let m = &mut self.m[i];
            let v = &mut self.v[i];
            *m = Self::B1 * *m + (1.0 - Self::B1) * gi;
            *v = Self::B2 * *v + (1.0 - Self::B2) * gi * gi;
            let upd = (*m / c1) / ((*v / c2).sqrt() + Self::EPS);
            let bias = (l.b1..l.w2).contains(&i) || i >= l.b2;
            let decay = if bias { 0.0 } else { wd };
            p[i] = (p[i] - lr * (upd + decay * p[i])).clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        }
    }
}

/// Whether a position belongs to the held-out validation set: a pure function of the position
/// (board, hands, side to move) hashed into `0..1` below `share`. Pooled files, merged or not,
/// in any order, split the same way, and a position found twice is on one side only.
pub fn is_validation(pos: &crate::position::Position, share: f64) -> bool {
    let h = crate::skill::splitmix64(pos.key());
    ((h >> 11) as f64 / (1u64 << 53) as f64) < share
}

/// How the held-out validation set is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Whole games ([`super::data::games`]), by the first position of each: no game has
    /// positions on both sides, so the validation loss measures play in games the net has
    /// not seen. The default.
    Game,
    /// Each position by itself ([`is_validation`]): the split of every net up to generation 5
    /// and the trials of 5 Dec 2026. The other positions of a held-out position's game are
    /// trained on, and they share its game result and, nearly, its score, so the validation
    /// loss rewards learning the training games rather than the game.
    Position,
}

/// Which records of one file (in the file's order) belong to the validation set.
pub fn validation_mask(records: &[Record], share: f64, split: Split) -> Vec<bool> {
    match split {
        Split::Position => records
            .iter()
            .map(|r| is_validation(&r.pos, share))
            .collect(),
        Split::Game => {
            let mut mask = vec![false; records.len()];
            for g in super::data::games(records) {
                let v = is_validation(&records[g.start].pos, share);
                mask[g].iter_mut().for_each(|m| *m = v);
            }
            mask
        }
    }
}

/// How [`fit`] trains.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Most epochs (passes over the training set).
    pub epochs: usize,
    pub batch: usize,
    /// Learning rate at the start; it falls along a cosine over the planned steps down to
    /// `lr * lr_floor`.
    pub lr: f32,
    pub lr_floor: f32,
    pub wd: f32,
    pub threads: usize,
    /// Seeds the order of the training positions in each epoch.
    pub seed: u64,
    pub factoriser: bool,
    /// Stop after this many epochs without a better validation loss (0: never early).
    pub patience: usize,
    /// Train the output layer only: the feature weights, factoriser and feature biases keep
    /// their starting values (refitting the output of a trained net, e.g. into buckets).
    pub freeze_features: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            epochs: 10,
            batch: 8192,
            lr: 0.002,
            lr_floor: 0.01,
            wd: 0.01,
            threads: 2,
            seed: 1,
            factoriser: true,
            patience: 0,
            freeze_features: false,
        }
    }
}

/// The learning rate at step `t` (from 1) of `total`: a cosine from `lr` to `lr * lr_floor`.
pub fn learning_rate(o: &FitOptions, t: usize, total: usize) -> f32 {
    let cos = (std::f32::consts::PI * t as f32 / total.max(1) as f32).cos();
    (o.lr * 0.5 * (1.0 + cos)).max(o.lr * o.lr_floor)
}

/// One epoch of [`fit`].
#[derive(Clone, Debug)]
pub struct EpochReport {
    pub epoch: usize,
    pub train_loss: f64,
    pub val_loss: f64,
    /// The learning rate of the epoch's last step.
    pub lr: f32,
    pub seconds: f64,
}

/// What [`fit`] returns: the parameters of the epoch with the lowest validation loss (epoch 0
/// = the starting parameters), not those of the last epoch.
pub struct Fit {
    pub params: Vec<f32>,
    pub best_epoch: usize,
    pub best_val: f64,
    pub start_val: f64,
    pub epochs: Vec<EpochReport>,
}

/// Trains `init` on `train` with AdamW in batches (each split over `o.threads` threads),
/// shuffling the training set every epoch, and keeps the parameters of the epoch with the
/// lowest validation loss on `val`. `progress` gets every epoch's figures.
pub fn fit(
    l: &Layout,
    init: Vec<f32>,
    train: &[Sample],
    val: &[Sample],
    o: &FitOptions,
    mut progress: impl FnMut(&EpochReport),
) -> Fit {
    let threads = o.threads.max(1);
    let batch_size = o.batch.max(1);
    let mut p = init;
    let mut opt = AdamW::new(l.len);
    let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0.0f32; l.len]).collect();
    let total_steps = (train.len().div_ceil(batch_size) * o.epochs).max(1);
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = super::rng::SplitMix64::new(o.seed ^ 0x5eed);
    let start_val = validate(l, &p, val, o.factoriser, threads);
    let mut best = Fit {
        params: p.clone(),
        best_epoch: 0,
        best_val: start_val,
        start_val,
        epochs: Vec::new(),
    };
    let mut t = 0usize;
    let mut lr = o.lr;
    for epoch in 1..=o.epochs {
        let e0 = std::time::Instant::now();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut epoch_loss = 0.0f64;
        for batch in order.chunks(batch_size) {
            let scale = 1.0 / batch.len() as f32;
            let chunk = batch.len().div_ceil(threads);
            let pr = &p;
            let loss: f64 = std::thread::scope(|sc| {
                let handles: Vec<_> = batch
                    .chunks(chunk)
                    .zip(grads.iter_mut())
                    .map(|(part, g)| {
                        sc.spawn(move || {
                            let mut acc = [vec![0.0; l.h], vec![0.0; l.h]];
                            part.iter()
                                .map(|&i| {
                                    let s = &train[i as usize];
                                    step(l, pr, s, o.factoriser, &mut acc, Some((g, scale))) as f64
                                })
                                .sum::<f64>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("training thread"))
                    .sum()
            });
            epoch_loss += loss;
            let (first, rest) = grads.split_at_mut(1);
            for other in rest.iter_mut() {
                for (a, b) in first[0].iter_mut().zip(other.iter_mut()) {
                    *a += *b;
                    *b = 0.0;
                }
            }
            t += 1;
            lr = learning_rate(o, t, total_steps);
            let from = if o.freeze_features { l.w2 } else { 0 };
            opt.step(l, &mut p, &mut first[0], lr, o.wd, from);
        }
        let report = EpochReport {
            epoch,
            train_loss: epoch_loss / train.len().max(1) as f64,
            val_loss: validate(l, &p, val, o.factoriser, threads),
            lr,
            seconds: e0.elapsed().as_secs_f64(),
        };
        progress(&report);
        if report.val_loss < best.best_val {
            best.best_val = report.val_loss;
            best.best_epoch = epoch;
            best.params.copy_from_slice(&p);
        }
        best.epochs.push(report);
        if o.patience > 0 && epoch - best.best_epoch >= o.patience {
            break;
        }
    }
    best
}

/// The parameter vector of a float net (factoriser rows zero).
pub fn import(net: &FloatNet) -> Vec<f32> {
    let l = Layout::new(net.hidden, net.buckets);
    let mut p = vec![0.0f32; l.len];
    p[..FEATURES * l.h].copy_from_slice(&net.ft_w);
    p[l.b1..l.b1 + l.h].copy_from_slice(&net.ft_b);
    p[l.w2..l.b2].copy_from_slice(&net.out_w);
    p[l.b2..l.len].copy_from_slice(&net.out_b);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;
    use crate::position::Position;
    use crate::train::rng::SplitMix64;

    fn records(n: usize) -> Vec<Record> {
        let mut rng = SplitMix64::new(5);
        let mut pos = Position::startpos();
        let mut out = Vec::new();
        while out.len() < n {
            let moves = legal_moves(&pos);
            if moves.is_empty() || pos.move_number() > 60 {
                pos = Position::startpos();
                continue;
            }
            out.push(Record {
                pos,
                score: (rng.below(1200) as i16) - 600,
                result: rng.below(3) as i8 - 1,
                ply: 0,
            });
            pos = pos.after(moves.as_slice()[rng.below(moves.len())]);
        }
        out
    }

    fn loss_sum(l: &Layout, p: &[f32], s: &[Sample], fact: bool) -> f64 {
        let mut acc = [vec![0.0; l.h], vec![0.0; l.h]];
        s.iter()
            .map(|s| step(l, p, s, fact, &mut acc, None) as f64)
            .sum()
    }

    #[test]
    fn fit_keeps_the_epoch_with_the_lowest_validation_loss_and_stops_by_patience() {
        let h = 16;
        let l = Layout::new(h, 1);
        let records = records(96);
        let train: Vec<Sample> = records[..64].iter().map(|r| sample(r, 0.5)).collect();
        // Random targets: fitting the training set first helps the validation loss (the mean
        // target), then hurts it (the training set's noise).
        let val: Vec<Sample> = records[64..].iter().map(|r| sample(r, 0.5)).collect();
        let o = FitOptions {
            epochs: 40,
            batch: 16,
            lr: 0.01,
            threads: 2,
            patience: 5,
            ..FitOptions::default()
        };
        let mut seen = Vec::new();
        let f = fit(&l, import(&FloatNet::random(h, 4)), &train, &val, &o, |e| {
            seen.push(e.val_loss)
        });
        assert_eq!(seen.len(), f.epochs.len());
        let min = seen.iter().cloned().fold(f.start_val, f64::min);
        assert_eq!(f.best_val, min);
        assert!(
            f.best_epoch >= 1 && f.best_epoch < f.epochs.len(),
            "{seen:?}"
        );
        assert_eq!(f.epochs[f.best_epoch - 1].val_loss, f.best_val);
        // Stopped by patience, before the planned epochs.
        assert_eq!(f.epochs.len(), f.best_epoch + 5);
        assert!(f.epochs.len() < 40);
        // The parameters returned are the best epoch's, not the last one's.
        let v = validate(&l, &f.params, &val, true, 1);
        assert!((v - f.best_val).abs() < 1e-9, "{v} vs {}", f.best_val);
        assert!(f.epochs.last().unwrap().val_loss > f.best_val);
        assert!(f.epochs.last().unwrap().train_loss < f.epochs[0].train_loss);
        // The learning rate falls from lr to its floor.
        assert!((learning_rate(&o, 0, 100) - 0.01).abs() < 1e-9);
        assert!(learning_rate(&o, 50, 100) < 0.0051);
        assert!((learning_rate(&o, 100, 100) - 0.0001).abs() < 1e-9);
    }

    #[test]
    fn freezing_the_features_trains_the_output_layer_alone() {
        let h = 16;
        let l = Layout::new(h, features::OUTPUT_BUCKETS);
        let records = records(96);
        let train: Vec<Sample> = records[..64].iter().map(|r| sample(r, 0.5)).collect();
        let val: Vec<Sample> = records[64..].iter().map(|r| sample(r, 0.5)).collect();
        let o = FitOptions {
            epochs: 5,
            batch: 16,
            lr: 0.01,
            freeze_features: true,
            ..FitOptions::default()
        };
        let init = import(&FloatNet::random(h, 4).with_buckets(l.buckets));
        let f = fit(&l, init.clone(), &train, &val, &o, |_| {});
        // Keep the last epoch's parameters whatever the validation loss says.
        let mut p = init.clone();
        let mut opt = AdamW::new(l.len);
        let mut g = vec![0.0f32; l.len];
        let mut acc = [vec![0.0; h], vec![0.0; h]];
        for s in &train {
            step(&l, &p, s, true, &mut acc, Some((&mut g, 1.0 / 64.0)));
        }
        opt.step(&l, &mut p, &mut g, 0.01, 0.01, l.w2);
        assert_eq!(
            p[..l.w2],
            init[..l.w2],
            "features, factoriser and biases frozen"
        );
        assert_ne!(p[l.w2..], init[l.w2..], "the output layer moved");
        assert!(g.iter().all(|&x| x == 0.0), "the gradient is consumed");
        assert_eq!(f.params[..l.w2], init[..l.w2]);
        assert!(f.epochs[0].train_loss.is_finite());
    }

    #[test]
    fn the_validation_split_is_a_function_of_the_position() {
        let rs = records(400);
        let val: Vec<bool> = rs.iter().map(|r| is_validation(&r.pos, 0.25)).collect();
        let n = val.iter().filter(|&&v| v).count();
        assert!((60..140).contains(&n), "{n} of 400");
        // The start position recurs in these games: always on the same side.
        let start = Position::startpos();
        let starts: Vec<bool> = rs
            .iter()
            .zip(&val)
            .filter(|(r, _)| r.pos == start)
            .map(|(_, v)| *v)
            .collect();
        assert!(starts.len() >= 2);
        assert!(starts.iter().all(|&v| v == starts[0]));
        for r in &rs {
            assert!(!is_validation(&r.pos, 0.0));
            assert!(is_validation(&r.pos, 1.0));
        }
    }

    /// `games` games of random moves from the start position, in the order a generator
    /// writes them: `plies` records each after six unrecorded plies (a generator's random
    /// start).
    fn game_records(games: usize, plies: usize) -> Vec<Record> {
        let mut rng = SplitMix64::new(9);
        let mut out = Vec::new();
        for _ in 0..games {
            let mut pos = Position::startpos();
            for ply in 0..plies + 6 {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos = pos.after(moves.as_slice()[rng.below(moves.len())]);
                if ply < 6 {
                    continue;
                }
                out.push(Record {
                    pos,
                    score: 0,
                    result: 0,
                    ply: ply as u16 + 1,
                });
            }
        }
        out
    }

    #[test]
    fn the_game_split_keeps_each_game_on_one_side() {
        let rs = game_records(200, 12);
        let games = crate::train::data::games(&rs);
        assert!(games.len() >= 195, "{} games", games.len());
        let mask = validation_mask(&rs, 0.25, Split::Game);
        for g in &games {
            assert!(mask[g.clone()].iter().all(|&v| v == mask[g.start]));
        }
        let held: usize = games.iter().filter(|g| mask[g.start]).count();
        assert!((25..80).contains(&held), "{held} of {} games", games.len());
        // The position split puts positions of one game on both sides.
        let by_pos = validation_mask(&rs, 0.25, Split::Position);
        let mixed = games
            .iter()
            .filter(|g| by_pos[g.start..g.end].iter().any(|&v| v != by_pos[g.start]))
            .count();
        assert!(mixed > games.len() / 2, "{mixed} of {}", games.len());
        // All or nothing at the ends.
        assert!(validation_mask(&rs, 0.0, Split::Game).iter().all(|&v| !v));
        assert!(validation_mask(&rs, 1.0, Split::Game).iter().all(|&v| v));
    }

    #[test]
    fn gradient_matches_finite_differences() {
        gradient_check(1);
        gradient_check(features::OUTPUT_BUCKETS);
    }

    fn gradient_check(buckets: usize) {
        let h = 8;
        let l = Layout::new(h, buckets);
        // Positions late in random games, so that men are in hand and the buckets vary.
        let samples: Vec<Sample> = records(40)[30..].iter().map(|r| sample(r, 0.3)).collect();
        let mut p = import(&FloatNet::random(h, 3).with_buckets(buckets));
        let mut rng = SplitMix64::new(9);
        for x in p[l.fact..l.b1].iter_mut() {
            *x = rng.symmetric(0.1);
        }
        // Buckets that differ from each other.
        for x in p[l.w2..l.len].iter_mut() {
            *x += rng.symmetric(0.2);
        }
        let b = l.bucket(&samples[0]);
        if buckets > 1 {
            let used: std::collections::BTreeSet<usize> =
                samples.iter().map(|s| l.bucket(s)).collect();
            assert!(used.len() >= 2, "the samples fall into several buckets");
        }
        let mut g = vec![0.0f32; l.len];
        let mut acc = [vec![0.0; h], vec![0.0; h]];
        for s in &samples {
            step(&l, &p, s, true, &mut acc, Some((&mut g, 1.0)));
        }
        // Parameters the samples touch: a feature row, a factoriser row, biases, output.
        let f = samples[0].f[0][3] as usize;
        let v = l.fact + (f % PER_BUCKET) * h;
        let mut checked = 0;
        for i in [
            f * h,
            f * h + 5,
            v + 1,
            v + 7,
            l.b1 + 2,
            l.w2 + b * 2 * h + 3,
            l.w2 + b * 2 * h + h + 4,
            l.b2 + b,
        ] {
            let e = 1e-2f32;
            let old = p[i];
            p[i] = old + e;
            let up = loss_sum(&l, &p, &samples, true);
            p[i] = old - e;
            let down = loss_sum(&l, &p, &samples, true);
            p[i] = old;
            let numeric = (up - down) / (2.0 * e as f64);
            let tol = 1e-3 + 0.05 * numeric.abs();
            assert!(
                (numeric - g[i] as f64).abs() <= tol,
                "parameter {i}: analytic {} numeric {numeric}",
                g[i]
            );
            checked += (g[i] != 0.0) as u32;
        }
        assert!(checked >= 6, "most checked gradients are not zero");
        // A bucket no sample falls into gets no gradient.
        for unused in (0..buckets).filter(|&k| samples.iter().all(|s| l.bucket(s) != k)) {
            assert_eq!(g[l.b2 + unused], 0.0);
            assert!(g[l.w2 + unused * 2 * h..l.w2 + (unused + 1) * 2 * h]
                .iter()
                .all(|&x| x == 0.0));
        }
    }

    #[test]
    fn training_lowers_the_loss_and_export_folds_the_factoriser() {
        train_and_export(1);
        train_and_export(features::OUTPUT_BUCKETS);
    }

    fn train_and_export(buckets: usize) {
        let h = 16;
        let l = Layout::new(h, buckets);
        let samples: Vec<Sample> = records(64).iter().map(|r| sample(r, 0.5)).collect();
        let mut p = import(&FloatNet::random(h, 4).with_buckets(buckets));
        let mut g = vec![0.0f32; l.len];
        let mut opt = AdamW::new(l.len);
        let before = validate(&l, &p, &samples, true, 2);
        for _ in 0..30 {
            let mut acc = [vec![0.0; h], vec![0.0; h]];
            for s in &samples {
                step(&l, &p, s, true, &mut acc, Some((&mut g, 1.0 / 64.0)));
            }
            opt.step(&l, &mut p, &mut g, 0.01, 0.01, 0);
        }
        let after = validate(&l, &p, &samples, true, 2);
        assert!(after < before * 0.8, "loss {before} -> {after}");
        // The exported net computes the trainer's output.
        let net = export(&l, &p, true);
        for r in records(10) {
            let s = sample(&r, 0.5);
            let mut acc = [vec![0.0; h], vec![0.0; h]];
            let _ = step(&l, &p, &s, true, &mut acc, None);
            let b = l.bucket(&s);
            let mut out = p[l.b2 + b];
            for side in 0..2 {
                for j in 0..h {
                    let c = acc[side][j].clamp(0.0, 1.0);
                    out += c * c * p[l.w2 + b * 2 * h + side * h + j];
                }
            }
            assert!((out - net.output(&r.pos)).abs() < 1e-4);
            // and through a file
            let back = FloatNet::from_bytes(&net.to_bytes()).unwrap();
            assert_eq!(back, net);
        }
    }
}
