//! What a computation phase may write and which variable a send's buffer is, so the model can
//! tell whether a phase may rewrite, in place, data a send of the same communication phase
//! has just sent ([`crate::may_rewrite`]).
//!
//! Names. A location is named by its access path as the front end spells it, element
//! subscripts dropped (`a` for `a[i]` or `a(i,j)`, `g.u` for `g.u[i]`, `t%u` for `t%u(i)`,
//! `p->v`, `g->f` for `g->f[i]` through a pointer `g`), not its root: `t%v` is beside `t%u`, and a name holds the paths under it (`t`
//! holds `t%u`); storage reached through a C pointer is also named by everything the pointer
//! may point to (its pointees: the arrays, other pointers and members it is assigned from;
//! `malloc` gives the pointer's own block; a Fortran COMMON member is also named by its block
//! and position there, `/field/%1`, where every procedure lays the block out alike, else by
//! the whole block, `/field/`). Both sides use the same naming, so two accesses
//! may touch the same storage only if a name of one equals, or is a path under, a name of the
//! other. Names are those of the procedure the phase or send is in.
//!
//! Writes of a nest: assignment targets, loop counters, input targets, arguments MPI writes,
//! and calls: a user procedure's summary maps the formals it may write (transitively,
//! recursion by fixpoint) to the caller's actual arguments (narrowed to the member or
//! component paths it writes under a formal: `relax(&g)` writing `g->u[i]` writes `g.u`)
//! plus the globals it writes (a store through a `T **` formal, `(*sl)[k] = …`, is named by
//! the formal, so a call passing `&v` names `v`; the procedure's own nests leave it unknown);
//! an
//! intrinsic or known library routine writes what its table says. Unknown (`Err` with the
//! reason): a write through a pointer whose pointees are not all known, a call through a
//! function pointer that is not resolved, an external routine receiving an array, a statement
//! the front end keeps opaque that may hide writes (`where`, `associate`, `*(p+i) = …`), a
//! Fortran POINTER (its association is opaque here).
use std::collections::{BTreeMap, BTreeSet};

use frontend::{
    path_member, path_root, BinOp, DeclKind, Language, MpiCall, ProcId, Program, SrcExpr,
    SrcExprKind, Stmt, StmtId, StmtKind, UnOp,
};

use crate::pointers::pointer_call;
use crate::procs::{for_each_expr, user_proc, ProcFacts};

/// Names of storage (see the module doc).
pub type Names = BTreeSet<String>;
type Found = Result<Names, String>;

/// C library routines that write none of their arguments' storage (beyond scalars passed by
/// address, which the statement's def set names).
const C_READONLY: &[&str] = &[
    "abort",
    "assert",
    "atof",
    "atoi",
    "atol",
    "clock",
    "exit",
    "fclose",
    "fflush",
    "fprintf",
    "fputc",
    "fputs",
    "free",
    "fwrite",
    "gettimeofday",
    "perror",
    "printf",
    "putchar",
    "puts",
    "sleep",
    "srand",
    "strcmp",
    "strlen",
    "strncmp",
    "time",
    "usleep",
];

/// C library routines writing the storage their first argument points to, and only that.
const C_WRITES_FIRST: &[&str] = &[
    "fgets", "fread", "memcpy", "memmove", "memset", "snprintf", "sprintf", "strcat", "strcpy",
    "strncat", "strncpy",
];

/// C allocation functions: a pointer assigned their result names its own block.
const C_ALLOC: &[&str] = &["aligned_alloc", "calloc", "malloc", "realloc", "valloc"];

/// Fortran statements kept opaque that write nothing but what their def set names.
const FORTRAN_SAFE_OPAQUE: &[&str] = &[
    "allocate",
    "backspace",
    "close",
    "continue",
    "cycle",
    "data statement",
    "deallocate",
    "endfile",
    "error stop",
    "exit",
    "flush",
    "format",
    "goto",
    "nullify",
    "open",
    "pointer association",
    "print",
    "return",
    "rewind",
    "stop",
    // a WHERE's defs are its masked assignments' targets
    "where",
];

/// What calling a user procedure may write, as the caller sees it.
#[derive(Debug, Clone, Default, PartialEq)]
struct Summary {
    /// Positions of formals whose storage the procedure may write (C: through the formal;
    /// Fortran: the formal itself or through it).
    formals: BTreeSet<usize>,
    /// Formals of `formals` written only at paths under them: those paths' suffixes (`->u`
    /// for `g->u[i]`, `%u` for `t%u(i)`), so the caller names the actual's member, not all
    /// of it.
    parts: BTreeMap<usize, BTreeSet<String>>,
    /// Names rooted in program-wide storage it may write.
    globals: Names,
    /// Why its writes cannot be named.
    unknown: Option<String>,
}

/// Writes of a walk: `own` are plain variables assigned as a whole (a C formal there is the
/// callee's copy), `out` everything else.
#[derive(Debug, Default)]
struct Acc {
    own: Names,
    out: Names,
    unknown: Option<String>,
    /// Why some name of `out` only means something to a caller: a store through a `T **`
    /// formal (`(*sl)[k] = …`) is named by the formal, which a call site maps to its actual
    /// (`&sl` → `sl`); the procedure's own nests leave such a write unknown.
    callers_only: Option<String>,
}

impl Acc {
    fn add(&mut self, found: Found) {
        match found {
            Ok(n) => self.out.extend(n),
            Err(r) => self.fail(r),
        }
    }
    fn fail(&mut self, r: String) {
        if self.unknown.is_none() {
            self.unknown = Some(r);
        }
    }
}

/// The write analysis of one program: summaries of every procedure, then queries.
#[derive(Debug)]
pub struct Writes<'a> {
    prog: &'a Program,
    facts: &'a ProcFacts,
    /// Assignments `x = …` by the target's name (plain name or access path).
    assigns: BTreeMap<&'a str, Vec<&'a Stmt>>,
    /// C: assignments to access paths, by their last member (`u` for `g.u = …`, `q->u = …`).
    members: BTreeMap<&'a str, Vec<&'a Stmt>>,
    /// Statements that may reseat a C pointer without assigning it: `&p` passed to a call,
    /// an opaque statement or input naming it.
    reseats: BTreeMap<String, Vec<&'a Stmt>>,
    /// Fortran: the left sides of pointer associations `p => v` (lower-case).
    associated: Vec<String>,
    /// Fortran: names that may share storage, which the IR does not record: the items of
    /// one `EQUIVALENCE` group, a module variable and its local name in `use m, only: l => v`.
    aliases: Vec<Names>,
    /// COMMON blocks laid out alike in every procedure naming them (the same members' sizes
    /// in the same order): a member is named by its block and position there, `/field/%2`,
    /// not by the whole block, so a counter beside an array is not that array.
    same_layout: BTreeSet<String>,
    summaries: Vec<Summary>,
}

/// The COMMON blocks every procedure lays out alike: the same number of members, each of the
/// same type and dimensions (as written) at the same position.
fn same_layout(prog: &Program) -> BTreeSet<String> {
    // block -> its layouts, one per procedure naming it
    let mut layouts: BTreeMap<&str, Vec<Vec<(u32, String)>>> = BTreeMap::new();
    for p in &prog.procs {
        let mut here: BTreeMap<&str, Vec<(u32, String)>> = BTreeMap::new();
        for d in &p.decls {
            let Some(c) = d.common.as_deref() else {
                continue;
            };
            // the dimensions as written (spans differ between procedures)
            let shape: Vec<String> = match &d.kind {
                DeclKind::Array { dims, .. } => dims
                    .iter()
                    .map(|x| match x {
                        frontend::Dim::Extent(n) => n.to_string(),
                        frontend::Dim::Bounds { lo, hi } => format!("{lo}:{hi}"),
                        frontend::Dim::Assumed => "*".into(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let slot = d.common_slot.unwrap_or(u32::MAX);
            here.entry(c).or_default().push((
                slot,
                format!("{:?} {:?} {}", d.ty.base, d.ty.bytes, shape.join(",")),
            ));
        }
        for (c, mut l) in here {
            l.sort();
            layouts.entry(c).or_default().push(l);
        }
    }
    layouts
        .into_iter()
        .filter(|(_, ls)| {
            ls.windows(2).all(|w| w[0] == w[1])
                && ls
                    .first()
                    .is_some_and(|l| l.iter().enumerate().all(|(k, (s, _))| *s as usize == k))
        })
        .map(|(c, _)| c.to_string())
        .collect()
}

fn strip(e: &SrcExpr) -> &SrcExpr {
    match &e.kind {
        SrcExprKind::Cast { expr, .. } => strip(expr),
        _ => e,
    }
}

fn is_plain(path: &str) -> bool {
    path_root(path) == path
}

impl<'a> Writes<'a> {
    /// Indexes the program and computes every procedure's summary.
    pub fn new(prog: &'a Program, sources: &frontend::Sources, facts: &'a ProcFacts) -> Self {
        let aliases = match prog.language {
            Language::Fortran => sources
                .files()
                .flat_map(|(_, f)| crate::aliases::fortran_aliases(&f.text))
                .collect(),
            Language::C => Vec::new(),
        };
        let mut w = Writes {
            aliases,
            same_layout: same_layout(prog),
            prog,
            facts,
            assigns: BTreeMap::new(),
            members: BTreeMap::new(),
            reseats: BTreeMap::new(),
            associated: Vec::new(),
            summaries: vec![Summary::default(); prog.procs.len()],
        };
        for s in &prog.stmts {
            w.index(s);
        }
        w.summarize();
        w
    }

    fn index(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Assign(a) => {
                if let SrcExprKind::Var(v) = &a.target.kind {
                    self.assigns.entry(v.as_str()).or_default().push(s);
                    if !is_plain(v) {
                        if let Some((m, _)) = path_member(v) {
                            self.members.entry(m).or_default().push(s);
                        }
                    }
                }
            }
            StmtKind::Call(c) => {
                for a in &c.args {
                    if let SrcExprKind::Unary {
                        op: UnOp::AddrOf,
                        operand,
                    } = &strip(a).kind
                    {
                        if let SrcExprKind::Var(v) = &operand.kind {
                            self.reseats.entry(v.clone()).or_default().push(s);
                        }
                    }
                }
            }
            StmtKind::Mpi(m) => {
                for a in m.args.iter().filter(|a| a.address_of) {
                    if let SrcExprKind::Var(v) = &a.expr.kind {
                        if a.role.is_written_by(m.op) {
                            self.reseats.entry(v.clone()).or_default().push(s);
                        }
                    }
                }
            }
            StmtKind::Input(_) => {
                for d in &s.defs {
                    self.reseats.entry(d.clone()).or_default().push(s);
                }
            }
            StmtKind::Opaque(o) => {
                if o.reason == "pointer association" {
                    if let Some((lhs, _)) = o.text.split_once("=>") {
                        self.associated.push(lhs.trim().to_ascii_lowercase());
                    }
                } else {
                    for d in &s.defs {
                        self.reseats.entry(d.clone()).or_default().push(s);
                    }
                }
            }
            _ => {}
        }
    }

    /// Iterates the summaries to a fixpoint (each pass only grows them; names and flags are
    /// finite). A pass limit that is reached leaves every procedure unknown.
    fn summarize(&mut self) {
        let n = self.prog.procs.len();
        // callees first (the reverse of the analysis order), updated in place: one pass
        // settles a program without recursion, a second confirms it
        let mut order: Vec<ProcId> = self.facts.order.iter().rev().copied().collect();
        let missing: Vec<ProcId> = (self.prog.procs.iter().map(|p| p.id))
            .filter(|p| !order.contains(p))
            .collect();
        order.extend(missing);
        for _ in 0..(4 * n + 8) {
            let mut changed = false;
            for &p in &order {
                let next = self.summary(p);
                if let Some(slot) = self.summaries.get_mut(p.0 as usize) {
                    if *slot != next {
                        *slot = next;
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
        for s in &mut self.summaries {
            s.unknown = Some("its writes did not settle".into());
        }
    }

    fn summary(&self, proc: ProcId) -> Summary {
        let Some(p) = self.prog.proc(proc) else {
            return Summary::default();
        };
        let mut acc = Acc::default();
        for id in self.prog.walk(&p.body) {
            if let Some(s) = self.prog.stmt(id) {
                self.stmt(s, &mut acc);
            }
        }
        let fortran = self.prog.language == Language::Fortran;
        let through: Names = if fortran {
            acc.out.union(&acc.own).cloned().collect()
        } else {
            acc.out.clone()
        };
        let roots: BTreeSet<&str> = through.iter().map(|n| path_root(n)).collect();
        let formals: BTreeSet<usize> = p
            .params
            .iter()
            .enumerate()
            .filter(|(_, f)| roots.contains(f.name.as_str()))
            .map(|(k, _)| k)
            .collect();
        let parts = p
            .params
            .iter()
            .enumerate()
            .filter(|(k, f)| formals.contains(k) && !through.contains(&f.name))
            .map(|(k, f)| {
                let suffixes = through
                    .iter()
                    .filter(|n| frontend::path_under(n, &f.name))
                    .filter_map(|n| n.get(f.name.len()..).map(str::to_string))
                    .collect();
                (k, suffixes)
            })
            .collect();
        // storage a caller may see: globals, COMMON blocks, module and host variables —
        // everything the procedure does not declare itself (a Fortran implicit local passes
        // too: one name more, never a write missed)
        let globals = acc
            .out
            .iter()
            .chain(&acc.own)
            .filter(|n| {
                let root = path_root(n);
                root.starts_with('/') || !self.is_local(proc, root)
            })
            .cloned()
            .collect();
        Summary {
            formals,
            parts,
            globals,
            unknown: acc.unknown,
        }
    }

    /// What the nest rooted at statement `id` may write: `Err` with the reason when some
    /// write cannot be named.
    pub fn nest(&self, id: StmtId) -> Found {
        let mut acc = Acc::default();
        for id in self.prog.walk(&[id]) {
            if let Some(s) = self.prog.stmt(id) {
                self.stmt(s, &mut acc);
            }
        }
        match acc.unknown.or(acc.callers_only) {
            Some(r) => Err(r),
            None => Ok(acc.own.into_iter().chain(acc.out).collect()),
        }
    }

    /// What the call of user procedure `callee` at statement `stmt` may write, in the
    /// caller's names: the actual arguments bound to the formals it may write (Fortran
    /// dummies, C pointer and array parameters) and the globals, COMMON blocks, module and
    /// host variables it writes. `Err` when some write cannot be named (its summary is
    /// unknown, or the statement holds no call of `callee`). Calls of `callee` in the
    /// statement's expressions count too (`f(a) + f(b)` writes what both may).
    pub fn call_site(&self, stmt: StmtId, callee: ProcId) -> Found {
        let Some(s) = self.prog.stmt(stmt) else {
            return Err("no such statement".into());
        };
        let proc = s.proc;
        let mut lists: Vec<&[SrcExpr]> = Vec::new();
        if let StmtKind::Call(c) = &s.kind {
            let direct = user_proc(self.prog, &self.facts.names, proc, &c.name) == Some(callee);
            let through = pointer_call(self.prog, &self.facts.names, s)
                .is_some_and(|pc| pc.targets.contains(&callee));
            if direct || through {
                lists.push(&c.args);
            }
        }
        let mut stack = Vec::new();
        for top in s.exprs() {
            for_each_expr(top, &mut stack, &mut |e| match &e.kind {
                SrcExprKind::Call { name, args }
                | SrcExprKind::Index {
                    array: name,
                    indices: args,
                } if user_proc(self.prog, &self.facts.names, proc, name) == Some(callee) => {
                    lists.push(args);
                }
                _ => {}
            });
        }
        if lists.is_empty() {
            return Err("the statement holds no call of this procedure".into());
        }
        let mut acc = Acc::default();
        for args in lists {
            self.call(proc, callee, args, &mut acc);
        }
        match acc.unknown {
            Some(r) => Err(r),
            None => Ok(acc.own.into_iter().chain(acc.out).collect()),
        }
    }

    /// The send buffer of MPI call `m` in `proc`: `None` when the call sends no data; `Err`
    /// when its buffer is not a variable (or a persistent request started here).
    pub fn send_buffer(&self, proc: ProcId, m: &MpiCall) -> Option<Found> {
        use frontend::MpiOp::*;
        if matches!(m.op, Start | Startall) {
            return Some(Err("buffer of a persistent request".into()));
        }
        let Some(arg) = send_arg(m)? else {
            return Some(Err("no buffer argument".into()));
        };
        let e = &arg.expr;
        Some(if arg.address_of {
            self.lvalue(proc, e)
        } else {
            self.value(proc, e, &mut BTreeSet::new())
        })
    }

    /// Whether the send buffer of MPI call `m` in `proc` starts at its variable's first
    /// element: the variable itself or its first element (C `a`, `&a[0]`, `a + 0`, `g.u`,
    /// `&g.u[0]`, `p->u`; Fortran `a`, `a(1)`, `a(1,1)`, `t%u`, `t%u(1)`, `a(:, 1)`), every
    /// subscript the literal 0 in C, in Fortran the declared lower bound (1 when the
    /// declaration gives none apt can read). `false` for a part further in (`&u[1][0]`,
    /// `u(1, j)`, `a + off`, `&a[k]`) and when the call sends nothing.
    pub fn send_from_start(&self, proc: ProcId, m: &MpiCall) -> bool {
        use frontend::MpiOp::*;
        if matches!(m.op, Start | Startall) {
            return false;
        }
        match send_arg(m) {
            Some(Some(arg)) if arg.address_of => self.lvalue_from_start(proc, &arg.expr),
            Some(Some(arg)) => self.value_from_start(proc, &arg.expr),
            _ => false,
        }
    }

    /// The value of `e` (a C pointer or array, a Fortran actual) designates its variable's
    /// first element.
    fn value_from_start(&self, proc: ProcId, e: &SrcExpr) -> bool {
        let e = strip(e);
        match &e.kind {
            SrcExprKind::Var(_) => true,
            SrcExprKind::Index { .. } => self.lvalue_from_start(proc, e),
            SrcExprKind::Unary {
                op: UnOp::AddrOf,
                operand,
            } => self.lvalue_from_start(proc, operand),
            SrcExprKind::Binary {
                op: BinOp::Add | BinOp::Sub,
                lhs,
                rhs,
            } => {
                let (pointer, offset) = if lhs.ty == Some(frontend::BaseType::Integer) {
                    (rhs, lhs)
                } else {
                    (lhs, rhs)
                };
                matches!(strip(offset).kind, SrcExprKind::Int(0))
                    && self.value_from_start(proc, pointer)
            }
            _ => false,
        }
    }

    /// The lvalue `e` is its variable or its first element.
    fn lvalue_from_start(&self, proc: ProcId, e: &SrcExpr) -> bool {
        let e = strip(e);
        match &e.kind {
            SrcExprKind::Var(_) => true,
            SrcExprKind::Index { array, indices } => {
                let dims = match self.decl(proc, array).map(|d| &d.kind) {
                    Some(DeclKind::Array { dims, .. }) => dims.as_slice(),
                    _ => &[],
                };
                indices.iter().enumerate().all(|(k, i)| {
                    let first = match self.lang() {
                        Language::C => None,
                        Language::Fortran => match dims.get(k) {
                            Some(frontend::Dim::Bounds { lo, .. }) => Some(lo),
                            _ => None,
                        },
                    };
                    let start = match &strip(i).kind {
                        SrcExprKind::Range { lo: None, .. } => return true,
                        SrcExprKind::Range { lo: Some(lo), .. } => lo.as_ref(),
                        _ => i,
                    };
                    match (first, &strip(start).kind) {
                        (Some(lo), _) => {
                            lo.to_string() == start.to_string()
                                || matches!((&strip(lo).kind, &strip(start).kind),
                                    (SrcExprKind::Int(a), SrcExprKind::Int(b)) if a == b)
                        }
                        (None, SrcExprKind::Int(v)) => {
                            *v == i64::from(self.lang() == Language::Fortran)
                        }
                        (None, _) => false,
                    }
                })
            }
            SrcExprKind::Unary {
                op: UnOp::Deref,
                operand,
            } => self.value_from_start(proc, operand),
            _ => false,
        }
    }

    fn lang(&self) -> Language {
        self.prog.language
    }

    fn decl(&self, proc: ProcId, name: &str) -> Option<&'a frontend::Decl> {
        self.prog.decl(proc, name)
    }

    /// The name a COMMON member `name` has in every procedure: its block and position where
    /// the block is laid out alike everywhere (`/field/%0`), else the whole block (`/field/`).
    fn common_name(&self, proc: ProcId, name: &str) -> Option<String> {
        let d = self.decl(proc, name)?;
        let c = d.common.as_ref()?;
        Some(match d.common_slot {
            Some(k) if self.same_layout.contains(c) => format!("/{c}/%{k}"),
            _ => format!("/{c}/"),
        })
    }

    /// A C variable declared as a pointer (not an array of them).
    fn is_pointer(&self, proc: ProcId, name: &str) -> bool {
        self.lang() == Language::C
            && self
                .decl(proc, name)
                .is_some_and(|d| d.ty.pointer > 0 && matches!(d.kind, DeclKind::Scalar { .. }))
    }

    /// C: whether `array` indexed `n` times is a pointer loaded from memory (an element of
    /// an array of pointers, `m[i]` of `double **m`). Indices within an array's declared
    /// dimensions (or the first one of a pointer variable) load no pointer.
    fn pointer_element(&self, proc: ProcId, array: &str, n: usize) -> bool {
        if self.lang() != Language::C {
            return false;
        }
        // a member: its declaration is not known here; taken as an array
        let Some(d) = self.decl(proc, array) else {
            return false;
        };
        let (dims, levels) = match &d.kind {
            DeclKind::Array { dims, .. } => (dims.len(), dims.len() + usize::from(d.ty.pointer)),
            _ => (1, usize::from(d.ty.pointer)),
        };
        n >= dims && levels > n
    }

    /// C: `f[0][k]` (`(*f)[k]`) of a formal `T **f` (a plain pointer to pointer, not an
    /// array of them): the storage the caller's pointer `*f` points to, which the caller
    /// names by that pointer (passed as `&v`: `v` names its blocks too).
    fn through_formal(&self, proc: ProcId, array: &str, indices: &[SrcExpr]) -> bool {
        self.lang() == Language::C
            && indices.len() == 2
            && self.is_param(proc, array)
            && self
                .decl(proc, array)
                .is_some_and(|d| d.ty.pointer == 2 && matches!(d.kind, DeclKind::Scalar { .. }))
    }

    fn is_param(&self, proc: ProcId, name: &str) -> bool {
        self.prog
            .proc(proc)
            .is_some_and(|p| p.params.iter().any(|f| f.name == name))
    }

    fn is_local(&self, proc: ProcId, name: &str) -> bool {
        self.is_param(proc, name)
            || self
                .prog
                .proc(proc)
                .is_some_and(|p| p.decls.iter().any(|d| d.name == name))
    }

    /// Statements of `list` in the scope of `name` as seen from `proc`.
    fn in_scope<'s>(
        &self,
        proc: ProcId,
        name: &str,
        list: Option<&'s Vec<&'a Stmt>>,
    ) -> Vec<&'s &'a Stmt> {
        let local = self.is_local(proc, name);
        list.into_iter()
            .flatten()
            .filter(|s| {
                if local {
                    s.proc == proc
                } else {
                    !self.is_local(s.proc, name)
                }
            })
            .collect()
    }

    /// Fortran: the path is, or is a component of, something associated with `=>`.
    fn associated(&self, path: &str) -> Option<String> {
        let lower = path.to_ascii_lowercase();
        let member = path_member(&lower).map(|(m, _)| m.to_string());
        self.associated
            .iter()
            .find(|a| {
                (is_plain(a) && path_root(&lower) == a.as_str())
                    || (member.is_some() && path_member(a).map(|(m, _)| m) == member.as_deref())
            })
            .map(|a| format!("Fortran pointer `{a}`"))
    }

    /// Names of the location `path` itself (its storage, not what it points to).
    fn location(&self, proc: ProcId, path: &str, seen: &mut BTreeSet<String>) -> Found {
        if let Some(r) = self.associated(path) {
            return Err(r);
        }
        let root = path_root(path);
        // the path alone: a write of `t%v` is not a write of `t%u` (`may_rewrite` matches a
        // path with the paths under it)
        let mut out: Names = [path.to_string()].into();
        // COMMON storage goes by other names in other procedures: its block names it too
        out.extend(self.common_name(proc, root));
        let lower = root.to_ascii_lowercase();
        for group in self.aliases.iter().filter(|g| g.contains(&lower)) {
            out.extend(group.iter().cloned());
        }
        let through = path.get(root.len()..).is_some_and(|t| t.contains("->"));
        if through {
            // `p->n`, `p->a.b`: storage p points to; a later `->` is a pointer member
            if path[root.len() + 2..].contains("->") {
                return Err(format!("`{path}` goes through a pointer member"));
            }
            // what else `p` may point to, by its whole name (`g->f` of `g = &grid` is in
            // `grid`); `p` itself is named by the path (`g->f`, not all of `g`)
            let pointees = self.pointees(proc, root, seen)?;
            out.extend(pointees.into_iter().filter(|n| n != root));
        }
        Ok(out)
    }

    /// Names of the storage reached through `path` (an array, a pointer, a member array or
    /// member pointer): its location and, for pointers, their pointees.
    fn target(&self, proc: ProcId, path: &str, seen: &mut BTreeSet<String>) -> Found {
        let mut out = self.location(proc, path, seen)?;
        if self.lang() == Language::Fortran {
            return Ok(out);
        }
        if is_plain(path) {
            if self.is_pointer(proc, path) {
                out.extend(self.pointees(proc, path, seen)?);
            }
        } else if let Some((m, _)) = path_member(path) {
            out.extend(self.member_pointees(proc, m, seen)?);
        }
        Ok(out)
    }

    /// What a C pointer variable may point to: the names of its assigned values' storage.
    /// Itself always (a parameter's caller storage, or its own allocated block).
    fn pointees(&self, proc: ProcId, p: &str, seen: &mut BTreeSet<String>) -> Found {
        let key = if self.is_local(proc, p) {
            format!("{}:{p}", proc.0)
        } else {
            format!("global:{p}")
        };
        let mut out: Names = [p.to_string()].into();
        if !seen.insert(key) {
            return Ok(out);
        }
        for s in self.in_scope(proc, p, self.reseats.get(p)) {
            let ok = matches!(&s.kind, StmtKind::Call(c) if c.name == "posix_memalign");
            if !ok {
                let kind = s.kind.name();
                let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                return Err(format!(
                    "pointer `{p}` is set by {article} {kind} statement"
                ));
            }
        }
        for s in self.in_scope(proc, p, self.assigns.get(p)) {
            if let StmtKind::Assign(a) = &s.kind {
                out.extend(
                    self.pointer_value(s.proc, &a.value, seen)
                        .map_err(|r| format!("pointer `{p}` may point anywhere: {r}"))?,
                );
            }
        }
        Ok(out)
    }

    /// What a value assigned to a C member `m` (of any struct) may point to.
    fn member_pointees(&self, proc: ProcId, m: &str, seen: &mut BTreeSet<String>) -> Found {
        let mut out = Names::new();
        for s in self.members.get(m).into_iter().flatten() {
            let StmtKind::Assign(a) = &s.kind else {
                continue;
            };
            if s.proc == proc {
                out.extend(self.pointer_value(proc, &a.value, seen)?);
            } else if !self.pointer_value(s.proc, &a.value, seen)?.is_empty() {
                return Err(format!("member `{m}` is set to another variable's storage"));
            }
        }
        Ok(out)
    }

    /// Storage a pointer value may point to; empty for an allocation, `NULL`, 0 or a string.
    fn pointer_value(&self, proc: ProcId, e: &SrcExpr, seen: &mut BTreeSet<String>) -> Found {
        let e = strip(e);
        match &e.kind {
            SrcExprKind::Int(0) | SrcExprKind::Str(_) => Ok(Names::new()),
            SrcExprKind::Var(v) if v == "NULL" => Ok(Names::new()),
            SrcExprKind::Call { name, args } if C_ALLOC.contains(&name.as_str()) => {
                match (name.as_str(), args.first()) {
                    ("realloc", Some(old)) => self.value(proc, old, seen),
                    _ => Ok(Names::new()),
                }
            }
            _ => self.value(proc, e, seen),
        }
    }

    /// Names of the storage the value of `e` designates when passed by reference or as a
    /// buffer: an array or pointer's storage, `&x`'s location, `a + k` as `a`.
    fn value(&self, proc: ProcId, e: &SrcExpr, seen: &mut BTreeSet<String>) -> Found {
        let e = strip(e);
        match &e.kind {
            SrcExprKind::Unary {
                op: UnOp::AddrOf,
                operand,
            } => self.lvalue_in(proc, operand, seen),
            SrcExprKind::Var(v) => self.target(proc, v, seen),
            SrcExprKind::Index { array, indices } => {
                if self.pointer_element(proc, array, indices.len()) {
                    return Err(format!("`{e}` is a pointer held in memory"));
                }
                self.target(proc, array, seen)
            }
            SrcExprKind::Binary {
                op: BinOp::Add | BinOp::Sub,
                lhs,
                rhs,
            } => {
                let pointer_side = if lhs.ty == Some(frontend::BaseType::Integer) {
                    rhs
                } else {
                    lhs
                };
                self.value(proc, pointer_side, seen)
            }
            SrcExprKind::Str(_) => Ok(Names::new()),
            _ => Err(format!("`{e}` is not a variable")),
        }
    }

    fn lvalue(&self, proc: ProcId, e: &SrcExpr) -> Found {
        self.lvalue_in(proc, e, &mut BTreeSet::new())
    }

    /// Names of the storage the lvalue `e` designates (`a[i]`, `*p`, `g.u[i]`, `x`).
    fn lvalue_in(&self, proc: ProcId, e: &SrcExpr, seen: &mut BTreeSet<String>) -> Found {
        let e = strip(e);
        match &e.kind {
            SrcExprKind::Var(v) => self.location(proc, v, seen),
            SrcExprKind::Index { array, indices } => {
                // `rows[i][j]`: through a pointer stored in `rows`
                if indices.len() > 1 && self.pointer_element(proc, array, indices.len() - 1) {
                    return Err(format!("`{array}` holds pointers written through"));
                }
                self.target(proc, array, seen)
            }
            SrcExprKind::Unary {
                op: UnOp::Deref,
                operand,
            } => self.value(proc, operand, seen),
            _ => Err(format!("a write to `{e}`")),
        }
    }

    /// Adds what statement `s` itself may write (nested statements are walked separately).
    fn stmt(&self, s: &Stmt, acc: &mut Acc) {
        let proc = s.proc;
        match &s.kind {
            StmtKind::Loop(l) => {
                acc.own
                    .extend(l.indices().into_iter().map(|x| x.0.to_string()));
            }
            StmtKind::Assign(a) => match &strip(&a.target).kind {
                SrcExprKind::Var(v) if is_plain(v) => {
                    acc.own.insert(v.clone());
                    // a COMMON scalar is storage the callers see (trial 22 E14: a routine
                    // setting `/gridc/`'s NX and NY wrote nothing)
                    acc.own.extend(self.common_name(proc, v));
                }
                SrcExprKind::Index { array, indices }
                    if self.through_formal(proc, array, indices) =>
                {
                    acc.out.insert(array.clone());
                    acc.callers_only.get_or_insert_with(|| {
                        format!("a store through `*{array}` writes a caller's storage, named only at a call")
                    });
                }
                _ => acc.add(self.lvalue(proc, &a.target)),
            },
            StmtKind::Input(i) => {
                for t in &i.targets {
                    acc.add(self.lvalue(proc, t));
                }
            }
            StmtKind::Mpi(m) => {
                for a in m
                    .args
                    .iter()
                    .filter(|a| a.role.is_written_by(m.op) && !is_mpi_constant(&a.expr))
                {
                    self.by_reference(proc, &a.expr, a.address_of, acc);
                }
                if let Some(r) = &m.result {
                    acc.add(self.lvalue(proc, r));
                }
            }
            StmtKind::Call(c) => match user_proc(self.prog, &self.facts.names, proc, &c.name) {
                Some(callee) => self.call(proc, callee, &c.args, acc),
                None => match pointer_call(self.prog, &self.facts.names, s) {
                    Some(pc) if pc.resolved() => {
                        for &t in &pc.targets {
                            self.call(proc, t, &c.args, acc);
                        }
                    }
                    Some(pc) => acc.fail(format!("call through function pointer `{}`", pc.var)),
                    None => {
                        acc.own.extend(s.defs.iter().cloned());
                        self.external(proc, &c.name, &c.args, true, acc);
                    }
                },
            },
            StmtKind::Opaque(o) => {
                let safe = match self.lang() {
                    Language::Fortran => FORTRAN_SAFE_OPAQUE.contains(&o.reason.as_str()),
                    Language::C => o.reason == "goto",
                };
                if o.reason == "write" && self.lang() == Language::Fortran {
                    self.internal_write(proc, &o.text, acc);
                } else if safe {
                    acc.own.extend(s.defs.iter().cloned());
                } else {
                    acc.fail(format!("`{}` ({}) is not analysed", o.text, o.reason));
                }
            }
            StmtKind::While(_)
            | StmtKind::If(_)
            | StmtKind::Return { .. }
            | StmtKind::Break
            | StmtKind::Continue => {}
        }
        if let Some(v) = self.facts.side_effects.get(&s.id) {
            acc.own.extend(v.iter().cloned());
        }
        self.expr_calls(s, acc);
    }

    /// Fortran `write (unit, …)`: an internal write to a character variable writes it.
    fn internal_write(&self, proc: ProcId, text: &str, acc: &mut Acc) {
        let unit = text
            .split_once('(')
            .map(|(_, r)| r.split([',', ')']).next().unwrap_or("").trim())
            .unwrap_or("");
        let unit = unit.strip_prefix("unit").map_or(unit, |u| {
            u.trim_start().strip_prefix('=').unwrap_or(u).trim()
        });
        if unit == "*" || unit.chars().all(|c| c.is_ascii_digit()) {
            return;
        }
        let name: String = unit
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '%')
            .collect::<String>()
            .to_ascii_lowercase();
        match self.prog.var_type(proc, path_root(&name)) {
            Some(t) if t.base == frontend::BaseType::Character => {
                acc.add(self.location(proc, &name, &mut BTreeSet::new()));
            }
            Some(_) if is_plain(&name) => {}
            _ => acc.fail(format!("write to unit `{unit}`")),
        }
    }

    /// An argument a routine writes through: a C `&x` of a plain variable is `x` itself
    /// (`own`: a C formal passed so is the callee's copy); anything else its storage.
    fn by_reference(&self, proc: ProcId, e: &SrcExpr, address_of: bool, acc: &mut Acc) {
        let e = strip(e);
        let plain = match &e.kind {
            SrcExprKind::Unary {
                op: UnOp::AddrOf,
                operand,
            } => match &operand.kind {
                SrcExprKind::Var(v) if is_plain(v) => Some(v),
                _ => None,
            },
            SrcExprKind::Var(v) if address_of && is_plain(v) => Some(v),
            _ => None,
        };
        if let Some(v) = plain {
            acc.own.insert(v.clone());
            return;
        }
        let found = if address_of {
            self.lvalue(proc, e)
        } else {
            self.value(proc, e, &mut BTreeSet::new())
        };
        match found {
            Ok(n) => acc.out.extend(n),
            // Fortran passes an expression as a temporary nobody else sees
            Err(_) if self.lang() == Language::Fortran && !is_variable(e) => {}
            Err(r) => acc.fail(r),
        }
    }

    /// A call of user procedure `callee`: the actuals bound to the formals it writes, and
    /// the globals it writes.
    fn call(&self, proc: ProcId, callee: ProcId, args: &[SrcExpr], acc: &mut Acc) {
        let Some(sum) = self.summaries.get(callee.0 as usize) else {
            return;
        };
        let name = self.prog.proc(callee).map_or("?", |p| p.name.as_str());
        if let Some(r) = &sum.unknown {
            acc.fail(format!("`{name}`: {r}"));
            return;
        }
        for &k in &sum.formals {
            let Some(a) = args.get(k) else { continue };
            let parts = sum.parts.get(&k).filter(|p| !p.is_empty());
            let (Some(parts), Some((b, addr))) = (parts, crate::procs::narrowable(a)) else {
                self.by_reference(proc, a, false, acc);
                continue;
            };
            // the actual's own name narrowed to the paths written under the formal; what
            // else it names (pointees, COMMON blocks, aliases) stays whole
            let mut whole = Acc::default();
            self.by_reference(proc, a, false, &mut whole);
            if let Some(r) = whole.unknown {
                acc.fail(r);
                continue;
            }
            let narrow = |names: Names| -> Names {
                names
                    .into_iter()
                    .flat_map(|n| {
                        if n != b {
                            return vec![n];
                        }
                        parts
                            .iter()
                            .map(|sfx| match crate::procs::caller_suffix(sfx, addr) {
                                Some(rest) => format!("{b}{rest}"),
                                None => b.to_string(),
                            })
                            .collect()
                    })
                    .collect()
            };
            acc.own.extend(narrow(whole.own));
            acc.out.extend(narrow(whole.out));
        }
        acc.out.extend(sum.globals.iter().cloned());
    }

    /// A routine no source defines (or an intrinsic). `stmt`: a call statement (its def set
    /// is already counted).
    fn external(&self, proc: ProcId, name: &str, args: &[SrcExpr], stmt: bool, acc: &mut Acc) {
        let lang = self.lang();
        let lower = name.to_ascii_lowercase();
        if frontend::intrinsics::lookup(name, lang).is_some()
            || frontend::mpi_table::is_mpi_name(name)
            || (lang == Language::C && C_READONLY.contains(&name))
            // an allocation reads its sizes (trial 22 E6: `malloc(sizeof(double) * g->nloc)`
            // left a setup routine's writes unknown); realloc may move its block
            || (lang == Language::C && C_ALLOC.contains(&name) && name != "realloc")
        {
            return;
        }
        if lang == Language::Fortran && crate::externals::is_library(lang, &lower) {
            // intrinsic functions write nothing; intrinsic subroutines write only their
            // arguments, which are all named
            if stmt {
                for a in args.iter().filter(|a| is_variable(a)) {
                    self.by_reference(proc, a, false, acc);
                }
            }
            return;
        }
        if lang == Language::C && C_WRITES_FIRST.contains(&name) {
            if let Some(a) = args.first() {
                self.by_reference(proc, a, false, acc);
            }
            return;
        }
        if let Some(a) = args.iter().find(|a| self.may_be_array(proc, a)) {
            acc.fail(format!(
                "external routine `{name}` receives `{}`",
                arg_text(a)
            ));
            return;
        }
        match lang {
            Language::C => {
                for a in args {
                    if matches!(
                        strip(a).kind,
                        SrcExprKind::Unary {
                            op: UnOp::AddrOf,
                            ..
                        }
                    ) {
                        self.by_reference(proc, a, false, acc);
                    }
                }
            }
            Language::Fortran => {
                for a in args.iter().filter(|a| is_variable(a)) {
                    self.by_reference(proc, a, false, acc);
                }
            }
        }
    }

    /// Whether an argument may pass an array (or memory a routine could index).
    fn may_be_array(&self, proc: ProcId, a: &SrcExpr) -> bool {
        let a = strip(a);
        match &a.kind {
            SrcExprKind::Unary {
                op: UnOp::AddrOf,
                operand,
            } => !matches!(&operand.kind, SrcExprKind::Var(v) if is_plain(v)),
            SrcExprKind::Var(v) => {
                !is_plain(v)
                    || self.decl(proc, v).is_some_and(|d| {
                        matches!(d.kind, DeclKind::Array { .. }) || d.ty.pointer > 0
                    })
            }
            SrcExprKind::Index { array, indices } => match self.lang() {
                Language::Fortran => {
                    self.decl(proc, path_root(array))
                        .is_none_or(|d| matches!(d.kind, DeclKind::Array { .. }))
                        || !is_plain(array)
                        || indices.iter().any(|i| matches!(i.kind, SrcExprKind::Range { .. }))
                }
                Language::C => self.decl(proc, array).is_some_and(|d| {
                    d.ty.pointer > 0
                        || matches!(&d.kind, DeclKind::Array { dims, .. } if indices.len() < dims.len())
                }),
            },
            SrcExprKind::Binary { lhs, rhs, .. } => {
                self.may_be_array(proc, lhs) || self.may_be_array(proc, rhs)
            }
            SrcExprKind::Ternary { then, other, .. } => {
                self.may_be_array(proc, then) || self.may_be_array(proc, other)
            }
            SrcExprKind::Opaque { .. } => true,
            _ => false,
        }
    }

    /// Calls inside the statement's expressions: user functions (mapped like calls),
    /// external functions, calls through pointers.
    fn expr_calls(&self, s: &Stmt, acc: &mut Acc) {
        let proc = s.proc;
        let mut found: Vec<(&str, &[SrcExpr], bool)> = Vec::new();
        let mut stack = Vec::new();
        for top in s.exprs() {
            for_each_expr(top, &mut stack, &mut |e| match &e.kind {
                SrcExprKind::Call { name, args } => found.push((name, args, true)),
                SrcExprKind::Index { array, indices } => found.push((array, indices, false)),
                _ => {}
            });
        }
        for (name, args, call) in found {
            if let Some(callee) = user_proc(self.prog, &self.facts.names, proc, name) {
                self.call(proc, callee, args, acc);
                continue;
            }
            let declared = self.decl(proc, name).is_some() || !is_plain(name);
            match (call, self.lang()) {
                (true, Language::C) if declared => {
                    acc.fail(format!("call through function pointer `{name}`"));
                }
                (true, _) => self.external(proc, name, args, false, acc),
                // a Fortran name indexed but not declared: an external function
                (false, Language::Fortran) if !declared => {
                    self.external(proc, name, args, false, acc);
                }
                _ => {}
            }
        }
    }
}

/// The argument an MPI call sends from: `None` when it sends no data, `Some(None)` when the
/// argument is missing.
fn send_arg(m: &MpiCall) -> Option<Option<&frontend::MpiArg>> {
    use frontend::MpiOp::*;
    use frontend::Role;
    Some(match m.arg(Role::SendBuf) {
        Some(a) if is_in_place(&a.expr) => m.arg(Role::RecvBuf),
        Some(a) => Some(a),
        None if matches!(
            m.op,
            Send | Ssend
                | Rsend
                | Bsend
                | Isend
                | Issend
                | Irsend
                | Ibsend
                | SendInit
                | SsendInit
                | BsendInit
                | RsendInit
                | SendrecvReplace
                | Bcast
                | Ibcast
        ) =>
        {
            m.arg(Role::Buffer)
        }
        None => return None,
    })
}

/// An MPI constant passed where MPI may write that tells it to write nothing
/// (`MPI_STATUS_IGNORE`, `MPI_STATUSES_IGNORE`, `MPI_ERRCODES_IGNORE`, `MPI_IN_PLACE`): it
/// names no storage of the program. (`MPI_BOTTOM` is kept: with absolute addresses in the
/// datatype, a receive into it writes real storage.)
fn is_mpi_constant(e: &SrcExpr) -> bool {
    matches!(&strip(e).kind, SrcExprKind::Var(v)
        if ["MPI_STATUS_IGNORE", "MPI_STATUSES_IGNORE", "MPI_ERRCODES_IGNORE", "MPI_IN_PLACE"]
            .iter()
            .any(|c| v.eq_ignore_ascii_case(c)))
}

fn is_in_place(e: &SrcExpr) -> bool {
    matches!(&strip(e).kind, SrcExprKind::Var(v) if v.eq_ignore_ascii_case("MPI_IN_PLACE"))
}

/// A variable, element or section (what Fortran passes by reference), or C `&x`.
fn is_variable(e: &SrcExpr) -> bool {
    matches!(
        strip(e).kind,
        SrcExprKind::Var(_)
            | SrcExprKind::Index { .. }
            | SrcExprKind::Unary {
                op: UnOp::AddrOf,
                ..
            }
    )
}

fn arg_text(a: &SrcExpr) -> String {
    a.base_var().map_or_else(|| a.to_string(), str::to_string)
}
