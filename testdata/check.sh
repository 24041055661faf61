#!/bin/sh
# check.sh: build every testdata program in C and Fortran, run it at P = 1, 2, 4
# with the small sizes of README.md, and check that the C and Fortran output
# lines agree with each other and with <name>/expected.txt (recorded with Open
# MPI 4.1.4 and gfortran/gcc 12; SMPI prints the same lines). Exit 0 when all
# agree, 1 otherwise.
#   sh testdata/check.sh          # Open MPI: mpicc / mpif90 / mpirun
#   sh testdata/check.sh --smpi   # SimGrid: smpicc / smpiff / smpif90 / smpirun
# Static and SAVEd arrays need SMPI's default privatization: no -no-privatize.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-mpi}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
seq 0 15 | sed 's/.*/node-&.sim/' > "$out/hosts.txt"
fail=0

# name  fortran-extension  args
programs="shift f 4096 20
pipeline f 4096 20
pge1 f90 256 8
pge2 f 256 8
atm2d f90 64 20
sweep f 64 4
stencil f90 128 50"

build() { # lang src exe
    dir=$(dirname "$2")
    if [ "$mode" = --smpi ]; then
        case $1 in
            c) smpicc -O2 -I"$dir" -o "$3" "$2" -lm ;;
            f) smpiff -O2 -I"$dir" -o "$3" "$2" ;;
            f90) smpif90 -O2 -I"$dir" -o "$3" "$2" ;;
        esac
    else
        case $1 in
            c) mpicc -O2 -I"$dir" -o "$3" "$2" -lm ;;
            f) mpif90 -O2 -ffixed-form -I"$dir" -o "$3" "$2" ;;
            f90) mpif90 -O2 -I"$dir" -o "$3" "$2" ;;
        esac
    fi
}

run() { # np exe args...
    np=$1
    shift
    if [ "$mode" = --smpi ]; then
        smpirun -np "$np" -platform "$here/platform/cluster.xml" -hostfile "$out/hosts.txt" \
            --cfg=smpi/host-speed:1Gf --log=root.thres:critical "$@" </dev/null 2>/dev/null | tail -n 1
    else
        mpirun --allow-run-as-root --oversubscribe -np "$np" "$@" </dev/null 2>/dev/null | tail -n 1
    fi
}

echo "$programs" | while read -r name fext args; do
    src="$here/$name/$name"
    if ! build c "$src.c" "$out/${name}_c" >"$out/build.log" 2>&1 ||
        ! build "$fext" "$src.$fext" "$out/${name}_f" >>"$out/build.log" 2>&1; then
        echo "FAIL build $name"
        cat "$out/build.log"
        echo 1 > "$out/failed"
        continue
    fi
    for np in 1 2 4; do
        # shellcheck disable=SC2086
        c=$(run "$np" "$out/${name}_c" $args)
        # shellcheck disable=SC2086
        f=$(run "$np" "$out/${name}_f" $args)
        want=$(sed -n "s/^np=$np //p" "$here/$name/expected.txt" 2>/dev/null)
        if [ -n "$c" ] && [ "$c" = "$f" ] && [ "$c" = "$want" ]; then
            echo "ok   $c"
        else
            echo "FAIL np=$np C: '$c' Fortran: '$f' expected: '$want'"
            echo 1 > "$out/failed"
        fi
    done
done
[ -f "$out/failed" ] && fail=1
exit $fail
