//! `codegen`: emits C and Fortran text from the IR — today the instrumented ("timer") version
//! of a program, whose markers feed the tracer runtime (`runtime/c/augur.h`).
//!
//! Invariants:
//! - codegen never sees tree-sitter and never touches files: it returns text;
//! - output = original text plus insertions/replacements at byte offsets of the ORIGINAL
//!   files (IR spans), so everything not instrumented stays byte-for-byte as written;
//! - the instrumented program computes what the original computes: markers only read values
//!   (loop counters are fresh variables `augur_n_<site>`), MPI calls keep their arguments.
//!
//! Entry point: [`instrument`]. The plan ([`Plan`]) says which statement gets which marker.
mod accum;
mod c;
mod edit;
mod fortran;
mod library;
mod omp;
pub mod plan;
mod scan;
pub mod wrapped;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use frontend::{FileId, Language, Program, Sources, Span, StmtId};
use serde::Serialize;

pub use plan::{Mark, Plan, Role};
pub use wrapped::Wrapped;

use edit::Edits;

/// Fortran source form (C has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FortranForm {
    /// F77 fixed form: code in columns 7–72, continuation mark in column 6.
    Fixed,
    Free,
}

/// Options of [`instrument_with`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Fortran form of every file; `None`: from the main file's extension (`.f`, `.for`,
    /// `.f77` fixed, anything else free).
    pub form: Option<FortranForm>,
    /// The form of each source file of a program of several (as the front end read them:
    /// `Lowered::forms`), over `form`. A file not listed has `form`, else (the main file) the
    /// main file's form; an included file has the form of the file that includes it (unless
    /// its own extension is `.f`/`.f90`-like, as the front end reads it), another main file
    /// its own extension's form.
    pub forms: BTreeMap<FileId, FortranForm>,
}

/// One rewritten file.
#[derive(Debug, Clone, Serialize)]
pub struct OutputFile {
    pub file: FileId,
    /// The original file's path, as in [`Sources`].
    pub source: PathBuf,
    /// Where to write it relative to the instrumented main file's directory, so that the
    /// compiler finds edited includes there before the originals (`x.h`, `inc/y.h`).
    pub relative: PathBuf,
    pub text: String,
    /// The source line (1-based) of each line of `text` (`line_map[k]` for line k + 1); a
    /// line codegen inserted has the line it was inserted at, so a compiler or run-time
    /// message about the instrumented copy can name the source line.
    pub line_map: Vec<u32>,
}

/// Something the instrumented program does not record, or records approximately.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Note {
    pub span: Option<Span>,
    pub message: String,
}

/// The instrumented program: the main file first, then edited included files.
#[derive(Debug, Clone, Serialize)]
pub struct Instrumented {
    pub language: Language,
    pub form: Option<FortranForm>,
    pub files: Vec<OutputFile>,
    pub notes: Vec<Note>,
}

impl Instrumented {
    /// The instrumented main file.
    pub fn main(&self) -> Option<&OutputFile> {
        self.files.first()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("the plan names statement {stmt} (site {site}), which the program does not have")]
    UnknownStmt { site: u32, stmt: u32 },
    #[error("source file #{0} is not among the loaded sources")]
    MissingFile(u32),
    #[error("{}:{line}: `use mpi_f08` is not supported by the tracer runtime (nor by SMPI); use `use mpi` or `include 'mpif.h'`", path.display())]
    MpiF08 { path: PathBuf, line: u32 },
    #[error("cannot instrument {}: {reason} (byte {offset})", path.display())]
    Conflict {
        path: PathBuf,
        offset: usize,
        reason: String,
    },
}

/// Instruments `prog` following `plan`, with the form taken from the main file's extension.
pub fn instrument(
    prog: &Program,
    sources: &Sources,
    plan: &Plan,
) -> Result<Instrumented, CodegenError> {
    instrument_with(prog, sources, plan, &Options::default())
}

/// Instruments `prog` following `plan`.
pub fn instrument_with(
    prog: &Program,
    sources: &Sources,
    plan: &Plan,
    opts: &Options,
) -> Result<Instrumented, CodegenError> {
    for m in plan.marks() {
        if prog.stmt(m.stmt).is_none() {
            return Err(CodegenError::UnknownStmt {
                site: m.site,
                stmt: m.stmt.0,
            });
        }
    }
    let main = sources
        .get(prog.main_file)
        .ok_or(CodegenError::MissingFile(prog.main_file.0))?;
    let wrapped = Wrapped::from_runtime();
    let mut ctx = Ctx {
        prog,
        sources,
        plan,
        wrapped: &wrapped,
        edits: BTreeMap::new(),
        notes: Vec::new(),
        threaded: BTreeSet::new(),
        accum: accum::Accum::default(),
    };
    let form = match prog.language {
        Language::C => {
            c::instrument(&mut ctx)?;
            None
        }
        Language::Fortran => {
            reject_mpi_f08(sources)?;
            let form = opts.form.unwrap_or_else(|| form_of(&main.path));
            // the procedures' files by the form they are written in, one pass each
            let mut groups: BTreeMap<bool, BTreeSet<FileId>> = BTreeMap::new();
            for p in &prog.procs {
                let file = p.span.file;
                let own = file_form(file, prog.main_file, form, sources, opts);
                groups
                    .entry(own == FortranForm::Fixed)
                    .or_default()
                    .insert(file);
            }
            if groups.len() <= 1 {
                let only = groups.keys().next().map_or(form, |fixed| {
                    if *fixed {
                        FortranForm::Fixed
                    } else {
                        FortranForm::Free
                    }
                });
                fortran::instrument(&mut ctx, only, None)?;
            } else {
                for (fixed, files) in &groups {
                    let f = if *fixed {
                        FortranForm::Fixed
                    } else {
                        FortranForm::Free
                    };
                    fortran::instrument(&mut ctx, f, Some(files))?;
                }
            }
            Some(form)
        }
    };
    let Ctx { edits, notes, .. } = ctx;
    let base = main
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut files = Vec::new();
    // the main file always changes (MPI_Init/Finalize at least); output it first
    let mut order: Vec<FileId> = vec![prog.main_file];
    order.extend(edits.keys().copied().filter(|f| *f != prog.main_file));
    let mut edits = edits;
    for id in order {
        let src = sources.get(id).ok_or(CodegenError::MissingFile(id.0))?;
        let e = edits.remove(&id).unwrap_or_default();
        let (text, line_map) = e.apply_mapped(&src.text, &src.path)?;
        files.push(OutputFile {
            file: id,
            source: src.path.clone(),
            relative: relative(&src.path, &base),
            text,
            line_map,
        });
    }
    Ok(Instrumented {
        language: prog.language,
        form,
        files,
        notes,
    })
}

/// The form `file` is written in (see [`Options::forms`]); `form` is the main file's.
fn file_form(
    file: FileId,
    main: FileId,
    form: FortranForm,
    sources: &Sources,
    opts: &Options,
) -> FortranForm {
    if let Some(f) = opts.forms.get(&file) {
        return *f;
    }
    if let Some(f) = opts.form {
        return f;
    }
    if file == main {
        return form;
    }
    let path = sources.path(file);
    let own = path.and_then(frontend::form_for_path);
    match (own, sources.includer(file)) {
        (Some(frontend::Form::Fixed), _) => FortranForm::Fixed,
        (Some(frontend::Form::Free), _) => FortranForm::Free,
        // includers come first in `sources`, so this ends
        (_, Some(by)) if by < file => file_form(by, main, form, sources, opts),
        _ => path.map_or(form, form_of),
    }
}

/// The runtime's Fortran wrappers take `mpif.h`/`use mpi` arguments (INTEGER handles).
fn reject_mpi_f08(sources: &Sources) -> Result<(), CodegenError> {
    for (_, f) in sources.files() {
        for (i, line) in f.text.lines().enumerate() {
            let l = line.trim_start().to_ascii_lowercase();
            let Some(rest) = l.strip_prefix("use") else {
                continue;
            };
            let rest = rest.trim_start().trim_start_matches(',').trim_start();
            let rest = rest.strip_prefix("intrinsic").unwrap_or(rest).trim_start();
            let rest = rest.strip_prefix("::").unwrap_or(rest).trim_start();
            if rest.starts_with("mpi_f08") {
                let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
                return Err(CodegenError::MpiF08 {
                    path: f.path.clone(),
                    line,
                });
            }
        }
    }
    Ok(())
}

/// Fixed form for `.f`, `.F`, `.for`, `.f77`, `.ftn`; free otherwise.
pub fn form_of(path: &Path) -> FortranForm {
    match frontend::form_for_path(path) {
        Some(frontend::Form::Fixed) => FortranForm::Fixed,
        _ => FortranForm::Free,
    }
}

/// Offset in `body` of the C label `name:` (a whole word followed by `:` but not `::`).
fn c_label_offset(body: &str, name: &str) -> Option<usize> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let b = body.as_bytes();
    let mut from = 0;
    while let Some(i) = body.get(from..)?.find(name) {
        let at = from + i;
        let end = at + name.len();
        let left = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
        let rest = body.get(end..)?.trim_start_matches([' ', '\t']);
        let right = rest.starts_with(':') && !rest.starts_with("::");
        let before = body.get(..at)?.trim_end();
        let stmt_start = before.is_empty() || before.ends_with([';', '{', '}', ':']);
        if left && right && stmt_start {
            return Some(at);
        }
        from = end;
    }
    None
}

/// The statement label of a Fortran line (fixed: columns 1–5; free: leading digits).
fn line_label(line: &str) -> Option<u32> {
    let first = line.chars().next()?;
    if matches!(first, 'c' | 'C' | '*' | '!' | 'd' | 'D') {
        return None;
    }
    let t = line.trim_start();
    let n = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = t.get(n..)?;
    if n == 0 || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    t.get(..n)?.parse().ok()
}

/// `path` relative to `base` when below it, else its file name.
fn relative(path: &Path, base: &Path) -> PathBuf {
    match path.strip_prefix(base) {
        Ok(r) if !r.as_os_str().is_empty() => r.to_path_buf(),
        _ => path
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_else(|| path.to_path_buf()),
    }
}

/// State shared by the language emitters.
pub(crate) struct Ctx<'a> {
    pub prog: &'a Program,
    pub sources: &'a Sources,
    pub plan: &'a Plan,
    pub wrapped: &'a Wrapped,
    pub edits: BTreeMap<FileId, Edits>,
    pub notes: Vec<Note>,
    /// Loops whose iterations run on several OpenMP threads (filled by the emitter first).
    pub threaded: BTreeSet<StmtId>,
    /// The loops nested in computation phases whose exits accumulate (filled by the emitter
    /// after `threaded`).
    pub accum: accum::Accum,
}

impl Ctx<'_> {
    pub fn text(&self, file: FileId) -> Result<&str, CodegenError> {
        self.sources
            .get(file)
            .map(|f| f.text.as_str())
            .ok_or(CodegenError::MissingFile(file.0))
    }

    pub fn edits(&mut self, file: FileId) -> &mut Edits {
        self.edits.entry(file).or_default()
    }

    pub fn note(&mut self, span: Option<Span>, message: impl Into<String>) {
        self.notes.push(Note {
            span,
            message: message.into(),
        });
    }

    /// Nesting depth of a statement (0 at procedure level).
    pub fn depth(&self, id: StmtId) -> i64 {
        let mut d = 0;
        let mut cur = self.prog.stmt(id).and_then(|s| s.parent);
        while let Some(p) = cur {
            d += 1;
            cur = self.prog.stmt(p).and_then(|s| s.parent);
        }
        d
    }

    /// Marked loops enclosing `id` in its procedure, innermost first: (site, phase).
    pub fn enclosing_loops(&self, id: StmtId) -> Vec<(u32, bool)> {
        let mut out = Vec::new();
        let mut cur = self.prog.stmt(id).and_then(|s| s.parent);
        while let Some(p) = cur {
            if let Some(l) = self.plan.loop_of(p) {
                out.push(l);
            }
            cur = self.prog.stmt(p).and_then(|s| s.parent);
        }
        out
    }

    /// For a GOTO statement inside marked loops: the loops it leaves, innermost first (their
    /// exit markers must run before the jump). `None`: the target was not found (computed GOTO,
    /// label in another file).
    pub fn goto_leaves(&self, s: &frontend::Stmt) -> Option<Vec<(u32, bool)>> {
        let file = self.sources.get(s.span.file)?;
        let target = self.goto_target(s)?;
        let mut out = Vec::new();
        let mut cur = s.parent;
        while let Some(p) = cur {
            let ps = self.prog.stmt(p)?;
            if let Some(l) = self.plan.loop_of(p) {
                let (lo, hi) = match (&ps.kind, self.prog.language) {
                    (_, Language::C) => (ps.span.start, ps.span.end),
                    (frontend::StmtKind::Loop(lp), _) => (
                        file.line_start(self.sources.first_line(ps.span)),
                        file.line_start(self.sources.last_line(lp.end_span) + 1),
                    ),
                    (frontend::StmtKind::While(w), _) => (
                        file.line_start(self.sources.first_line(ps.span)),
                        file.line_start(self.sources.last_line(w.end_span) + 1),
                    ),
                    _ => (ps.span.start, ps.span.end),
                };
                if (lo..hi).contains(&target) {
                    break;
                }
                out.push(l);
            }
            cur = ps.parent;
        }
        Some(out)
    }

    /// Where a GOTO statement jumps, in its file: C the label's byte offset, Fortran the start
    /// of the labelled line. `None`: not found (computed GOTO, label in another file).
    pub fn goto_target(&self, s: &frontend::Stmt) -> Option<u32> {
        let file = self.sources.get(s.span.file)?;
        let proc = self.prog.proc(s.proc)?;
        if proc.span.file != s.span.file {
            return None;
        }
        let text = self.sources.text(s.span);
        let target: u32 = match self.prog.language {
            Language::C => {
                let name = text
                    .trim()
                    .strip_prefix("goto")?
                    .trim()
                    .trim_end_matches(';')
                    .trim();
                let body = file
                    .text
                    .get(proc.span.start as usize..proc.span.end as usize)?;
                let at = c_label_offset(body, name)? + proc.span.start as usize;
                u32::try_from(at).ok()?
            }
            Language::Fortran => {
                let compact: String = text
                    .to_ascii_lowercase()
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let label: u32 = compact.strip_prefix("goto")?.parse().ok()?;
                let first = self.sources.first_line(proc.span);
                let last = self.sources.last_line(proc.span);
                let line =
                    (first..=last).find(|&l| line_label(file.line_text(l)) == Some(label))?;
                // the target as a line-start offset: compared with loop spans by line
                file.line_start(line)
            }
        };
        Some(target)
    }

    /// Whether an IR `if` stands for a C `switch` or a Fortran `SELECT CASE`.
    pub fn is_switch(&self, i: &frontend::If) -> bool {
        i.switch.is_some()
    }

    /// Whether `id` lies inside a loop whose iterations run on several OpenMP threads: its
    /// markers are reached by several threads at once.
    pub fn in_threads(&self, id: StmtId) -> bool {
        let mut cur = self.prog.stmt(id).and_then(|s| s.parent);
        while let Some(p) = cur {
            if self.threaded.contains(&p) {
                return true;
            }
            cur = self.prog.stmt(p).and_then(|s| s.parent);
        }
        false
    }

    /// Whether `id` lies inside the computation phase of an enclosing loop.
    pub fn in_phase(&self, id: StmtId) -> bool {
        self.enclosing_loops(id).iter().any(|&(_, phase)| phase)
    }
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    fn load(name: &str, text: &str) -> frontend::Lowered {
        frontend::load_str(name, text, &frontend::Options::default())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn mpi_f08_is_rejected_with_its_line() {
        let l = load(
            "a.f90",
            "program a\n  use mpi_f08\n  call MPI_Init()\nend program a\n",
        );
        let plan = Plan::from_program(&l.program);
        let err = instrument(&l.program, &l.sources, &plan).err();
        assert!(
            matches!(err, Some(CodegenError::MpiF08 { line: 2, .. })),
            "{err:?}"
        );
    }

    #[test]
    fn persistent_requests_and_probes_are_wrapped() {
        let c = "#include <mpi.h>\nint main(int argc, char **argv) {\n  MPI_Request r[2]; MPI_Status st; int x = 0, f;\n  MPI_Init(&argc, &argv);\n  MPI_Recv_init(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[0]);\n  MPI_Ssend_init(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]);\n  for (int i = 0; i < 3; i++) {\n    MPI_Startall(2, r);\n    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n    MPI_Start(&r[0]);\n    MPI_Wait(&r[0], &st);\n  }\n  MPI_Iprobe(0, 1, MPI_COMM_WORLD, &f, &st);\n  MPI_Probe(0, 1, MPI_COMM_WORLD, &st);\n  MPI_Request_free(&r[0]);\n  MPI_Request_free(&r[1]);\n  MPI_Finalize();\n  return 0;\n}\n";
        let f = "program p\n  include 'mpif.h'\n  integer r(2), ierr, x\n  call MPI_INIT(ierr)\n  call mpi_send_init(x, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, r(1), ierr)\n  call MPI_Recv_Init(x, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, r(2), ierr)\n  call mpi_startall(2, r, ierr)\n  call mpi_waitall(2, r, MPI_STATUSES_IGNORE, ierr)\n  call mpi_request_free(r(1), ierr)\n  call mpi_finalize(ierr)\nend program p\n";
        for (name, text, calls) in [
            (
                "a.c",
                c,
                &[
                    "augur_MPI_Recv_init(",
                    "augur_MPI_Ssend_init(",
                    "augur_MPI_Startall(",
                    "augur_MPI_Start(",
                    "augur_MPI_Iprobe(",
                    "augur_MPI_Probe(",
                    "augur_MPI_Request_free(",
                ][..],
            ),
            (
                "a.f90",
                f,
                &[
                    "augur_mpi_send_init(",
                    "augur_MPI_Recv_Init(",
                    "augur_mpi_startall(",
                    "augur_mpi_request_free(",
                ][..],
            ),
        ] {
            let l = load(name, text);
            let plan = Plan::from_program(&l.program);
            let out = instrument(&l.program, &l.sources, &plan).unwrap_or_else(|e| panic!("{e}"));
            let Some(main) = out.main() else {
                panic!("no main file")
            };
            let t = &main.text;
            for call in calls {
                assert!(t.contains(call), "{name}: no {call} in\n{t}");
            }
            assert!(out.notes.is_empty(), "{:?}", out.notes);
            // the inits and frees are numbered after the APT's sites, like MPI_Init
            assert!(plan.marks().iter().any(|m| m.role == Role::Request));
        }
    }

    #[test]
    fn unknown_statement_in_plan_is_an_error() {
        let l = load("a.c", "int main(void) { return 0; }\n");
        let plan = Plan::new(vec![Mark {
            stmt: StmtId(99),
            site: 1,
            role: Role::Comm,
        }]);
        let err = instrument(&l.program, &l.sources, &plan).err();
        assert!(
            matches!(err, Some(CodegenError::UnknownStmt { site: 1, stmt: 99 })),
            "{err:?}"
        );
    }

    #[test]
    fn labels_of_fortran_lines() {
        assert_eq!(line_label("   20 CONTINUE"), Some(20));
        assert_eq!(line_label("C  20 comment"), None);
        assert_eq!(line_label("10 x = 1"), Some(10));
        assert_eq!(line_label("      x = 10"), None);
        assert_eq!(line_label("      10x = 1"), None);
    }

    #[test]
    fn c_labels_are_statement_starts() {
        let body = "{ x = a ? b : c; again: x++; std::y; }";
        assert_eq!(c_label_offset(body, "again"), Some(17));
        assert_eq!(c_label_offset(body, "b"), None);
        assert_eq!(c_label_offset(body, "std"), None);
    }
}
