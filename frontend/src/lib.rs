//! augur front end: C and Fortran source lowered to one language-neutral IR.
//!
//! Only this crate sees tree-sitter. Entry point: [`load`] (or [`load_str`]); the IR contract
//! is [`ir`]; diagnostics are data ([`diagnostic`]) and this crate never prints.
pub mod diagnostic;
pub mod dump;
pub(crate) mod include;
pub mod ir;
pub(crate) mod lower;
pub(crate) mod macros;
pub mod mpi_table;
pub(crate) mod normalize;
pub(crate) mod parse;
pub(crate) mod source_map;
pub mod types;

pub use diagnostic::{Diagnostic, Severity};
pub use ir::*;
pub use mpi_table::{MpiOp, Role};

use std::path::{Path, PathBuf};

use diagnostic::codes;
use include::{Expander, Prep};
use macros::MacroTable;
use parse::Grammar;
use source_map::Assembled;

/// Source form; `Auto` picks by extension (.c/.h → C; .f/.F/.for/.f77 → fixed Fortran;
/// .f90/.F90/.f95/.f03/.f08 → free Fortran).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Form {
    #[default]
    Auto,
    Fixed,
    Free,
    C,
}

/// Loading options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub form: Form,
    /// `-I DIR`: searched after the including file's directory.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]` (C only); `None` value means defined as `1`.
    pub defines: Vec<(String, Option<String>)>,
}

/// Result of loading one program: never absent, even for broken input.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub program: Program,
    pub sources: Sources,
    pub diagnostics: Vec<Diagnostic>,
}

impl Lowered {
    /// Whether any diagnostic is an error (syntax errors, include cycles, ...).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("tree-sitter grammar does not load (ABI mismatch): {0}")]
    Grammar(String),
    #[error("the front end's worker thread failed: {0}")]
    Worker(String),
}

/// Form from a file extension (`None`: unknown extension).
pub fn form_for_path(path: &Path) -> Option<Form> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    Some(match ext {
        "c" | "h" => Form::C,
        "f" | "F" | "for" | "FOR" | "f77" | "F77" | "ftn" => Form::Fixed,
        "f90" | "F90" | "f95" | "F95" | "f03" | "F03" | "f08" | "F08" => Form::Free,
        _ => return None,
    })
}

/// Loads and lowers the program in `path` (with its local includes).
pub fn load(path: &Path, opts: &Options) -> Result<Lowered, LoadError> {
    let mut diags = Vec::new();
    let text = include::read_source(path, &mut diags, FileId(0))
        .map_err(|source| LoadError::Io { path: path.to_path_buf(), source })?;
    load_text(path.to_path_buf(), text, opts, diags)
}

/// Lowers `text` as if read from `path` (includes resolve relative to `path`'s directory).
pub fn load_str(path: impl Into<PathBuf>, text: &str, opts: &Options) -> Result<Lowered, LoadError> {
    load_text(path.into(), text.to_string(), opts, Vec::new())
}

/// Stack for the lowering thread used on deeply nested input (lowering recurses on nesting).
const WORKER_STACK: usize = 256 << 20;
/// Syntax trees up to this deep are lowered on the calling thread (a 2 MB test-thread stack
/// is plenty); deeper ones on a worker thread with [`WORKER_STACK`].
const INLINE_TREE_DEPTH: usize = 96;
/// Inputs larger than this (bytes) are always lowered on the worker thread.
const BIG_INPUT: usize = 64 << 10;

fn load_text(path: PathBuf, text: String, opts: &Options, diags: Vec<Diagnostic>) -> Result<Lowered, LoadError> {
    lower_all(path, text, opts, diags)
}

/// Runs `f` here, or on a big-stack worker thread when `deep`.
fn with_stack<R: Send>(deep: bool, f: impl FnOnce() -> R + Send) -> Result<R, LoadError> {
    if !deep {
        return Ok(f());
    }
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("augur-frontend".into())
            .stack_size(WORKER_STACK)
            .spawn_scoped(s, f)
            .map_err(|e| LoadError::Worker(e.to_string()))?;
        handle.join().map_err(|_| LoadError::Worker("lowering thread panicked".into()))
    })
}

fn detect_form(path: &Path, text: &str, opts: &Options) -> Form {
    if opts.form != Form::Auto {
        return opts.form;
    }
    form_for_path(path).unwrap_or_else(|| {
        if text.contains("#include") || text.contains('{') {
            Form::C
        } else {
            Form::Free
        }
    })
}

/// Expands `main` with includes and parses it.
fn assemble_and_parse(
    sources: &mut Sources,
    opts: &Options,
    macros: &MacroTable,
    prep: Prep,
    parser: &mut tree_sitter::Parser,
) -> (Assembled, Option<tree_sitter::Tree>, Vec<Diagnostic>) {
    let mut exp = Expander::new(sources, &opts.include_dirs, macros);
    let mut asm = Assembled::new();
    exp.expand(FileId(0), prep, &mut asm);
    let diags = exp.diags;
    let tree = parse::parse(parser, &asm.text);
    (asm, tree, diags)
}

fn lower_all(path: PathBuf, text: String, opts: &Options, mut diags: Vec<Diagnostic>) -> Result<Lowered, LoadError> {
    let form = detect_form(&path, &text, opts);
    let mut sources = Sources::new();
    let is_empty = text.trim().is_empty();
    let main = sources.add(path, text);
    if is_empty {
        diags.push(
            Diagnostic::warning(codes::EMPTY_FILE, "the file is empty")
                .with_primary(Span::new(main, 0, 0), "nothing to analyse"),
        );
    }
    let (grammar, language) = match form {
        Form::C => (Grammar::C, Language::C),
        _ => (Grammar::Fortran, Language::Fortran),
    };
    let mut parser = parse::take_parser(grammar).map_err(|e| LoadError::Grammar(e.to_string()))?;
    let mut macros = MacroTable::from_defines(&opts.defines);
    let (asm, tree, inc_diags) = match form {
        Form::C => {
            // first pass finds the `#define`s of every included header, second substitutes
            let (asm, _, _) = {
                let mut exp = Expander::new(&mut sources, &opts.include_dirs, &macros);
                let mut asm = Assembled::new();
                exp.expand(main, Prep::C, &mut asm);
                (asm, (), ())
            };
            macros.scan_defines(&asm.text);
            assemble_and_parse(&mut sources, opts, &macros, Prep::C, &mut parser)
        }
        Form::Free => assemble_and_parse(&mut sources, opts, &macros, Prep::FortranFree, &mut parser),
        Form::Fixed | Form::Auto => {
            let first = assemble_and_parse(&mut sources, opts, &macros, Prep::FortranFixed { cut: true }, &mut parser);
            let errs = first.1.as_ref().map_or(usize::MAX, parse::error_count);
            if errs == 0 {
                first
            } else {
                // some real code writes past column 72: retry without the cut
                let second =
                    assemble_and_parse(&mut sources, opts, &macros, Prep::FortranFixed { cut: false }, &mut parser);
                let errs2 = second.1.as_ref().map_or(usize::MAX, parse::error_count);
                if errs2 < errs {
                    second
                } else {
                    first
                }
            }
        }
    };
    diags.extend(inc_diags);
    parse::give_back_parser(grammar, parser);
    let mut b = lower::Builder::new(language, main);
    match &tree {
        Some(tree) => {
            diags.extend(parse::syntax_diagnostics(tree, &asm, main));
            // big inputs always get the worker (its start-up cost is noise there); small ones
            // only when deeply nested
            let deep = asm.text.len() > BIG_INPUT || parse::depth_exceeds(tree, INLINE_TREE_DEPTH);
            let root = tree.root_node();
            let (asm, macros, b) = (&asm, &macros, &mut b);
            with_stack(deep, move || match language {
                Language::C => lower::c::lower(root, asm, main, macros, b),
                Language::Fortran => lower::fortran::lower(root, asm, main, b),
            })?;
        }
        None => diags.push(
            Diagnostic::error(codes::PARSE_FAILED, "the parser gave up on this file (time limit)")
                .with_primary(Span::new(main, 0, 0), "not analysed"),
        ),
    }
    diags.append(&mut b.diags);
    if b.prog.procs.is_empty() && !is_empty {
        diags.push(
            Diagnostic::warning(codes::NO_PROCEDURE, "no procedure found")
                .with_primary(Span::new(main, 0, 0), "nothing to analyse in this file")
                .with_note("is the language right? use --form to choose it"),
        );
    }
    Ok(Lowered { program: b.prog, sources, diagnostics: diags })
}
