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
    let input = tmp.path().join("in.txt");
    std::fs::write(&input, "{N} oops\n").unwrap();
    let out = tmp.path().join("rd.augur");
    let platform = format!(
        "{}/../testdata/platform/cluster.xml",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = augur(&[
        "profile",
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--stdin",
        input.to_str().unwrap(),
        "--launcher",
        "smpirun",
        "--platform",
        &platform,
        "--np",
        "2",
        "--param",
        "N=10",
    ]);
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
