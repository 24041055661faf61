//! `Plan::from_apt` against the APT's site table, and `Plan::from_program` against
//! `Plan::from_apt`: same statements, roles and site ids on every testdata program and on the
//! edge programs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use codegen::{Plan, Role};
use common::*;

fn roles(plan: &Plan) -> BTreeSet<(u32, Role)> {
    plan.marks()
        .iter()
        .map(|m| (m.stmt.0, m.role.clone()))
        .collect()
}

fn check(src: &std::path::Path, include_dirs: Vec<std::path::PathBuf>) {
    let opts = frontend::Options {
        include_dirs,
        ..Default::default()
    };
    let lowered = frontend::load(src, &opts).unwrap();
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let from_apt = Plan::from_apt(&tree, &lowered.program);
    assert_every_site_marked_once(&tree, &from_apt, &src.display().to_string());
    let from_program = Plan::from_program(&lowered.program);
    assert_eq!(roles(&from_apt), roles(&from_program), "{}", src.display());
    assert_eq!(from_apt, from_program, "{}: same site ids", src.display());
}

#[test]
fn from_program_agrees_with_from_apt() {
    for p in programs() {
        for lang in [Lang::C, Lang::Fortran] {
            let case = Case::new(&p, lang);
            check(&case.src, case.include_dirs.clone());
        }
    }
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for f in [
        "edge.c",
        "edge.f",
        "edge.f90",
        "arrays.f90",
        "pointer_calls.c",
        "calls_in_loops.c",
    ] {
        check(&data.join(f), Vec::new());
    }
}
