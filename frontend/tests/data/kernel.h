/* kernel.h: project header with macros, for the front end's tests */
#ifndef KERNEL_H
#define KERNEL_H
#define NB 64
#define TAG_HALO 11
#define INLINE static inline
#define IDX(i, j, n) ((i) * (n) + (j))
#endif
