#!/usr/bin/env bash
# Runs augur's whole test suite. The end-to-end tests really run mpicc/mpirun, gfortran and
# SimGrid's smpicc/smpirun; when those are missing and we are root, install them from Debian first.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(openmpi-bin libopenmpi-dev gfortran libsimgrid-dev)
missing=0
for tool in mpicc mpif90 mpirun gfortran smpicc smpirun; do
    command -v "$tool" >/dev/null 2>&1 || missing=1
done
if [ "$missing" = 1 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "scripts/test.sh: installing ${pkgs[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
    else
        echo "scripts/test.sh: MPI tools missing; install them with: sudo apt-get install -y ${pkgs[*]}" >&2
        exit 2
    fi
fi

# every test binary runs, so a failure reports all the others too
exec cargo test --workspace --no-fail-fast "$@"
