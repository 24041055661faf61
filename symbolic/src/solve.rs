//! Minimising T over one variable K (the ∂T/∂K = 0 of seed 004 §5.4): branch over `max`/`min`,
//! stationary points of each branch (closed form when possible), feasibility of the branch,
//! breakpoints and range ends as further candidates, second-derivative check, integer neighbours.

use crate::diff::Cond;
use crate::expr::Expr;
use crate::roots::{positive_roots, Method};
use crate::EvalError;
use serde::Serialize;
use std::collections::BTreeMap;

/// Search options (a config struct rather than bool parameters).
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// Inclusive search range; default `(0, ∞)` for closed forms, `[1e-6, 1e12]` for numeric search.
    pub range: Option<(f64, f64)>,
    /// The variable must be an integer: the better of ⌊K*⌋ and ⌈K*⌉ is reported too.
    pub integer: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error("`{0}` does not occur in the expression")]
    VarAbsent(String),
    #[error("invalid range {0}..{1}: need 0 < lo <= hi")]
    BadRange(f64, f64),
    #[error("no minimum found for `{var}` in {lo:e}..{hi:e}: the expression has no stationary point there (try --range)")]
    NoMinimum { var: String, lo: f64, hi: f64 },
}

/// One point examined during the search.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub k: f64,
    pub t: f64,
    pub method: Method,
    /// Conditions of the branch this point came from (empty when T has no max/min in K).
    pub branch: Vec<Cond>,
    pub closed_form: Option<Expr>,
    /// d²T/dK² of the branch at `k` (stationary points only).
    pub second_derivative: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Solution {
    pub var: String,
    pub k_star: f64,
    pub t_star: f64,
    pub method: Method,
    /// K*(other parameters) when found in closed form.
    pub closed_form: Option<Expr>,
    pub branch: Vec<Cond>,
    pub second_derivative: Option<f64>,
    /// True when ceil/floor were relaxed (`ceil(u) ≈ u`), or a `dims(n, d, k)` with `n` in the
    /// variable taken as `n^(1/d)`, to find the stationary points.
    pub relaxed: bool,
    /// `(K, T(K))` at the better integer neighbour, when `integer` was asked.
    pub integer: Option<(f64, f64)>,
    /// Every feasible candidate, best first.
    pub candidates: Vec<Candidate>,
}

/// Minimise `t` over `var` with the other variables fixed at `at`.
pub fn minimize(
    t: &Expr,
    var: &str,
    at: &BTreeMap<String, f64>,
    opts: &SolveOptions,
) -> Result<Solution, SolveError> {
    if !t.contains_var(var) {
        return Err(SolveError::VarAbsent(var.to_string()));
    }
    for v in t.vars() {
        if v != var && !at.contains_key(&v) {
            return Err(EvalError::UnknownVariable(v).into());
        }
    }
    let (lo, hi) = match opts.range {
        Some((lo, hi)) if lo > 0.0 && lo <= hi => (lo, hi),
        Some((lo, hi)) => return Err(SolveError::BadRange(lo, hi)),
        None => (f64::MIN_POSITIVE, f64::INFINITY),
    };
    let (nlo, nhi) = opts.range.unwrap_or((1e-6, 1e12));
    let lookup = |v: &str| at.get(v).copied();
    let at_k = |k: f64| {
        move |v: &str| {
            if v == var {
                Some(k)
            } else {
                at.get(v).copied()
            }
        }
    };
    let value = |k: f64| t.eval(&at_k(k));

    // a grid extent dims(P, d, k) stays exact unless P is what is minimised over
    let relaxed_t = t.relax_rounding_in(var);
    let relaxed = relaxed_t != *t;
    let mut cands: Vec<Candidate> = Vec::new();
    let mut breakpoints: Vec<Expr> = Vec::new();
    for piece in relaxed_t.branches(var) {
        let feasible = |k: f64| -> Result<bool, EvalError> {
            for c in &piece.conds {
                if !c.holds(&at_k(k), 1e-9)? {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let d1 = piece.expr.diff_smooth(var);
        let mut d2: Option<Expr> = None;
        let closed_ok = crate::roots::power_groups(&d1, var).is_some();
        let roots = positive_roots(
            &d1,
            var,
            &lookup,
            if closed_ok { lo } else { nlo },
            if closed_ok { hi } else { nhi },
        )?;
        for r in roots {
            if !feasible(r.k)? {
                continue;
            }
            let curv = d2
                .get_or_insert_with(|| d1.diff_smooth(var))
                .eval(&at_k(r.k))?;
            if curv < 0.0 {
                continue; // a maximum of this branch
            }
            cands.push(Candidate {
                k: r.k,
                t: value(r.k)?,
                method: r.method,
                branch: piece.conds.clone(),
                closed_form: r.closed,
                second_derivative: Some(curv),
            });
        }
        for c in &piece.conds {
            let g = &c.lhs - &c.rhs;
            if g.contains_var(var) && !breakpoints.contains(&g) && !breakpoints.contains(&-&g) {
                breakpoints.push(g);
            }
        }
    }
    for g in &breakpoints {
        for r in positive_roots(g, var, &lookup, nlo.max(lo), nhi.min(hi))? {
            cands.push(Candidate {
                k: r.k,
                t: value(r.k)?,
                method: Method::Breakpoint,
                branch: Vec::new(),
                closed_form: r.closed,
                second_derivative: None,
            });
        }
    }
    if let Some((a, b)) = opts.range {
        for k in [a, b] {
            cands.push(Candidate {
                k,
                t: value(k)?,
                method: Method::Boundary,
                branch: Vec::new(),
                closed_form: None,
                second_derivative: None,
            });
        }
    }
    cands.retain(|c| c.t.is_finite());
    // with rounding relaxed, the relaxed form's stationary points may not be where the exact T
    // is least (trial 16's SUMMA: `floor((N - 1)/NB) + 1` panels relaxed to `(N - 1)/NB + 1`
    // put NB* at 23 where the exact T kept falling to NB = 144): a grid over the range, or
    // three decades either side of the best candidate, on the exact T
    if relaxed {
        if let Some(c) = scan_exact(&value, &cands, opts, (nlo.max(lo), nhi.min(hi)))? {
            cands.push(c);
        }
    }
    // Stable sort: on equal T the earlier (stationary) candidate wins over breakpoints and ends.
    cands.sort_by(|a, b| a.t.total_cmp(&b.t));
    let Some(best) = cands.first().cloned() else {
        return Err(SolveError::NoMinimum {
            var: var.to_string(),
            lo: nlo,
            hi: nhi,
        });
    };
    let integer = if opts.integer {
        let mut best_int: Option<(f64, f64)> = None;
        for k in [best.k.floor(), best.k.ceil()] {
            let k = k
                .max(lo.ceil())
                .min(if hi.is_finite() {
                    hi.floor()
                } else {
                    f64::INFINITY
                })
                .max(1.0);
            let tk = value(k)?;
            if best_int.is_none_or(|(_, bt)| tk < bt) {
                best_int = Some((k, tk));
            }
        }
        best_int
    } else {
        None
    };
    Ok(Solution {
        var: var.to_string(),
        k_star: best.k,
        t_star: best.t,
        method: best.method,
        closed_form: best.closed_form.clone(),
        branch: best.branch.clone(),
        second_derivative: best.second_derivative,
        relaxed,
        integer,
        candidates: cands,
    })
}

/// The least exact T on a geometric grid (integers when `opts.integer`), as a candidate when it
/// is more than 1% below every candidate's: over the range when one was given, else three
/// decades either side of the best candidate, else over `(lo, hi)`.
fn scan_exact(
    value: &dyn Fn(f64) -> Result<f64, EvalError>,
    cands: &[Candidate],
    opts: &SolveOptions,
    (lo, hi): (f64, f64),
) -> Result<Option<Candidate>, EvalError> {
    let best = cands.iter().map(|c| c.t).fold(f64::INFINITY, f64::min);
    let (a, b) = match opts.range {
        Some(r) => r,
        None => match cands.iter().min_by(|x, y| x.t.total_cmp(&y.t)) {
            Some(c) => ((c.k / 1e3).max(lo), (c.k * 1e3).min(hi)),
            None => (lo, hi),
        },
    };
    let a = if opts.integer { a.max(1.0) } else { a };
    if !(a > 0.0 && b >= a && b.is_finite()) {
        return Ok(None);
    }
    const PER_DECADE: f64 = 60.0;
    let steps = ((b / a).log10() * PER_DECADE).ceil().max(1.0) as usize;
    let mut found: Option<(f64, f64)> = None;
    let mut last = f64::NAN;
    for i in 0..=steps {
        let mut k = a * (b / a).powf(i as f64 / steps as f64);
        if opts.integer {
            k = k.round();
        }
        if k == last || k < a || k > b {
            continue;
        }
        last = k;
        let t = value(k)?;
        if t.is_finite() && found.is_none_or(|(_, ft)| t < ft) {
            found = Some((k, t));
        }
    }
    Ok(found
        .filter(|&(_, t)| !best.is_finite() || t < best - 0.01 * best.abs())
        .map(|(k, t)| Candidate {
            k,
            t,
            method: Method::Scan,
            branch: Vec::new(),
            closed_form: None,
            second_derivative: None,
        }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::parse;

    fn at(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn brute(t: &Expr, var: &str, at: &BTreeMap<String, f64>, lo: f64, hi: f64) -> (f64, f64) {
        let mut best = (f64::NAN, f64::INFINITY);
        let n = 200_000;
        for i in 0..=n {
            let k = lo * (hi / lo).powf(i as f64 / n as f64);
            let v = t
                .eval(&|x| {
                    if x == var {
                        Some(k)
                    } else {
                        at.get(x).copied()
                    }
                })
                .unwrap();
            if v < best.1 {
                best = (k, v);
            }
        }
        best
    }

    /// Trial 16's SUMMA: `ceil(N/K)` blocks relaxed to `N/K + 1` put a stationary point at
    /// K = sqrt(N·c0/c1) = 320, where the exact T is 16.8; the exact T is least at one block,
    /// K = N (11.24). The scan of the exact T finds it and says so.
    #[test]
    fn a_relaxed_stationary_point_that_is_not_the_exact_minimum_gives_way_to_a_scan() {
        let t = parse("ceil(N/K)*(1 + 0.01*K)").unwrap();
        let at: BTreeMap<String, f64> = [("N".to_string(), 1024.0)].into();
        for integer in [false, true] {
            let s = minimize(
                &t,
                "K",
                &at,
                &SolveOptions {
                    range: None,
                    integer,
                },
            )
            .unwrap();
            assert!(s.relaxed);
            assert_eq!(s.method, Method::Scan, "{s:?}");
            assert!((1024.0..1100.0).contains(&s.k_star), "{s:?}");
            assert!(s.t_star < 11.5, "{s:?}");
        }
    }

    #[test]
    fn two_power_closed_form() {
        let t = parse("N^2/(P*K) + K*log2(P)").unwrap();
        let s = minimize(
            &t,
            "K",
            &at(&[("N", 1024.0), ("P", 16.0)]),
            &SolveOptions::default(),
        )
        .unwrap();
        assert!((s.k_star - 128.0).abs() < 1e-9);
        assert!((s.t_star - 1024.0).abs() < 1e-9);
        assert_eq!(s.method, Method::TwoPower);
        let cf = s.closed_form.unwrap();
        assert_eq!(cf, parse("N/sqrt(P*log2(P))").unwrap());
        assert_eq!(cf.to_string(), "N/(sqrt(P)*sqrt(log2(P)))");
        assert!(s.second_derivative.unwrap() > 0.0);
    }

    #[test]
    fn max_branch_feasibility_matches_brute_force() {
        let t = parse("N^2/(P*K) + K*log2(P) + 5*max(N/P, K)").unwrap();
        let a = at(&[("N", 1024.0), ("P", 16.0)]);
        let s = minimize(&t, "K", &a, &SolveOptions::default()).unwrap();
        assert!((s.k_star - 256.0 / 3.0).abs() < 1e-9, "{}", s.k_star);
        assert!((s.t_star - 1536.0).abs() < 1e-9);
        let (bk, bt) = brute(&t, "K", &a, 1.0, 4096.0);
        assert!(
            (bk - s.k_star).abs() / s.k_star < 1e-3 && bt >= s.t_star - 1e-9,
            "{bk} {bt}"
        );
        assert_eq!(s.branch.len(), 1);
        assert_eq!(s.branch[0].to_string(), "K >= N/P");
        let s = minimize(
            &t,
            "K",
            &a,
            &SolveOptions {
                range: None,
                integer: true,
            },
        )
        .unwrap();
        assert_eq!(s.integer.unwrap().0, 85.0);
    }

    /// K* over a grid of fixed P uses the grid's real extents: 8 ranks are 4 x 2, so
    /// N/(K*dims(P, 2, 1)) + K is least at sqrt(N/2), not at sqrt(N/2.83) of the balanced grid.
    #[test]
    fn grid_extents_of_a_fixed_p_stay_exact() {
        let t = parse("N/(K*dims(P, 2, 1)) + K").unwrap();
        let s = minimize(
            &t,
            "K",
            &at(&[("N", 1024.0), ("P", 8.0)]),
            &SolveOptions::default(),
        )
        .unwrap();
        assert!((s.k_star - 512f64.sqrt()).abs() < 1e-9, "{}", s.k_star);
        assert!(!s.relaxed);
    }

    #[test]
    fn breakpoint_wins_when_both_branches_push_towards_it() {
        // Left of N/P=64 T falls (stationary point at 128, infeasible); right of it T rises.
        let t = parse("N^2/(P*K) + K + 100*max(N/P, K)").unwrap();
        let a = at(&[("N", 1024.0), ("P", 16.0)]);
        let s = minimize(&t, "K", &a, &SolveOptions::default()).unwrap();
        assert_eq!(s.method, Method::Breakpoint);
        assert!((s.k_star - 64.0).abs() < 1e-9);
    }

    #[test]
    fn numeric_and_quadratic_fallbacks_match_brute_force() {
        let a = at(&[("N", 1e6)]);
        for (src, method) in [
            ("N/K + K*log2(K)", Method::Brent),
            ("N/K + K^2 + 30*K", Method::Cubic),
            ("N/K^2 + K^2/N + 3/K", Method::Brent),
        ] {
            let t = parse(src).unwrap();
            let s = minimize(
                &t,
                "K",
                &a,
                &SolveOptions {
                    range: Some((1.0, 1e6)),
                    integer: false,
                },
            )
            .unwrap();
            let (bk, _) = brute(&t, "K", &a, 1.0, 1e6);
            assert!(
                (bk - s.k_star).abs() / s.k_star < 1e-3,
                "{src}: {} vs {bk}",
                s.k_star
            );
            assert_eq!(s.method, method, "{src}");
        }
        let t = parse("K^3/3 - 5*K^2/2 + 6*K").unwrap(); // dT = (K-2)(K-3): min at 3, max at 2
        let s = minimize(
            &t,
            "K",
            &BTreeMap::new(),
            &SolveOptions {
                range: Some((2.5, 10.0)),
                integer: false,
            },
        )
        .unwrap();
        assert_eq!(s.method, Method::Quadratic);
        assert!((s.k_star - 3.0).abs() < 1e-9);
    }

    #[test]
    fn errors() {
        let t = parse("N/K").unwrap();
        assert!(matches!(
            minimize(&t, "K", &at(&[("N", 1.0)]), &SolveOptions::default()),
            Err(SolveError::NoMinimum { .. })
        ));
        assert!(matches!(
            minimize(&t, "K", &BTreeMap::new(), &SolveOptions::default()),
            Err(SolveError::Eval(_))
        ));
        assert!(matches!(
            minimize(&t, "Q", &BTreeMap::new(), &SolveOptions::default()),
            Err(SolveError::VarAbsent(_))
        ));
    }
}
