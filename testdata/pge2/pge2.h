C     pge2.h: problem constants of pge2.f, included by it; the same
C     values as pge2c.h, the C header of pge2.c.
      INTEGER NSMAX, NLMAX
      PARAMETER (NSMAX = 512, NLMAX = 512)
      INTEGER TAGTF, TAGBF, TAGXC, TAGXD, TAGTB, TAGBB
      PARAMETER (TAGTF = 21, TAGBF = 22, TAGXC = 23, TAGXD = 24,
     &           TAGTB = 25, TAGBB = 26)
