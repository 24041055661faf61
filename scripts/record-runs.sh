#!/usr/bin/env bash
# record-runs.sh: regenerate the recorded runs of every testdata program with `augur profile`, so
# that analysis, models and skeletons work with no MPI installed. For each program, four run
# directories (layout: testdata/README.md, "Recorded runs"):
#   testdata/<prog>/runs/mpi-c    C source, Open MPI (mpicc/mpirun), P = 1, 2
#   testdata/<prog>/runs/mpi-f    Fortran source, Open MPI (mpif90/mpirun), P = 1, 2
#   testdata/<prog>/runs/smpi-c   C source, SimGrid SMPI on testdata/platform/cluster.xml, P = 2, 4, 8, 16
#   testdata/<prog>/runs/smpi-f   Fortran source, SMPI, P = 2, 4, 8, 16
# Each holds manifest.json, apt.json and runs/<config>/ (rank traces, stdout, stderr); the build
# directory (instrumented sources and binaries) is removed afterwards. Existing ok runs are kept
# (profile resumes); --fresh re-records everything.
# Native runs use P = 1, 2 only: these machines have 2 cores, and at P = 4 the ranks time-share
# them, so wall time measures the scheduler rather than the program. Each native configuration
# runs 3 times (--repeat 3), 9 for the programs whose runs take well under a second (shift,
# pipeline, sweep, pge2), and keeps the fastest: this shared host now and then runs the same
# loop 2x slower for seconds at a time (shift at P = 1, N = 16384: 23.5, 23.5 and 24.6 ms in one
# recording, 12.3 ms in another), and a short run's repetitions can all fall in one such spell.
# Record on a quiet machine (about 14 minutes).
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

# name | C source | Fortran source | include dir | grids for mpi-c | mpi-f | smpi-c | smpi-f
# Sizes respect each program's limits (header comments): N divisible by P (up to 16) and by K,
# pge2 N <= 512, sweep N/Px <= 256 and K <= 64. Iteration counts stay small to keep the committed
# traces small (testdata/README.md).
# Native grids (mpi-c, mpi-f; the same for both languages) aim at >= 1 s per run at P = 1 so that
# scheduler noise stays small against T, with few iterations (trace events grow with iterations,
# not with N). atm2d, stencil and pge1 (2.4 GB at N = 12288) reach it. The others cannot within
# their source limits: shift/pipeline N/P <= 65536 and ITERS below ~2400 (a decays by 0.75 per
# iteration and turns denormal, 100x slower), ~0.1 s; sweep N <= 256 with NITER = 2, ~0.3 s;
# pge2 N <= 512, a few ms.
# SMPI grids (smpi-c, smpi-f) cover the sizes of the full runs at P = 64 and 256
# (scripts/record-large.sh) so that those check extrapolation in P only. shift/pipeline keep every
# message under SMPI's 64 KiB eager limit (smpi/send-is-detached-thresh) at every P: above it a
# send waits for its receive, which turns the shift into a chain the model does not represent.
programs="shift|shift.c|shift.f||N=16384,32768,65536 ITERS=1000|N=16384,32768,65536 ITERS=1000|N=2048,4096,8192 ITERS=20,100|N=8192 ITERS=100
pipeline|pipeline.c|pipeline.f||N=16384,32768,65536 ITERS=1000|N=16384,32768,65536 ITERS=1000|N=2048,4096,8192 ITERS=20,100|N=8192 ITERS=100
pge1|pge1.c|pge1.f90||N=8192,10240,12288 K=64,128|N=8192,10240,12288 K=64,128|N=512,2048,4096 K=32,64|N=4096 K=64
pge2|pge2.c|pge2.f|pge2|N=256,384,512 K=16,32|N=256,384,512 K=16,32|N=128,256,512 K=16,32|N=512 K=32
atm2d|atm2d.c|atm2d.f90||LAMBDA=2048,2560,3072,3584 STEPS=100|LAMBDA=2048,2560,3072,3584 STEPS=100|LAMBDA=32,64,128,256 STEPS=20|LAMBDA=256 STEPS=20
sweep|sweep.c|sweep.f|sweep|N=128,192,256 K=4,8|N=128,192,256 K=4,8|N=64,128,256 K=8,16|N=256 K=8
stencil|stencil.c|stencil.f90||N=2048,3072,4096 ITERS=150|N=2048,3072,4096 ITERS=150|N=512,1024,2048,4096 ITERS=50|N=4096 ITERS=50"

status=0
record() { # prog source include variant launcher np grid (NAME=V,V NAME=V ...)
    local prog=$1 src=$2 inc=$3 variant=$4 launcher=$5 np=$6 grid=$7
    local params=() p
    for p in $grid; do params+=(--param "$p"); done
    local out="testdata/$prog/runs/$variant"
    local extra=()
    [ -n "$inc" ] && extra+=(-I "testdata/$inc")
    [ "$launcher" = smpirun ] && extra+=(--platform testdata/platform/cluster.xml)
    if [ "$launcher" = mpirun ]; then
        case $prog in
            shift | pipeline | sweep | pge2) extra+=(--repeat 9) ;;
            *) extra+=(--repeat 3) ;;
        esac
    fi
    echo "== $prog $variant ($src)" >&2
    if ! "$AUGUR" profile "testdata/$prog/$src" "${extra[@]}" "${fresh[@]}" --launcher "$launcher" \
        --np "$np" "${params[@]}" --timeout 120s --out "$out"; then
        status=1
    fi
    rm -rf "$out/build"
}

while IFS='|' read -r prog csrc fsrc inc mpic mpif smpic smpif; do
    [ -n "$only" ] && [ "$only" != "$prog" ] && continue
    if [ "$do_mpi" = 1 ]; then
        record "$prog" "$csrc" "$inc" mpi-c mpirun 1,2 "$mpic"
        record "$prog" "$fsrc" "$inc" mpi-f mpirun 1,2 "$mpif"
    fi
    if [ "$do_smpi" = 1 ]; then
        record "$prog" "$csrc" "$inc" smpi-c smpirun 2,4,8,16 "$smpic"
        record "$prog" "$fsrc" "$inc" smpi-f smpirun 2,4,8,16 "$smpif"
    fi
done <<< "$programs"

du -sh --apparent-size testdata/*/runs 2>/dev/null | sort -h >&2 || true
du -sch --apparent-size testdata/*/runs 2>/dev/null | tail -n 1 >&2 || true
exit $status
