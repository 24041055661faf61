//! Shared by the traced-program tests: building a test program of tests/data with the runtime
//! (mpicc/mpif90, or smpicc/smpif90 under SMPI), running it on a few ranks and reading the run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::path::Path;
use std::process::Command;
use trace::{read_run, RankTrace};

/// Runs `cmd`, failing the test with its output unless it succeeds. smpirun exits 0 when
/// SimGrid finds the ranks deadlocked: that is a failure too.
pub fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?} (needs Open MPI and SimGrid): {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("Deadlock detected"),
        "{cmd:?} failed ({}):\n{}\n{stderr}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
    );
}

/// Builds tests/data/`stem`.c (`stem`.f90 when `fortran`) with the runtime (`smpi`: with
/// smpicc / smpif90), runs it on `np` ranks with `args`, reads the run.
pub fn traced(stem: &str, smpi: bool, fortran: bool, np: u32, args: &[String]) -> Vec<RankTrace> {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let cc = if smpi { "smpicc" } else { "mpicc" };
    let (fc, src) = match (fortran, smpi) {
        (false, _) => (cc, format!("{stem}.c")),
        (true, false) => ("mpif90", format!("{stem}.f90")),
        (true, true) => ("smpif90", format!("{stem}.f90")),
    };
    augur_runtime::write_to(dir).unwrap();
    let mut objs = Vec::new();
    for f in augur_runtime::sources(fortran) {
        let obj = dir.join(f.name.replace(".c", ".o"));
        run(Command::new(cc)
            .args(["-O2", "-Wall", "-c"])
            .arg(dir.join(f.name))
            .arg("-o")
            .arg(&obj));
        objs.push(obj);
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(&src);
    let exe = dir.join(stem);
    let mut link = Command::new(fc);
    if fortran {
        link.args(augur_runtime::FORTRAN_FLAGS);
    }
    run(link
        .arg("-O2")
        .arg(format!("-I{}", dir.display()))
        .arg(&src)
        .args(&objs)
        .arg("-o")
        .arg(&exe));
    let out = dir.join("out");
    // Fortran under SMPI: -no-privatize, as for ring.f90
    let mut cmd = launcher(dir, smpi, np, !fortran);
    run(cmd.env("AUGUR_TRACE_DIR", &out).arg(&exe).args(args));
    read_run(&out).unwrap_or_else(|e| panic!("{e}"))
}

/// `mpirun` (as root, oversubscribed) or `smpirun` on a 64-host cluster written under `dir`,
/// for `np` ranks; `privatize: false` adds SMPI's `-no-privatize`.
pub fn launcher(dir: &Path, smpi: bool, np: u32, privatize: bool) -> Command {
    if !smpi {
        let mut c = Command::new("mpirun");
        c.args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            &np.to_string(),
        ]);
        return c;
    }
    let xml = dir.join("platform.xml");
    std::fs::write(
        &xml,
        "<?xml version='1.0'?><!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\
         <platform version=\"4.1\"><cluster id=\"c0\" prefix=\"node-\" suffix=\".sim\" radical=\"0-63\" \
         core=\"1\" speed=\"1Gf\" bw=\"10GBps\" lat=\"1us\" sharing_policy=\"SPLITDUPLEX\"/></platform>",
    )
    .unwrap();
    let hosts = dir.join("hosts.txt");
    let list: String = (0..np).map(|i| format!("node-{i}.sim\n")).collect();
    std::fs::write(&hosts, list).unwrap();
    let mut c = Command::new("smpirun");
    c.args(["-np", &np.to_string(), "-platform"])
        .arg(&xml)
        .arg("-hostfile")
        .arg(&hosts)
        .args(["--cfg=smpi/host-speed:1Gf", "--log=root.thres:warning"]);
    if !privatize {
        c.arg("-no-privatize");
    }
    c
}
