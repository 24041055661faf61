C     pge2: two-way pipelined Gaussian elimination (seed 004 sec. 4.2
C     and 5.1.2). The N tridiagonal systems of pge1 (N unknowns each,
C     rows split in blocks of N/P over the ranks), eliminated from both
C     ends at once: the top half of the ranks (rank < P/2) eliminates
C     downward 0 -> P/2-1, the bottom half upward P-1 -> P/2, each a
C     pipeline over blocks of K systems with 2K-value messages. Ranks
C     P/2-1 and P/2 then make two synchronous exchanges (pivot
C     coefficients, then right-hand sides; N values each) and both
C     solve the 2x2 interface system. Back substitution runs outward as
C     two more pipelines with K-value messages. Constants (array
C     limits, tags) live in the include file pge2.h. Mirrors pge2.c.
C     The checksum loop nest shares one terminator label (DO 110 ...
C     DO 110), an F77 idiom gfortran warns about; kept on purpose.
C     args: N K   (N divisible by P and K, N <= NSMAX, N/P <= NLMAX;
C                  small: 256 8)
C     expect: loop trip N/K
C     expect: loop trip K
C     expect: loop trip N/P
C     expect: message bytes 16*K
C     expect: message bytes 8*N
C     expect: message bytes 8*K
C     expect: pipeline depth P/2-1
C     expect: phase synchronous (the two interface exchanges)
      PROGRAM PGE2
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INCLUDE 'pge2.h'
C     EP holds c' (top rows) or a'' (bottom rows); DP holds d' or d'',
C     then x
      DOUBLE PRECISION EP(NLMAX, NSMAX), DP(NLMAX, NSMAX)
      DOUBLE PRECISION RBUF(2 * NSMAX), SBUF(2 * NSMAX)
      DOUBLE PRECISION CVEC(NSMAX), DVEC(NSMAX), OCVEC(NSMAX)
      DOUBLE PRECISION ODVEC(NSMAX), XEDGE(NSMAX)
      INTEGER NPROCS, RANK, N, KB, NLOCAL, NBLK, HALF, PARTNR, ROW
      INTEGER BLK, J, S, I, G, IERR
      INTEGER STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION EPREV, DPREV, BV, DENOM, CT, DT, AB, DB
      DOUBLE PRECISION XM1, XM, LOCAL, TOTAL
      CHARACTER*32 ARG
      CHARACTER*16 CS
      SAVE EP, DP
C
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (COMMAND_ARGUMENT_COUNT() .LT. 2) THEN
         IF (RANK .EQ. 0) PRINT *, 'usage: pge2 N K'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) N
      CALL GET_COMMAND_ARGUMENT(2, ARG)
      READ (ARG, *) KB
      NLOCAL = N / NPROCS
      IF (KB .LT. 1 .OR. NLOCAL .LT. 1 .OR. NLOCAL * NPROCS .NE. N
     &    .OR. MOD(N, KB) .NE. 0 .OR. N .GT. NSMAX
     &    .OR. NLOCAL .GT. NLMAX) THEN
         IF (RANK .EQ. 0) PRINT *, 'pge2: N must be a multiple of P, K'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      NBLK = N / KB
      HALF = NPROCS / 2
C
      DO 10 S = 1, N
         DO 5 I = 1, NLOCAL
            G = RANK * NLOCAL + I - 1
            DP(I, S) = 1.0D0 + 0.001D0 * DBLE(MOD(7 * G + 3 * (S - 1),
     &                 11))
    5    CONTINUE
         XEDGE(S) = 0.0D0
   10 CONTINUE
      DO 15 J = 1, 2 * KB
         RBUF(J) = 0.0D0
   15 CONTINUE
C
C     forward elimination: two pipelines toward the middle
      DO 50 BLK = 1, NBLK
         IF (RANK .LT. HALF) THEN
            IF (RANK .GT. 0)
     &         CALL MPI_RECV(RBUF, 2 * KB, MPI_DOUBLE_PRECISION,
     &              RANK - 1, TAGTF, MPI_COMM_WORLD, STATUS, IERR)
            DO 25 J = 1, KB
               S = (BLK - 1) * KB + J
               BV = 4.0D0 + 0.01D0 * DBLE(MOD(S - 1, 7))
               EPREV = RBUF(2 * J - 1)
               DPREV = RBUF(2 * J)
               DO 20 I = 1, NLOCAL
                  DENOM = BV + EPREV
                  EP(I, S) = -1.0D0 / DENOM
                  DP(I, S) = (DP(I, S) + DPREV) / DENOM
                  EPREV = EP(I, S)
                  DPREV = DP(I, S)
   20          CONTINUE
               SBUF(2 * J - 1) = EPREV
               SBUF(2 * J) = DPREV
   25       CONTINUE
            IF (RANK .LT. HALF - 1)
     &         CALL MPI_SEND(SBUF, 2 * KB, MPI_DOUBLE_PRECISION,
     &              RANK + 1, TAGTF, MPI_COMM_WORLD, IERR)
         ELSE
            IF (RANK .LT. NPROCS - 1)
     &         CALL MPI_RECV(RBUF, 2 * KB, MPI_DOUBLE_PRECISION,
     &              RANK + 1, TAGBF, MPI_COMM_WORLD, STATUS, IERR)
            DO 35 J = 1, KB
               S = (BLK - 1) * KB + J
               BV = 4.0D0 + 0.01D0 * DBLE(MOD(S - 1, 7))
               EPREV = RBUF(2 * J - 1)
               DPREV = RBUF(2 * J)
               DO 30 I = NLOCAL, 1, -1
                  DENOM = BV + EPREV
                  EP(I, S) = -1.0D0 / DENOM
                  DP(I, S) = (DP(I, S) + DPREV) / DENOM
                  EPREV = EP(I, S)
                  DPREV = DP(I, S)
   30          CONTINUE
               SBUF(2 * J - 1) = EPREV
               SBUF(2 * J) = DPREV
   35       CONTINUE
            IF (RANK .GT. HALF)
     &         CALL MPI_SEND(SBUF, 2 * KB, MPI_DOUBLE_PRECISION,
     &              RANK - 1, TAGBF, MPI_COMM_WORLD, IERR)
         END IF
   50 CONTINUE
C
C     interface: x(m-1) + c' x(m) = d' and a'' x(m-1) + x(m) = d''
C     across ranks P/2-1 and P/2
      IF (HALF .GT. 0 .AND. (RANK .EQ. HALF - 1 .OR. RANK .EQ. HALF))
     &   THEN
         IF (RANK .EQ. HALF - 1) THEN
            PARTNR = HALF
            ROW = NLOCAL
         ELSE
            PARTNR = HALF - 1
            ROW = 1
         END IF
         DO 60 S = 1, N
            CVEC(S) = EP(ROW, S)
            DVEC(S) = DP(ROW, S)
   60    CONTINUE
         CALL MPI_SENDRECV(CVEC, N, MPI_DOUBLE_PRECISION, PARTNR,
     &        TAGXC, OCVEC, N, MPI_DOUBLE_PRECISION, PARTNR, TAGXC,
     &        MPI_COMM_WORLD, STATUS, IERR)
         CALL MPI_SENDRECV(DVEC, N, MPI_DOUBLE_PRECISION, PARTNR,
     &        TAGXD, ODVEC, N, MPI_DOUBLE_PRECISION, PARTNR, TAGXD,
     &        MPI_COMM_WORLD, STATUS, IERR)
         DO 70 S = 1, N
            IF (RANK .EQ. HALF - 1) THEN
               CT = CVEC(S)
               DT = DVEC(S)
               AB = OCVEC(S)
               DB = ODVEC(S)
            ELSE
               CT = OCVEC(S)
               DT = ODVEC(S)
               AB = CVEC(S)
               DB = DVEC(S)
            END IF
            XM1 = (DT - CT * DB) / (1.0D0 - CT * AB)
            XM = DB - AB * XM1
            IF (RANK .EQ. HALF - 1) THEN
               XEDGE(S) = XM
            ELSE
               XEDGE(S) = XM1
            END IF
   70    CONTINUE
      END IF
C
C     back substitution: two pipelines outward from the middle
      DO 100 BLK = 1, NBLK
         IF (RANK .LT. HALF) THEN
            IF (RANK .LT. HALF - 1) THEN
               CALL MPI_RECV(RBUF, KB, MPI_DOUBLE_PRECISION, RANK + 1,
     &              TAGTB, MPI_COMM_WORLD, STATUS, IERR)
            ELSE
               DO 72 J = 1, KB
                  RBUF(J) = XEDGE((BLK - 1) * KB + J)
   72          CONTINUE
            END IF
            DO 76 J = 1, KB
               S = (BLK - 1) * KB + J
               DPREV = RBUF(J)
               DO 74 I = NLOCAL, 1, -1
                  DP(I, S) = DP(I, S) - EP(I, S) * DPREV
                  DPREV = DP(I, S)
   74          CONTINUE
               SBUF(J) = DPREV
   76       CONTINUE
            IF (RANK .GT. 0)
     &         CALL MPI_SEND(SBUF, KB, MPI_DOUBLE_PRECISION, RANK - 1,
     &              TAGTB, MPI_COMM_WORLD, IERR)
         ELSE
            IF (RANK .GT. HALF) THEN
               CALL MPI_RECV(RBUF, KB, MPI_DOUBLE_PRECISION, RANK - 1,
     &              TAGBB, MPI_COMM_WORLD, STATUS, IERR)
            ELSE
               DO 82 J = 1, KB
                  RBUF(J) = XEDGE((BLK - 1) * KB + J)
   82          CONTINUE
            END IF
            DO 86 J = 1, KB
               S = (BLK - 1) * KB + J
               DPREV = RBUF(J)
               DO 84 I = 1, NLOCAL
                  DP(I, S) = DP(I, S) - EP(I, S) * DPREV
                  DPREV = DP(I, S)
   84          CONTINUE
               SBUF(J) = DPREV
   86       CONTINUE
            IF (RANK .LT. NPROCS - 1)
     &         CALL MPI_SEND(SBUF, KB, MPI_DOUBLE_PRECISION, RANK + 1,
     &              TAGBB, MPI_COMM_WORLD, IERR)
         END IF
  100 CONTINUE
C
      LOCAL = 0.0D0
      DO 110 S = 1, N
         DO 110 I = 1, NLOCAL
            G = RANK * NLOCAL + I - 1
            LOCAL = LOCAL + DP(I, S) * DBLE(G + 1)
  110 CONTINUE
      CALL MPI_REDUCE(LOCAL, TOTAL, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                0, MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         WRITE (CS, '(ES14.6)') TOTAL
         WRITE (*, '(A,I0,A,I0,A,I0,A,A)') 'pge2 P=', NPROCS,
     &      ' N=', N, ' K=', KB, ' checksum=', TRIM(ADJUSTL(CS))
      END IF
      CALL MPI_FINALIZE(IERR)
      END
