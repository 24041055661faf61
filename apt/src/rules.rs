//! The lattice rules of the propagation, as pure functions: trip counts from loop bounds,
//! the join of environments after a branch, agreement of call sites, condition text.
use std::collections::BTreeSet;

use symbolic::Expr;

use crate::interp::Env;
use crate::value::{input_with_default, Val};
use crate::Attr;

/// Source text on one line: continuation markers and runs of blanks collapsed.
pub fn source_text(text: &str) -> String {
    let parts: Vec<&str> = text
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches('&')
                .trim_end_matches('&')
                .trim()
        })
        .filter(|l| !l.is_empty())
        .collect();
    parts
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Trip count of `do var = lo, hi, step` (Fortran semantics; `hi` inclusive).
pub fn trip_count(lo: &Val, hi: &Val, step: &Val) -> Attr {
    let bound = |v: &Val, what: &str| match v {
        Val::Known(e) => Ok(e.clone()),
        Val::Unknown(r) => Err(format!("{what} {r}")),
        Val::Special(_) | Val::OrNull(_) => Err(format!("{what} is an MPI constant")),
    };
    let (lo, hi, step) = match (bound(lo, "bound"), bound(hi, "bound"), bound(step, "step")) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (Err(r), _, _) | (_, Err(r), _) | (_, _, Err(r)) => return Attr::Unresolved(r),
    };
    let one = Expr::one();
    match step.as_const() {
        Some(1.0) => Attr::Expr(&hi - &lo + one),
        Some(-1.0) => Attr::Expr(&lo - &hi + one),
        Some(c) if c > 0.0 => Attr::Expr(((&hi - &lo + one) / Expr::num(c)).ceil()),
        Some(c) if c < 0.0 => Attr::Expr(((&lo - &hi + one) / Expr::num(-c)).ceil()),
        Some(_) => Attr::Unresolved("zero step".into()),
        None => Attr::Expr(((&hi - &lo + &step) / &step).floor()),
    }
}

/// Join of the environments at the ends of an `if`'s arms.
pub fn merge(
    outs: Vec<Env>,
    line: u32,
    is_input: &dyn Fn(&str) -> bool,
    is_constant: &dyn Fn(&str) -> bool,
) -> Env {
    let mut keys: BTreeSet<String> = BTreeSet::new();
    for e in &outs {
        keys.extend(e.keys().cloned());
    }
    let mut env = Env::new();
    for k in keys {
        let vals: Vec<Option<&Val>> = outs.iter().map(|e| e.get(&k)).collect();
        let first = vals.first().copied().flatten();
        let all: Option<Vec<&Val>> = vals.iter().copied().collect();
        let defaulted = all.and_then(|a| input_with_default(&a, is_input, is_constant));
        let v = match (first, defaulted) {
            (Some(v), _) if vals.iter().all(|x| *x == Some(v)) => v.clone(),
            (_, Some(input)) => input,
            (_, None) => match vals.iter().flatten().find(|v| matches!(v, Val::Unknown(_))) {
                Some(u) if vals.iter().all(|x| x.is_some()) => (*u).clone(),
                _ => Val::unknown(format!("differs between branches at line {line}")),
            },
        };
        env.insert(k, v);
    }
    env
}

/// One value for all call sites (each with its line), or unknown with the reason, naming the
/// call sites that lack it or disagree.
pub fn agree(vals: impl Iterator<Item = (u32, Option<Val>)>, what: &str, callee: &str) -> Val {
    agree_by(vals, what, callee, &|_| None)
}

/// [`agree`], where two values agree also when they are equal with the program's named
/// constants at their values (`constant`): `smooth(u, NU1)` and `smooth(u, NU2)` with both
/// `#define`d as 2 (trial 19's multigrid read "differs between call sites"). The first call
/// site's value is kept.
pub fn agree_by(
    vals: impl Iterator<Item = (u32, Option<Val>)>,
    what: &str,
    callee: &str,
    constant: &dyn Fn(&str) -> Option<f64>,
) -> Val {
    let valued = |v: &Val| match v {
        Val::Known(e) => {
            let subs: std::collections::BTreeMap<String, symbolic::Expr> = e
                .vars()
                .into_iter()
                .filter_map(|n| constant(&n).map(|c| (n, symbolic::Expr::num(c))))
                .collect();
            Some(e.subs_all(&subs))
        }
        _ => None,
    };
    let same = |a: &Val, b: &Val| a == b || valued(a).is_some_and(|x| Some(x) == valued(b));
    let mut out: Option<(u32, Val)> = None;
    for (line, v) in vals {
        let Some(v) = v else {
            return Val::unknown(format!(
                "{what} of `{callee}` missing at the call at line {line}"
            ));
        };
        if let Val::Unknown(r) = &v {
            return Val::unknown(format!("{what} of `{callee}`: {r}"));
        }
        match &out {
            None => out = Some((line, v)),
            Some((_, o)) if same(o, &v) => {}
            Some((first, o)) => {
                return Val::unknown(format!(
                    "{what} of `{callee}` differs between call sites: {} at line {first}, {} at line {line}",
                    val_text(o),
                    val_text(&v)
                ))
            }
        }
    }
    out.map_or_else(
        || Val::unknown(format!("{what} of `{callee}` has no call site")),
        |(_, v)| v,
    )
}

/// A known value as a report prints it.
fn val_text(v: &Val) -> String {
    match v {
        Val::Known(e) => e.to_string(),
        Val::OrNull(o) => o.peer.to_string(),
        Val::Special(crate::value::Special::Wildcard) => "a wildcard".into(),
        Val::Special(crate::value::Special::ProcNull) => "MPI_PROC_NULL".into(),
        Val::Special(crate::value::Special::CommWorld) => "MPI_COMM_WORLD".into(),
        Val::Unknown(r) => format!("unknown ({r})"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn k(s: &str) -> Val {
        Val::Known(symbolic::parse(s).unwrap())
    }

    #[test]
    fn trips_follow_fortran_semantics() {
        assert_eq!(
            trip_count(&k("0"), &k("N - 1"), &k("1")),
            Attr::Expr(symbolic::parse("N").unwrap())
        );
        assert_eq!(
            trip_count(&k("N/P - 1"), &k("0"), &k("-1")),
            Attr::Expr(symbolic::parse("N/P").unwrap())
        );
        assert_eq!(
            trip_count(&k("1"), &k("N"), &k("2")),
            Attr::Expr(symbolic::parse("ceil(N/2)").unwrap())
        );
        assert_eq!(
            trip_count(&Val::unknown("held in array `dims`"), &k("N"), &k("1")),
            Attr::Unresolved("bound held in array `dims`".into())
        );
    }

    #[test]
    fn merge_keeps_only_agreeing_values() {
        let a: Env = [("n".to_string(), k("N")), ("x".to_string(), k("2"))]
            .into_iter()
            .collect();
        let b: Env = [("n".to_string(), k("N")), ("x".to_string(), k("0"))]
            .into_iter()
            .collect();
        let m = merge(vec![a, b], 7, &|_| false, &|_| false);
        assert_eq!(m.get("n"), Some(&k("N")));
        assert_eq!(
            m.get("x"),
            Some(&Val::unknown("differs between branches at line 7"))
        );
    }

    #[test]
    fn call_sites_must_agree() {
        let same = agree(
            [(3, Some(k("N"))), (5, Some(k("N")))].into_iter(),
            "argument `n`",
            "f",
        );
        assert_eq!(same, k("N"));
        let diff = agree(
            [(3, Some(k("N"))), (5, Some(k("N"))), (9, Some(k("2*N")))].into_iter(),
            "argument `n`",
            "f",
        );
        assert_eq!(
            diff,
            Val::unknown(
                "argument `n` of `f` differs between call sites: N at line 3, 2*N at line 9"
            )
        );
        let missing = agree(
            [(3, Some(k("N"))), (7, None)].into_iter(),
            "argument `n`",
            "f",
        );
        assert_eq!(
            missing,
            Val::unknown("argument `n` of `f` missing at the call at line 7")
        );
    }

    #[test]
    fn source_text_joins_continuations() {
        assert_eq!(
            source_text("A .LT. 1 .OR.\n     &    B .GT. 2"),
            "A .LT. 1 .OR. B .GT. 2"
        );
    }
}
