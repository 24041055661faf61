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
