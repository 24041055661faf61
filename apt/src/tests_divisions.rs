//! Unit tests of truncating divisions ([`crate::divisions`]): an integer quotient of the
//! program's parameters is listed with its line (the model takes N/KB, the program ⌊N/KB⌋);
//! real divisions, whole quotients and quotients at a rank are not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::apt_of;
use symbolic::{parse, Expr};

const BLOCKS_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
#define NB 4
int main(int argc, char **argv) {
    int n = atoi(argv[1]), kb = atoi(argv[2]), rank, size, nblk, nloc, half, i, b, two;
    double h, x = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nloc = n / size;
    nblk = n / kb;
    half = rank / 2;
    h = (double)n / kb;
    two = (2 * n) / 2;
    for (b = 0; b < nblk; b++)
        for (i = 0; i < nloc / NB; i++)
            x += h * i + half + two;
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn integer_quotients_of_parameters_are_listed_with_their_lines() {
    let apt = apt_of("blocks.c", BLOCKS_C);
    let got: Vec<(u32, String)> = apt.divisions.iter().map(|d| (d.line, d.text())).collect();
    assert_eq!(
        got,
        vec![
            (11, "N/P".to_string()),
            (12, "N/KB".to_string()),
            (17, "(N/P)/4".to_string()),
        ],
        "{:#?}",
        apt.divisions
    );
    assert_eq!(apt.divisions[2].num, parse("N/P").unwrap());
    assert_eq!(apt.divisions[2].den, Expr::num(4.0));
}

const BLOCKS_F: &str = r#"
      PROGRAM BLK
      INCLUDE 'mpif.h'
      INTEGER N, KB, NBLK, IERR, NP, B
      DOUBLE PRECISION H
      READ (5, *) N, KB
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      NBLK = N / KB
      H = DBLE(N) / KB
      DO 10 B = 1, NBLK
         H = H + 1.0D0
   10 CONTINUE
      CALL MPI_FINALIZE(IERR)
      END
"#;

#[test]
fn fortran_integer_quotients_are_listed_and_real_ones_not() {
    let apt = apt_of("blk.f", BLOCKS_F);
    let got: Vec<(u32, String)> = apt.divisions.iter().map(|d| (d.line, d.text())).collect();
    assert_eq!(got, vec![(9, "N/KB".to_string())], "{:#?}", apt.divisions);
}
