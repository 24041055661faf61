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
    pub apt_json: String,
    pub warnings: Vec<String>,
}

/// Loads, analyses and instruments `args.source`. Syntax errors stop here (exit 2) with the front
/// end's diagnostics: instrumenting a program the parser misread would produce a wrong build.
pub fn prepare(args: &ProfileArgs) -> Result<Prepared> {
    let opts = args.src.frontend_options();
    let lowered = frontend::load(&args.source, &opts)
        .with_context(|| format!("cannot load {}", args.source.display()))?;
    let lang = match (lowered.program.language, opts.form) {
        (frontend::Language::C, _) => Lang::C,
        (frontend::Language::Fortran, frontend::Form::Fixed) => Lang::FortranFixed,
        (frontend::Language::Fortran, frontend::Form::Free) => Lang::FortranFree,
        (frontend::Language::Fortran, _) => match frontend::form_for_path(&args.source) {
            Some(frontend::Form::Fixed) => Lang::FortranFixed,
            _ => Lang::FortranFree,
        },
    };
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
        bail!(
            "{}: the source has errors (above); fix them before profiling",
            args.source.display()
        );
    }

    let tree = apt::build(
        &lowered,
        &apt::AptOptions {
            arg_names: arg_names(args),
        },
    );
    let mut apt_json = serde_json::to_string_pretty(&apt::render::to_json(&tree))
        .context("cannot serialise the APT")?;
    apt_json.push('\n');
    let plan = codegen::Plan::from_apt(&tree, &lowered.program);
    let inst = codegen::instrument(&lowered.program, &lowered.sources, &plan)
        .with_context(|| format!("cannot instrument {}", args.source.display()))?;
    for n in &inst.notes {
        warnings.push(match n.span {
            Some(sp) => {
                let lc = lowered.sources.start(sp);
                let path = lowered.sources.path(sp.file).unwrap_or(&args.source);
                format!("{}:{}:{}: {}", path.display(), lc.line, lc.col, n.message)
            }
            None => n.message.clone(),
        });
    }
    let src_dir = args
        .source
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let src_dir = std::path::absolute(src_dir)
        .with_context(|| format!("bad source path {}", args.source.display()))?;
    let mut include_dirs = vec![src_dir.clone()];
    for d in &args.src.include {
        include_dirs.push(
            std::path::absolute(d)
                .with_context(|| format!("bad include directory {}", d.display()))?,
        );
    }
    let main = file_name(&args.source)?;
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for f in &inst.files {
        files.push((f.relative.clone(), f.text.clone()));
    }
    if !files.iter().any(|(p, _)| *p == main) {
        bail!(
            "codegen returned no instrumented text for {}",
            args.source.display()
        );
    }
    files.sort_by_key(|(p, _)| *p != main);
    let exe_name = trace::run_dir::program_name(&args.source);
    Ok(Prepared {
        input: BuildInput {
            lang,
            main,
            files,
            include_dirs,
            defines: args.src.define.clone(),
            exe_name,
        },
        apt_json,
        warnings,
    })
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
