C     ugly.f: fixed-form F77 written the old way, for the front end's tests.
*     Star comments, labelled DO nests sharing one CONTINUE, continuation
c     lines, COMMON, DATA, IMPLICIT, GOTO and sequence numbers past col 72.
      PROGRAM UGLY
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      INCLUDE 'mpif.h'
      PARAMETER (NX=64, NY=NX/2)
      COMMON /FIELD/ U(NX,NY), V(NX,NY)
      COMMON /CTL/ NITER, IRANK, NPROC
      DIMENSION W(0:NX+1)
      INTEGER ISTAT(MPI_STATUS_SIZE)
      DATA ALPHA /0.25D0/, BETA /2.0D0/
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, IRANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      READ (5, *) NITER
      DO 20 J = 1, NY
      DO 20 I = 1, NX
         U(I,J) = ALPHA * DBLE(I + J)
     1          + BETA
   20 CONTINUE
      IT = 0
   30 IT = IT + 1
      DO 50 J = 2, NY - 1, 2
         DO 40 I = NX - 1, 2, -1
            V(I,J) = (U(I-1,J) + U(I+1,J) + U(I,J-1) + U(I,J+1))*ALPHA   00010
   40    CONTINUE
   50 CONTINUE
      IF (IRANK .GT. 0) CALL MPI_SEND(V(1,2), NX, MPI_DOUBLE_PRECISION,
     &     IRANK - 1, IT, MPI_COMM_WORLD, IERR)
      IF (IRANK .LT. NPROC - 1) THEN
         CALL MPI_RECV(W(1), NX, MPI_DOUBLE_PRECISION, IRANK + 1, IT,
     $        MPI_COMM_WORLD, ISTAT, IERR)
      ELSE
         W(1) = 0.0D0
      ENDIF
D     PRINT *, 'debug', IT
      IF (IT .LT. NITER) GOTO 30
      GO TO (60, 70) MOD(IT, 2) + 1
   60 CONTINUE
   70 CALL MPI_FINALIZE(IERR)
      END
