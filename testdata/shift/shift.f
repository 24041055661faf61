C     shift: loosely synchronous shift-right, left half of seed 004
C     Fig. 1. Every rank but the last sends its block to the right,
C     computes, then every rank but the first receives its left
C     neighbour's block; no rank receives before it sends, so the CPG
C     must call this phase synchronous. Twin of ../pipeline/pipeline.f:
C     identical text except the send/recv order. Mirrors shift.c.
C     args: N ITERS   (N divisible by P, N/P <= NMAX; small: 4096 20)
C     expect: loop trip ITERS
C     expect: loop trip N/P
C     expect: message bytes 8*N/P
C     expect: phase synchronous
      PROGRAM SHIFT
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NMAX, TAG
      PARAMETER (NMAX = 65536, TAG = 7)
      DOUBLE PRECISION A(NMAX), B(NMAX)
      INTEGER NPROCS, RANK, N, ITERS, NLOCAL, IT, I, IERR
      INTEGER STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION LOCAL, TOTAL
      CHARACTER*32 ARG
      CHARACTER*16 CS
C
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (COMMAND_ARGUMENT_COUNT() .LT. 2) THEN
         IF (RANK .EQ. 0) PRINT *, 'usage: shift N ITERS'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) N
      CALL GET_COMMAND_ARGUMENT(2, ARG)
      READ (ARG, *) ITERS
      NLOCAL = N / NPROCS
      IF (NLOCAL .LT. 1 .OR. NLOCAL .GT. NMAX .OR.
     &    NLOCAL * NPROCS .NE. N) THEN
         IF (RANK .EQ. 0) PRINT *, 'shift: N must be a multiple of P'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
C
      DO 10 I = 1, NLOCAL
         A(I) = DBLE(RANK * NLOCAL + I) / DBLE(N)
         B(I) = 0.0D0
   10 CONTINUE
C
      DO 30 IT = 1, ITERS
         IF (RANK .LT. NPROCS - 1)
     &      CALL MPI_SEND(A, NLOCAL, MPI_DOUBLE_PRECISION, RANK + 1,
     &                    TAG, MPI_COMM_WORLD, IERR)
         DO 20 I = 1, NLOCAL
            A(I) = 0.75D0 * A(I) + 0.5D0 * B(I)
   20    CONTINUE
         IF (RANK .GT. 0)
     &      CALL MPI_RECV(B, NLOCAL, MPI_DOUBLE_PRECISION, RANK - 1,
     &                    TAG, MPI_COMM_WORLD, STATUS, IERR)
   30 CONTINUE
C
      LOCAL = 0.0D0
      DO 40 I = 1, NLOCAL
         LOCAL = LOCAL + A(I) * DBLE(I)
   40 CONTINUE
      CALL MPI_REDUCE(LOCAL, TOTAL, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                0, MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         WRITE (CS, '(ES14.6)') TOTAL
         WRITE (*, '(A,I0,A,I0,A,I0,A,A)') 'shift P=', NPROCS,
     &      ' N=', N, ' ITERS=', ITERS, ' checksum=', TRIM(ADJUSTL(CS))
      END IF
      CALL MPI_FINALIZE(IERR)
      END
