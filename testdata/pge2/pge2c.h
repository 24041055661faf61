// pge2c.h: problem constants of pge2.c; the same values as the Fortran include pge2.h.
// (One file cannot be both a C header and a fixed-form Fortran include, so the C
// side carries its own copy under a different name in the same directory.)
#ifndef PGE2C_H
#define PGE2C_H

#define NSMAX 512   // most systems (N)
#define NLMAX 512   // most rows per rank (N/P)
#define TAG_TOP_FWD 21
#define TAG_BOT_FWD 22
#define TAG_EXCH_C 23
#define TAG_EXCH_D 24
#define TAG_TOP_BWD 25
#define TAG_BOT_BWD 26

#endif
