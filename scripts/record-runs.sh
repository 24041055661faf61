#!/usr/bin/env bash
# record-runs.sh: regenerate the recorded runs of every testdata program with `augur profile`, so
# that analysis, models and skeletons work with no MPI installed. For each program, four run
# directories (layout: testdata/README.md, "Recorded runs"):
#   testdata/<prog>/runs/mpi-c    C source, Open MPI (mpicc/mpirun), P = 1, 2, 4
#   testdata/<prog>/runs/mpi-f    Fortran source, Open MPI (mpif90/mpirun), P = 1, 2, 4
#   testdata/<prog>/runs/smpi-c   C source, SimGrid SMPI on testdata/platform/cluster.xml, P = 2, 4, 8, 16
#   testdata/<prog>/runs/smpi-f   Fortran source, SMPI, P = 2, 4, 8, 16
# Each holds manifest.json, apt.json and runs/<config>/ (rank traces, stdout, stderr); the build
# directory (instrumented sources and binaries) is removed afterwards. Existing ok runs are kept
# (profile resumes); --fresh re-records everything.
#
#   scripts/record-runs.sh [--fresh] [--only PROG] [--mpi-only | --smpi-only]
# Environment: AUGUR=path/to/augur (default: build it with cargo --release).
# Exit status: 0 when every run of every program is ok, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

fresh=()
only=""
do_mpi=1
do_smpi=1
while [ $# -gt 0 ]; do
    case $1 in
        --fresh) fresh=(--force) ;;
        --only) only=$2; shift ;;
        --mpi-only) do_smpi=0 ;;
        --smpi-only) do_mpi=0 ;;
        -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "record-runs.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

if [ -z "${AUGUR:-}" ]; then
    cargo build --release -q -p augur
    AUGUR="${CARGO_TARGET_DIR:-target}/release/augur"
fi

# name  C source  Fortran source  include dir  params (first = main size)  native sizes | smpi sizes
# Sizes respect each program's limits (header comments): divisible by P (up to 16) and by K,
# pge2 N <= 512, sweep N/Px <= 256 and K <= 64. Iteration counts stay small to keep traces small.
programs="shift|shift.c|shift.f||--param N=1024,2048,4096,8192 --param ITERS=20|--param N=1024,4096,8192 --param ITERS=20
pipeline|pipeline.c|pipeline.f||--param N=1024,2048,4096,8192 --param ITERS=20|--param N=1024,4096,8192 --param ITERS=20
pge1|pge1.c|pge1.f90||--param N=128,256,512 --param K=4,8,16|--param N=128,256,512 --param K=4,16
pge2|pge2.c|pge2.f|pge2|--param N=128,256,512 --param K=4,8,16|--param N=128,256,512 --param K=4,16
atm2d|atm2d.c|atm2d.f90||--param LAMBDA=32,48,64,96 --param STEPS=20|--param LAMBDA=32,64,96 --param STEPS=20
sweep|sweep.c|sweep.f|sweep|--param N=32,64,96 --param K=2,4,8|--param N=32,64,96 --param K=2,8
stencil|stencil.c|stencil.f90||--param N=128,256,512,1024 --param ITERS=50|--param N=128,512,1024 --param ITERS=50"

status=0
record() { # prog source include variant launcher np params...
    local prog=$1 src=$2 inc=$3 variant=$4 launcher=$5 np=$6
    shift 6
    local out="testdata/$prog/runs/$variant"
    local extra=()
    [ -n "$inc" ] && extra+=(-I "testdata/$inc")
    [ "$launcher" = smpirun ] && extra+=(--platform testdata/platform/cluster.xml)
    echo "== $prog $variant ($src)" >&2
    # shellcheck disable=SC2068  # params are word lists on purpose
    if ! "$AUGUR" profile "testdata/$prog/$src" "${extra[@]}" "${fresh[@]}" --launcher "$launcher" \
        --np "$np" $@ --timeout 120s --out "$out"; then
        status=1
    fi
    rm -rf "$out/build"
}

while IFS='|' read -r prog csrc fsrc inc native smpi; do
    [ -n "$only" ] && [ "$only" != "$prog" ] && continue
    if [ "$do_mpi" = 1 ]; then
        # shellcheck disable=SC2086
        record "$prog" "$csrc" "$inc" mpi-c mpirun 1,2,4 $native
        # shellcheck disable=SC2086
        record "$prog" "$fsrc" "$inc" mpi-f mpirun 1,2,4 $native
    fi
    if [ "$do_smpi" = 1 ]; then
        # shellcheck disable=SC2086
        record "$prog" "$csrc" "$inc" smpi-c smpirun 2,4,8,16 $smpi
        # shellcheck disable=SC2086
        record "$prog" "$fsrc" "$inc" smpi-f smpirun 2,4,8,16 $smpi
    fi
done <<< "$programs"

du -sh testdata/*/runs 2>/dev/null | sort -h >&2 || true
exit $status
