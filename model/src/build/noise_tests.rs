//! The host's detours ([`crate::noise`]) in the model: two computations between one allreduce
//! and the next are one stretch, fitted to their typical cost and charged the longest detour
//! among the ranks once per stretch; the computation after the loop is a stretch of its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};

use symbolic::Expr;

use super::{build, Built};
use crate::machine::Machine;
use crate::noise::{DetourBin, HostNoise};
use crate::observe::{RankObs, RunObs};
use crate::quantity::QuantityOptions;

const STEPS: &str = r#"#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int size;
    double s = 0.0, g;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = atoi(argv[1]);
    int iters = atoi(argv[2]);
    double *u = malloc(n * sizeof(double));
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < n / size; i++)
            u[i] = 0.5 * u[i];
        for (int i = 0; i < n / size; i++)
            s = s + u[i];
        MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    for (int i = 0; i < n / size; i++)
        s = s + u[i];
    free(u);
    MPI_Finalize();
    return 0;
}
"#;

/// Seconds per iteration of the update and of the sum.
const WA: f64 = 2e-9;
const WB: f64 = 1e-9;
/// A detour the runs show on one rank in every fourth step.
const DETOUR: f64 = 50e-6;

/// A sheet's detours: 1000 a second, 2/3 of them 10 µs long, 1/3 of them 50 µs.
fn host() -> HostNoise {
    HostNoise {
        seconds: 3.0,
        threshold: 2e-6,
        detours: vec![
            DetourBin {
                up_to: 16e-6,
                count: 2000,
                mean: 10e-6,
            },
            DetourBin {
                up_to: 64e-6,
                count: 1000,
                mean: 50e-6,
            },
        ],
    }
}

/// The model of [`STEPS`] over runs at N = 2^16, 2^18, ITERS = 20, 40, P = 2..16, on the
/// SMPI sheet with `noise`; the sites of the update, the sum, and the sum after the loop.
fn built(noise: Option<HostNoise>) -> (Built, [u32; 3]) {
    let apt = super::test_support::apt_of("steps.c", STEPS);
    let loop_at = |line| super::test_support::loop_at(&apt, line);
    let (steps, update, sum, after) = (loop_at(13), loop_at(14), loop_at(16), loop_at(20));
    let mut runs = Vec::new();
    for n in [65536u64, 262144] {
        for iters in [20u64, 40] {
            for p in [2u64, 4, 8, 16] {
                let local = n / p;
                let rank = |r: u64| {
                    let mut k = RankObs::default();
                    k.loops.insert(steps, (1, iters));
                    for site in [update, sum] {
                        k.loops.insert(site, (iters, iters * local));
                    }
                    k.loops.insert(after, (1, local));
                    // rank r meets a detour in the steps it % 4 == r % 4 (one rank in four)
                    let detoured = |it: u64| if it % 4 == r % 4 { DETOUR } else { 0.0 };
                    k.entries.insert(
                        update,
                        (0..iters)
                            .map(|it| WA * local as f64 + detoured(it))
                            .collect(),
                    );
                    k.entries
                        .insert(sum, vec![WB * local as f64; iters as usize]);
                    // both run between the allreduce of one step and the next's
                    k.between.insert(update, (0..iters as u32).collect());
                    k.between.insert(sum, (0..iters as u32).collect());
                    k.entries.insert(after, vec![WB * local as f64]);
                    k.between.insert(after, vec![iters as u32]);
                    k.elapsed = k.entries.values().flatten().sum::<f64>();
                    k
                };
                let ranks: Vec<RankObs> = (0..p).map(rank).collect();
                let time = ranks.iter().map(|k| k.elapsed).fold(0.0, f64::max);
                runs.push(RunObs::synthetic(
                    &[("ITERS", iters as f64), ("N", n as f64), ("P", p as f64)],
                    ranks,
                    time,
                ));
            }
        }
    }
    let mut machine = Machine::builtin("smpi-reference").unwrap().unwrap();
    machine.noise = noise;
    // no compute threshold: the synthetic costs are what the host ran
    machine.compute_threshold = None;
    let b = build(&apt, "main", &runs, &machine, &QuantityOptions::default());
    (b, [update, sum, after])
}

fn at(e: &Expr, n: f64, p: f64) -> f64 {
    e.eval(&|v| match v {
        "N" => Some(n),
        "P" => Some(p),
        "ITERS" => Some(20.0),
        _ => None,
    })
    .unwrap()
}

#[test]
fn a_stretch_is_charged_the_longest_detour_among_its_ranks_once() {
    let (b, [update, sum, after]) = built(Some(host()));
    let law = host().law().unwrap();
    let rate = host().rate();
    let report = |site: u32| b.compute.iter().find(|c| c.site == site).unwrap();
    // the update carries the stretch it shares with the sum; the sum adds no detour of its own
    let carrier = report(update);
    assert_eq!(
        carrier.stretch_with,
        vec![sum],
        "{:?}",
        carrier.stretch_with
    );
    assert!(report(sum).detours.is_none());
    let d = carrier.detours.as_ref().unwrap();
    for (n, p) in [(262144.0, 4.0), (262144.0, 256.0), (1048576.0, 1024.0)] {
        // the typical costs: the detours of one rank in four do not lift them
        let typical = at(&carrier.cost, n, p) - at(&d.cost, n, p);
        assert!(
            (typical / (WA * n / p) - 1.0).abs() < 0.01,
            "N={n} P={p}: {typical} for {}",
            WA * n / p
        );
        assert!((at(&report(sum).cost, n, p) / (WB * n / p) - 1.0).abs() < 0.01);
        // M = P·rate·(the stretch's seconds), the law at it once per step
        let m = p * rate * (WA + WB) * n / p;
        assert!((at(&d.expected, n, p) / m - 1.0).abs() < 0.01, "M at P={p}");
        let want = law.eval(at(&d.expected, n, p));
        assert!((at(&d.cost, n, p) - want).abs() <= 1e-9 * want, "P={p}");
    }
    // the sum after the loop follows the last allreduce: a stretch of its own
    let alone = report(after);
    assert!(alone.stretch_with.is_empty());
    assert!(alone.detours.is_some());
}

/// Without the sheet's detours the update's cost is the mean over the steps of the slowest
/// rank's: the detours the runs show are in it, as fitted, and nothing is charged apart.
#[test]
fn without_detours_a_step_costs_its_slowest_rank() {
    let (b, [update, ..]) = built(None);
    let c = b.compute.iter().find(|c| c.site == update).unwrap();
    assert!(c.detours.is_none());
    let (n, p) = (262144.0, 4.0);
    let slowest = WA * n / p + DETOUR / 4.0 * p.min(4.0);
    assert!(
        (at(&c.cost, n, p) / slowest - 1.0).abs() < 0.05,
        "{} for {slowest}: {}",
        at(&c.cost, n, p),
        c.cost
    );
}

/// Sites run between the same two MPI calls as a rule are one stretch; a loop's last entry
/// running into the code after the loop does not join them.
#[test]
fn stretches_group_the_sites_that_share_most_of_theirs() {
    let mut k = RankObs::default();
    // sites 1 and 2 in every step; site 3 after the loop, with the last step's entries
    k.entries.insert(1, vec![1.0; 10]);
    k.between.insert(1, (0..10).collect());
    k.entries.insert(2, vec![1.0; 10]);
    k.between.insert(2, (0..10).collect());
    k.entries.insert(3, vec![1.0]);
    k.between.insert(3, vec![9]);
    // site 4 alone, between calls of its own
    k.entries.insert(4, vec![1.0; 3]);
    k.between.insert(4, vec![20, 21, 22]);
    let run = RunObs {
        config: String::new(),
        params: BTreeMap::new(),
        smpi: false,
        ranks: vec![k.clone(), k],
        cpg: Default::default(),
        time: 1.0,
        repeated: 1,
    };
    let groups = super::compute::Stretches::of(&[run]).groups();
    assert_eq!(
        groups,
        vec![
            BTreeSet::from([1, 2]),
            BTreeSet::from([3]),
            BTreeSet::from([4])
        ]
    );
}

const OWNER: &str = r#"#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int size, rank;
    double s = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = atoi(argv[1]);
    int iters = atoi(argv[2]);
    double *u = malloc(n * sizeof(double));
    for (int k = 0; k < iters; k++) {
        if (k % size == rank) {
            for (int i = 0; i < n; i++)
                u[i] = 0.5 * u[i] + s;
        }
        MPI_Bcast(u, 1, MPI_DOUBLE, k % size, MPI_COMM_WORLD);
    }
    free(u);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 28's LU: the pivot column is the owner's work (`if (k % size == rank)`), the others
/// wait for it in the broadcast. Its stretch is one rank's: M counts that rank's detours, not
/// P ranks' (the law at P·rate·W charged 29% of T at P = 256 for detours no rank meets).
#[test]
fn work_one_rank_runs_while_the_others_wait_meets_that_ranks_detours() {
    let apt = super::test_support::apt_of("owner.c", OWNER);
    let loop_at = |line| super::test_support::loop_at(&apt, line);
    let (steps, work) = (loop_at(14), loop_at(16));
    let branch = apt
        .nodes()
        .iter()
        .find(|n| n.line == 15 && matches!(n.data, apt::NodeData::If(_)))
        .map(|n| n.site.0)
        .unwrap();
    let mut runs = Vec::new();
    for n in [65536u64, 262144] {
        for iters in [32u64, 64] {
            for p in [2u64, 4, 8, 16] {
                let rank = |r: u64| {
                    let mine = (0..iters).filter(|k| k % p == r).count() as u64;
                    let mut k = RankObs::default();
                    k.loops.insert(steps, (1, iters));
                    k.loops.insert(work, (mine, mine * n));
                    k.branches.insert((branch, 0), mine);
                    k.branches.insert((branch, 1), iters - mine);
                    k.entries.insert(work, vec![WA * n as f64; mine as usize]);
                    // the k-th step's work follows the k-th broadcast
                    let between: Vec<u32> = (0..iters as u32)
                        .filter(|k| u64::from(*k) % p == r)
                        .collect();
                    k.between.insert(work, between);
                    k.elapsed = WA * (iters * n) as f64;
                    k
                };
                let ranks: Vec<RankObs> = (0..p).map(rank).collect();
                runs.push(RunObs::synthetic(
                    &[("ITERS", iters as f64), ("N", n as f64), ("P", p as f64)],
                    ranks,
                    WA * (iters * n) as f64,
                ));
            }
        }
    }
    let mut machine = Machine::builtin("smpi-reference").unwrap().unwrap();
    machine.noise = Some(host());
    machine.compute_threshold = None;
    let b = build(&apt, "main", &runs, &machine, &QuantityOptions::default());
    let c = b.compute.iter().find(|c| c.site == work).unwrap();
    let d = c
        .detours
        .as_ref()
        .expect("the owner's stretch is charged its detours");
    let rate = host().rate();
    for (n, p) in [(262144.0, 4.0), (262144.0, 256.0)] {
        // one rank's detours over its W seconds, whatever P
        let m = rate * WA * n;
        assert!(
            (at(&d.expected, n, p) / m - 1.0).abs() < 0.02,
            "M at P={p}: {} for {m} ({})",
            at(&d.expected, n, p),
            d.expected
        );
    }
}

const ARMS: &str = r#"#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    double s = 0.0, g;
    MPI_Init(&argc, &argv);
    int n = atoi(argv[1]);
    int method = atoi(argv[2]);
    double *u = malloc(n * sizeof(double));
    for (int it = 0; it < 10; it++) {
        if (method == 1) {
            for (int i = 0; i < n; i++)
                u[i] = 0.5 * u[i];
        } else {
            for (int i = 0; i < n; i++)
                s = s + u[i];
        }
        MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 28's CG: the runs used METHOD = 2 only, so the loop of the METHOD = 1 arm has no
/// time, and T charged it nothing with no word. The model says so, naming the line.
#[test]
fn a_computation_no_run_reached_is_named() {
    let apt = super::test_support::apt_of("arms.c", ARMS);
    let loop_at = |line| super::test_support::loop_at(&apt, line);
    let (steps, never, taken) = (loop_at(11), loop_at(13), loop_at(16));
    let branch = apt
        .nodes()
        .iter()
        .find(|n| n.line == 12 && matches!(n.data, apt::NodeData::If(_)))
        .map(|n| n.site.0)
        .unwrap();
    let mut runs = Vec::new();
    for n in [65536u64, 262144] {
        for p in [2u64, 4] {
            let rank = |_| {
                let mut k = RankObs::default();
                k.loops.insert(steps, (1, 10));
                k.loops.insert(taken, (10, 10 * n));
                k.branches.insert((branch, 1), 10);
                k.entries.insert(taken, vec![WB * n as f64; 10]);
                k.between.insert(taken, (0..10).collect());
                k.elapsed = 10.0 * WB * n as f64;
                k
            };
            let ranks: Vec<RankObs> = (0..p).map(rank).collect();
            runs.push(RunObs::synthetic(
                &[("METHOD", 2.0), ("N", n as f64), ("P", p as f64)],
                ranks,
                10.0 * WB * n as f64,
            ));
        }
    }
    let machine = Machine::builtin("smpi-reference").unwrap().unwrap();
    let b = build(&apt, "main", &runs, &machine, &QuantityOptions::default());
    let said: Vec<&String> = b
        .warnings
        .iter()
        .filter(|w| w.contains("ran in no run"))
        .collect();
    assert_eq!(said.len(), 1, "{:#?}", b.warnings);
    assert!(
        said[0].starts_with(&format!("computation at line 13 (site {never}, work N)")),
        "{}",
        said[0]
    );
    // and the model says which, for `predict`
    assert_eq!(
        b.unreached,
        [super::Unreached {
            site: never,
            line: 13,
            file: None,
            work: "N".into()
        }]
    );
}
