//! `augur apt` end to end: exit codes (0 clean, 1 broken source with a tree, 2 unreadable),
//! diagnostics naming file:line on stderr, JSON on stdout, and no panic or hang on hostile input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn augur(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_augur"))
        .args(args)
        .output()
        .expect("augur runs")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn testdata(rel: &str) -> String {
    format!("{}/../testdata/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Exit status, and that stderr never shows a Rust panic.
fn code(out: &Output) -> i32 {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "panic: {err}");
    out.status.code().expect("exited normally")
}

#[test]
fn testdata_json_has_symbolic_attributes() {
    let out = augur(&["apt", &testdata("pge1/pge1.c"), "--json", "--args", "N,K"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    for want in [
        r#""trip":"N/K""#,
        r#""bytes":"16*K""#,
        r#""work":"K*N/P""#,
        r#""kind":"routine""#,
    ] {
        assert!(text.contains(want), "{want} missing");
    }
    // C and Fortran files are not one program: the second is skipped with an error
    let out = augur(&[
        "apt",
        &testdata("shift/shift.c"),
        &testdata("shift/shift.f"),
        "--json",
    ]);
    assert_eq!(code(&out), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another language"), "{err}");
}

/// A program of two files: main in one, the routine holding the communication in the other.
fn two_file_program(dir: &Path) -> (PathBuf, PathBuf) {
    let main = write(
        dir,
        "main.c",
        b"#include <mpi.h>\n#include <stdlib.h>\nvoid step(double *u, int n);\n\
          int main(int argc, char **argv) {\n  int n, it;\n  double u[1024];\n\
          MPI_Init(&argc, &argv);\n  n = atoi(argv[1]);\n\
          for (it = 0; it < 10; it++) {\n    step(u, n);\n  }\n\
          MPI_Finalize();\n  return 0;\n}\n",
    );
    let ops = write(
        dir,
        "ops.c",
        b"#include <mpi.h>\nvoid step(double *u, int n) {\n  int i;\n\
          for (i = 0; i < n; i++) {\n    u[i] = 0.5 * u[i];\n  }\n\
          MPI_Allreduce(MPI_IN_PLACE, u, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n}\n",
    );
    (main, ops)
}

#[test]
fn several_files_are_one_program() {
    let dir = tempfile::tempdir().unwrap();
    let (main, ops) = two_file_program(dir.path());
    let (main, ops) = (main.to_str().unwrap(), ops.to_str().unwrap());
    let out = augur(&["apt", main, ops, "--json"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("not defined"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    // the call resolves across files, and the allreduce (with its size from the caller's n)
    // is in the tree, in the other file
    assert!(text.contains(r#""callee":"step""#), "{text}");
    assert!(text.contains(r#""op":"allreduce""#), "{text}");
    assert!(text.contains(r#"/ops.c","kind":"comm""#), "{text}");
    // a file listed twice is one file
    let again = augur(&["apt", main, ops, ops, "--json"]);
    assert_eq!(again.stdout, out.stdout);
    // one file alone: the call is gone from the tree, and a warning says which and where
    let out = augur(&["apt", main]);
    assert_eq!(code(&out), 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not defined in the given sources: step (main.c:10)")
            && err.matches("warning").count() == 1,
        "{err}"
    );
}

#[test]
fn broken_inputs_exit_nonzero_with_located_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let pge1 = std::fs::read_to_string(testdata("pge1/pge1.c")).unwrap();
    let cut = pge1.len() / 2;
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            write(
                dir.path(),
                "parens.c",
                b"int main() {\n  int n = (1 + (2 * 3);\n  for (i = 0; i < n; i++) { }\n}\n",
            ),
            "parens.c:2:",
        ),
        (
            write(
                dir.path(),
                "parens.f90",
                b"program p\n  x = (1 + (2 * 3)\n  do i = 1, n\n  end do\nend program p\n",
            ),
            "parens.f90:2:",
        ),
        (
            write(dir.path(), "truncated.c", &pge1.as_bytes()[..cut]),
            "truncated.c:",
        ),
        (
            write(
                dir.path(),
                "garbage.c",
                &(0..4096u32)
                    .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                    .collect::<Vec<_>>(),
            ),
            "garbage.c:",
        ),
        (write(dir.path(), "empty.f90", b""), "empty.f90"),
    ];
    for (path, located) in cases {
        let out = augur(&["apt", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(&out), 1, "{}: {err}", path.display());
        assert!(
            err.contains(located),
            "{}: diagnostics do not name {located}: {err}",
            path.display()
        );
    }
}

#[test]
fn unreadable_file_and_bad_usage_exit_2() {
    assert_eq!(code(&augur(&["apt", "/nonexistent/prog.c"])), 2);
    assert_eq!(code(&augur(&["apt", "--form", "sideways", "x.c"])), 2);
}

#[test]
fn deep_loop_nest_neither_panics_nor_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 200;
    let mut src = String::from("#include <mpi.h>\nint main(int argc, char **argv) {\n  int i;\n");
    for k in 0..depth {
        src.push_str(&format!(
            "for (int i{k} = 0; i{k} < {}; i{k}++) {{\n",
            k + 2
        ));
    }
    src.push_str("MPI_Barrier(MPI_COMM_WORLD);\n");
    src.push_str(&"}\n".repeat(depth));
    src.push_str("  return 0;\n}\n");
    let p = write(dir.path(), "deep.c", src.as_bytes());
    let out = augur(&["apt", p.to_str().unwrap(), "--json"]);
    let c = code(&out);
    assert!(c == 0 || c == 1, "exit {c}");
    // (deeper than serde_json's default reading limit: count instead of parsing)
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches(r#""kind": "loop""#).count(), depth);
    assert_eq!(text.matches(r#""op": "barrier""#).count(), 1);
}

/// Trial 16: `apt --stdin` names the values read from standard input as `profile --stdin` and
/// `analyze` do (without it they showed as `IBUF_1`).
#[test]
fn stdin_template_names_the_values_read() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "rd.f",
        b"      PROGRAM RD\n      INCLUDE 'mpif.h'\n      INTEGER IBUF(2), I, IERR\n      DOUBLE PRECISION A(100000)\n      CALL MPI_INIT(IERR)\n      READ (5, *) IBUF(1), IBUF(2)\n      DO 10 I = 1, IBUF(1)\n         A(I) = IBUF(2)\n   10 CONTINUE\n      CALL MPI_FINALIZE(IERR)\n      END\n",
    );
    let tmpl = write(dir.path(), "in.txt", b"{N} {K}\n");
    let out = augur(&[
        "apt",
        src.to_str().unwrap(),
        "--stdin",
        tmpl.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("trip=N "), "{text}");
    assert!(!text.contains("IBUF_1"), "{text}");
    let out = augur(&[
        "apt",
        src.to_str().unwrap(),
        "--stdin",
        "/nonexistent/in.txt",
    ]);
    assert_eq!(code(&out), 2);
}
