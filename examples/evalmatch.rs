//! A toy match between two evaluations under the same small fixed-depth alpha-beta search
//! (NOT Gogo's search: no hash table, no pruning, no repetition handling inside the search).
//! Only the evaluation differs: the handcrafted one against a net. It says how a net's
//! judgement plays, cheaply, before the net is wired into the real search; it says nothing
//! about the engine's strength with the net.
//!
//! Usage: `cargo run --release --example evalmatch -- NET.nnue [--pairs N] [--depth D]`
//! Each opening of `data/openings.txt` is played twice with colours swapped; games end by the
//! rules core (sennichite a draw) or at 200 plies (a draw).

use gogo::eval::{capture_value, evaluate};
use gogo::game::Game;
use gogo::game::{GameRules, SennichiteRule};
use gogo::movegen::{generate, legal_moves, MoveList, NOISY};
use gogo::nnue::net::Network;
use gogo::nnue::stack::AccumulatorStack;
use gogo::position::Position;
use gogo::train::datagen::parse_openings;
use gogo::types::{Color, Move};
use std::time::Instant;

const MATE: i32 = 30000;

struct Mini<'a> {
    net: Option<AccumulatorStack<'a>>,
    nodes: u64,
}

impl Mini<'_> {
    fn eval(&self, pos: &Position) -> i32 {
        match &self.net {
            Some(stack) => stack.evaluate(pos),
            None => evaluate(pos),
        }
    }

    fn push(&mut self, pos: &Position, m: Move, next: &Position) {
        if let Some(s) = &mut self.net {
            s.push_move(pos, m, next);
        }
    }

    fn pop(&mut self) {
        if let Some(s) = &mut self.net {
            s.pop();
        }
    }

    fn ordered(pos: &Position, mut list: MoveList) -> Vec<Move> {
        let mut v: Vec<(i32, Move)> = list
            .as_mut_slice()
            .iter()
            .map(|&m| {
                let victim = if m.is_drop() {
                    None
                } else {
                    pos.piece_on(m.to())
                };
                let key = victim.map_or(0, |p| capture_value(p.kind)) + m.is_promotion() as i32;
                (-key, m)
            })
            .collect();
        v.sort_by_key(|&(k, m)| (k, m.raw()));
        v.into_iter().map(|(_, m)| m).collect()
    }

    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if pos.in_check() && ply < 12 {
            return self.search(pos, 1, alpha, beta, ply);
        }
        let stand = self.eval(pos);
        if stand >= beta || ply >= 12 {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut list = MoveList::new();
        generate(pos, NOISY, &mut list);
        for m in Self::ordered(pos, list) {
            let next = pos.after(m);
            self.push(pos, m, &next);
            let s = -self.qsearch(&next, -beta, -alpha, ply + 1);
            self.pop();
            if s >= beta {
                return s;
            }
            alpha = alpha.max(s);
        }
        alpha
    }

    fn search(&mut self, pos: &Position, depth: i32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        self.nodes += 1;
        let moves = Self::ordered(pos, legal_moves(pos));
        if moves.is_empty() {
            return -MATE + ply;
        }
        let mut best = -MATE - 1;
        for m in moves {
            let next = pos.after(m);
            self.push(pos, m, &next);
            let s = -self.search(&next, depth - 1, -beta, -alpha, ply + 1);
            self.pop();
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn best_move(&mut self, pos: &Position, depth: i32) -> Move {
        if let Some(s) = &mut self.net {
            s.reset(pos);
        }
        let mut best = (i32::MIN, Move::NONE);
        let mut alpha = -MATE - 1;
        for m in Self::ordered(pos, legal_moves(pos)) {
            let next = pos.after(m);
            self.push(pos, m, &next);
            let s = -self.search(&next, depth - 1, -MATE - 1, -alpha, 1);
            self.pop();
            if s > best.0 {
                best = (s, m);
                alpha = alpha.max(s);
            }
        }
        best.1
    }
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: evalmatch NET.nnue [--pairs N] [--depth D]")?;
    let (mut pairs, mut depth) = (50usize, 2i32);
    while let Some(a) = args.next() {
        let v = args.next().ok_or(format!("{a} needs a value"))?;
        match a.as_str() {
            "--pairs" => pairs = v.parse().map_err(|_| "bad --pairs")?,
            "--depth" => depth = v.parse().map_err(|_| "bad --depth")?,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    let net = Network::load(path.as_ref()).map_err(|e| e.to_string())?;
    let openings = parse_openings(include_str!("../data/openings.txt"));
    let rules = GameRules {
        sennichite: SennichiteRule::Draw,
        max_plies: 200,
    };
    let start = Instant::now();
    let (mut w, mut d, mut l) = (0u32, 0u32, 0u32);
    let mut nodes = 0u64;
    for i in 0..pairs {
        let line = &openings[i % openings.len()];
        for net_side in [Color::Black, Color::White] {
            let mut game = Game::parse_position(line).map_err(|e| e.to_string())?;
            let mut with_net = Mini {
                net: Some(AccumulatorStack::new(&net, game.current())),
                nodes: 0,
            };
            let mut handcrafted = Mini {
                net: None,
                nodes: 0,
            };
            let result = loop {
                if let Some(r) = game.result(rules) {
                    break r;
                }
                let pos = *game.current();
                let player = if pos.side_to_move() == net_side {
                    &mut with_net
                } else {
                    &mut handcrafted
                };
                let m = player.best_move(&pos, depth);
                game.play(m).map_err(|e| e.to_string())?;
            };
            nodes += with_net.nodes + handcrafted.nodes;
            match result.winner {
                None => d += 1,
                Some(c) if c == net_side => w += 1,
                Some(_) => l += 1,
            }
        }
        let n = (w + d + l) as f64;
        let p = (w as f64 + 0.5 * d as f64) / n;
        eprintln!(
            "{} games: net +{w} ={d} -{l}, {:.1}%, Elo {:+.0}; {:.0} s, {:.0} knps",
            w + d + l,
            100.0 * p,
            -400.0 * (1.0 / p.clamp(0.001, 0.999) - 1.0).log10(),
            start.elapsed().as_secs_f64(),
            nodes as f64 / start.elapsed().as_secs_f64() / 1000.0
        );
    }
    Ok(())
}
