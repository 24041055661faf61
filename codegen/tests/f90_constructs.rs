//! Constructs trial 9 found miscounted or unbuildable (tests/data/arif.f, concurrent.f90): a
//! loop closed by an arithmetic IF gets its exit marker on the labelled statement after it,
//! and a DO CONCURRENT (inside ASSOCIATE and BLOCK) gets no marker or call in its body, its
//! count being the product of its ranges. Instrumented, compiled with mpif77 / mpif90, run at
//! P=2 beside the original (same stdout, balanced traces); rank 0's loop records checked.
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
fn a_loop_closed_by_an_arithmetic_if_is_traced_as_a_loop() {
    check(
        "arif.f",
        true,
        &[
            (9, 1, 7),   // 10 CONTINUE … IF (K - N) 10, 30, 30
            (11, 7, 49), // DO 20 inside it
            (17, 1, 7),  // 40 K = K + 1 … IF (N - K) 50, 50, 40
        ],
    );
}

#[test]
fn do_concurrent_builds_and_counts_every_index() {
    check(
        "concurrent.f90",
        false,
        &[
            (10, 1, 3),  // the time loop
            (12, 3, 90), // do concurrent (j = 1:m, i = 1:nx) inside associate: 5 * 6 per entry
            (15, 3, 15), // do j = 1, m inside associate
            (16, 15, 90),
            (24, 3, 9), // do concurrent (k = 1:n:2) inside block
        ],
    );
}
