      PROGRAM ARIF
      INCLUDE 'mpif.h'
      INTEGER N, I, K, IERR
      DOUBLE PRECISION S
      CALL MPI_INIT(IERR)
      N = 7
      K = 0
      S = 0.0D0
   10 CONTINUE
      K = K + 1
      DO 20 I = 1, N
         S = S + DBLE(I*K)
   20 CONTINUE
      IF (K - N) 10, 30, 30
   30 CONTINUE
      K = 0
   40 K = K + 1
      S = S * 0.5D0
      IF (N - K) 50, 50, 40
   50 CONTINUE
      PRINT *, S
      CALL MPI_FINALIZE(IERR)
      END
