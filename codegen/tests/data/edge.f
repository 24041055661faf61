C     edge.f: fixed-form constructs the instrumenter must rewrite without
C     changing results: shared DO terminators that are not CONTINUE, a
C     GOTO to a labelled DO, logical IFs around CALL and MPI calls, an MPI
C     call whose rewritten line passes column 72, RETURN and GOTO out of
C     a loop, DO WHILE, ELSE IF chains, a function called in expressions.
      PROGRAM EDGE
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, IERR, I, J, K, N, PASS
      INTEGER STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION A(10), S, T
      INTEGER FIND, TWICE
      EXTERNAL FIND, TWICE
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      N = 10
      S = 0.0D0
      PASS = 0
C     a labelled DO reached again by GOTO
   5  DO 10 I = 1, N
         A(I) = DBLE(I + PASS)
   10 CONTINUE
      PASS = PASS + 1
      IF (PASS .LT. 2) GOTO 5
C     shared terminator that is an assignment
      DO 20 J = 1, 3
         DO 20 I = 1, N
   20 S = S + A(I) * J
C     shared CONTINUE terminator, three deep
      DO 30 K = 1, 2
         DO 30 J = 1, 2
            DO 30 I = 1, 2
               S = S + I + J + K
   30 CONTINUE
      IF (RANK .EQ. 0) CALL ADD(S, 1.0D0)
      IF (NPROCS .GT. 1 .AND. RANK .EQ. 0 .AND. N .GT. 0) CALL MPI_SEND(
     &   A, 4, MPI_DOUBLE_PRECISION, 1, 9, MPI_COMM_WORLD, IERR)
      IF (NPROCS .GT. 1 .AND. RANK .EQ. 1)
     &   CALL MPI_RECV(A, 4, MPI_DOUBLE_PRECISION, 0, 9, MPI_COMM_WORLD,
     &                 STATUS, IERR)
C     GOTO to the terminator (stays) and GOTO past the loop (leaves)
      K = 0
      DO 70 I = 1, N
         IF (I .EQ. 2) GOTO 70
         K = K + I
         IF (K .GT. 20) GOTO 80
   70 CONTINUE
   80 CONTINUE
      S = S + K
      K = 0
      DO WHILE (K .LT. 7)
         K = K + 2
      END DO
      IF (K .EQ. 1) THEN
         S = S + 1
      ELSE IF (K .EQ. 8) THEN
         DO 40 I = 1, 2
            S = S + TWICE(I)
   40    CONTINUE
      ELSE
         S = S - 1
      END IF
      S = S + FIND(N, 23) + FIND(N, 999) + A(4)
      CALL MPI_ALLREDUCE(S, T, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) WRITE (*, '(A,F14.2)') 'edge checksum=', T
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE ADD(S, V)
      DOUBLE PRECISION S, V
      S = S + V
      END

      INTEGER FUNCTION TWICE(I)
      INTEGER I
      TWICE = 2 * I
      END

C     returns from inside a loop nest
      INTEGER FUNCTION FIND(N, T)
      INTEGER N, T, I, J
      FIND = -1
      DO 60 I = 1, N
         DO 50 J = 1, N
            IF (I * N + J .EQ. T) THEN
               FIND = I * 100 + J
               RETURN
            END IF
   50    CONTINUE
   60 CONTINUE
      END
