//! Benchmark: cost of the instrumented ATM2D program against the original, at P = 2 under
//! Open MPI, C and free-form Fortran. Target: overhead below 5%.
//!
//! Two measurements, from builds of the same source with the same flags (`-O2`):
//! - Instruction counts under valgrind's callgrind (deterministic, whatever the machine's
//!   load). Open MPI busy-polls while a rank waits, so the instructions spent inside MPI
//!   communication, `MPI_Init` and `MPI_Finalize` depend on timing; both builds make the same
//!   MPI calls with the same arguments, so the inclusive cost of those calls is left out (see
//!   [`is_progress_call`]), as are Open MPI's helper threads. What remains is the program, the
//!   instrumentation markers, the runtime's MPI wrappers (timestamps, records, trace writing)
//!   and process start-up. "per step" subtracts a `STEPS=0` run of each build, so its ratio is
//!   the steady-state overhead of one time step. Set-up rows can differ for reasons other than
//!   the markers: gcc turns the original's zeroing loop into `memset` calls but not the
//!   instrumented one (markers inside), so the two set-ups execute different code.
//! - Wall and CPU time (user + system of mpirun and its ranks) over repetitions that alternate
//!   original/instrumented. On a shared machine these are dominated by other load: noisy.
//!
//! The check column confirms both builds printed the same result line.
//!
//! `cargo run --release -p augur --example overhead -- [--reps 7] [--lambda 512] [--steps 1000]
//! [--np 2] [--vg-lambda 512] [--vg-steps 10] [--no-valgrind] [--no-wall] [--keep]`
//! Raw times go to `overhead.csv`, per-rank instruction counts to `overhead-instructions.csv`, in
//! the system temp directory; `--keep` keeps the builds, traces and last callgrind files.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

struct Opts {
    reps: usize,
    lambda: u32,
    steps: u32,
    np: u32,
    vg_lambda: u32,
    vg_steps: u32,
    valgrind: bool,
    wall: bool,
    keep: bool,
}

/// Both builds of one testdata program.
struct Case {
    name: &'static str,
    orig: PathBuf,
    inst: PathBuf,
    dir: PathBuf,
}

fn main() -> Result<()> {
    let o = parse_opts()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/atm2d");
    let tmp = tempfile::tempdir()?;
    let mut cases = Vec::new();
    for (name, fortran) in [("atm2d.c", false), ("atm2d.f90", true)] {
        let src = root.join(name);
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(dir.join("traces"))?;
        let orig = build_original(&src, &dir, fortran)?;
        let inst = build_instrumented(&src, &dir, fortran)?;
        cases.push(Case {
            name,
            orig,
            inst,
            dir,
        });
    }
    if o.valgrind {
        match valgrind_version() {
            Some(v) => instruction_table(&o, &cases, &v)?,
            None => println!(
                "valgrind not found: no instruction counts (install valgrind for the deterministic measurement)\n"
            ),
        }
    }
    if o.wall {
        wall_table(&o, &cases)?;
    }
    if o.keep {
        println!("kept {}", tmp.keep().display());
    }
    Ok(())
}

fn parse_opts() -> Result<Opts> {
    let mut o = Opts {
        reps: 7,
        lambda: 512,
        steps: 1000,
        np: 2,
        vg_lambda: 512,
        vg_steps: 10,
        valgrind: true,
        wall: true,
        keep: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .context("missing value")
                .and_then(|v| v.parse::<u32>().context("not a number"))
        };
        match a.as_str() {
            "--reps" => o.reps = (val()? as usize).max(1),
            "--lambda" => o.lambda = val()?,
            "--steps" => o.steps = val()?,
            "--np" => o.np = val()?,
            "--vg-lambda" => o.vg_lambda = val()?,
            "--vg-steps" => o.vg_steps = val()?,
            "--no-valgrind" => o.valgrind = false,
            "--no-wall" => o.wall = false,
            "--keep" => o.keep = true,
            _ => bail!(
                "unknown option {a} (use --reps, --lambda, --steps, --np, --vg-lambda, --vg-steps, --no-valgrind, --no-wall, --keep)"
            ),
        }
    }
    Ok(o)
}

// ------------------------------------------------------------------ instruction counts

fn valgrind_version() -> Option<String> {
    let out = Command::new("valgrind")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Instructions of one run, summed over ranks (main thread of each).
#[derive(Clone, Copy, Default)]
struct Counts {
    /// Everything the main thread executed.
    all: u64,
    /// Inclusive cost of calls into MPI routines that progress communication (or init/finalize).
    mpi: u64,
}

impl Counts {
    fn program(self) -> u64 {
        self.all.saturating_sub(self.mpi)
    }
}

fn instruction_table(o: &Opts, cases: &[Case], version: &str) -> Result<()> {
    println!(
        "Instruction counts ({version} callgrind), ATM2D, P={}, LAMBDA={}, STEPS={} and STEPS=0, summed over ranks",
        o.np, o.vg_lambda, o.vg_steps
    );
    println!(
        "  program = main thread minus the inclusive cost of MPI communication/init/finalize calls"
    );
    println!("  (Open MPI busy-polls while waiting, so those vary run to run; both builds make the same calls)");
    println!(
        "{:<10} {:<22} {:>15} {:>15} {:>8}  check",
        "case", "part", "original", "instrumented", "ratio"
    );
    let mut csv = String::from("case,variant,steps,rank_file,all,mpi,program\n");
    for c in cases {
        let mut get = |exe: &Path, variant: &str, steps: u32| -> Result<(Counts, String)> {
            let args = [o.vg_lambda.to_string(), steps.to_string()];
            let (counts, per_file, out) = callgrind_run(exe, o.np, &args, &c.dir)?;
            for (f, k) in per_file {
                csv.push_str(&format!(
                    "{},{variant},{steps},{f},{},{},{}\n",
                    c.name,
                    k.all,
                    k.mpi,
                    k.program()
                ));
            }
            Ok((counts, out))
        };
        let (os, out_os) = get(&c.orig, "original", o.vg_steps)?;
        let (is, out_is) = get(&c.inst, "instrumented", o.vg_steps)?;
        let (o0, out_o0) = get(&c.orig, "original", 0)?;
        let (i0, out_i0) = get(&c.inst, "instrumented", 0)?;
        let check = |a: &str, b: &str| {
            if !a.is_empty() && a == b {
                "same output"
            } else {
                "OUTPUT DIFFERS"
            }
        };
        let steady_o = os.program().saturating_sub(o0.program()) / u64::from(o.vg_steps.max(1));
        let steady_i = is.program().saturating_sub(i0.program()) / u64::from(o.vg_steps.max(1));
        let rows: [(&str, u64, u64, &str); 4] = [
            (
                "program, per step",
                steady_o,
                steady_i,
                check(&out_os, &out_is),
            ),
            (
                "program, whole run",
                os.program(),
                is.program(),
                check(&out_os, &out_is),
            ),
            (
                "program, STEPS=0",
                o0.program(),
                i0.program(),
                check(&out_o0, &out_i0),
            ),
            ("with MPI (noisy)", os.all, is.all, check(&out_os, &out_is)),
        ];
        for (part, a, b, chk) in rows {
            println!(
                "{:<10} {part:<22} {a:>15} {b:>15} {:>8.4}  {chk}",
                c.name,
                b as f64 / a.max(1) as f64
            );
        }
    }
    let csv_path = std::env::temp_dir().join("overhead-instructions.csv");
    std::fs::write(&csv_path, csv)?;
    println!("per-rank counts: {}\n", csv_path.display());
    Ok(())
}

/// One run of every rank under callgrind; returns summed counts, counts per output file, and
/// the last line of stdout.
fn callgrind_run(
    exe: &Path,
    np: u32,
    args: &[String],
    dir: &Path,
) -> Result<(Counts, BTreeMap<String, Counts>, String)> {
    let cg = dir.join("callgrind");
    if cg.exists() {
        std::fs::remove_dir_all(&cg)?;
    }
    std::fs::create_dir_all(&cg)?;
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        &np.to_string(),
    ]);
    c.args([
        "valgrind",
        "--tool=callgrind",
        "--separate-threads=yes",
        "--dump-instr=no",
    ]);
    c.arg(format!("--callgrind-out-file={}/cg.%p", cg.display()));
    c.arg(exe).args(args);
    c.env("AUGUR_TRACE_DIR", dir.join("traces"));
    let out = sh(&mut c)?;
    let mut total = Counts::default();
    let mut per_file = BTreeMap::new();
    let mut ranks = 0;
    for e in std::fs::read_dir(&cg)? {
        let path = e?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // thread 1 is the program's; Open MPI's helper threads are event-driven and timing-dependent
        if !name.ends_with("-01") {
            continue;
        }
        let k = parse_callgrind(&std::fs::read_to_string(&path)?)
            .with_context(|| path.display().to_string())?;
        total.all += k.all;
        total.mpi += k.mpi;
        per_file.insert(name, k);
        ranks += 1;
    }
    if ranks != np {
        bail!(
            "expected {np} callgrind main-thread files in {}, found {ranks}",
            cg.display()
        );
    }
    Ok((
        total,
        per_file,
        out.lines().last().unwrap_or("").trim().to_string(),
    ))
}

/// MPI routines whose instruction count depends on timing: they drive progress (and spin while
/// waiting), or set up/tear down the library. Local queries (`MPI_Comm_rank`, `MPI_Wtime`,
/// `MPI_Get_count`, ...) stay counted: the runtime calls some of them, part of its overhead.
/// Callgrind names the symbol by either alias (`MPI_X` or `PMPI_X`); `'2` marks recursion.
fn is_progress_call(name: &str) -> bool {
    let name = name.split('\'').next().unwrap_or(name);
    let Some(op) = name
        .strip_prefix("MPI_")
        .or_else(|| name.strip_prefix("PMPI_"))
    else {
        return false;
    };
    let op = op.to_ascii_lowercase();
    matches!(op.as_str(), "init" | "init_thread" | "finalize" | "abort")
        || [
            "send", "recv", "wait", "test", "probe", "barrier", "bcast", "reduce", "gather",
            "scatter", "alltoall", "scan",
        ]
        .iter()
        .any(|k| op.contains(k))
}

/// Reads a callgrind output file (one event, Ir): the file's total, and the inclusive cost of
/// every call into a progress routine from outside one (so nested calls count once).
fn parse_callgrind(text: &str) -> Result<Counts> {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    // "(12) name" defines id 12; "(12)" refers back to it
    let mut resolve = |spec: &str| -> String {
        let spec = spec.trim();
        if let Some(rest) = spec.strip_prefix('(') {
            if let Some((id, name)) = rest.split_once(')') {
                let name = name.trim();
                if name.is_empty() {
                    return names.get(id).cloned().unwrap_or_default();
                }
                names.insert(id.to_string(), name.to_string());
                return name.to_string();
            }
        }
        spec.to_string()
    };
    let (mut all, mut mpi) = (None, 0u64);
    let (mut caller, mut callee) = (String::new(), String::new());
    let mut call_cost_next = false;
    for line in text.lines() {
        if call_cost_next {
            call_cost_next = false;
            if is_progress_call(&callee) && !is_progress_call(&caller) {
                let cost = line
                    .split_whitespace()
                    .last()
                    .context("empty call cost line")?;
                mpi += cost
                    .parse::<u64>()
                    .with_context(|| format!("bad call cost line {line:?}"))?;
            }
            continue;
        }
        if let Some(v) = line.strip_prefix("fn=") {
            caller = resolve(v);
        } else if let Some(v) = line.strip_prefix("cfn=") {
            callee = resolve(v);
        } else if line.starts_with("calls=") {
            call_cost_next = true;
        } else if let Some(v) = line
            .strip_prefix("totals:")
            .or_else(|| line.strip_prefix("summary:"))
        {
            all = Some(
                v.split_whitespace()
                    .next()
                    .context("empty totals")?
                    .parse::<u64>()?,
            );
        }
    }
    let all = all.context("no totals: line")?;
    Ok(Counts { all, mpi })
}

// ------------------------------------------------------------------ wall time

fn wall_table(o: &Opts, cases: &[Case]) -> Result<()> {
    let args = [o.lambda.to_string(), o.steps.to_string()];
    let mut csv = String::from("case,rep,variant,wall_seconds,cpu_seconds\n");
    println!(
        "Wall/CPU time (NOISY on a shared machine), ATM2D, P={}, LAMBDA={}, STEPS={}, {} repetitions each (Open MPI, -O2)",
        o.np, o.lambda, o.steps, o.reps
    );
    println!(
        "{:<10} {:<5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}  check",
        "case", "time", "orig min", "orig med", "inst min", "inst med", "ratio min", "ratio med"
    );
    for c in cases {
        let traces = c.dir.join("traces");
        let (mut to, mut ti) = (Vec::new(), Vec::new());
        let (mut co, mut ci) = (Vec::new(), Vec::new());
        let (mut out_o, mut out_i) = (String::new(), String::new());
        // one warm-up each (page cache, shared-memory segments), not counted
        run(&c.orig, o.np, &args, &traces)?;
        run(&c.inst, o.np, &args, &traces)?;
        for r in 0..o.reps {
            let (t, cpu, out) = run(&c.orig, o.np, &args, &traces)?;
            csv.push_str(&format!("{},{r},original,{t:.6},{cpu:.2}\n", c.name));
            to.push(t);
            co.push(cpu);
            out_o = out;
            let (t, cpu, out) = run(&c.inst, o.np, &args, &traces)?;
            csv.push_str(&format!("{},{r},instrumented,{t:.6},{cpu:.2}\n", c.name));
            ti.push(t);
            ci.push(cpu);
            out_i = out;
        }
        let check = if !out_o.is_empty() && out_o == out_i {
            "same output"
        } else {
            "OUTPUT DIFFERS"
        };
        for (what, ov, iv) in [("wall", &mut to, &mut ti), ("cpu", &mut co, &mut ci)] {
            let (mo, medo) = min_med(ov);
            let (mi, medi) = min_med(iv);
            println!(
                "{:<10} {what:<5} {mo:>8.2}s {medo:>8.2}s {mi:>8.2}s {medi:>8.2}s {:>9.3} {:>9.3}  {check}",
                c.name,
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

/// User + system CPU seconds of this process's waited-for descendants (`/proc/self/stat`
/// fields 16 and 17, in clock ticks of 1/100 s on Linux).
fn children_cpu() -> Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let after = stat
        .rsplit_once(')')
        .map(|(_, a)| a)
        .context("bad /proc/self/stat")?;
    let f: Vec<&str> = after.split_whitespace().collect();
    // after the command name, field 3 (state) is index 0: cutime = field 16, cstime = 17
    let tick = |i: usize| -> Result<f64> {
        Ok(f.get(i).context("short /proc/self/stat")?.parse::<f64>()? / 100.0)
    };
    Ok(tick(13)? + tick(14)?)
}

/// One run under mpirun; returns wall seconds, CPU seconds and the last line of stdout.
fn run(exe: &Path, np: u32, args: &[String], traces: &Path) -> Result<(f64, f64, String)> {
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        &np.to_string(),
    ])
    .arg(exe)
    .args(args);
    c.env("AUGUR_TRACE_DIR", traces);
    let cpu = children_cpu()?;
    let t = Instant::now();
    let out = sh(&mut c)?;
    let secs = t.elapsed().as_secs_f64();
    let cpu = children_cpu()? - cpu;
    Ok((
        secs,
        cpu,
        out.lines().last().unwrap_or("").trim().to_string(),
    ))
}

// ------------------------------------------------------------------ builds

fn sh(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {cmd:?}"))?;
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
        sh(Command::new("mpicc")
            .args(["-O2", "-c"])
            .arg(bdir.join(f.name))
            .arg("-o")
            .arg(&obj))?;
        objs.push(obj);
    }
    let exe = dir.join("instrumented");
    let mut c = Command::new(compiler(fortran));
    c.arg("-O2");
    if fortran {
        c.args(augur_runtime::FORTRAN_FLAGS);
    }
    c.arg(format!("-I{}", bdir.display()))
        .arg("-o")
        .arg(&exe)
        .arg(&main)
        .args(&objs);
    if !fortran {
        c.arg("-lm");
    }
    sh(&mut c)?;
    Ok(exe)
}
