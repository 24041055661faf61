/* overhead.c: cost of each tracer entry point, in ns per call, measured against the same loop
 * without it. Run by `cargo run --release -p trace --example runtime_overhead`. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "augur.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  augur_MPI_Init(1, &argc, &argv);
  double t, base, x = 0;
  int one = 1, out = 0;

  t = now();
  for (long i = 0; i < n; i++) x += i;
  base = now() - t;
  sink = x;

#define MEASURE(label, body)                                                         \
  do {                                                                               \
    double t0 = now();                                                               \
    for (long i = 0; i < n; i++) { x += i; body; }                                   \
    double d = now() - t0 - base;                                                    \
    sink = x;                                                                        \
    printf("%-28s %10.1f ns/call\n", label, d / n * 1e9);                           \
  } while (0)

  MEASURE("augur_loop_exit", augur_loop_exit(10 + (int)(i & 63), i));
  MEASURE("augur_branch", augur_branch(20, (int)(i & 1)));
  MEASURE("augur_call_enter+exit", (augur_call_enter(30), augur_call_exit(30)));
  MEASURE("augur_phase_begin+end", (augur_phase_begin(40), augur_phase_end(40)));
  long m = n / 10;
  double t0 = now();
  for (long i = 0; i < m; i++) MPI_Allreduce(&one, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  double plain = now() - t0;
  t0 = now();
  for (long i = 0; i < m; i++) augur_MPI_Allreduce(50, &one, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  double traced = now() - t0;
  printf("%-28s %10.1f ns/call (MPI_Allreduce alone %.1f ns)\n", "augur_MPI_Allreduce extra", (traced - plain) / m * 1e9,
         plain / m * 1e9);
  augur_MPI_Finalize(99);
  return 0;
}
