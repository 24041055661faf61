//! A condition on a loop index through `mod` or a bound: its share of the loop's iterations
//! as a closed form in the trip count (`floor(NSTEP/NOUT)/NSTEP`, `1/NSTEP`), checked by
//! counting the condition exactly at many parameter values.

use std::collections::{BTreeMap, BTreeSet};

use symbolic::{Atom, Expr};

use super::comparison::{divisor, Comparison, Op};
use crate::quantity::Samples;

/// The mean over `var` = lo..lo+trip−1 of the condition: a `mod` of the index
/// ([`mod_count`]) or a bound on it ([`bound_count`]), checked by counting at the traced
/// parameter values and a few more (where a quotient evaluates a hair below a whole number
/// the check fails: none).
pub(super) fn index_share(
    c: &Comparison,
    var: &str,
    lo: i64,
    trip: &Expr,
    traced: &Samples,
) -> Option<Expr> {
    let (count, premise) = mod_count(c, var, lo, trip).or_else(|| bound_count(c, var, lo, trip))?;
    let share = count / trip.clone();
    let mut checked = 0;
    for values in index_grid(&c.vars(), trip, var, traced) {
        let at = |v: &str| values.get(v).copied();
        let Ok(n) = trip.eval(&at) else {
            continue;
        };
        if !(n.fract() == 0.0 && (1.0..=2000.0).contains(&n) && premise(&at)) {
            continue;
        }
        let mut hits = 0i64;
        for i in lo..lo + n as i64 {
            let at = |v: &str| {
                if v == var {
                    Some(i as f64)
                } else {
                    values.get(v).copied()
                }
            };
            hits += i64::from(c.holds(&at)?);
        }
        if (share.eval(&at).ok()? - hits as f64 / n).abs() > 1e-12 {
            return None;
        }
        checked += 1;
    }
    (checked > 0).then_some(share)
}

/// Where a closed count holds, given the parameters' values.
pub(super) type Premise = Box<dyn Fn(&dyn Fn(&str) -> Option<f64>) -> bool>;

/// The count over `var` = lo..lo+trip−1 of `mod(var + a, K) == j` (or `!=`), where the
/// condition reads `var + a − K·floor((var + a)/K) == j`, K free of `var`, a and j whole
/// numbers: floor((trip + L)/K) + [L < 0] with L = lo + a − 1 − j, where K is a whole
/// number above j and −K ≤ L < K.
pub(super) fn mod_count(
    c: &Comparison,
    var: &str,
    lo: i64,
    trip: &Expr,
) -> Option<(Expr, Premise)> {
    if !matches!(c.op, Op::Eq | Op::Ne) {
        return None;
    }
    let d = c.lhs.clone() - c.rhs.clone();
    let floors: Vec<&Expr> = d
        .terms()
        .iter()
        .flat_map(|t| t.factors())
        .filter_map(|(a, _)| match a {
            Atom::Floor(arg) if arg.contains_var(var) => Some(arg.as_ref()),
            _ => None,
        })
        .collect();
    let arg = *floors.first()?;
    if floors.iter().any(|f| *f != arg) {
        return None;
    }
    let k = divisor(&Atom::Floor(Box::new(arg.clone())), var)?;
    let a = ((arg.clone() - Expr::var(var) / k.clone()) * k.clone()).as_const()?;
    let modulo = Expr::var(var) + Expr::num(a) - k.clone() * arg.floor();
    // `mod(...) == j` or `j == mod(...)`
    let j = [d.clone(), Expr::zero() - d]
        .into_iter()
        .find_map(|d| (modulo.clone() - d).as_const())?;
    if a.fract() != 0.0 || j.fract() != 0.0 || j < 0.0 {
        return None;
    }
    let l = lo as f64 + a - 1.0 - j;
    // floor(m/K) + 1 = ceil((m + 1)/K) for whole m: L = -1 (C's `i % K == 0` from 0) is
    // ceil(trip/K), with no constant whose quotient rounds below a whole number
    let count = if l < 0.0 {
        ((trip.clone() + Expr::num(l + 1.0)) / k.clone()).ceil()
    } else {
        ((trip.clone() + Expr::num(l)) / k.clone()).floor()
    };
    let count = match c.op {
        Op::Eq => count,
        _ => trip.clone() - count,
    };
    let premise: Premise = Box::new(move |at| {
        k.eval(at)
            .is_ok_and(|kv| kv.fract() == 0.0 && j < kv && -kv <= l && l < kv)
    });
    Some((count, premise))
}

/// The count over `var` = lo..hi (hi = lo + trip − 1) of a bound `a·var + b op 0` (a a
/// constant, b free of `var`): with t = −b/a, `var < t` holds clamp(ceil(t) − lo) times,
/// `var <= t` clamp(floor(t) − lo + 1), `>`/`>=` the rest, `==` the difference of the two,
/// clamp(x) = min(max(x, 0), trip); floor and ceil are left out where t is a polynomial with
/// whole coefficients in the (whole) parameters.
pub(super) fn bound_count(
    c: &Comparison,
    var: &str,
    lo: i64,
    trip: &Expr,
) -> Option<(Expr, Premise)> {
    let d = c.lhs.clone() - c.rhs.clone();
    let mut a = 0.0;
    for t in d.terms() {
        match t.factors() {
            [(Atom::Var(v), q)] if v == var && *q == symbolic::Rational::ONE => a += t.coef(),
            f if f.iter().any(|(x, _)| Expr::from_atom(x).contains_var(var)) => return None,
            _ => {}
        }
    }
    if a == 0.0 {
        return None;
    }
    let b = d - Expr::num(a) * Expr::var(var);
    let t = (Expr::zero() - b) / Expr::num(a);
    let whole = t.terms().iter().all(|m| {
        m.coef().fract() == 0.0
            && m.factors()
                .iter()
                .all(|(x, q)| matches!(x, Atom::Var(_)) && q.is_integer() && !q.is_negative())
    });
    let (fl, ce) = if whole {
        (t.clone(), t.clone())
    } else {
        (t.floor(), t.ceil())
    };
    let lo = Expr::int(lo);
    let clamp = |x: Expr| Expr::min(Expr::max(x, Expr::zero()), trip.clone());
    let below = clamp(ce.clone() - lo.clone()); // var < t
    let upto = clamp(fl - lo + Expr::one()); // var <= t
                                             // a < 0 turns the comparison around
    let op = match (c.op, a < 0.0) {
        (op, false) => op,
        (Op::Lt, true) => Op::Gt,
        (Op::Le, true) => Op::Ge,
        (Op::Gt, true) => Op::Lt,
        (Op::Ge, true) => Op::Le,
        (op, true) => op,
    };
    let count = match op {
        Op::Lt => below,
        Op::Le => upto,
        Op::Gt => trip.clone() - upto,
        Op::Ge => trip.clone() - below,
        Op::Eq => upto - below,
        Op::Ne => trip.clone() - upto + below,
    };
    Some((count, Box::new(|_| true)))
}

/// Values of the condition's and the trip count's parameters to count at: each one's traced
/// values and 1..8, 10, 12, 16, 30; at most 512 combinations.
pub(super) fn index_grid(
    cond_vars: &BTreeSet<String>,
    trip: &Expr,
    var: &str,
    traced: &Samples,
) -> Vec<BTreeMap<String, f64>> {
    let mut names: BTreeSet<String> = cond_vars.clone();
    names.extend(trip.vars());
    names.remove(var);
    let mut rows: Vec<BTreeMap<String, f64>> = vec![BTreeMap::new()];
    for name in &names {
        let mut vals: BTreeSet<i64> = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 30].into();
        if let Some(k) = traced.params.iter().position(|p| p == name) {
            vals.extend(traced.points.iter().map(|r| r[k].round() as i64));
        }
        rows = rows
            .into_iter()
            .flat_map(|r| {
                vals.iter().map(move |v| {
                    let mut r = r.clone();
                    r.insert(name.clone(), *v as f64);
                    r
                })
            })
            .take(512)
            .collect();
    }
    rows
}
