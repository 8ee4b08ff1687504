//! The training core used by `examples/train.rs`: samples, the parameter layout (with a
//! bucket-free factoriser), forward and backward pass of one position, the AdamW step,
//! validation and export to a [`FloatNet`]. In the library so that the gradient is tested.
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
/// H), feature biases (H), output weights (2H), output bias (1).
pub struct Layout {
    pub h: usize,
    pub fact: usize,
    pub b1: usize,
    pub w2: usize,
    pub b2: usize,
    pub len: usize,
}

impl Layout {
    pub fn new(h: usize) -> Layout {
        let fact = FEATURES * h;
        let b1 = fact + PER_BUCKET * h;
        let w2 = b1 + h;
        let b2 = w2 + 2 * h;
        Layout {
            h,
            fact,
            b1,
            w2,
            b2,
            len: b2 + 1,
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
    let mut out = p[l.b2];
    for side in 0..2 {
        let w2 = &p[l.w2 + side * h..l.w2 + (side + 1) * h];
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
        g[l.b2] += d;
        for side in 0..2 {
            let w2o = l.w2 + side * h;
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
        out_w: p[l.w2..l.w2 + 2 * h].to_vec(),
        out_b: p[l.b2],
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

    /// One step with gradient `g`, which is zeroed on the way.
    pub fn step(&mut self, l: &Layout, p: &mut [f32], g: &mut [f32], lr: f32, wd: f32) {
        self.t += 1;
        let c1 = 1.0 - Self::B1.powi(self.t);
        let c2 = 1.0 - Self::B2.powi(self.t);
        for i in 0..l.len {
            let gi = g[i];
            g[i] = 0.0;
            let m = &mut self.m[i];
            let v = &mut self.v[i];
            *m = Self::B1 * *m + (1.0 - Self::B1) * gi;
            *v = Self::B2 * *v + (1.0 - Self::B2) * gi * gi;
            let upd = (*m / c1) / ((*v / c2).sqrt() + Self::EPS);
            let bias = (l.b1..l.w2).contains(&i) || i == l.b2;
            let decay = if bias { 0.0 } else { wd };
            p[i] = (p[i] - lr * (upd + decay * p[i])).clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        }
    }
}

/// The parameter vector of a float net (factoriser rows zero).
pub fn import(net: &FloatNet) -> Vec<f32> {
    let l = Layout::new(net.hidden);
    let mut p = vec![0.0f32; l.len];
    p[..FEATURES * l.h].copy_from_slice(&net.ft_w);
    p[l.b1..l.b1 + l.h].copy_from_slice(&net.ft_b);
    p[l.w2..l.w2 + 2 * l.h].copy_from_slice(&net.out_w);
    p[l.b2] = net.out_b;
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
    fn gradient_matches_finite_differences() {
        let h = 8;
        let l = Layout::new(h);
        let samples: Vec<Sample> = records(6).iter().map(|r| sample(r, 0.3)).collect();
        let mut p = import(&FloatNet::random(h, 3));
        let mut rng = SplitMix64::new(9);
        for x in p[l.fact..l.b1].iter_mut() {
            *x = rng.symmetric(0.1);
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
            l.w2 + 3,
            l.w2 + h + 4,
            l.b2,
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
    }

    #[test]
    fn training_lowers_the_loss_and_export_folds_the_factoriser() {
        let h = 16;
        let l = Layout::new(h);
        let samples: Vec<Sample> = records(64).iter().map(|r| sample(r, 0.5)).collect();
        let mut p = import(&FloatNet::random(h, 4));
        let mut g = vec![0.0f32; l.len];
        let mut opt = AdamW::new(l.len);
        let before = validate(&l, &p, &samples, true, 2);
        for _ in 0..30 {
            let mut acc = [vec![0.0; h], vec![0.0; h]];
            for s in &samples {
                step(&l, &p, s, true, &mut acc, Some((&mut g, 1.0 / 64.0)));
            }
            opt.step(&l, &mut p, &mut g, 0.01, 0.01);
        }
        let after = validate(&l, &p, &samples, true, 2);
        assert!(after < before * 0.8, "loss {before} -> {after}");
        // The exported net computes the trainer's output.
        let net = export(&l, &p, true);
        for r in records(10) {
            let s = sample(&r, 0.5);
            let mut acc = [vec![0.0; h], vec![0.0; h]];
            let _ = step(&l, &p, &s, true, &mut acc, None);
            let mut out = p[l.b2];
            for side in 0..2 {
                for j in 0..h {
                    let c = acc[side][j].clamp(0.0, 1.0);
                    out += c * c * p[l.w2 + side * h + j];
                }
            }
            assert!((out - net.output(&r.pos)).abs() < 1e-4);
        }
    }
}
