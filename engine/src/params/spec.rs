//! What a tunable is: one scalar entry of a parameter table ([`ParamSpec`]:
//! name, kind, default, range, SPSA step, meaning), how its text form is
//! parsed and checked, and the errors that name it. The search table
//! ([`crate::params`]) and the evaluation weight table
//! ([`crate::eval::weights`]) both describe their entries with it; it
//! depends on neither.

use std::fmt::Write as _;

use thiserror::Error;

/// How a parameter's integer value is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer within the entry's range.
    Int,
    /// A switch: 0 is false, 1 true.
    Bool,
    /// A small enum; the value is the index into these names.
    Choice(&'static [&'static str]),
}

/// One scalar entry of a parameter table.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// The one snake_case name (struct field, YAML key, UCI option, SPSA line).
    pub name: String,
    /// How the value is read.
    pub kind: ParamKind,
    /// The built-in value.
    pub default: i32,
    /// Smallest allowed value.
    pub min: i32,
    /// Largest allowed value.
    pub max: i32,
    /// SPSA perturbation at the end of a tune (OpenBench's `c_end`).
    pub c_end: f64,
    /// SPSA learning rate at the end of a tune (OpenBench's `r_end`).
    pub r_end: f64,
    /// One-line meaning, shown in the UCI option list and the docs.
    pub doc: &'static str,
}

impl ParamSpec {
    /// Whether SPSA may tune this entry (integers only; switches are for A/B).
    pub fn tunable(&self) -> bool {
        self.kind == ParamKind::Int && self.min < self.max
    }

    /// Text form of `value` as UCI and YAML show it.
    pub fn format_value(&self, value: i32) -> String {
        match self.kind {
            ParamKind::Int => value.to_string(),
            ParamKind::Bool => (value != 0).to_string(),
            ParamKind::Choice(names) => names
                .get(value as usize)
                .map_or_else(|| value.to_string(), |s| (*s).to_string()),
        }
    }

    /// Parse a value from text (UCI `setoption`, command line), checking range.
    pub fn parse_value(&self, text: &str) -> Result<i32, ParamError> {
        let text = text.trim();
        let value = match self.kind {
            ParamKind::Int => text.parse::<i64>().map_err(|_| self.invalid(text))?,
            ParamKind::Bool => match text.to_ascii_lowercase().as_str() {
                "true" | "1" | "on" | "yes" => 1,
                "false" | "0" | "off" | "no" => 0,
                _ => return Err(self.invalid(text)),
            },
            ParamKind::Choice(names) => names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(text))
                .ok_or_else(|| self.invalid(text))? as i64,
        };
        self.check(value)
    }

    /// Range-check an integer value.
    pub fn check(&self, value: i64) -> Result<i32, ParamError> {
        if value < self.min as i64 || value > self.max as i64 {
            return Err(ParamError::OutOfRange {
                name: self.name.clone(),
                value: value.to_string(),
                allowed: self.allowed(),
            });
        }
        Ok(value as i32)
    }

    /// Human-readable description of the allowed values.
    pub fn allowed(&self) -> String {
        match self.kind {
            ParamKind::Int => format!("{}..={}", self.min, self.max),
            ParamKind::Bool => "true or false".to_string(),
            ParamKind::Choice(names) => names.join(" | "),
        }
    }

    fn invalid(&self, text: &str) -> ParamError {
        ParamError::InvalidValue {
            name: self.name.clone(),
            value: text.to_string(),
            allowed: self.allowed(),
        }
    }

    /// The `option name ...` line of the UCI `uci` answer.
    pub fn uci_option(&self, current: i32) -> String {
        match self.kind {
            ParamKind::Int => format!(
                "option name {} type spin default {} min {} max {}",
                self.name, current, self.min, self.max
            ),
            ParamKind::Bool => {
                format!(
                    "option name {} type check default {}",
                    self.name,
                    current != 0
                )
            }
            ParamKind::Choice(names) => {
                let mut line = format!(
                    "option name {} type combo default {}",
                    self.name,
                    self.format_value(current)
                );
                for n in names {
                    let _ = write!(line, " var {n}");
                }
                line
            }
        }
    }
}

/// Errors from setting or loading parameters. Each names the key.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// No parameter (current or former name) is called this.
    #[error("unknown parameter '{0}'")]
    Unknown(String),
    /// A number outside the parameter's range.
    #[error("parameter '{name}': value {value} is out of range (allowed: {allowed})")]
    OutOfRange {
        /// The parameter.
        name: String,
        /// The value as given.
        value: String,
        /// The allowed range.
        allowed: String,
    },
    /// A value of the wrong form (not a number, not a known choice).
    #[error("parameter '{name}': invalid value '{value}' (allowed: {allowed})")]
    InvalidValue {
        /// The parameter.
        name: String,
        /// The value as given.
        value: String,
        /// The allowed values.
        allowed: String,
    },
    /// An error in a parameter file, named by the file.
    #[error("{origin}: {source}")]
    InFile {
        /// The file (or other source) of the entry.
        origin: String,
        /// What was wrong with the entry.
        #[source]
        source: Box<ParamError>,
    },
    /// A file that is not a YAML mapping of names to values.
    #[error("{origin}: not a valid parameter file: {reason}")]
    Syntax {
        /// The file.
        origin: String,
        /// The parser's message.
        reason: String,
    },
    /// A file that cannot be read.
    #[error("{origin}: cannot read: {reason}")]
    Io {
        /// The file.
        origin: String,
        /// The system's message.
        reason: String,
    },
}

/// A value type a search parameter can have: `i32`, `bool` or an enum
/// declared with [`param_enum!`](crate::param_enum).
pub trait ParamValue: Copy {
    /// How the table reads values of this type.
    const KIND: ParamKind;
    /// The value as the table's integer.
    fn to_i32(self) -> i32;
    /// The value of a (range-checked) table integer.
    fn from_i32(v: i32) -> Self;
    /// Natural range when the table gives none (booleans, enums).
    fn natural_range() -> (i32, i32);
}

impl ParamValue for i32 {
    const KIND: ParamKind = ParamKind::Int;
    fn to_i32(self) -> i32 {
        self
    }
    fn from_i32(v: i32) -> Self {
        v
    }
    fn natural_range() -> (i32, i32) {
        (i32::MIN, i32::MAX)
    }
}

impl ParamValue for bool {
    const KIND: ParamKind = ParamKind::Bool;
    fn to_i32(self) -> i32 {
        self as i32
    }
    fn from_i32(v: i32) -> Self {
        v != 0
    }
    fn natural_range() -> (i32, i32) {
        (0, 1)
    }
}

/// Declare a small enum usable as a parameter (a UCI `combo`).
#[macro_export]
macro_rules! param_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Each variant's text form, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// This variant's text form.
            pub fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }
        }

        impl $crate::params::spec::ParamValue for $name {
            const KIND: $crate::params::spec::ParamKind = $crate::params::spec::ParamKind::Choice(Self::NAMES);
            fn to_i32(self) -> i32 {
                self as i32
            }
            fn from_i32(v: i32) -> Self {
                Self::ALL[(v.max(0) as usize).min(Self::ALL.len() - 1)]
            }
            fn natural_range() -> (i32, i32) {
                (0, Self::ALL.len() as i32 - 1)
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __param_range {
    ($ty:ty;) => {
        <$ty as $crate::params::spec::ParamValue>::natural_range()
    };
    ($ty:ty; $min:expr, $max:expr) => {
        ($min, $max)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __param_cend {
    ($lo:expr, $hi:expr;) => {
        // Stockfish's TUNE default: a twentieth of the range.
        ((($hi as f64) - ($lo as f64)) / 20.0).max(0.5)
    };
    ($lo:expr, $hi:expr; $c:expr) => {
        $c as f64
    };
}
