#!/usr/bin/env bash
# Regenerates the measured data sheets in machines/ with `augur characterize`, using the
# settings below (the files record them too, under "measured").
#   scripts/characterize.sh            # both
#   scripts/characterize.sh native     # machines/this-openmpi-shm.json (Open MPI, shared memory)
#   scripts/characterize.sh smpi       # machines/smpi-reference.json (SMPI on testdata/platform/cluster.xml)
# The raw benchmark CSV is kept beside each JSON (refit with `augur characterize --from-csv`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
what="${1:-all}"
augur() { cargo run -q -p augur -- "$@"; }

# Powers of two from 1 B to 4 MiB (point-to-point regimes are fitted between them).
pow2="$(for i in $(seq 0 22); do printf '%s,' $((1 << i)); done)"
pow2="${pow2%,}"

if [[ "$what" == all || "$what" == native ]]; then
  # 8 ranks on this 2-core machine: the run is oversubscribed (noted in the description).
  augur characterize --launcher mpirun --np 2..8 --reps 60 --sizes "$pow2" \
    --note "This machine: Open MPI over shared memory (vader), all ranks on one node." \
    --name this-openmpi-shm --raw machines/this-openmpi-shm.csv -o machines/this-openmpi-shm.json
fi
if [[ "$what" == all || "$what" == smpi ]]; then
  # SimGrid 3.32's default network factors are listed at 257, 732, 1426, 3484, 5776, 9376,
  # 15424 and 65472 bytes; a one-byte sweep of the simulated ping-pong shows each step taking
  # effect 15 bytes earlier (first size X-15). Measure both sides of every step (X-16, X-15),
  # plus 12288 so that 9361..15408 has three sizes of its own, and 65472, 65500, 65535 so
  # that 65457..65535 (the last sizes below the 64 KiB detached-send threshold) has four;
  # fit_regimes finds the regimes.
  steps=""
  for x in 257 732 1426 3484 5776 9376 15424 65472; do steps+=",$((x - 16)),$((x - 15))"; done
  # Simulated time is deterministic (3 repetitions suffice); powers of two up to 64 (tree collectives step at powers of two).
  augur characterize --launcher smpirun --platform testdata/platform/cluster.xml \
    --np 2,4,8,16,32,64 --reps 3 --sizes "$pow2$steps,12288,65472,65500,65535" \
    --note "SMPI reference: cluster of 1 Gflop/s single-core hosts, 10 GBps links with 1 us latency, SMPI default network factors." \
    --name smpi-reference --raw machines/smpi-reference.csv -o machines/smpi-reference.json
fi
