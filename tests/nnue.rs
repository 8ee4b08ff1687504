//! NNUE: incremental accumulator against refresh, colour symmetry, quantised against float,
//! SIMD against scalar, net files and training-data files (round trips and rejections),
//! deterministic self-play data generation.

mod common;

use common::Rng;
use gogo::movegen::legal_moves;
use gogo::nnue::features;
use gogo::nnue::net::{screlu_dot, Kernel, NetError, Network};
use gogo::nnue::HIDDEN;
use gogo::position::Position;
use gogo::train::data::{self, DataError, Record, HEADER_BYTES, RECORD_BYTES};
use gogo::train::datagen::{self, Settings};
use gogo::train::float::FloatNet;
use gogo::types::{Color, PieceKind};

fn test_net() -> (FloatNet, Network) {
    let f = FloatNet::random(HIDDEN, 7);
    let q = f.quantise().expect("a random net quantises");
    (f, q)
}

/// Positions along random games from the perft data (many with men in hand).
fn sample_positions(games: usize, plies: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let rows = common::data_rows("perft.tsv");
    let mut out = Vec::new();
    for g in 0..games {
        let mut pos = if g % 3 == 0 {
            Position::startpos()
        } else {
            Position::from_sfen(&rows[rng.below(rows.len())][0]).unwrap()
        };
        for _ in 0..plies {
            out.push(pos);
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.after(moves.as_slice()[rng.below(moves.len())]);
        }
    }
    out
}

#[test]
fn incremental_accumulator_equals_refresh_after_every_move() {
    let (_, net) = test_net();
    let rows = common::data_rows("perft.tsv");
    let mut rng = Rng::new(3);
    // [drops, captures, promotions, king moves] per colour.
    let mut seen = [[0u32; 4]; 2];
    for kernel in Kernel::available() {
        for g in 0..60 {
            let mut pos = if g % 2 == 0 {
                Position::startpos()
            } else {
                Position::from_sfen(&rows[rng.below(rows.len())][0]).unwrap()
            };
            let mut acc = net.refresh_all(&pos, kernel);
            for _ in 0..120 {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                let m = moves.as_slice()[rng.below(moves.len())];
                let us = pos.side_to_move().index();
                if m.is_drop() {
                    seen[us][0] += 1;
                } else {
                    if pos.piece_on(m.to()).is_some() {
                        seen[us][1] += 1;
                    }
                    if m.is_promotion() {
                        seen[us][2] += 1;
                    }
                    if pos.piece_on(m.from()).unwrap().kind == PieceKind::King {
                        seen[us][3] += 1;
                    }
                }
                let next = pos.after(m);
                acc = net.update(&pos, m, &next, &acc, kernel);
                pos = next;
                assert_eq!(acc, net.refresh_all(&pos, kernel), "after {m}: {pos}");
                assert_eq!(
                    net.evaluate(&acc, &pos, kernel),
                    net.evaluate_position(&pos)
                );
            }
        }
    }
    for side in seen {
        assert!(side.iter().all(|&n| n > 20), "move kinds covered: {seen:?}");
    }
}

#[test]
fn evaluation_equals_that_of_the_colour_flipped_mirror() {
    let (float, net) = test_net();
    for pos in sample_positions(30, 40, 5) {
        let flipped = pos.flipped();
        assert_eq!(
            net.evaluate_position(&pos),
            net.evaluate_position(&flipped),
            "{pos} vs {flipped}"
        );
        let (a, b) = (float.evaluate(&pos), float.evaluate(&flipped));
        assert!((a - b).abs() < 1e-3, "float {a} vs {b} for {pos}");
    }
}

/// The stated tolerance: the quantised net is within 8 centipawns of the float net on average
/// and 30 at worst on these positions (random net with the trainer's initial weight ranges;
/// the error comes from rounding weights to 1/255 and 1/64).
#[test]
fn quantised_net_matches_float_net_within_tolerance() {
    let (float, net) = test_net();
    let positions = sample_positions(30, 40, 9);
    let mut sum = 0.0;
    let mut worst: f32 = 0.0;
    for pos in &positions {
        let d = (net.evaluate_position(pos) as f32 - float.evaluate(pos)).abs();
        sum += d;
        worst = worst.max(d);
    }
    let mean = sum / positions.len() as f32;
    eprintln!("quantised vs float: mean {mean:.2} cp, worst {worst:.2} cp");
    assert!(mean <= 8.0 && worst <= 30.0, "mean {mean} worst {worst}");
    // A net that cannot be quantised is refused, not wrapped.
    let mut big = float.clone();
    big.out_w[3] = 5.0;
    assert!(matches!(big.quantise(), Err(NetError::Unquantisable(_))));
    let small = FloatNet::random(32, 1);
    assert!(matches!(small.quantise(), Err(NetError::Shape { .. })));
}

/// A generation is trained on from the net in use: the embedded net divided back by its
/// scales quantises to itself, and evaluates within rounding of it.
#[test]
fn the_embedded_net_dequantises_to_a_float_net_that_quantises_back_to_it() {
    let net = gogo::nnue::default_net();
    let float = FloatNet::dequantise(&net);
    assert_eq!(float.hidden, HIDDEN);
    assert!(float.quantise().expect("quantises") == *net);
    for pos in sample_positions(5, 30, 21) {
        let d = (net.evaluate_position(&pos) as f32 - float.evaluate(&pos)).abs();
        assert!(d <= 2.0, "{d} cp apart on {pos}");
    }
}

#[test]
fn simd_and_scalar_kernels_agree() {
    let (_, net) = test_net();
    for pos in sample_positions(10, 30, 13) {
        let results: Vec<(i32, _)> = Kernel::available()
            .into_iter()
            .map(|k| {
                let acc = net.refresh_all(&pos, k);
                (net.evaluate(&acc, &pos, k), acc)
            })
            .collect();
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{pos}");
    }
    // Extreme accumulators and weights, including sums that wrap.
    let mut rng = Rng::new(17);
    for _ in 0..200 {
        let mut acc = [0i16; HIDDEN];
        let mut w = vec![0i16; HIDDEN];
        for i in 0..HIDDEN {
            acc[i] = rng.next() as i16;
            w[i] = (rng.below(255) as i16) - 127;
        }
        let r: Vec<i32> = Kernel::available()
            .into_iter()
            .map(|k| screlu_dot(k, &acc, &w))
            .collect();
        assert!(r.windows(2).all(|x| x[0] == x[1]));
    }
}

#[test]
fn net_files_round_trip_and_bad_files_are_refused() {
    let (float, net) = test_net();
    let bytes = net.to_bytes();
    assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
    let fbytes = float.to_bytes();
    assert_eq!(FloatNet::from_bytes(&fbytes).unwrap(), float);

    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert_eq!(Network::from_bytes(&bad), Err(NetError::BadMagic));
    assert_eq!(
        Network::from_bytes(b"hello, world"),
        Err(NetError::BadMagic)
    );
    assert_eq!(Network::from_bytes(&fbytes), Err(NetError::BadMagic));
    let mut bad = bytes.clone();
    bad[8] = 9;
    assert_eq!(
        Network::from_bytes(&bad),
        Err(NetError::UnsupportedVersion(9))
    );
    let mut bad = bytes.clone();
    bad[16] ^= 1; // hidden size
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetError::Shape { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..bytes.len() - 1]),
        Err(NetError::Length { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..10]),
        Err(NetError::TooShort(10))
    ));
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n - 100] ^= 0x40;
    assert_eq!(Network::from_bytes(&bad), Err(NetError::BadHash));
    let mut bad = fbytes.clone();
    bad[fbytes.len() / 2] ^= 1;
    assert_eq!(FloatNet::from_bytes(&bad), Err(NetError::BadHash));
    let e = Network::load(std::path::Path::new("/nonexistent/net.nnue")).unwrap_err();
    assert!(e.to_string().contains("cannot read"), "{e}");
    // Messages say what is wrong.
    assert!(NetError::BadHash.to_string().contains("damaged"));
}

/// A net with output buckets whose buckets differ: bucket `k`'s output weights are those of
/// the one-bucket test net plus `0.05 k`, its bias `0.1 k`.
fn bucketed_net() -> FloatNet {
    let mut f = FloatNet::random(HIDDEN, 7).with_buckets(features::OUTPUT_BUCKETS);
    for k in 0..f.buckets {
        for w in &mut f.out_w[k * 2 * HIDDEN..(k + 1) * 2 * HIDDEN] {
            *w += 0.05 * k as f32;
        }
        f.out_b[k] += 0.1 * k as f32;
    }
    f
}

#[test]
fn output_buckets_choose_the_weights_by_the_men_in_hand() {
    let phase = |sfen: &str| features::output_bucket(&Position::from_sfen(sfen).unwrap());
    assert_eq!(features::output_bucket(&Position::startpos()), 0);
    assert_eq!(phase("rbsgk/4p/5/P4/KGSBR b - 1"), 0);
    assert_eq!(phase("rbsgk/4p/5/P4/KGSB1 b R 1"), 1);
    assert_eq!(phase("rbs1k/4p/5/P4/KGSB1 w Rg 1"), 1);
    assert_eq!(phase("rbs1k/4p/5/P4/KGS2 b RBg 1"), 2);
    assert_eq!(phase("r1s1k/4p/5/P4/KGS2 b RBbg 1"), 2);
    assert_eq!(phase("r3k/4p/5/P4/KG3 b RBSbsg 1"), 3);
    assert_eq!(phase("4k/4p/5/P4/K4 b RBSGrbsg 1"), 3);

    let float = bucketed_net();
    let net = float.quantise().unwrap();
    assert_eq!(net.buckets, features::OUTPUT_BUCKETS);
    // Each position is evaluated with its bucket's weights: exactly what a one-bucket net
    // made of those weights says.
    let single: Vec<Network> = (0..float.buckets)
        .map(|k| {
            let mut one = float.clone();
            one.buckets = 1;
            one.out_w = float.out_w[k * 2 * HIDDEN..(k + 1) * 2 * HIDDEN].to_vec();
            one.out_b = vec![float.out_b[k]];
            one.quantise().unwrap()
        })
        .collect();
    let mut seen = [0u32; features::OUTPUT_BUCKETS];
    let (mut sum, mut worst, mut n) = (0.0f32, 0.0f32, 0);
    for pos in sample_positions(30, 40, 9) {
        let k = features::output_bucket(&pos);
        seen[k] += 1;
        assert_eq!(
            net.evaluate_position(&pos),
            single[k].evaluate_position(&pos),
            "{pos}"
        );
        let d = (net.evaluate_position(&pos) as f32 - float.evaluate(&pos)).abs();
        sum += d;
        worst = worst.max(d);
        n += 1;
    }
    assert!(seen.iter().all(|&c| c > 0), "every bucket seen: {seen:?}");
    let mean = sum / n as f32;
    assert!(mean <= 8.0 && worst <= 30.0, "mean {mean} worst {worst}");
    // The buckets differ, so the choice matters.
    let pos = Position::from_sfen("4k/4p/5/P4/K4 b RBSGrbsg 1").unwrap();
    assert_ne!(
        net.evaluate_position(&pos),
        single[0].evaluate_position(&pos)
    );

    // Incremental updates along games give the fresh evaluation.
    let kernel = Kernel::best();
    let mut rng = Rng::new(5);
    for _ in 0..10 {
        let mut pos = Position::startpos();
        let mut acc = net.refresh_all(&pos, kernel);
        for _ in 0..60 {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            let m = moves.as_slice()[rng.below(moves.len())];
            let next = pos.after(m);
            acc = net.update(&pos, m, &next, &acc, kernel);
            pos = next;
            assert_eq!(
                net.evaluate(&acc, &pos, kernel),
                net.evaluate_position(&pos)
            );
        }
    }
}

#[test]
fn bucketed_net_files_round_trip_and_one_bucket_nets_keep_version_1() {
    // The embedded net (one bucket) is written byte for byte as it was read: version 1.
    let embedded = gogo::nnue::default_net();
    assert_eq!(embedded.buckets, 1);
    assert_eq!(embedded.to_bytes(), gogo::nnue::DEFAULT_NET);
    assert_eq!(
        u32::from_le_bytes(gogo::nnue::DEFAULT_NET[8..12].try_into().unwrap()),
        1
    );

    let float = bucketed_net();
    let net = float.quantise().unwrap();
    let bytes = net.to_bytes();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(bytes[32..36].try_into().unwrap()), 4);
    assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
    assert_eq!(FloatNet::from_bytes(&float.to_bytes()).unwrap(), float);
    assert_eq!(FloatNet::dequantise(&net).quantise().unwrap(), net);
    // Through a file, as EvalFile reads it.
    let path = std::env::temp_dir().join(format!("gogo-bucketed-{}.nnue", std::process::id()));
    net.save(&path).unwrap();
    let loaded = Network::load(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(loaded.unwrap(), net);

    let mut bad = bytes.clone();
    bad[32] = 3; // a bucket count this build has no bucket function for
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetError::Shape {
            what: "output buckets",
            ..
        })
    ));
    let mut bad = bytes.clone();
    bad[8] = 3;
    assert_eq!(
        Network::from_bytes(&bad),
        Err(NetError::UnsupportedVersion(3))
    );
    assert!(matches!(
        Network::from_bytes(&bytes[..bytes.len() - 4]),
        Err(NetError::Length { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..50]),
        Err(NetError::TooShort(50))
    ));
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n - 2] ^= 1; // the last bucket's bias
    assert_eq!(Network::from_bytes(&bad), Err(NetError::BadHash));
    let fbytes = float.to_bytes();
    let mut bad = fbytes.clone();
    bad[20] = 2;
    assert!(FloatNet::from_bytes(&bad).is_err());

    // A net by the name a command line gives: embedded, a .nnue, a float net.
    use std::path::Path;
    assert_eq!(
        FloatNet::open(Path::new("embedded")).unwrap(),
        FloatNet::dequantise(&embedded)
    );
    let dir = std::env::temp_dir();
    let qpath = dir.join(format!("gogo-open-{}.nnue", std::process::id()));
    let fpath = dir.join(format!("gogo-open-{}.fnet", std::process::id()));
    net.save(&qpath).unwrap();
    float.save(&fpath).unwrap();
    let (q, f) = (FloatNet::open(&qpath), FloatNet::open(&fpath));
    std::fs::remove_file(&qpath).unwrap();
    std::fs::remove_file(&fpath).unwrap();
    assert_eq!(q.unwrap().quantise().unwrap(), net);
    assert_eq!(f.unwrap(), float);
    let e = FloatNet::open(Path::new("/nonexistent/x.fnet")).unwrap_err();
    assert!(e.starts_with("/nonexistent/x.fnet: "), "{e}");
}

fn sample_records() -> Vec<Record> {
    let mut rng = Rng::new(21);
    sample_positions(20, 30, 23)
        .into_iter()
        .map(|pos| Record {
            pos,
            score: rng.next() as i16,
            result: rng.below(3) as i8 - 1,
            ply: (pos.move_number() - 1) as u16,
        })
        .collect()
}

#[test]
fn data_round_trips_through_memory_and_files() {
    let records = sample_records();
    assert!(records.iter().any(|r| !r.pos.hand(Color::White).is_empty()));
    assert!(records.iter().any(|r| r.pos.side_to_move() == Color::White));
    let bytes = data::encode_all(&records);
    assert_eq!(bytes.len(), HEADER_BYTES + records.len() * RECORD_BYTES);
    assert_eq!(data::decode_all(&bytes).unwrap(), records);

    let dir = std::env::temp_dir().join(format!("gogo-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sample.bin");
    let mut w = data::DataWriter::create(&path).unwrap();
    for (i, r) in records.iter().enumerate() {
        w.write(r).unwrap();
        if i == 10 {
            w.sync().unwrap();
            // A file read mid-run holds the records up to the last sync.
            let partial = std::fs::read(&path).unwrap();
            let n = 11;
            assert_eq!(
                data::decode_all(&partial[..HEADER_BYTES + n * RECORD_BYTES]).unwrap(),
                records[..n]
            );
        }
    }
    assert_eq!(w.finish().unwrap(), records.len() as u64);
    assert_eq!(data::read_file(&path).unwrap(), records);
    assert_eq!(data::read_records(&path, None).unwrap(), records);
    assert_eq!(data::read_records(&path, Some(2)).unwrap(), records[..2]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_truncated_and_foreign_data_files_are_refused() {
    let records = sample_records();
    let bytes = data::encode_all(&records);
    let msg = |b: &[u8]| data::decode_all(b).unwrap_err().to_string();

    assert!(matches!(
        data::decode_all(b"GOGONNUE and more text"),
        Err(DataError::BadMagic)
    ));
    assert!(msg(b"#!/bin/sh\necho not data at all\n").contains("bad magic"));
    let mut b = bytes.clone();
    b[8] = 2;
    assert!(msg(&b).contains("unsupported data version 2"));
    let mut b = bytes.clone();
    b[12] = 32;
    assert!(msg(&b).contains("record size 32"));
    // Truncated by one byte, by one record, or with extra bytes.
    for b in [
        &bytes[..bytes.len() - 1],
        &bytes[..bytes.len() - RECORD_BYTES],
        &[&bytes[..], &[0u8; 5][..]].concat()[..],
        &bytes[..20],
    ] {
        assert!(msg(b).contains("truncated or damaged"), "{}", msg(b));
    }
    let record = |i: usize| HEADER_BYTES + i * RECORD_BYTES;
    // Piece code 31 on a square.
    let mut b = bytes.clone();
    b[record(3)] |= 31;
    assert!(
        msg(&b).contains("record 3 is invalid: piece code 31"),
        "{}",
        msg(&b)
    );
    // Stray bits after the board and in the meta word.
    let mut b = bytes.clone();
    b[record(4) + 15] |= 0x80;
    assert!(
        msg(&b).contains("record 4 is invalid: stray bits"),
        "{}",
        msg(&b)
    );
    let mut b = bytes.clone();
    b[record(5) + 19] |= 0x10;
    assert!(
        msg(&b).contains("record 5 is invalid: stray bits"),
        "{}",
        msg(&b)
    );
    // Result code 3.
    let mut b = bytes.clone();
    b[record(6) + 18] |= 0x60;
    assert!(msg(&b).contains("result code 3"), "{}", msg(&b));
    // An illegal position: a third sente king on an empty square, three pawns in hand.
    let empty_sq = (0..25)
        .find(|&s| {
            records[7]
                .pos
                .piece_on(gogo::types::Square::new(s))
                .is_none()
        })
        .unwrap() as usize;
    let mut b = bytes.clone();
    let mut board = u128::from_le_bytes(b[record(7)..record(7) + 16].try_into().unwrap());
    board |= 6u128 << (5 * empty_sq);
    b[record(7)..record(7) + 16].copy_from_slice(&board.to_le_bytes());
    assert!(msg(&b).contains("record 7 is invalid"), "{}", msg(&b));
    let mut b = bytes.clone();
    b[record(8) + 16] |= 3;
    assert!(msg(&b).contains("record 8 is invalid"), "{}", msg(&b));
}

#[test]
fn datagen_is_deterministic_and_keeps_quiet_positions() {
    let openings = datagen::parse_openings(include_str!("../data/openings.txt"));
    assert_eq!(openings.len(), 200);
    let settings = Settings {
        seed: 42,
        games: 3,
        threads: 1,
        nodes: 300,
        random_plies: 2,
        max_start_score: 300,
        max_plies: 40,
        hash_mb: 1,
        openings,
        ..Settings::default()
    };
    let a = datagen::generate(&settings).unwrap();
    let b = datagen::generate(&Settings {
        threads: 2,
        ..settings.clone()
    })
    .unwrap();
    assert!(a.len() > 20, "{} positions", a.len());
    assert_eq!(a, b, "the thread count does not change the data");
    let c = datagen::generate(&Settings {
        seed: 43,
        ..settings.clone()
    })
    .unwrap();
    assert_ne!(a, c);
    for r in &a {
        assert!(!r.pos.in_check());
        assert!(r.score.abs() < 31000);
    }
    // Records survive the file format.
    assert_eq!(data::decode_all(&data::encode_all(&a)).unwrap(), a);
}
