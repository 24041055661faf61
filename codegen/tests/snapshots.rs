//! Snapshots of the instrumented text (plan from the IR) of small programs in C, fixed-form and
//! free-form Fortran; each snapshot lists the output files, then the notes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

fn instrumented(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let lowered = frontend::load(&path, &frontend::Options::default()).unwrap();
    let plan = codegen::Plan::from_program(&lowered.program);
    let out = codegen::instrument(&lowered.program, &lowered.sources, &plan).unwrap();
    let mut s = String::new();
    for f in &out.files {
        s.push_str(&format!("==== {}\n{}", f.relative.display(), f.text));
    }
    for n in &out.notes {
        let at = n.span.map(|sp| lowered.sources.start(sp));
        s.push_str(&format!(
            "note: {} (line {})\n",
            n.message,
            at.map_or(0, |a| a.line)
        ));
    }
    s
}

#[test]
fn edge_c() {
    insta::assert_snapshot!(instrumented("tests/data/edge.c"));
}

#[test]
fn edge_fixed_form() {
    insta::assert_snapshot!(instrumented("tests/data/edge.f"));
}

#[test]
fn edge_free_form() {
    insta::assert_snapshot!(instrumented("tests/data/edge.f90"));
}

#[test]
fn shift_c() {
    insta::assert_snapshot!(instrumented("../testdata/shift/shift.c"));
}

#[test]
fn shift_fixed_form() {
    insta::assert_snapshot!(instrumented("../testdata/shift/shift.f"));
}

#[test]
fn array_syntax_free_form() {
    insta::assert_snapshot!(instrumented("tests/data/arrays.f90"));
}

#[test]
fn phase_nest_c() {
    insta::assert_snapshot!(instrumented("tests/data/phase_nest.c"));
}

#[test]
fn phase_nest_fixed_form() {
    insta::assert_snapshot!(instrumented("tests/data/phase_nest.f"));
}

#[test]
fn phase_nest_free_form() {
    insta::assert_snapshot!(instrumented("tests/data/phase_nest.f90"));
}
