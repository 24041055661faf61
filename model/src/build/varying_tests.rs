//! A count per entry held in data that differs between the entries of one run (trial 19's
//! multigrid): the level sizes `nl[l]` halve, a routine's loop runs `nl[l]` times once per
//! level, and the model is built over the counters a tracer records of it.
#![allow(clippy::unwrap_used)]

use symbolic::Expr;

use super::{build, Built};
use crate::machine::Machine;
use crate::observe::{RankObs, RunObs};
use crate::quantity::QuantityOptions;

/// A V-cycle's skeleton: the sizes of the levels set up in an array, a routine whose loop runs
/// a level's size, called once per level per cycle.
const CYCLE: &str = r#"#include <mpi.h>
#include <stdlib.h>

static void relax(double *u, int n)
{
    for (int i = 0; i < n; i++)
        u[i] = 0.5 * u[i];
}

int main(int argc, char **argv)
{
    int size, nl[30], nlev = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = atoi(argv[1]);
    int ncycle = atoi(argv[2]);
    double *u = malloc(n * sizeof(double));
    for (int m = n / size; m >= 2; m /= 2) {
        nl[nlev] = m;
        nlev++;
    }
    for (int c = 0; c < ncycle; c++) {
        for (int l = 0; l < nlev; l++) {
            relax(u, nl[l]);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    free(u);
    MPI_Finalize();
    return 0;
}
"#;

/// Seconds per iteration of `relax`'s loop, and per entry besides.
const W: f64 = 1e-9;
const C0: f64 = 2e-7;

/// The model of [`CYCLE`] over runs at N = 2^13, 2^15, 2^17, NCYCLE = 5, 10, P = 2..16, each
/// level `l` of a cycle running `level(N/P, l)` iterations of `relax`; the site of `relax`'s
/// loop.
fn built(level: fn(u64, u32) -> u64) -> (Built, u32) {
    let apt = super::test_support::apt_of("cycle.c", CYCLE);
    let loop_at = |line| super::test_support::loop_at(&apt, line);
    let (relax, setup, cycles, levels) = (loop_at(6), loop_at(18), loop_at(22), loop_at(23));
    let mut runs = Vec::new();
    for n in [8192u64, 32768, 131072] {
        for ncycle in [5u64, 10] {
            for p in [2u64, 4, 8, 16] {
                let nlev = (n / p).ilog2();
                let sizes: Vec<u64> = (0..nlev).map(|l| level(n / p, l)).collect();
                let rank = || {
                    let mut k = RankObs::default();
                    k.loops.insert(setup, (1, u64::from(nlev)));
                    k.loops.insert(cycles, (1, ncycle));
                    k.loops.insert(levels, (ncycle, ncycle * u64::from(nlev)));
                    k.loops.insert(
                        relax,
                        (ncycle * u64::from(nlev), ncycle * sizes.iter().sum::<u64>()),
                    );
                    let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                    k.loop_span.insert(relax, (*lo, *hi));
                    k.entries.insert(setup, vec![1e-6]);
                    k.between.insert(setup, vec![0]);
                    let each = (0..ncycle).flat_map(|_| sizes.iter());
                    k.entries
                        .insert(relax, each.clone().map(|s| C0 + W * *s as f64).collect());
                    k.between.insert(relax, (0..).take(each.count()).collect());
                    k.elapsed = k.entries.values().flatten().sum::<f64>();
                    k
                };
                let ranks: Vec<RankObs> = (0..p).map(|_| rank()).collect();
                let time = ranks[0].elapsed;
                runs.push(RunObs::synthetic(
                    &[("N", n as f64), ("NCYCLE", ncycle as f64), ("P", p as f64)],
                    ranks,
                    time,
                ));
            }
        }
    }
    // the levels' costs alone: the host's detours ([`crate::noise`]) add to each entry
    let mut machine = Machine::builtin("smpi-reference").unwrap().unwrap();
    machine.noise = None;
    let b = build(&apt, "main", &runs, &machine, &QuantityOptions::default());
    (b, relax)
}

fn fitted<'b>(b: &'b Built, what: &str, site: u32) -> &'b Expr {
    &b.quantities
        .iter()
        .find(|q| q.what == what && q.site == site)
        .unwrap()
        .fit
        .expr
}

fn at(e: &Expr, n: f64, p: f64) -> f64 {
    e.eval(&|v| match v {
        "N" => Some(n),
        "P" => Some(p),
        "NCYCLE" => Some(10.0),
        _ => None,
    })
    .unwrap()
}

/// trial 19's mg1d: the levels' sizes N/P, N/(2P), …, 2, one entry each per cycle. Their mean
/// per entry, fitted as a law in N/P and multiplied by the log2(N/P) levels, grew as
/// (N/P)·log2(N/P): twice the work at 32 times the largest traced N. The sum per cycle
/// (2N/P − 2) over the entries per cycle (log2(N/P)) gives the work per cycle beyond the runs;
/// the first entry, the finest level's, costs more for its count, not as a cold start.
#[test]
fn a_count_halving_per_level_is_its_sum_per_cycle_over_the_levels() {
    let (b, relax) = built(|top, l| top >> l);
    let (n, p) = (f64::from(1 << 22), 16.0);
    let levels = (n / p).log2();
    let per_cycle = 2.0 * n / p - 2.0;
    for what in ["trip", "work"] {
        let e = fitted(&b, what, relax);
        let got = at(e, n, p) * levels;
        assert!(
            (got / per_cycle - 1.0).abs() < 1e-6,
            "{what} {e}: {got} per cycle, not {per_cycle}"
        );
    }
    // T grows with the work per cycle at W each (and C0 per entry), not with N/P·log2(N/P)
    let grown = at(&b.t[1], 4.0 * n, p) - at(&b.t[1], n, p);
    let want = 10.0 * (W * 2.0 * 3.0 * n / p + C0 * 2.0);
    assert!(
        (grown / want - 1.0).abs() < 0.02,
        "T grew {grown} from N = 2^22 to 2^24, the computation {want}: {}",
        b.t[1]
    );
    // the first entry of a run is the finest level's, no cold start
    assert!(
        !b.quantities.iter().any(|q| q.what == "cold"),
        "{:#?}",
        b.quantities
    );
    let w: Vec<&String> = b
        .warnings
        .iter()
        .filter(|w| w.starts_with("trip at line 6") && w.contains("varies"))
        .collect();
    assert_eq!(w.len(), 1, "{:#?}", b.warnings);
    // the loop's work is its trip: said once
    assert!(
        !b.warnings
            .iter()
            .any(|w| w.starts_with("work at line 6") && w.contains("varies")),
        "{:#?}",
        b.warnings
    );
    assert!(
        w[0].contains("varies from 2 to 65536 between entries of one run (N=131072,")
            && w[0].contains("per iteration of the loop at line 22 (2*N/P - 2)")
            && w[0].contains("over its entries there (max(log2(N) - log2(P), 1))"),
        "{}",
        w[0]
    );
}

/// A count held in the array that is the same at every level: its mean per entry is a law
/// (N/P) and stands, without a word.
#[test]
fn a_count_the_same_at_every_entry_stays_the_mean_per_entry() {
    let (b, relax) = built(|top, _| top);
    assert_eq!(fitted(&b, "trip", relax).to_string(), "N/P");
    assert!(
        !b.warnings.iter().any(|w| w.contains("between entries")),
        "{:#?}",
        b.warnings
    );
}
