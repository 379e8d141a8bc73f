//! Where settings come from: a lookup of variables by name, the process environment (after an
//! optional `.env`) in the binaries and a map in tests, and the typed readings every setting
//! uses (blank counts as unset; text, flags, whole numbers, lists, per-minute limits). Each
//! reading names its default, and `Vars` remembers the names and defaults it was asked for:
//! that is how `.env.example` is derived from the code (`crate::catalogue`).
//!
//! Hand-written on purpose, over `dotenvy`: the environment-to-struct crates (`envy`, `figment`)
//! give serde's errors ("invalid digit found in string") without the variable's floor or the
//! value quoted, take a blank value as a value, and could not tell which default each reading
//! named.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use crate::SettingError;
use crate::error::invalid;

/// The highest accepted `RATE_LIMIT_*_PER_MINUTE`: beyond it the limit means nothing.
pub const MAX_RATE_LIMIT_PER_MINUTE: i64 = 100_000;

type Lookup<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

/// The variables settings are read from.
pub struct Vars<'a> {
    lookup: Lookup<'a>,
    /// Every variable asked for so far with the default its reading named, in the order first
    /// asked (a handful per process, read once at start-up).
    asked: RefCell<Vec<Asked>>,
}

/// A variable a setting reads, with the value used when it is unset (`None`: no value, the
/// setting is off or required).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub name: String,
    pub default: Option<String>,
}

impl fmt::Debug for Vars<'_> {
    /// The lookup is a function, which has no `Debug`; values are only ever read one by one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Vars(..)")
    }
}

impl Vars<'static> {
    /// The process environment.
    #[must_use]
    pub fn environment() -> Self {
        Self::from_fn(|name| std::env::var(name).ok())
    }

    /// The process environment after loading `.env` from the working directory if there is
    /// one (a variable already set wins over the file).
    #[must_use]
    pub fn environment_with_dotenv() -> Self {
        let _ = dotenvy::dotenv();
        Self::environment()
    }

    /// A fixed map of variables (for tests).
    #[must_use]
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let map: HashMap<String, String> = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Self::from_fn(move |name| map.get(name).cloned())
    }
}

impl<'a> Vars<'a> {
    /// Variables as `lookup` finds them.
    pub fn from_fn(lookup: impl Fn(&str) -> Option<String> + 'a) -> Self {
        Self {
            lookup: Box::new(lookup),
            asked: RefCell::default(),
        }
    }

    /// The variables read so far, each with the default its reading named, in the order first
    /// read. A variable read by two readings that name different defaults is listed once per
    /// default, and in [`Vars::conflicts`].
    #[must_use]
    pub fn asked(&self) -> Vec<Asked> {
        self.asked.borrow().clone()
    }

    /// Variables read with two different defaults: a setting whose default is not in one place.
    #[must_use]
    pub fn conflicts(&self) -> Vec<String> {
        let asked = self.asked.borrow();
        let mut conflicts = Vec::new();
        for (i, a) in asked.iter().enumerate() {
            if asked[..i].iter().any(|b| b.name == a.name) && !conflicts.contains(&a.name) {
                conflicts.push(a.name.clone());
            }
        }
        conflicts
    }

    /// Notes that `name` was read with `default`. A reading without a default after one with
    /// it adds nothing (`get` then `text` of the same variable is one setting).
    fn note(&self, name: &str, default: Option<String>) {
        let mut asked = self.asked.borrow_mut();
        let earlier = asked.iter_mut().find(|a| a.name == name);
        match (earlier, default) {
            (None, default) => asked.push(Asked {
                name: name.to_owned(),
                default,
            }),
            (Some(_), None) => {}
            (Some(a), Some(d)) if a.default.is_none() => a.default = Some(d),
            (Some(a), Some(d)) if a.default.as_ref() == Some(&d) => {}
            (Some(_), Some(d)) => asked.push(Asked {
                name: name.to_owned(),
                default: Some(d),
            }),
        }
    }

    /// The value of `name`, trimmed; a blank value counts as unset. For a setting without a
    /// default (one that is off, or required, when unset).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<String> {
        self.note(name, None);
        self.value(name)
    }

    fn value(&self, name: &str) -> Option<String> {
        (self.lookup)(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }

    /// The value of `name`, `default` when unset.
    #[must_use]
    pub fn text(&self, name: &str, default: &str) -> String {
        self.note(name, Some(default.to_owned()));
        self.value(name).unwrap_or_else(|| default.to_owned())
    }

    /// A comma-separated list, each entry trimmed and lower-cased, blanks dropped.
    #[must_use]
    pub fn list(&self, name: &str) -> Vec<String> {
        self.get(name)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_ascii_lowercase())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `true`/`1`/`yes` or `false`/`0`/`no`; `default` when unset.
    ///
    /// # Errors
    /// Any other value.
    pub fn flag(&self, name: &'static str, default: bool) -> Result<bool, SettingError> {
        self.note(name, Some(default.to_string()));
        match self.value(name).as_deref() {
            None => Ok(default),
            Some("true" | "1" | "yes") => Ok(true),
            Some("false" | "0" | "no") => Ok(false),
            Some(other) => Err(invalid(
                name,
                format!("expected true or false, got {other:?}"),
            )),
        }
    }

    /// A whole number of at least `min`; `default` when unset.
    ///
    /// # Errors
    /// Anything else, quoting the value.
    pub fn number(&self, name: &'static str, default: i64, min: i64) -> Result<i64, SettingError> {
        self.note(name, Some(default.to_string()));
        match self.value(name) {
            None => Ok(default),
            Some(v) => match v.parse::<i64>() {
                Ok(n) if n >= min => Ok(n),
                _ => Err(invalid(
                    name,
                    format!("expected a whole number of at least {min}, got {v:?}"),
                )),
            },
        }
    }

    /// A `RATE_LIMIT_*_PER_MINUTE`: 0 (off) to [`MAX_RATE_LIMIT_PER_MINUTE`]; `default` when
    /// unset.
    ///
    /// # Errors
    /// Anything else, quoting the value.
    pub fn per_minute(&self, name: &'static str, default: u32) -> Result<u32, SettingError> {
        let n = self.number(name, i64::from(default), 0)?;
        if n > MAX_RATE_LIMIT_PER_MINUTE {
            return Err(invalid(
                name,
                format!(
                    "expected 0 (off) to {MAX_RATE_LIMIT_PER_MINUTE} requests per minute, got {n}"
                ),
            ));
        }
        u32::try_from(n).map_err(|e| invalid(name, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_is_unset_and_values_are_trimmed() {
        let vars = Vars::from_pairs([("A", "  x "), ("B", "   "), ("C", "")]);
        assert_eq!(vars.get("A").as_deref(), Some("x"));
        assert_eq!(vars.get("B"), None);
        assert_eq!(vars.get("C"), None);
        assert_eq!(vars.get("D"), None);
        assert_eq!(format!("{vars:?}"), "Vars(..)", "no value is printed");
    }

    #[test]
    fn flags_take_three_spellings_each_and_name_anything_else() {
        for (value, expected) in [("true", true), ("1", true), ("yes", true), ("no", false)] {
            let vars = Vars::from_pairs([("F", value)]);
            assert_eq!(vars.flag("F", !expected), Ok(expected), "{value}");
        }
        assert_eq!(Vars::from_pairs([("X", "y")]).flag("F", true), Ok(true));
        let err = Vars::from_pairs([("F", "maybe")])
            .flag("F", false)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "F is not valid: expected true or false, got \"maybe\""
        );
    }

    #[test]
    fn numbers_have_a_floor_and_quote_a_bad_value() {
        let vars = Vars::from_pairs([("N", " 7 "), ("LOW", "0"), ("BAD", "2.5")]);
        assert_eq!(vars.number("N", 1, 1), Ok(7));
        assert_eq!(vars.number("UNSET", 3, 1), Ok(3));
        for name in ["LOW", "BAD"] {
            let line = vars.number(name, 1, 1).unwrap_err().to_string();
            assert!(line.starts_with(&format!("{name} is not valid")), "{line}");
        }
    }

    #[test]
    fn per_minute_limits_run_from_zero_to_the_ceiling() {
        let vars = Vars::from_pairs([
            ("OFF", "0"),
            ("TOP", "100000"),
            ("OVER", "100001"),
            ("NEG", "-1"),
            ("WORD", "ten"),
        ]);
        assert_eq!(vars.per_minute("OFF", 5), Ok(0));
        assert_eq!(vars.per_minute("TOP", 5), Ok(100_000));
        assert_eq!(vars.per_minute("UNSET", 5), Ok(5));
        for (name, value) in [("OVER", "100001"), ("NEG", "-1"), ("WORD", "ten")] {
            let line = vars.per_minute(name, 5).unwrap_err().to_string();
            assert!(line.starts_with(&format!("{name} is not valid")), "{line}");
            assert!(line.contains(value), "{line}");
            assert!(!line.contains('\n'));
        }
    }

    #[test]
    fn every_reading_is_remembered_with_its_default_once() {
        let vars = Vars::from_pairs([("N", "7")]);
        let _ = vars.get("OPTIONAL");
        let _ = vars.number("N", 3, 1);
        let _ = vars.flag("F", true);
        let _ = vars.text("T", "x");
        let _ = vars.get("T");
        let _ = vars.per_minute("N", 3);
        let _ = vars.list("L");
        let asked: Vec<_> = vars
            .asked()
            .into_iter()
            .map(|a| (a.name, a.default))
            .collect();
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(
            asked,
            [
                ("OPTIONAL".to_owned(), None),
                ("N".to_owned(), some("3")),
                ("F".to_owned(), some("true")),
                ("T".to_owned(), some("x")),
                ("L".to_owned(), None),
            ],
            "the value set (7) is not the default"
        );
        assert!(vars.conflicts().is_empty());
    }

    #[test]
    fn a_variable_read_with_two_defaults_is_a_conflict() {
        let vars = Vars::from_pairs::<&str, &str>([]);
        let _ = vars.number("N", 3, 1);
        let _ = vars.number("N", 4, 1);
        let _ = vars.number("N", 4, 1);
        assert_eq!(vars.conflicts(), ["N"]);
    }

    #[test]
    fn lists_are_split_trimmed_and_lower_cased() {
        let vars = Vars::from_pairs([("L", "Ada@Example.org, ,bob@x.y ")]);
        assert_eq!(vars.list("L"), ["ada@example.org", "bob@x.y"]);
        assert!(vars.list("UNSET").is_empty());
    }
}
