//! Read-only questions about an expression (variables, values) and substitution.

use crate::canon;
use crate::expr::{Atom, Expr};
use std::collections::{BTreeMap, BTreeSet};

/// Evaluation failed because a variable has no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("unknown variable `{0}`: give it a value (e.g. --at {0}=1024)")]
    UnknownVariable(String),
}

impl Atom {
    /// The argument expressions of this atom (none for a variable).
    pub fn args(&self) -> Vec<&Expr> {
        match self {
            Atom::Var(_) => Vec::new(),
            Atom::Log2(x) | Atom::Ceil(x) | Atom::Floor(x) | Atom::Pow(x) => vec![x],
            Atom::Dims { n, .. } => vec![n],
            Atom::Max(l) | Atom::Min(l) => l.iter().collect(),
        }
    }
}

impl Expr {
    /// Every variable name occurring anywhere, sorted.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        for t in &self.terms {
            for (a, _) in &t.factors {
                match a {
                    Atom::Var(v) => {
                        out.insert(v.clone());
                    }
                    other => other.args().into_iter().for_each(|x| x.collect_vars(out)),
                }
            }
        }
    }

    pub fn contains_var(&self, name: &str) -> bool {
        self.terms
            .iter()
            .any(|t| t.factors.iter().any(|(a, _)| atom_contains(a, name)))
    }

    /// Replace variable `name` by `value` everywhere and re-canonicalise.
    pub fn subs(&self, name: &str, value: &Expr) -> Expr {
        if !self.contains_var(name) {
            return self.clone();
        }
        let mut map = BTreeMap::new();
        map.insert(name.to_string(), value.clone());
        self.subs_all(&map)
    }

    /// Replace several variables simultaneously.
    pub fn subs_all(&self, map: &BTreeMap<String, Expr>) -> Expr {
        if !map.keys().any(|k| self.contains_var(k)) {
            return self.clone();
        }
        canon::map_atoms(self, &mut |a| subs_atom(a, map))
    }

    /// Replace every occurrence of the atom `target` (anywhere, also inside arguments) by `value`.
    pub fn replace_atom(&self, target: &Atom, value: &Expr) -> Expr {
        canon::map_atoms(self, &mut |a| {
            if a == target {
                value.clone()
            } else {
                canon::rebuild_atom(a, &mut |x| x.replace_atom(target, value))
            }
        })
    }

    /// Evaluate with values from a lookup function.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
        let mut sum = 0.0;
        for t in &self.terms {
            let mut p = t.coef.0;
            for (a, q) in &t.factors {
                p *= q.pow_f64(eval_atom(a, lookup)?);
            }
            sum += p;
        }
        Ok(sum)
    }

    /// Evaluate with values from a map.
    pub fn eval_map(&self, values: &BTreeMap<String, f64>) -> Result<f64, EvalError> {
        self.eval(&|v| values.get(v).copied())
    }
}

fn atom_contains(a: &Atom, name: &str) -> bool {
    match a {
        Atom::Var(v) => v == name,
        other => other.args().into_iter().any(|x| x.contains_var(name)),
    }
}

fn subs_atom(a: &Atom, map: &BTreeMap<String, Expr>) -> Expr {
    match a {
        Atom::Var(v) => map.get(v).cloned().unwrap_or_else(|| Expr::var(v)),
        other => canon::rebuild_atom(other, &mut |x| x.subs_all(map)),
    }
}

pub(crate) fn eval_atom(a: &Atom, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
    Ok(match a {
        Atom::Var(v) => lookup(v).ok_or_else(|| EvalError::UnknownVariable(v.clone()))?,
        Atom::Log2(x) => x.eval(lookup)?.log2(),
        Atom::Max(l) => {
            let mut m = f64::NEG_INFINITY;
            for x in l {
                m = m.max(x.eval(lookup)?);
            }
            m
        }
        Atom::Min(l) => {
            let mut m = f64::INFINITY;
            for x in l {
                m = m.min(x.eval(lookup)?);
            }
            m
        }
        Atom::Ceil(x) => ceil(x.eval(lookup)?),
        Atom::Floor(x) => floor(x.eval(lookup)?),
        Atom::Dims { n, d, rule, k } => crate::dims::extent(*rule, n.eval(lookup)?, *d, *k),
        Atom::Pow(x) => x.eval(lookup)?,
    })
}

/// ⌊x⌋ of a value that is an integer in exact arithmetic but reached through fractions in
/// floating point (`floor((N - 1)/NB)` evaluates `N/NB - 1/NB`: 10/3 − 1/3 is 2.9999999999999996
/// at N = 10, NB = 3): within a few ulps of an integer, that integer. The floors and ceilings
/// of a model are of integer divisions and counts, where such a value is exact.
pub(crate) fn floor(x: f64) -> f64 {
    let r = x.round();
    if (x - r).abs() <= 1e-9 * r.abs().max(1.0) {
        r
    } else {
        x.floor()
    }
}

/// ⌈x⌉, as [`floor`] snapping values a few ulps from an integer to it.
pub(crate) fn ceil(x: f64) -> f64 {
    -floor(-x)
}
