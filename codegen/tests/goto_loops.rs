//! Loops built from GOTO (fixed form, tests/data/goto.f; C, tests/data/goto.c) and named DO
//! constructs left by `exit NAME` / `cycle NAME` (tests/data/named.f90): instrumented,
//! compiled with mpif77 / mpif90 / mpicc, run at P=2 beside the original (same stdout, balanced traces), and every loop's
//! record counts the executions and iterations the program makes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

mod common;

use common::*;

/// Runs `file` and checks rank 0's loop records: (line, executions, iterations).
fn check(file: &str, fixed: bool, want: &[(u32, u64, u64)]) {
    let c = file.ends_with(".c");
    let tool = match (c, fixed) {
        (true, _) => "mpicc",
        (false, true) => "mpif77",
        (false, false) => "mpif90",
    };
    for t in [tool, "mpirun"] {
        need(t);
    }
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let case = Case {
        name: file.replace('.', "_"),
        lang: if c { Lang::C } else { Lang::Fortran },
        fixed,
        src: data.join(file),
        include_dirs: Vec::new(),
        args: Vec::new(),
    };
    let (lowered, _plan, ranks) = case.run_open_mpi(tmp.path(), &rt).unwrap();
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let r0 = ranks.iter().find(|r| r.header.rank == 0).unwrap();
    for &(line, count, sum) in want {
        let site = tree
            .nodes()
            .into_iter()
            .find(|n| n.line == line && matches!(&n.data, apt::NodeData::Loop(_)))
            .unwrap_or_else(|| panic!("{file}: no loop at line {line}"))
            .site
            .0;
        let agg = r0
            .aggregates
            .iter()
            .find(|a| a.kind == trace::AggKind::Loop && a.site == site)
            .unwrap_or_else(|| panic!("{file}: no loop record for line {line} (site {site})"));
        assert_eq!(
            (agg.count, agg.sum),
            (count, sum),
            "{file} line {line}: (executions, iterations)"
        );
    }
}

#[test]
fn goto_loops_are_traced_as_loops() {
    check(
        "goto.f",
        true,
        &[
            (17, 1, 6), // 10 CONTINUE … IF (IT .LT. NITER) GOTO 10
            (25, 1, 4), // 20 IF (K .GE. NITER) GO TO 30 … left at K = 4 by GOTO 30
            (34, 1, 3), // DO 50 J = 1, 3
            (36, 3, 6), // 40 K = K + 1 … IF (K .LT. J) GOTO 40: J iterations
        ],
    );
}

#[test]
fn named_do_exit_and_cycle_keep_loops_balanced() {
    check(
        "named.f90",
        false,
        &[
            (12, 1, 4),  // outer: left by exit outer at i = 4
            (13, 4, 15), // inner: 3 (cycle outer at j = 3), 4, 4, 4 (exit outer at j = 4)
            (21, 1, 3),  // search: n = 3, 2, 1
        ],
    );
}

#[test]
fn c_goto_loops_are_traced_as_loops() {
    check(
        "goto.c",
        false,
        &[
            (9, 1, 2),  // scan: if (k >= n) goto none; … left by return at k = 2
            (26, 1, 6), // again: … if (it < niter) goto again;
            (32, 1, 4), // top: if (k >= niter) goto done; … left at k = 4 by goto done
            (41, 1, 3), // for (j = 1; j <= 3; j++)
            (43, 3, 6), // inner: … if (k < j) goto inner: j iterations
        ],
    );
}
