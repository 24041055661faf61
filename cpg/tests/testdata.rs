//! The CPG of every testdata program from its committed recorded runs (testdata/<prog>/runs):
//! the seed's "must show" facts asserted per run, and per program a reviewed snapshot of the
//! phase summary at the largest traced P plus the kind/depth table over P.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use cpg::{render, Cpg, CpgOptions, PhaseKind, RunSummary, Series, SiteTree};

type Run = (String, BTreeMap<String, f64>, u32, RunSummary);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// Every ok run of `testdata/<prog>/runs/<variant>`, in manifest order.
fn load(prog: &str, variant: &str) -> (SiteTree, Vec<Run>) {
    let dir = root().join(prog).join("runs").join(variant);
    let tree =
        SiteTree::from_json_str(&std::fs::read_to_string(dir.join("apt.json")).unwrap()).unwrap();
    let rd = trace::RunDir::at(&dir);
    let manifest = rd.load_manifest().unwrap().expect("manifest.json");
    let mut runs = Vec::new();
    for r in manifest.runs.iter().filter(|r| r.status.is_ok()) {
        let ranks = rd.read_run(&r.config).unwrap();
        let cpg = Cpg::build(&ranks, &tree, &CpgOptions::default()).unwrap();
        runs.push((r.config.clone(), r.params.clone(), r.np, cpg.into_summary()));
    }
    assert!(!runs.is_empty(), "{prog}/{variant}: no runs");
    (tree, runs)
}

fn p2p(s: &RunSummary) -> Vec<&cpg::Phase> {
    s.phases
        .iter()
        .filter(|p| !matches!(p.kind, PhaseKind::Collective { .. }))
        .collect()
}

/// Kind and depth of every phase for each P, at the first parameter setting.
fn table(runs: &[Run]) -> String {
    let first = &runs[0].1;
    let mut out = String::new();
    let mut sel: Vec<&Run> = runs.iter().filter(|r| &r.1 == first).collect();
    sel.sort_by_key(|r| r.2);
    for (config, _, np, s) in sel {
        let _ = write!(out, "{config}:");
        for p in &s.phases {
            let d = p.depth.map_or(String::new(), |d| format!(" D={d}"));
            let ind = if p.determinate { "" } else { "?" };
            let _ = write!(out, " {}={}{ind}{d}", p.id, p.kind.name());
        }
        let _ = writeln!(out, " (P={np})");
    }
    out
}

fn snapshot(prog: &str, variant: &str) -> (SiteTree, Vec<Run>) {
    let (tree, runs) = load(prog, variant);
    let largest = runs
        .iter()
        .filter(|r| r.1 == runs[0].1)
        .max_by_key(|r| r.2)
        .unwrap();
    let text = format!("{}\n{}", table(&runs), render::to_text(&largest.3, &tree));
    insta::assert_snapshot!(format!("{prog}-{variant}"), text);
    (tree, runs)
}

#[test]
fn shift_and_pipeline_fig1() {
    for variant in ["smpi-c", "mpi-c", "mpi-f", "smpi-f"] {
        let (_, shift) = load("shift", variant);
        let (_, pipe) = load("pipeline", variant);
        for ((cs, _, np, s), (cp, _, _, p)) in shift.iter().zip(&pipe) {
            assert_eq!(cs, cp);
            if *np < 2 {
                assert!(p2p(s).is_empty());
                continue;
            }
            let (a, b) = (p2p(s), p2p(p));
            assert_eq!((a.len(), b.len()), (1, 1), "{variant} {cs}");
            let (a, b) = (a[0], b[0]);
            assert_eq!(
                (&a.senders, &a.receivers),
                (&b.senders, &b.receivers),
                "{variant} {cs}: same SL/RL"
            );
            assert_eq!(a.kind, PhaseKind::Synchronous, "{variant} {cs}");
            if *np > 2 {
                assert_eq!(b.kind, PhaseKind::Pipeline, "{variant} {cs}");
                assert_eq!(b.depth, Some(np - 1), "{variant} {cs}");
            } else {
                assert!(!b.determinate);
                assert_eq!(b.depth, Some(1));
            }
        }
    }
    snapshot("shift", "smpi-c");
    snapshot("pipeline", "smpi-c");
}

fn pipelines(s: &RunSummary) -> Vec<&cpg::Phase> {
    s.phases
        .iter()
        .filter(|p| p.kind == PhaseKind::Pipeline)
        .collect()
}

#[test]
fn pge1_two_dependent_pipelines_of_depth_p_minus_1() {
    let (_, runs) = snapshot("pge1", "smpi-c");
    for (config, _, np, s) in runs.iter().filter(|r| r.2 > 2) {
        let pl = pipelines(s);
        assert_eq!(pl.len(), 2, "{config}");
        assert!(pl.iter().all(|p| p.depth == Some(np - 1)), "{config}");
        assert_eq!(p2p(s).len(), 2, "{config}");
        // forward and backward pipelines are not under one ancestor: they run one after the
        // other (the composition adds them); under the routine they are consecutive
        assert_ne!(pl[0].ancestor, pl[1].ancestor, "{config}");
    }
}

#[test]
fn pge2_four_pipelines_of_depth_half_p_minus_1_overlapping_in_pairs() {
    let (_, runs) = snapshot("pge2", "smpi-c");
    for (config, _, np, s) in runs.iter().filter(|r| r.2 >= 8) {
        let pl = pipelines(s);
        assert_eq!(pl.len(), 4, "{config}");
        assert!(pl.iter().all(|p| p.depth == Some(np / 2 - 1)), "{config}");
        let sync: Vec<_> = s
            .phases
            .iter()
            .filter(|p| p.kind == PhaseKind::Synchronous)
            .collect();
        assert_eq!(sync.len(), 2, "{config}: the two interface exchanges");
        assert!(
            sync.iter()
                .all(|p| p.processors == vec![np / 2 - 1, np / 2]),
            "{config}"
        );
        // forward top/bottom share an ancestor and are independent (overlap); same backward
        let indep: Vec<_> = s
            .dependences
            .iter()
            .filter(|d| {
                !d.dependent
                    && pl.iter().any(|p| p.id == d.first)
                    && pl.iter().any(|p| p.id == d.second)
            })
            .collect();
        assert_eq!(indep.len(), 2, "{config}: {:?}", s.dependences);
    }
}

#[test]
fn atm2d_four_synchronous_phases() {
    let (_, runs) = snapshot("atm2d", "smpi-c");
    for (config, _, np, s) in &runs {
        let ph = p2p(s);
        // P = 2 is a 1x2 grid: only red-north with black-south carries messages
        let want = if *np >= 4 { 4 } else { 1 };
        assert_eq!(ph.len(), want, "{config}");
        assert!(
            ph.iter()
                .all(|p| p.kind == PhaseKind::Synchronous && p.sites.len() == 2),
            "{config}"
        );
    }
}

#[test]
fn sweep_one_wavefront_of_depth_px_plus_py_minus_2() {
    let (_, runs) = snapshot("sweep", "smpi-c");
    for (config, _, np, s) in &runs {
        let ph = p2p(s);
        assert_eq!(ph.len(), 1, "{config}");
        // Px = largest divisor of P not above sqrt(P), as in the program
        let px = (1..=*np)
            .filter(|d| np % d == 0 && d * d <= *np)
            .max()
            .unwrap();
        let py = np / px;
        assert_eq!(ph[0].depth, Some(px + py - 2), "{config}");
        if px + py - 2 > 1 {
            assert_eq!(ph[0].kind, PhaseKind::Pipeline, "{config}");
        }
    }
}

#[test]
fn stencil_one_exchange_and_one_allreduce() {
    let (_, runs) = snapshot("stencil", "smpi-c");
    for (config, _, np, s) in runs.iter().filter(|r| r.2 >= 2) {
        let ph = p2p(s);
        assert_eq!(ph.len(), 1, "{config}");
        assert_eq!(ph[0].kind, PhaseKind::Synchronous, "{config}");
        assert_eq!(
            ph[0].sites.len(),
            4,
            "{config}: irecv/isend both ways, one waitall"
        );
        let coll: Vec<_> = s
            .phases
            .iter()
            .filter(|p| matches!(p.kind, PhaseKind::Collective { .. }))
            .collect();
        let allreduce: Vec<_> = coll
            .iter()
            .filter(|p| p.kind.name() == "collective MPI_Allreduce")
            .collect();
        assert_eq!(allreduce.len(), 1, "{config}");
        assert_eq!(allreduce[0].processors.len() as u32, *np);
        assert_eq!(allreduce[0].bytes.max, 8.0);
    }
}

#[test]
fn c_and_fortran_twins_agree() {
    // same kinds and depths per configuration present in both
    for prog in [
        "shift", "pipeline", "pge1", "pge2", "atm2d", "sweep", "stencil",
    ] {
        for (c, f) in [("mpi-c", "mpi-f"), ("smpi-c", "smpi-f")] {
            let (_, cr) = load(prog, c);
            let (_, fr) = load(prog, f);
            for (config, _, _, fs) in &fr {
                let Some((_, _, _, cs)) = cr.iter().find(|r| &r.0 == config) else {
                    continue;
                };
                // program order differs (a Fortran external subroutine follows main)
                let shape = |s: &RunSummary| -> Vec<(String, Option<u32>, usize)> {
                    let mut v: Vec<_> = s
                        .phases
                        .iter()
                        .map(|p| (p.kind.name(), p.depth, p.processors.len()))
                        .collect();
                    v.sort();
                    v
                };
                assert_eq!(shape(cs), shape(fs), "{prog} {config} {c} vs {f}");
            }
        }
    }
}

#[test]
fn series_lines_phases_up_across_runs() {
    let (_, runs) = load("pipeline", "smpi-c");
    let series = Series::from_runs(&runs);
    let p = series
        .phases
        .iter()
        .find(|s| s.points.len() == runs.len() && s.sites.len() == 2)
        .unwrap();
    // P = 2 runs are indeterminate, the others decide
    assert_eq!(p.kind, PhaseKind::Pipeline);
    assert!(!p.conflict);
    for pt in &p.points {
        assert_eq!(pt.phase.depth, Some(pt.np - 1));
    }
}

#[test]
fn series_joins_the_p2_sweep_phase_with_the_wavefront() {
    let (_, runs) = load("sweep", "smpi-c");
    let series = Series::from_runs(&runs);
    let w: Vec<_> = series
        .phases
        .iter()
        .filter(|s| s.kind == PhaseKind::Pipeline)
        .collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].points.len(), runs.len());
    assert!(w[0].missing.is_empty());
    assert!(w[0]
        .points
        .iter()
        .any(|p| p.np == 2 && !p.phase.determinate));
}
