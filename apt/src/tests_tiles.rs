//! Totals of loops nested in a strided loop (trial 7 item 11): lines processed in blocks of
//! `nb` (`do l0 = 1, nlines, nb` / `do l = l0, min(l0 + nb - 1, nlines)`) add up to every
//! line once; a stride the source does not give is named as such, not as unresolved bounds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e, eval, loops};
use crate::Attr;

/// F77 fixed form: a pipelined sweep over `nlines` lines in blocks of `nb`, each line a
/// recurrence over `nloc - 1` points, one message per block.
const BLOCKS_F: &str = "\
      PROGRAM BLOCKS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NLINES, NLOC, NB, IERR, ME, NP, L0, L1, L, I, NG
      INTEGER ISTAT(MPI_STATUS_SIZE)
      DOUBLE PRECISION W(1000,1000), BUF(2000)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      READ(5,*) NLINES, NLOC, NB
      DO 30 L0 = 1, NLINES, NB
         L1 = MIN(L0+NB-1, NLINES)
         NG = L1 - L0 + 1
         IF (ME .GT. 0) CALL MPI_RECV(BUF, NG, MPI_DOUBLE_PRECISION,
     &                   ME-1, 1, MPI_COMM_WORLD, ISTAT, IERR)
         DO 20 L = L0, L1
            DO 10 I = 2, NLOC
               W(I,L) = W(I,L) - 0.5D0*W(I-1,L)
   10       CONTINUE
            BUF(L-L0+1) = W(NLOC,L)
   20    CONTINUE
         IF (ME .LT. NP-1) CALL MPI_SEND(BUF, NG, MPI_DOUBLE_PRECISION,
     &                   ME+1, 1, MPI_COMM_WORLD, IERR)
   30 CONTINUE
      DO 50 L0 = 1, NLINES, 4
         DO 40 L = L0, MIN(L0+3, NLINES)
            W(1,L) = 0.0D0
   40    CONTINUE
   50 CONTINUE
      DO 70 L0 = 1, NLINES, NB
         DO 60 L = L0, MIN(L0+NB-1, NLINES)
            DO 55 I = 2, NLOC
               W(I,L) = 0.5D0*W(I,L)
   55       CONTINUE
   60    CONTINUE
   70 CONTINUE
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn lines_in_blocks_of_nb_add_up_to_every_line() {
    let apt = apt_of("blocks.f", BLOCKS_F);
    let l = loops(&apt);
    assert_eq!(l[0].var.as_deref(), Some("l0"));
    assert_eq!(l[0].trip, e("floor(NLINES/NB - 1/NB) + 1"));
    // the block loop: one block's lines per entry, every line in total
    assert_eq!(l[1].var.as_deref(), Some("l"));
    assert_eq!(l[1].trip, e("min(l0 + NB - 1, NLINES) - l0 + 1"));
    assert_eq!(l[1].trip_total, Some(e("NLINES")));
    // its work per entry is (nloc - 1) per line of the block
    let work = l[1].work.as_ref().unwrap().expr().unwrap();
    let sum = crate::strided::sum_strided(
        work,
        "l0",
        &symbolic::Expr::one(),
        &symbolic::Expr::var("NLINES"),
        &symbolic::Expr::var("NB"),
    )
    .unwrap();
    assert_eq!(sum, symbolic::parse("NLINES*NLOC - NLINES").unwrap());
    // a constant block of 4 written as MIN(L0+3, NLINES), a computation phase: its work
    // is every line once
    assert_eq!(l[4].trip_total, Some(e("NLINES")));
    assert!(l[3].compute);
    assert_eq!(l[3].work, Some(e("NLINES")));
    // the blocked nest without communication: its work is (nloc - 1) per line
    assert!(l[5].compute);
    assert_eq!(l[5].work, Some(e("NLINES*NLOC - NLINES")));
    for n in [1.0, 4.0, 9.0] {
        assert_eq!(eval(&l[3].trip, &[("NLINES", n)]), (n / 4.0).ceil());
    }
}

#[test]
fn a_stride_the_source_does_not_give_is_named_not_the_bounds() {
    let src = "\
      PROGRAM STRIDE
      INCLUDE 'mpif.h'
      INTEGER N, NB, IW(64), L0, L, IERR, ME
      DOUBLE PRECISION W(100000)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      READ(5,*) N
      CALL MPI_BCAST(IW, 64, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      NB = IW(ME+1)
      DO 20 L0 = 1, N, NB
         DO 10 L = L0, MIN(L0+3, N)
            W(L) = 0.0D0
   10    CONTINUE
         CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
   20 CONTINUE
      CALL MPI_FINALIZE(IERR)
      END
";
    let apt = apt_of("stride.f", src);
    let l = loops(&apt);
    assert!(l[0].trip.unresolved().is_some(), "{:?}", l[0].trip);
    assert_eq!(l[1].trip, e("min(l0 + 3, N) - l0 + 1"));
    assert_eq!(
        l[1].trip_total,
        Some(Attr::Unresolved(
            "step of the loop over `l0` is unresolved".into()
        ))
    );
}

/// C: a K-blocked sweep whose last block is the remainder (`kk = min(K, nz - kb)` as a
/// conditional expression): each message's size changes with the block loop, so the size per
/// message in the run's parameters is its mean over the blocks.
const REMAINDER_C: &str = r#"#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, nz, K, n, kb, kk;
    double buf[100000];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = atoi(argv[1]);
    nz = atoi(argv[2]);
    K = atoi(argv[3]);
    for (kb = 0; kb < nz; kb += K) {
        kk = (nz - kb < K) ? nz - kb : K;
        if (rank > 0)
            MPI_Recv(buf, n * kk, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank < size - 1)
            MPI_Send(buf, n * kk, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_remainder_blocks_message_size_is_its_mean_over_the_blocks() {
    let apt = apt_of("remainder.c", REMAINDER_C);
    let c = comms(&apt);
    let sized: Vec<_> = c.iter().filter(|c| c.bytes.is_some()).collect();
    assert_eq!(sized.len(), 2, "{c:#?}");
    for c in sized {
        let mean = c.bytes_mean.as_ref().expect("a mean over the blocks");
        assert_eq!(c.size(), Some(mean));
        // 8 n per plane, nz planes over ceil(nz / K) messages, remainder or not
        for (nz, k) in [(128.0, 16.0), (100.0, 16.0), (5.0, 9.0)] {
            let got = eval(mean, &[("N", 10.0), ("NZ", nz), ("K", k)]);
            let want = 8.0 * 10.0 * nz / (nz / k).ceil();
            assert!(
                (got - want).abs() < 1e-9,
                "{mean:?} at NZ={nz}, K={k}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn a_block_of_lines_message_size_is_its_mean_over_the_blocks() {
    let apt = apt_of("blocks.f", BLOCKS_F);
    for c in comms(&apt).iter().filter(|c| c.bytes.is_some()) {
        let mean = c.size().unwrap();
        for (nl, nb) in [(10.0, 3.0), (12.0, 4.0), (5.0, 9.0)] {
            let got = eval(mean, &[("NLINES", nl), ("NB", nb)]);
            let want = 8.0 * nl / (nl / nb).ceil();
            assert!((got - want).abs() < 1e-9, "{mean:?}: {got} vs {want}");
        }
    }
}

/// F77 fixed form, trial 19's LU upper sweep: blocks walked from the top down (`DO 50 IE =
/// NX, 1, -NB`), each block starting at `MAX(IE - NB + 1, 1)`; the mirror of `BLOCKS_F`.
const DOWNWARD_F: &str = "\
      PROGRAM UPPER
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NX, NB, IB, IE, I, NBB, IERR, ME, NP
      INTEGER ISTAT(MPI_STATUS_SIZE)
      DOUBLE PRECISION V(0:1025)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      READ(5,*) NX, NB
      DO 50 IE = NX, 1, -NB
         IB = MAX(IE - NB + 1, 1)
         NBB = IE - IB + 1
         IF (ME .LT. NP - 1) CALL MPI_RECV(V(IB), NBB,
     &        MPI_DOUBLE_PRECISION, ME + 1, 2, MPI_COMM_WORLD, ISTAT, IERR)
         DO 30 I = IE, IB, -1
            V(I) = 0.5D0 * (V(I - 1) + V(I + 1))
   30    CONTINUE
         IF (ME .GT. 0) CALL MPI_SEND(V(IB), NBB,
     &        MPI_DOUBLE_PRECISION, ME - 1, 2, MPI_COMM_WORLD, IERR)
   50 CONTINUE
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn blocks_walked_downward_add_up_like_their_mirror() {
    let apt = apt_of("upper.f", DOWNWARD_F);
    let l = loops(&apt);
    assert_eq!(l[0].var.as_deref(), Some("ie"));
    assert_eq!(l[0].trip, e("floor(NX/NB - 1/NB) + 1"));
    assert_eq!(l[1].var.as_deref(), Some("i"));
    assert_eq!(l[1].trip_total, Some(e("NX")));
    let sized: Vec<_> = comms(&apt)
        .into_iter()
        .filter(|c| c.bytes.is_some())
        .collect();
    assert_eq!(sized.len(), 2);
    for c in sized {
        let mean = c.size().unwrap();
        assert!(mean.unresolved().is_none(), "{mean:?}");
        for (nx, nb) in [(10.0, 3.0), (12.0, 4.0), (5.0, 9.0)] {
            let got = eval(mean, &[("NX", nx), ("NB", nb)]);
            let want = 8.0 * nx / (nx / nb).ceil();
            assert!((got - want).abs() < 1e-9, "{mean:?}: {got} vs {want}");
        }
    }
}
