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

#[test]
fn trace_names_every_term() {
    let t = trace(&Position::startpos());
    for term in [
        "material",
        "placement",
        "mobility",
        "tropism",
        "king danger",
        "tempo",
        "total",
    ] {
        assert!(t.contains(term), "{term} missing in\n{t}");
    }
}
