//! The build's last stages: what it says about its own fits (quantities filled by regression,
//! data-dependent counts taken as measured, recursion counted in the runs), the time the phase
//! and computation costs leave unexplained, fitted as overhead (seed 004 §5.3), the parameters
//! T misses, and each phase's share of T.

use std::collections::{BTreeMap, BTreeSet};

use apt::NodeData;
use symbolic::Expr;

use super::compose::Ctx;
use super::env::{Env, Notes};
use super::tree::Paths;
use super::{PhaseReport, QuantityReport, BOUNDS};
use crate::observe::RunObs;
use crate::quantity::QuantityOptions;

/// Warns about each quantity reported so far that regression filled, or that is unresolved in
/// the source and came out the same in every run; a branch share in `unexplained` has its own
/// warning, which says more, and a cold first entry's excess is a measurement no source says.
pub(super) fn fit_warnings(env: &Env<'_>, unexplained: &BTreeSet<u32>, notes: &mut Notes) {
    // one line per kind and law: a halo's four loops over one edge fitted alike are one fact
    // (trial 12: twelve lines for one program)
    let mut filled: Vec<(&str, String, Vec<u32>)> = Vec::new();
    let start = notes.warnings.len();
    for q in &notes.quantities {
        if (q.what == "branch" && unexplained.contains(&q.site)) || q.what == "cold" {
            continue;
        }
        if q.fit.origin.by_regression() && q.fit.points > 0 {
            let law = q.fit.expr.to_string();
            match filled
                .iter_mut()
                .find(|(w, l, _)| *w == q.what && *l == law)
            {
                Some((_, _, sites)) => sites.push(q.site),
                None => filled.push((&q.what, law, vec![q.site])),
            }
        } else if q.fit.origin == crate::quantity::Origin::Constant
            && q.fit.points > 1
            && q.source.starts_with("unresolved")
        {
            // a data-dependent count (a convergence loop) that happened not to vary
            notes.warnings.push(format!(
                "{} at {} (site {}) is unresolved in the source and the same in every run: taken as the measured {}; if it depends on the data or on a parameter the runs did not vary, T does not follow it",
                q.what,
                env.at(q.site),
                q.site,
                q.fit.expr
            ));
        }
    }
    let mut lines: Vec<String> = filled
        .into_iter()
        .map(|(what, law, sites)| {
            let at: Vec<String> = sites.iter().map(|s| env.at(*s)).collect();
            let ids: Vec<String> = sites.iter().map(u32::to_string).collect();
            if sites.len() == 1 {
                format!(
                    "{what} at {} (site {}) filled by regression: {law}",
                    at[0], ids[0]
                )
            } else {
                let at = if sites.iter().all(|s| env.file_of(*s).is_none()) {
                    let lines: Vec<String> = at
                        .iter()
                        .map(|a| a.trim_start_matches("line ").to_string())
                        .collect();
                    format!("lines {}", lines.join(", "))
                } else {
                    at.join(", ")
                };
                format!(
                    "{what} at {at} (sites {}) filled by regression: {law}",
                    ids.join(", ")
                )
            }
        })
        .collect();
    // before this stage's other warnings, after the earlier stages'
    let rest = notes.warnings.split_off(start);
    lines.extend(rest);
    notes.warnings.extend(lines);
}

/// Warns about each size per message reported from `from` on (the phase costs') that
/// regression filled: the phase's cost follows a law of the traced sizes, not the source.
pub(super) fn size_warnings(env: &Env<'_>, from: usize, notes: &mut Notes) {
    let filled: Vec<String> = notes.quantities[from.min(notes.quantities.len())..]
        .iter()
        .filter(|q| q.what == "bytes" && q.fit.origin.by_regression() && q.fit.points > 0)
        .map(|q| {
            // a collective whose traced size is all a rank sends (`MPI_Alltoallv`) is costed
            // with it shared among the ranks: its size is per call, not per message (trial 21
            // read "size per message" beside "shared evenly among the ranks")
            let per_call = env
                .nodes
                .get(&q.site)
                .is_some_and(|n| match &n.data {
                    apt::NodeData::Comm(c) => super::sheet::sheet_op(c, env.machine).is_some_and(|s| s.per_pair),
                    _ => false,
                });
            // the size fitted is the phase's largest message per run (an exchange waits for
            // it), which a site sending several faces in turn exceeds on its smaller ones
            // (trial 15 read "exact" as every message's)
            let exact = match (q.fit.max_rel_err <= 1e-6, per_call) {
                (true, false) => ", exact for the largest message of every traced run (the size every message of the exchange is charged)",
                (true, true) => ", exact for the largest call of every traced run",
                _ => "",
            };
            let what = if per_call {
                "size per call (all a rank sends, shared among the ranks by the cost)"
            } else {
                "size per message"
            };
            format!(
                "{what} at {} (site {}) is {}: filled by regression{exact}: {}",
                env.at(q.site),
                q.site,
                q.source,
                q.fit.expr
            )
        })
        .collect();
    notes.warnings.extend(filled);
}

/// The recursive routines and their executions per call from outside their cycle, counted in
/// the runs; each reported and warned about (its levels are costed as the mean execution).
pub(super) fn recursion(
    env: &Env<'_>,
    qopts: &QuantityOptions,
    notes: &mut Notes,
) -> BTreeMap<String, crate::recursion::Recursive> {
    let recursion = crate::recursion::find(env.apt, env.runs, &env.params, qopts);
    for (name, r) in &recursion {
        notes.quantities.push(QuantityReport {
            what: "calls".into(),
            site: r.site,
            line: env.nodes.get(&r.site).map_or(0, |n| n.line),
            file: env.file_of(r.site),
            source: format!("measured: executions of `{name}` per call from outside its recursion"),
            fit: r.per_call.clone(),
        });
        notes.warnings.push(format!(
            "routine `{name}` ({}) is recursive: a call from outside its recursion costs {} executions of its body (counted in the runs, R² {:.2}), each at the trip counts and work of the mean execution (the recursion's levels together), not level by level",
            env.at(r.site),
            r.per_call.expr,
            r.per_call.r2,
        ));
    }
    recursion
}

/// Adds to `t` what the phase and computation costs leave unexplained (tracer and sequential
/// code outside computation phases, waiting the phase formulas miss; seed 004 §5.3) as a
/// function of how often each loop body runs, reported and warned about.
pub(super) fn residual(
    env: &Env<'_>,
    ctx: &Ctx<'_>,
    paths: &Paths,
    t: &mut [Expr; 3],
    notes: &mut Notes,
) {
    let loops: Vec<(u32, Expr)> = env
        .nodes
        .values()
        .filter(|n| {
            matches!(&n.data, NodeData::Loop(l) if !l.compute) && ctx.trips.contains_key(&n.site.0)
        })
        .map(|n| (n.site.0, ctx.occurrences(n.site.0, paths, env.main)))
        .collect();
    let Some((fit, held)) = crate::residual::fit_residual(&t[1], &loops, env.runs, &env.params)
    else {
        return;
    };
    notes.quantities.push(QuantityReport {
        what: "overhead".into(),
        site: 0,
        line: 0,
        file: env.file_of(0),
        source: "outside computation phases".into(),
        fit: fit.clone(),
    });
    let grows = fit.expr.terms().iter().any(|t| !t.is_constant());
    let law = format!(
        "time outside computation phases and the phase formulas filled by regression: {}",
        fit.expr
    );
    notes.warnings.push(if let Some((most, true)) = held {
        format!(
            "{law} — weakly supported (R² {:.2} over the runs' residuals): it improves held-out error here, but its law in P is held at P = {most} beyond the traced P, where its growth would be a guess",
            fit.r2
        )
    } else if let Some((most, _)) = held {
        // two P: its step between them is measured, its growth beyond is not (trial 18)
        let ps: BTreeSet<u64> = env.runs.iter().map(|r| r.p() as u64).collect();
        let ps: Vec<String> = ps.iter().map(u64::to_string).collect();
        format!(
            "{law} — its law in P is fitted to two values of P ({}): it is held at P = {most} beyond them, where how this time grows with P is not seen (profile at three or more P to fit it)",
            ps.join(", ")
        )
    } else if grows && fit.r2 < 0.5 {
        format!(
            "{law} — weakly supported (R² {:.2} over the runs' residuals): it improves held-out error here but its growth beyond the traced range is a guess",
            fit.r2
        )
    } else if fit.r2 < 0.0 && fit.max_rel_err > 0.25 && fit.points > 2 {
        // a constant the residuals scatter about, by more than a quarter of it (trial 28:
        // R² -0.33 said nothing where a law's R² 0.24 was "weakly supported")
        format!(
            "{law} — a constant the runs' residuals scatter about (R² {:.2}, up to {:.0}% from it): they follow no law of the parameters, so this part of T is their typical value, not a law of the program",
            fit.r2,
            100.0 * fit.max_rel_err
        )
    } else {
        law
    });
    for (i, b) in BOUNDS.iter().enumerate() {
        t[i] = t[i].clone() + fit.at(*b).clone();
    }
}

/// Warns about the parameters T (its typical value `t`) misses, blaming a branch share fitted
/// without one where there is such a branch.
pub(super) fn missing_params_warnings(env: &Env<'_>, t: &Expr, notes: &mut Notes) {
    let branches: Vec<(u32, &apt::IfNode, &Expr)> = notes
        .quantities
        .iter()
        .filter(|q| q.what == "branch")
        .filter_map(|q| match env.nodes.get(&q.site).map(|n| &n.data) {
            Some(NodeData::If(i)) => Some((q.site, i, &q.fit.expr)),
            _ => None,
        })
        .collect();
    let blame = crate::share::fitted_without(&branches, &env.params, &|s| env.at(s));
    let missing = missing_params(t, env.runs, &env.params, &blame);
    notes.warnings.extend(missing);
}

/// Each phase's seconds of T: occurrences × cost + fills × fill, occurrences the product of
/// enclosing trips × probs.
/// Each computation's seconds of T outside the phases: entries × cost per entry (none for one
/// inside a phase, whose time the phase's total holds).
pub(super) fn compute_totals(
    ctx: &Ctx<'_>,
    paths: &Paths,
    main: &str,
    reports: &mut [super::ComputeReport],
) {
    for c in reports.iter_mut().filter(|c| c.inside_phase.is_none()) {
        let entries = match ctx.reach.get(&c.site) {
            Some(r) => ctx.entries(c.site, paths, main) * r.expr.clone(),
            None => ctx.entries(c.site, paths, main),
        };
        c.total = Some(entries * c.cost.clone());
    }
}

pub(super) fn phase_totals(ctx: &Ctx<'_>, paths: &Paths, main: &str, reports: &mut [PhaseReport]) {
    for p in reports {
        let occ = ctx.occurrences(p.ancestor, paths, main);
        let pc = &ctx.phase_cost[&p.id];
        p.total = occ * pc.per[1].clone() + ctx.fills(p.ancestor, paths, main) * pc.fill[1].clone();
    }
}

/// Parameters the runs varied, that T does not depend on, though two runs differing only in
/// that parameter differ in measured time by more than 10%: the time went somewhere the APT
/// does not follow (a loop built with GOTO, array syntax, a bound read from input the source
/// analysis lost), and T will not extrapolate in it.
///
/// Also: a parameter every run took at one value that T does not mention.
///
/// `blame`: per parameter, the branches that test it with a share fitted without it
/// ([`crate::share::fitted_without`]), named as the cause instead.
pub(super) fn missing_params(
    t: &Expr,
    runs: &[RunObs],
    params: &[String],
    blame: &BTreeMap<String, String>,
) -> Vec<String> {
    let in_t = t.vars();
    let mut out = Vec::new();
    for x in params {
        let values: BTreeSet<u64> = runs
            .iter()
            .filter_map(|r| r.params.get(x).map(|v| v.to_bits()))
            .collect();
        if x == "P" && runs.len() > 1 && values.len() == 1 {
            let v = values.iter().next().map_or(0.0, |b| f64::from_bits(*b));
            out.push(format!(
                "every run had P = {v}: how the fitted quantities (work per entry, message sizes, branch shares, depths) change with P is not seen, only what the source and the machine sheet say; predictions at other P are not validated (profile at two or more P)"
            ));
            continue;
        }
        if runs.len() > 1 && values.len() == 1 && !in_t.contains(x) {
            // (where the source gives a law in it, a trip count, T has it from there)
            let v = values.iter().next().map_or(0.0, |b| f64::from_bits(*b));
            out.push(format!(
                "{x} took one value ({v}) in every run and the source gives no law in it: T does not depend on {x}; predictions at other {x} are not valid (profile at two or more values)"
            ));
            continue;
        }
        if x == "P" || in_t.contains(x) {
            continue;
        }
        let others = |r: &RunObs| -> Vec<(String, u64)> {
            r.params
                .iter()
                .filter(|(k, _)| *k != x)
                .map(|(k, v)| (k.clone(), v.to_bits()))
                .collect()
        };
        let mut worst: Option<(f64, &RunObs, &RunObs)> = None;
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                if a.params.get(x) == b.params.get(x) || others(a) != others(b) {
                    continue;
                }
                let d = (a.time - b.time).abs() / a.time.min(b.time).max(f64::MIN_POSITIVE);
                if worst.is_none_or(|(w, _, _)| d > w) {
                    worst = Some((d, a, b));
                }
            }
        }
        let Some((d, a, b)) = worst.filter(|(d, _, _)| *d > 0.1) else {
            continue;
        };
        let cause = blame.get(x).map_or(
            "the work it scales is in code the source analysis does not follow (see `augur apt` warnings: GOTO loops, array syntax, bounds read into arrays)",
            String::as_str,
        );
        out.push(format!(
            "{x} varies across the runs and the time with it ({} {:.4e} s, {} {:.4e} s: {:.0}% apart), but T does not depend on {x}: {cause}; predictions at other {x} are not valid",
            a.config,
            a.time,
            b.config,
            b.time,
            100.0 * d
        ));
    }
    out
}
