//! `augur profile`: instrument a program, build it with the MPI compiler wrappers, run every
//! configuration of a (parameters × rank counts) grid with per-rank tracing, and record each run
//! in `<prog>.augur/manifest.json`. Runs that fail or hang are recorded and the grid goes on;
//! configurations already recorded ok are skipped, so re-running resumes an interrupted profile.
//!
//! Layout of the run directory (default `./<prog>.augur`, or `--out DIR`):
//! `manifest.json`, `apt.json` (the APT whose site ids the traces use), `build/` (instrumented
//! sources, runtime, objects, executable, `build.log`), `runs/<config>/` (`rank-<r>.augt`,
//! `stdout.txt`, `stderr.txt`). Runs start in the current directory, so relative input files in
//! the program's arguments resolve as they would by hand. With `--repeat R` each configuration
//! runs R times (extra repetitions in `build/reps/`), every repetition's times go in its manifest
//! record, and `runs/<config>/` keeps the fastest one: a shared host's interference only ever
//! adds time, so the fastest repetition is the least disturbed.

mod build;
mod grid;
pub mod host;
pub mod instrument;
mod launch;
pub mod probe;
pub mod reach;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::source_opts::SourceOpts;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use trace::{Manifest, RunDir, RunRecord, RunStatus};

pub use launch::Launcher;

#[derive(Debug, Args)]
#[command(
    after_help = "ARGS are the program's arguments (the executable is the one augur builds). \
    {NAME} expands to a --param value, {P} to the rank count, {{ and }} to literal braces. \
    Without ARGS the parameter values are passed in the order the --param options were given. \
    Runs start in the current directory.\n\n\
    Run directory: manifest.json (one record per configuration: status ok | failed | timeout with \
    the reason, wall time, MPI, launcher command line, host, date), apt.json (the site ids the \
    traces use), build/ (instrumented sources, build.log), runs/<config>/ (rank-<r>.augt, \
    stdout.txt, stderr.txt). Configurations already recorded ok are skipped: re-running resumes.\n\n\
    --repeat R runs each configuration R times and keeps the traces of the fastest one \
    (by MPI_Init-to-end time: interference only adds time, so it is the least disturbed); every \
    repetition's times are in its manifest record.\n\n\
    Exit status: 0 every run ok, 1 some run failed or timed out, 2 usage, input or build error.\n\n\
    SOURCE…: every file of the program, the one holding the main program first; each is \
    instrumented and compiled, and all are linked together.\n\n\
    --stdin FILE: every rank's standard input (a copy per configuration with its placeholders \
    substituted when FILE holds any); under smpirun the ranks share one standard input.\n\n\
    Example: augur profile pge1.c --np 1,2,4 --param N=128,256 --param K=8 -- {N} {K}"
)]
pub struct ProfileArgs {
    /// The program's source files (C, fixed-form or free-form Fortran), the one holding the main
    /// program first: each is instrumented and compiled, and all are linked together
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<PathBuf>,
    #[command(flatten)]
    pub src: SourceOpts,
    /// Rank counts, comma-separated (repeatable)
    #[arg(long, required = true, value_name = "P,P,...")]
    pub np: Vec<String>,
    /// A problem parameter and its values, NAME=V1,V2,... (repeatable)
    #[arg(long, value_name = "NAME=V,...")]
    pub param: Vec<String>,
    /// mpirun (Open MPI: mpicc/mpif90) or smpirun (SimGrid SMPI: smpicc/smpiff/smpif90)
    #[arg(long, value_enum, default_value_t = Launcher::Mpirun)]
    pub launcher: Launcher,
    /// SMPI platform XML (default: a flat 4096-node cluster written to build/platform.xml)
    #[arg(long, value_name = "XML")]
    pub platform: Option<PathBuf>,
    /// Kill a run (launcher and every rank) after this long, recording it `timeout`: 60s, 500ms, 2m
    #[arg(long, default_value = "60s")]
    pub timeout: String,
    /// Run directory (default: ./<prog>.augur)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Discard runs recorded from another version of the source or another MPI, and rerun all
    #[arg(long)]
    pub force: bool,
    /// Run each configuration R times: the manifest records every repetition's times and
    /// runs/<config>/ keeps the traces of the fastest one (by MPI_Init-to-end time, what analysis
    /// measures: interference only adds time, so the fastest is the least disturbed)
    #[arg(long, default_value_t = 1, value_name = "R", value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Every rank's standard input: FILE, or for each configuration a copy of it with its
    /// {NAME} and {P} placeholders substituted when it holds any (a program that reads its sizes
    /// from stdin profiled over the grid)
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// Extra flags for every compile and link of the program (not the runtime's), split at
    /// whitespace, e.g. --cflags "-fopenmp" for MPI+OpenMP (recorded in the manifest)
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub cflags: Option<String>,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
    /// The program's arguments, with {NAME} and {P} placeholders
    #[arg(last = true, value_name = "ARGS")]
    pub args: Vec<String>,
}

impl ProfileArgs {
    /// The sources in canonical order (`sources::canonical`): the main one first.
    pub fn files(&self) -> Vec<PathBuf> {
        super::sources::canonical(&self.sources)
    }

    /// `--cflags` split at whitespace.
    pub fn cflags(&self) -> Vec<String> {
        self.cflags
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }

    /// The program's arguments with their placeholders, as run: ARGS, or without ARGS one
    /// `{NAME}` per `--param` in the order given.
    pub fn args_template(&self, params: &[grid::Param]) -> Vec<String> {
        if self.args.is_empty() {
            params.iter().map(|p| format!("{{{}}}", p.name)).collect()
        } else {
            self.args.clone()
        }
    }

    /// The main source, which names the program and its run directory.
    pub fn source(&self) -> &Path {
        self.sources
            .first()
            .map_or(Path::new("program"), |p| p.as_path())
    }
}

/// One line of the summary.
#[derive(Debug, Serialize)]
struct Row {
    config: String,
    /// `ok`, `failed`, `timeout`, or `skipped` (recorded ok by an earlier profile).
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    wall_seconds: f64,
    /// The kept repetition's time as analysis measures it (the traces' T: simulated under
    /// SMPI), where it ended ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_seconds: Option<f64>,
    /// Whether the run was simulated (T in simulated seconds).
    #[serde(skip)]
    simulated: bool,
    /// Every repetition's time as analysis measures it (the traces' T: simulated under SMPI),
    /// when there were several; the one kept is the fastest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    repetitions: Vec<f64>,
}

#[derive(Debug, Serialize)]
struct Summary {
    run_dir: String,
    program: String,
    mpi: String,
    runs: Vec<Row>,
    ok: usize,
    skipped: usize,
    failed: usize,
    timeout: usize,
}

pub fn run(args: ProfileArgs) -> Result<ExitCode> {
    // Every usage error surfaces before anything is built or run.
    let nps = grid::parse_np(&args.np)?;
    let params = args
        .param
        .iter()
        .map(|p| grid::parse_param(p))
        .collect::<Result<Vec<_>, _>>()?;
    let configs = grid::configs(&params, &nps)?;
    let timeout = grid::parse_duration(&args.timeout)?;
    let argvs = configs
        .iter()
        .map(|c| c.expand_args(&args.args))
        .collect::<Result<Vec<_>, _>>()?;
    if args.platform.is_some() && args.launcher != Launcher::Smpirun {
        bail!("--platform only applies to --launcher smpirun");
    }
    if args.launcher == Launcher::Smpirun {
        // smpirun is a shell script that word-splits the program's arguments.
        if let Some(a) = argvs
            .iter()
            .flatten()
            .find(|a| a.contains(char::is_whitespace) || a.is_empty())
        {
            bail!("argument `{a}`: smpirun splits arguments at whitespace and drops empty ones; pass it another way");
        }
    }
    let sources = super::sources::read_all(&args.files())?;
    let stdin = match &args.stdin {
        Some(p) => {
            let bytes = std::fs::read(p)
                .with_context(|| format!("--stdin: cannot read {}", p.display()))?;
            let abs = std::path::absolute(p)
                .with_context(|| format!("--stdin: bad path {}", p.display()))?;
            Some(StdinInput {
                record: trace::SourceRecord::new(p, &bytes),
                path: abs,
                text: String::from_utf8_lossy(&bytes).into_owned(),
            })
        }
        None => None,
    };
    if let (Some(input), Some(config)) = (&stdin, configs.first()) {
        for w in input.unknown_placeholders(config) {
            eprintln!("warning: {w}");
        }
    }

    let rd = run_dir(&args)?;
    let mut manifest = open_manifest(&rd, &args, &sources, stdin.as_ref())?;
    manifest.args = Some(args.args_template(&params));
    let mpi = launch::mpi_implementation(args.launcher).with_context(|| {
        format!(
            "`{}` not found or not runnable: install MPI (see ../shared/REFERENCE.md)",
            args.launcher.program()
        )
    })?;
    if !args.force {
        if let Some(other) = manifest
            .runs
            .iter()
            .find(|r| r.status.is_ok() && r.mpi != mpi)
        {
            bail!(
                "{}: run {} was recorded with {}, this profile uses {mpi}; use --force to discard the old runs or --out for another directory",
                rd.manifest_path().display(),
                other.config,
                other.mpi
            );
        }
    }
    rd.save_manifest(&manifest)?;

    let build_dir = rd.root().join("build");
    let prepared = instrument::prepare(&args)?;
    for w in &prepared.warnings {
        eprintln!("{w}");
    }
    let varying: Vec<(String, Vec<String>)> = params
        .iter()
        .filter(|p| p.values.len() > 1)
        .map(|p| {
            (
                p.name.clone(),
                p.values.iter().map(|(t, _)| t.clone()).collect(),
            )
        })
        .collect();
    let template = args.args_template(&params);
    let via = reach::Carriers {
        args: &template,
        stdin: stdin.as_ref().map(|s| s.text.as_str()),
    };
    for w in reach::warnings(&varying, via, &prepared.params) {
        eprintln!("warning: {w}");
    }
    trace::write_atomic(
        &rd.root().join(instrument::APT_FILE),
        prepared.apt_json.as_bytes(),
    )?;
    let exe = build::build(&prepared.input, args.launcher, &build_dir)?;
    let spec = launch_spec(&args, &build_dir)?;

    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    launch::install_interrupt_handler();
    let host = launch::host_name();
    let pb = progress(configs.len() as u64);
    if !args.json {
        // a closed stdout must not stop the runs: the manifest is the record
        let _ = writeln!(
            std::io::stdout().lock(),
            "{} ({mpi}): {}",
            manifest.program,
            rd.root().display()
        );
    }
    let mut rows = Vec::new();
    for (config, prog_args) in configs.iter().zip(&argvs) {
        let id = config.id();
        pb.set_message(id.clone());
        if manifest.is_done(&id) {
            let wall = manifest.run(&id).map_or(0.0, |r| r.wall_seconds);
            let row = Row {
                config: id,
                status: "skipped",
                reason: None,
                wall_seconds: wall,
                trace_seconds: None,
                simulated: false,
                repetitions: Vec::new(),
            };
            show_row(&pb, &row, args.json);
            rows.push(row);
            pb.inc(1);
            continue;
        }
        let argv = spec.argv(config.np, &exe, prog_args);
        let stdin_file = match &stdin {
            Some(s) => Some(s.for_config(config, &id, &build_dir)?),
            None => None,
        };
        let ctx = RunCtx {
            rd: &rd,
            cwd: &cwd,
            timeout,
            mpi: &mpi,
            host: &host,
            repeat: args.repeat,
            stdin: stdin_file.as_deref(),
            lines: &prepared.lines,
        };
        let record = run_config(&ctx, config, &id, argv)?;
        let (status, reason) = match &record.status {
            RunStatus::Ok => ("ok", None),
            RunStatus::Failed { reason } => ("failed", Some(reason.clone())),
            RunStatus::Timeout { reason } => ("timeout", Some(reason.clone())),
        };
        let row = Row {
            config: id,
            status,
            reason,
            wall_seconds: record.wall_seconds,
            trace_seconds: record
                .kept
                .and_then(|k| record.repetitions.get(k))
                .and_then(|r| r.trace_seconds),
            simulated: spec.launcher == launch::Launcher::Smpirun,
            repetitions: repetition_walls(&record),
        };
        show_row(&pb, &row, args.json);
        rows.push(row);
        manifest.upsert(record);
        rd.save_manifest(&manifest)?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    // what the markers cost: one configuration run as written (again unless every run was
    // already recorded and so was the check)
    if rows.iter().any(|r| r.status != "skipped") || manifest.probe.is_none() {
        let mut grid = Vec::new();
        for (config, prog_args) in configs.iter().zip(&argvs) {
            let id = config.id();
            let input = match &stdin {
                Some(s) => Some(s.for_config(config, &id, &build_dir)?),
                None => None,
            };
            grid.push((id, config.np, prog_args.clone(), input));
        }
        let check = probe::Check {
            plain: &prepared.plain,
            spec: &spec,
            build_dir: &build_dir,
            cwd: &cwd,
            timeout,
            repeat: args.repeat,
            configs: &grid,
        };
        match probe::check(&check, &manifest)? {
            Ok(p) => manifest.probe = Some(p),
            Err(why) => {
                eprintln!("note: what augur's markers cost was not measured: {why}");
                manifest.probe = None;
            }
        }
        rd.save_manifest(&manifest)?;
    }
    for w in probe::warnings(&manifest, None) {
        eprintln!("warning: {w}");
    }
    // over every recorded run, as analyze will see them
    for w in host::warnings(&manifest.runs) {
        eprintln!("warning: {w}");
    }

    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let summary = Summary {
        run_dir: rd.root().display().to_string(),
        program: manifest.program.clone(),
        mpi,
        ok: count("ok"),
        skipped: count("skipped"),
        failed: count("failed"),
        timeout: count("timeout"),
        runs: rows,
    };
    print_summary(&summary, args.json)?;
    Ok(if summary.failed + summary.timeout > 0 {
        ExitCode::from(super::EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}

/// The run directory as an absolute path (the launcher and the ranks run elsewhere).
fn run_dir(args: &ProfileArgs) -> Result<RunDir> {
    let root = match &args.out {
        Some(o) => o.clone(),
        None => RunDir::default_for(args.source(), None)
            .root()
            .to_path_buf(),
    };
    let root = std::path::absolute(&root)
        .with_context(|| format!("bad output directory {}", root.display()))?;
    Ok(RunDir::at(root))
}

/// The existing manifest if it was recorded from the same sources, a fresh one otherwise
/// (with `--force`; without, a changed source is an error so old and new runs never mix).
fn open_manifest(
    rd: &RunDir,
    args: &ProfileArgs,
    sources: &[(PathBuf, Vec<u8>)],
    stdin: Option<&StdinInput>,
) -> Result<Manifest> {
    let mut fresh = Manifest::for_sources(sources);
    fresh.stdin = stdin.map(|s| s.record.clone());
    fresh.options = Some(
        args.src
            .record(&args.cflags())
            .context("bad include directory")?,
    );
    let Some(old) = rd.load_manifest()? else {
        return Ok(fresh);
    };
    if old.same_inputs(&fresh) && !args.force {
        // the same options (none recorded counts as none given): recorded from now on
        return Ok(Manifest {
            options: fresh.options,
            ..old
        });
    }
    // with nothing recorded ok (an earlier profile stopped at the build, or every run failed)
    // there is nothing to mix up: replaced without --force, its runs removed as with it
    if old.runs.iter().any(|r| r.status.is_ok()) && !args.force {
        bail!(
            "{}: its runs were recorded from {}; use --force to discard them or --out for another directory",
            rd.manifest_path().display(),
            changed_inputs(&old, &fresh)
        );
    }
    let runs = rd.root().join(trace::run_dir::RUNS);
    if runs.exists() {
        std::fs::remove_dir_all(&runs)
            .with_context(|| format!("cannot remove {}", runs.display()))?;
    }
    Ok(fresh)
}

/// What differs between the inputs the runs were recorded from and today's, for the user.
fn changed_inputs(old: &Manifest, new: &Manifest) -> String {
    let (was, now) = (old.all_sources(), new.all_sources());
    if was.len() == 1 && now.len() == 1 && was[0].hash != now[0].hash {
        return format!(
            "a different version of {} ({} there, {} now)",
            now[0].path,
            short(&was[0].hash),
            short(&now[0].hash)
        );
    }
    let list = |v: &[trace::SourceRecord]| {
        v.iter()
            .map(|s| s.path.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let name = |p: &str| {
        Path::new(p)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let names = |v: &[trace::SourceRecord]| v.iter().map(|s| name(&s.path)).collect::<Vec<_>>();
    if names(&was) != names(&now) {
        return format!(
            "other source files ({} there, {} now)",
            list(&was),
            list(&now)
        );
    }
    let edited: Vec<String> = was
        .iter()
        .zip(&now)
        .filter(|(a, b)| a.hash != b.hash)
        .map(|(_, b)| b.path.clone())
        .collect();
    if !edited.is_empty() {
        return format!("a different version of {}", edited.join(", "));
    }
    if old.options.clone().unwrap_or_default() != new.options.clone().unwrap_or_default() {
        let text = |m: &Manifest| {
            let o = m.options.clone().unwrap_or_default();
            let mut t = super::source_opts::describe(&o);
            if !o.cflags.is_empty() {
                t = format!("{t} --cflags \"{}\"", o.cflags.join(" "))
                    .trim_start()
                    .to_string();
            }
            if t.is_empty() {
                "none".to_string()
            } else {
                t
            }
        };
        return format!(
            "other options (-D, -I, --form, --cflags: {} there, {} now)",
            text(old),
            text(new)
        );
    }
    let stdin = |m: &Manifest| {
        m.stdin
            .as_ref()
            .map_or("no --stdin".to_string(), |s| s.path.clone())
    };
    format!(
        "another standard input ({} there, {} now)",
        stdin(old),
        stdin(new)
    )
}

fn short(hash: &str) -> &str {
    hash.get(..19).unwrap_or(hash)
}

fn launch_spec(args: &ProfileArgs, build_dir: &Path) -> Result<launch::LaunchSpec> {
    let mut spec = launch::LaunchSpec {
        launcher: args.launcher,
        platform: None,
        hostfile: None,
        root: launch::running_as_root(),
    };
    if args.launcher == Launcher::Smpirun {
        let platform = match &args.platform {
            Some(p) => std::path::absolute(p)
                .with_context(|| format!("bad platform path {}", p.display()))?,
            None => {
                let p = build_dir.join("platform.xml");
                trace::write_atomic(&p, launch::DEFAULT_PLATFORM.as_bytes())?;
                p
            }
        };
        let xml = std::fs::read_to_string(&platform)
            .with_context(|| format!("cannot read platform {}", platform.display()))?;
        let hosts = launch::platform_hosts(&xml);
        if hosts.is_empty() {
            bail!(
                "{}: no <host> or <cluster> found in the platform",
                platform.display()
            );
        }
        let hostfile = build_dir.join("hosts.txt");
        let text: String = hosts.iter().map(|h| format!("{h}\n")).collect();
        trace::write_atomic(&hostfile, text.as_bytes())?;
        spec.platform = Some(platform);
        spec.hostfile = Some(hostfile);
    }
    Ok(spec)
}

/// What every run of one profile shares.
struct RunCtx<'a> {
    rd: &'a RunDir,
    cwd: &'a Path,
    timeout: Duration,
    mpi: &'a str,
    host: &'a str,
    repeat: u32,
    /// What every rank reads as standard input (`--stdin`), else /dev/null.
    stdin: Option<&'a Path>,
    /// Source lines of the instrumented copies' lines, for run-time errors naming them.
    lines: &'a instrument::SourceLines,
}

/// `--stdin FILE`: the template as read, and where it is.
struct StdinInput {
    record: trace::SourceRecord,
    path: PathBuf,
    text: String,
}

impl StdinInput {
    /// A warning for each `{NAME}` in the template the grid does not define (every
    /// configuration has the same names): it reaches the program as written.
    fn unknown_placeholders(&self, config: &grid::Config) -> Vec<String> {
        config
            .unknown_placeholders(&self.text)
            .into_iter()
            .map(|name| {
                format!(
                    "--stdin {}: `{{{name}}}` is not a grid parameter (known: {}), so the ranks read it as written; add --param {name}=… if it is one",
                    self.record.path,
                    config.known_placeholders()
                )
            })
            .collect()
    }

    /// The file the ranks of `config` read: the template itself, or when it holds placeholders
    /// of the grid a copy with them substituted, in `build/stdin/<config>.txt`.
    fn for_config(&self, config: &grid::Config, id: &str, build_dir: &Path) -> Result<PathBuf> {
        match config.substitute(&self.text) {
            None => Ok(self.path.clone()),
            Some(text) => {
                let p = build_dir.join("stdin").join(format!("{id}.txt"));
                if let Some(dir) = p.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                }
                trace::write_atomic(&p, text.as_bytes())?;
                Ok(p)
            }
        }
    }
}

/// How one execution of a configuration went.
struct RepOutcome {
    status: RunStatus,
    exit_code: Option<i32>,
    wall_seconds: f64,
    /// The slowest rank's MPI_Init-to-end time from the traces (ok executions only).
    trace_seconds: Option<f64>,
    /// The host's cores and load just before the launch.
    host: host::HostFacts,
}

/// Runs one configuration `ctx.repeat` times and leaves a clean `runs/<config>/` holding the
/// fastest repetition (or the first that failed, whose stderr explains it). Repetitions other than
/// the first run in `build/reps/<config>/rep-<k>/` and the kept one is renamed into place, so an
/// interrupted configuration never leaves a half-chosen `runs/<config>/`. Only I/O errors on
/// augur's own files are errors; everything the program does is recorded as the run's status.
fn run_config(
    ctx: &RunCtx<'_>,
    config: &grid::Config,
    id: &str,
    argv: Vec<String>,
) -> Result<RunRecord> {
    let final_dir = ctx.rd.run_path(id);
    remove_dir(&final_dir)?;
    let staging = ctx.rd.root().join("build").join("reps").join(id);
    remove_dir(&staging)?;
    let date = trace::now_rfc3339();
    let mut reps: Vec<(PathBuf, RepOutcome)> = Vec::new();
    for k in 0..ctx.repeat {
        let dir = if ctx.repeat == 1 {
            ctx.rd.create_run(id)?
        } else {
            let d = staging.join(format!("rep-{k}"));
            std::fs::create_dir_all(&d)
                .with_context(|| format!("cannot create {}", d.display()))?;
            d
        };
        let out = run_rep(ctx, config.np, &argv, &dir)?;
        let failed = !out.status.is_ok();
        reps.push((dir, out));
        if failed {
            break;
        }
    }
    let kept = match reps.last() {
        Some((_, last)) if !last.status.is_ok() => reps.len() - 1,
        _ => fastest_index(
            &reps
                .iter()
                .map(|(_, r)| r.trace_seconds.unwrap_or(r.wall_seconds))
                .collect::<Vec<_>>(),
        ),
    };
    let Some((kept_dir, _)) = reps.get(kept) else {
        bail!("no repetition of {id} ran (--repeat must be at least 1)");
    };
    if *kept_dir != final_dir {
        if let Some(parent) = final_dir.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::rename(kept_dir, &final_dir).with_context(|| {
            format!(
                "cannot move {} to {}",
                kept_dir.display(),
                final_dir.display()
            )
        })?;
        remove_dir(&staging)?;
    }
    let repetitions = reps
        .iter()
        .map(|(_, r)| trace::Repetition {
            wall_seconds: r.wall_seconds,
            trace_seconds: r.trace_seconds,
            load_average: r.host.load_average,
            busy_cores: r.host.busy_cores,
        })
        .collect();
    let Some((_, chosen)) = reps.into_iter().nth(kept) else {
        bail!("repetition {kept} of {id} vanished");
    };
    let mut status = chosen.status;
    if ctx.repeat > 1 {
        if let RunStatus::Failed { reason } | RunStatus::Timeout { reason } = &mut status {
            *reason = format!("repetition {} of {}: {reason}", kept + 1, ctx.repeat);
        }
    }
    Ok(RunRecord {
        config: id.to_string(),
        params: config.values(),
        np: config.np,
        mpi: ctx.mpi.to_string(),
        launcher: argv,
        host: ctx.host.to_string(),
        date,
        status,
        wall_seconds: chosen.wall_seconds,
        exit_code: chosen.exit_code,
        repetitions,
        kept: Some(kept),
        stdin: ctx.stdin.map(|p| p.display().to_string()),
        cores: chosen.host.cores,
        load_average: chosen.host.load_average,
        busy_cores: chosen.host.busy_cores,
        omp_num_threads: std::env::var("OMP_NUM_THREADS").ok(),
    })
}

/// The index of the least of `xs` (ties by position). On a shared host the others ran slower
/// because something else ran too (pipeline at P = 1: 47, 71 and 79 ms for the same work, whose
/// median came out 50% above its twin shift's).
fn fastest_index(xs: &[f64]) -> usize {
    (0..xs.len())
        .min_by(|&a, &b| xs[a].total_cmp(&xs[b]).then(a.cmp(&b)))
        .unwrap_or(0)
}

fn remove_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    Ok(())
}

/// Executes the launcher once with traces, stdout and stderr going to the empty directory `dir`.
fn run_rep(ctx: &RunCtx<'_>, np: u32, argv: &[String], dir: &Path) -> Result<RepOutcome> {
    let stdout = dir.join(trace::run_dir::STDOUT);
    let stderr = dir.join(trace::run_dir::STDERR);
    // Open MPI forwards the launcher's standard input to rank 0 only (its `--stdin all` hangs
    // in 4.1); the tracer opens AUGUR_STDIN as the other ranks' standard input at MPI_Init.
    // Under SMPI the ranks are threads of one process and share the launcher's.
    let mut env: Vec<(&str, &Path)> = vec![("AUGUR_TRACE_DIR", dir)];
    // natively, the other work on the host just before the run (under SMPI the host's load
    // changes no simulated time this rule could judge)
    let host = host::sample(!ctx.mpi.starts_with("SimGrid"));
    if let Some(input) = ctx.stdin {
        env.push(("AUGUR_STDIN", input));
    }
    let (outcome, took) = launch::run_captured(
        argv,
        &env,
        ctx.cwd,
        ctx.stdin,
        &stdout,
        &stderr,
        ctx.timeout,
    )
    .with_context(|| {
        format!(
            "cannot start `{}`",
            argv.first().map(String::as_str).unwrap_or("")
        )
    })?;
    let (status, exit_code, trace_seconds) = match outcome {
        launch::Outcome::TimedOut => {
            let mut reason = format!(
                "killed after the {} s timeout (deadlock, or raise --timeout)",
                fmt_secs(ctx.timeout)
            );
            if let Some(l) = launch::last_line(&stderr) {
                reason.push_str(&format!("; last stderr line: {l}"));
            }
            (RunStatus::Timeout { reason }, None, None)
        }
        launch::Outcome::Exited(st) if st.success() => {
            let (status, t) = check_traces(dir, np, &stderr);
            (status, st.code(), t)
        }
        launch::Outcome::Exited(st) => (
            RunStatus::Failed {
                reason: launch::failure_reason(&st, &stderr),
            },
            st.code(),
            None,
        ),
    };
    let status = match (status, launch::read_past_input(&stderr)) {
        (RunStatus::Failed { reason }, Some(line)) => RunStatus::Failed {
            reason: end_of_input_reason(&reason, &line, ctx.stdin),
        },
        (RunStatus::Failed { reason }, None) => RunStatus::Failed {
            reason: with_error_line(reason, &stderr, ctx.lines),
        },
        (s, _) => s,
    };
    Ok(RepOutcome {
        status,
        exit_code,
        wall_seconds: round_ms(took.as_secs_f64()),
        trace_seconds: trace_seconds.map(|t| (t * 1e6).round() / 1e6),
        host,
    })
}

/// A failed run's reason with the source line of the run-time error its stderr locates in the
/// instrumented copy (`… Bad integer for item 2 in list input (at rbsor.f:18)`), or the copy's
/// file and line when the copy's lines are not known.
fn with_error_line(reason: String, stderr: &Path, lines: &instrument::SourceLines) -> String {
    match launch::runtime_error_at(stderr) {
        Some((file, line)) => match lines.source_line(&file, line) {
            Some(at) => format!("{reason} (at {at})"),
            None => format!("{reason} (at line {line} of {file})"),
        },
        None => reason,
    }
}

/// The reason of a run that failed reading past the end of its standard input: which input it
/// had, and what to do.
fn end_of_input_reason(reason: &str, line: &str, stdin: Option<&Path>) -> String {
    match stdin {
        None => format!(
            "{reason} ({line}): the program reads its standard input, which is empty in profile runs: give the input with --stdin FILE ({{N}}, {{P}} … in FILE are substituted per run)"
        ),
        Some(p) => format!(
            "{reason} ({line}): the program read past the end of its standard input ({}), which holds fewer values than it reads",
            p.display()
        ),
    }
}

fn round_ms(s: f64) -> f64 {
    (s * 1e3).round() / 1e3
}

/// A run that exited 0 is ok only if every rank left a readable trace; then also the time
/// analysis measures from it (`model::observe`: the slowest rank's MPI_Init to end of trace).
/// Otherwise the program's stderr says why, when it can: smpirun exits 0 after MPI_Abort, and
/// the traces then merely end early.
fn check_traces(dir: &Path, np: u32, stderr: &Path) -> (RunStatus, Option<f64>) {
    let symptom = match trace::read_run(dir) {
        Ok(t) if t.len() == np as usize => {
            let time = t
                .iter()
                .map(|r| model::observe::rank_obs(r).elapsed)
                .fold(0.0, f64::max);
            return (RunStatus::Ok, Some(time));
        }
        Ok(t) => format!("{} of {np} ranks wrote a trace", t.len()),
        Err(e) => format!("the traces are unreadable: {e}"),
    };
    (
        RunStatus::Failed {
            reason: unreadable_reason(&symptom, &launch::stderr_tail(stderr)),
        },
        None,
    )
}

/// The reason recorded for a run that exited 0 with traces missing or cut short (`symptom`).
/// An MPI_Abort is told before a deadlock: SimGrid kills the aborting rank, and a peer left
/// waiting for it may then be found deadlocked (CI, stop 25: the abort test read "deadlocked"
/// when SimGrid's deadlock check ran before the abort ended the simulation).
fn unreadable_reason(symptom: &str, tail: &launch::StderrTail) -> String {
    let last = |sep: &str| {
        tail.last
            .as_ref()
            .map(|l| format!("{sep}{l}"))
            .unwrap_or_default()
    };
    if tail.aborted {
        // the traces' symptom (a truncated file) only restates the abort
        return format!("MPI_Abort was called{}", last(": "));
    }
    if tail.deadlocked {
        return format!(
            "SimGrid found the ranks deadlocked and stopped the simulation (smpirun exits 0), so {symptom}{}",
            last("; last stderr line: ")
        );
    }
    format!("exited 0 but {symptom}{}", last("; last stderr line: "))
}

/// A record's repetitions' times as the kept one was chosen by (the traces' T, their wall
/// time where a repetition has none), when it has more than one. Trial 12: the wall times
/// printed did not show why a repetition was kept, and under SMPI say nothing of its T.
fn repetition_walls(r: &RunRecord) -> Vec<f64> {
    if r.repetitions.len() > 1 {
        r.repetitions
            .iter()
            .map(|x| x.trace_seconds.unwrap_or(x.wall_seconds))
            .collect()
    } else {
        Vec::new()
    }
}

fn fmt_repetitions(times: &[f64]) -> String {
    if times.is_empty() {
        return String::new();
    }
    let list: Vec<String> = times.iter().map(|w| format!("{w:.4e}")).collect();
    format!(
        "  (repetitions' traced T {} s; the fastest kept)",
        list.join(" ")
    )
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

fn progress(len: u64) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
    {
        pb.set_style(style);
    }
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// One run's line, printed as the run finishes (the summary at the end only counts them, so
/// each line appears once): on stdout, above the progress bar; with `--json` stdout holds only
/// the JSON summary and the line goes to stderr as progress.
fn show_row(pb: &ProgressBar, r: &Row, json: bool) {
    // the launcher's wall time, then T as analysis reads it (trial 21: under SMPI the wall
    // time alone, 1.64 s, stood where the model's T is 0.109 simulated seconds)
    let traced = match (r.trace_seconds, r.repetitions.is_empty()) {
        (Some(t), true) => format!(
            ", T {t:.4e} s{}",
            if r.simulated { " simulated" } else { " traced" }
        ),
        _ => String::new(),
    };
    let line = format!(
        "  {:<8} {:<28} {:>8.2} s wall{traced}{}{}",
        r.status,
        r.config,
        r.wall_seconds,
        fmt_repetitions(&r.repetitions),
        r.reason
            .as_deref()
            .map(|x| format!("  {x}"))
            .unwrap_or_default()
    );
    if json {
        if pb.is_hidden() {
            eprintln!("{line}");
        } else {
            pb.println(line);
        }
    } else {
        pb.suspend(|| {
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        });
    }
}

fn print_summary(s: &Summary, json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, s)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} ok, {} skipped, {} failed, {} timed out",
        s.ok, s.skipped, s.failed, s.timeout
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail(aborted: bool, deadlocked: bool) -> launch::StderrTail {
        launch::StderrTail {
            aborted,
            deadlocked,
            last: Some("rank 1 gives up".into()),
        }
    }

    #[test]
    fn an_abort_is_told_before_the_deadlock_it_left() {
        let symptom = "the traces are unreadable: truncated trace";
        assert_eq!(
            unreadable_reason(symptom, &tail(true, true)),
            "MPI_Abort was called: rank 1 gives up"
        );
        let dead = unreadable_reason(symptom, &tail(false, true));
        assert!(
            dead.starts_with("SimGrid found the ranks deadlocked")
                && dead.ends_with("truncated trace; last stderr line: rank 1 gives up"),
            "{dead}"
        );
        assert_eq!(
            unreadable_reason(symptom, &tail(false, false)),
            "exited 0 but the traces are unreadable: truncated trace; last stderr line: rank 1 gives up"
        );
    }
}
