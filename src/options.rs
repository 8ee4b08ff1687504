//! The engine's options, declared once: each entry of the [`options!`] table below gives an
//! option's field in [`EngineOptions`], its name in both dialects and its aliases, its type,
//! default and range, and how the engine applies a new value ([`Apply`]). The macro makes the
//! [`OptionId`] enum, the [`OPTIONS`] table (which produces the `option` lines after
//! `usi`/`uci` and checks every `setoption`) and the [`EngineOptions`] struct with its
//! defaults and one generic store, so that a new option is one entry plus its use.
//!
//! Integer options take integers only (`2.6` and `1e2` are errors, not 3 and 100); errors quote
//! what was sent.

use crate::game::SennichiteRule;
use crate::params::{SearchParams, SKILL_FULL};
use crate::search::SearchConfig;
use crate::skill::strength_to_skill_level;
use crate::text::sanitize;
use std::fmt;

/// How the engine applies a new value of an option, beyond storing it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Apply {
    /// Stored; the next search reads it.
    Store,
    /// A new hash table is allocated (or the old size kept when the memory is not there).
    ResizeHash,
    /// The helper searchers are made or dropped at once, not when the next `go` starts its
    /// clock.
    ResizeHelpers,
    /// The network file is loaded and checked; the evaluation stays on an error.
    LoadNet,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
    /// Free text (a file name); `<empty>` in the `option` line stands for the empty string.
    Text {
        default: &'static str,
    },
}

#[derive(Copy, Clone, Debug)]
pub struct OptionSpec {
    pub id: OptionId,
    /// The name in USI (`option name ...`).
    pub usi_name: &'static str,
    /// The name in the UCI dialect; `None` where the option is not offered there.
    pub uci_name: Option<&'static str>,
    /// Other names `setoption` accepts (compared without case).
    pub aliases: &'static [&'static str],
    pub kind: OptionKind,
    pub apply: Apply,
}

pub const HASH_MAX_MB: i64 = 65536;
pub const THREADS_MAX: i64 = 256;
pub const MULTIPV_MAX: i64 = 500;
/// `USI_Strength`: -20 ..= -1 kyu grades, 1 ..= 5 dan grades (0 reads as 1 kyu).
pub const STRENGTH_MIN: i64 = -20;
pub const STRENGTH_MAX: i64 = 5;

/// Declares the options: for each, `Id => field: Type`, its USI name, its UCI name (or
/// `None`), aliases, kind and [`Apply`]. See the module documentation.
macro_rules! options {
    ($(
        $(#[$doc:meta])*
        $id:ident => $field:ident: $ty:ty,
            usi $usi:literal, uci $uci:expr, aliases [$($alias:literal),*],
            $kind:expr, $apply:ident;
    )*) => {
        /// Which option a table row is.
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub enum OptionId {
            $($id,)*
        }

        pub const OPTIONS: &[OptionSpec] = &[$(
            OptionSpec {
                id: OptionId::$id,
                usi_name: $usi,
                uci_name: $uci,
                aliases: &[$($alias),*],
                kind: $kind,
                apply: Apply::$apply,
            },
        )*];

        /// The values of all options.
        #[derive(Clone, Debug)]
        pub struct EngineOptions {
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl Default for EngineOptions {
            /// The defaults come from the table, so they are written in one place.
            fn default() -> Self {
                EngineOptions {
                    $($field: <$ty as OptionField>::from_value(&$kind.default_value())
                        .expect("an option's default fits its field"),)*
                }
            }
        }

        impl EngineOptions {
            /// Stores a value already checked by [`OptionSpec::check`] (the hash size is stored
            /// here too; allocating the table is the engine's job). False when the value is not
            /// of the option's type (nothing is stored then).
            pub fn store(&mut self, id: OptionId, v: &OptionValue) -> bool {
                match id {
                    $(OptionId::$id => match <$ty as OptionField>::from_value(v) {
                        Some(x) => {
                            self.$field = x;
                            true
                        }
                        None => false,
                    },)*
                }
            }

            /// The current value of an option.
            pub fn get(&self, id: OptionId) -> OptionValue {
                match id {
                    $(OptionId::$id => self.$field.to_value(),)*
                }
            }
        }
    };
}

options! {
    /// `USI_Hash`: the hash table size in MB.
    Hash => hash_mb: usize,
        usi "USI_Hash", uci Some("Hash"), aliases ["hash"],
        OptionKind::Spin { default: 64, min: 1, max: HASH_MAX_MB }, ResizeHash;
    Ponder => ponder: bool,
        usi "USI_Ponder", uci Some("Ponder"), aliases ["ponder"],
        OptionKind::Check { default: false }, Store;
    /// Search threads asked for (the engine may use fewer: see `Engine::search_threads`).
    Threads => threads: usize,
        usi "Threads", uci Some("Threads"), aliases [],
        OptionKind::Spin { default: 1, min: 1, max: THREADS_MAX }, ResizeHelpers;
    MultiPv => multipv: usize,
        usi "MultiPV", uci Some("MultiPV"), aliases ["usi_multipv"],
        OptionKind::Spin { default: 1, min: 1, max: MULTIPV_MAX }, Store;
    SennichiteRule => sennichite: SennichiteRule,
        usi "SennichiteRule", uci Some("SennichiteRule"), aliases [],
        OptionKind::Combo { default: "draw", vars: &["draw", "gote-wins"] }, Store;
    /// 0: no limit.
    MaxMovesToDraw => max_moves_to_draw: u32,
        usi "MaxMovesToDraw", uci Some("MaxMovesToDraw"), aliases [],
        OptionKind::Spin { default: 0, min: 0, max: 100_000 }, Store;
    /// Milliseconds kept in reserve for the GUI and the transport.
    MoveOverhead => move_overhead: u64,
        usi "MoveOverhead", uci Some("MoveOverhead"), aliases ["move overhead", "move_overhead"],
        OptionKind::Spin { default: 50, min: 0, max: 10_000 }, Store;
    /// The only variant there is.
    Variant => variant: String,
        usi "USI_Variant", uci Some("UCI_Variant"), aliases [],
        OptionKind::Combo { default: "minishogi", vars: &["minishogi"] }, Store;
    /// `SkillLevel`: 0 ..= `SKILL_FULL` (full strength).
    SkillLevel => skill_level: u8,
        usi "SkillLevel", uci Some("SkillLevel"), aliases ["skill level"],
        OptionKind::Spin { default: SKILL_FULL as i64, min: 0, max: SKILL_FULL as i64 }, Store;
    /// `USI_LimitStrength`: play at the level of `USI_Strength` instead of `SkillLevel`.
    LimitStrength => limit_strength: bool,
        usi "USI_LimitStrength", uci None, aliases ["uci_limitstrength", "limitstrength"],
        OptionKind::Check { default: false }, Store;
    /// `USI_Strength`: -20 ..= -1 kyu grades, 1 ..= 5 dan grades (0 reads as 1 kyu).
    Strength => strength: i32,
        usi "USI_Strength", uci None, aliases ["strength"],
        OptionKind::Spin { default: 1, min: STRENGTH_MIN, max: STRENGTH_MAX }, Store;
    /// `UseNNUE`: evaluate with the network (else the handcrafted evaluation).
    UseNnue => use_nnue: bool,
        usi "UseNNUE", uci Some("UseNNUE"), aliases ["use nnue"],
        OptionKind::Check { default: true }, Store;
    /// `EvalFile`: the network file in use; empty for the net embedded in the binary.
    EvalFile => eval_file: String,
        usi "EvalFile", uci Some("EvalFile"), aliases [],
        OptionKind::Text { default: "" }, LoadNet;
}

/// A field of [`EngineOptions`]: how an option's value becomes the field's type and back.
pub trait OptionField: Sized {
    fn from_value(v: &OptionValue) -> Option<Self>;
    fn to_value(&self) -> OptionValue;
}

macro_rules! integer_fields {
    ($($t:ty),*) => {$(
        impl OptionField for $t {
            fn from_value(v: &OptionValue) -> Option<Self> {
                match v {
                    OptionValue::Int(n) => <$t>::try_from(*n).ok(),
                    _ => None,
                }
            }
            fn to_value(&self) -> OptionValue {
                OptionValue::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
integer_fields!(u8, i32, u32, u64, usize);

impl OptionField for bool {
    fn from_value(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn to_value(&self) -> OptionValue {
        OptionValue::Bool(*self)
    }
}

impl OptionField for String {
    fn from_value(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::Text(t) => Some(t.clone()),
            OptionValue::Combo(c) => Some(c.to_string()),
            _ => None,
        }
    }
    fn to_value(&self) -> OptionValue {
        OptionValue::Text(self.clone())
    }
}

impl OptionField for SennichiteRule {
    fn from_value(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::Combo(name) => SennichiteRule::parse(name),
            _ => None,
        }
    }
    fn to_value(&self) -> OptionValue {
        OptionValue::Combo(self.name())
    }
}

impl OptionSpec {
    /// The `option name ...` line under `name` (the option's name in the dialect spoken).
    pub fn line(&self, name: &str) -> String {
        match self.kind {
            OptionKind::Spin { default, min, max } => {
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => {
                format!("option name {name} type check default {default}")
            }
            OptionKind::Combo { default, vars } => {
                let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
                format!(
                    "option name {name} type combo default {default} {}",
                    vars.join(" ")
                )
            }
            OptionKind::Text { default } => format!(
                "option name {name} type string default {}",
                if default.is_empty() {
                    "<empty>"
                } else {
                    default
                }
            ),
        }
    }

    fn matches(&self, name: &str) -> bool {
        self.usi_name.eq_ignore_ascii_case(name)
            || self.uci_name.is_some_and(|n| n.eq_ignore_ascii_case(name))
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }

    /// Reads `value` (the text of a `setoption`) as a value of the option's type, checked
    /// against its range or choices.
    pub fn parse(&self, value: &str) -> Result<OptionValue, OptionError> {
        let value = value.trim();
        let v = match self.kind {
            OptionKind::Spin { min, max, .. } => {
                let n = parse_integer(value).ok_or_else(|| OptionError::NotInteger {
                    value: sanitize(value, 40),
                })?;
                // Quoted as sent (a huge number saturates when read).
                if n < min || n > max {
                    return Err(OptionError::OutOfRange {
                        value: sanitize(value, 40),
                        min,
                        max,
                    });
                }
                OptionValue::Int(n)
            }
            OptionKind::Check { .. } => match value.to_ascii_lowercase().as_str() {
                "true" => OptionValue::Bool(true),
                "false" => OptionValue::Bool(false),
                _ => {
                    return Err(OptionError::NotBool {
                        value: sanitize(value, 40),
                    })
                }
            },
            OptionKind::Combo { vars, .. } => vars
                .iter()
                .find(|v| v.eq_ignore_ascii_case(value))
                .map(|v| OptionValue::Combo(v))
                .ok_or_else(|| OptionError::NotAChoice {
                    value: sanitize(value, 40),
                    vars,
                })?,
            OptionKind::Text { .. } => OptionValue::Text(if value == "<empty>" {
                String::new()
            } else {
                value.to_string()
            }),
        };
        self.check(&v)?;
        Ok(v)
    }

    /// Checks a typed value (from [`OptionSpec::parse`] or an in-process caller) against the
    /// option's type and range. A combo value is also given its canonical spelling.
    pub fn check(&self, v: &OptionValue) -> Result<(), OptionError> {
        let wrong_type = || OptionError::WrongType {
            option: self.usi_name,
        };
        match (self.kind, v) {
            (OptionKind::Spin { min, max, .. }, OptionValue::Int(n)) => {
                if *n < min || *n > max {
                    return Err(OptionError::OutOfRange {
                        value: n.to_string(),
                        min,
                        max,
                    });
                }
                Ok(())
            }
            (OptionKind::Check { .. }, OptionValue::Bool(_)) => Ok(()),
            (OptionKind::Combo { vars, .. }, OptionValue::Combo(c)) => {
                if vars.contains(c) {
                    Ok(())
                } else {
                    Err(OptionError::NotAChoice {
                        value: sanitize(c, 40),
                        vars,
                    })
                }
            }
            (OptionKind::Text { .. }, OptionValue::Text(_)) => Ok(()),
            _ => Err(wrong_type()),
        }
    }
}

impl OptionKind {
    /// The default as a value.
    pub fn default_value(&self) -> OptionValue {
        match *self {
            OptionKind::Spin { default, .. } => OptionValue::Int(default),
            OptionKind::Check { default } => OptionValue::Bool(default),
            OptionKind::Combo { default, .. } => OptionValue::Combo(default),
            OptionKind::Text { default } => OptionValue::Text(default.to_string()),
        }
    }
}

/// The spec of an option by its id.
pub fn spec(id: OptionId) -> &'static OptionSpec {
    OPTIONS
        .iter()
        .find(|o| o.id == id)
        .expect("every option id has a table row")
}

/// The option called `name` in either dialect (or by an alias), without regard to case.
pub fn find(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS.iter().find(|o| o.matches(name.trim()))
}

/// An integer as options and `go` parameters take it: an optional sign and decimal digits,
/// nothing else (no fraction, no exponent, no spaces). Magnitudes beyond `i64` saturate, so
/// that a range check can still quote the value as too large.
pub fn parse_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0i64, |v, b| {
        v.saturating_mul(10).saturating_add(i64::from(b - b'0'))
    });
    Some(if negative { -magnitude } else { magnitude })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Int(i64),
    Bool(bool),
    Combo(&'static str),
    Text(String),
}

impl From<i64> for OptionValue {
    fn from(n: i64) -> Self {
        OptionValue::Int(n)
    }
}
impl From<usize> for OptionValue {
    fn from(n: usize) -> Self {
        n.to_value()
    }
}
impl From<u8> for OptionValue {
    fn from(n: u8) -> Self {
        OptionValue::Int(n.into())
    }
}
impl From<bool> for OptionValue {
    fn from(b: bool) -> Self {
        OptionValue::Bool(b)
    }
}
impl From<SennichiteRule> for OptionValue {
    fn from(r: SennichiteRule) -> Self {
        r.to_value()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    Unknown(String),
    NotInteger {
        value: String,
    },
    OutOfRange {
        value: String,
        min: i64,
        max: i64,
    },
    NotBool {
        value: String,
    },
    NotAChoice {
        value: String,
        vars: &'static [&'static str],
    },
    /// A typed value of another type than the option's.
    WrongType {
        option: &'static str,
    },
    /// The option cannot change while a search runs.
    Busy,
    /// The network file could not be used; the evaluation stays as it was.
    EvalFile(String),
    /// The hash table could not be allocated; the engine kept a table of `kept_mb`.
    OutOfMemory {
        wanted_mb: usize,
        kept_mb: usize,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Unknown(name) => write!(f, "unknown option '{name}'"),
            OptionError::NotInteger { value } => write!(f, "'{value}' is not a whole number"),
            OptionError::OutOfRange { value, min, max } => {
                write!(f, "'{value}' is out of range {min}..{max}")
            }
            OptionError::NotBool { value } => write!(f, "'{value}' is not true or false"),
            OptionError::NotAChoice { value, vars } => {
                write!(f, "'{value}' is not one of {}", vars.join(", "))
            }
            OptionError::WrongType { option } => write!(f, "wrong type of value for {option}"),
            OptionError::Busy => write!(f, "cannot be changed while a search runs"),
            OptionError::EvalFile(e) => write!(f, "{e}; the evaluation is unchanged"),
            OptionError::OutOfMemory { wanted_mb, kept_mb } => write!(
                f,
                "not enough memory for a {wanted_mb} MB hash table; kept a {kept_mb} MB table"
            ),
        }
    }
}
impl std::error::Error for OptionError {}

impl EngineOptions {
    /// The options of a search, in the one place they are copied into a [`SearchConfig`].
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            multipv: self.multipv,
            sennichite: self.sennichite,
            move_overhead: self.move_overhead,
            verbose: true,
            skill_level: self.effective_skill_level(),
            mate_probe: true,
            params: SearchParams::default(),
        }
    }

    /// The skill level the search uses: `USI_Strength`'s when `USI_LimitStrength` is on,
    /// otherwise `SkillLevel`.
    pub fn effective_skill_level(&self) -> u8 {
        if self.limit_strength {
            strength_to_skill_level(self.strength)
        } else {
            self.skill_level
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_only() {
        assert_eq!(parse_integer("12"), Some(12));
        assert_eq!(parse_integer("-1"), Some(-1));
        assert_eq!(parse_integer("+3"), Some(3));
        assert_eq!(parse_integer("99999999999999999999"), Some(i64::MAX));
        assert_eq!(parse_integer("-99999999999999999999"), Some(-i64::MAX));
        for bad in ["2.6", "1e2", "", "-", "1_000", " 1", "0x10"] {
            assert_eq!(parse_integer(bad), None, "{bad}");
        }
    }

    #[test]
    fn spins_reject_fractions_and_quote_the_input() {
        let multipv = find("multipv").unwrap();
        assert_eq!(multipv.parse("3"), Ok(OptionValue::Int(3)));
        assert!(matches!(
            multipv.parse("2.6"),
            Err(OptionError::NotInteger { .. })
        ));
        assert!(matches!(
            multipv.parse("1e2"),
            Err(OptionError::NotInteger { .. })
        ));
        let e = find("Hash").unwrap().parse("-1").unwrap_err();
        assert!(e.to_string().contains("'-1'"), "{e}");
    }

    #[test]
    fn names_in_both_dialects_and_aliases() {
        assert_eq!(find("USI_Hash").unwrap().id, OptionId::Hash);
        assert_eq!(find("hash").unwrap().id, OptionId::Hash);
        assert_eq!(find("UCI_Variant").unwrap().id, OptionId::Variant);
        assert_eq!(find("Skill Level").unwrap().id, OptionId::SkillLevel);
        assert!(find("nonsense").is_none());
        assert!(find("USI_Strength").unwrap().uci_name.is_none());
        assert_eq!(
            find("Hash").unwrap().line("Hash"),
            "option name Hash type spin default 64 min 1 max 65536"
        );
    }

    #[test]
    fn defaults_come_from_the_table() {
        let o = EngineOptions::default();
        assert_eq!(o.hash_mb, 64);
        assert_eq!(o.threads, 1);
        assert_eq!(o.multipv, 1);
        assert_eq!(o.move_overhead, 50);
        assert_eq!(o.skill_level, SKILL_FULL);
        assert_eq!(o.strength, 1);
        assert_eq!(o.sennichite, SennichiteRule::Draw);
    }

    #[test]
    fn typed_values_are_checked_like_text_and_stored_by_the_table() {
        let multipv = spec(OptionId::MultiPv);
        assert_eq!(multipv.check(&OptionValue::Int(3)), Ok(()));
        assert!(matches!(
            multipv.check(&OptionValue::Int(0)),
            Err(OptionError::OutOfRange { .. })
        ));
        assert!(matches!(
            multipv.check(&OptionValue::Bool(true)),
            Err(OptionError::WrongType { .. })
        ));
        let rule = spec(OptionId::SennichiteRule);
        assert!(rule.check(&OptionValue::Combo("gote-wins")).is_ok());
        assert!(rule.check(&OptionValue::Combo("sente-wins")).is_err());
        let mut o = EngineOptions::default();
        assert!(o.store(OptionId::MultiPv, &OptionValue::Int(3)));
        assert_eq!(o.multipv, 3);
        assert_eq!(o.get(OptionId::MultiPv), OptionValue::Int(3));
        assert!(o.store(OptionId::SennichiteRule, &OptionValue::Combo("gote-wins")));
        assert_eq!(o.sennichite, SennichiteRule::GoteWins);
        assert_eq!(
            o.get(OptionId::SennichiteRule),
            OptionValue::Combo("gote-wins")
        );
        // A value of the wrong type stores nothing.
        assert!(!o.store(OptionId::Threads, &OptionValue::Bool(true)));
        assert_eq!(o.threads, 1);
        // Every row's default is what the struct starts with.
        for row in OPTIONS {
            let v = o.get(row.id);
            let default = row.kind.default_value();
            let same = match (&v, &default) {
                (OptionValue::Text(a), OptionValue::Combo(b)) => a == b,
                _ => v == default,
            };
            assert!(
                same || row.id == OptionId::MultiPv || row.id == OptionId::SennichiteRule,
                "{row:?}: {v:?}"
            );
        }
    }
}
