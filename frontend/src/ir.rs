//! The language-neutral IR: the contract between `frontend` and `apt`, `slicer` and `codegen`.
//!
//! Invariants (consumers may rely on them):
//! - Statements live in one arena, [`Program::stmts`]; `StmtId(i)` is index `i`, assigned in
//!   source order (a statement before its nested bodies; [`Program::walk`] visits them in id
//!   order), so the same source always gives the same ids.
//!   Procedures likewise live in [`Program::procs`] with `ProcId(i)` = index `i`.
//! - Every statement and expression carries a [`Span`]: a byte range in the ORIGINAL file the
//!   text came from (after mapping back through fixed-form normalisation, `-D` substitution and
//!   include inlining). [`Sources`] turns spans into 1-based line:col and first/last lines.
//! - Names: Fortran identifiers are lower-cased, except names starting with `mpi_`, which are
//!   upper-cased (`MPI_COMM_WORLD`, `MPI_DOUBLE_PRECISION`) so that C and Fortran agree. C names
//!   are kept as written.
//! - Counted loops use Fortran semantics in both languages: `lo`, `hi` inclusive, signed `step`;
//!   trip count = max(0, floor((hi - lo + step) / step)). C `for (i = a; i < b; i++)` becomes
//!   `lo = a, hi = b - 1, step = 1`; the synthesised `b - 1` carries the span of `b`.
//! - `defs`/`uses` on a [`Stmt`] are the statement's OWN effects (sorted, deduplicated variable
//!   names), not those of nested bodies. Array element writes define the array's name.
//! - Lowering never fails: anything not understood is [`StmtKind::Opaque`] with its def/use set,
//!   plus a diagnostic where the construct matters (GOTO, syntax errors).
//! - Text that macro expansion or normalisation synthesised (a `FOR_ALL(i, n)` expansion, the
//!   ` &` of a continuation) maps to the original text it replaced: statements produced by a
//!   statement macro get the macro use's span. C `switch` and Fortran `SELECT CASE` are `If`s
//!   whose conditions are opaque (the case bodies stay visible).
//! - Names of Fortran calls to MPI in expressions keep their spelling (`MPI_Wtime`); match MPI
//!   names case-insensitively (`mpi_table::lookup` does).
//! - Access paths: a C member access with no run-time index (`g.nx`, `p->nx`, `s.a.b`,
//!   `(*p).nx` as `p->nx`, `a[2].nx`) is a [`SrcExprKind::Var`] named by its path, and a
//!   subscript of one is an `Index` of that path (`g.a[2]`). Such a name is a scalar location
//!   in def/use sets; [`path_root`] gives the variable it lives in. An `Index` whose subscripts
//!   are all literals names a location too ([`SrcExpr::path`]: `ibuf[1]`). Fortran
//!   components are paths the same way (`t%nx`, `u(2)%nx` as `u[2]%nx`, `t%a(3)` an `Index`
//!   of `t%a`). A write to a root (`g = h`, `read *, ibuf`, `f(&g)`) writes every path
//!   under it.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::mpi_table::{MpiOp, Role};

/// Index of a file in [`Sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct FileId(pub u32);

/// A byte range `[start, end)` in the original text of `file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: u32, end: u32) -> Self {
        Span {
            file,
            start,
            end: end.max(start),
        }
    }
    /// The smallest span covering both; `self` if they are in different files.
    pub fn cover(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span::new(
            self.file,
            self.start.min(other.start),
            self.end.max(other.end),
        )
    }
    pub fn len(self) -> u32 {
        self.end - self.start
    }
    pub fn is_empty(self) -> bool {
        self.end == self.start
    }
}

/// A 1-based line and column; the column counts characters, not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// One file that was read: the main source or an included file.
#[derive(Debug, Clone, Serialize)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The file's text. A file that was not valid UTF-8 is stored lossily converted (a
    /// diagnostic says so); offsets then refer to this text, not to the bytes on disk.
    pub text: String,
    #[serde(skip)]
    line_starts: Vec<u32>,
    /// The file whose include directive read this one first (`None`: a main file).
    #[serde(skip)]
    includer: Option<FileId>,
}

impl SourceFile {
    pub fn new(path: PathBuf, text: String) -> Self {
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(u32::try_from(i + 1).unwrap_or(u32::MAX));
            }
        }
        SourceFile {
            path,
            text,
            line_starts,
            includer: None,
        }
    }
    /// Number of lines (a final line without newline counts; an empty file has one line).
    pub fn line_count(&self) -> u32 {
        u32::try_from(self.line_starts.len()).unwrap_or(u32::MAX)
    }
    /// 1-based line containing byte `offset` (clamped to the text).
    pub fn line_of(&self, offset: u32) -> u32 {
        let idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        u32::try_from(idx + 1).unwrap_or(u32::MAX)
    }
    pub fn line_col(&self, offset: u32) -> LineCol {
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let off = (offset as usize).min(self.text.len());
        let col = self
            .text
            .get(start as usize..off)
            .map_or(off.saturating_sub(start as usize), |s| s.chars().count());
        LineCol {
            line,
            col: u32::try_from(col + 1).unwrap_or(u32::MAX),
        }
    }
    /// Byte offset where 1-based `line` starts (end of text past the last line).
    pub fn line_start(&self, line: u32) -> u32 {
        let idx = line.saturating_sub(1) as usize;
        self.line_starts
            .get(idx)
            .copied()
            .unwrap_or_else(|| u32::try_from(self.text.len()).unwrap_or(u32::MAX))
    }
    /// Text of 1-based `line` without its line terminator.
    pub fn line_text(&self, line: u32) -> &str {
        let start = self.line_start(line) as usize;
        let end = self.line_start(line.saturating_add(1)) as usize;
        self.text
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

/// Every file read while loading a program; `FileId(i)` is index `i`, the main file is 0.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    pub fn new() -> Self {
        Sources::default()
    }
    pub fn add(&mut self, path: PathBuf, text: String) -> FileId {
        self.files.push(SourceFile::new(path, text));
        FileId(u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX))
    }
    /// Adds a file read by an include directive of `includer`.
    pub fn add_included(&mut self, path: PathBuf, text: String, includer: FileId) -> FileId {
        let id = self.add(path, text);
        if let Some(f) = self.files.last_mut() {
            f.includer = Some(includer);
        }
        id
    }
    /// The file that included `id` (first), `None` for a main file.
    pub fn includer(&self, id: FileId) -> Option<FileId> {
        self.get(id).and_then(|f| f.includer)
    }
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(u32::try_from(i).unwrap_or(u32::MAX)), f))
    }
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files().find(|(_, f)| f.path == path).map(|(id, _)| id)
    }
    pub fn path(&self, id: FileId) -> Option<&Path> {
        self.get(id).map(|f| f.path.as_path())
    }
    /// 1-based line:col of the span's start.
    pub fn start(&self, span: Span) -> LineCol {
        self.get(span.file)
            .map_or(LineCol { line: 1, col: 1 }, |f| f.line_col(span.start))
    }
    /// First original line of the span (1-based).
    pub fn first_line(&self, span: Span) -> u32 {
        self.get(span.file).map_or(1, |f| f.line_of(span.start))
    }
    /// Last original line the span touches (1-based): the line of its last byte.
    pub fn last_line(&self, span: Span) -> u32 {
        let last = if span.end > span.start {
            span.end - 1
        } else {
            span.start
        };
        self.get(span.file).map_or(1, |f| f.line_of(last))
    }
    /// The span's original text ("" if out of range).
    pub fn text(&self, span: Span) -> &str {
        self.get(span.file)
            .and_then(|f| f.text.get(span.start as usize..span.end as usize))
            .unwrap_or("")
    }
}

/// Source language of a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Language {
    C,
    Fortran,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct StmtId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ProcId(pub u32);

/// A sequence of statements, in source order.
pub type Block = Vec<StmtId>;

/// A whole lowered program: one main file with everything it includes.
#[derive(Debug, Clone, Serialize)]
pub struct Program {
    pub language: Language,
    pub main_file: FileId,
    /// Procedures in source order (`ProcId(i)` = index `i`).
    pub procs: Vec<Procedure>,
    /// Statement arena (`StmtId(i)` = index `i`).
    pub stmts: Vec<Stmt>,
    /// File-scope declarations: C globals and `#define` constants, `-D` constants, Fortran
    /// module variables. Procedure-local ones are in [`Procedure::decls`].
    pub globals: Vec<Decl>,
    /// Fortran modules the sources define (lower-cased).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<String>,
    /// Fortran `use` statements of modules that are not intrinsic (`mpi`, `iso_c_binding`, …),
    /// in source order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub module_uses: Vec<ModuleUse>,
    /// Fortran derived types (lower-cased name) → their components' declarations: what a
    /// path `g%u` names ([`Program::decl`]).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub derived_types: std::collections::BTreeMap<String, Vec<Decl>>,
    /// Fortran derived types (lower-cased) → their type-bound procedures and the type they
    /// extend: what `call g%step(dt)` calls ([`Program::type_bound`]).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub type_procs: std::collections::BTreeMap<String, TypeProcs>,
    /// C typedef names of struct types → the struct they name: `struct pg` for `typedef
    /// struct pg pg_t`, the typedef's own name for an anonymous `typedef struct {…} grid_t`
    /// ([`Program::c_struct`]).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub c_typedefs: std::collections::BTreeMap<String, String>,
    /// C statement-like function macros (`#define CHECK(x) do { … } while (0)`), whose uses
    /// written like calls (`CHECK(MPI_Send(…));`) stay calls of the macro's name, their
    /// arguments lowered: name → what its body does that the model would time
    /// ([`crate::macros::timed_in_body`]: a loop, an MPI call), `None` for a wrapper around
    /// its arguments (an error check).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub c_statement_macros: std::collections::BTreeMap<String, Option<String>>,
}

/// The type-bound procedures of one Fortran derived type (`contains` in its definition).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TypeProcs {
    /// The type it extends (`type, extends(base) :: child`), lower-cased: bindings it does not
    /// define are its parent's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Binding name → what it binds, lower-cased.
    pub bindings: std::collections::BTreeMap<String, TypeBinding>,
}

/// One binding of a derived type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum TypeBinding {
    /// `procedure [, pass(x) | nopass] :: name [=> target]`: `target` is called, with the
    /// object as its passed argument unless `nopass`.
    Specific { target: String, nopass: bool },
    /// `generic :: name => b1, b2`: one of the type's specific bindings, chosen by the
    /// arguments' types.
    Generic(Vec<String>),
}

/// One Fortran `use m` statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleUse {
    /// The module, lower-cased.
    pub module: String,
    pub span: Span,
    /// The procedure whose specification part holds it (`None`: a module's).
    pub proc: Option<ProcId>,
    /// The module whose specification part holds it, or that holds `proc`.
    pub in_module: Option<String>,
}

impl Program {
    /// The struct type a C type's text names (`const struct pg` → `struct pg`, a typedef name
    /// → its struct), None for anything else or an unknown name: two pointers to different
    /// struct types do not point to the same storage (C's aliasing rule).
    pub fn c_struct(&self, ty: &VarType) -> Option<String> {
        let words: Vec<&str> = ty
            .text
            .split_whitespace()
            .filter(|w| !matches!(*w, "const" | "volatile" | "static" | "register" | "extern"))
            .collect();
        match words.as_slice() {
            ["struct", name] => Some(format!("struct {name}")),
            [name] => self.c_typedefs.get(*name).cloned(),
            _ => None,
        }
    }

    /// Puts the arguments of every Fortran call that names some (`call f(a, n=8)`,
    /// `call f(n=8, a=x)`) in the order of the called procedure's dummies, where the sources
    /// define it, so that whatever binds arguments by position binds them right; an optional
    /// dummy the call leaves out before a named one gets an opaque `(absent)` value. A call
    /// whose names do not all match the procedure's dummies, or to a procedure the sources do
    /// not define, keeps its order.
    pub fn bind_keywords(&mut self) {
        for k in 0..self.stmts.len() {
            let StmtKind::Call(call) = &self.stmts[k].kind else {
                continue;
            };
            if call.keywords.is_empty() {
                continue;
            }
            let Some(params) = self
                .proc_by_name(&call.name)
                .map(|p| p.params.iter().map(|d| d.name.clone()).collect::<Vec<_>>())
            else {
                continue;
            };
            let mut slots: Vec<Option<SrcExpr>> = vec![None; params.len()];
            let mut bound = true;
            for (i, (arg, key)) in call.args.iter().zip(&call.keywords).enumerate() {
                let at = match key {
                    None => Some(i),
                    Some(name) => params.iter().position(|d| d == name),
                };
                match at.and_then(|at| slots.get_mut(at)) {
                    Some(slot @ None) => *slot = Some(arg.clone()),
                    _ => bound = false,
                }
            }
            if !bound || call.args.len() != call.keywords.len() {
                continue;
            }
            let used = slots.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
            let span = call.name_span;
            let args: Vec<SrcExpr> = slots
                .into_iter()
                .take(used)
                .map(|a| {
                    a.unwrap_or_else(|| {
                        SrcExpr::new(
                            SrcExprKind::Opaque {
                                text: "(absent)".into(),
                                vars: Vec::new(),
                            },
                            span,
                        )
                    })
                })
                .collect();
            if let StmtKind::Call(call) = &mut self.stmts[k].kind {
                call.args = args;
                call.keywords.clear();
            }
        }
    }

    pub fn stmt(&self, id: StmtId) -> Option<&Stmt> {
        self.stmts.get(id.0 as usize)
    }
    pub fn proc(&self, id: ProcId) -> Option<&Procedure> {
        self.procs.get(id.0 as usize)
    }
    /// Procedure by name (Fortran names compare lower-cased).
    pub fn proc_by_name(&self, name: &str) -> Option<&Procedure> {
        let lower = name.to_ascii_lowercase();
        self.procs.iter().find(|p| match self.language {
            Language::C => p.name == name,
            Language::Fortran => p.name == lower,
        })
    }
    /// The main program (`main` in C, `program` in Fortran), if any.
    pub fn main_proc(&self) -> Option<&Procedure> {
        self.procs.iter().find(|p| p.kind == ProcKind::Main)
    }
    /// All statements of `block` and their nested bodies, pre-order (source order).
    /// Uses an explicit stack: safe on any nesting depth.
    pub fn walk(&self, block: &[StmtId]) -> Vec<StmtId> {
        let mut out = Vec::new();
        let mut stack: Vec<StmtId> = block.iter().rev().copied().collect();
        while let Some(id) = stack.pop() {
            out.push(id);
            if let Some(s) = self.stmt(id) {
                for b in s.kind.blocks().into_iter().rev() {
                    stack.extend(b.iter().rev().copied());
                }
            }
        }
        out
    }
    /// Declaration of `name` visible in `proc`: local first, then its host's (a Fortran
    /// internal procedure sees the variables of the unit it is contained in), then globals.
    pub fn decl(&self, proc: ProcId, name: &str) -> Option<&Decl> {
        self.scoped_decl(proc, name)
            .or_else(|| self.globals.iter().find(|d| d.name == name))
            .or_else(|| self.component_decl(proc, name))
    }

    /// `name`'s declaration in `proc` or the units hosting it.
    fn scoped_decl(&self, proc: ProcId, name: &str) -> Option<&Decl> {
        let mut at = Some(proc);
        // hosts nest at most a level in Fortran; bound the walk anyway
        for _ in 0..8 {
            let p = self.proc(at?)?;
            if let Some(d) = p.decls.iter().find(|d| d.name == name) {
                return Some(d);
            }
            at = p.host;
        }
        None
    }

    /// The declaration of a Fortran component path `g%u` (`a%b%c`): the component of the
    /// derived type its base is declared with (`type(grid) :: g`), followed along the path.
    fn component_decl(&self, proc: ProcId, name: &str) -> Option<&Decl> {
        if self.derived_types.is_empty() {
            return None;
        }
        let (base, path) = name.split_once('%')?;
        let mut decl = self
            .scoped_decl(proc, base)
            .or_else(|| self.globals.iter().find(|d| d.name == base))?;
        for part in path.split('%') {
            let ty = derived_type_name(&decl.ty.text)?;
            decl = self
                .derived_types
                .get(&ty)?
                .iter()
                .find(|d| d.name == part)?;
        }
        Some(decl)
    }
    /// The procedure a type-bound call `object%binding(...)` in `proc` calls and whether the
    /// object is passed as its first argument: the binding of `object`'s declared type
    /// (`type(t)` or `class(t)`) or of a type it extends, a generic one only where it has a
    /// single specific. `None` where `object` is not of a type the sources define with that
    /// binding (a procedure-pointer component, another file's type).
    pub fn type_bound(&self, proc: ProcId, object: &str, binding: &str) -> Option<(String, bool)> {
        let decl = self.decl(proc, object)?;
        let mut ty = derived_type_name(&decl.ty.text)?;
        let mut name = binding.to_string();
        // a chain of extensions and generics is finite in a valid program; bound it anyway
        for _ in 0..64 {
            let procs = self.type_procs.get(&ty)?;
            match procs.bindings.get(&name) {
                Some(TypeBinding::Specific { target, nopass }) => {
                    return Some((target.clone(), !nopass))
                }
                Some(TypeBinding::Generic(specifics)) => match specifics.as_slice() {
                    [one] => name = one.clone(),
                    _ => return None,
                },
                None => ty = procs.parent.clone()?,
            }
        }
        None
    }

    /// Declared (or, in Fortran without `implicit none`, implicit) type of `name` in `proc`.
    pub fn var_type(&self, proc: ProcId, name: &str) -> Option<VarType> {
        if let Some(d) = self.decl(proc, name) {
            return Some(d.ty.clone());
        }
        let p = self.proc(proc)?;
        if self.language == Language::Fortran && !p.implicit_none {
            let first = name.chars().next().map(|c| c.to_ascii_lowercase());
            if let Some(rule) = p
                .implicit
                .iter()
                .find(|r| first.is_some_and(|c| r.first <= c && c <= r.last))
            {
                return Some(rule.ty.clone());
            }
            return Some(VarType::fortran_implicit(name));
        }
        None
    }
}

/// `grid` of a Fortran `type(grid)` or `class(grid)`, lower-cased.
fn derived_type_name(text: &str) -> Option<String> {
    let t = text.trim().to_ascii_lowercase();
    let inner = t
        .strip_prefix("type")
        .or_else(|| t.strip_prefix("class"))?
        .trim()
        .strip_prefix('(')?
        .strip_suffix(')')?;
    Some(inner.trim().to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ProcKind {
    Main,
    Subroutine,
    Function,
}

#[derive(Debug, Clone, Serialize)]
pub struct Procedure {
    pub id: ProcId,
    pub name: String,
    pub kind: ProcKind,
    pub params: Vec<Param>,
    /// Local declarations, including declarations of the parameters, in source order.
    pub decls: Vec<Decl>,
    pub body: Block,
    /// The whole procedure, header to end.
    pub span: Span,
    pub name_span: Span,
    /// Fortran `implicit none` seen (always true for C).
    pub implicit_none: bool,
    /// Fortran `implicit double precision (a-h, o-z)` rules, in order.
    pub implicit: Vec<ImplicitRule>,
    /// Enclosing Fortran module, if the procedure is a module procedure.
    pub module: Option<String>,
    /// Fortran internal procedure (after `contains` in a program or procedure): its host,
    /// whose variables it sees by host association.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<ProcId>,
    /// Fortran `PURE` or `ELEMENTAL` (not `IMPURE`): it may call pure procedures only, which
    /// augur's markers are not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pure: bool,
}

/// One Fortran IMPLICIT rule: names starting with `first..=last` (lower-case) have `ty`.
#[derive(Debug, Clone, Serialize)]
pub struct ImplicitRule {
    pub first: char,
    pub last: char,
    pub ty: VarType,
}

#[derive(Debug, Clone, Serialize)]
pub struct Param {
    pub name: String,
    pub span: Span,
}

/// Base type of a variable or value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum BaseType {
    Integer,
    Real,
    Complex,
    Logical,
    Character,
    /// struct/union/derived type/void/anything else.
    Other,
}

/// A declared type. `bytes` is the element size when known (C `double` → 8, `int` → 4,
/// Fortran `real*8`/`double precision` → 8, default `real`/`integer` → 4).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct VarType {
    pub base: BaseType,
    pub bytes: Option<u32>,
    /// C pointer depth (`double **a` → 2); 0 for Fortran.
    pub pointer: u8,
    /// The type as written (`unsigned long`, `double precision`, `real*8`).
    pub text: String,
}

impl VarType {
    pub fn new(base: BaseType, bytes: Option<u32>, text: impl Into<String>) -> Self {
        VarType {
            base,
            bytes,
            pointer: 0,
            text: text.into(),
        }
    }
    /// Fortran's implicit rule: names starting with i..n are integer, others real.
    pub fn fortran_implicit(name: &str) -> Self {
        match name.bytes().next().map(|b| b.to_ascii_lowercase()) {
            Some(b'i'..=b'n') => VarType::new(BaseType::Integer, Some(4), "integer (implicit)"),
            _ => VarType::new(BaseType::Real, Some(4), "real (implicit)"),
        }
    }
}

/// A declared name: scalar, array or named constant.
#[derive(Debug, Clone, Serialize)]
pub struct Decl {
    pub name: String,
    pub ty: VarType,
    pub kind: DeclKind,
    pub span: Span,
    /// Fortran COMMON block (`""` for blank COMMON) holding this variable.
    pub common: Option<String>,
    /// Its position among the block's members as this procedure lists them (0-based, over
    /// every COMMON statement naming the block): where the block has the same layout in
    /// every procedure, the same storage in all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_slot: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub enum DeclKind {
    Scalar {
        init: Option<SrcExpr>,
    },
    Array {
        dims: Vec<Dim>,
        init: Option<SrcExpr>,
    },
    /// Fortran PARAMETER, C `#define NAME value`, `-D NAME=value`, C `const` with initialiser.
    Constant {
        value: SrcExpr,
        origin: ConstOrigin,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ConstOrigin {
    /// Fortran PARAMETER.
    Parameter,
    /// C `#define`.
    Define,
    /// `-D NAME=VALUE` given by the user.
    CommandLine,
    /// C `const` variable.
    Const,
}

/// One array dimension.
#[derive(Debug, Clone, Serialize)]
pub enum Dim {
    /// C `a[n]`: `n` elements, indices 0..n-1.
    Extent(SrcExpr),
    /// Fortran `a(lo:hi)`, inclusive; `a(n)` is `Bounds { lo: 1, hi: n }` (the `1` is
    /// synthesised with the span of `n`).
    Bounds { lo: SrcExpr, hi: SrcExpr },
    /// `a(*)`, `a(:)`, `a[]`: size not known from the declaration.
    Assumed,
}

/// One statement in the arena.
#[derive(Debug, Clone, Serialize)]
pub struct Stmt {
    pub id: StmtId,
    pub proc: ProcId,
    /// Innermost enclosing statement (loop, if, while), `None` at procedure level.
    pub parent: Option<StmtId>,
    /// The statement's whole text, including nested bodies and the loop's end.
    pub span: Span,
    /// Fortran statement label (`20 continue`).
    pub label: Option<u32>,
    pub kind: StmtKind,
    /// Variables this statement itself writes (sorted).
    pub defs: BTreeSet<String>,
    /// Variables this statement itself reads (sorted).
    pub uses: BTreeSet<String>,
}

#[derive(Debug, Clone, Serialize)]
pub enum StmtKind {
    Assign(Assign),
    Loop(Loop),
    While(While),
    If(If),
    Call(Call),
    Mpi(MpiCall),
    Input(Input),
    Return {
        value: Option<SrcExpr>,
    },
    /// C `break`, Fortran `exit`.
    Break,
    /// C `continue`, Fortran `cycle`.
    Continue,
    Opaque(Opaque),
}

impl Stmt {
    /// Top-level expressions of the statement's own kind (not of nested bodies), in source
    /// order.
    pub fn exprs(&self) -> Vec<&SrcExpr> {
        match &self.kind {
            StmtKind::Assign(a) => vec![&a.target, &a.value],
            StmtKind::Loop(l) => vec![&l.lo, &l.hi, &l.step],
            StmtKind::While(w) => w.cond.iter().collect(),
            StmtKind::If(i) => i.arms.iter().map(|a| &a.cond).collect(),
            StmtKind::Call(c) => c.args.iter().collect(),
            StmtKind::Mpi(m) => m
                .args
                .iter()
                .map(|a| &a.expr)
                .chain(m.result.iter())
                .collect(),
            StmtKind::Input(i) => i.targets.iter().collect(),
            StmtKind::Return { value } => value.iter().collect(),
            StmtKind::Break | StmtKind::Continue | StmtKind::Opaque(_) => Vec::new(),
        }
    }
}

impl StmtKind {
    /// Nested bodies in source order, which is id order (loop body; if arms then else;
    /// while init, update, body — a C `for` header precedes its body).
    pub fn blocks(&self) -> Vec<&Block> {
        match self {
            StmtKind::Loop(l) => vec![&l.body],
            StmtKind::While(w) => vec![&w.init, &w.update, &w.body],
            StmtKind::If(i) => {
                let mut v: Vec<&Block> = i.arms.iter().map(|a| &a.body).collect();
                if let Some(e) = &i.else_body {
                    v.push(e);
                }
                v
            }
            _ => Vec::new(),
        }
    }
    pub fn name(&self) -> &'static str {
        match self {
            StmtKind::Assign(_) => "assign",
            StmtKind::Loop(_) => "loop",
            StmtKind::While(_) => "while",
            StmtKind::If(_) => "if",
            StmtKind::Call(_) => "call",
            StmtKind::Mpi(_) => "mpi",
            StmtKind::Input(_) => "input",
            StmtKind::Return { .. } => "return",
            StmtKind::Break => "break",
            StmtKind::Continue => "continue",
            StmtKind::Opaque(_) => "opaque",
        }
    }
}

/// `target = value`; C compound assignment `a += b` is lowered to `a = a + b`, `i++` to
/// `i = i + 1`. A value read from the command line (`atoi(argv[1])`) appears as
/// [`SrcExprKind::Input`] inside `value`.
#[derive(Debug, Clone, Serialize)]
pub struct Assign {
    /// A [`SrcExprKind::Var`] (a variable or access path) or [`SrcExprKind::Index`] (or
    /// `Deref` as Opaque).
    pub target: SrcExpr,
    pub value: SrcExpr,
}

/// A counted loop with Fortran semantics (see the module doc): `var` runs from `lo` to `hi`
/// inclusive by `step`.
#[derive(Debug, Clone, Serialize)]
pub struct Loop {
    pub var: String,
    pub lo: SrcExpr,
    pub hi: SrcExpr,
    pub step: SrcExpr,
    pub body: Block,
    /// Span of the header (`for (...)` / `do i = 1, n`).
    pub header_span: Span,
    /// Span of what closes the loop: C closing `}` (or the last body statement when there are
    /// no braces), Fortran `end do`/`enddo` or the labelled terminator (`20 continue`, shared
    /// by every loop of a labelled nest ending there).
    pub end_span: Span,
    /// Fortran: the label of the statement that ends the loop (`DO 100 …` or a labelled
    /// `100 END DO`); a `GOTO` to it from the body starts the next iteration, as `cycle` does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_label: Option<u32>,
    /// Fortran `DO CONCURRENT (j = 1:ny, i = 1:nx, mask)`: `var`, `lo`, `hi`, `step` are its
    /// first index; this holds the others. Its iterations are every combination of indices
    /// (the product of the ranges), in no defined order: nothing may be inserted in its body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrent: Option<Box<Concurrent>>,
}

/// The header of a `DO CONCURRENT` beyond its first index (see [`Loop::concurrent`]).
#[derive(Debug, Clone, Serialize)]
pub struct Concurrent {
    /// The other indices, in header order.
    pub more: Vec<LoopIndex>,
    /// The mask (`, a(i) > 0`): iterations where it is false do nothing.
    pub mask: Option<SrcExpr>,
}

/// One index of a `DO CONCURRENT` header: `var = lo:hi[:step]`.
#[derive(Debug, Clone, Serialize)]
pub struct LoopIndex {
    pub var: String,
    pub lo: SrcExpr,
    pub hi: SrcExpr,
    pub step: SrcExpr,
}

impl Loop {
    /// Every index of the loop as `(var, lo, hi, step)`: the first, then a `DO CONCURRENT`'s
    /// others.
    pub fn indices(&self) -> Vec<(&str, &SrcExpr, &SrcExpr, &SrcExpr)> {
        let mut out = vec![(self.var.as_str(), &self.lo, &self.hi, &self.step)];
        if let Some(c) = &self.concurrent {
            out.extend(
                c.more
                    .iter()
                    .map(|x| (x.var.as_str(), &x.lo, &x.hi, &x.step)),
            );
        }
        out
    }
}

/// A loop that is not counted: C `while`, `do ... while`, a `for` whose header is not a
/// counted loop, Fortran `do while` and bare `do`.
#[derive(Debug, Clone, Serialize)]
pub struct While {
    /// `None` means no condition (`for (;;)`, Fortran bare `do`).
    pub cond: Option<SrcExpr>,
    /// C `for` initialiser, run once before the loop.
    pub init: Block,
    pub body: Block,
    /// C `for` update, run after each iteration.
    pub update: Block,
    /// The condition is tested after the body (C `do ... while`).
    pub post_test: bool,
    pub header_span: Span,
    pub end_span: Span,
    /// As [`Loop::end_label`] (Fortran `DO WHILE` and bare `DO`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_label: Option<u32>,
}

/// `if / else if / else`: arms in order, the first true condition wins.
#[derive(Debug, Clone, Serialize)]
pub struct If {
    pub arms: Vec<IfArm>,
    pub else_body: Option<Block>,
    /// Fortran `end if` / C closing brace of the last branch (or the last branch's single
    /// statement). For a one-line Fortran logical IF (`if (c) x = 1`) it equals the whole
    /// statement's span.
    pub end_span: Span,
    /// Set when the chain stands for a C `switch` or a Fortran `SELECT CASE`.
    pub switch: Option<Switch>,
}

/// A C `switch` (one arm under an opaque `switch x` condition) or a Fortran `SELECT CASE`
/// (an arm per `case (…)` comparing the selector, `case default` the else).
#[derive(Debug, Clone, Serialize)]
pub struct Switch {
    /// The `case default` head, where the else's statements start.
    pub default: Option<Span>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IfArm {
    pub cond: SrcExpr,
    pub body: Block,
}

impl If {
    /// An IF that may leave its block — an arm or the else holds, directly or in an IF nested
    /// in it (not in a loop, not in a `switch`/`SELECT CASE`), a `return`, C
    /// `continue`/`break` or Fortran `CYCLE`/`EXIT` (`if (l == last) { smooth(L, 8); return;
    /// }`, `IF (N .LE. 0) RETURN`, `if (a) { if (b) return; x(); }`, `if (c) { work(); if
    /// (done) break; }`) — and may also fall out of its end ([`falls_through`]): the
    /// statements after it in its block, and after its block in the enclosing IF arms that
    /// may leave, run only on the paths that fall out of it, as if they followed each of them.
    /// Not a `switch` (a `break` there leaves the switch). The APT and the instrumentation
    /// plan both read them so (their site order must agree).
    pub fn leaves_early(&self, prog: &Program) -> bool {
        self.switch.is_none()
            && (self.arms.iter().any(|a| may_leave(prog, &a.body))
                || self
                    .else_body
                    .as_deref()
                    .is_some_and(|b| may_leave(prog, b)))
            && self.falls_through(prog)
    }

    /// The rule of [`Self::leaves_early`] where following nested exits would copy too much
    /// ([`nested_exits_fit`]): one arm, ending in a leave, and an else that does not.
    pub fn leaves_directly(&self, prog: &Program) -> bool {
        let ends_by_leaving =
            |b: &[StmtId]| b.last().and_then(|&id| prog.stmt(id)).is_some_and(is_leave);
        self.switch.is_none()
            && self.arms.len() == 1
            && self.arms.first().is_some_and(|a| ends_by_leaving(&a.body))
            && !self.else_body.as_deref().is_some_and(ends_by_leaving)
            && self.falls_through(prog)
    }

    /// Whether control may come out of the end of this IF: it has no else, or some arm or the
    /// else falls through ([`falls_through`]).
    pub fn falls_through(&self, prog: &Program) -> bool {
        self.else_body.is_none()
            || self.arms.iter().any(|a| falls_through(prog, &a.body))
            || self
                .else_body
                .as_deref()
                .is_some_and(|b| falls_through(prog, b))
    }
}

/// Statements placed, at most, when the statements after IFs that may leave early are put on
/// every path out of them ([`nested_exits_fit`]).
const NESTED_EXITS_BUDGET: usize = 50_000;

/// Whether `prog` can follow nested early exits ([`If::leaves_early`]) within a budget of
/// statement copies: each path out of such an IF takes a copy of what follows it, so IFs in a
/// row multiply them. When not, every IF takes the direct rule ([`If::leaves_directly`]),
/// which copies nothing. The APT and the instrumentation plan both decide by this.
pub fn nested_exits_fit(prog: &Program) -> bool {
    let mut budget = NESTED_EXITS_BUDGET;
    prog.procs
        .iter()
        .all(|p| placed(prog, &p.body, &[], &mut budget))
}

/// Counts the statements of `block` followed by `then` as the APT places them, down from
/// `budget`; false when it runs out.
fn placed(prog: &Program, block: &[StmtId], then: &[&[StmtId]], budget: &mut usize) -> bool {
    for (j, &id) in block.iter().enumerate() {
        let Some(s) = prog.stmt(id) else { continue };
        let Some(left) = budget.checked_sub(1) else {
            return false;
        };
        *budget = left;
        if let StmtKind::If(i) = &s.kind {
            if i.leaves_early(prog) {
                let mut after: Vec<&[StmtId]> = vec![block.get(j + 1..).unwrap_or(&[])];
                after.extend_from_slice(then);
                let arms = i.arms.iter().all(|a| placed(prog, &a.body, &after, budget));
                return arms
                    && match &i.else_body {
                        Some(b) => placed(prog, b, &after, budget),
                        None => placed_seq(prog, &after, budget),
                    };
            }
        }
        if !s
            .kind
            .blocks()
            .into_iter()
            .all(|b| placed(prog, b, &[], budget))
        {
            return false;
        }
    }
    then.is_empty() || !falls_through(prog, block) || placed_seq(prog, then, budget)
}

fn placed_seq(prog: &Program, blocks: &[&[StmtId]], budget: &mut usize) -> bool {
    match blocks.split_first() {
        Some((first, more)) => placed(prog, first, more, budget),
        None => true,
    }
}

/// `return`, C `continue`/`break`, Fortran `CYCLE`/`EXIT`: what [`If::leaves_early`] leaves by.
fn is_leave(s: &Stmt) -> bool {
    matches!(
        s.kind,
        StmtKind::Return { .. } | StmtKind::Continue | StmtKind::Break
    )
}

/// Whether `block` holds a leave ([`is_leave`]) directly or in an IF (not a switch) nested in
/// it, loops not entered.
fn may_leave(prog: &Program, block: &[StmtId]) -> bool {
    block
        .iter()
        .filter_map(|&id| prog.stmt(id))
        .any(|s| match &s.kind {
            StmtKind::If(i) if i.switch.is_none() => {
                i.arms.iter().any(|a| may_leave(prog, &a.body))
                    || i.else_body.as_deref().is_some_and(|b| may_leave(prog, b))
            }
            _ => is_leave(s),
        })
}

/// Whether control may come out of the end of `block`: none of its statements is a leave
/// ([`is_leave`]) or an IF (not a switch) that never falls through ([`If::falls_through`]).
/// Anything else (loops, `goto`, `exit()`) counts as falling through.
pub fn falls_through(prog: &Program, block: &[StmtId]) -> bool {
    block
        .iter()
        .filter_map(|&id| prog.stmt(id))
        .all(|s| match &s.kind {
            // a `break` in a C switch leaves the switch only; SELECT CASE is read alike
            StmtKind::If(i) => i.switch.is_some() || i.falls_through(prog),
            _ => !is_leave(s),
        })
}

/// A call statement to a non-MPI procedure (user or library): C `f(a);`, Fortran
/// `call f(a)`. Calls inside expressions stay [`SrcExprKind::Call`].
#[derive(Debug, Clone, Serialize)]
pub struct Call {
    /// C: as written; Fortran: lower-cased.
    pub name: String,
    pub args: Vec<SrcExpr>,
    /// Fortran keyword arguments (`call f(a, n=8)`): the dummy each argument names, `None`
    /// for a positional one; empty where none is named. After lowering,
    /// [`Program::bind_keywords`] puts the arguments of a call to a procedure of the sources
    /// in the order of its dummies and empties this.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<Option<String>>,
    /// C `x = f(a);` is an Assign, not a Call; this is the statement `f(a);` only.
    pub name_span: Span,
}

/// One MPI call, classified through [`crate::mpi_table`]. C `MPI_Send(...)`, `ierr =
/// MPI_Send(...)` and Fortran `call mpi_send(..., ierr)` give the same `op` and roles (plus
/// `Role::Ierr` for Fortran's trailing argument).
///
/// An MPI call nested inside a larger expression (`if (MPI_Send(...) != MPI_SUCCESS)`,
/// `t = t + MPI_Wtime()`) is hoisted: it gets its own `Mpi` statement, with the call's span,
/// right before the statement containing it, and the call also stays in that expression.
#[derive(Debug, Clone, Serialize)]
pub struct MpiCall {
    pub op: MpiOp,
    /// The function name as written (`MPI_Send`, `mpi_send`, `MPI_SEND`).
    pub name: String,
    pub args: Vec<MpiArg>,
    /// `x` in C `x = MPI_Wtime();` / `ierr = MPI_Send(...)`, or Fortran `t = MPI_Wtime()`.
    pub result: Option<SrcExpr>,
}

impl MpiCall {
    /// The first argument with this role.
    pub fn arg(&self, role: Role) -> Option<&MpiArg> {
        self.args.iter().find(|a| a.role == role)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct MpiArg {
    pub role: Role,
    /// The argument with a top-level C `&` removed (`&rank` → `rank`, `&a[0]` → `a[0]`).
    pub expr: SrcExpr,
    /// The C argument was written `&expr`.
    pub address_of: bool,
}

/// A statement that reads values from outside the program.
#[derive(Debug, Clone, Serialize)]
pub struct Input {
    /// Variables or array elements assigned, in order.
    pub targets: Vec<SrcExpr>,
    pub origin: InputOrigin,
}

/// Where a value comes from at run time.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum InputOrigin {
    /// `scanf`, Fortran `read(*,*)` / `read(5,*)`.
    Stdin,
    /// Command-line argument `i` (1-based, as `argv[i]` / `get_command_argument(i, ...)`);
    /// `None` when the index is not a literal.
    Argv(Option<u32>),
    /// Any other unit or stream (`fscanf(f, ...)`, `read(10, *)`).
    File,
    /// Environment variable (`getenv("X")`, `get_environment_variable`).
    Env(Option<String>),
    /// A command-line option's argument read through `getopt` (`atoi(optarg)`,
    /// `sscanf(optarg, …)`): the option as written in the `case` the read sits under
    /// (`n` for `case 'n':`), `None` elsewhere.
    Option(Option<String>),
}

/// A statement the lowering keeps only as text with its def/use set (I/O, GOTO, DATA,
/// allocate, struct access, ...).
#[derive(Debug, Clone, Serialize)]
pub struct Opaque {
    /// The statement's first line of text (trimmed, at most 120 characters).
    pub text: String,
    /// Why it is opaque, for humans (`"goto"`, `"syntax error"`, `"print statement"`).
    pub reason: String,
    /// Fortran `ALLOCATE`: the arrays it gives bounds, in order (`allocate(u(0:n+1, m))`).
    pub allocations: Vec<Allocation>,
    /// A Fortran `WHERE` construct or statement: the array its first masked assignment
    /// writes (`y` of `where (x > 0) y = 2*x`), whose elements it visits (an array statement
    /// of that shape, [`crate::array_op`]); `None` otherwise.
    pub masked: Option<SrcExpr>,
}

/// One array of an `ALLOCATE` with the bounds it gets.
#[derive(Debug, Clone, Serialize)]
pub struct Allocation {
    pub array: String,
    pub dims: Vec<Dim>,
}

/// An expression of the PROGRAM (its syntax), not a symbolic expression; the symbolic type
/// is `symbolic::Expr`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SrcExpr {
    pub kind: SrcExprKind,
    pub span: Span,
    /// Value type when cheaply known (literals, declared variables, arithmetic on them).
    pub ty: Option<BaseType>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SrcExprKind {
    Int(i64),
    /// A real literal: its text as written (`1.0d0`) and value.
    Real {
        text: String,
        value: f64,
    },
    Str(String),
    Bool(bool),
    Var(String),
    /// `a(i, j)` / `a[i][j]` (C subscripts flattened in order). Fortran sections put
    /// [`SrcExprKind::Range`] among the indices.
    Index {
        array: String,
        indices: Vec<SrcExpr>,
    },
    /// Fortran `lo:hi:step` in an array section; each part optional.
    Range {
        lo: Option<Box<SrcExpr>>,
        hi: Option<Box<SrcExpr>>,
        step: Option<Box<SrcExpr>>,
    },
    /// Function or intrinsic call (`min`, `mod`, `sqrt`, `f(x)`); name lower-cased in Fortran.
    Call {
        name: String,
        args: Vec<SrcExpr>,
    },
    /// Fortran structure constructor `task_t(k, lo, hi)` of a derived type the sources define
    /// (lower-cased): builds a value, calls nothing but what its arguments call.
    Construct {
        ty: String,
        args: Vec<SrcExpr>,
    },
    Unary {
        op: UnOp,
        operand: Box<SrcExpr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<SrcExpr>,
        rhs: Box<SrcExpr>,
    },
    /// C `c ? a : b`.
    Ternary {
        cond: Box<SrcExpr>,
        then: Box<SrcExpr>,
        other: Box<SrcExpr>,
    },
    /// C `sizeof(type)` / `sizeof expr`; the type when it is a type name.
    SizeOf {
        ty: Option<VarType>,
        expr: Option<Box<SrcExpr>>,
    },
    /// C cast `(double) x`.
    Cast {
        ty: VarType,
        expr: Box<SrcExpr>,
    },
    /// A value read at run time: `atoi(argv[1])`, `atof`, `strtol`, `getenv`.
    Input(InputOrigin),
    /// Anything else (a member reached through a run-time index, pointer arithmetic we do not
    /// model, too deep); the variables it reads are kept so def/use stays sound.
    Opaque {
        text: String,
        vars: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    /// C `&x` (outside MPI argument lists, where it is stripped).
    AddrOf,
    /// C `*p`.
    Deref,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Division; see [`SrcExprKind::Binary`]'s `ty`: `Some(Integer)` on the result means
    /// integer (truncating) division.
    Div,
    /// C `%` (Fortran `mod` is a Call).
    Rem,
    /// Fortran `**`.
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// Fortran `.eqv.` / `.neqv.`.
    Eqv,
    Neqv,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    /// Fortran `//`.
    Concat,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Pow => "**",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Eqv => ".eqv.",
            BinOp::Neqv => ".neqv.",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Concat => "//",
        }
    }
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

/// The variable an access path lives in: `g` for `g.nx`, `p->a.b`, `a[2]`; a plain name is
/// its own root.
pub fn path_root(name: &str) -> &str {
    let end = name.find(['.', '-', '[', '(', '%']).unwrap_or(name.len());
    name.get(..end).unwrap_or(name)
}

/// Whether access path `path` lies under `root` (a strictly longer path starting with it:
/// `g.nx` and `g.a[2]` under `g`, `g.a[2]` under `g.a`; `g.nx` is not under `g.n`).
pub fn path_under(path: &str, root: &str) -> bool {
    path.len() > root.len()
        && path.starts_with(root)
        && matches!(
            path.as_bytes().get(root.len()),
            Some(b'.' | b'-' | b'[' | b'(' | b'%')
        )
}

/// The last member of an access path, after its last `.`, `->` or `%` (`nx` for `g.nx`,
/// `p->nx` and Fortran `t%nx`, `a[2]` for `p->a[2]`), and whether it is reached through a
/// pointer (`->`). `None` for a plain name or an element of a plain array.
pub fn path_member(path: &str) -> Option<(&str, bool)> {
    let dot = path.rfind(['.', '%']);
    let arrow = path.rfind("->");
    match (dot, arrow) {
        (Some(d), Some(a)) if d > a => path.get(d + 1..).map(|m| (m, false)),
        (_, Some(a)) => path.get(a + 2..).map(|m| (m, true)),
        (Some(d), None) => path.get(d + 1..).map(|m| (m, false)),
        (None, None) => None,
    }
}

impl SrcExpr {
    /// The location this expression names when it has no run-time index: a variable or
    /// access path (`n`, `g.nx`), or an element with literal subscripts (`ibuf[1]`,
    /// `a[1][2]`, whatever the language wrote).
    pub fn path(&self) -> Option<String> {
        match &self.kind {
            SrcExprKind::Var(v) => Some(v.clone()),
            // C `*p` is `p[0]` (a routine's result through a pointer argument: `*rows = n / p`)
            SrcExprKind::Unary {
                op: UnOp::Deref,
                operand,
            } => match &operand.kind {
                SrcExprKind::Var(v) => Some(format!("{v}[0]")),
                _ => None,
            },
            SrcExprKind::Index { array, indices } if !indices.is_empty() => {
                let mut out = array.clone();
                for i in indices {
                    out.push_str(&format!("[{}]", i.as_int()?));
                }
                Some(out)
            }
            _ => None,
        }
    }
    pub fn new(kind: SrcExprKind, span: Span) -> Self {
        SrcExpr {
            kind,
            span,
            ty: None,
        }
    }
    pub fn with_type(mut self, ty: Option<BaseType>) -> Self {
        self.ty = ty;
        self
    }
    pub fn int(value: i64, span: Span) -> Self {
        SrcExpr {
            kind: SrcExprKind::Int(value),
            span,
            ty: Some(BaseType::Integer),
        }
    }
    pub fn var(name: impl Into<String>, span: Span) -> Self {
        SrcExpr::new(SrcExprKind::Var(name.into()), span)
    }
    pub fn binary(op: BinOp, lhs: SrcExpr, rhs: SrcExpr) -> Self {
        let span = lhs.span.cover(rhs.span);
        let ty = crate::types::binary_type(op, lhs.ty, rhs.ty);
        SrcExpr {
            kind: SrcExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
            ty,
        }
    }
    /// Direct sub-expressions in order.
    pub fn children(&self) -> Vec<&SrcExpr> {
        match &self.kind {
            SrcExprKind::Index { indices, .. } => indices.iter().collect(),
            SrcExprKind::Call { args, .. } | SrcExprKind::Construct { args, .. } => {
                args.iter().collect()
            }
            SrcExprKind::Range { lo, hi, step } => {
                [lo, hi, step].into_iter().flatten().map(|b| &**b).collect()
            }
            SrcExprKind::Unary { operand, .. } => vec![operand],
            SrcExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            SrcExprKind::Ternary { cond, then, other } => vec![cond, then, other],
            SrcExprKind::SizeOf { expr, .. } => expr.iter().map(|b| &**b).collect(),
            SrcExprKind::Cast { expr, .. } => vec![expr],
            _ => Vec::new(),
        }
    }
    /// This expression and all sub-expressions, pre-order (explicit stack).
    pub fn walk(&self) -> Vec<&SrcExpr> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            out.push(e);
            stack.extend(e.children().into_iter().rev());
        }
        out
    }
    /// Variables read by this expression (array names included; function names and the
    /// operand of `sizeof(type)` not).
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for e in self.walk() {
            match &e.kind {
                SrcExprKind::Var(v) => {
                    out.insert(v.clone());
                }
                SrcExprKind::Index { array, .. } => {
                    out.insert(array.clone());
                }
                SrcExprKind::Opaque { vars, .. } => out.extend(vars.iter().cloned()),
                _ => {}
            }
        }
        out
    }
    /// The variable this expression names or indexes (`a` for `a`, `a(i)`, `&a[0]`).
    pub fn base_var(&self) -> Option<&str> {
        match &self.kind {
            SrcExprKind::Var(v) => Some(v),
            SrcExprKind::Index { array, .. } => Some(array),
            SrcExprKind::Unary {
                op: UnOp::AddrOf | UnOp::Deref,
                operand,
            } => operand.base_var(),
            SrcExprKind::Cast { expr, .. } => expr.base_var(),
            _ => None,
        }
    }
    pub fn as_int(&self) -> Option<i64> {
        match &self.kind {
            SrcExprKind::Int(v) => Some(*v),
            SrcExprKind::Unary {
                op: UnOp::Neg,
                operand,
            } => operand.as_int().map(|v| -v),
            _ => None,
        }
    }
}
