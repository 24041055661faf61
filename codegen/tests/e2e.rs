//! End to end: every testdata program, in C and in Fortran, instrumented, compiled with the real
//! MPI wrappers (mpicc, mpif77 for fixed form, mpif90) and the embedded runtime, run beside the
//! original at P=2 under Open MPI (same stdout), and its traces checked: every marked site that
//! executed on a rank appears in that rank's trace, sends and receives agree per peer pair, no
//! runtime anomalies, and the C and Fortran twins count the same iterations and branches. Three
//! programs (C, fixed-form, free-form) also run under SimGrid SMPI (smpicc, smpiff, smpif90).
//! Fails loudly without MPI. `AUGUR_E2E_ONLY=name[,name]` restricts the programs (debugging).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

mod common;

use common::*;

#[test]
fn every_testdata_program_under_open_mpi() {
    let t0 = std::time::Instant::now();
    for tool in ["mpicc", "mpif77", "mpif90", "mpirun"] {
        need(tool);
    }
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let mut failures = Vec::new();
    for prog in programs() {
        let mut counters = Vec::new();
        for lang in [Lang::C, Lang::Fortran] {
            let case = Case::new(&prog, lang);
            match case.run_open_mpi(tmp.path(), &rt) {
                Ok((_, _, ranks)) => {
                    counters.push(ranks.iter().map(site_counters).collect::<Vec<_>>())
                }
                Err(e) => failures.push(format!("{} ({lang:?}): {e}", prog.name)),
            }
        }
        // the twins have the same loops and branches, so they must count the same iterations and
        // branches: C counts in the body, Fortran mostly computes trip counts at entry
        if let [c, f] = counters.as_slice() {
            if c != f {
                failures.push(format!(
                    "{}: C and Fortran loop/branch counters differ:\nC {c:?}\nF {f:?}",
                    prog.name
                ));
            }
        }
    }
    eprintln!("open mpi end to end: {:.1} s", t0.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// A rank's loop and branch aggregates as a sorted list of (kind, arm, count, sum, min, max):
/// site ids differ between twins whose procedures come in another order (atm2d).
fn site_counters(t: &trace::RankTrace) -> Vec<(String, i32, u64, u64, u64, u64)> {
    let mut v: Vec<_> = t
        .aggregates
        .iter()
        .filter(|a| matches!(a.kind, trace::AggKind::Loop | trace::AggKind::Branch))
        .map(|a| (format!("{:?}", a.kind), a.arm, a.count, a.sum, a.min, a.max))
        .collect();
    v.sort();
    v
}

#[test]
fn c_fixed_and_free_form_under_smpi() {
    let t0 = std::time::Instant::now();
    for tool in ["smpicc", "smpiff", "smpif90", "smpirun"] {
        need(tool);
    }
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::Smpi);
    let mut failures = Vec::new();
    for (name, lang) in [
        ("stencil", Lang::C),
        ("sweep", Lang::Fortran),
        ("atm2d", Lang::Fortran),
    ] {
        let Some(prog) = programs().into_iter().find(|p| p.name == name) else {
            continue;
        };
        let case = Case::new(&prog, lang);
        if let Err(e) = case.check_smpi(tmp.path(), &rt, 4) {
            failures.push(format!("{name} ({lang:?}): {e}"));
        }
    }
    eprintln!("smpi end to end: {:.1} s", t0.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Hand-written programs with the awkward constructs (tests/data/edge.*): unbraced bodies, early
/// returns, shared DO terminators, GOTO targets, logical IFs, long lines.
#[test]
fn edge_constructs_keep_their_output() {
    for tool in ["mpicc", "mpif77", "mpif90", "mpirun"] {
        need(tool);
    }
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut failures = Vec::new();
    for (file, lang, fixed) in [
        ("edge.c", Lang::C, false),
        ("edge.f", Lang::Fortran, true),
        ("edge.f90", Lang::Fortran, false),
    ] {
        let case = Case {
            name: file.replace('.', "_"),
            lang,
            fixed,
            src: data.join(file),
            include_dirs: Vec::new(),
            args: Vec::new(),
        };
        match case.run_open_mpi(tmp.path(), &rt) {
            Err(e) => failures.push(format!("{file}: {e}")),
            Ok((lowered, plan, ranks)) if lang == Lang::C => {
                checker_catches_damage(&lowered.program, &plan, &ranks)
            }
            Ok(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Fortran array syntax (tests/data/arrays.f90) is timed and counted as implicit loops: each
/// array statement's loop record sums the elements it visited, its phase is traced, and the
/// program prints what the original prints.
#[test]
fn array_syntax_is_counted_by_elements() {
    for tool in ["mpif90", "mpirun"] {
        need(tool);
    }
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let case = Case {
        name: "arrays_f90".into(),
        lang: Lang::Fortran,
        fixed: false,
        src: data.join("arrays.f90"),
        include_dirs: Vec::new(),
        args: Vec::new(),
    };
    let (lowered, plan, ranks) = case.run_open_mpi(tmp.path(), &rt).unwrap();
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    // line → (executions, elements) on rank 0 (rank 1 skips the logical IF's body)
    let want: &[(u32, u64, u64)] = &[
        (24, 1, 8 * 6),  // u = 1.0d0, u(0:7, 0:5)
        (25, 1, 8),      // v(:, 0)
        (27, 4, 4 * 6),  // v(1:nx, j) in a DO j = 1, 4
        (29, 1, 24),     // maxval(abs(v(1:nx, 1:ny) - ...))
        (30, 1, 10),     // a = 2.0d0
        (31, 1, 5),      // a(2:10:2)
        (32, 1, 5),      // w = a(1:5), allocating w
        (33, 1, 3),      // if (rank == 0) a(1:3) = 0
        (34, 1, 10 + 5), // sum(a) + sum(w)
    ];
    let r0 = ranks.iter().find(|r| r.header.rank == 0).unwrap();
    for &(line, count, sum) in want {
        let site = tree
            .nodes()
            .into_iter()
            .find(|n| {
                n.line == line && matches!(&n.data, apt::NodeData::Loop(l) if l.array.is_some())
            })
            .unwrap_or_else(|| panic!("no array-syntax loop at line {line}"))
            .site
            .0;
        let agg = r0
            .aggregates
            .iter()
            .find(|a| a.kind == trace::AggKind::Loop && a.site == site)
            .unwrap_or_else(|| panic!("no loop record for line {line} (site {site})"));
        assert_eq!((agg.count, agg.sum), (count, sum), "line {line}");
        let phase = plan
            .loop_of(tree.sites[site as usize].stmt.unwrap())
            .unwrap()
            .1;
        assert_eq!(
            phase,
            line != 27,
            "line {line}: a phase unless inside the DO loop"
        );
        if phase {
            assert!(
                r0.phases().any(|p| p.site == site),
                "line {line}: phase traced"
            );
        }
    }
}

/// The trace checks fail when a record is missing or a message does not match.
fn checker_catches_damage(
    prog: &frontend::Program,
    plan: &codegen::Plan,
    ranks: &[trace::RankTrace],
) {
    let mut no_loops = ranks.to_vec();
    no_loops[0]
        .aggregates
        .retain(|a| a.kind != trace::AggKind::Loop);
    let err = check_traces(prog, plan, &no_loops).expect_err("missing loop records must fail");
    assert!(err.contains("loop site"), "{err}");
    let mut no_branches = ranks.to_vec();
    no_branches[1]
        .aggregates
        .retain(|a| a.kind != trace::AggKind::Branch);
    let err = check_traces(prog, plan, &no_branches).expect_err("missing branch records must fail");
    assert!(err.contains("branch site"), "{err}");
    let mut bad_send = ranks.to_vec();
    let send = bad_send[0].events.iter_mut().find_map(|e| match e {
        trace::Event::Mpi { call, .. } if call.op == trace::Op::Send => Some(call),
        _ => None,
    });
    send.expect("edge.c: rank 0 sends").bytes += 8;
    let err = check_traces(prog, plan, &bad_send).expect_err("a mismatched message must fail");
    assert!(err.contains("sends"), "{err}");
}
