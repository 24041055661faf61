//! The rewrite rules that keep `Expr` canonical: every constructor and operator ends here.
//!
//! Rules (variables are positive reals, so `(a·b)^q = a^q·b^q` holds for them):
//! like terms merge; products distribute over sums; a sum raised to an integer power 1..=4
//! expands (when small); any other power of a sum becomes `c^q · g^q · Pow(base)^q` with `g` the
//! common variable factor and `base` scaled so its dominant term has coefficient ±1; `log2` of a product
//! becomes a sum of logs; `max`/`min` flatten, fold constants, drop provably dominated arguments;
//! `ceil`/`floor` are idempotent and pull out integer constants; `dims(n, d, k)` of a constant
//! is its number, of one dimension is `n`, all `d` extents of one `n` multiply to `n`, and in a
//! `max`/`min` an extent dominates those of the same grid with a larger/smaller k.

use crate::expr::{Atom, Coef, Expr, Term};
use crate::rational::Rational;

/// Largest integer power of a sum that is expanded, and the largest expansion (in terms).
const MAX_EXPAND_POW: i64 = 4;
const MAX_EXPAND_TERMS: usize = 256;

/// Relative size below which a merged coefficient counts as cancelled.
const CANCEL_TOL: f64 = 1e-12;

/// Sort and merge terms into canonical order.
pub(crate) fn from_terms(mut terms: Vec<Term>) -> Expr {
    terms.sort_by(|a, b| a.factors.cmp(&b.factors));
    let mut out: Vec<Term> = Vec::with_capacity(terms.len());
    let mut scale: Vec<f64> = Vec::with_capacity(terms.len());
    for t in terms {
        match out.last_mut() {
            Some(last) if last.factors == t.factors => {
                let s = scale.last_mut();
                last.coef.0 += t.coef.0;
                if let Some(s) = s {
                    *s = s.max(t.coef.0.abs());
                }
            }
            _ => {
                scale.push(t.coef.0.abs());
                out.push(t);
            }
        }
    }
    let terms = out
        .into_iter()
        .zip(scale)
        .filter(|(t, s)| {
            t.coef.0 != 0.0
                && t.coef.0.abs().partial_cmp(&(CANCEL_TOL * s)) != Some(std::cmp::Ordering::Less)
        })
        .map(|(mut t, _)| {
            t.coef.0 += 0.0;
            t
        })
        .collect();
    Expr { terms }
}

pub(crate) fn add(a: &Expr, b: &Expr) -> Expr {
    if a.terms.is_empty() {
        return b.clone();
    }
    if b.terms.is_empty() {
        return a.clone();
    }
    from_terms(a.terms.iter().chain(b.terms.iter()).cloned().collect())
}

pub(crate) fn sub(a: &Expr, b: &Expr) -> Expr {
    add(a, &scale(b, -1.0))
}

pub(crate) fn scale(a: &Expr, c: f64) -> Expr {
    if c == 0.0 {
        return Expr::zero();
    }
    from_terms(
        a.terms
            .iter()
            .map(|t| Term {
                factors: t.factors.clone(),
                coef: Coef(t.coef.0 * c),
            })
            .collect(),
    )
}

pub(crate) fn mul(a: &Expr, b: &Expr) -> Expr {
    if a.terms.is_empty() || b.terms.is_empty() {
        return Expr::zero();
    }
    let mut acc: Vec<Term> = Vec::with_capacity(a.terms.len() * b.terms.len());
    for ta in &a.terms {
        for tb in &b.terms {
            let mut f = ta.factors.clone();
            f.extend(tb.factors.iter().cloned());
            acc.extend(term_expr(ta.coef.0 * tb.coef.0, f).terms);
        }
    }
    from_terms(acc)
}

pub(crate) fn div(a: &Expr, b: &Expr) -> Expr {
    mul(a, &pow(b, Rational::int(-1)))
}

/// Build `coef · ∏ factors` canonically: sort, merge exponents, expand small integer powers of sums.
pub(crate) fn term_expr(coef: f64, mut factors: Vec<(Atom, Rational)>) -> Expr {
    if coef == 0.0 {
        return Expr::zero();
    }
    factors.sort_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(Atom, Rational)> = Vec::with_capacity(factors.len());
    for (atom, q) in factors {
        match merged.last_mut() {
            Some(last) if last.0 == atom => last.1 = last.1.add_lossy(q),
            _ => merged.push((atom, q)),
        }
    }
    merged.retain(|(_, q)| !q.is_zero());
    if let Some((at, m)) = whole_grid(&merged) {
        let Atom::Dims { n, d, .. } = merged[at].0.clone() else {
            return Expr::zero();
        };
        for f in &mut merged[at..at + d as usize] {
            f.1 = f.1.add_lossy(-m);
        }
        return mul(&term_expr(coef, merged), &pow(&n, m));
    }
    let expand_at = merged.iter().position(|(a, q)| {
        if let Atom::Pow(base) = a {
            q.is_integer()
                && q.numer() >= 1
                && q.numer() <= MAX_EXPAND_POW
                && expandable(base, q.numer())
        } else {
            false
        }
    });
    match expand_at {
        None => Expr {
            terms: vec![Term {
                factors: merged,
                coef: Coef(coef + 0.0),
            }],
        },
        Some(i) => {
            let (atom, q) = merged.remove(i);
            let Atom::Pow(base) = atom else {
                return Expr::zero();
            };
            let mut out = term_expr(coef, merged);
            for _ in 0..q.numer() {
                out = mul(&out, &base);
            }
            out
        }
    }
}

/// The first `dims(n, d, 0)^q0 ⋯ dims(n, d, d-1)^q(d-1)` among sorted factors with every `q`
/// of one sign, as (index of `k = 0`, the `q` nearest zero): that much of it is `n^q`.
fn whole_grid(factors: &[(Atom, Rational)]) -> Option<(usize, Rational)> {
    for (i, (a, q0)) in factors.iter().enumerate() {
        let Atom::Dims { n, d, rule, k: 0 } = a else {
            continue;
        };
        // sorted: the extents of one (n, d) are adjacent, by k
        let group = factors.get(i..i + *d as usize)?;
        let whole = group.iter().enumerate().all(|(j, (b, q))| {
            q.is_negative() == q0.is_negative()
                && matches!(b, Atom::Dims { n: m, d: e, rule: r, k } if m == n && e == d && r == rule && *k as usize == j)
        });
        if whole {
            let m = group.iter().map(|(_, q)| *q).fold(*q0, |m, q| {
                if q.abs().to_f64() < m.abs().to_f64() {
                    q
                } else {
                    m
                }
            });
            return Some((i, m));
        }
    }
    None
}

fn expandable(base: &Expr, k: i64) -> bool {
    let n = base.terms.len().max(1);
    let mut size = 1usize;
    for _ in 0..k {
        size = size.saturating_mul(n);
    }
    size <= MAX_EXPAND_TERMS
}

/// Split a sum into `c · g · base`: `c > 0`, `g` the common variable monomial (minimum exponent
/// of each variable over the terms, absent counting as 0), `base` with its dominant term's coefficient ±1.
pub(crate) fn factor_sum(e: &Expr) -> (f64, Vec<(Atom, Rational)>, Expr) {
    let mut vars: Vec<(Atom, Rational)> = Vec::new();
    for t in &e.terms {
        for (a, _) in &t.factors {
            if matches!(a, Atom::Var(_)) && !vars.iter().any(|(v, _)| v == a) {
                vars.push((a.clone(), Rational::ZERO));
            }
        }
    }
    for (v, m) in vars.iter_mut() {
        let mut min = Rational::ZERO;
        for (k, t) in e.terms.iter().enumerate() {
            let q = t
                .factors
                .iter()
                .find(|(a, _)| a == v)
                .map_or(Rational::ZERO, |(_, q)| *q);
            if k == 0 || q < min {
                min = q;
            }
        }
        *m = min;
    }
    vars.retain(|(_, q)| !q.is_zero());
    let divided: Vec<Term> = e
        .terms
        .iter()
        .flat_map(|t| {
            let mut f = t.factors.clone();
            f.extend(vars.iter().map(|(a, q)| (a.clone(), -*q)));
            term_expr(t.coef.0, f).terms
        })
        .collect();
    let divided = from_terms(divided);
    // Normalise by the most dominant term (as printed first): `log2(P) + 5`, not `0.2*log2(P) + 1`.
    let c = crate::print::display_order(&divided)
        .first()
        .map_or(1.0, |t| t.coef.0.abs());
    // Divide (not multiply by 1/c) so that coefficient becomes exactly ±1.
    let base = if c == 1.0 || c == 0.0 {
        divided
    } else {
        from_terms(
            divided
                .terms
                .iter()
                .map(|t| Term {
                    factors: t.factors.clone(),
                    coef: Coef(t.coef.0 / c),
                })
                .collect(),
        )
    };
    (if c == 0.0 { 1.0 } else { c }, vars, base)
}

pub(crate) fn pow(e: &Expr, q: Rational) -> Expr {
    if q.is_zero() {
        return Expr::one();
    }
    if q == Rational::ONE {
        return e.clone();
    }
    match e.terms.as_slice() {
        [] => {
            if q.is_negative() {
                Expr::num(f64::INFINITY)
            } else {
                Expr::zero()
            }
        }
        [t] => {
            let f = t
                .factors
                .iter()
                .map(|(a, p)| (a.clone(), p.mul_lossy(q)))
                .collect();
            term_expr(q.pow_f64(t.coef.0), f)
        }
        _ => {
            if q.is_integer()
                && q.numer() > 1
                && q.numer() <= MAX_EXPAND_POW
                && expandable(e, q.numer())
            {
                let mut out = e.clone();
                for _ in 1..q.numer() {
                    out = mul(&out, e);
                }
                return out;
            }
            let (c, g, base) = factor_sum(e);
            if base.terms.len() < 2 {
                // Cancellation left a monomial: recurse on the rebuilt product.
                return pow(&mul(&term_expr(c, g), &base), q);
            }
            let mut f: Vec<(Atom, Rational)> =
                g.into_iter().map(|(a, p)| (a, p.mul_lossy(q))).collect();
            f.push((Atom::Pow(Box::new(base)), q));
            term_expr(q.pow_f64(c), f)
        }
    }
}

/// `log2` of one atom taken as a whole (never of a Pow atom: callers pass its base).
fn log2_atom(a: &Atom) -> Expr {
    let arg = match a {
        Atom::Pow(base) => (**base).clone(),
        other => Expr {
            terms: vec![Term {
                factors: vec![(other.clone(), Rational::ONE)],
                coef: Coef(1.0),
            }],
        },
    };
    Expr {
        terms: vec![Term {
            factors: vec![(Atom::Log2(Box::new(arg)), Rational::ONE)],
            coef: Coef(1.0),
        }],
    }
}

pub(crate) fn log2(e: &Expr) -> Expr {
    match e.terms.as_slice() {
        [] => Expr::num(f64::NEG_INFINITY),
        [t] => {
            let mut out = Expr::num(t.coef.0.log2());
            for (a, q) in &t.factors {
                out = add(&out, &scale(&log2_atom(a), q.to_f64()));
            }
            out
        }
        _ => {
            let (c, g, base) = factor_sum(e);
            if base.terms.len() < 2 {
                return log2(&mul(&term_expr(c, g), &base));
            }
            let mut out = Expr::num(c.log2());
            for (a, q) in &g {
                out = add(&out, &scale(&log2_atom(a), q.to_f64()));
            }
            add(&out, &log2_atom(&Atom::Pow(Box::new(base))))
        }
    }
}

/// True when `e ≥ 0` for all positive variable values (see [`lower_bound`]).
pub(crate) fn provably_nonneg(e: &Expr) -> bool {
    lower_bound(e) >= 0.0
}

/// A lower bound of `e` over all positive variable values (`-inf` when none is seen).
///
/// A constant term counts its value; a positive multiple of factors each provably ≥ 0 counts
/// the product of their bounds (0 with a negative power among them, whose base must be
/// provably positive); anything else makes the bound `-inf`. Atoms: a variable is positive;
/// `floor`/`ceil` of an argument bounded by `b` are at least ⌊b⌋/⌈b⌉; `max` is at least its
/// best-bounded argument, `min` its worst; `log2(x)` at least log2 of x's bound when that is
/// positive; a power base its bound. So `min(floor(0.02*N^2/P + 16.6), 1)` is 1.
pub(crate) fn lower_bound(e: &Expr) -> f64 {
    lower_bound_with(e, &|_| f64::MIN_POSITIVE)
}

/// [`lower_bound`] with each variable at least `var(name)` (a processor count is at least 1,
/// so `log2(P)` and `P - 1` are at least 0).
pub(crate) fn lower_bound_with(e: &Expr, var: &dyn Fn(&str) -> f64) -> f64 {
    let mut sum = 0.0;
    for t in &e.terms {
        if t.factors.is_empty() {
            sum += t.coef.0;
            continue;
        }
        if t.coef.0 <= 0.0 {
            return f64::NEG_INFINITY;
        }
        // an extent of n ranks is at most n: dims(n, d, k)^-q ≥ n^-q, so `P/dims(P, 2, 0)`
        // is at least 1 (a compute step `[P/dims(P, 2, 0) >= 1e-6]` was kept as if it could
        // turn 0: trial 12)
        if t.factors.iter().any(|(a, q)| {
            q.is_negative() && matches!(a, Atom::Dims { n, .. } if n.as_atom().is_some())
        }) {
            let factors: Vec<(Atom, Rational)> = t
                .factors
                .iter()
                .map(|(a, q)| match a {
                    Atom::Dims { n, .. } if q.is_negative() => match n.as_atom() {
                        Some(base) => (base.clone(), *q),
                        None => (a.clone(), *q),
                    },
                    _ => (a.clone(), *q),
                })
                .collect();
            sum += lower_bound_with(&term_expr(t.coef.0, factors), var);
            continue;
        }
        // factors ≥ their bounds ≥ 0: the product is at least the bounds' product, and at
        // least 0 when a negative power (decreasing) is among them
        let mut prod = t.coef.0;
        for (a, q) in &t.factors {
            let b = atom_lower_bound(a, var);
            if q.is_negative() {
                if b <= 0.0 {
                    return f64::NEG_INFINITY;
                }
                prod = 0.0;
            } else if b >= 0.0 {
                prod *= q.pow_f64(b);
            } else {
                return f64::NEG_INFINITY;
            }
        }
        sum += prod;
    }
    sum
}

fn atom_lower_bound(a: &Atom, var: &dyn Fn(&str) -> f64) -> f64 {
    let lb = |x: &Expr| lower_bound_with(x, var);
    match a {
        // positive reals: > 0, as small as we like, unless the caller knows more
        Atom::Var(v) => var(v).max(f64::MIN_POSITIVE),
        Atom::Floor(x) => lb(x).floor(),
        Atom::Ceil(x) => lb(x).ceil(),
        // an extent of a grid of n ≥ 1 ranks (NaN, so no bound matters, otherwise)
        Atom::Dims { .. } => 1.0,
        Atom::Max(l) => l.iter().map(lb).fold(f64::NEG_INFINITY, f64::max),
        Atom::Min(l) => l.iter().map(lb).fold(f64::INFINITY, f64::min),
        Atom::Log2(x) => {
            let b = lb(x);
            if b > 0.0 {
                b.log2()
            } else {
                f64::NEG_INFINITY
            }
        }
        Atom::Pow(b) => lb(b),
    }
}

fn extremum(args: Vec<Expr>, is_max: bool) -> Expr {
    let mut flat: Vec<Expr> = Vec::with_capacity(args.len());
    let mut konst: Option<f64> = None;
    for a in args {
        let nested = match (a.as_atom(), is_max) {
            (Some(Atom::Max(l)), true) | (Some(Atom::Min(l)), false) => Some(l.clone()),
            _ => None,
        };
        for x in nested.unwrap_or_else(|| vec![a]) {
            match x.as_const() {
                Some(c) => {
                    konst = Some(match konst {
                        None => c,
                        Some(k) if is_max => k.max(c),
                        Some(k) => k.min(c),
                    })
                }
                None => flat.push(x),
            }
        }
    }
    if let Some(k) = konst {
        flat.push(Expr::num(k));
    }
    flat.sort();
    flat.dedup();
    if flat.len() <= 8 {
        // Drop arguments another one provably dominates (for min: is provably below).
        let mut keep = vec![true; flat.len()];
        for i in 0..flat.len() {
            for j in 0..flat.len() {
                if i != j && keep[i] && keep[j] {
                    let d = if is_max {
                        sub(&flat[i], &flat[j])
                    } else {
                        sub(&flat[j], &flat[i])
                    };
                    if provably_nonneg(&d) || extent_dominates(&flat[i], &flat[j], is_max) {
                        keep[j] = false;
                    }
                }
            }
        }
        let mut k = keep.into_iter();
        flat.retain(|_| k.next().unwrap_or(true));
    }
    match flat.len() {
        0 => Expr::zero(),
        1 => flat.pop().unwrap_or_default(),
        _ => {
            let atom = if is_max {
                Atom::Max(flat)
            } else {
                Atom::Min(flat)
            };
            Expr {
                terms: vec![Term {
                    factors: vec![(atom, Rational::ONE)],
                    coef: Coef(1.0),
                }],
            }
        }
    }
}

/// Extents of one grid do not increase with k: `dims(n, d, i) >= dims(n, d, j)` for `i <= j`,
/// so in a `max` (`min`) the one with the smaller (larger) k makes the other redundant.
fn extent_dominates(a: &Expr, b: &Expr, is_max: bool) -> bool {
    match (a.as_atom(), b.as_atom()) {
        (
            Some(Atom::Dims { n, d, rule, k: i }),
            Some(Atom::Dims {
                n: m,
                d: e,
                rule: r,
                k: j,
            }),
        ) if n == m && d == e && rule == r => {
            if is_max {
                i <= j
            } else {
                i >= j
            }
        }
        _ => false,
    }
}

pub(crate) fn max_of(args: Vec<Expr>) -> Expr {
    extremum(args, true)
}

pub(crate) fn min_of(args: Vec<Expr>) -> Expr {
    extremum(args, false)
}

fn rounding(e: &Expr, up: bool) -> Expr {
    if let Some(c) = e.as_const() {
        return Expr::num(if up { c.ceil() } else { c.floor() });
    }
    if let Some(Atom::Ceil(_) | Atom::Floor(_)) = e.as_atom() {
        return e.clone();
    }
    if let Some(t) = e.terms.first() {
        let k = t.coef.0;
        if t.factors.is_empty() && k.fract() == 0.0 {
            return add(&rounding(&sub(e, &Expr::num(k)), up), &Expr::num(k));
        }
    }
    let atom = if up {
        Atom::Ceil(Box::new(e.clone()))
    } else {
        Atom::Floor(Box::new(e.clone()))
    };
    Expr {
        terms: vec![Term {
            factors: vec![(atom, Rational::ONE)],
            coef: Coef(1.0),
        }],
    }
}

pub(crate) fn ceil(e: &Expr) -> Expr {
    rounding(e, true)
}

pub(crate) fn floor(e: &Expr) -> Expr {
    rounding(e, false)
}

pub(crate) fn dims(rule: crate::DimsRule, n: &Expr, d: u32, k: u32) -> Option<Expr> {
    if d == 0 || d > crate::dims::MAX_DIMS || k >= d {
        return None;
    }
    if let Some(c) = n.as_const() {
        return Some(Expr::num(crate::dims::extent(rule, c, d, k)));
    }
    if d == 1 {
        return Some(n.clone());
    }
    let atom = Atom::Dims {
        n: Box::new(n.clone()),
        d,
        rule,
        k,
    };
    Some(term_expr(1.0, vec![(atom, Rational::ONE)]))
}

/// Rebuild the value of one atom, mapping each argument expression through `f`.
pub(crate) fn rebuild_atom(a: &Atom, f: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
    match a {
        Atom::Var(v) => Expr::var(v),
        Atom::Log2(x) => log2(&f(x)),
        Atom::Max(l) => max_of(l.iter().map(&mut *f).collect()),
        Atom::Min(l) => min_of(l.iter().map(&mut *f).collect()),
        Atom::Ceil(x) => ceil(&f(x)),
        Atom::Floor(x) => floor(&f(x)),
        Atom::Dims { n, d, rule, k } => {
            dims(*rule, &f(n), *d, *k).unwrap_or_else(|| Expr::num(f64::NAN))
        }
        Atom::Pow(b) => f(b),
    }
}

/// Rebuild a whole expression, mapping every atom's value through `g`.
pub(crate) fn map_atoms(e: &Expr, g: &mut dyn FnMut(&Atom) -> Expr) -> Expr {
    let mut acc: Vec<Term> = Vec::new();
    for t in &e.terms {
        let mut prod = Expr::num(t.coef.0);
        for (a, q) in &t.factors {
            prod = mul(&prod, &pow(&g(a), *q));
        }
        acc.extend(prod.terms);
    }
    from_terms(acc)
}

pub(crate) fn atom_expr(a: &Atom) -> Expr {
    rebuild_atom(a, &mut |x| x.clone())
}
