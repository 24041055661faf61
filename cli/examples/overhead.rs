//! Benchmark: wall time of the instrumented ATM2D program against the original, at P = 2 under
//! Open MPI, C and free-form Fortran. Both builds come from the same source with the same flags
//! (`-O2`); runs alternate original/instrumented to share the machine's drift; the check column
//! confirms both printed the same result line. Target: overhead below 5%. Besides wall time the
//! table shows CPU time (user + system of mpirun and its ranks, from `/proc/self/stat` cutime +
//! cstime), which other load on a shared machine disturbs less than wall time.
//!
//! `cargo run --release -p augur --example overhead -- [--reps 7] [--lambda 512] [--steps 1000] [--np 2]`
//! Raw times go to `overhead.csv` in the system temp directory.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() -> Result<()> {
    let mut reps = 7usize;
    let mut lambda = 512u32;
    let mut steps = 1000u32;
    let mut np = 2u32;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().context("missing value").and_then(|v| v.parse::<u32>().context("not a number"));
        match a.as_str() {
            "--reps" => reps = val()? as usize,
            "--lambda" => lambda = val()?,
            "--steps" => steps = val()?,
            "--np" => np = val()?,
            _ => bail!("unknown option {a} (use --reps, --lambda, --steps, --np)"),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/atm2d");
    let tmp = tempfile::tempdir()?;
    let args = [lambda.to_string(), steps.to_string()];
    let mut csv = String::from("case,rep,variant,wall_seconds,cpu_seconds\n");
    println!("ATM2D, P={np}, LAMBDA={lambda}, STEPS={steps}, {reps} repetitions each (Open MPI, -O2)");
    println!(
        "{:<10} {:<5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}  check",
        "case", "time", "orig min", "orig med", "inst min", "inst med", "ratio min", "ratio med"
    );
    for (name, file, fortran) in [("atm2d.c", "atm2d.c", false), ("atm2d.f90", "atm2d.f90", true)] {
        let src = root.join(file);
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir)?;
        let orig = build_original(&src, &dir, fortran)?;
        let inst = build_instrumented(&src, &dir, fortran)?;
        let traces = dir.join("traces");
        std::fs::create_dir_all(&traces)?;
        let (mut to, mut ti) = (Vec::new(), Vec::new());
        let (mut co, mut ci) = (Vec::new(), Vec::new());
        let (mut out_o, mut out_i) = (String::new(), String::new());
        // one warm-up each (page cache, shared-memory segments), not counted
        run(&orig, np, &args, &traces)?;
        run(&inst, np, &args, &traces)?;
        for r in 0..reps {
            let (t, c, o) = run(&orig, np, &args, &traces)?;
            csv.push_str(&format!("{name},{r},original,{t:.6},{c:.2}\n"));
            to.push(t);
            co.push(c);
            out_o = o;
            let (t, c, o) = run(&inst, np, &args, &traces)?;
            csv.push_str(&format!("{name},{r},instrumented,{t:.6},{c:.2}\n"));
            ti.push(t);
            ci.push(c);
            out_i = o;
        }
        let check = if !out_o.is_empty() && out_o == out_i { "same output" } else { "OUTPUT DIFFERS" };
        for (what, o, i) in [("wall", &mut to, &mut ti), ("cpu", &mut co, &mut ci)] {
            let (mo, medo) = min_med(o);
            let (mi, medi) = min_med(i);
            println!(
                "{name:<10} {what:<5} {mo:>8.2}s {medo:>8.2}s {mi:>8.2}s {medi:>8.2}s {:>9.3} {:>9.3}  {check}",
                mi / mo,
                medi / medo
            );
        }
    }
    let csv_path = std::env::temp_dir().join("overhead.csv");
    std::fs::write(&csv_path, csv)?;
    println!("raw times: {}", csv_path.display());
    Ok(())
}

fn min_med(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

fn sh(cmd: &mut Command) -> Result<String> {
    let out = cmd.stdin(Stdio::null()).output().with_context(|| format!("cannot run {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn compiler(fortran: bool) -> &'static str {
    if fortran {
        "mpif90"
    } else {
        "mpicc"
    }
}

fn build_original(src: &Path, dir: &Path, fortran: bool) -> Result<PathBuf> {
    let exe = dir.join("original");
    let mut c = Command::new(compiler(fortran));
    c.arg("-O2").arg("-o").arg(&exe).arg(src);
    if !fortran {
        c.arg("-lm");
    }
    sh(&mut c)?;
    Ok(exe)
}

/// Front end → APT → codegen → runtime objects → link, as `augur profile` does.
fn build_instrumented(src: &Path, dir: &Path, fortran: bool) -> Result<PathBuf> {
    let lowered = frontend::load(src, &frontend::Options::default())?;
    if lowered.has_errors() {
        bail!("{}: front end errors", src.display());
    }
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let plan = codegen::Plan::from_apt(&tree, &lowered.program);
    let inst = codegen::instrument(&lowered.program, &lowered.sources, &plan)?;
    let bdir = dir.join("build");
    std::fs::create_dir_all(&bdir)?;
    augur_runtime::write_to(&bdir)?;
    for f in &inst.files {
        std::fs::write(bdir.join(&f.relative), &f.text)?;
    }
    let main = bdir.join(&inst.main().context("no main file")?.relative);
    let mut objs = Vec::new();
    for f in augur_runtime::sources(fortran) {
        let obj = bdir.join(f.name.replace(".c", ".o"));
        sh(Command::new("mpicc").args(["-O2", "-c"]).arg(bdir.join(f.name)).arg("-o").arg(&obj))?;
        objs.push(obj);
    }
    let exe = dir.join("instrumented");
    let mut c = Command::new(compiler(fortran));
    c.arg("-O2");
    if fortran {
        c.args(augur_runtime::FORTRAN_FLAGS);
    }
    c.arg(format!("-I{}", bdir.display())).arg("-o").arg(&exe).arg(&main).args(&objs);
    if !fortran {
        c.arg("-lm");
    }
    sh(&mut c)?;
    Ok(exe)
}

/// User + system CPU seconds of this process's waited-for descendants (`/proc/self/stat`
/// fields 16 and 17, in clock ticks of 1/100 s on Linux).
fn children_cpu() -> Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let after = stat.rsplit_once(')').map(|(_, a)| a).context("bad /proc/self/stat")?;
    let f: Vec<&str> = after.split_whitespace().collect();
    // after the command name, field 3 (state) is index 0: cutime = field 16, cstime = 17
    let tick = |i: usize| -> Result<f64> { Ok(f.get(i).context("short /proc/self/stat")?.parse::<f64>()? / 100.0) };
    Ok(tick(13)? + tick(14)?)
}

/// One run under mpirun; returns wall seconds, CPU seconds and the last line of stdout.
fn run(exe: &Path, np: u32, args: &[String], traces: &Path) -> Result<(f64, f64, String)> {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np", &np.to_string()]).arg(exe).args(args);
    c.env("AUGUR_TRACE_DIR", traces);
    let cpu = children_cpu()?;
    let t = Instant::now();
    let out = sh(&mut c)?;
    let secs = t.elapsed().as_secs_f64();
    let cpu = children_cpu()? - cpu;
    Ok((secs, cpu, out.lines().last().unwrap_or("").trim().to_string()))
}
