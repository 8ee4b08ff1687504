//! The JSON bodies of the API's POST requests, as typed structs: serde's derive reads them and
//! refuses unknown fields and wrong types, so no handler walks a JSON value by hand. Every
//! field is optional (`null` counts as absent).

use serde::Deserialize;

/// The computer's strength (see docs/skill.md for what each level does).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Easy,
    Medium,
    Hard,
    Full,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpponentKind {
    Computer,
    Friend,
}

/// A side of the board: `"b"` or `"sente"`, `"w"` or `"gote"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum Side {
    #[serde(rename = "b", alias = "sente")]
    Sente,
    #[serde(rename = "w", alias = "gote")]
    Gote,
}

/// `POST /api/new`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewBody {
    pub opponent: Option<OpponentKind>,
    pub level: Option<Level>,
    pub human: Option<Side>,
    /// `draw` or `gote-wins`.
    pub sennichite: Option<String>,
    pub max_plies: Option<u32>,
    pub think_ms: Option<u64>,
    /// A start position: an SFEN (optionally after `sfen `) or `startpos`.
    pub sfen: Option<String>,
    /// A whole game to load: KIF, a USI `position ...` line, `startpos moves ...` or an SFEN.
    pub record: Option<String>,
    /// The id of the page's previous game, which it gives up.
    pub replaces: Option<String>,
}

/// `POST /api/game/<id>/move`: one move or several, in USI notation, played from position
/// `ply` of the game (the moves after it are dropped) or from the last one.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    #[serde(rename = "move")]
    pub one: Option<String>,
    pub moves: Option<Vec<String>>,
    pub ply: Option<usize>,
}

/// `hint`, `analyse` and `mate`: which position of the game (default the last), and for
/// `analyse` the number of lines, for `mate` the time.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineBody {
    pub ply: Option<usize>,
    pub multipv: Option<usize>,
    pub ms: Option<u64>,
}

/// `review`: the time per position.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewBody {
    pub ms: Option<u64>,
}

/// `undo`, `computer`, `stop`: no field.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmptyBody {}
