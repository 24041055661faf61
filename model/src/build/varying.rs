//! A count per entry (a loop's trip, a computation's work) that differs between the entries of
//! one run, as a multigrid level's size held in an array (`nl[l] = nl[l-1]/2`) makes it: its
//! mean per entry is no law of the parameters (Σ_l (N/P)/2^l over log2(N/P) − 1 levels), and a
//! law fitted to it anyway, times the enclosing loop's trip, grows as (N/P)·log2(N/P) where the
//! work grows as 2N/P (trial 19's mg1d: +102% at 32 times the largest traced N). What follows a
//! law is the count summed per iteration of a loop enclosing every entry, and the entries per
//! iteration of that loop: the count per entry is their quotient, and T, which multiplies it
//! back by the entries, extrapolates the sum.

use std::collections::BTreeSet;

use apt::NodeData;
use symbolic::Expr;

use super::env::{Env, Notes};
use crate::observe::RunObs;
use crate::quantity::{Fitted, Origin, Samples};

/// A per-entry law within this relative error of every run follows the counts: nothing to
/// replace.
const EXACT: f64 = 1e-3;

/// An entry with this many times the iterations of another entry of the same run marks a
/// count that varies between entries.
const SPREAD: u64 = 2;

/// The widest spread of a loop's iterations per entry within one rank's entries of one run,
/// over the runs: (fewest, most, the run's configuration), where the most is [`SPREAD`] times
/// the fewest or more.
pub(super) fn spread(env: &Env<'_>, loops: &[u32]) -> Option<(u64, u64, String)> {
    env.runs
        .iter()
        .flat_map(|r| {
            loops
                .iter()
                .filter_map(move |l| r.loop_span(*l).map(|s| (s, r)))
        })
        .filter(|((lo, hi), _)| *hi >= SPREAD * (*lo).max(1))
        .max_by(|((a0, a1), _), ((b0, b1), _)| {
            (*a1 as f64 / (*a0).max(1) as f64).total_cmp(&(*b1 as f64 / (*b0).max(1) as f64))
        })
        .map(|((lo, hi), r)| (lo, hi, r.config.clone()))
}

/// The loops enclosing executions of `site` (through the calls of its routine, up to the main
/// program): those on every way to it first, innermost first, then those on some way only, in
/// the order the ways meet them.
pub(super) fn enclosing_loops(env: &Env<'_>, site: u32) -> Vec<u32> {
    let mut chains = Vec::new();
    chains_to(env, site, &mut Vec::new(), &mut chains);
    let on_all = |l: &u32| chains.iter().all(|c| c.contains(l));
    let mut out: Vec<u32> = chains
        .first()
        .map(|c| c.iter().filter(|l| on_all(l)).copied().collect())
        .unwrap_or_default();
    for l in chains.iter().flatten() {
        if !out.contains(l) {
            out.push(*l);
        }
    }
    out
}

/// The enclosing loops of each way from the main program to `site`, innermost first (at most
/// 64 ways; a recursive routine's calls to itself left out).
fn chains_to(env: &Env<'_>, site: u32, stack: &mut Vec<String>, out: &mut Vec<Vec<u32>>) {
    const MOST: usize = 64;
    for path in env.paths.get(&site).map(Vec::as_slice).unwrap_or(&[]) {
        let here: Vec<u32> = path
            .iter()
            .rev()
            .filter(|s| **s != site)
            .filter(|s| matches!(env.nodes.get(s).map(|n| &n.data), Some(NodeData::Loop(_))))
            .copied()
            .collect();
        let routine = path
            .first()
            .and_then(|r| env.nodes.get(r))
            .and_then(|n| match &n.data {
                NodeData::Routine { name, .. } => Some(name.clone()),
                _ => None,
            });
        let calls: Vec<u32> = match &routine {
            Some(r) if r != env.main && !stack.contains(r) => env
                .nodes
                .values()
                .filter(|n| matches!(&n.data, NodeData::Call { callee, .. } if callee == r))
                .map(|n| n.site.0)
                .collect(),
            _ => Vec::new(),
        };
        if calls.is_empty() {
            out.push(here);
        } else if let Some(r) = routine {
            stack.push(r);
            for c in calls {
                if out.len() >= MOST {
                    break;
                }
                let mut above = Vec::new();
                chains_to(env, c, stack, &mut above);
                for a in above.into_iter().take(MOST - out.len()) {
                    out.push(here.iter().chain(&a).copied().collect());
                }
            }
            stack.pop();
        }
        if out.len() >= MOST {
            return;
        }
    }
}

/// A count per entry as the quotient of two laws ([`per_enclosing`]).
pub(super) struct Quotient {
    /// The count per entry: `sum / entries`.
    pub(super) fit: Fitted,
    /// The enclosing loop both are taken per iteration of.
    pub(super) over: u32,
    /// The count summed per iteration of `over`.
    pub(super) sum: Fitted,
    /// The entries per iteration of `over`.
    pub(super) entries: Fitted,
}

/// The count per entry of `site` (`counted`: a run's count and entries, each summed over the
/// ranks) as its sum per iteration of an enclosing loop over its entries per iteration, where
/// the mean per entry (`direct`) follows no law and the entries of one run differ (`spread`,
/// warned about either way). The enclosing loops are tried in [`enclosing_loops`]' order; the
/// first whose sum and entries both follow their laws is taken, else the one whose quotient
/// comes closest to the runs, where it is closer than `direct`. None where the mean per entry
/// stands.
pub(super) fn per_enclosing(
    env: &Env<'_>,
    site: u32,
    what: &str,
    direct: &Fitted,
    spread: Option<&(u64, u64, String)>,
    counted: &dyn Fn(&RunObs) -> Option<(f64, f64)>,
    notes: &mut Notes,
) -> Option<Quotient> {
    let (lo, hi, config) = spread?;
    if direct.max_rel_err <= EXACT {
        return None;
    }
    let mean = env.samples_of(&|r| counted(r).filter(|(_, e)| *e > 0.0).map(|(c, e)| c / e));
    let mut best: Option<(f64, Quotient)> = None;
    let mut tried = BTreeSet::new();
    for over in enclosing_loops(env, site) {
        let per = |r: &RunObs| -> Option<f64> {
            r.loop_totals(over)
                .map(|(_, it)| it as f64)
                .filter(|d| *d > 0.0)
        };
        let sums = env.samples_of(&|r| Some(counted(r)?.0 / per(r)?));
        let entries = env.samples_of(&|r| Some(counted(r)?.1 / per(r)?));
        if sums.values.len() != mean.values.len() || entries.values.len() != mean.values.len() {
            continue;
        }
        // entries per iteration the same in every run: the quotient is the mean again
        let e0 = entries.values.first().copied().unwrap_or(0.0);
        if entries
            .values
            .iter()
            .all(|e| (e - e0).abs() <= 1e-9 * e0.abs())
        {
            continue;
        }
        // the same samples as a loop tried already (a loop whose every iteration is one
        // iteration of the one above)
        let key: Vec<u64> = entries.values.iter().map(|v| v.to_bits()).collect();
        if !tried.insert(key) {
            continue;
        }
        let sum = super::phase_context::fit_whole_count(env, &sums, None);
        let mut ent = super::phase_context::fit_whole_count(env, &entries, None);
        if !stays_a_count(env, &sum.expr) || !stays_a_count(env, &ent.expr) {
            continue;
        }
        // the entries per iteration never below the fewest the runs had (1 where every run
        // entered at least once): a law of them that falls with P (a multigrid's levels,
        // `-log2(P) + 11.72`) would reach 0 beyond the runs, and the quotient a pole there
        // (trial 27: T of 91 hours at P = 4096)
        let fewest = entries.values.iter().copied().fold(f64::INFINITY, f64::min);
        if fewest.is_finite() && fewest > 0.0 {
            let floor = Expr::num(if fewest >= 1.0 { 1.0 } else { fewest });
            ent.expr = Expr::max(ent.expr.clone(), floor.clone());
            ent.lo = Expr::max(ent.lo.clone(), floor.clone());
            ent.hi = Expr::max(ent.hi.clone(), floor);
        }
        let q = quotient(&sum, &ent, &mean);
        let exact = sum.max_rel_err <= EXACT && ent.max_rel_err <= EXACT;
        let found = Quotient {
            fit: q,
            over,
            sum,
            entries: ent,
        };
        if exact {
            best = Some((0.0, found));
            break;
        }
        let err = found.fit.max_rel_err;
        if err < direct.max_rel_err && best.as_ref().is_none_or(|(e, _)| err < *e) {
            best = Some((err, found));
        }
    }
    let at = env.at(site);
    match best {
        Some((_, q)) => {
            let over = format!("per iteration of the loop at {}", env.at(q.over));
            notes.warnings.push(format!(
                "{what} at {at} (site {site}) varies from {lo} to {hi} between entries of one run ({config}): taken as its sum {over} ({}) over its entries there ({}), which follow laws where a mean per entry ({}) does not",
                q.sum.expr, q.entries.expr, direct.expr
            ));
            Some(q)
        }
        None => {
            notes.warnings.push(format!(
                "{what} at {at} (site {site}) varies from {lo} to {hi} between entries of one run ({config}): a mean per entry ({}) times the enclosing loops' trips is extrapolated, and no law of its sum per iteration of an enclosing loop, over its entries there, fits the runs better and stays positive beyond them",
                direct.expr
            ));
            None
        }
    }
}

/// Whether the law `e` stays positive at every traced run, and there with any one parameter
/// but P at 100 times its value: a sum or a count of entries fitted with a term that falls as a
/// parameter grows (`-0.02*NCYCLE + log2(N) - log2(P) + 0.3`: the entries per cycle of a
/// routine also called once before the cycles, whose share `1/NCYCLE` a linear term stood in
/// for) would turn the quotient negative beyond the runs.
fn stays_a_count(env: &Env<'_>, e: &Expr) -> bool {
    env.runs.iter().all(|r| {
        std::iter::once(None)
            .chain(r.params.keys().filter(|k| *k != "P").map(Some))
            .all(|scaled| {
                let v = e.eval(&|name| {
                    let x = r.params.get(name).copied()?;
                    Some(if Some(name) == scaled.map(String::as_str) {
                        100.0 * x
                    } else {
                        x
                    })
                });
                v.is_ok_and(|v| v.is_finite() && v > 0.0)
            })
    })
}

/// `sum / entries` as a fitted count per entry, scored against the means per entry `mean`.
fn quotient(sum: &Fitted, entries: &Fitted, mean: &Samples) -> Fitted {
    let expr = &sum.expr / &entries.expr;
    let at = |row: &[f64]| {
        expr.eval(&|v| mean.params.iter().position(|p| p == v).map(|k| row[k]))
            .unwrap_or(f64::NAN)
    };
    let preds: Vec<f64> = mean.points.iter().map(|x| at(x)).collect();
    let max_rel_err = preds
        .iter()
        .zip(&mean.values)
        .map(|(p, y)| ((p - y) / y.abs().max(f64::MIN_POSITIVE)).abs())
        .fold(0.0, f64::max);
    let n = mean.values.len();
    let avg = mean.values.iter().sum::<f64>() / n.max(1) as f64;
    let ss_tot: f64 = mean.values.iter().map(|y| (y - avg).powi(2)).sum();
    let ss_res: f64 = preds
        .iter()
        .zip(&mean.values)
        .map(|(p, y)| (p - y).powi(2))
        .sum();
    Fitted {
        lo: &sum.lo / &entries.hi,
        hi: &sum.hi / &entries.lo,
        expr,
        origin: Origin::Regression,
        r2: if ss_tot > 0.0 {
            1.0 - ss_res / ss_tot
        } else {
            1.0
        },
        max_rel_err: if max_rel_err.is_finite() {
            max_rel_err
        } else {
            f64::INFINITY
        },
        points: n,
    }
}
