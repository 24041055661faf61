//! Snapshots of the IR dump for small programs written for these tests, and the testdata
//! check: every shipped example parses with zero syntax errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use frontend::*;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The dump plus rendered diagnostics, with the machine-specific directory removed.
fn render(l: &Lowered) -> String {
    let mut out = dump::dump(&l.program, &l.sources);
    for d in &l.diagnostics {
        let _ = writeln!(out, "{}", diagnostic::render_concise(d, &l.sources));
    }
    out.replace(&format!("{}/", data("").parent().unwrap().display()), "")
}

#[test]
fn ugly_fixed_form_f77() {
    let l = load(&data("ugly.f"), &Options::default()).unwrap();
    assert!(!l.has_errors());
    insta::assert_snapshot!(render(&l));
}

#[test]
fn c_kernel_with_project_macros() {
    let opts = Options {
        defines: vec![("RESTRICT".into(), Some(String::new()))],
        ..Options::default()
    };
    let l = load(&data("kernel.c"), &opts).unwrap();
    assert!(!l.has_errors(), "{}", render(&l));
    insta::assert_snapshot!(render(&l));
}

fn testdata_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// `testdata/<prog>/<prog>.<ext>`: an example program (other sources under testdata, such
/// as recorded build directories, need only parse).
fn is_example_program(f: &Path) -> bool {
    let stem = f.file_stem().and_then(|s| s.to_str());
    let dir = f
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|s| s.to_str());
    stem.is_some() && stem == dir
}

fn sources_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources_under(&p, out);
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("c" | "f" | "f90")
        ) {
            out.push(p);
        }
    }
}

#[test]
fn every_testdata_program_parses_without_errors() {
    let mut files = Vec::new();
    sources_under(&testdata_root(), &mut files);
    let mut bad = Vec::new();
    for f in &files {
        let l = load(f, &Options::default()).unwrap();
        let errors: Vec<String> = l
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| diagnostic::render_human(d, &l.sources))
            .collect();
        if !errors.is_empty() {
            bad.push(format!("{}:\n{}", f.display(), errors.join("\n")));
        }
        if is_example_program(f) {
            assert!(
                l.program.main_proc().is_some(),
                "{}: no main program",
                f.display()
            );
            let mpi = l
                .program
                .stmts
                .iter()
                .filter(|s| matches!(s.kind, StmtKind::Mpi(_)))
                .count();
            assert!(mpi > 0, "{}: no MPI call found", f.display());
        }
    }
    assert!(
        files.iter().filter(|f| is_example_program(f)).count() >= 2,
        "testdata programs not found"
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The C and Fortran versions of each testdata program make the same MPI calls in the same
/// order (what the APT's COMM nodes are built from).
#[test]
fn testdata_c_and_fortran_make_the_same_mpi_calls() {
    let Ok(rd) = std::fs::read_dir(testdata_root()) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files = Vec::new();
        sources_under(&dir, &mut files);
        files.retain(|f| is_example_program(f));
        let c: Vec<&PathBuf> = files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "c"))
            .collect();
        let f: Vec<&PathBuf> = files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e != "c"))
            .collect();
        let (Some(c), Some(f)) = (c.first(), f.first()) else {
            continue;
        };
        let ops = |p: &Path| {
            // per procedure, in order; procedures compared as a sorted list (C defines helpers
            // before main, Fortran after)
            let l = load(p, &Options::default()).unwrap();
            let mut per_proc: Vec<Vec<MpiOp>> = l
                .program
                .procs
                .iter()
                .map(|pr| {
                    l.program
                        .walk(&pr.body)
                        .into_iter()
                        .filter_map(|id| match &l.program.stmt(id)?.kind {
                            StmtKind::Mpi(m) if !matches!(m.op, MpiOp::Wtime | MpiOp::Abort) => {
                                Some(m.op)
                            }
                            _ => None,
                        })
                        .collect()
                })
                .filter(|v: &Vec<MpiOp>| !v.is_empty())
                .collect();
            per_proc.sort();
            per_proc
        };
        assert_eq!(ops(c), ops(f), "{} vs {}", c.display(), f.display());
    }
}
