#!/usr/bin/env bash
# smpi-host-effects.sh: how much of a full SMPI run's simulated time comes from the host that
# runs the simulation rather than from the simulated platform.
#
# SMPI times the program's compute between MPI calls on this host (thread CPU time) and charges
# it to simulated time; bursts under smpi/cpu-threshold (1 us) are dropped. Two host effects
# follow, and both grow with P:
#   - host noise: now and then a burst that should take ~0.1 us is charged tens of us (a page
#     fault, an interrupt); a neighbour or a chain of ranks waits for it, so one rank's hiccup
#     delays many (shift: a 1-D chain; atm2d: a 2-D grid);
#   - host cache: all ranks run in one host process, one after the other, so their working sets
#     share the host's caches; past some P each rank's compute runs from memory.
# For each program and P this prints the simulated time with compute charged (what
# record-large.sh records), with compute not simulated at all (smpi/simulate-computation:no:
# the platform's communication alone, deterministic), and a second and third charged run to
# show the spread. The model predicts the deterministic structure; neither host effect can be
# seen in runs at P <= 16.
#
#   scripts/smpi-host-effects.sh [--np "16 64 256"]
# Needs: smpicc, smpirun (libsimgrid-dev). Writes only under a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."

nps="16 64 256"
while [ $# -gt 0 ]; do
    case $1 in
        --np) nps=$2; shift ;;
        -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "smpi-host-effects.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
for tool in smpicc smpirun; do
    command -v "$tool" >/dev/null || { echo "smpi-host-effects.sh: $tool not found" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seq 0 4095 | sed 's/.*/node-&.sim/' >"$work/hosts.txt"
platform=testdata/platform/cluster.xml

sim() { # np, extra cfg (or ""), program, args...
    local np=$1 cfg=$2 prog=$3
    shift 3
    local args=(smpirun -np "$np" -platform "$platform" -hostfile "$work/hosts.txt"
        --cfg=smpi/host-speed:1Gf --log=root.thres:warning --log=smpi_utils.thres:info
        --cfg=smpi/display-timing:yes)
    [ -n "$cfg" ] && args+=("$cfg")
    "${args[@]}" "$work/$prog" "$@" 2>&1 </dev/null \
        | sed -n 's/.*Simulated time: \([0-9.eE+-]*\) seconds.*/\1/p' | head -n 1
}

# program | arguments (the sizes of record-large.sh)
cases="shift|4096 100
atm2d|128 20"
printf '%-8s %-10s %5s %14s %14s %14s %14s\n' program args P no-compute charged charged charged
while IFS='|' read -r prog args; do
    smpicc -O2 -o "$work/$prog" "testdata/$prog/$prog.c" -lm 2>"$work/cc.log" \
        || { cat "$work/cc.log" >&2; exit 1; }
    for np in $nps; do
        # shellcheck disable=SC2086
        printf '%-8s %-10s %5s %14s %14s %14s %14s\n' "$prog" "${args// /,}" "$np" \
            "$(sim "$np" --cfg=smpi/simulate-computation:no "$prog" $args)" \
            "$(sim "$np" "" "$prog" $args)" "$(sim "$np" "" "$prog" $args)" \
            "$(sim "$np" "" "$prog" $args)"
    done
done <<<"$cases"
