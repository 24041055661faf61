#!/usr/bin/env bash
# record-large.sh: full SMPI runs of the testdata C programs at P = 64 and 256, the reference that
# models built from the recorded P <= 16 runs (testdata/<prog>/runs/smpi-c) must predict.
# "Full run" = the original, uninstrumented C source compiled with `smpicc -O2` and run with
# `smpirun` on testdata/platform/cluster.xml with the launcher flags of `augur profile`
# (cli/src/cmd/profile/launch.rs: all platform hosts in the hostfile, smpi/host-speed:1Gf, SMPI's
# default privatization), plus --cfg=smpi/display-timing:yes, which makes SMPI print
# "Simulated time: X seconds." (its clock when the last rank finishes) and nothing else differs.
# Measured = the median of --repeat runs of that simulated time (compute between MPI calls is
# timed on this host and charged to simulated time, so it varies with host load).
#
# Output: testdata/<prog>/runs/smpi-large/results.json (one per program, written whole). Runs
# already recorded with the same config, source sha256, SimGrid version and repeat count are kept;
# --fresh re-runs everything. The build directory is removed afterwards.
#
#   scripts/record-large.sh [--fresh] [--only PROG] [--repeat R]
# Needs: smpicc, smpirun (libsimgrid-dev), jq. Exit status: 0 when every run succeeded, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

fresh=0
only=""
repeat=3
while [ $# -gt 0 ]; do
    case $1 in
        --fresh) fresh=1 ;;
        --only) only=$2; shift ;;
        --repeat) repeat=$2; shift ;;
        -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "record-large.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
for tool in smpicc smpirun jq; do
    command -v "$tool" >/dev/null || { echo "record-large.sh: $tool not found" >&2; exit 2; }
done

# name | include dir (under testdata/) | sizes, ';'-separated, each in argument order (programs.json)
# Every size also appears in the smpi-c grid of scripts/record-runs.sh, so a model built from the
# P <= 16 runs extrapolates in P only. Limits (source headers): N divisible by P (and by K);
# shift/pipeline N/P <= 65536; pge2 N <= 512; sweep N/Px, N/Py <= 256, K <= 64. shift/pipeline
# messages stay under SMPI's 64 KiB eager limit at every P (see record-runs.sh).
programs="shift||N=4096 ITERS=100;N=8192 ITERS=100
pipeline||N=4096 ITERS=100;N=8192 ITERS=100
pge1||N=2048 K=64;N=4096 K=64
pge2|pge2|N=512 K=16;N=512 K=32
atm2d||LAMBDA=128 STEPS=20;LAMBDA=256 STEPS=20
sweep|sweep|N=256 K=8;N=256 K=16
stencil||N=2048 ITERS=50;N=4096 ITERS=50"
nps="64 256"

platform=testdata/platform/cluster.xml
simgrid=$(smpirun -version 2>&1 | sed -n 's/^SimGrid version \(.*\)/SimGrid SMPI \1/p' | head -n 1)
[ -n "$simgrid" ] || simgrid="unknown"

status=0
while IFS='|' read -r prog inc sizes; do
    [ -n "$only" ] && [ "$only" != "$prog" ] && continue
    src="testdata/$prog/$prog.c"
    out="testdata/$prog/runs/smpi-large"
    build="$out/build"
    results="$out/results.json"
    mkdir -p "$build"
    sha=$(sha256sum "$src" | cut -d' ' -f1)
    incflag="-Itestdata/$prog"
    [ -n "$inc" ] && incflag="-Itestdata/$inc"
    echo "== $prog: smpicc -O2 $incflag -o $build/$prog $src -lm" >&2
    if ! smpicc -O2 "$incflag" -o "$build/$prog" "$src" -lm 2>"$build/cc.log"; then
        cat "$build/cc.log" >&2
        status=1
        continue
    fi
    # same hostfile as profile: every host of the platform, in document order
    seq 0 4095 | sed 's/.*/node-&.sim/' >"$build/hosts.txt"
    old='[]'
    if [ "$fresh" = 0 ] && [ -f "$results" ]; then
        old=$(jq -c '.runs // []' "$results" 2>/dev/null || echo '[]')
    fi
    runs='[]'
    IFS=';' read -r -a size_list <<<"$sizes"
    for size in "${size_list[@]}"; do
        args=()
        params='{}'
        for kv in $size; do
            args+=("${kv#*=}")
            params=$(jq -c --arg k "${kv%%=*}" --argjson v "${kv#*=}" '. + {($k): $v}' <<<"$params")
        done
        for np in $nps; do
            config=$(jq -r --argjson np "$np" '. + {P: $np} | to_entries | sort_by(.key)
                | map("\(.key)=\(.value)") | join(",")' <<<"$params")
            kept=$(jq -c --arg c "$config" --arg sha "$sha" --arg sg "$simgrid" --argjson r "$repeat" \
                'map(select(.config == $c and .source_sha256 == $sha and .simgrid == $sg
                    and (.simulated_all | length) == $r)) | first // empty' <<<"$old")
            if [ -n "$kept" ]; then
                echo "   $config: kept" >&2
                runs=$(jq -c --argjson r "$kept" '. + [$r]' <<<"$runs")
                continue
            fi
            argv=(smpirun -np "$np" -platform "$platform" -hostfile "$build/hosts.txt"
                --cfg=smpi/host-speed:1Gf --log=root.thres:warning
                --log=smpi_utils.thres:info --cfg=smpi/display-timing:yes
                "$build/$prog" "${args[@]}")
            sims=()
            reals=()
            line=""
            ok=1
            for _ in $(seq "$repeat"); do
                t0=$(date +%s.%N)
                if ! timeout 600 "${argv[@]}" </dev/null >"$build/stdout" 2>"$build/stderr"; then
                    echo "   $config: failed, see below" >&2
                    tail -n 5 "$build/stderr" >&2
                    ok=0
                    break
                fi
                t1=$(date +%s.%N)
                sim=$(sed -n 's/.*Simulated time: \([0-9.eE+-]*\) seconds.*/\1/p' "$build/stderr" "$build/stdout" | head -n 1)
                if [ -z "$sim" ]; then
                    echo "   $config: no 'Simulated time' line in the output" >&2
                    ok=0
                    break
                fi
                sims+=("$sim")
                reals+=("$(echo "$t1 - $t0" | bc)")
                line=$(grep -v '^\[' "$build/stdout" | grep -v '^$' | tail -n 1 || true)
            done
            if [ "$ok" = 0 ]; then
                status=1
                continue
            fi
            run=$(jq -n -c --arg prog "$prog" --arg c "$config" --argjson params "$params" \
                --argjson np "$np" --arg sha "$sha" --arg sg "$simgrid" --arg line "$line" \
                --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
                --argjson sims "$(printf '%s\n' "${sims[@]}" | jq -s -c 'map(tonumber)')" \
                --argjson reals "$(printf '%s\n' "${reals[@]}" | jq -s -c 'map(tonumber)')" \
                --argjson argv "$(printf '%s\n' "${argv[@]}" | jq -R . | jq -s -c .)" \
                '{program: $prog, config: $c, params: $params, np: $np,
                  simulated_seconds: ($sims | sort | .[(length - 1) / 2 | floor]),
                  simulated_all: $sims,
                  real_seconds: ($reals | sort | .[(length - 1) / 2 | floor]),
                  real_all: $reals, output: $line, argv: $argv,
                  source_sha256: $sha, simgrid: $sg, date: $date}')
            echo "   $config: simulated $(jq -r .simulated_seconds <<<"$run") s, real $(jq -r .real_seconds <<<"$run") s" >&2
            runs=$(jq -c --argjson r "$run" '. + [$r]' <<<"$runs")
        done
    done
    jq -n --arg prog "$prog" --arg src "$src" --arg sha "$sha" --arg sg "$simgrid" \
        --arg platform "$platform" --argjson repeat "$repeat" --argjson runs "$runs" \
        '{version: 1, program: $prog, source: $src, source_sha256: $sha, simgrid: $sg,
          platform: $platform, repeat: $repeat,
          measured: "median over repeat runs of SMPI simulated time (smpi/display-timing)",
          runs: $runs}' >"$results.tmp"
    mv "$results.tmp" "$results"
    rm -rf "$build"
done <<<"$programs"
exit $status
