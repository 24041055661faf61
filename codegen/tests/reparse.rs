//! The instrumented text of every testdata program (C and Fortran) parses again with augur's own
//! front end without errors, and lowers to a program with at least as many statements.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;

#[test]
fn instrumented_testdata_reparses_without_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for prog in programs() {
        for lang in [Lang::C, Lang::Fortran] {
            let case = Case::new(&prog, lang);
            let dir = tmp.path().join(format!("{}-{lang:?}", prog.name));
            let (before, _, main) = case
                .instrument(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", prog.name));
            augur_runtime::write_to(&dir).unwrap();
            let mut dirs = vec![dir.clone()];
            dirs.extend(case.include_dirs.clone());
            let opts = frontend::Options {
                include_dirs: dirs,
                ..Default::default()
            };
            let after = frontend::load(&main, &opts).unwrap();
            let errors: Vec<String> = after
                .diagnostics
                .iter()
                .filter(|d| d.severity == frontend::Severity::Error)
                .map(|d| frontend::diagnostic::render_human(d, &after.sources))
                .collect();
            assert!(
                errors.is_empty(),
                "{} ({lang:?}):\n{}",
                prog.name,
                errors.join("\n")
            );
            assert!(
                after.program.stmts.len() > before.program.stmts.len(),
                "{} ({lang:?}): markers should add statements",
                prog.name
            );
            checked += 1;
        }
    }
    assert!(checked >= 2);
}
