//! A Fortran run-time error in a profiled run (trial2 #8a): the run's reason quotes gfortran's
//! `Fortran runtime error:` line, not the shell's `Aborted`, with the line gfortran names in
//! the instrumented copy mapped back to the source. Real SMPI; fails loudly without it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use trace::RunStatus;

mod common;
use common::{manifest, need, run as augur};

#[test]
fn a_bad_integer_read_names_the_source_line() {
    need("smpiff");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("rd.f");
    // the READ is on line 9; codegen inserts its markers above it
    std::fs::write(
        &src,
        "      PROGRAM RD\n\
         \x20     INCLUDE 'mpif.h'\n\
         \x20     INTEGER N, NITER, MYID, IERR, I\n\
         \x20     DOUBLE PRECISION S\n\
         \x20     CALL MPI_INIT(IERR)\n\
         \x20     CALL MPI_COMM_RANK(MPI_COMM_WORLD, MYID, IERR)\n\
         \x20     S = 0.0D0\n\
         \x20     IF (MYID .EQ. 0) THEN\n\
         \x20        READ (*,*) N, NITER\n\
         \x20     ENDIF\n\
         \x20     CALL MPI_BCAST(N, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)\n\
         \x20     DO 10 I = 1, N\n\
         \x20        S = S + I\n\
         \x20  10 CONTINUE\n\
         \x20     CALL MPI_FINALIZE(IERR)\n\
         \x20     END\n",
    )
    .unwrap();
    let out = tmp.path().join("rd.augur");
    let o = profile_smpi(&src, "{N} oops\n", &out, "2", "N=10");
    assert_eq!(o.status.code(), Some(1));
    let m = manifest(&out);
    let RunStatus::Failed { reason } = &m.runs[0].status else {
        panic!("{:?}", m.runs[0].status)
    };
    assert!(
        reason.contains("Fortran runtime error: Bad integer for item 2 in list input"),
        "{reason}"
    );
    assert!(
        reason.ends_with(&format!("(at {}:9)", src.display())),
        "{reason}"
    );
}

/// Trial 27: an F77 code's `STOP` after `MPI_FINALIZE` under SMPI. Every rank is an actor of
/// one process, and the first to leave ended the simulation before the others wrote their
/// traces: every run failed "the rank did not reach MPI_Finalize". The ranks above 0 work
/// after the last message, so they finalize after rank 0.
#[test]
fn a_stop_after_finalize_leaves_every_ranks_trace() {
    need("smpiff");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("stopper.f");
    std::fs::write(
        &src,
        "      PROGRAM STOPPR\n\
         \x20     INCLUDE 'mpif.h'\n\
         \x20     INTEGER IERR, RANK, I, N\n\
         \x20     DOUBLE PRECISION S, T\n\
         \x20     CALL MPI_INIT(IERR)\n\
         \x20     CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)\n\
         \x20     IF (RANK .EQ. 0) READ (*,*) N\n\
         \x20     CALL MPI_BCAST(N, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)\n\
         \x20     S = 0.0D0\n\
         \x20     DO 10 I = 1, N\n\
         \x20        S = S + DBLE(I) * 1.0D-9\n\
         \x20  10 CONTINUE\n\
         \x20     CALL MPI_ALLREDUCE(S, T, 1, MPI_DOUBLE_PRECISION, MPI_SUM,\n\
         \x20    &     MPI_COMM_WORLD, IERR)\n\
         \x20     DO 20 I = 1, N * RANK\n\
         \x20        S = S + DBLE(I) * 1.0D-9\n\
         \x20  20 CONTINUE\n\
         \x20     IF (RANK .EQ. 0) WRITE (*,*) 'SUM', T\n\
         \x20     IF (RANK .GT. 0) WRITE (*,*) 'MORE', S\n\
         \x20     CALL MPI_FINALIZE(IERR)\n\
         \x20     STOP\n\
         \x20     END\n",
    )
    .unwrap();
    let out = tmp.path().join("stopper.augur");
    let o = profile_smpi(&src, "{N}\n", &out, "2,4", "N=200000");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let m = manifest(&out);
    assert!(
        m.runs.iter().all(|r| r.status.is_ok()),
        "{:?}",
        m.runs.iter().map(|r| &r.status).collect::<Vec<_>>()
    );
}

/// `augur profile SRC` under SMPI on the testdata platform into `out`, every rank's standard
/// input `input` (with placeholders), at ranks `np` and parameter `param`.
fn profile_smpi(
    src: &std::path::Path,
    input: &str,
    out: &std::path::Path,
    np: &str,
    param: &str,
) -> std::process::Output {
    let file = src.with_extension("in.txt");
    std::fs::write(&file, input).unwrap();
    let platform = format!(
        "{}/../testdata/platform/cluster.xml",
        env!("CARGO_MANIFEST_DIR")
    );
    augur(&[
        "profile",
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--stdin",
        file.to_str().unwrap(),
        "--launcher",
        "smpirun",
        "--platform",
        &platform,
        "--np",
        np,
        "--param",
        param,
    ])
}
