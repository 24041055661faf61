C     GOTO loops (fixed form): post-test with an exchange, pre-test left
C     early by a jump to the statement after it, one inside a labelled
C     DO; and a DO left by a jump to the statement after it (a break).
      PROGRAM GOTOS
      INCLUDE 'mpif.h'
      INTEGER IT, NITER, K, J, M, IERR, RANK, NP, LEFT, RIGHT
      INTEGER STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION A, B
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      RIGHT = MOD(RANK + 1, NP)
      LEFT = MOD(RANK + NP - 1, NP)
      NITER = 6
      A = RANK
      IT = 0
   10 CONTINUE
      IT = IT + 1
      CALL MPI_SENDRECV(A, 1, MPI_DOUBLE_PRECISION, RIGHT, IT,
     &     B, 1, MPI_DOUBLE_PRECISION, LEFT, IT, MPI_COMM_WORLD,
     &     STATUS, IERR)
      A = 0.5D0 * (A + B)
      IF (IT .LT. NITER) GOTO 10
      K = 0
   20 IF (K .GE. NITER) GO TO 30
      K = K + 1
      IF (K .EQ. 4) THEN
         GOTO 30
      END IF
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      GOTO 20
   30 CONTINUE
      M = 0
      DO 50 J = 1, 3
         K = 0
   40    K = K + 1
         M = M + 1
         CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
         IF (K .LT. J) GOTO 40
   50 CONTINUE
      DO 60 J = 1, NITER
         CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
         IF (J .EQ. 3) GOTO 70
         M = M + J
   60 CONTINUE
   70 CONTINUE
      IF (RANK .EQ. 0) PRINT *, IT, K, M, A
      CALL MPI_FINALIZE(IERR)
      END
