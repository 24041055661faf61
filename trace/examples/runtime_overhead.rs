//! Tracer runtime overhead: compiles runtime/bench/overhead.c with the embedded runtime and
//! `mpicc`, runs it on one rank, and prints ns per marker / per wrapped MPI call.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::process::Command;

fn main() {
    let n = std::env::args().nth(1).unwrap_or_else(|| "2000000".into());
    let dir = std::env::temp_dir().join(format!("augur-overhead-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    augur_runtime::write_to(&dir).unwrap();
    let bench =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/bench/overhead.c");
    let obj = dir.join("augur_trace.o");
    let exe = dir.join("overhead");
    let ok = |c: &mut Command| {
        let st = c
            .status()
            .unwrap_or_else(|e| panic!("cannot run {c:?}: {e} (is Open MPI installed?)"));
        assert!(st.success(), "{c:?} failed");
    };
    ok(Command::new("mpicc")
        .args(["-O2", "-c"])
        .arg(dir.join("augur_trace.c"))
        .arg("-o")
        .arg(&obj));
    ok(Command::new("mpicc")
        .arg("-O2")
        .arg(format!("-I{}", dir.display()))
        .arg(&bench)
        .arg(&obj)
        .arg("-o")
        .arg(&exe));
    ok(Command::new("mpirun")
        .args(["--allow-run-as-root", "-np", "1"])
        .env("AUGUR_TRACE_DIR", dir.join("out"))
        .arg(&exe)
        .arg(&n));
    let size = std::fs::metadata(dir.join("out/rank-0.augt"))
        .map(|m| m.len())
        .unwrap_or(0);
    println!("trace file: {size} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}
