//! The float network: the trainer's output and the reference the quantised net is checked
//! against. Same shape as [`crate::nnue::Network`] but with a hidden size chosen at run time (so that
//! sizes can be compared by training); only a net of [`HIDDEN`] can be quantised.
//!
//! File format (little endian): magic `GOGONNFL`, u32 version, features, hidden, (version 2
//! only) output buckets, u64 FNV-1a hash of the payload, then f32 feature weights (features x
//! hidden), feature biases (hidden), output weights (per bucket 2 x hidden, side to move first)
//! and the output biases (one per bucket). A net of one output bucket is written as version 1.

use super::rng::SplitMix64;
use crate::nnue::features::{self, FEATURES};
use crate::nnue::net::{fnv1a, valid_buckets, NetError, Network};
use crate::nnue::{HIDDEN, QA, QB, SCALE};
use crate::position::Position;
use crate::types::Color;
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"GOGONNFL";
/// The newest version (version 1: one output bucket, no bucket field).
pub const VERSION: u32 = 2;
const HEADER_V1: usize = 8 + 3 * 4 + 8;
/// Version 2 adds the output buckets.
const HEADER_V2: usize = HEADER_V1 + 4;
/// Largest weight magnitude the trainer allows: keeps the quantised output weights within
/// +-127 (|w| * QB) so that the SCReLU product `(v * w) * v` is exact in i16 x i16.
pub const WEIGHT_CLIP: f32 = 1.98;

#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    pub hidden: usize,
    pub ft_w: Vec<f32>,
    pub ft_b: Vec<f32>,
    /// Output buckets: 1 or [`features::OUTPUT_BUCKETS`].
    pub buckets: usize,
    /// buckets x 2 x hidden.
    pub out_w: Vec<f32>,
    /// One per bucket.
    pub out_b: Vec<f32>,
}

/// Squared clipped ReLU.
#[inline(always)]
pub fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

impl FloatNet {
    /// Small random weights (tests, and the trainer's starting point).
    pub fn random(hidden: usize, seed: u64) -> FloatNet {
        let mut rng = SplitMix64::new(seed);
        // Twelve active features: keep the accumulator of a fresh net mostly inside 0..1.
        let ft_w = (0..FEATURES * hidden)
            .map(|_| rng.symmetric(0.15))
            .collect();
        let ft_b = (0..hidden).map(|_| 0.25 + rng.symmetric(0.1)).collect();
        let out_w = (0..2 * hidden)
            .map(|_| rng.symmetric(1.0 / (hidden as f32).sqrt()))
            .collect();
        FloatNet {
            hidden,
            ft_w,
            ft_b,
            buckets: 1,
            out_w,
            out_b: vec![0.0],
        }
    }

    /// This net with `buckets` output buckets, each a copy of bucket 0's weights (so it
    /// evaluates every position as bucket 0 of this net does): the start of a bucketed net
    /// trained on from one without buckets.
    pub fn with_buckets(&self, buckets: usize) -> FloatNet {
        let h2 = 2 * self.hidden;
        FloatNet {
            buckets,
            out_w: self.out_w[..h2].repeat(buckets),
            out_b: vec![self.out_b[0]; buckets],
            ..self.clone()
        }
    }

    /// The accumulator of perspective `p` (before the activation).
    pub fn accumulate(&self, pos: &Position, p: Color) -> Vec<f32> {
        let mut acc = self.ft_b.clone();
        for &f in features::active(pos, p).as_slice() {
            let row = &self.ft_w[f as usize * self.hidden..(f as usize + 1) * self.hidden];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
        acc
    }

    /// The raw output (1.0 = [`SCALE`] centipawns) for the side to move of `pos`.
    pub fn output(&self, pos: &Position) -> f32 {
        let stm = pos.side_to_move();
        let us = self.accumulate(pos, stm);
        let them = self.accumulate(pos, !stm);
        let h = self.hidden;
        let b = features::net_bucket(self.buckets, pos);
        let w = &self.out_w[b * 2 * h..(b + 1) * 2 * h];
        let mut out = self.out_b[b];
        for i in 0..h {
            out += screlu(us[i]) * w[i] + screlu(them[i]) * w[h + i];
        }
        out
    }

    /// The evaluation in centipawns for the side to move of `pos`.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        self.output(pos) * SCALE as f32
    }

    /// The integer net: feature weights and biases x QA, output weights x QB, output bias x
    /// QA x QB, rounded to nearest.
    pub fn quantise(&self) -> Result<Network, NetError> {
        if self.hidden != HIDDEN {
            return Err(NetError::Shape {
                what: "hidden size",
                found: self.hidden as u32,
                expected: HIDDEN as u32,
            });
        }
        let q16 = |x: f32, scale: i32, limit: i32, what: &str| -> Result<i16, NetError> {
            let v = (x * scale as f32).round();
            if !v.is_finite() || v.abs() > limit as f32 {
                return Err(NetError::Unquantisable(format!("{what} {x} out of range")));
            }
            Ok(v as i16)
        };
        let ft_w = self
            .ft_w
            .iter()
            .map(|&x| q16(x, QA, 32767, "feature weight"))
            .collect::<Result<Vec<_>, _>>()?;
        let ft_b = self
            .ft_b
            .iter()
            .map(|&x| q16(x, QA, 32767, "feature bias"))
            .collect::<Result<Vec<_>, _>>()?;
        let out_w = self
            .out_w
            .iter()
            .map(|&x| q16(x, QB, 127, "output weight"))
            .collect::<Result<Vec<_>, _>>()?;
        let out_b = self
            .out_b
            .iter()
            .map(|&x| {
                let b = (x * (QA * QB) as f32).round();
                if !b.is_finite() || b.abs() > 1e9 {
                    return Err(NetError::Unquantisable(format!("output bias {x}")));
                }
                Ok(b as i32)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Network {
            ft_w,
            ft_b,
            buckets: self.buckets,
            out_w,
            out_b,
        })
    }

    /// The float net a quantised net stands for (each weight divided by its scale): a
    /// starting point for training the next net from the one in use. `quantise` gives `net`
    /// back exactly.
    pub fn dequantise(net: &Network) -> FloatNet {
        let qa = QA as f32;
        let qb = QB as f32;
        FloatNet {
            hidden: HIDDEN,
            ft_w: net.ft_w.iter().map(|&w| w as f32 / qa).collect(),
            ft_b: net.ft_b.iter().map(|&b| b as f32 / qa).collect(),
            buckets: net.buckets,
            out_w: net.out_w.iter().map(|&w| w as f32 / qb).collect(),
            out_b: net.out_b.iter().map(|&b| b as f32 / (qa * qb)).collect(),
        }
    }

    fn payload(&self) -> Vec<u8> {
        let len = self.ft_w.len() + self.ft_b.len() + self.out_w.len() + self.out_b.len();
        let mut p = Vec::with_capacity(len * 4);
        for v in self
            .ft_w
            .iter()
            .chain(&self.ft_b)
            .chain(&self.out_w)
            .chain(&self.out_b)
        {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut out = Vec::with_capacity(HEADER_V2 + payload.len());
        out.extend_from_slice(MAGIC);
        let mut words = vec![1, FEATURES as u32, self.hidden as u32];
        if self.buckets != 1 {
            words[0] = VERSION;
            words.push(self.buckets as u32);
        }
        for v in words {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    pub fn from_bytes(b: &[u8]) -> Result<FloatNet, NetError> {
        if b.len() < HEADER_V1 {
            return Err(if b.len() >= 8 && &b[..8] != MAGIC {
                NetError::BadMagic
            } else {
                NetError::TooShort(b.len())
            });
        }
        if &b[..8] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        let version = word(8);
        if !(1..=VERSION).contains(&version) {
            return Err(NetError::UnsupportedVersion(version));
        }
        let header = if version == 1 { HEADER_V1 } else { HEADER_V2 };
        if b.len() < header {
            return Err(NetError::TooShort(b.len()));
        }
        if word(12) != FEATURES as u32 {
            return Err(NetError::Shape {
                what: "features",
                found: word(12),
                expected: FEATURES as u32,
            });
        }
        let hidden = word(16) as usize;
        if hidden == 0 || hidden > 4096 {
            return Err(NetError::Shape {
                what: "hidden size",
                found: hidden as u32,
                expected: HIDDEN as u32,
            });
        }
        let buckets = if version == 1 { 1 } else { word(20) as usize };
        if !valid_buckets(buckets) {
            return Err(NetError::Shape {
                what: "output buckets",
                found: buckets as u32,
                expected: features::OUTPUT_BUCKETS as u32,
            });
        }
        let hash = u64::from_le_bytes(b[header - 8..header].try_into().expect("8 bytes"));
        let payload = &b[header..];
        let expected = ((FEATURES * hidden + hidden + buckets * (2 * hidden + 1)) * 4) as u64;
        if payload.len() as u64 != expected {
            return Err(NetError::Length {
                found: payload.len() as u64,
                expected,
            });
        }
        if fnv1a(payload) != hash {
            return Err(NetError::BadHash);
        }
        let mut vals = payload
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let mut take = |n: usize| -> Vec<f32> { vals.by_ref().take(n).collect() };
        let ft_w = take(FEATURES * hidden);
        let ft_b = take(hidden);
        let out_w = take(buckets * 2 * hidden);
        let out_b = take(buckets);
        Ok(FloatNet {
            hidden,
            ft_w,
            ft_b,
            buckets,
            out_w,
            out_b,
        })
    }

    pub fn load(path: &Path) -> Result<FloatNet, NetError> {
        let bytes =
            std::fs::read(path).map_err(|e| NetError::Io(format!("{}: {e}", path.display())))?;
        FloatNet::from_bytes(&bytes)
    }

    /// The net a command line names: `embedded` (the engine's own net), a quantised `.nnue`
    /// file (divided back by its scales, [`FloatNet::dequantise`]) or a float net. Errors
    /// name the path.
    pub fn open(spec: &Path) -> Result<FloatNet, String> {
        let named = |e: NetError| format!("{}: {e}", spec.display());
        if spec.as_os_str() == "embedded" {
            Ok(FloatNet::dequantise(&crate::nnue::default_net()))
        } else if spec.extension().is_some_and(|e| e == "nnue") {
            Ok(FloatNet::dequantise(&Network::load(spec).map_err(named)?))
        } else {
            FloatNet::load(spec).map_err(named)
        }
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }
}
