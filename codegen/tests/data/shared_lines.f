C     Several statements on one line, each with markers of its own: two
C     whole-array assignments (implicit loops, each a computation phase),
C     two calls, a loop ending before another statement, a logical IF
C     whose body needs a block, a string with a semicolon.
      SUBROUTINE BUMP(K)
      INTEGER K
      K = K + 1
      END

      PROGRAM SHARED
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N, IERR, I, K, RANK
      DOUBLE PRECISION U(0:9, 0:9), V(0:9, 0:9)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      N = 8; K = 0
      U = 0D0; V = 0D0
      CALL BUMP(K); CALL BUMP(K)
      DO I = 1, N
         U(I, I) = I
      END DO; V = 1D0
      IF (N .GT. 4) U = U + 1D0; K = K + 1
      IF (RANK .EQ. 0) PRINT '(A, I0)', 'K;', K; V = V * 2D0
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, K, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT '(A, I0, 2F12.6)', 'K=', K, SUM(U), SUM(V)
      CALL MPI_FINALIZE(IERR)
      END
