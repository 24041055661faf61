C     sweep: 2-D wavefront sweep on a Px x Py process grid, Sweep3D-
C     like. The N x N x N grid is split in x over Px and in y over Py
C     ranks (Px = largest divisor of P not above sqrt(P), kept in
C     DIMS); z is cut into blocks of K planes. For each block a rank
C     receives a K-plane face from the west and from the north, sweeps
C     its (N/Px) x (N/Py) x K cells, and sends faces east and south: a
C     pipeline from rank (0,0) to (Px-1,Py-1). NITER source iterations,
C     each ended by an MPI_ALLREDUCE of the scalar flux. Array limits,
C     NITER and tags live in the include file sweep.h. Mirrors sweep.c.
C     args: N K   (N divisible by Px, Py and K, N/Px <= NXMAX,
C                  N/Py <= NYMAX, K <= KMAX; small: 64 4)
C     expect: loop trip NITER
C     expect: loop trip N/K
C     expect: loop trip K
C     expect: loop trip N/Px (unresolved: bound held in array dims)
C     expect: loop trip N/Py (unresolved: bound held in array dims)
C     expect: message bytes 8*K*N/Py
C     expect: message bytes 8*K*N/Px
C     expect: pipeline depth Px+Py-2
C     expect: checksum independent of P and K
C     Two loop nests share terminator labels (DO 10 J / DO 10 I), an
C     F77 idiom gfortran warns about; kept on purpose.
      PROGRAM SWEEP
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INCLUDE 'sweep.h'
C     row 0 / column 0 of PHI hold the inflow faces
      DOUBLE PRECISION PHI(0:NXMAX, 0:NYMAX), FLUX(NXMAX, NYMAX)
      DOUBLE PRECISION WRECV(NYMAX * KMAX), NRECV(NXMAX * KMAX)
      DOUBLE PRECISION ESEND(NYMAX * KMAX), SSEND(NXMAX * KMAX)
      INTEGER NPROCS, RANK, N, KB, D, CX, CY, NXL, NYL, NBLK
      INTEGER IT, BLK, K, J, I, GI, GJ, GK, IERR
      INTEGER DIMS(2)
      INTEGER STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION SCALE, SRC, LOCAL, TOTAL
      CHARACTER*32 ARG
      CHARACTER*16 CS
      SAVE PHI, FLUX, WRECV, NRECV, ESEND, SSEND
C
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (COMMAND_ARGUMENT_COUNT() .LT. 2) THEN
         IF (RANK .EQ. 0) PRINT *, 'usage: sweep N K'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) N
      CALL GET_COMMAND_ARGUMENT(2, ARG)
      READ (ARG, *) KB
C
C     Px = largest divisor of P with Px*Px <= P
      DIMS(1) = 1
      D = 1
      DO WHILE (D * D .LE. NPROCS)
         IF (MOD(NPROCS, D) .EQ. 0) DIMS(1) = D
         D = D + 1
      END DO
      DIMS(2) = NPROCS / DIMS(1)
      CX = MOD(RANK, DIMS(1))
      CY = RANK / DIMS(1)
      NXL = N / DIMS(1)
      NYL = N / DIMS(2)
      IF (KB .LT. 1 .OR. KB .GT. KMAX .OR. NXL .LT. 1 .OR. NYL .LT. 1
     &    .OR. NXL .GT. NXMAX .OR. NYL .GT. NYMAX
     &    .OR. NXL * DIMS(1) .NE. N .OR. NYL * DIMS(2) .NE. N
     &    .OR. MOD(N, KB) .NE. 0) THEN
         IF (RANK .EQ. 0) PRINT *, 'sweep: N must divide by Px, Py, K'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      NBLK = N / KB
C
      SCALE = 1.0D0
      TOTAL = 0.0D0
      DO 100 IT = 1, NITER
         DO 10 J = 1, NYL
            DO 10 I = 1, NXL
               FLUX(I, J) = 0.0D0
   10    CONTINUE
         DO 80 BLK = 1, NBLK
C           ranks on the west/north boundary keep zero inflow
            IF (CX .GT. 0)
     &         CALL MPI_RECV(WRECV, NYL * KB, MPI_DOUBLE_PRECISION,
     &              RANK - 1, TAGEW, MPI_COMM_WORLD, STATUS, IERR)
            IF (CY .GT. 0)
     &         CALL MPI_RECV(NRECV, NXL * KB, MPI_DOUBLE_PRECISION,
     &              RANK - DIMS(1), TAGNS, MPI_COMM_WORLD, STATUS, IERR)
            DO 70 K = 1, KB
               GK = (BLK - 1) * KB + K - 1
               DO 20 J = 1, NYL
                  PHI(0, J) = WRECV((K - 1) * NYL + J)
   20          CONTINUE
               DO 30 I = 1, NXL
                  PHI(I, 0) = NRECV((K - 1) * NXL + I)
   30          CONTINUE
               DO 50 J = 1, NYL
                  DO 40 I = 1, NXL
                     GI = CX * NXL + I
                     GJ = CY * NYL + J
                     SRC = SCALE * (1.0D0 + 0.1D0 *
     &                     DBLE(MOD(GI + 2 * GJ + 3 * GK, 5)))
                     PHI(I, J) = (SRC + 0.4D0 * PHI(I - 1, J)
     &                           + 0.3D0 * PHI(I, J - 1)) / 1.7D0
                     FLUX(I, J) = FLUX(I, J) + PHI(I, J)
   40             CONTINUE
   50          CONTINUE
               DO 55 J = 1, NYL
                  ESEND((K - 1) * NYL + J) = PHI(NXL, J)
   55          CONTINUE
               DO 60 I = 1, NXL
                  SSEND((K - 1) * NXL + I) = PHI(I, NYL)
   60          CONTINUE
   70       CONTINUE
            IF (CX .LT. DIMS(1) - 1)
     &         CALL MPI_SEND(ESEND, NYL * KB, MPI_DOUBLE_PRECISION,
     &              RANK + 1, TAGEW, MPI_COMM_WORLD, IERR)
            IF (CY .LT. DIMS(2) - 1)
     &         CALL MPI_SEND(SSEND, NXL * KB, MPI_DOUBLE_PRECISION,
     &              RANK + DIMS(1), TAGNS, MPI_COMM_WORLD, IERR)
   80    CONTINUE
         LOCAL = 0.0D0
         DO 90 J = 1, NYL
            DO 90 I = 1, NXL
               LOCAL = LOCAL + FLUX(I, J)
   90    CONTINUE
         CALL MPI_ALLREDUCE(LOCAL, TOTAL, 1, MPI_DOUBLE_PRECISION,
     &        MPI_SUM, MPI_COMM_WORLD, IERR)
         SCALE = 1.0D0 / (1.0D0 + TOTAL / (DBLE(N) * DBLE(N)
     &           * DBLE(N)))
  100 CONTINUE
C
      IF (RANK .EQ. 0) THEN
         WRITE (CS, '(ES14.6)') TOTAL
         WRITE (*, '(A,I0,A,I0,A,I0,A,I0,A,I0,A,A)') 'sweep P=', NPROCS,
     &      ' N=', N, ' K=', KB, ' Px=', DIMS(1), ' Py=', DIMS(2),
     &      ' checksum=', TRIM(ADJUSTL(CS))
      END IF
      CALL MPI_FINALIZE(IERR)
      END
