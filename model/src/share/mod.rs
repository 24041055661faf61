//! Branch shares from the source: an IF whose condition reads only the rank (with P and
//! constants) is taken by a share of the ranks that reach it that is a closed form in P
//! (`MOD(MYID, 2) == 0`: ceil(P/2)/P), and one that tests a loop index through `mod` or a bound
//! by a share of the loop's iterations (`MOD(ISTEP, NOUT) == 0` over ISTEP = 1..NSTEP:
//! floor(NSTEP/NOUT)/NSTEP; `ISTEP == 1`: 1/NSTEP). Each closed form is checked by counting the
//! condition exactly at many P (or parameter values); the build takes it when it also gives
//! every traced share.

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod build_tests;
mod comparison;
mod index;
mod rank;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use apt::{Apt, Attr, Node, NodeData};
use symbolic::{Atom, Expr};

use crate::quantity::Samples;
use comparison::Comparison;
use index::index_share;
use rank::{rank_share, Division};

/// What encloses a node in its routine, outermost first.
#[derive(Debug, Clone)]
pub enum Outer {
    /// An IF arm: its condition (empty when unresolved), the symbols it reads, and whether the
    /// node sits where the condition holds (`children`) or not (`else_children`).
    If {
        cond: String,
        symbolic: bool,
        vars: BTreeSet<String>,
        taken: bool,
    },
    /// A loop: its variable (none for while loops) and trip count per entry.
    Loop {
        var: Option<String>,
        trip: Attr,
        /// The index's first value, where the source gives it ([`apt::LoopNode::start`]).
        start: Option<i64>,
    },
}

/// [`Outer`] lists of every node, by site.
pub fn enclosing(apt: &Apt) -> BTreeMap<u32, Vec<Outer>> {
    fn go(n: &Node, path: &mut Vec<Outer>, out: &mut BTreeMap<u32, Vec<Outer>>) {
        out.insert(n.site.0, path.clone());
        let arms: [(&[Node], bool); 2] = [(&n.children, true), (&n.else_children, false)];
        for (nodes, taken) in arms {
            let pushed = match &n.data {
                NodeData::If(i) => {
                    path.push(Outer::If {
                        cond: i.cond.clone(),
                        symbolic: i.unresolved.is_none() && !i.cond.is_empty(),
                        vars: i.vars.clone(),
                        taken,
                    });
                    true
                }
                NodeData::Loop(l) => {
                    path.push(Outer::Loop {
                        var: l.var.clone(),
                        trip: l.trip.clone(),
                        start: l.start,
                    });
                    true
                }
                _ => false,
            };
            for c in nodes {
                go(c, path, out);
            }
            if pushed {
                path.pop();
            }
        }
    }
    let mut out = BTreeMap::new();
    for r in &apt.routines {
        go(r, &mut Vec::new(), &mut out);
    }
    out
}

/// Whether the program is Fortran (apt's language is the front end's type, which this crate
/// does not depend on: read through its name).
pub fn is_fortran(apt: &Apt) -> bool {
    format!("{:?}", apt.language) == "Fortran"
}

/// A branch share derived from the source.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceShare {
    pub expr: Expr,
    /// What it is the mean over (`rank = 0..P-1`, `istep = 1..NSTEP`).
    pub over: String,
}

/// The facts [`source_share`] reads besides the condition.
pub struct Context<'a> {
    /// Named constants of the program (substituted into conditions and trip counts).
    pub consts: &'a BTreeMap<String, Expr>,
    /// The run parameters (P among them when the runs set it).
    pub params: &'a [String],
    /// Fortran: a DO loop's index starts at 1 more often than at 0 (C: the other way round);
    /// the order in which the two starts are tried when the traces cannot tell them apart.
    pub fortran: bool,
}

/// The share of evaluations that take the IF `cond` (its enclosing arms and loops `outer`),
/// from the source, when it is a mean over the ranks or over a loop's index that matches every
/// traced share in `traced` (or there is none). A conjunction of conditions on the rank and
/// one on a loop index (`b == 0 && mod(rank, py) > 0`: the first block of the ranks off the
/// grid's first column) is the product of the two means: every rank runs the same iterations.
pub fn source_share(
    cond: &str,
    outer: &[Outer],
    ctx: &Context<'_>,
    traced: &Samples,
) -> Option<SourceShare> {
    if cond.contains("||") {
        return None;
    }
    let parts = cond
        .split("&&")
        .map(|c| Some(Comparison::parse(c.trim())?.subs(ctx.consts)))
        .collect::<Option<Vec<_>>>()?;
    let fits = |e: &Expr| matches_traced(e, traced);
    let (on_rank, others): (Vec<Comparison>, Vec<Comparison>) = parts
        .into_iter()
        .partition(|c| c.vars().contains(apt::params::RANK));
    let index = match others.as_slice() {
        [] => vec![(Expr::one(), None)],
        [c] => loop_shares(c, outer, ctx, traced)
            .into_iter()
            .map(|(e, over)| (e, Some(over)))
            .collect(),
        _ => return None,
    };
    if on_rank.is_empty() {
        return index.into_iter().find_map(|(e, over)| {
            fits(&e).then(|| SourceShare {
                expr: e,
                over: over.unwrap_or_default(),
            })
        });
    }
    let ps = traced_ps(traced);
    for div in [Division::Truncating, Division::Exact] {
        let Some((r, guarded)) = rank_share(&on_rank, outer, ctx, &ps, div) else {
            continue;
        };
        let ranks = if guarded {
            "the ranks that reach it"
        } else {
            "rank = 0..P-1"
        };
        for (i, over) in &index {
            let e = r.clone() * i.clone();
            if fits(&e) {
                return Some(SourceShare {
                    expr: e,
                    over: match over {
                        Some(o) => format!("{ranks} and {o}"),
                        None => ranks.into(),
                    },
                });
            }
        }
    }
    None
}

/// The means of `c` over the innermost enclosing loop whose index it reads (each start the
/// index may have, the likelier first), with the range each is over.
fn loop_shares(
    c: &Comparison,
    outer: &[Outer],
    ctx: &Context<'_>,
    traced: &Samples,
) -> Vec<(Expr, String)> {
    let vars = c.vars();
    let Some((at, var, trip, start)) = outer.iter().enumerate().rev().find_map(|(k, o)| match o {
        Outer::Loop {
            var: Some(v),
            trip: Attr::Expr(t),
            start,
        } => {
            let sym = [v.clone(), format!("{v}_loop")]
                .into_iter()
                .find(|s| vars.contains(s))?;
            Some((k, sym, t.subs_all(ctx.consts), *start))
        }
        _ => None,
    }) else {
        return Vec::new();
    };
    let known = |v: &String| *v == var || ctx.params.contains(v);
    if !vars.iter().all(known) || !trip.vars().iter().all(|v| ctx.params.contains(v)) {
        return Vec::new();
    }
    // a step other than 1 rounds the count (ceil((hi - lo + 1)/s)): the index is not every
    // whole number of its range, which the counts below assume
    let stepped = trip.terms().iter().any(|t| {
        t.factors()
            .iter()
            .any(|(a, _)| matches!(a, Atom::Floor(_) | Atom::Ceil(_)))
    });
    if stepped {
        return Vec::new();
    }
    // an arm between the loop and the IF that also tests the index selects iterations
    if outer[at..].iter().any(|o| match o {
        Outer::If { vars, .. } => vars.contains(&var),
        Outer::Loop { .. } => false,
    }) {
        return Vec::new();
    }
    // the source's start where it gives one; else each the index may have, the likelier first
    let starts: Vec<i64> = match start {
        Some(s) => vec![s],
        None if ctx.fortran => vec![1, 0],
        None => vec![0, 1],
    };
    starts
        .into_iter()
        .filter_map(|lo| {
            let e = index_share(c, &var, lo, &trip, traced)?;
            Some((
                e,
                format!("{var} = {lo}..{}", trip.clone() + Expr::int(lo - 1)),
            ))
        })
        .collect()
}

/// Whether `e` gives every traced share (to 1e-9).
fn matches_traced(e: &Expr, s: &Samples) -> bool {
    s.points.iter().zip(&s.values).all(|(row, v)| {
        let at = |name: &str| s.params.iter().position(|p| p == name).map(|k| row[k]);
        e.eval(&at).is_ok_and(|x| (x - v).abs() <= 1e-9)
    })
}

fn traced_ps(s: &Samples) -> Vec<i64> {
    let Some(k) = s.params.iter().position(|p| p == "P") else {
        return Vec::new();
    };
    s.points.iter().map(|r| r[k].round() as i64).collect()
}

/// For each run parameter, the branches whose condition tests it but whose share was fitted
/// without it (`at` names a site's place): a parameter T misses may reach the time only
/// there, and the warning should say so rather than blame code the analysis does not follow.
pub fn fitted_without(
    branches: &[(u32, &apt::IfNode, &Expr)],
    params: &[String],
    at: &dyn Fn(u32) -> String,
) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (site, i, share) in branches {
        for x in i.vars.iter().filter(|x| params.contains(x)) {
            if !share.contains_var(x) {
                out.entry(x.clone()).or_default().push(format!(
                    "the branch at {} (site {site}, `{}`) tests {x}, but its share was fitted without it ({share})",
                    at(*site),
                    i.cond
                ));
            }
        }
    }
    out.into_iter().map(|(k, v)| (k, v.join("; "))).collect()
}
