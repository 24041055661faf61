//! The `Expr` data type: a canonical sum of terms `c·∏ atom^q`, built only through constructors
//! (see `canon.rs`) so that structural equality is mathematical equality for everything the
//! rewrite rules cover.

use crate::rational::Rational;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// An f64 coefficient with a total order and bitwise hashing so `Expr` can be `Eq + Ord + Hash`.
/// Invariant: never `-0.0` (constructors add `0.0`, which turns `-0.0` into `0.0`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Coef(pub(crate) f64);

impl Coef {
    /// All NaNs compare equal (their sign and payload bits vary with how they arose).
    fn key(self) -> f64 {
        if self.0.is_nan() {
            f64::NAN
        } else {
            self.0
        }
    }
}

impl PartialEq for Coef {
    fn eq(&self, other: &Self) -> bool {
        self.key().total_cmp(&other.key()) == Ordering::Equal
    }
}
impl Eq for Coef {}
impl PartialOrd for Coef {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Coef {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().total_cmp(&other.key())
    }
}
impl Hash for Coef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().to_bits().hash(state);
    }
}

/// A factor that is not a plain number. Arguments are themselves canonical.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    /// A named positive real parameter.
    Var(String),
    /// `log2(arg)`; `arg` is never a monomial (those expand into sums of logs).
    Log2(Box<Expr>),
    /// `max(args)`: ≥ 2 args, flattened, sorted, deduplicated, at most one constant.
    Max(Vec<Expr>),
    /// `min(args)`: same invariants as `Max`.
    Min(Vec<Expr>),
    Ceil(Box<Expr>),
    Floor(Box<Expr>),
    /// `dims(n, d, k)`: the k-th extent (from 0) of `MPI_Dims_create(n, d, dims)` with `dims`
    /// zeroed, as `rule`'s library factors `n` (see `dims.rs`; SimGrid's prints `smpi_dims`);
    /// `1 ≤ k + 1 ≤ d ≤ 8`, `d ≥ 2`, `n` not a constant. Only the product of all `d` extents
    /// of one rule, `n`, is known symbolically. `rule` comes before `k` so that one grid's
    /// extents sort together.
    Dims {
        n: Box<Expr>,
        d: u32,
        rule: crate::DimsRule,
        k: u32,
    },
    /// A non-monomial sum used as a power base: no common variable factor, dominant (first-printed) term with coefficient ±1.
    Pow(Box<Expr>),
}

/// One term `coef · ∏ atom^exp`: factors sorted by atom, no repeated atom, no zero exponent.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term {
    pub(crate) factors: Vec<(Atom, Rational)>,
    pub(crate) coef: Coef,
}

impl Term {
    pub fn coef(&self) -> f64 {
        self.coef.0
    }

    /// The `(atom, exponent)` factors, sorted by atom.
    pub fn factors(&self) -> &[(Atom, Rational)] {
        &self.factors
    }

    pub fn is_constant(&self) -> bool {
        self.factors.is_empty()
    }

    /// The term with coefficient 1 (its monomial) as an expression.
    pub fn monomial(&self) -> Expr {
        crate::canon::term_expr(1.0, self.factors.clone())
    }
}

/// A symbolic expression over positive real parameters.
///
/// Invariant: `terms` sorted by factor list with no two terms sharing one, no zero coefficient;
/// the empty sum is zero. Build with the constructors and operators only.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Expr {
    pub(crate) terms: Vec<Term>,
}

impl Expr {
    pub fn zero() -> Expr {
        Expr { terms: Vec::new() }
    }

    pub fn one() -> Expr {
        Expr::num(1.0)
    }

    pub fn num(c: f64) -> Expr {
        let c = c + 0.0;
        if c == 0.0 {
            return Expr::zero();
        }
        Expr {
            terms: vec![Term {
                factors: Vec::new(),
                coef: Coef(c),
            }],
        }
    }

    pub fn int(n: i64) -> Expr {
        Expr::num(n as f64)
    }

    pub fn var(name: &str) -> Expr {
        Expr {
            terms: vec![Term {
                factors: vec![(Atom::Var(name.to_string()), Rational::ONE)],
                coef: Coef(1.0),
            }],
        }
    }

    /// The terms in canonical (storage) order.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value when the expression is a number.
    pub fn as_const(&self) -> Option<f64> {
        match self.terms.as_slice() {
            [] => Some(0.0),
            [t] if t.factors.is_empty() => Some(t.coef.0),
            _ => None,
        }
    }

    /// The single atom when the expression is exactly `atom^1` with coefficient 1.
    pub fn as_atom(&self) -> Option<&Atom> {
        match self.terms.as_slice() {
            [t] if t.coef.0 == 1.0 && t.factors.len() == 1 && t.factors[0].1 == Rational::ONE => {
                Some(&t.factors[0].0)
            }
            _ => None,
        }
    }

    /// The variable name when the expression is exactly one variable.
    pub fn as_var(&self) -> Option<&str> {
        match self.as_atom() {
            Some(Atom::Var(v)) => Some(v),
            _ => None,
        }
    }

    pub fn pow(&self, q: Rational) -> Expr {
        crate::canon::pow(self, q)
    }

    pub fn powi(&self, n: i64) -> Expr {
        crate::canon::pow(self, Rational::int(n))
    }

    pub fn sqrt(&self) -> Expr {
        crate::canon::pow(self, Rational::HALF)
    }

    pub fn log2(&self) -> Expr {
        crate::canon::log2(self)
    }

    /// Natural logarithm, normalised to `log2(e)·ln 2`.
    pub fn ln(e: &Expr) -> Expr {
        crate::canon::log2(e) * Expr::num(std::f64::consts::LN_2)
    }

    /// Decimal logarithm, normalised to `log2(e)·log10 2`.
    pub fn log10(e: &Expr) -> Expr {
        crate::canon::log2(e) * Expr::num(std::f64::consts::LOG10_2)
    }

    pub fn max(a: Expr, b: Expr) -> Expr {
        crate::canon::max_of(vec![a, b])
    }

    pub fn min(a: Expr, b: Expr) -> Expr {
        crate::canon::min_of(vec![a, b])
    }

    /// `max` of any non-empty list (empty gives zero).
    /// A lower bound of the expression over positive variable values, each variable at least
    /// `var(name)`; `-inf` when none is shown (the rules: `canon::lower_bound`).
    pub fn lower_bound_with(&self, var: &dyn Fn(&str) -> f64) -> f64 {
        crate::canon::lower_bound_with(self, var)
    }

    pub fn max_of(args: Vec<Expr>) -> Expr {
        crate::canon::max_of(args)
    }

    pub fn min_of(args: Vec<Expr>) -> Expr {
        crate::canon::min_of(args)
    }

    pub fn ceil(&self) -> Expr {
        crate::canon::ceil(self)
    }

    pub fn floor(&self) -> Expr {
        crate::canon::floor(self)
    }

    /// `dims(n, d, k)`, the k-th extent of Open MPI's `MPI_Dims_create(n, d)` (see
    /// [`Atom::Dims`]): a number when `n` is one, `n` itself when `d = 1`; `None` unless
    /// `k < d ≤ 8`.
    pub fn dims(n: &Expr, d: u32, k: u32) -> Option<Expr> {
        crate::canon::dims(crate::DimsRule::OpenMpi, n, d, k)
    }

    /// As [`Expr::dims`], the extent `rule`'s library gives.
    pub fn dims_by(rule: crate::DimsRule, n: &Expr, d: u32, k: u32) -> Option<Expr> {
        crate::canon::dims(rule, n, d, k)
    }

    /// Rebuild an expression from one atom (re-canonicalising it).
    pub fn from_atom(a: &Atom) -> Expr {
        crate::canon::atom_expr(a)
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident, $f:path) => {
        impl std::ops::$tr<Expr> for Expr {
            type Output = Expr;
            fn $m(self, rhs: Expr) -> Expr {
                $f(&self, &rhs)
            }
        }
        impl std::ops::$tr<&Expr> for Expr {
            type Output = Expr;
            fn $m(self, rhs: &Expr) -> Expr {
                $f(&self, rhs)
            }
        }
        impl std::ops::$tr<Expr> for &Expr {
            type Output = Expr;
            fn $m(self, rhs: Expr) -> Expr {
                $f(self, &rhs)
            }
        }
        impl std::ops::$tr<&Expr> for &Expr {
            type Output = Expr;
            fn $m(self, rhs: &Expr) -> Expr {
                $f(self, rhs)
            }
        }
    };
}

binop!(Add, add, crate::canon::add);
binop!(Sub, sub, crate::canon::sub);
binop!(Mul, mul, crate::canon::mul);
binop!(Div, div, crate::canon::div);

impl std::ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        crate::canon::scale(&self, -1.0)
    }
}

impl std::ops::Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        crate::canon::scale(self, -1.0)
    }
}

impl From<f64> for Expr {
    fn from(c: f64) -> Self {
        Expr::num(c)
    }
}

impl From<i64> for Expr {
    fn from(n: i64) -> Self {
        Expr::int(n)
    }
}

impl std::iter::Sum for Expr {
    fn sum<I: Iterator<Item = Expr>>(iter: I) -> Expr {
        iter.fold(Expr::zero(), |a, b| a + b)
    }
}

impl std::iter::Product for Expr {
    fn product<I: Iterator<Item = Expr>>(iter: I) -> Expr {
        iter.fold(Expr::one(), |a, b| a * b)
    }
}
