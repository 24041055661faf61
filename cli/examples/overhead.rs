//! Benchmark: wall time of the instrumented ATM2D program against the original, at P = 2 under
//! Open MPI, C and free-form Fortran. Both builds come from the same source with the same flags
//! (`-O2`); runs alternate original/instrumented to share the machine's drift; the check column
//! confirms both printed the same result line. Target: overhead below 5%.
//!
//! `cargo run --release -p augur --example overhead -- [--reps 7] [--lambda 768] [--steps 300] [--np 2]`
//! Raw times go to `overhead.csv` in the system temp directory.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() -> Result<()> {
    let mut reps = 7usize;
    let mut lambda = 768u32;
    let mut steps = 300u32;
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
    let mut csv = String::from("case,rep,variant,seconds\n");
    println!("ATM2D, P={np}, LAMBDA={lambda}, STEPS={steps}, {reps} repetitions each (Open MPI, -O2)");
    println!(
        "{:<12} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9}  check",
        "case", "orig min", "orig med", "instr min", "instr med", "ratio min", "ratio med"
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
        let (mut out_o, mut out_i) = (String::new(), String::new());
        // one warm-up each (page cache, shared-memory segments), not counted
        run(&orig, np, &args, &traces)?;
        run(&inst, np, &args, &traces)?;
        for r in 0..reps {
            let (t, o) = run(&orig, np, &args, &traces)?;
            to.push(t);
            out_o = o;
            let (t, o) = run(&inst, np, &args, &traces)?;
            ti.push(t);
            out_i = o;
            csv.push_str(&format!("{name},{r},original,{:.6}\n{name},{r},instrumented,{t:.6}\n", to[r]));
        }
        let (mo, medo) = min_med(&mut to);
        let (mi, medi) = min_med(&mut ti);
        let check = if !out_o.is_empty() && out_o == out_i { "same output" } else { "OUTPUT DIFFERS" };
        println!(
            "{:<12} {:>9.3}s {:>9.3}s {:>9.3}s {:>9.3}s {:>9.3} {:>9.3}  {check}",
            name,
            mo,
            medo,
            mi,
            medi,
            mi / mo,
            medi / medo
        );
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
    let plan = codegen::Plan::from_program(&lowered.program);
    let _ = tree;
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

/// One run under mpirun; returns wall seconds and the last line of stdout.
fn run(exe: &Path, np: u32, args: &[String], traces: &Path) -> Result<(f64, String)> {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np", &np.to_string()]).arg(exe).args(args);
    c.env("AUGUR_TRACE_DIR", traces);
    let t = Instant::now();
    let out = sh(&mut c)?;
    let secs = t.elapsed().as_secs_f64();
    Ok((secs, out.lines().last().unwrap_or("").trim().to_string()))
}
