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

if [[ "$what" == all || "$what" == native ]]; then
  # 8 ranks on this 2-core machine: the run is oversubscribed (noted in the description).
  augur characterize --launcher mpirun --np 2..8 --reps 40 \
    --note "This machine: Open MPI over shared memory (vader), all ranks on one node." \
    --name this-openmpi-shm --raw machines/this-openmpi-shm.csv -o machines/this-openmpi-shm.json
fi
if [[ "$what" == all || "$what" == smpi ]]; then
  # Simulated time is deterministic (3 repetitions suffice); powers of two up to 64 (tree collectives step at powers of two).
  augur characterize --launcher smpirun --platform testdata/platform/cluster.xml \
    --np 2,4,8,16,32,64 --reps 3 \
    --note "SMPI reference: cluster of 1 Gflop/s single-core hosts, 10 GBps links with 1 us latency, SMPI default network factors." \
    --name smpi-reference --raw machines/smpi-reference.csv -o machines/smpi-reference.json
fi
