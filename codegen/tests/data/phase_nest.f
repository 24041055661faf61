C     Loops and branches nested in computation phases, left by GOTO and
C     RETURN, with a shared DO terminator: their exits and arms accumulate
C     in the phase and are flushed at each exit of the phase. Rank 0's
C     records are checked by hand in tests/phase_exits.rs.
      INTEGER FUNCTION FIND(T)
      INTEGER T, I, J
      DOUBLE PRECISION A(0:7, 0:15)
      COMMON /GRID/ A
      FIND = -1
      DO 20 I = 0, 7
         DO 10 J = 0, 3 + I
            IF (I .EQ. T .AND. J .EQ. 3) THEN
               FIND = I * 10 + J
               RETURN
            END IF
            A(I, J) = A(I, J) + 1D0
   10    CONTINUE
   20 CONTINUE
      END

      PROGRAM NEST
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, I, J, K, R, HIT, IERR, FIND
      EXTERNAL FIND
      DOUBLE PRECISION S, SQ
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      S = 0D0
      HIT = 0
      DO 30 I = 0, 4
         DO 30 J = 0, I
            S = S + I * J
   30 CONTINUE
      DO 60 K = 0, 2
         DO 50 I = 0, 3
            IF (I .EQ. K + 1) GOTO 60
            DO 40 J = 0, 2 * I
               S = S + K + J
   40       CONTINUE
   50    CONTINUE
   60 CONTINUE
      DO 80 I = 0, 3
         DO 70 J = 0, 5
            IF (I .EQ. 2 .AND. J .EQ. 4) GOTO 90
            S = S + J
   70    CONTINUE
   80 CONTINUE
   90 CONTINUE
      DO 95 R = 0, 1
         HIT = HIT + FIND(2 - R)
   95 CONTINUE
C     BRANCHES IN THE NEST (MARKED: A LOOP IN AN ARM OR AFTER IT): A SKIP
C     BY GOTO, A SELECT CASE, ELSE IF / ELSE, AN ARM NEVER TAKEN (NO RECORD)
      DO 99 I = 0, 3
         DO 98 J = 0, 4
            IF (J .EQ. 0) GOTO 98
            SELECT CASE (MOD(J, 3))
            CASE (0)
               DO 91 K = 0, 1
                  S = S + K
   91          CONTINUE
            CASE (1)
               DO 92 K = 0, 0
                  S = S + 2
   92          CONTINUE
            END SELECT
            IF (J .LT. I) THEN
               DO 93 K = 0, J - 1
                  S = S + K
   93          CONTINUE
            ELSE IF (J .EQ. I) THEN
               S = S - 1
            ELSE
               DO 94 K = 0, 0
                  S = S + 0.5D0
   94          CONTINUE
            END IF
            IF (J .GT. 100) THEN
               DO 97 K = 0, 0
                  S = -1
   97          CONTINUE
            END IF
   98    CONTINUE
   99 CONTINUE
C     Leaf calls in a nest: a CALL, two references in an expression, one
C     in a condition, one in an arm taken 3 times; a single loop of one
      DO 110 I = 0, 2
         DO 105 J = 0, 3
            CALL BUMP(S, J)
            S = S + SQ(J) + SQ(I)
            IF (SQ(J) .GT. 4D0) S = S + 1
            IF (J .EQ. I) CALL BUMP(S, 1)
  105    CONTINUE
  110 CONTINUE
      DO 120 R = 0, 4
         S = S + SQ(R)
  120 CONTINUE
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, S, 1, MPI_DOUBLE_PRECISION,
     &     MPI_SUM, MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT '(A, F0.1, A, I0)', 's=', S, ' hit=', HIT
      CALL MPI_FINALIZE(IERR)
      END

      DOUBLE PRECISION FUNCTION SQ(N)
      INTEGER N
      SQ = N * N
      END

      SUBROUTINE BUMP(S, K)
      DOUBLE PRECISION S
      INTEGER K
      S = S + K
      END
