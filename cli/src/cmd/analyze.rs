//! `augur analyze SOURCE --runs DIR`: the closed-form T(N, P, …) of a program from its recorded
//! runs, with per-phase breakdown, fitted computation costs, fit quality, leave-one-out
//! validation and warnings; writes `DIR/model.json` for `augur predict`.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use model::machine::Machine;
use model::{AnalyzeOptions, ModelFile};
use symbolic::Expr;

use super::source_opts::SourceOpts;
use super::sources;

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The program's C or Fortran sources (those `augur profile` ran), the one holding the main
    /// program first
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<PathBuf>,
    /// Run directory written by `augur profile` (holds manifest.json)
    #[arg(long, value_name = "DIR")]
    pub runs: PathBuf,
    /// Machine data sheet (JSON from `augur characterize`, or a shipped name: this-openmpi-shm,
    /// smpi-reference, paragon); default: the one matching the runs
    #[arg(long, value_name = "FILE")]
    pub machine: Option<String>,
    /// Leave the host's detours out of T (the sheet's `noise`: what a step that synchronises P
    /// ranks waits for beyond their computation), as on a machine without them
    #[arg(long)]
    pub no_noise: bool,
    #[command(flatten)]
    pub src: SourceOpts,
    /// Names of the command-line arguments in order (default: from DIR/apt.json)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub args: Vec<String>,
    /// Print the model file as JSON
    #[arg(long, conflicts_with_all = ["latex", "python"])]
    pub json: bool,
    /// Print T as LaTeX
    #[arg(long, conflicts_with = "python")]
    pub latex: bool,
    /// Print T as a Python (sympy) expression
    #[arg(long)]
    pub python: bool,
}

/// argv names in order, from the APT the profile run saved.
fn saved_arg_names(dir: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.join("apt.json")) else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut named: Vec<(u64, String)> = v["params"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|p| p["origin"]["kind"] == "argv")
                .flat_map(|p| {
                    // `{N} {N}`: one parameter named by several arguments
                    let also = p["also_argv"].as_array().cloned().unwrap_or_default();
                    let name = p["name"].as_str().map(str::to_string);
                    std::iter::once(p["origin"]["index"].as_u64())
                        .chain(also.iter().map(|i| i.as_u64()))
                        .filter_map(move |i| Some((i?, name.clone()?)))
                        .collect::<Vec<_>>()
                })
                .collect()
        })
        .unwrap_or_default();
    named.sort();
    let mut out = Vec::new();
    for (i, n) in named {
        while (out.len() as u64) + 1 < i {
            out.push(format!("ARG{}", out.len() + 1));
        }
        out.push(n);
    }
    out
}

pub fn load_machine(spec: Option<&str>, simulated: bool) -> Result<Machine> {
    let name = spec.unwrap_or(if simulated {
        "smpi-reference"
    } else {
        "this-openmpi-shm"
    });
    if let Some(m) = Machine::builtin(name) {
        return m.with_context(|| format!("builtin machine {name}"));
    }
    Machine::load(Path::new(name)).with_context(|| format!("cannot load machine data sheet {name}"))
}

pub fn run(args: AnalyzeArgs) -> Result<ExitCode> {
    // errors reading the manifest are reported by `load_runs` below
    let recorded = trace::RunDir::at(&args.runs).load_manifest().ok().flatten();
    // the sources are read as profile read them (`-D`, `-I`, `--form`), unless given here
    let (src, mut option_warnings) = match recorded.as_ref().and_then(|m| m.options.as_ref()) {
        Some(o) => args.src.with_recorded(o),
        None => (args.src.clone(), Vec::new()),
    };
    if let Some(o) = recorded.as_ref().and_then(|m| m.options.as_ref()) {
        let applied = super::source_opts::describe(o);
        // said before anything can fail: a mismatch below is explained by them
        for w in &option_warnings {
            eprintln!("warning: {w}");
        }
        if !applied.is_empty() && option_warnings.is_empty() {
            eprintln!(
                "note: reading the sources with {applied}, as {} records",
                args.runs.join(trace::run_dir::MANIFEST).display()
            );
        }
    }
    let fopts = src.frontend_options();
    let arg_names = if args.args.is_empty() {
        saved_arg_names(&args.runs)
    } else {
        args.args.clone()
    };
    let mut files = sources::canonical(&args.sources);
    // the order profile numbered the sites in
    if let Some(m) = &recorded {
        let recorded: Vec<String> = m.all_sources().into_iter().map(|s| s.path).collect();
        files = sources::in_recorded_order(files, &recorded);
    }
    // the grids MPI_Dims_create made in the runs: their library's
    let dims_rule = recorded
        .as_ref()
        .and_then(|m| m.runs.iter().find(|r| !r.mpi.is_empty()))
        .map_or_else(Default::default, |r| symbolic::DimsRule::of_library(&r.mpi));
    // the values read from standard input, named as profile named them
    let stdin_names = recorded
        .as_ref()
        .and_then(|m| stdin_template(m, &args.runs))
        .and_then(Result::ok)
        .map(|t| super::profile::reach::stdin_names(&t))
        .unwrap_or_default();
    let opts = apt::AptOptions {
        arg_names,
        stdin_names,
        dims_rule,
    };
    let (lowered, tree) = sources::load(&files, &fopts, &opts)?;
    // as `profile` does: a model of a program the parser misread would be wrong
    for d in &lowered.diagnostics {
        if d.severity == frontend::Severity::Error {
            eprint!(
                "{}",
                frontend::diagnostic::render_human(d, &lowered.sources)
            );
        }
    }
    if lowered.has_errors() {
        bail!(
            "{}: the source has errors (above); fix them before analysing",
            sources::names(&files)
        );
    }
    let Some(main) = lowered.program.main_proc().map(|p| p.name.clone()) else {
        bail!(
            "{}: no main program (C `main` or Fortran `program`) to model",
            sources::names(&files)
        );
    };
    let (manifest, mut runs, mut warnings) = model::observe::load_runs(&args.runs)
        .with_context(|| format!("cannot read the runs in {}", args.runs.display()))?;
    // a parameter nothing carried to the program is no parameter of T (trial 12: T(N, P,
    // STEPS) from runs that all ran 10 steps, "errors grow with STEPS")
    for name in never_carried(&manifest, &args.runs) {
        for r in &mut runs {
            r.params.remove(&name);
        }
        warnings.push(format!(
            "{name} is left out of T: no {{{name}}} in the program's arguments or --stdin template carried it, so every run had the same input, and runs that differ only in their {name} label are repeats of one configuration"
        ));
    }
    let read = sources::read_all(&files)?;
    let read_with = ReadWith {
        options: &src,
        overridden: !option_warnings.is_empty(),
    };
    let mut source_warnings = check_source(&manifest, &read, &tree, &args.runs, &read_with)?;

    // the calls the APT cannot follow, once: communication inside them is not modelled
    source_warnings.extend(apt::externals::warnings(&lowered));
    for w in &source_warnings {
        eprintln!("warning: {w}");
    }
    source_warnings.splice(0..0, option_warnings.drain(..));
    // what the model cannot see (untraced MPI, jumps, computing library calls) and the host
    // facts that make native timings suspect: read before the fit's own diagnosis
    source_warnings.extend(apt::limits::warnings(&lowered, &tree));
    source_warnings.extend(untraced(&lowered, &tree, fopts.form, &files));
    source_warnings.extend(timing_dependent(&lowered));
    source_warnings.extend(parameter_reach(&manifest, &args.runs, &tree));
    let host = super::profile::host::warnings(&manifest.runs);
    let host_disturbed = !host.is_empty();
    source_warnings.extend(host);
    // the markers' check is read against the model (below): its place among the warnings
    let probe_at = source_warnings.len();
    source_warnings.append(&mut warnings);
    let mut warnings = source_warnings;
    let simulated = runs.iter().any(|r| r.smpi);
    let mut machine = load_machine(args.machine.as_deref(), simulated)?;
    if args.no_noise {
        machine.noise = None;
    }
    // only a sheet asked for can be another machine's: the default one is the runs' kind's,
    // whatever the host is called
    let what_if = args
        .machine
        .as_ref()
        .and_then(|_| what_if(&machine, &manifest.runs, simulated));
    let runs_machine = match &what_if {
        Some(_) => {
            let mut own = load_machine(None, simulated)?;
            if args.no_noise {
                own.noise = None;
            }
            Some(own)
        }
        None => None,
    };
    // said wherever T is evaluated (`predict` repeats the cautions)
    let what_if_caution = what_if.as_ref().map(|on| {
        format!(
            "a what-if: T costs communication with {}'s sheet, and computation as the runs on {on} measured it",
            machine.name
        )
    });
    let mut m = model::analyze(
        &tree,
        &main,
        &manifest.program,
        &runs,
        &machine,
        &AnalyzeOptions {
            host_disturbed,
            what_if: what_if.clone(),
            runs_machine,
            ..AnalyzeOptions::default()
        },
    );
    // T at the markers' check's configuration, where that run is an outlier of the fit
    let probe_fit = manifest
        .probe
        .as_ref()
        .and_then(|p| outlier_fit(&m.validation, &p.config));
    let probe = super::profile::probe::warnings(&manifest, probe_fit);
    warnings.splice(probe_at..probe_at, probe);
    warnings.append(&mut m.warnings);
    // each once, in order (trial 21: "the model misses its runs …" printed twice)
    let mut seen = std::collections::BTreeSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    m.warnings = warnings;
    m.cautions = super::profile::probe::cautions(&manifest, probe_fit);
    m.cautions.extend(what_if_caution);
    let out_path = args.runs.join("model.json");
    m.save(&out_path)
        .with_context(|| format!("cannot write {}", out_path.display()))?;

    let mut out = std::io::stdout().lock();
    if args.json {
        out.write_all(m.to_json().as_bytes())?;
    } else if args.latex {
        // one aligned block: T broken into lines, then each step or clamp named in the
        // text form, typeset
        out.write_all(m.t.readable().latex(&m.t, "T").as_bytes())?;
    } else if args.python {
        // a script: sympy, the definitions it needs (`dims`) and the symbols, then the
        // assignments, each name before its first use
        let (t, defs) = m.t.readable().named(&m.t);
        let exprs: Vec<&Expr> = std::iter::once(&t)
            .chain(defs.iter().map(|(_, d)| d))
            .collect();
        let names: Vec<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
        out.write_all(super::expr::python_preamble(&exprs, &names, true).as_bytes())?;
        for (name, def) in &defs {
            writeln!(out, "{name} = {}", def.to_python())?;
        }
        writeln!(out, "T = {}", t.to_python())?;
    } else {
        write_human(&mut out, &m)?;
        writeln!(out, "\nwrote {}", out_path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What the traces lack, from the same instrumentation `profile` made (its codegen notes):
/// MPI calls without a runtime wrapper, with what becomes of their time, and the other notes
/// (loops or branches left unmarked) as they are.
/// One warning naming the calls whose matching or completion order depends on timing (a
/// wildcard source, MPI_Waitany/some): the traced runs fixed one order, and T charges that
/// one (trial 15: a task farm's LOO misses of 65% blamed on noise, the wildcard unnamed).
fn timing_dependent(lowered: &frontend::Lowered) -> Vec<String> {
    let at: Vec<String> = lowered
        .diagnostics
        .iter()
        .filter(|d| d.code == frontend::diagnostic::codes::NONDETERMINISTIC)
        .filter_map(|d| {
            let l = d.labels.iter().find(|l| l.primary)?;
            let file = lowered
                .sources
                .path(l.span.file)
                .and_then(Path::file_name)
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            let what = d.message.split('`').nth(1).unwrap_or("call");
            Some(format!(
                "{what} at {file}:{}",
                lowered.sources.first_line(l.span)
            ))
        })
        .collect();
    if at.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "message matching or completion depends on timing ({}): the traced runs fixed one order, and T charges what they did; a run in another order may differ by more than the band",
        at.join(", ")
    )]
}

/// What the runs were measured on, where `machine`'s sheet (given with `--machine`) is
/// another's (a what-if): a sheet built from published figures, one measured on another host,
/// or under SMPI for native runs and the other way round.
fn what_if(machine: &Machine, runs: &[trace::RunRecord], simulated: bool) -> Option<String> {
    let m = &machine.measured;
    let run = runs.iter().find(|r| r.status.is_ok()).or(runs.first())?;
    let sheet_smpi = m.mpi.contains("SMPI") || m.launcher.contains("SimGrid");
    let other = m.source == model::machine::Source::HandBuilt
        || sheet_smpi != simulated
        || (!simulated && m.host != run.host);
    other.then(|| {
        if simulated {
            format!("{} (simulated)", run.mpi)
        } else {
            format!("{} under {}", run.host, run.mpi)
        }
    })
}

/// The model's T at run `config` where that run lies above it as an outlier: its excess over
/// the fit above 10% and above twice the median of at least three other runs' (absolute). A
/// run slowed by the host is such an outlier; the markers' own cost is not, as every run pays
/// it (and where the model leaves that cost out, as a model of one run may, every run lies
/// above it alike).
fn outlier_fit(rows: &[model::analysis::Validation], config: &str) -> Option<f64> {
    let excess = |v: &model::analysis::Validation| (v.measured - v.fitted) / v.fitted;
    let me = rows.iter().find(|v| v.config == config)?;
    let mut others: Vec<f64> = rows
        .iter()
        .filter(|v| v.config != config && v.fitted > 0.0)
        .map(|v| excess(v).abs())
        .filter(|x| x.is_finite())
        .collect();
    if others.len() < 3 || me.fitted <= 0.0 {
        return None;
    }
    others.sort_by(f64::total_cmp);
    let median = others[others.len() / 2];
    let e = excess(me);
    // only a model that fits the other runs is read over a run (trial 29: a model that missed
    // its runs by 62% on average, T 2.8e-3 s where the traced run took 1.0e-2 s, had "the
    // instrumented program ran faster than the program as written")
    (e > 0.1 && e > 2.0 * median && median <= 0.1).then_some(me.fitted)
}

fn untraced(
    lowered: &frontend::Lowered,
    tree: &apt::Apt,
    form: frontend::Form,
    files: &[PathBuf],
) -> Vec<String> {
    let main = files.first().map_or(Path::new("program"), PathBuf::as_path);
    let Ok(inst) = super::profile::instrument::instrument(lowered, tree, form) else {
        // profile could not have instrumented it either; its runs say what they recorded
        return Vec::new();
    };
    let (mpi, other): (Vec<&codegen::Note>, Vec<&codegen::Note>) = inst
        .notes
        .iter()
        .partition(|n| n.message.contains("has no runtime wrapper"));
    let text = |n: &codegen::Note| super::profile::instrument::note_text(lowered, n, main);
    let mut out = Vec::new();
    if !mpi.is_empty() {
        let list: Vec<String> = mpi
            .iter()
            .map(|n| {
                let t = text(n);
                // `file:line:col: `MPI_X` has no …` → `file:line:col (MPI_X)`
                match (t.split_once(": `"), n.message.split('`').nth(1)) {
                    (Some((at, _)), Some(name)) => format!("{name} at {at}"),
                    _ => t,
                }
            })
            .collect();
        out.push(format!(
            "MPI calls augur's tracer does not wrap, so the traces do not record them: {}; their time lands in whatever computation phase or residual (overhead) term surrounds them, and their communication is in no phase of the model (a misfit that grows with P may be theirs)",
            list.join(", ")
        ));
    }
    if !other.is_empty() {
        let list: Vec<String> = other.iter().map(|n| text(n)).collect();
        out.push(format!(
            "the instrumentation could not mark everything, so the traces lack: {}",
            list.join("; ")
        ));
    }
    out
}

/// The `--stdin` template the runs were profiled with (`None` without one): its recorded path
/// as given to `profile` (relative to where it ran), else beside the runs directory.
fn stdin_template(manifest: &trace::Manifest, runs: &Path) -> Option<std::io::Result<String>> {
    let s = manifest.stdin.as_ref()?;
    let given = Path::new(&s.path);
    Some(std::fs::read_to_string(given).or_else(|e| {
        match runs.parent().filter(|_| given.is_relative()) {
            Some(dir) => std::fs::read_to_string(dir.join(given)).map_err(|_| e),
            None => Err(e),
        }
    }))
}

/// What carried the parameters to the program as `profile` ran it: its arguments and the
/// `--stdin` template. `None` for a manifest without the arguments, or when the template moved
/// (it may carry any parameter, so nothing is said rather than guessed).
fn recorded_carriers(
    manifest: &trace::Manifest,
    runs: &Path,
) -> Option<(Vec<String>, Option<String>)> {
    let args = manifest.args.clone()?;
    let stdin = match stdin_template(manifest, runs) {
        None => None,
        Some(Ok(text)) => Some(text),
        Some(Err(_)) => return None,
    };
    Some((args, stdin))
}

/// The parameters the runs vary that nothing carried to the program ([`uncarried`]).
///
/// [`uncarried`]: super::profile::reach::uncarried
fn never_carried(manifest: &trace::Manifest, runs: &Path) -> Vec<String> {
    let Some((args, stdin)) = recorded_carriers(manifest, runs) else {
        return Vec::new();
    };
    super::profile::reach::uncarried(
        &super::profile::reach::varying(&manifest.runs),
        super::profile::reach::Carriers {
            args: &args,
            stdin: stdin.as_deref(),
        },
    )
}

/// `profile`'s check that each parameter the runs vary reaches the program, over the runs
/// recorded.
fn parameter_reach(manifest: &trace::Manifest, runs: &Path, tree: &apt::Apt) -> Vec<String> {
    let Some((args, stdin)) = recorded_carriers(manifest, runs) else {
        return Vec::new();
    };
    super::profile::reach::warnings(
        &super::profile::reach::varying(&manifest.runs),
        super::profile::reach::Carriers {
            args: &args,
            stdin: stdin.as_deref(),
        },
        &tree.params,
    )
}

/// How analyze read the sources: the options, and whether the command line overrode the
/// recorded ones.
struct ReadWith<'a> {
    options: &'a SourceOpts,
    overridden: bool,
}

/// Whether `files` (path, bytes; the main one first) are the program the runs in `dir` were
/// recorded from. Another program (by name or language), or a different set of files, is an
/// error; the same files edited since are a warning each (returned), and one more when the
/// sites no longer line up with the ones the traces use (`dir/apt.json`).
fn check_source(
    manifest: &trace::Manifest,
    files: &[(PathBuf, Vec<u8>)],
    tree: &apt::Apt,
    dir: &Path,
    read_with: &ReadWith<'_>,
) -> Result<Vec<String>> {
    let Some((source, _)) = files.first() else {
        bail!("no source given");
    };
    // the manifest's paths are as given to `profile` (often relative to another directory):
    // only file names are compared
    let name = |p: &str| -> String {
        let p = Path::new(p);
        p.file_name()
            .unwrap_or(p.as_os_str())
            .to_string_lossy()
            .into_owned()
    };
    let given_name = |p: &Path| name(&p.to_string_lossy());
    let program = trace::run_dir::program_name(source);
    if program != manifest.program || name(&manifest.source) != given_name(source) {
        bail!(
            "{}: the runs in {} are of program `{}` (recorded from {}), not of {}; give that program's source, or profile this one into another directory",
            source.display(),
            dir.display(),
            manifest.program,
            manifest.source,
            given_name(source)
        );
    }
    let recorded = manifest.all_sources();
    let recorded_names: Vec<String> = recorded.iter().map(|r| name(&r.path)).collect();
    let missing: Vec<&String> = recorded_names
        .iter()
        .filter(|r| !files.iter().any(|(p, _)| given_name(p) == **r))
        .collect();
    let extra: Vec<String> = files
        .iter()
        .map(|(p, _)| given_name(p))
        .filter(|g| !recorded_names.contains(g))
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        let mut what = Vec::new();
        if !missing.is_empty() {
            what.push(format!(
                "{} not given",
                missing
                    .iter()
                    .map(|m| m.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !extra.is_empty() {
            what.push(format!("{} not profiled", extra.join(", ")));
        }
        bail!(
            "the runs in {} were recorded from {} ({}): give the same source files, or profile these into another directory",
            dir.display(),
            recorded
                .iter()
                .map(|r| r.path.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            what.join("; ")
        );
    }
    let mut warnings = Vec::new();
    let mut edited = false;
    for (path, bytes) in files {
        let Some(rec) = recorded.iter().find(|r| name(&r.path) == given_name(path)) else {
            continue;
        };
        let hash = trace::source_hash(bytes);
        if hash != rec.hash {
            edited = true;
            warnings.push(format!(
                "{} has changed since it was profiled ({} when traced, {} now): the model describes the source as traced; re-run `augur profile` (with --force) to model this version",
                path.display(),
                short_hash(&rec.hash),
                short_hash(&hash)
            ));
        }
    }
    // compared even for an unchanged source: another augur version may number its sites
    // differently (a construct it now sees as a loop), and the traces carry the old ids
    let saved = std::fs::read_to_string(dir.join("apt.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    if let Some(saved) = saved {
        let now = apt::render::to_json(tree);
        if site_shape(&saved) != site_shape(&now) {
            let recorded = manifest
                .options
                .as_ref()
                .map(super::source_opts::describe)
                .unwrap_or_default();
            let recorded = if recorded.is_empty() {
                "no -D, -I or --form".to_string()
            } else {
                recorded
            };
            let now_opts = {
                let o = read_with.options.record(&[]).unwrap_or_default();
                let t = super::source_opts::describe(&o);
                if t.is_empty() {
                    "none".to_string()
                } else {
                    t
                }
            };
            let why = if read_with.overridden {
                format!(
                    "the runs were profiled with {recorded}, and the options given here ({now_opts}) make another program of the sources: leave them out (analyze reads the sources as profiled) or give the profile's"
                )
            } else if edited {
                "loops, branches, calls or communication were added, removed or moved since the profile: analyze the source as profiled, or re-run `augur profile --force` to model this version".to_string()
            } else if manifest.options.is_none() {
                format!(
                    "the source is unchanged, and the manifest does not record the profile's -D, -I or --form (it predates their recording): pass the ones the profile was given (here: {now_opts}); if it was given the same, this augur numbers its sites differently from the one that profiled it: re-run `augur profile --force`"
                )
            } else {
                format!(
                    "the source and its options ({recorded}, as recorded) are unchanged, so this augur numbers its sites differently from the one that profiled it: re-run `augur profile --force`"
                )
            };
            bail!(
                "the site ids of {} do not match the traces' ({}), so measured costs would be attributed to the wrong lines and no model is built: {why}",
                source.display(),
                dir.join("apt.json").display()
            );
        }
    }
    Ok(warnings)
}

fn short_hash(hash: &str) -> &str {
    hash.get(..19).unwrap_or(hash)
}

/// The sites of an APT in JSON (`apt::render::to_json`), in tree order: id, kind, and the
/// operation or routine name, without lines (an edit above a loop moves its line, not its id).
fn site_shape(apt: &serde_json::Value) -> Vec<(u64, String, String)> {
    fn walk(n: &serde_json::Value, out: &mut Vec<(u64, String, String)>) {
        if let Some(site) = n["site"].as_u64() {
            let what = ["op", "name", "callee"]
                .iter()
                .find_map(|k| n[*k].as_str())
                .unwrap_or("");
            out.push((site, s(&n["kind"]), what.to_string()));
        }
        for key in ["children", "else"] {
            for c in n[key].as_array().into_iter().flatten() {
                walk(c, out);
            }
        }
    }
    let mut out = Vec::new();
    for r in apt["routines"].as_array().into_iter().flatten() {
        walk(r, &mut out);
    }
    out
}

/// A report's line, as `file:line` when the model names a file (not the main source).
fn loc(file: &serde_json::Value, line: &serde_json::Value) -> String {
    match file.as_str() {
        Some(f) => format!("{f}:{}", s(line)),
        None => s(line),
    }
}

/// A phase's MPI call lines, `19,22`; the first three and a count when there are more.
fn call_lines(lines: &serde_json::Value) -> String {
    let Some(all) = lines.as_array().filter(|a| !a.is_empty()) else {
        return "-".into();
    };
    let mut text: Vec<String> = all.iter().take(3).map(s).collect();
    if all.len() > 3 {
        text.push(format!("+{}", all.len() - 3));
    }
    text.join(",")
}

fn num(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn s(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// An expression from the model file (stored exactly) in the short printer's ~4 digits; other
/// values as `s` shows them.
fn short(v: &serde_json::Value) -> String {
    match v.as_str().map(symbolic::parse) {
        Some(Ok(e)) => e.to_string(),
        _ => s(v),
    }
}

/// A cost expression as T is printed: factored, in T's names for steps and clamps.
/// A cost from the model file as T is shown: over the traced runs (`pts`), in T's names.
fn shown(
    names: &symbolic::Readable,
    pts: &[BTreeMap<String, f64>],
    v: &serde_json::Value,
) -> String {
    match v.as_str().map(symbolic::parse) {
        Some(Ok(e)) => names.show(&e.within(pts).expr),
        _ => s(v),
    }
}

/// How many of the steps of one origin T loses over the traced runs are listed by name.
const FIXED_SHOWN: usize = 6;

/// Says where the T shown holds: the traced runs' ranges, and the steps (regimes of the
/// machine sheet, thresholds) that keep one value over them, at which T changes form beyond.
fn write_within(
    out: &mut impl Write,
    m: &ModelFile,
    pts: &[BTreeMap<String, f64>],
    within: &symbolic::Within,
) -> Result<()> {
    let (params, fixed) = (&m.params, &within.fixed);
    if fixed.is_empty() {
        return Ok(());
    }
    let origins = step_origins(m);
    let ranges: Vec<String> = params
        .iter()
        .filter_map(|p| {
            let vs: Vec<f64> = pts.iter().filter_map(|pt| pt.get(p).copied()).collect();
            let lo = vs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = vs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (!vs.is_empty()).then(|| {
                if lo == hi {
                    format!("{p} {lo}")
                } else {
                    format!("{p} {lo}..{hi}")
                }
            })
        })
        .collect();
    writeln!(
        out,
        "  (T as it is over the traced runs: {})",
        ranges.join(", ")
    )?;
    for (v, turn) in [(0.0, "1"), (1.0, "0")] {
        // grouped by where they come from, in order of first appearance
        let mut groups: Vec<(Option<&str>, Vec<&str>)> = Vec::new();
        for (t, _, step) in fixed.iter().filter(|(_, x, _)| *x == v) {
            let why = step_why(&origins, step);
            match groups.iter_mut().find(|(w, _)| *w == why) {
                Some((_, ts)) => ts.push(t),
                None => groups.push((why, vec![t])),
            }
        }
        if groups.is_empty() {
            continue;
        }
        // each step is 0 or 1 (a machine sheet's regime, a threshold) and the T shown holds
        // it at the one value it had in every traced run (trial 15: "turn 0" said nothing)
        let held = if turn == "1" { "0" } else { "1" };
        writeln!(
            out,
            "  (beyond the runs T changes form: these steps, {held} in every traced run and so left out above, become {turn} there:"
        )?;
        for (why, steps) in &groups {
            let more = steps.len().saturating_sub(FIXED_SHOWN);
            let mut list = steps[..steps.len().min(FIXED_SHOWN)].join(", ");
            if more > 0 {
                list.push_str(&format!(" and {more} more"));
            }
            match why {
                Some(why) => writeln!(out, "     {list}  ({why})")?,
                None => writeln!(out, "     {list}")?,
            }
        }
        writeln!(out, "  )")?;
    }
    writeln!(
        out,
        "  (predict, --json, --latex and model.json keep every step)"
    )?;
    Ok(())
}

fn share(m: &ModelFile, e: &serde_json::Value, t_large: f64) -> String {
    let Some(text) = e.as_str() else {
        return "-".into();
    };
    let Ok(expr) = symbolic::parse(text) else {
        return "-".into();
    };
    match model::analysis::eval(&expr, &m.largest) {
        Ok(v) if t_large > 0.0 => format!("{:.1}%", 100.0 * v / t_large),
        _ => "-".into(),
    }
}

/// The human report.
/// `T(params) = …` for reading: common factors pulled out, repeated steps and clamps named
/// and defined below it (model.json keeps the flat exact form).
pub fn write_t(
    out: &mut impl Write,
    m: &ModelFile,
    t: &symbolic::Expr,
) -> Result<symbolic::Readable> {
    let r = t.readable();
    writeln!(out, "T({}) = {}", m.params.join(", "), r.text)?;
    let (origins, steps) = (step_origins(m), t.steps());
    let mut lines = Vec::new();
    for (name, def) in &r.names {
        // a step that comes from one computation's or phase's cost says which
        let why = steps
            .iter()
            .find(|step| r.show(step) == *name)
            .and_then(|step| step_why(&origins, step))
            .map(|why| format!("  ({why})"))
            .unwrap_or_default();
        lines.push(format!("{name} = {def}{why}"));
    }
    // the host's detours, each stretch's a symbol of T, and their law once
    if let Some(named) = &m.t_named {
        let vars = t.vars();
        let used: Vec<&model::analysis::NamedDetour> = named
            .detours
            .iter()
            .filter(|d| vars.contains(&d.name))
            .collect();
        for d in &used {
            lines.push(format!(
                "{} = D({})  (the host's detours: the stretch of line {})",
                d.name,
                r.show(&d.expected),
                d.line
            ));
        }
        if !used.is_empty() {
            lines.push(format!(
                "D(M) = {}  (the longest of M expected detours, under \"host detours\")",
                named.law
            ));
        }
    }
    for (i, line) in lines.iter().enumerate() {
        let lead = if i == 0 { "  where" } else { "       " };
        writeln!(out, "{lead} {line}")?;
    }
    write_clamps(out, m, t, &r)?;
    Ok(r)
}

/// T as the report shows it: with the host's detours named where the model has them
/// ([`ModelFile::t_named`]), else as evaluated.
pub fn shown_t(m: &ModelFile) -> &symbolic::Expr {
    m.t_named.as_ref().map_or(&m.t, |n| &n.t)
}

/// `at` with each detour symbol of the shown T at its value there.
fn with_detours(m: &ModelFile, at: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let mut out = at.clone();
    if let (Some(named), Some(law)) = (
        &m.t_named,
        m.t_named
            .as_ref()
            .and_then(|n| symbolic::parse(&n.law).ok()),
    ) {
        for d in &named.detours {
            if let Ok(mv) = model::analysis::eval(&d.expected, at) {
                if let Ok(v) = law.eval(&|x| (x == "M").then_some(mv)) {
                    out.insert(d.name.clone(), v);
                }
            }
        }
    }
    out
}

/// The laws of T held at the largest value the runs reached (`min(N^2, 589824)`,
/// `log2(min(P, 2))`), each with the cost that holds it: a growth seen over the runs that is
/// not carried beyond them (trial 27: such clamps read as steps from nowhere).
fn write_clamps(
    out: &mut impl Write,
    m: &ModelFile,
    t: &symbolic::Expr,
    r: &symbolic::Readable,
) -> Result<()> {
    // a min with a constant is a held law only where the constant is the largest value its
    // other side took over the runs (`min(dims(P, 2, 0) - 1, 2)`, a count of neighbours, is
    // the source's)
    let found: Vec<symbolic::Expr> = clamps(t)
        .into_iter()
        .filter(|c| {
            let Some(symbolic::Atom::Min(args)) = c.as_atom() else {
                return false;
            };
            let (Some(k), Some(x)) = (
                args.iter().find_map(symbolic::Expr::as_const),
                args.iter().find(|a| a.as_const().is_none()),
            ) else {
                return false;
            };
            let most = m
                .validation
                .iter()
                .filter_map(|v| model::analysis::eval(x, &v.params).ok())
                .fold(f64::NEG_INFINITY, f64::max);
            (most - k).abs() <= 1e-6 * k.abs().max(1.0)
        })
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    let parsed = |v: &serde_json::Value| v.as_str().and_then(|t| symbolic::parse(t).ok());
    let holders: Vec<(symbolic::Expr, String)> = m
        .compute
        .iter()
        .filter_map(|c| {
            Some((
                parsed(&c["cost"])?,
                format!("the computation at line {}", loc(&c["file"], &c["line"])),
            ))
        })
        .chain(m.phases.iter().filter_map(|p| {
            Some((
                parsed(&p["total"])?,
                format!(
                    "phase {} at line {}",
                    s(&p["id"]),
                    loc(&p["ancestor_file"], &p["ancestor_line"])
                ),
            ))
        }))
        .collect();
    writeln!(
        out,
        "  (laws held beyond the runs at the largest value they reached, not carried further:"
    )?;
    for c in &found {
        let Some(symbolic::Atom::Min(args)) = c.as_atom() else {
            continue;
        };
        let in_p = args.iter().all(|a| a.vars().iter().all(|v| v == "P"));
        let why = if in_p {
            "a growth with the number of ranks seen over the traced counts"
        } else {
            "a growth seen over the runs, such as a cost per element rising with the data the ranks sweep, as a cache's misses do"
        };
        let holder = holders
            .iter()
            .find(|(e, _)| clamps(e).contains(c))
            .map_or(String::new(), |(_, h)| format!("{h}: "));
        writeln!(out, "     {}  ({holder}{why})", r.show(c))?;
    }
    writeln!(out, "  )")?;
    Ok(())
}

/// Every `min(x, c)` in `e` of one constant and one expression in the parameters, nested ones
/// too, once each, in order of appearance.
fn clamps(e: &symbolic::Expr) -> Vec<symbolic::Expr> {
    fn walk(e: &symbolic::Expr, out: &mut Vec<symbolic::Expr>) {
        for t in e.terms() {
            for (a, _) in t.factors() {
                if let symbolic::Atom::Min(args) = a {
                    let consts = args.iter().filter(|x| x.as_const().is_some()).count();
                    if args.len() == 2 && consts == 1 {
                        let c = symbolic::Expr::from_atom(a);
                        if !out.contains(&c) && c.steps().is_empty() {
                            out.push(c);
                        }
                    }
                }
                for x in a.args() {
                    walk(x, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(e, &mut out);
    out
}

/// Why a step of T is there, from [`step_origins`]. A clamp in P alone, `clamp(P/2 - 1, 0, 1)`,
/// tests the number of ranks wherever it comes from (a phase present from some P on, a
/// pipeline's depth); any other step in P alone does where no cost holds it. Trial 21: a
/// message-size law in P alone crossing a regime of the sheet read "a test on the number of
/// ranks" where the program tests none.
fn step_why<'a>(origins: &'a [(symbolic::Expr, String)], step: &symbolic::Expr) -> Option<&'a str> {
    const RANKS: &str = "a test on the number of ranks";
    let vars = step.vars();
    let in_p = vars.len() == 1 && vars.contains("P");
    let clamp = match step.as_atom() {
        Some(symbolic::Atom::Min(args)) => args
            .iter()
            .any(|a| matches!(a.as_atom(), Some(symbolic::Atom::Max(_)))),
        _ => false,
    };
    if in_p && clamp {
        return Some(RANKS);
    }
    let found = origins
        .iter()
        .find(|(o, _)| o == step)
        .map(|(_, w)| w.as_str());
    found.or(in_p.then_some(RANKS))
}

/// Where T's steps come from, by the first cost that holds them: a phase's total, a regime of
/// the machine sheet (message size, eager limit, a collective's next form); a computation's
/// cost, in simulated runs where its entries reach the simulator's compute threshold (bursts
/// under it are not charged), natively a regime of the floor under it (`max(law, floor)`:
/// rewriting a buffer the eager protocol may still hold). A computation inside a phase brings
/// its threshold step into the phase's total, so simulated computations are asked first; a
/// native floor holds the phase's message regimes, so natively phases are. Trial 19: `s1 =
/// min(floor(log2(P)*(7.664e-5*N/P + 0.03129) + …), 1)` and `[P >= 32.06]` said neither.
fn step_origins(m: &ModelFile) -> Vec<(symbolic::Expr, String)> {
    let parsed = |v: &serde_json::Value| v.as_str().and_then(|t| symbolic::parse(t).ok());
    let phases = m.phases.iter().filter_map(|p| {
        let why = format!(
            "phase {} at line {}: a regime of the machine sheet",
            s(&p["id"]),
            loc(&p["ancestor_file"], &p["ancestor_line"])
        );
        Some((parsed(&p["total"])?, why))
    });
    let computes = m.compute.iter().filter_map(|c| {
        let cost = parsed(&c["cost"])?;
        let at = loc(&c["file"], &c["line"]);
        let why = if m.simulated {
            format!("the computation at line {at} reaches the compute threshold")
        } else if matches!(cost.as_atom(), Some(symbolic::Atom::Max(_))) {
            format!("the computation at line {at}: its floor, the machine sheet's cost of rewriting a buffer still being sent")
        } else {
            format!("the computation at line {at}")
        };
        Some((cost, why))
    });
    // a branch, trip count or size law of the source holds its own steps (trial 27: `[P == 1]`,
    // the source's `if (size == 1)`, read "phase 0 at line 51: a regime of the machine sheet"
    // because the star's total holds it)
    let quantities = m.quantities.iter().filter_map(|q| {
        let what = match q["what"].as_str()? {
            "branch" => "the branch",
            "trip" => "the trip count",
            "bytes" => "the message size",
            _ => return None,
        };
        let source = q["source"]
            .as_str()
            .filter(|s| !s.starts_with("unresolved"));
        let why = match source {
            Some(src) => format!("{what} at line {}: {src}", loc(&q["file"], &q["line"])),
            None => format!("{what} at line {}", loc(&q["file"], &q["line"])),
        };
        Some((parsed(&q["expr"])?, why))
    });
    let sources: Vec<(symbolic::Expr, String)> = if m.simulated {
        quantities.chain(computes).chain(phases).collect()
    } else {
        quantities.chain(phases).chain(computes).collect()
    };
    let mut out: Vec<(symbolic::Expr, String)> = Vec::new();
    for (cost, why) in sources {
        for step in cost.steps() {
            if !out.iter().any(|(s, _)| *s == step) {
                out.push((step, why.clone()));
            }
        }
    }
    out
}

/// A computation's cost per entry as T shows it: where T names the host's detours its carrier
/// charges, the cost without them plus their symbol (`D19`, over its entries per stretch).
fn cost_shown(
    m: &ModelFile,
    c: &serde_json::Value,
    names: &symbolic::Readable,
    pts: &[BTreeMap<String, f64>],
) -> String {
    let parsed = |v: &serde_json::Value| v.as_str().and_then(|t| symbolic::parse(t).ok());
    let name = c["site"].as_u64().map(|s| format!("D{s}"));
    let named = m
        .t_named
        .as_ref()
        .is_some_and(|n| n.detours.iter().any(|d| Some(&d.name) == name.as_ref()));
    let d = &c["detours"];
    match (
        named,
        name,
        parsed(&c["cost"]),
        parsed(&d["cost"]),
        parsed(&d["per_stretch"]),
    ) {
        (true, Some(name), Some(cost), Some(detours), Some(k)) => {
            let base = cost - detours;
            let symbol = symbolic::Expr::var(&name) / k;
            names.show(&(base + symbol).within(pts).expr)
        }
        _ => shown(names, pts, &c["cost"]),
    }
}

/// The host's detours T charges: the sheet's figures and, per stretch of computation, the part
/// of its carrier's cost per entry that they are.
fn write_detours(
    out: &mut impl Write,
    m: &ModelFile,
    names: &symbolic::Readable,
    pts: &[BTreeMap<String, f64>],
) -> Result<()> {
    let Some(n) = &m.noise else {
        return Ok(());
    };
    writeln!(
        out,
        "\nhost detours (machine sheet: {:.0} per second of computation, {:.1} us on average, the longest up to {:.0} us, over {:.0} s)",
        n.rate,
        n.mean * 1e6,
        n.longest_up_to * 1e6,
        n.seconds
    )?;
    writeln!(
        out,
        "  each stretch of computation between two MPI calls waits for the longest detour among its ranks: of M expected, D(M) = {} (within {:.0}% of the expectation), charged per entry of one computation of the stretch (over its entries per stretch, where more than one)",
        short(&serde_json::Value::String(n.law.clone())),
        n.law_max_rel_err * 100.0
    )?;
    for c in m.compute.iter().filter(|c| !c["detours"].is_null()) {
        let d = &c["detours"];
        let with: Vec<String> = c["stretch_with"]
            .as_array()
            .map(|a| a.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        let per = match d["per_stretch"].as_str() {
            Some("1") | None => String::new(),
            Some(_) => format!(
                ", {} entries per stretch",
                shown(names, pts, &d["per_stretch"])
            ),
        };
        writeln!(
            out,
            "  site {:>4} {:>8}{}{per}  M = {}",
            s(&c["site"]),
            loc(&c["file"], &c["line"]),
            if with.is_empty() {
                String::new()
            } else {
                format!("  (with sites {})", with.join(", "))
            },
            shown(names, pts, &d["expected"]),
        )?;
    }
    Ok(())
}

pub fn write_human(out: &mut impl Write, m: &ModelFile) -> Result<()> {
    writeln!(
        out,
        "program {} ({}), machine {}{}",
        m.program,
        m.source,
        m.machine,
        if m.simulated {
            ", simulated (SMPI) runs"
        } else {
            ""
        }
    )?;
    // T over the traced runs: the steps that keep one value there (the machine sheet's
    // regimes beyond the traced sizes) take it
    let pts: Vec<BTreeMap<String, f64>> = m.validation.iter().map(|v| v.params.clone()).collect();
    let within = shown_t(m).within(&pts);
    let names = write_t(out, m, &within.expr)?;
    write_within(out, m, &pts, &within)?;
    let t_large = model::analysis::eval(&m.t, &m.largest).unwrap_or(f64::NAN);
    let cfg: Vec<String> = m.largest.iter().map(|(k, v)| format!("{k}={v}")).collect();
    writeln!(
        out,
        "  at the largest traced run ({}): {:.4e} s",
        cfg.join(","),
        t_large
    )?;
    // what to read first in a long closed form: its largest terms there
    let top = model::analysis::dominant_terms(shown_t(m), &with_detours(m, &m.largest), 4);
    if !top.is_empty() {
        let parts: Vec<String> = top
            .iter()
            .map(|(e, share)| format!("{:.0}% {}", 100.0 * share, names.show(&e.within(&pts).expr)))
            .collect();
        let minus = model::analysis::subtracted_share(shown_t(m), &with_detours(m, &m.largest));
        let less = if minus < -0.01 {
            format!("; terms that subtract: {:.0}%", 100.0 * minus)
        } else {
            String::new()
        };
        writeln!(out, "  largest terms there: {}{less}", parts.join(", "))?;
    }

    writeln!(out, "\ncommunication phases")?;
    writeln!(
        out,
        "  {:<3} {:<12} {:>8} {:<12} {:>10} {:>10} {:>12} {:>7}  cost per occurrence",
        "id", "kind", "line", "calls at", "procs", "depth", "bytes", "share"
    )?;
    for p in &m.phases {
        writeln!(
            out,
            "  {:<3} {:<12} {:>8} {:<12} {:>10} {:>10} {:>12} {:>7}  {}{}{}",
            s(&p["id"]),
            s(&p["kind"]),
            loc(&p["ancestor_file"], &p["ancestor_line"]),
            call_lines(if p["lines_at"].is_array() {
                &p["lines_at"]
            } else {
                &p["lines"]
            }),
            short(&p["processors"]),
            short(&p["depth"]),
            short(&p["bytes"]),
            share(m, &p["total"], t_large),
            shown(&names, &pts, &p["cost"]),
            p["fill"]
                .as_str()
                .map(|f| format!(
                    " + fill {}",
                    shown(&names, &pts, &serde_json::Value::from(f))
                ))
                .unwrap_or_default(),
            p["overlaps_with"]
                .as_u64()
                .map(|o| format!("  (overlaps phase {o})"))
                .unwrap_or_default(),
        )?;
    }
    writeln!(out, "\ncomputation phases")?;
    writeln!(
        out,
        "  {:>5} {:>8} {:>12} {:<24} {:>7} {:<9} per entry",
        "site", "line", "w_i (s)", "work", "R²", "fit"
    )?;
    for c in &m.compute {
        writeln!(
            out,
            "  {:>5} {:>8} {:>12} {:<24} {:>7.4} {:<9} {}{}",
            s(&c["site"]),
            loc(&c["file"], &c["line"]),
            c["w"].as_f64().map_or("-".into(), |w| format!("{w:.3e}")),
            s(&c["work"]),
            num(&c["r2"]),
            s(&c["origin"]),
            cost_shown(m, c, &names, &pts),
            c["inside_phase"]
                .as_u64()
                .map(|g| format!("  (inside phase {g})"))
                .unwrap_or_default(),
        )?;
    }
    write_detours(out, m, &names, &pts)?;
    writeln!(out, "\nfitted quantities")?;
    // the widest kind (`neighbours`, `overhead`) sets the first column
    let what = m
        .quantities
        .iter()
        .map(|q| s(&q["what"]).chars().count())
        .fold(7, usize::max);
    writeln!(
        out,
        "  {:<what$} {:>5} {:>8} {:<28} {:<14} {:>8}  fitted",
        "what", "site", "line", "source", "origin", "R²"
    )?;
    for q in &m.quantities {
        writeln!(
            out,
            "  {:<what$} {:>5} {:>8} {:<28} {:<14} {:>8.4}  {}",
            s(&q["what"]),
            s(&q["site"]),
            loc(&q["file"], &q["line"]),
            s(&q["source"]),
            s(&q["origin"]),
            num(&q["r2"]),
            short(&q["expr"]),
        )?;
    }
    writeln!(out, "\nvalidation (leave one run out)")?;
    writeln!(
        out,
        "  {:<28} {:>11} {:>11} {:>11} {:>8}",
        "run", "measured s", "fitted s", "LOO pred s", "LOO err"
    )?;
    for v in &m.validation {
        writeln!(
            out,
            "  {:<28} {:>11.4e} {:>11.4e} {:>11.4e} {:>7.1}%",
            v.config,
            v.measured,
            v.fitted,
            v.predicted,
            100.0 * v.loo_error
        )?;
    }
    if let Some((mean, max)) = m.loo_summary() {
        writeln!(
            out,
            "  mean |error| {:.1}%, max {:.1}%",
            100.0 * mean,
            100.0 * max
        )?;
    }
    if let Some(c) = &m.scaling {
        let on = c
            .sheet
            .as_ref()
            .map(|s| format!(", on the runs' own sheet {s}"))
            .unwrap_or_default();
        writeln!(
            out,
            "\nscaling check (the model from the runs at P <= {}, against the runs at P = {}{on})",
            c.trained_up_to, c.held_at
        )?;
        writeln!(
            out,
            "  {:<28} {:>11} {:>11} {:>8}",
            "run", "measured s", "predicted s", "error"
        )?;
        for h in &c.runs {
            writeln!(
                out,
                "  {:<28} {:>11.4e} {:>11.4e} {:>7.1}%",
                h.config,
                h.measured,
                h.predicted,
                100.0 * h.error
            )?;
        }
        writeln!(
            out,
            "  mean |error| {:.1}%, max {:.1}%: `predict` beyond P = {} widens T's band by the mean error per step of P as large",
            100.0 * c.mean_abs_error,
            100.0 * c.max_abs_error,
            c.held_at
        )?;
    } else {
        // trial 27: with --np 1,2,4 the section was missing without a word, and predict's band
        // at P = 64 was the fit's ±0.5%
        let mut ps: Vec<f64> = m
            .validation
            .iter()
            .filter_map(|v| v.params.get("P").copied())
            .collect();
        ps.sort_by(f64::total_cmp);
        ps.dedup();
        if ps.len() >= 2 && ps.iter().filter(|p| **p > 1.0).count() < 3 {
            let list: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
            writeln!(
                out,
                "\nscaling check: none: it needs runs at three rank counts above 1 or more (the model from all but the largest, checked at the largest); these runs have P = {}. Beyond the traced P, `predict`'s band is the fit's spread only: profile one more P (e.g. --np {},{}) to have the check",
                list.join(", "),
                list.join(","),
                2.0 * ps.last().copied().unwrap_or(1.0)
            )?;
        }
    }
    if !m.warnings.is_empty() {
        writeln!(out, "\nwarnings")?;
        for w in &m.warnings {
            writeln!(out, "  - {w}")?;
        }
    }
    Ok(())
}

/// Parses `N=64,P=4` into values.
pub fn parse_at(text: &str) -> Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            bail!("`{part}`: expected NAME=VALUE")
        };
        let v: f64 = v
            .trim()
            .parse()
            .with_context(|| format!("`{part}`: the value is not a number"))?;
        out.insert(k.trim().to_string(), v);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Trial 26: native runs costed on the Paragon's published sheet, or on the SMPI sheet,
    /// are a what-if; on this host's own sheet, or SMPI runs on the SMPI sheet, they are not.
    #[test]
    fn another_machines_sheet_is_a_what_if() {
        let run = |host: &str, mpi: &str| trace::RunRecord {
            mpi: mpi.into(),
            host: host.into(),
            ..trace::RunRecord::new(Default::default(), 2)
        };
        let sheet = |name: &str| Machine::builtin(name).unwrap().unwrap();
        let native = [run("vm", "Open MPI 4.1.4")];
        assert_eq!(
            what_if(&sheet("paragon"), &native, false).as_deref(),
            Some("vm under Open MPI 4.1.4")
        );
        assert!(what_if(&sheet("smpi-reference"), &native, false).is_some());
        assert_eq!(what_if(&sheet("this-openmpi-shm"), &native, false), None);
        // another host's runs on this host's sheet
        assert!(what_if(
            &sheet("this-openmpi-shm"),
            &[run("cluster-7", "Open MPI 4.1.4")],
            false
        )
        .is_some());
        let simulated = [run("vm", "SimGrid SMPI 3.32")];
        assert_eq!(what_if(&sheet("smpi-reference"), &simulated, true), None);
        assert!(what_if(&sheet("this-openmpi-shm"), &simulated, true).is_some());
    }

    /// Trial 26: the markers' check reads the model only where its run is an outlier of the
    /// fit (slowed by the host); a model of one run, or runs that all lie above it alike (the
    /// markers' cost every run pays), leave it the raw reading.
    #[test]
    fn only_an_outlier_run_is_read_against_the_model() {
        let row = |config: &str, measured: f64, fitted: f64| model::analysis::Validation {
            config: config.into(),
            params: Default::default(),
            measured,
            fitted,
            predicted: f64::NAN,
            loo_error: f64::NAN,
        };
        let mut rows = vec![
            row("a", 1.05, 1.0),
            row("b", 0.97, 1.0),
            row("c", 1.02, 1.0),
            row("d", 2.2, 2.0),
            row("probe", 4.11e-2, 3.39e-2),
        ];
        assert_eq!(outlier_fit(&rows, "probe"), Some(3.39e-2));
        // every run 20% above the model: the markers, not one slow run
        for r in &mut rows[..4] {
            r.measured = 1.2 * r.fitted;
        }
        assert_eq!(outlier_fit(&rows, "probe"), None);
        // trial 29: a model that misses its other runs by 60% both ways is not read over
        // the one it misses by 260%
        let wrong = vec![
            row("a", 1.6, 1.0),
            row("b", 0.4, 1.0),
            row("c", 1.6, 1.0),
            row("d", 0.8, 2.0),
            row("probe", 9.962e-3, 2.7735e-3),
        ];
        assert_eq!(outlier_fit(&wrong, "probe"), None);
        // too few others to tell
        assert_eq!(outlier_fit(&rows[2..], "probe"), None);
        assert_eq!(outlier_fit(&rows[4..], "probe"), None);
    }

    /// Trial 27: the laws held at the largest traced value are found, nested ones too, and
    /// told from the steps (a clamp to [0, 1]) and from a min of two laws.
    #[test]
    fn clamps_at_the_largest_traced_value_are_found() {
        let e = |t: &str| symbolic::parse(t).unwrap();
        let t = e("N*min(N^2, 589824) + log2(min(P, 2)) + min(max(P - 1, 0), 1) + min(N, P) + max(min(N, 8192), P)");
        let found: Vec<String> = clamps(&t).iter().map(ToString::to_string).collect();
        assert_eq!(found, ["min(N^2, 589824)", "min(P, 2)", "min(N, 8192)"]);
    }

    /// Trial 27: a step a source branch holds (`if (size == 1)`) names the branch, though the
    /// star phase whose total holds it too comes first among the costs.
    #[test]
    fn a_step_of_a_branch_names_the_branch() {
        let step = "max(min(-P + 2, P), 0)";
        let m: ModelFile = serde_json::from_value(serde_json::json!({
            "schema": 1, "program": "p", "source": "p.c", "machine": "m", "simulated": false,
            "params": ["P"], "t": step, "t_min": step, "t_max": step, "largest": {},
            "phases": [{"id": 0, "ancestor_line": 51, "total": format!("{step}*0.1 + 2")}],
            "compute": [],
            "quantities": [{"what": "branch", "line": 41, "source": "P == 1", "expr": step}],
            "validation": [], "warnings": []
        }))
        .unwrap();
        let origins = step_origins(&m);
        let s = symbolic::parse(step).unwrap();
        assert_eq!(
            step_why(&origins, &s),
            Some("the branch at line 41: P == 1")
        );
    }

    /// A step in P alone is a test on the number of ranks when it is a clamp (a phase present
    /// from some P on) or when no cost holds it; a regime of the sheet crossed by a message-size
    /// law in P alone names its phase (trial 21).
    #[test]
    fn a_step_in_p_names_its_phase_unless_it_is_a_clamp() {
        let e = |t: &str| symbolic::parse(t).unwrap();
        let regime = e("min(floor(0.01*P^2), 1)");
        let ramp = e("min(max(P - 1, 0), 1)");
        let origins = vec![
            (
                regime.clone(),
                "phase 3 at line 85: a regime of the machine sheet".to_string(),
            ),
            (
                ramp.clone(),
                "phase 3 at line 85: a regime of the machine sheet".to_string(),
            ),
        ];
        assert_eq!(
            step_why(&origins, &regime),
            Some("phase 3 at line 85: a regime of the machine sheet")
        );
        assert_eq!(
            step_why(&origins, &ramp),
            Some("a test on the number of ranks")
        );
        assert_eq!(
            step_why(&[], &e("min(floor(0.5*P), 1)")),
            Some("a test on the number of ranks")
        );
        assert_eq!(step_why(&[], &e("min(floor(0.5*N), 1)")), None);
    }
}
