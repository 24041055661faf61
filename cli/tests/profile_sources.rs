//! End to end with real Open MPI and SMPI: programs of several source files (C; free-form
//! Fortran calling fixed-form kernels) profiled and analysed as one program; a missing file
//! named by the link error; programs that read their input from stdin (`--stdin FILE` with
//! placeholders). Fails loudly if MPI is not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use trace::{RunDir, RunStatus};

mod common;
use common::{manifest, need, run as augur};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn platform() -> String {
    format!(
        "{}/../testdata/platform/cluster.xml",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A ring of P ranks: the main program in main.c, the exchange and the relaxation in ops.c
/// (behind a header), so every MPI call is in the other file.
fn c_program(dir: &Path) -> (PathBuf, PathBuf) {
    write(
        dir,
        "ring.h",
        "void exchange(double *u, int n, int rank, int size);\nvoid relax(double *u, int n);\n",
    );
    let main = write(
        dir,
        "main.c",
        "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include \"ring.h\"\n\n\
         int main(int argc, char **argv) {\n    int rank, size, n, it;\n    double *u;\n\
         \x20   MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n\
         \x20   MPI_Comm_size(MPI_COMM_WORLD, &size);\n    n = atoi(argv[1]);\n\
         \x20   u = calloc(n + 2, sizeof(double));\n\
         \x20   for (it = 0; it < 20; it++) {\n        exchange(u, n, rank, size);\n\
         \x20       relax(u, n);\n    }\n\
         \x20   if (rank == 0) {\n        printf(\"n=%d u=%g\\n\", n, u[1]);\n    }\n\
         \x20   free(u);\n    MPI_Finalize();\n    return 0;\n}\n",
    );
    let ops = write(
        dir,
        "ops.c",
        "#include <mpi.h>\n#include \"ring.h\"\n\n\
         void exchange(double *u, int n, int rank, int size) {\n\
         \x20   int right = (rank + 1) % size, left = (rank + size - 1) % size;\n\
         \x20   MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,\n\
         \x20                MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n}\n\n\
         void relax(double *u, int n) {\n    int i;\n\
         \x20   for (i = 1; i <= n; i++) {\n        u[i] = 0.5 * (u[i] + u[i - 1]) + 1.0;\n    }\n}\n",
    );
    (main, ops)
}

#[test]
fn a_c_program_of_two_files_is_profiled_and_analysed_as_one() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let (main, ops) = c_program(tmp.path());
    let out = tmp.path().join("main.augur");
    let grid = [
        "--np",
        "1,2",
        "--param",
        "N=2000,8000",
        "--json",
        "--",
        "{N}",
    ];

    // the main file alone: the link fails, and the error names the symbols and the remedy
    let mut args = vec!["profile", s(&main), "--out", s(&out)];
    args.extend(grid);
    let o = augur(&args);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("undefined reference to `exchange`, `relax`")
            && err.contains("give the source files that define them too"),
        "{err}"
    );
    assert!(
        !err.contains("collect2"),
        "the linker's real complaint: {err}"
    );

    // both: one program, every source compiled and linked, recorded with its hash
    let mut args = vec!["profile", s(&main), s(&ops), "--out", s(&out)];
    args.extend(grid);
    let o = augur(&args);
    assert_eq!(o.status.code(), Some(0));
    let m = manifest(&out);
    assert_eq!(m.program, "main");
    let files: Vec<String> = m.all_sources().into_iter().map(|r| r.path).collect();
    assert_eq!(files, vec![s(&main).to_string(), s(&ops).to_string()]);
    assert_eq!(m.runs.len(), 4);
    for r in &m.runs {
        assert_eq!(r.status, RunStatus::Ok, "{r:?}");
        let traces = RunDir::at(&out).read_run(&r.config).unwrap();
        assert!(traces.iter().all(|t| t.mpi_calls().count() >= 20));
    }
    // re-running resumes: the runs are recorded
    let mut args = vec!["profile", s(&main), s(&ops), "--out", s(&out)];
    args.extend(grid);
    let o = augur(&args);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["skipped"], 4);

    // analyze over both files: the exchange in ops.c is a phase, the relaxation a computation
    let o = augur(&["analyze", s(&main), s(&ops), "--runs", s(&out), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let model: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        !model["phases"].as_array().unwrap().is_empty(),
        "{}",
        model["phases"]
    );
    assert!(model["t"].as_str().unwrap().contains('N'), "{}", model["t"]);
    // what is in ops.c is reported as there (file beside line), what is in main.c by line only
    let p2p = model["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "synchronous")
        .expect("the Sendrecv exchange");
    assert_eq!(p2p["ancestor_file"], "ops.c", "{p2p:#}");
    let compute = model["compute"].as_array().unwrap();
    assert!(
        compute.iter().any(|c| c["file"] == "ops.c"),
        "{:#}",
        model["compute"]
    );
    assert!(compute.iter().all(|c| c["file"] != "main.c"));
    let err = stderr(&o);
    assert!(!err.contains("warning"), "{err}");

    // the runs are of two files: giving one is an error naming the other
    let o = augur(&["analyze", s(&main), "--runs", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ops.c not given"), "{}", stderr(&o));
    // an edited second file is a warning naming it
    let text = std::fs::read_to_string(&ops).unwrap();
    std::fs::write(&ops, format!("{text}/* edited */\n")).unwrap();
    let o = augur(&["analyze", s(&main), s(&ops), "--runs", s(&out)]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.contains("ops.c has changed since it was profiled") && !err.contains("main.c has"),
        "{err}"
    );
}

#[test]
fn free_form_fortran_calling_fixed_form_kernels_under_smpi() {
    need("smpif90");
    need("smpiff");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let main = write(
        tmp.path(),
        "main3.f90",
        "program main3\n  use mpi\n  implicit none\n  integer :: n, nstep, step, ierr, rank, nprocs\n\
         \x20 double precision, allocatable :: u(:), w(:)\n  character(len=32) :: arg\n\
         \x20 external ring_step, smooth\n\
         \x20 call MPI_Init(ierr)\n  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)\n\
         \x20 call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)\n\
         \x20 call get_command_argument(1, arg)\n  read (arg, *) n\n\
         \x20 call get_command_argument(2, arg)\n  read (arg, *) nstep\n\
         \x20 allocate (u(0:n + 1), w(0:n + 1))\n  u = dble(rank)\n  w = 0.0d0\n\
         \x20 do step = 1, nstep\n    call ring_step(u, n, rank, nprocs)\n    call smooth(u, w, n)\n  end do\n\
         \x20 call MPI_Finalize(ierr)\nend program main3\n",
    );
    let kernel = write(
        tmp.path(),
        "kernel3.f",
        "C     fixed-form kernels for main3.f90\n\
         \x20     SUBROUTINE RING_STEP(U, N, MYID, NP)\n      IMPLICIT NONE\n      INCLUDE 'mpif.h'\n\
         \x20     INTEGER N, MYID, NP, LEFT, RIGHT, IERR\n      INTEGER ST(MPI_STATUS_SIZE)\n\
         \x20     DOUBLE PRECISION U(0:N+1)\n      LEFT  = MOD(MYID - 1 + NP, NP)\n\
         \x20     RIGHT = MOD(MYID + 1, NP)\n\
         \x20     CALL MPI_SENDRECV(U(N), 1, MPI_DOUBLE_PRECISION, RIGHT, 1,\n\
         \x20    &                  U(0), 1, MPI_DOUBLE_PRECISION, LEFT, 1,\n\
         \x20    &                  MPI_COMM_WORLD, ST, IERR)\n      RETURN\n      END\n\n\
         \x20     SUBROUTINE SMOOTH(U, W, N)\n      IMPLICIT NONE\n      INTEGER N, I, K\n\
         \x20     DOUBLE PRECISION U(0:N+1), W(0:N+1)\n      DO 20 K = 1, 4\n\
         \x20        DO 10 I = 1, N\n            W(I) = (U(I-1) + 2.0D0*U(I) + U(I+1)) * 0.25D0\n\
         \x20  10    CONTINUE\n         DO 15 I = 1, N\n            U(I) = W(I)\n\
         \x20  15    CONTINUE\n   20 CONTINUE\n      RETURN\n      END\n",
    );
    let out = tmp.path().join("main3.augur");
    let o = augur(&[
        "profile",
        s(&main),
        s(&kernel),
        "--out",
        s(&out),
        "--launcher",
        "smpirun",
        "--platform",
        &platform(),
        "--np",
        "2,4",
        "--param",
        "N=1000,4000",
        "--param",
        "NSTEP=10",
        "--",
        "{N}",
        "{NSTEP}",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let log = std::fs::read_to_string(out.join("build/build.log")).unwrap();
    assert!(
        log.contains("smpiff -O2") && log.contains("smpif90 -O2"),
        "each file compiled with its form's wrapper: {log}"
    );
    let m = manifest(&out);
    for r in &m.runs {
        assert_eq!(r.status, RunStatus::Ok, "{r:?}");
        let traces = RunDir::at(&out).read_run(&r.config).unwrap();
        // one Sendrecv per step, from the fixed-form file
        assert!(
            traces.iter().all(|t| t.mpi_calls().count() >= 10),
            "MPI events from the kernels"
        );
    }
    let o = augur(&["analyze", s(&main), s(&kernel), "--runs", s(&out), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let model: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = model["t"].as_str().unwrap();
    assert!(t.contains('N') && t.contains("NSTEP"), "{t}");
}

/// Rank 0 reads N and NSTEPS from stdin and broadcasts them (the common idiom); every rank
/// also reads a line of its own when `all` is set.
fn stdin_program(dir: &Path) -> PathBuf {
    write(
        dir,
        "rd.c",
        "#include <mpi.h>\n#include <stdio.h>\n#include <string.h>\n\n\
         int main(int argc, char **argv) {\n    int rank, size, v[2] = {0, 0}, it, i, mine = -1;\n\
         \x20   double x = 0.0;\n    MPI_Init(&argc, &argv);\n\
         \x20   MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n\
         \x20   if (rank == 0) {\n        if (scanf(\"%d %d\", &v[0], &v[1]) != 2) {\n\
         \x20           fprintf(stderr, \"rank 0: end of file on stdin\\n\");\n\
         \x20           MPI_Abort(MPI_COMM_WORLD, 2);\n        }\n    } else if (argc > 1 && strcmp(argv[argc - 1], \"all\") == 0) {\n\
         \x20       if (scanf(\"%d\", &mine) != 1) {\n            MPI_Abort(MPI_COMM_WORLD, 3);\n        }\n    }\n\
         \x20   MPI_Bcast(v, 2, MPI_INT, 0, MPI_COMM_WORLD);\n\
         \x20   for (it = 0; it < v[1]; it++) {\n        for (i = 0; i < v[0]; i++) {\n\
         \x20           x += 0.5 * i;\n        }\n\
         \x20       MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n    }\n\
         \x20   printf(\"rank %d n=%d steps=%d mine=%d\\n\", rank, v[0], v[1], mine);\n\
         \x20   MPI_Finalize();\n    return 0;\n}\n",
    )
}

#[test]
fn a_program_reading_stdin_is_profiled_with_an_input_template() {
    need("mpicc");
    need("mpirun");
    need("smpicc");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = stdin_program(tmp.path());
    let input = write(tmp.path(), "in.txt", "{N} {NSTEPS}\n");
    let out = tmp.path().join("rd.augur");
    let grid = [
        "--np",
        "1,2",
        "--param",
        "N=1000,4000",
        "--param",
        "NSTEPS=10",
        "--timeout",
        "30s",
    ];

    // without --stdin: the runs fail, and the reason says why and what to do
    let mut args = vec!["profile", s(&src), "--out", s(&out)];
    args.extend(grid);
    args.extend(["--param", "EXTRA=7"]);
    let o = augur(&args);
    assert_eq!(o.status.code(), Some(1));
    let m = manifest(&out);
    let RunStatus::Failed { reason } = &m.runs[0].status else {
        panic!("{:?}", m.runs[0]);
    };
    assert!(
        reason.contains("end of file on stdin") && reason.contains("--stdin FILE"),
        "{reason}"
    );
    let failed_dirs = |out: &Path| -> Vec<String> {
        std::fs::read_dir(out.join("runs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("EXTRA"))
            .collect()
    };
    assert!(
        !failed_dirs(&out).is_empty(),
        "the failed runs' directories"
    );

    // with it: every configuration reads its own copy with the grid's values; runs that all
    // failed are not worth keeping, so no --force is needed
    let mut args = vec!["profile", s(&src), "--out", s(&out), "--stdin", s(&input)];
    args.extend(grid);
    args.extend(["--", "all"]);
    let o = augur(&args);
    assert_eq!(o.status.code(), Some(0));
    // the program as written, its other ranks reading a standard input mpirun does not give
    // them, fails: the markers' cost is not measured, and the note says why
    let err = stderr(&o);
    assert!(
        err.contains(
            "note: what augur's markers cost was not measured: the program as written failed"
        ) && err.contains("mpirun hands --stdin to rank 0 only"),
        "{err}"
    );
    // the replaced manifest's runs are gone with it, as with --force
    assert_eq!(failed_dirs(&out), Vec::<String>::new());
    let m = manifest(&out);
    assert!(m.probe.is_none(), "{:?}", m.probe);
    assert_eq!(m.stdin.as_ref().unwrap().path, s(&input));
    for r in &m.runs {
        assert_eq!(r.status, RunStatus::Ok, "{r:?}");
        let copy = r.stdin.as_ref().expect("the input recorded per run");
        let text = std::fs::read_to_string(copy).unwrap();
        assert_eq!(text, format!("{} 10\n", r.params["N"]));
        // every rank read it, not only rank 0 (Open MPI forwards to rank 0 only)
        let stdout =
            std::fs::read_to_string(RunDir::at(&out).run_path(&r.config).join("stdout.txt"))
                .unwrap();
        for rank in 0..r.np {
            let want = if rank == 0 {
                format!("rank 0 n={} steps=10 mine=-1", r.params["N"])
            } else {
                format!(
                    "rank {rank} n={} steps=10 mine={}",
                    r.params["N"], r.params["N"]
                )
            };
            assert!(stdout.contains(&want), "{want} in {stdout}");
        }
    }
    // only rank 0 reading, as programs do under mpirun: the program as written runs, and the
    // markers' cost is measured (trial 21: skipped for every --stdin program)
    let rank0 = tmp.path().join("rank0.augur");
    let mut args = vec!["profile", s(&src), "--out", s(&rank0), "--stdin", s(&input)];
    args.extend(grid);
    let o = augur(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let probe = manifest(&rank0).probe.expect("the markers' cost measured");
    assert_eq!(probe.clock, "wall");
    // another input is another set of runs; a placeholder the grid lacks is passed as written,
    // with a warning (a misspelt --param)
    let other = write(tmp.path(), "other.txt", "{N} {STEPS}\n");
    let mut args = vec!["profile", s(&src), "--out", s(&out), "--stdin", s(&other)];
    args.extend(grid);
    let o = augur(&args);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("another standard input"), "{err}");
    assert!(
        err.contains(&format!(
            "warning: --stdin {}: `{{STEPS}}` is not a grid parameter (known: {{N}} {{NSTEPS}} {{P}})",
            s(&other)
        )),
        "{err}"
    );

    // under SMPI the ranks share the launcher's standard input: rank 0 reads and broadcasts
    let smpi = tmp.path().join("smpi.augur");
    let mut args = vec![
        "profile",
        s(&src),
        "--out",
        s(&smpi),
        "--stdin",
        s(&input),
        "--launcher",
        "smpirun",
    ];
    args.extend(grid);
    let o = augur(&args);
    assert_eq!(o.status.code(), Some(0));
    let o = augur(&["analyze", s(&src), "--runs", s(&smpi), "--json"]);
    assert_eq!(o.status.code(), Some(0));
}

/// `--stdin` reaches the ranks other than 0 also when the program calls MPI_Init where the
/// instrumentation does not see it (through a pointer: the tracer goes live at the next wrapped
/// call), and a file a rank cannot open is named on its stderr instead of the rank silently
/// reading nothing (which looked like a short input file).
#[test]
fn stdin_reaches_every_rank_without_the_init_wrapper_and_a_bad_file_is_named() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = write(
        tmp.path(),
        "ptr.c",
        "#include <mpi.h>\n#include <stdio.h>\n\n\
         int main(int argc, char **argv) {\n    int (*init)(int *, char ***) = MPI_Init;\n\
         \x20   int rank, v = -1;\n    init(&argc, &argv);\n\
         \x20   MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n\
         \x20   if (scanf(\"%d\", &v) != 1) {\n\
         \x20       fprintf(stderr, \"rank %d: end of file on stdin\\n\", rank);\n\
         \x20       MPI_Abort(MPI_COMM_WORLD, 2);\n    }\n\
         \x20   printf(\"rank %d v=%d\\n\", rank, v);\n    MPI_Barrier(MPI_COMM_WORLD);\n\
         \x20   MPI_Finalize();\n    return 0;\n}\n",
    );
    let input = write(tmp.path(), "in.txt", "{N}\n");
    let out = tmp.path().join("ptr.augur");
    let o = augur(&[
        "profile",
        s(&src),
        "--out",
        s(&out),
        "--stdin",
        s(&input),
        "--np",
        "2",
        "--param",
        "N=5",
        "--timeout",
        "30s",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let m = manifest(&out);
    let stdout = std::fs::read_to_string(
        RunDir::at(&out)
            .run_path(&m.runs[0].config)
            .join("stdout.txt"),
    )
    .unwrap();
    assert!(stdout.contains("rank 1 v=5"), "{stdout}");

    // the instrumented program run by hand with an input that does not exist
    let exe = out.join("build").join("ptr");
    let o = Command::new("mpirun")
        .args(["--oversubscribe", "-np", "2", s(&exe)])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("AUGUR_TRACE_DIR", tmp.path())
        .env("AUGUR_STDIN", "/nonexistent/in.txt")
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(
        err.contains(
            "augur: warning: rank 1 cannot open its standard input /nonexistent/in.txt: No such file or directory"
        ),
        "{err}"
    );
}
