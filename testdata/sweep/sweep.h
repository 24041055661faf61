C     sweep.h: array limits, iteration count and tags of sweep.f (the
C     C twin sweep.c defines the same values itself).
      INTEGER NXMAX, NYMAX, KMAX, NITER
      PARAMETER (NXMAX = 256, NYMAX = 256, KMAX = 64, NITER = 2)
      INTEGER TAGEW, TAGNS
      PARAMETER (TAGEW = 41, TAGNS = 42)
