//! The engine's options, declared once: [`OPTIONS`] gives each option's name in both dialects,
//! its type, default and range. The same table produces the `option` lines after `usi`/`uci`
//! (through the front ends) and checks every `setoption`; [`EngineOptions`] holds the values.
//!
//! Integer options take integers only (`2.6` and `1e2` are errors, not 3 and 100); errors quote
//! what was sent.

use crate::event::sanitize;
use crate::game::SennichiteRule;
use crate::params::SKILL_FULL;
use crate::search::strength_to_skill_level;
use std::fmt;

/// Which option a table row is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptionId {
    Hash,
    Ponder,
    Threads,
    MultiPv,
    SennichiteRule,
    MaxMovesToDraw,
    MoveOverhead,
    Variant,
    SkillLevel,
    LimitStrength,
    Strength,
    UseNnue,
    EvalFile,
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
}

pub const HASH_MAX_MB: i64 = 65536;
pub const THREADS_MAX: i64 = 256;
pub const MULTIPV_MAX: i64 = 500;
/// `USI_Strength`: -20 ..= -1 kyu grades, 1 ..= 5 dan grades (0 reads as 1 kyu).
pub const STRENGTH_MIN: i64 = -20;
pub const STRENGTH_MAX: i64 = 5;

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        id: OptionId::Hash,
        usi_name: "USI_Hash",
        uci_name: Some("Hash"),
        aliases: &["hash"],
        kind: OptionKind::Spin {
            default: 64,
            min: 1,
            max: HASH_MAX_MB,
        },
    },
    OptionSpec {
        id: OptionId::Ponder,
        usi_name: "USI_Ponder",
        uci_name: Some("Ponder"),
        aliases: &["ponder"],
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::Threads,
        usi_name: "Threads",
        uci_name: Some("Threads"),
        aliases: &[],
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: THREADS_MAX,
        },
    },
    OptionSpec {
        id: OptionId::MultiPv,
        usi_name: "MultiPV",
        uci_name: Some("MultiPV"),
        aliases: &["usi_multipv"],
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: MULTIPV_MAX,
        },
    },
    OptionSpec {
        id: OptionId::SennichiteRule,
        usi_name: "SennichiteRule",
        uci_name: Some("SennichiteRule"),
        aliases: &[],
        kind: OptionKind::Combo {
            default: "draw",
            vars: &["draw", "gote-wins"],
        },
    },
    OptionSpec {
        id: OptionId::MaxMovesToDraw,
        usi_name: "MaxMovesToDraw",
        uci_name: Some("MaxMovesToDraw"),
        aliases: &[],
        kind: OptionKind::Spin {
            default: 0,
            min: 0,
            max: 100_000,
        },
    },
    OptionSpec {
        id: OptionId::MoveOverhead,
        usi_name: "MoveOverhead",
        uci_name: Some("MoveOverhead"),
        aliases: &["move overhead", "move_overhead"],
        kind: OptionKind::Spin {
            default: 50,
            min: 0,
            max: 10_000,
        },
    },
    OptionSpec {
        id: OptionId::Variant,
        usi_name: "USI_Variant",
        uci_name: Some("UCI_Variant"),
        aliases: &[],
        kind: OptionKind::Combo {
            default: "minishogi",
            vars: &["minishogi"],
        },
    },
    OptionSpec {
        id: OptionId::SkillLevel,
        usi_name: "SkillLevel",
        uci_name: Some("SkillLevel"),
        aliases: &["skill level"],
        kind: OptionKind::Spin {
            default: SKILL_FULL as i64,
            min: 0,
            max: SKILL_FULL as i64,
        },
    },
    OptionSpec {
        id: OptionId::LimitStrength,
        usi_name: "USI_LimitStrength",
        uci_name: None,
        aliases: &["uci_limitstrength", "limitstrength"],
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::Strength,
        usi_name: "USI_Strength",
        uci_name: None,
        aliases: &["strength"],
        kind: OptionKind::Spin {
            default: 1,
            min: STRENGTH_MIN,
            max: STRENGTH_MAX,
        },
    },
    OptionSpec {
        id: OptionId::UseNnue,
        usi_name: "UseNNUE",
        uci_name: Some("UseNNUE"),
        aliases: &["use nnue"],
        kind: OptionKind::Check { default: true },
    },
    OptionSpec {
        id: OptionId::EvalFile,
        usi_name: "EvalFile",
        uci_name: Some("EvalFile"),
        aliases: &[],
        kind: OptionKind::Text { default: "" },
    },
];

/// The protocol an option line is written for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    Usi,
    Uci,
}

impl OptionSpec {
    /// The name in `dialect`, or `None` when the option is not offered there.
    pub fn name(&self, dialect: Dialect) -> Option<&'static str> {
        match dialect {
            Dialect::Usi => Some(self.usi_name),
            Dialect::Uci => self.uci_name,
        }
    }

    /// The `option name ...` line in `dialect`.
    pub fn line(&self, dialect: Dialect) -> Option<String> {
        let name = self.name(dialect)?;
        Some(match self.kind {
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
        })
    }

    fn matches(&self, name: &str) -> bool {
        self.usi_name.eq_ignore_ascii_case(name)
            || self.uci_name.is_some_and(|n| n.eq_ignore_ascii_case(name))
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }

    /// Checks `value` against the option's type and range.
    pub fn parse(&self, value: &str) -> Result<OptionValue, OptionError> {
        let value = value.trim();
        match self.kind {
            OptionKind::Spin { min, max, .. } => {
                let n = parse_integer(value).ok_or_else(|| OptionError::NotInteger {
                    value: sanitize(value, 40),
                })?;
                if n < min || n > max {
                    return Err(OptionError::OutOfRange {
                        value: sanitize(value, 40),
                        min,
                        max,
                    });
                }
                Ok(OptionValue::Int(n))
            }
            OptionKind::Check { .. } => match value.to_ascii_lowercase().as_str() {
                "true" => Ok(OptionValue::Bool(true)),
                "false" => Ok(OptionValue::Bool(false)),
                _ => Err(OptionError::NotBool {
                    value: sanitize(value, 40),
                }),
            },
            OptionKind::Combo { vars, .. } => vars
                .iter()
                .find(|v| v.eq_ignore_ascii_case(value))
                .map(|v| OptionValue::Combo(v))
                .ok_or_else(|| OptionError::NotAChoice {
                    value: sanitize(value, 40),
                    vars,
                }),
            OptionKind::Text { .. } => Ok(OptionValue::Text(if value == "<empty>" {
                String::new()
            } else {
                value.to_string()
            })),
        }
    }
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

/// The values of all options.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    pub hash_mb: usize,
    pub ponder: bool,
    pub threads: usize,
    pub multipv: usize,
    pub sennichite: SennichiteRule,
    pub max_moves_to_draw: u32,
    pub move_overhead: u64,
    /// `SkillLevel`: 0 ..= `SKILL_FULL` (full strength).
    pub skill_level: u8,
    /// `USI_LimitStrength`: play at the level of `USI_Strength` instead of `SkillLevel`.
    pub limit_strength: bool,
    pub strength: i32,
    /// `UseNNUE`: evaluate with the network (else the handcrafted evaluation).
    pub use_nnue: bool,
    /// `EvalFile`: the network file in use; empty for the net embedded in the binary.
    pub eval_file: String,
}

impl Default for EngineOptions {
    fn default() -> Self {
        let mut o = EngineOptions {
            hash_mb: 0,
            ponder: false,
            threads: 0,
            multipv: 0,
            sennichite: SennichiteRule::Draw,
            max_moves_to_draw: 0,
            move_overhead: 0,
            skill_level: 0,
            limit_strength: false,
            strength: 0,
            use_nnue: false,
            eval_file: String::new(),
        };
        // The defaults come from the table, so they are written in one place.
        for spec in OPTIONS {
            let v = match spec.kind {
                OptionKind::Spin { default, .. } => OptionValue::Int(default),
                OptionKind::Check { default } => OptionValue::Bool(default),
                OptionKind::Combo { default, .. } => OptionValue::Combo(default),
                OptionKind::Text { default } => OptionValue::Text(default.to_string()),
            };
            o.store(spec.id, v);
        }
        o
    }
}

impl EngineOptions {
    /// Stores a value already checked by [`OptionSpec::parse`] (the hash size is stored here
    /// too; allocating the table is the engine's job).
    pub fn store(&mut self, id: OptionId, v: OptionValue) {
        let int = match v {
            OptionValue::Int(n) => n,
            _ => 0,
        };
        if let (OptionId::EvalFile, OptionValue::Text(t)) = (id, &v) {
            self.eval_file = t.clone();
            return;
        }
        let flag = matches!(v, OptionValue::Bool(true));
        match id {
            OptionId::Hash => self.hash_mb = int as usize,
            OptionId::Ponder => self.ponder = flag,
            OptionId::Threads => self.threads = int as usize,
            OptionId::MultiPv => self.multipv = int as usize,
            OptionId::SennichiteRule => {
                if let OptionValue::Combo(name) = v {
                    self.sennichite = SennichiteRule::parse(name).unwrap_or_default();
                }
            }
            OptionId::MaxMovesToDraw => self.max_moves_to_draw = int as u32,
            OptionId::MoveOverhead => self.move_overhead = int as u64,
            OptionId::Variant => {}
            OptionId::SkillLevel => self.skill_level = int as u8,
            OptionId::LimitStrength => self.limit_strength = flag,
            OptionId::Strength => self.strength = int as i32,
            OptionId::UseNnue => self.use_nnue = flag,
            OptionId::EvalFile => {}
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
        assert!(find("USI_Strength").unwrap().line(Dialect::Uci).is_none());
        assert_eq!(
            find("Hash").unwrap().line(Dialect::Uci).unwrap(),
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
}
