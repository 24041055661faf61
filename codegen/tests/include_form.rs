//! Files a program includes are instrumented in the form of the file that includes them
//! (as the front end reads them), not by their own extension: an `.inc` holding a fixed-form
//! procedure got free-form edits (`&` continuations, code past column 72).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

const MAIN: &str = "      PROGRAM MAIN
      INCLUDE 'mpif.h'
      INTEGER IERR, N
      CALL MPI_INIT(IERR)
      N = 100
      CALL KERN(N)
      CALL MPI_FINALIZE(IERR)
      END
      INCLUDE 'kern.inc'
";

const KERN: &str = "      SUBROUTINE KERN(N)
      INCLUDE 'mpif.h'
      INTEGER N, I, IERR
      DOUBLE PRECISION SBUF(100), RBUF(100)
      DO 10 I = 1, N
         SBUF(I) = I
   10 CONTINUE
      CALL MPI_ALLREDUCE(SBUF, RBUF, N, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      END
";

/// Lines of fixed-form `text` that are code past column 72 or carry free-form `&` marks.
fn not_fixed_form(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(['c', 'C', '*', '!']))
        .filter(|l| l.len() > 72 || l.trim_end().ends_with('&'))
        .map(str::to_string)
        .collect()
}

fn instrument_in(dir: &Path, opts: &codegen::Options) -> String {
    let lowered = frontend::load(&dir.join("main.f"), &frontend::Options::default()).unwrap();
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    let plan = codegen::Plan::from_program(&lowered.program);
    let inst = codegen::instrument_with(&lowered.program, &lowered.sources, &plan, opts).unwrap();
    let kern = inst
        .files
        .iter()
        .find(|f| f.source.ends_with("kern.inc"))
        .expect("kern.inc is instrumented");
    kern.text.clone()
}

#[test]
fn an_included_procedure_is_instrumented_in_its_includers_form() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("main.f"), MAIN).unwrap();
    std::fs::write(tmp.path().join("kern.inc"), KERN).unwrap();
    // no forms given, and the forms the CLI gives (the main files only)
    let listed = codegen::Options {
        form: None,
        forms: [(frontend::FileId(0), codegen::FortranForm::Fixed)].into(),
    };
    for opts in [codegen::Options::default(), listed] {
        let text = instrument_in(tmp.path(), &opts);
        assert_ne!(text, KERN, "the kernel has marks");
        let bad = not_fixed_form(&text);
        assert!(bad.is_empty(), "{bad:#?}\n{text}");
    }
}
