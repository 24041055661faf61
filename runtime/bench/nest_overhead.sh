#!/bin/bash
# nest_overhead.sh: how much CPU time the instrumentation adds to a computation phase with
# nested loops (a hand-written DGEMM: DO J / DO L / DO I=1,NL), natively under Open MPI.
#
# For each language (free-form Fortran, C) and inner trip NL, builds the program plain
# (mpif90/mpicc -O2) and instrumented (`augur profile`, the real build), runs both REPS times
# alternately on one rank and prints the least CPU time each reports for its multiply loop
# (the program times itself with cpu_time/clock) and the ratio instrumented / plain. The work is
# the same at every NL (NL^3 * reps constant); the check column says both computed the same
# checksum. One run's numbers: these machines are noisy, compare ratios, not seconds.
#
# Both builds get the same extra flags, NEST_CFLAGS (default `-falign-loops=64`): the inner
# loops compile to the same instructions in both, but where they fall relative to fetch
# boundaries alone moved the C times by up to 1.7x either way (a code-layout effect, not the
# markers' cost).
#
# Usage: runtime/bench/nest_overhead.sh [AUGUR_BINARY] [REPS] [NL ...]   (from the repository root)
set -euo pipefail
augur=${1:-target/release/augur}
reps=${2:-5}
shift $(($# < 2 ? $# : 2))
trips=("$@")
[ ${#trips[@]} -gt 0 ] || trips=(16 48 144)
augur=$(realpath "$augur")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=${NEST_CFLAGS--falign-loops=64}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The matrices share one allocation at fixed offsets (not 4 KiB apart), so that both builds see
# the same data layout: separate allocations land elsewhere once the runtime has allocated, and
# 4K aliasing between them alone changed the time by up to 2x.
cat >"$work/dgemm.f90" <<'EOF'
subroutine mm(nl, nrep, a, b, c)
  integer :: nl, nrep, i, j, l, rep
  double precision :: a(nl, nl), b(nl, nl), c(nl, nl)
  do rep = 1, nrep
    do j = 1, nl
      do l = 1, nl
        do i = 1, nl
          c(i, j) = c(i, j) + a(i, l) * b(l, j)
        end do
      end do
    end do
  end do
end subroutine mm

program dgemm
  use mpi
  implicit none
  integer :: nl, nrep, i, j, m, ierr
  character(len=32) :: arg
  double precision, allocatable :: w(:)
  real :: t0, t1
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) nl
  call get_command_argument(2, arg)
  read (arg, *) nrep
  m = nl * nl
  allocate(w(3 * m + 16))
  do j = 1, nl
    do i = 1, nl
      w((j - 1) * nl + i) = 1d0 / (i + j)
      w(m + 8 + (j - 1) * nl + i) = 1d0 / (i + 2 * j)
      w(2 * m + 16 + (j - 1) * nl + i) = 0d0
    end do
  end do
  call cpu_time(t0)
  call mm(nl, nrep, w(1), w(m + 9), w(2 * m + 17))
  call cpu_time(t1)
  print '(a, f10.6, a, es14.7)', 'cpu ', t1 - t0, ' check ', sum(w(2 * m + 17:3 * m + 16))
  call MPI_Finalize(ierr)
end program dgemm
EOF

cat >"$work/dgemm.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void mm(int nl, int nrep, const double *a, const double *b, double *c)
{
    int i, j, l, rep;
    for (rep = 0; rep < nrep; rep++)
        for (j = 0; j < nl; j++)
            for (l = 0; l < nl; l++)
                for (i = 0; i < nl; i++)
                    c[j * nl + i] += a[l * nl + i] * b[j * nl + l];
}

int main(int argc, char **argv)
{
    int nl, nrep, i, j, m;
    double *w, *a, *b, *c, sum = 0.0;
    clock_t t0, t1;
    MPI_Init(&argc, &argv);
    nl = atoi(argv[1]);
    nrep = atoi(argv[2]);
    m = nl * nl;
    w = malloc(sizeof(double) * (3 * m + 16));
    a = w;
    b = w + m + 8;
    c = w + 2 * m + 16;
    for (j = 0; j < nl; j++)
        for (i = 0; i < nl; i++) {
            a[j * nl + i] = 1.0 / (i + j + 2);
            b[j * nl + i] = 1.0 / (i + 2 * j + 3);
            c[j * nl + i] = 0.0;
        }
    t0 = clock();
    mm(nl, nrep, a, b, c);
    t1 = clock();
    for (i = 0; i < m; i++)
        sum += c[i];
    printf("cpu %10.6f check %14.7e\n", (double)(t1 - t0) / CLOCKS_PER_SEC, sum);
    free(w);
    MPI_Finalize();
    return 0;
}
EOF

# least CPU seconds over the runs of one executable, given one line per run on stdin
least() { sort -g | head -1; }

printf '%-8s %5s %10s %12s %12s %7s %s\n' case NL exits/run plain instrumented ratio check
for lang in f90 c; do
  src=$work/dgemm.$lang
  case $lang in
  # shellcheck disable=SC2086
  f90) mpif90 -O2 $flags -o "$work/plain-$lang" "$src" ;;
  # shellcheck disable=SC2086
  c) mpicc -O2 $flags -o "$work/plain-$lang" "$src" ;;
  esac
  "$augur" profile "$src" --np 1 --param NL=1 --cflags "$flags" --out "$work/$lang.augur" -- '{NL}' 1 >/dev/null 2>&1
  inst=$work/$lang.augur/build/dgemm
  for nl in "${trips[@]}"; do
    # about 0.4 G multiply-adds whatever NL
    nrep=$(((400000000 + nl * nl * nl - 1) / (nl * nl * nl)))
    : >"$work/plain.txt"
    : >"$work/inst.txt"
    for _ in $(seq "$reps"); do
      mpirun --oversubscribe -np 1 "$work/plain-$lang" "$nl" "$nrep" >>"$work/plain.txt"
      (cd "$work" && AUGUR_TRACE_DIR=$work/traces mpirun --oversubscribe -np 1 "$inst" "$nl" "$nrep") >>"$work/inst.txt"
    done
    a=$(awk '{print $2}' "$work/plain.txt" | least)
    b=$(awk '{print $2}' "$work/inst.txt" | least)
    same=$([ "$(awk '{print $4}' "$work/plain.txt" | sort -u)" = "$(awk '{print $4}' "$work/inst.txt" | sort -u)" ] && echo ok || echo DIFFERS)
    printf '%-8s %5s %10s %12s %12s %7.3f %s\n' "$lang" "$nl" $((nrep * nl * (nl + 1))) "$a" "$b" "$(echo "$b / $a" | bc -l)" "$same"
  done
done
