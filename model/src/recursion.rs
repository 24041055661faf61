//! Recursive routines. The model costs one execution of a routine's body per call, and a call
//! back into a routine already being costed adds nothing (expanding it would never end), so a
//! recursion (a multigrid V-cycle calling itself for the next level) would cost one level.
//! The counters say how many times the routine ran per call from outside its cycle of calls;
//! that count, fitted across the runs as a law of the parameters, multiplies the outer call's
//! cost. The body's per-entry quantities (trip counts, work) are fitted over all its entries,
//! so they are the mean over the recursion's levels, and count × mean is the total.

use std::collections::{BTreeMap, BTreeSet};

use apt::{Apt, Node, NodeData};

use crate::observe::RunObs;
use crate::quantity::{fit_quantity, Fitted, QuantityOptions, Samples};

/// A routine that may call itself, directly or through others.
#[derive(Debug, Clone)]
pub struct Recursive {
    /// The routine's own site (for the report).
    pub site: u32,
    /// Routines on a cycle with it (itself included): calls from these are inside the recursion.
    pub cycle: BTreeSet<String>,
    /// Executions per call from outside the cycle, fitted over the runs.
    pub per_call: Fitted,
}

/// The recursive routines of `apt` that the runs entered from outside their cycle.
pub fn find(
    apt: &Apt,
    runs: &[RunObs],
    params: &[String],
    qopts: &QuantityOptions,
) -> BTreeMap<String, Recursive> {
    // routine → (site, the CALL nodes in its body as (site, callee))
    let mut calls: BTreeMap<String, (u32, Vec<(u32, String)>)> = BTreeMap::new();
    for r in &apt.routines {
        if let NodeData::Routine { name, .. } = &r.data {
            let mut out = Vec::new();
            call_sites(r, &mut out);
            calls.insert(name.clone(), (r.site.0, out));
        }
    }
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<String> = vec![from.to_string()];
        while let Some(r) = todo.pop() {
            for (_, c) in calls.get(&r).map(|x| x.1.as_slice()).unwrap_or(&[]) {
                if seen.insert(c.clone()) {
                    todo.push(c.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        calls.keys().map(|r| (r, reach(r))).collect();
    let mut out = BTreeMap::new();
    for (name, (site, _)) in &calls {
        if !reached[name].contains(name) {
            continue;
        }
        let cycle: BTreeSet<String> = reached
            .iter()
            .filter(|(o, from_o)| from_o.contains(name) && reached[name].contains(o.as_str()))
            .map(|(o, _)| (*o).clone())
            .chain([name.clone()])
            .collect();
        // every CALL naming it, and whether it sits inside the cycle
        let sites: Vec<(u32, bool)> = calls
            .iter()
            .flat_map(|(caller, (_, cs))| {
                let inside = cycle.contains(caller);
                cs.iter()
                    .filter(|(_, c)| c == name)
                    .map(move |(s, _)| (*s, inside))
            })
            .collect();
        let mut samples = Samples::new(params.to_vec());
        for run in runs {
            let per_rank = run.ranks.iter().filter_map(|r| {
                let count = |inside: bool| -> u64 {
                    sites
                        .iter()
                        .filter(|(_, i)| *i == inside)
                        .filter_map(|(s, _)| r.calls.get(s))
                        .sum()
                };
                let outer = count(false);
                (outer > 0).then(|| (outer + count(true)) as f64 / outer as f64)
            });
            if let Some(v) = per_rank.reduce(f64::max) {
                let row = params
                    .iter()
                    .map(|p| run.params.get(p).copied().unwrap_or(0.0))
                    .collect();
                samples.push(row, v);
            }
        }
        if samples.values.is_empty() {
            continue;
        }
        out.insert(
            name.clone(),
            Recursive {
                site: *site,
                cycle,
                per_call: fit_quantity(&samples, None, &[], true, qopts),
            },
        );
    }
    out
}

fn call_sites(n: &Node, out: &mut Vec<(u32, String)>) {
    for c in n.children.iter().chain(&n.else_children) {
        if let NodeData::Call { callee, .. } = &c.data {
            out.push((c.site.0, callee.clone()));
        }
        call_sites(c, out);
    }
}
