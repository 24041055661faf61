//! Hybrid MPI+OpenMP programs (trial 8 item 2): the markers of a loop under `#pragma omp` /
//! `!$omp` directives go outside the directives, the instrumented program compiles with
//! `-fopenmp`, and with OMP_NUM_THREADS=2 under Open MPI every loop's trip count is exact
//! (parallel loops' counters are reductions; markers inside them run one thread at a time).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::*;
use trace::AggKind;

/// Instruments `src`, checks the plan against the APT, compiles with `-fopenmp`, runs the
/// original and the instrumented program on 2 ranks × 2 threads and returns the traces with
/// the program, the plan and the instrumented text.
fn run_hybrid(
    src: &Path,
    args: &[&str],
) -> (
    frontend::Lowered,
    codegen::Plan,
    Vec<trace::RankTrace>,
    String,
) {
    need("mpirun");
    let fortran = src.extension().is_some_and(|e| e == "f90");
    let tool = if fortran { "mpif90" } else { "mpicc" };
    need(tool);
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let lowered = frontend::load(src, &frontend::Options::default()).unwrap();
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let plan = codegen::Plan::from_apt(&tree, &lowered.program);
    assert_eq!(plan, codegen::Plan::from_program(&lowered.program));
    assert_every_site_marked_once(&tree, &plan, "openmp");
    let out = codegen::instrument(&lowered.program, &lowered.sources, &plan).unwrap();
    assert!(out.notes.is_empty(), "{:?}", out.notes);
    let text = out.files[0].text.clone();
    let again = frontend::load_str(
        src.file_name().unwrap().to_str().unwrap(),
        &text,
        &frontend::Options::default(),
    )
    .unwrap();
    assert!(!again.has_errors(), "{:?}\n{text}", again.diagnostics);
    let inst: PathBuf = tmp.path().join("inst").join(&out.files[0].relative);
    std::fs::create_dir_all(inst.parent().unwrap()).unwrap();
    std::fs::write(&inst, &text).unwrap();
    let build = |source: &Path, exe: &Path, with_rt: bool| {
        let mut cmd = Command::new(tool);
        cmd.current_dir(tmp.path()).args(["-O2", "-fopenmp"]);
        if with_rt {
            cmd.arg(format!("-I{}", rt.dir.display()));
            if fortran {
                cmd.args(augur_runtime::FORTRAN_FLAGS);
            }
        }
        cmd.arg(source);
        if with_rt {
            cmd.args(if fortran { &rt.objs_f } else { &rt.objs_c });
        }
        cmd.arg("-o").arg(exe);
        run(&mut cmd, Duration::from_secs(180)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    };
    let orig = tmp.path().join("orig.exe");
    let exe = tmp.path().join("inst.exe");
    build(src, &orig, false);
    build(&inst, &exe, true);
    let traces = tmp.path().join("traces");
    let mpirun = |exe: &Path, traces: Option<&Path>| {
        let mut c = Command::new("mpirun");
        c.args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
            .args(["-x", "OMP_NUM_THREADS=2"])
            .env("OMP_NUM_THREADS", "2");
        if let Some(t) = traces {
            c.env("AUGUR_TRACE_DIR", t);
        }
        c.arg(exe).args(args);
        run(&mut c, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"))
    };
    let want = mpirun(&orig, None);
    let got = mpirun(&exe, Some(&traces));
    assert_eq!(want, got, "the instrumented program prints something else");
    assert!(!want.trim().is_empty());
    let ranks = trace::read_run(&traces).unwrap();
    assert_eq!(ranks.len(), 2);
    check_traces(&lowered.program, &plan, &ranks).unwrap();
    (lowered, plan, ranks, text)
}

/// The loop site whose statement starts on the line holding `tag`.
fn loop_site(l: &frontend::Lowered, plan: &codegen::Plan, tag: &str) -> u32 {
    let file = l.sources.get(l.program.main_file).unwrap();
    let line = (1..=file.line_count())
        .find(|&k| file.line_text(k).contains(tag))
        .unwrap_or_else(|| panic!("no line with {tag}"));
    l.program
        .stmts
        .iter()
        .filter(|s| l.sources.first_line(s.span) == line)
        .find_map(|s| plan.loop_of(s.id))
        .unwrap_or_else(|| panic!("no loop mark on the line of {tag}"))
        .0
}

/// Checks (executions, total iterations) of each tagged loop on every rank.
fn check_counts(
    l: &frontend::Lowered,
    plan: &codegen::Plan,
    ranks: &[trace::RankTrace],
    want: &[(&str, u64, u64)],
) {
    for r in ranks {
        for &(tag, count, sum) in want {
            let site = loop_site(l, plan, tag);
            let agg = r
                .aggregates
                .iter()
                .find(|a| a.kind == AggKind::Loop && a.site == site)
                .unwrap_or_else(|| panic!("{tag}: no loop record"));
            assert_eq!((agg.count, agg.sum), (count, sum), "{tag} (site {site})");
        }
        assert_eq!(r.trailer.anomalies, 0);
    }
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn c_parallel_loops_count_exactly_with_two_threads() {
    let (l, plan, ranks, text) = run_hybrid(&data("openmp.c"), &["40"]);
    // the directive stays right before its loop, with the counter as a reduction
    let fill = loop_site(&l, &plan, "/* fill */");
    assert!(
        text.contains(&format!(
            "augur_phase_begin({fill}); augur_loop_enter({fill}); \n#pragma omp parallel for private(j) reduction(+:augur_n_{fill})\n    for (i = 0;"
        )),
        "{text}"
    );
    // n = 40; the triangle's even rows i hold i + 1 iterations: 400 per step
    check_counts(
        &l,
        &plan,
        &ranks,
        &[
            ("/* fill */", 1, 40),
            ("/* fill row */", 40, 1600),
            ("/* steps */", 1, 3),
            ("/* triangle */", 3, 120),
            ("/* triangle row */", 60, 1200),
            ("/* simd */", 3, 120),
            ("/* ivdep */", 3, 120),
            ("/* shared */", 1, 40),
            ("/* shared inner */", 40, 120),
        ],
    );
    let branch: u64 = ranks[0]
        .aggregates
        .iter()
        .filter(|a| a.kind == AggKind::Branch)
        .map(|a| a.count)
        .sum();
    assert_eq!(branch, 120, "the row test inside the parallel loop");
}

#[test]
fn fortran_parallel_do_counts_exactly_with_two_threads() {
    let (l, plan, ranks, text) = run_hybrid(&data("openmp.f90"), &["40"]);
    let fill = loop_site(&l, &plan, "! fill");
    // counted at entry before the directive; the nested loop's counter private to the threads
    assert!(
        text.contains(&format!(
            "  augur_n_{fill} = (n) - (1) + 1\n  if (augur_n_{fill} .lt. 0) augur_n_{fill} = 0\n  call augur_phase_begin({fill})\n  call augur_loop_enter({fill})\n!$omp parallel do private(i) &\n!$omp& private(augur_n_"
        )),
        "{text}"
    );
    // n = 40; the even columns j of the triangle hold j iterations: 420 per step
    check_counts(
        &l,
        &plan,
        &ranks,
        &[
            ("! fill", 1, 40),
            ("! fill column", 40, 1600),
            ("! steps", 1, 3),
            ("! triangle", 3, 120),
            ("! triangle column", 60, 1260),
            ("! while", 120, 240),
            ("! half", 3, 60),
            ("! shared", 1, 40),
            ("! shared inner", 40, 120),
        ],
    );
}
