//! Evaluation properties over random positions.

mod common;

use common::Rng;
use gogo::eval::{evaluate, trace};
use gogo::movegen::legal_moves;
use gogo::position::Position;

#[test]
fn evaluation_is_colour_symmetric() {
    let mut rng = Rng::new(11);
    let mut checked = 0;
    for r in common::data_rows("perft.tsv") {
        let mut pos = Position::from_sfen(&r[0]).unwrap();
        for _ in 0..20 {
            let flipped = pos.flipped();
            assert_eq!(flipped.flipped(), pos);
            assert_eq!(
                evaluate(&pos),
                evaluate(&flipped),
                "{pos} vs its mirror {flipped}"
            );
            checked += 1;
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.after(moves.as_slice()[rng.below(moves.len())]);
        }
    }
    assert!(checked > 3000);
}

#[test]
fn more_material_evaluates_higher() {
    // The same position with an extra gold in sente's hand.
    let base = Position::from_sfen("rbs1k/4p/5/P4/KGSBR b - 1").unwrap();
    let up = Position::from_sfen("rbs1k/4p/5/P4/KGSBR b G 1").unwrap();
    assert!(evaluate(&up) > evaluate(&base) + 300);
    // From gote's side the extra gold is bad.
    let up_w = Position::from_sfen("rbs1k/4p/5/P4/KGSBR w G 1").unwrap();
    assert!(evaluate(&up_w) < -300);
}

/// The `eval` trace adds up: each term's total is sente's less gote's, the terms and the tempo
/// sum to the total, and that total (from sente's view) is the evaluation the search uses.
#[test]
fn trace_adds_up_to_the_evaluation() {
    for sfen in gogo::bench::POSITIONS.iter().take(12) {
        let pos = gogo::game::Game::parse_position(sfen)
            .unwrap()
            .current()
            .to_owned();
        let t = trace(&pos);
        let number = |w: &str| -> i32 { w.parse().unwrap_or_else(|_| panic!("'{w}' in\n{t}")) };
        let mut sum = 0;
        let mut terms = Vec::new();
        let mut total = None;
        for line in t.lines().skip(1) {
            if line.starts_with("evaluation") {
                continue;
            }
            let (name, rest) = line.split_at(12);
            let values: Vec<i32> = rest
                .split_whitespace()
                .take_while(|w| !w.starts_with('('))
                .map(number)
                .collect();
            match (name.trim(), values.as_slice()) {
                ("tempo", [v]) => sum += v,
                ("total", [v]) => total = Some(*v),
                (n, [b, w, d]) => {
                    assert_eq!(b - w, *d, "{n} in\n{t}");
                    sum += d;
                    terms.push(n.to_string());
                }
                _ => panic!("unexpected row '{line}' in\n{t}"),
            }
        }
        assert_eq!(
            terms,
            [
                "material",
                "placement",
                "mobility",
                "tropism",
                "king danger",
                "threats"
            ]
        );
        let total = total.expect("a total row");
        assert_eq!(sum, total, "{t}");
        let stm = match pos.side_to_move() {
            gogo::types::Color::Black => total,
            gogo::types::Color::White => -total,
        };
        assert_eq!(stm, evaluate(&pos), "{t}");
        assert!(t.ends_with(&format!(
            "evaluation for the side to move: {}\n",
            evaluate(&pos)
        )));
    }
}
