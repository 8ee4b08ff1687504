//! Weight averaging of two nets of the same width ("model soup"): writes `(1 - t) * A + t * B`
//! as a float net (`PREFIX.fnet`) and a quantised one (`PREFIX.nnue`).
//!
//! ```text
//! cargo run --release --example netmix -- A B --t 0.5 --out PREFIX
//! ```
//!
//! `A` and `B` are `embedded` (the net built into the engine), a quantised `.nnue` or a float
//! `.fnet`. Averaging is meaningful for nets trained on from a common parent (`train --init`),
//! whose weights lie near each other; for unrelated nets it is not.

use gogo::train::float::FloatNet;
use std::path::{Path, PathBuf};

fn lerp(a: &[f32], b: &[f32], t: f32) -> Vec<f32> {
    a.iter()
        .zip(b)
        .map(|(x, y)| (1.0 - t) * x + t * y)
        .collect()
}

/// `(1 - t) * a + t * b`, parameter by parameter.
fn mix(a: &FloatNet, b: &FloatNet, t: f32) -> Result<FloatNet, String> {
    if a.hidden != b.hidden {
        return Err(format!(
            "hidden sizes differ: {} and {}",
            a.hidden, b.hidden
        ));
    }
    if a.buckets != b.buckets {
        return Err(format!(
            "output buckets differ: {} and {}",
            a.buckets, b.buckets
        ));
    }
    Ok(FloatNet {
        hidden: a.hidden,
        ft_w: lerp(&a.ft_w, &b.ft_w, t),
        ft_b: lerp(&a.ft_b, &b.ft_b, t),
        buckets: a.buckets,
        out_w: lerp(&a.out_w, &b.out_w, t),
        out_b: lerp(&a.out_b, &b.out_b, t),
    })
}

fn run() -> Result<(), String> {
    const USAGE: &str = "usage: netmix A B [--t X] --out PREFIX   (A, B: embedded, .nnue or .fnet)";
    let mut nets = Vec::new();
    let mut t = 0.5f32;
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--t" => {
                let v = args.next().ok_or(USAGE)?;
                t = v.parse().map_err(|_| format!("--t {v}: not a number"))?;
            }
            "--out" => out = Some(PathBuf::from(args.next().ok_or(USAGE)?)),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ if a.starts_with("--") => return Err(format!("unknown option {a}\n{USAGE}")),
            _ => nets.push(a),
        }
    }
    let (Some(out), [a, b]) = (out, nets.as_slice()) else {
        return Err(USAGE.into());
    };
    if !(0.0..=1.0).contains(&t) {
        return Err(format!("--t {t}: outside 0..1"));
    }
    let m = mix(
        &FloatNet::open(Path::new(a))?,
        &FloatNet::open(Path::new(b))?,
        t,
    )?;
    let fpath = gogo::train::prefixed(&out, "fnet");
    m.save(&fpath)
        .map_err(|e| format!("{}: {e}", fpath.display()))?;
    let q = m.quantise().map_err(|e| e.to_string())?;
    let qpath = gogo::train::prefixed(&out, "nnue");
    q.save(&qpath)
        .map_err(|e| format!("{}: {e}", qpath.display()))?;
    eprintln!(
        "{} = {:.3} * {a} + {:.3} * {b}; hash {:016x}",
        qpath.display(),
        1.0 - t,
        t,
        q.hash()
    );
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("netmix: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_interpolates_every_parameter() {
        let a = FloatNet::random(8, 1);
        let b = FloatNet::random(8, 2);
        assert_eq!(mix(&a, &b, 0.0).unwrap(), a);
        assert_eq!(mix(&a, &b, 1.0).unwrap(), b);
        let m = mix(&a, &b, 0.25).unwrap();
        let parts = [
            (&m.ft_w, &a.ft_w, &b.ft_w),
            (&m.ft_b, &a.ft_b, &b.ft_b),
            (&m.out_w, &a.out_w, &b.out_w),
            (&m.out_b, &a.out_b, &b.out_b),
        ];
        for (mv, av, bv) in parts {
            assert_eq!(mv.len(), av.len());
            for (i, w) in mv.iter().enumerate() {
                assert!((w - (0.75 * av[i] + 0.25 * bv[i])).abs() < 1e-6);
            }
        }
        assert!(mix(&a, &FloatNet::random(16, 3), 0.5).is_err());
        assert!(mix(&a, &b.with_buckets(4), 0.5).is_err());
    }
}
