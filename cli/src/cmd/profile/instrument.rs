//! The source side of `augur profile`: load the program with the front end, build its APT (site
//! ids), generate the instrumented copy with `codegen`, and hand the texts to the build step. The
//! APT is saved beside the manifest so analysis maps the site ids in the traces back to source.

use super::build::{BuildInput, Lang};
use super::ProfileArgs;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// File name of the saved APT in the run directory.
pub const APT_FILE: &str = "apt.json";

/// What the build needs, plus the APT as JSON and non-fatal notes for the user.
#[derive(Debug)]
pub struct Prepared {
    pub input: BuildInput,
    /// The program as written, to time without markers ([`super::probe`]).
    pub plain: BuildInput,
    pub apt_json: String,
    /// The program's inputs the APT found (which `--param` reaches it).
    pub params: Vec<apt::ProgParam>,
    /// Lines to print as they are: the front end's diagnostics rendered (`warning[code]: …`
    /// with their snippet) and instrumentation notes prefixed `warning: `.
    pub warnings: Vec<String>,
    pub lines: SourceLines,
}

/// The source line of each line of the instrumented copies, so a run-time error naming a
/// line of a copy (gfortran: `At line 22 of file …/build/rbsor.f`) can name the source's.
#[derive(Debug, Default)]
pub struct SourceLines {
    /// (the copy's file name, the source's path, the source line of each of the copy's lines)
    files: Vec<(String, PathBuf, Vec<u32>)>,
}

impl SourceLines {
    /// `source:line` for line `line` of the file `file` names: an instrumented copy, or a
    /// compiler wrapper's temporary copy of it (smpiff compiles `rbsor.f` as
    /// `rbsor.f_II2rFVRX40.f`).
    pub fn source_line(&self, file: &str, line: u32) -> Option<String> {
        let name = Path::new(file).file_name()?.to_string_lossy().into_owned();
        let (_, source, map) = self.files.iter().find(|(copy, _, _)| {
            name == *copy
                || name
                    .strip_prefix(copy.as_str())
                    .is_some_and(|rest| rest.starts_with('_'))
        })?;
        let at = map.get(usize::try_from(line).ok()?.checked_sub(1)?)?;
        Some(format!("{}:{at}", source.display()))
    }
}

/// Loads, analyses and instruments the program's sources (one program: site ids are numbered
/// over all of them). Syntax errors stop here (exit 2) with the front end's diagnostics:
/// instrumenting a program the parser misread would produce a wrong build.
pub fn prepare(args: &ProfileArgs) -> Result<Prepared> {
    let opts = args.src.frontend_options();
    let sources = args.files();
    let names = super::super::sources::names(&sources);
    let lowered =
        frontend::load_files(&sources, &opts).with_context(|| format!("cannot load {names}"))?;
    let mut warnings = Vec::new();
    for d in &lowered.diagnostics {
        let text = frontend::diagnostic::render_human(d, &lowered.sources);
        if d.severity == frontend::Severity::Error {
            eprint!("{text}");
        } else if d.severity == frontend::Severity::Warning {
            warnings.push(text.trim_end().to_string());
        }
    }
    if lowered.has_errors() {
        bail!("{names}: the source has errors (above); fix them before profiling");
    }

    let tree = apt::build(
        &lowered,
        &apt::AptOptions {
            arg_names: arg_names(args),
            stdin_names: args
                .stdin
                .as_ref()
                .and_then(|p| std::fs::read_to_string(p).ok())
                .map(|t| super::reach::stdin_names(&t))
                .unwrap_or_default(),
            // the grids the launcher's library makes
            dims_rule: args.launcher.dims_rule(),
        },
    );
    let mut apt_json = serde_json::to_string_pretty(&apt::render::to_json(&tree))
        .context("cannot serialise the APT")?;
    apt_json.push('\n');
    let inst = instrument(&lowered, &tree, opts.form)
        .with_context(|| format!("cannot instrument {names}"))?;
    warnings.extend(
        inst.notes
            .iter()
            .map(|n| format!("warning: {}", note_text(&lowered, n, args.source()))),
    );
    let mut include_dirs: Vec<PathBuf> = Vec::new();
    for d in sources
        .iter()
        .map(|s| super::super::sources::dir_of(s))
        .chain(args.src.include.iter().map(PathBuf::as_path))
    {
        let d = std::path::absolute(d)
            .with_context(|| format!("bad include directory {}", d.display()))?;
        if !include_dirs.contains(&d) {
            include_dirs.push(d);
        }
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for f in &inst.files {
        files.push((f.relative.clone(), f.text.clone()));
    }
    // every source is a compilation unit: instrumented when codegen edited it, else as written
    let mut units = Vec::new();
    let mut originals: Vec<(PathBuf, String)> = Vec::new();
    for (i, path) in sources.iter().enumerate() {
        let id = frontend::FileId(u32::try_from(i).unwrap_or(u32::MAX));
        let rel = match inst.files.iter().find(|f| f.file == id) {
            Some(f) => f.relative.clone(),
            None => {
                let rel = file_name(path)?;
                let text = lowered
                    .sources
                    .get(id)
                    .map(|f| f.text.clone())
                    .with_context(|| format!("{} was not loaded", path.display()))?;
                files.push((rel.clone(), text));
                rel
            }
        };
        let text = lowered
            .sources
            .get(id)
            .map(|f| f.text.clone())
            .with_context(|| format!("{} was not loaded", path.display()))?;
        originals.push((rel.clone(), text));
        units.push((rel, unit_lang(&lowered, id, path, opts.form)));
    }
    let Some((main, lang)) = units.first().cloned() else {
        bail!("no source given");
    };
    if !files.iter().any(|(p, _)| *p == main) {
        bail!(
            "codegen returned no instrumented text for {}",
            args.source().display()
        );
    }
    files.sort_by_key(|(p, _)| *p != main);
    let exe_name = trace::run_dir::program_name(args.source());
    let input = BuildInput {
        lang,
        main,
        others: units.into_iter().skip(1).collect(),
        files,
        include_dirs,
        defines: args.src.define.clone(),
        cflags: args.cflags(),
        exe_name,
        runtime: true,
    };
    Ok(Prepared {
        plain: BuildInput {
            files: originals,
            runtime: false,
            ..input.clone()
        },
        input,
        apt_json,
        params: tree.params.clone(),
        warnings,
        lines: SourceLines {
            files: inst
                .files
                .iter()
                .filter_map(|f| {
                    let name = f.relative.file_name()?.to_string_lossy().into_owned();
                    Some((name, f.source.clone(), f.line_map.clone()))
                })
                .collect(),
        },
    })
}

/// The instrumented program, as `profile` builds it: the one place the instrumentation plan and
/// the code generator's options are made, so `analyze` names what the traces lack (codegen's
/// notes: MPI calls without a runtime wrapper, loops whose body was not found) from the same
/// run of codegen `profile` made.
pub fn instrument(
    lowered: &frontend::Lowered,
    tree: &apt::Apt,
    form: frontend::Form,
) -> Result<codegen::Instrumented, codegen::CodegenError> {
    let plan = codegen::Plan::from_apt(tree, &lowered.program);
    let fortran_form = |f: frontend::Form| match f {
        frontend::Form::Fixed => Some(codegen::FortranForm::Fixed),
        frontend::Form::Free => Some(codegen::FortranForm::Free),
        _ => None,
    };
    let copts = codegen::Options {
        form: fortran_form(form),
        forms: lowered
            .forms
            .iter()
            .filter_map(|(id, f)| Some((*id, fortran_form(*f)?)))
            .collect(),
    };
    codegen::instrument_with(&lowered.program, &lowered.sources, &plan, &copts)
}

/// A codegen note as `path:line:col: message` (`fallback` names the file of a note without a
/// span's file).
pub fn note_text(lowered: &frontend::Lowered, n: &codegen::Note, fallback: &Path) -> String {
    match n.span {
        Some(sp) => {
            let lc = lowered.sources.start(sp);
            let path = lowered.sources.path(sp.file).unwrap_or(fallback);
            format!("{}:{}:{}: {}", path.display(), lc.line, lc.col, n.message)
        }
        None => n.message.clone(),
    }
}

/// The language of one source as the compiler must read it: the form the front end read it in
/// (a `.f` file written in free form is free form), or `--form` when given.
fn unit_lang(
    lowered: &frontend::Lowered,
    id: frontend::FileId,
    path: &Path,
    form: frontend::Form,
) -> Lang {
    if lowered.program.language == frontend::Language::C {
        return Lang::C;
    }
    let read_as = lowered
        .forms
        .iter()
        .find(|(f, _)| *f == id)
        .map(|(_, form)| *form);
    match (form, read_as, frontend::form_for_path(path)) {
        (frontend::Form::Fixed, _, _) => Lang::FortranFixed,
        (frontend::Form::Free, _, _) => Lang::FortranFree,
        (_, Some(frontend::Form::Free), _) => Lang::FortranFree,
        (_, Some(frontend::Form::Fixed), _) => Lang::FortranFixed,
        (_, _, Some(frontend::Form::Fixed)) => Lang::FortranFixed,
        _ => Lang::FortranFree,
    }
}

/// Names for the APT's parameters read from argv: when ARGS are exactly placeholders
/// (`{N} {K}`), argument i is named after its placeholder (up to the first argument that is not
/// one); without ARGS the --param order is used.
fn arg_names(args: &ProfileArgs) -> Vec<String> {
    if args.args.is_empty() {
        return args
            .param
            .iter()
            .filter_map(|p| p.split_once('=').map(|(n, _)| n.trim().to_string()))
            .collect();
    }
    args.args
        .iter()
        .map_while(|a| {
            a.strip_prefix('{')
                .and_then(|a| a.strip_suffix('}'))
                .filter(|n| !n.is_empty() && !n.contains(['{', '}']))
        })
        .map(str::to_string)
        .collect()
}

fn file_name(p: &Path) -> Result<PathBuf> {
    p.file_name()
        .map(PathBuf::from)
        .with_context(|| format!("{}: not a file name", p.display()))
}
