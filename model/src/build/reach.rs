//! Computations the tree miscounts. A computation's entries are the product of the trips and
//! branch shares on its path ([`Ctx::entries`]); where control flow augur does not analyse
//! skips or repeats it — a computed `GO TO (100, 200, 300) MODE` whose targets each run one
//! iteration in three, read as straight code that runs them all — the runs' own entries say
//! how often it ran. Where every run's measured entries per rank stand apart from the tree's
//! count the same way (5% or more, all fewer or all more), the computation's cost is charged
//! at the measured share: fitted over the runs as any quantity, a share of at most 1 where
//! every run ran it less often.

use symbolic::Expr;

use super::compose::Ctx;
use super::env::{Env, Notes};
use super::QuantityReport;
use crate::quantity::{fit_quantity, Origin};

/// How far the measured entries must stand from the tree's count in every run.
const APART: f64 = 0.05;

/// Fills `ctx.reach` for the computations outside phases whose runs' entries the tree does not
/// count, with a warning and a fitted quantity (`reach`) for each.
pub(super) fn fit_reach(
    env: &Env<'_>,
    ctx: &mut Ctx<'_>,
    outside_phases: &[u32],
    notes: &mut Notes,
) {
    for &site in outside_phases {
        if !ctx.compute.contains_key(&site) || in_recursion(env, ctx, site) {
            continue;
        }
        let tree = ctx.entries(site, &env.paths, env.main);
        let samples = env.samples_of(&|r| {
            let (entries, _) = r.compute_totals(site)?;
            let at = |v: &str| match v {
                "P" => Some(r.p() as f64),
                _ => r.params.get(v).copied(),
            };
            let expected = tree.eval(&at).ok().filter(|e| *e >= 1.0)?;
            Some(entries as f64 / r.p().max(1) as f64 / expected)
        });
        if samples.values.len() < 2 {
            continue;
        }
        let fewer = samples.values.iter().all(|v| *v <= 1.0 - APART);
        let more = samples.values.iter().all(|v| *v >= 1.0 + APART);
        if !(fewer || more) {
            continue;
        }
        let mut fit = fit_quantity(&samples, None, &[], true, env.qopts);
        if fewer {
            let share = |e: &Expr| Expr::min(Expr::one(), Expr::max(Expr::zero(), e.clone()));
            fit.expr = share(&fit.expr);
            fit.lo = share(&fit.lo);
            fit.hi = share(&fit.hi);
        }
        fit.origin = Origin::Regression;
        let mean = samples.values.iter().sum::<f64>() / samples.values.len() as f64;
        notes.warnings.push(format!(
            "the computation at {} ran {:.3} times per rank for each time its place in the program implies (mean over the runs): control flow augur does not analyse (a GOTO, an arithmetic IF, a jump out of a loop) {} it, or an enclosing count is off; charged at the measured share {}",
            env.at(site),
            mean,
            if fewer { "skips" } else { "repeats" },
            fit.expr
        ));
        notes.quantities.push(QuantityReport {
            what: "reach".into(),
            site,
            line: env.nodes.get(&site).map_or(0, |n| n.line),
            file: env.file_of(site),
            source: "entries measured against the enclosing trips and branches".into(),
            fit: fit.clone(),
        });
        ctx.reach.insert(site, fit);
    }
}

/// Whether `site` lies in a routine of a recursive cycle, whose executions the tree counts
/// per call ([`crate::recursion`]) rather than in [`Ctx::entries`].
fn in_recursion(env: &Env<'_>, ctx: &Ctx<'_>, site: u32) -> bool {
    ctx.routine_of(site, &env.paths)
        .is_some_and(|r| ctx.recursion.values().any(|rec| rec.cycle.contains(&r)))
}
