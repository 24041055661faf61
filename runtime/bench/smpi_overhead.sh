#!/bin/bash
# smpi_overhead.sh: how much simulated time the tracer adds under SimGrid SMPI.
#
# For each program below, builds it uninstrumented (smpicc/smpif90 -O2) and instrumented
# (`augur profile --launcher smpirun`, the real build), runs both REPS times alternately at each P
# and prints the median simulated time SimGrid reports (`--cfg=smpi/display-timing:yes`,
# "Simulated time: X seconds") and the ratio instrumented / uninstrumented. The host's compute is
# measured, so runs are noisy (a few % on a shared 2-core VM): compare medians, not single runs.
#
# Usage: runtime/bench/smpi_overhead.sh [AUGUR_BINARY] [REPS]   (run from the repository root)
set -euo pipefail
augur=${1:-target/debug/augur}
reps=${2:-7}
root=$(pwd)
platform=$root/testdata/platform/cluster.xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seq 0 255 | sed 's/.*/node-&.sim/' >"$work/hosts.txt"

# median simulated seconds of REPS runs: sim NP EXE ARGS...
sim() {
  local np=$1
  shift
  for _ in $(seq "$reps"); do
    AUGUR_TRACE_DIR=$work/traces smpirun -np "$np" -platform "$platform" -hostfile "$work/hosts.txt" \
      --cfg=smpi/host-speed:1Gf --cfg=smpi/display-timing:yes --log=root.thres:warning \
      --log=smpi_utils.thres:info "$@" 2>&1 | sed -n 's/.*Simulated time: \([0-9.e+-]*\).*/\1/p'
  done | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

printf '%-22s %4s %14s %14s %7s\n' program P uninstrumented instrumented ratio
while IFS='|' read -r name src params args; do
  exe=$work/$name.plain
  case $src in
  *.c) smpicc -O2 -o "$exe" "$root/$src" -lm 2>/dev/null ;;
  *) smpif90 -O2 -o "$exe" "$root/$src" 2>/dev/null ;;
  esac
  # shellcheck disable=SC2086
  "$augur" profile "$root/$src" --np 4,16 $params --launcher smpirun --platform "$platform" \
    --out "$work/$name.augur" >/dev/null 2>&1
  inst=$work/$name.augur/build/$(basename "${src%.*}")
  for p in 4 16; do
    # shellcheck disable=SC2086
    a=$(sim "$p" "$exe" $args)
    # shellcheck disable=SC2086
    b=$(sim "$p" "$inst" $args)
    printf '%-22s %4s %14s %14s %7.3f\n' "$name" "$p" "$a" "$b" "$(echo "$b / $a" | bc -l)"
  done
done <<'EOF'
stencil-c|testdata/stencil/stencil.c|--param N=1024 --param ITERS=50|1024 50
atm2d-c|testdata/atm2d/atm2d.c|--param LAMBDA=64 --param STEPS=20|64 20
atm2d-f90|testdata/atm2d/atm2d.f90|--param LAMBDA=64 --param STEPS=20|64 20
EOF
