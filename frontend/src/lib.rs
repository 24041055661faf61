//! augur front end: C and Fortran source lowered to one language-neutral IR.
//!
//! Only this crate sees tree-sitter. Entry points: [`load`], [`load_files`] (a program in
//! several files), [`load_str`]; the IR contract is [`ir`]; diagnostics are data
//! ([`diagnostic`]) and this crate never prints. Loading never fails on bad source: only an
//! unreadable main file is an error ([`LoadError`]).
//!
//! Pipeline, per main file (code map):
//! - `include`: read (non-UTF-8 → lossy + warning), prepare, inline local includes;
//!   `source_map::Assembled` keeps every byte's original (file, offset).
//! - preparation: C — `cpp` blanks dead `#if` branches (same length), `macros` substitutes
//!   parse-breaking macros (`-D RESTRICT=`); Fortran fixed form — `normalize` (same line
//!   count, 72-column cut, retried without the cut when errors remain).
//! - `parse`: tree-sitter, syntax-error diagnostics from ERROR/MISSING nodes.
//! - `lower::{c, fortran}` (one folder per language: `decl`, `stmt`, `loops`, `expr`): nodes
//!   → IR through `lower::Builder` (arena, def/use sets, the one `mpi_table`); deeply nested
//!   inputs are lowered on a big-stack worker thread.
//! - `array`: which statements are implicit loops: Fortran array operations and calls of
//!   computing library routines (`library`, the table of those routines).
//! - `dump`: text of the IR for snapshots and debugging.
pub mod array;
pub(crate) mod cpp;
pub mod diagnostic;
pub mod dump;
pub(crate) mod include;
pub mod intrinsics;
pub mod ir;
pub(crate) mod labels;
pub mod library;
pub(crate) mod lower;
pub(crate) mod macros;
pub mod mpi_table;
pub(crate) mod normalize;
pub(crate) mod parse;
pub(crate) mod source_map;
pub mod types;

pub use array::{array_op, ArrayOp, ArrayOpKind};
pub use diagnostic::{Diagnostic, Severity};
pub use ir::*;
pub use library::{Law, LibraryCall};
pub use mpi_table::{MpiOp, Role};

use std::path::{Path, PathBuf};

use diagnostic::codes;
use include::{Expander, Prep};
use macros::MacroTable;
use parse::Grammar;
use source_map::Assembled;

/// Source form; `Auto` picks by extension (.c/.h → C; .f/.F/.for/.f77 → fixed Fortran;
/// .f90/.F90/.f95/.f03/.f08 → free Fortran).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
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
    /// The form each main file was read in (C, or the Fortran form actually used: a `.f`
    /// file written in free form is read as free form unless `--form fixed` was given).
    pub forms: Vec<(FileId, Form)>,
}

impl Lowered {
    /// Whether any diagnostic is an error (syntax errors, include cycles, ...).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
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
    load_files(&[path.to_path_buf()], opts)
}

/// Loads and lowers a program made of several source files (one `Program`; Fortran files
/// holding modules are lowered first so that `use` sees their variables). The language is
/// the first file's; files in another language are skipped with a diagnostic.
pub fn load_files(paths: &[PathBuf], opts: &Options) -> Result<Lowered, LoadError> {
    let mut diags = Vec::new();
    let mut sources = Sources::new();
    for (i, path) in paths.iter().enumerate() {
        let hint = FileId(u32::try_from(i).unwrap_or(u32::MAX));
        let text =
            include::read_source(path, &mut diags, hint).map_err(|source| LoadError::Io {
                path: path.clone(),
                source,
            })?;
        sources.add(path.clone(), text);
    }
    lower_all(sources, paths.len(), opts, diags)
}

/// Lowers `text` as if read from `path` (includes resolve relative to `path`'s directory).
pub fn load_str(
    path: impl Into<PathBuf>,
    text: &str,
    opts: &Options,
) -> Result<Lowered, LoadError> {
    let mut sources = Sources::new();
    sources.add(path.into(), text.to_string());
    lower_all(sources, 1, opts, Vec::new())
}

/// Stack for the lowering thread used on deeply nested input (lowering recurses on nesting).
const WORKER_STACK: usize = 256 << 20;
/// Syntax trees up to this deep are lowered on the calling thread (a 2 MB test-thread stack
/// is plenty); deeper ones on a worker thread with [`WORKER_STACK`].
const INLINE_TREE_DEPTH: usize = 64;
/// Inputs larger than this (bytes) are always lowered on the worker thread.
const BIG_INPUT: usize = 64 << 10;

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
        handle
            .join()
            .map_err(|_| LoadError::Worker("lowering thread panicked".into()))
    })
}

/// The form a file is read in: `opts.form` if given, else by extension, with a `.f` file
/// whose statements start in the label field read as free form.
pub fn detect_form(path: &Path, text: &str, opts: &Options) -> Form {
    if opts.form != Form::Auto {
        return opts.form;
    }
    match form_for_path(path) {
        Some(Form::Fixed) if looks_free_form(text) => Form::Free,
        Some(f) => f,
        None if text.contains("#include") || text.contains('{') => Form::C,
        None => Form::Free,
    }
}

/// Whether `path` names a C++ source by its extension (`.cpp`, `.cc`, `.cxx`, `.C`, …).
fn is_cplusplus(path: Option<&Path>) -> bool {
    let ext = path
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .unwrap_or("");
    matches!(
        ext,
        "cpp" | "cc" | "cxx" | "c++" | "C" | "cp" | "CPP" | "hpp" | "hh" | "hxx"
    )
}

/// Whether Fortran text in a fixed-form file is really free form: statements start in
/// columns 1-5 (the label field), which fixed form never does. A free-form `call` in
/// column 1 would otherwise silently become a comment.
fn looks_free_form(text: &str) -> bool {
    text.lines().take(2000).any(|line| {
        let b = line.as_bytes();
        let Some(first) = b.iter().position(|c| !c.is_ascii_whitespace()) else {
            return false;
        };
        if b.first() == Some(&b'\t') || first >= 5 {
            return false;
        }
        let c = b[first];
        let comment = first == 0 && matches!(c, b'c' | b'C' | b'*' | b'd' | b'D' | b'!');
        !comment && c.is_ascii_alphabetic()
    })
}

/// Expands `file` with includes and parses it.
fn assemble_and_parse(
    sources: &mut Sources,
    file: FileId,
    opts: &Options,
    macros: &MacroTable,
    prep: Prep,
    parser: &mut tree_sitter::Parser,
) -> (Assembled, Option<tree_sitter::Tree>, Vec<Diagnostic>) {
    let mut exp = Expander::new(sources, &opts.include_dirs, macros);
    let mut asm = Assembled::new();
    exp.expand(file, prep, &mut asm);
    let mut diags = exp.diags;
    if prep != Prep::C {
        diags.extend(labels::check(&mut asm, file, sources));
    }
    let tree = parse::parse(parser, &asm.text);
    (asm, tree, diags)
}

/// One main file, expanded and parsed.
struct Parsed {
    file: FileId,
    /// The form actually used (a `.f` file may turn out to be free form).
    form: Form,
    asm: Assembled,
    tree: Option<tree_sitter::Tree>,
    macros: MacroTable,
    is_empty: bool,
}

fn parse_file(
    sources: &mut Sources,
    file: FileId,
    form: Form,
    opts: &Options,
    parser: &mut tree_sitter::Parser,
    diags: &mut Vec<Diagnostic>,
) -> Parsed {
    let is_empty = sources.get(file).is_none_or(|f| f.text.trim().is_empty());
    if is_empty {
        diags.push(
            Diagnostic::error(codes::EMPTY_FILE, "the file is empty")
                .with_primary(Span::new(file, 0, 0), "nothing to analyse"),
        );
    }
    let mut macros = MacroTable::from_defines(&opts.defines);
    let mut used_form = form;
    let (asm, tree, inc_diags) = match form {
        Form::C => {
            // a first pass finds the `#define`s of every included header (only needed when
            // there are local headers), the second substitutes
            let text = sources
                .get(file)
                .map(|f| f.text.clone())
                .unwrap_or_default();
            if text.contains("#include") && text.contains('"') {
                let mut exp = Expander::new(sources, &opts.include_dirs, &macros);
                let mut first = Assembled::new();
                exp.expand(file, Prep::C, &mut first);
                macros.scan_defines(&first.text);
            } else {
                let mut defined = macros.command_line.clone();
                macros.scan_defines(&cpp::strip_dead_branches(&text, &mut defined));
            }
            macros.final_pass = true;
            assemble_and_parse(sources, file, opts, &macros, Prep::C, parser)
        }
        Form::Free => assemble_and_parse(sources, file, opts, &macros, Prep::FortranFree, parser),
        Form::Fixed | Form::Auto => {
            let first = assemble_and_parse(
                sources,
                file,
                opts,
                &macros,
                Prep::FortranFixed { cut: true },
                parser,
            );
            let errs = first.1.as_ref().map_or(usize::MAX, parse::error_extent);
            if errs == 0 {
                first
            } else {
                // some real code writes past column 72: retry without the cut
                let second = assemble_and_parse(
                    sources,
                    file,
                    opts,
                    &macros,
                    Prep::FortranFixed { cut: false },
                    parser,
                );
                let errs2 = second.1.as_ref().map_or(usize::MAX, parse::error_extent);
                let (best, best_errs) = if errs2 < errs {
                    (second, errs2)
                } else {
                    (first, errs)
                };
                if best_errs == 0 || opts.form == Form::Fixed {
                    best
                } else {
                    // form chosen from the extension: some projects write free form in `.f`
                    let free =
                        assemble_and_parse(sources, file, opts, &macros, Prep::FortranFree, parser);
                    let errs3 = free.1.as_ref().map_or(usize::MAX, parse::error_extent);
                    if errs3 < best_errs {
                        used_form = Form::Free;
                        free
                    } else {
                        best
                    }
                }
            }
        }
    };
    diags.extend(inc_diags);
    match &tree {
        Some(t) => diags.extend(parse::syntax_diagnostics(t, &asm, file, form != Form::C)),
        None => diags.push(
            Diagnostic::error(
                codes::PARSE_FAILED,
                "the parser gave up on this file (time limit)",
            )
            .with_primary(Span::new(file, 0, 0), "not analysed"),
        ),
    }
    Parsed {
        file,
        form: used_form,
        asm,
        tree,
        macros,
        is_empty,
    }
}

/// Whether a Fortran tree defines a module (lowered before the files that use it).
fn has_module(p: &Parsed) -> bool {
    let Some(t) = &p.tree else { return false };
    let root = t.root_node();
    let mut c = root.walk();
    let found = root.named_children(&mut c).any(|n| n.kind() == "module");
    found
}

/// Lowers the first `mains` files of `sources` into one program.
fn lower_all(
    mut sources: Sources,
    mains: usize,
    opts: &Options,
    mut diags: Vec<Diagnostic>,
) -> Result<Lowered, LoadError> {
    let first = FileId(0);
    let form_of = |sources: &Sources, id: FileId| {
        sources
            .get(id)
            .map_or(Form::C, |f| detect_form(&f.path, &f.text, opts))
    };
    let first_form = form_of(&sources, first);
    let (grammar, language) = match first_form {
        Form::C => (Grammar::C, Language::C),
        _ => (Grammar::Fortran, Language::Fortran),
    };
    let mut parser = parse::take_parser(grammar).map_err(|e| LoadError::Grammar(e.to_string()))?;
    let mut parsed = Vec::new();
    for i in 0..mains {
        let file = FileId(u32::try_from(i).unwrap_or(u32::MAX));
        let form = form_of(&sources, file);
        if (form == Form::C) != (language == Language::C) {
            diags.push(
                Diagnostic::error(
                    codes::MIXED_LANGUAGES,
                    "this file is in another language than the first one",
                )
                .with_primary(Span::new(file, 0, 0), "skipped")
                .with_note("load C and Fortran files as separate programs"),
            );
            continue;
        }
        if form == Form::C && is_cplusplus(sources.get(file).map(|f| f.path.as_path())) {
            diags.push(
                Diagnostic::warning(codes::UNSUPPORTED, "a C++ source read as C")
                    .with_primary(Span::new(file, 0, 0), "read with augur's C grammar")
                    .with_note("augur reads C and Fortran: C++'s classes, templates, references, overloads and new/delete are not understood (trial 26); C written in a C++ file reads as C, but `profile` builds it with mpicc, which compiles it as C++ by its name"),
            );
        }
        parsed.push(parse_file(
            &mut sources,
            file,
            form,
            opts,
            &mut parser,
            &mut diags,
        ));
    }
    parse::give_back_parser(grammar, parser);
    if language == Language::Fortran {
        parsed.sort_by_key(|p| !has_module(p));
    }
    let mut b = lower::Builder::new(language, first);
    for p in &parsed {
        let Some(tree) = &p.tree else { continue };
        // big inputs always get the worker (its start-up cost is noise there); small ones
        // only when deeply nested
        let deep = p.asm.text.len() > BIG_INPUT || parse::depth_exceeds(tree, INLINE_TREE_DEPTH);
        let root = tree.root_node();
        let before = b.prog.procs.len();
        let (asm, macros, file, bb) = (&p.asm, &p.macros, p.file, &mut b);
        with_stack(deep, move || match language {
            Language::C => lower::c::lower(root, asm, file, macros, bb),
            Language::Fortran => lower::fortran::lower(root, asm, file, bb),
        })?;
        let has_globals = b.prog.globals.iter().any(|g| g.span.file == p.file);
        if b.prog.procs.len() == before && !p.is_empty && !has_globals {
            // a syntax error can swallow the whole program unit: then the language is not the
            // likely culprit
            let syntax = diags.iter().any(|d| {
                matches!(d.code, codes::SYNTAX | codes::MISSING)
                    && d.primary_span().is_some_and(|s| s.file == p.file)
            });
            let note = if syntax {
                "the syntax errors above may hide the procedures: fix them first"
            } else {
                "is the language right? use --form to choose it"
            };
            b.diags.push(
                Diagnostic::error(codes::NO_PROCEDURE, "no procedure found")
                    .with_primary(Span::new(p.file, 0, 0), "nothing to analyse in this file")
                    .with_note(note),
            );
        }
    }
    diags.append(&mut b.diags);
    b.prog.bind_keywords();
    let mut forms: Vec<(FileId, Form)> = parsed.iter().map(|p| (p.file, p.form)).collect();
    forms.sort();
    Ok(Lowered {
        forms,
        program: b.prog,
        sources,
        diagnostics: diags,
    })
}
