//! Constant propagation and substitution along def-use chains, in program order: an
//! abstract interpreter over the IR whose environment maps each scalar variable to a
//! [`Val`]. It records, per statement, the facts the APT shows (trip counts, conditions,
//! communication attributes) and, per call, the argument values used to bind the callee.
//!
//! Rules (each documented where it is applied):
//! - a variable assigned anywhere in a loop is unknown inside it until reassigned in the
//!   iteration ("assigned in loop at line L"), and unknown after it;
//! - after `if`, a variable keeps a value only when every arm that falls through agrees;
//!   arms ending in `MPI_Abort`, `return`, `exit`/`stop` do not fall through;
//! - a counted loop's variable is a symbol (its name) inside the body, so inner bounds can
//!   mention it (triangular nests) and sums over it close the nest;
//! - procedures: formals and globals (C globals, Fortran COMMON by name, module variables)
//!   take the value all call sites agree on; a caller gets back the callee's exit values
//!   that do not depend on how it was called (see [`Summary`]); a recursive procedure's
//!   formals are unknown, and so are the globals its call-graph cycle (callees included) may
//!   write; the others take what its callers off the cycle agree on; an assumed-shape dummy
//!   (`a(:)`) has lbound 1 and its actual's extent (`p(1:nloc)` → `nloc`);
//! - a neighbour that is `MPI_PROC_NULL` at the edge of the process grid (`rank > 0 ? rank -
//!   1 : MPI_PROC_NULL`, `if (left < 0) left = MPI_PROC_NULL`, a non-periodic
//!   `MPI_Cart_shift`: [`crate::cart`]) is [`Val::OrNull`]: the peer is the neighbour, a
//!   test `left != MPI_PROC_NULL` is the edge's condition (and inside it the neighbour is
//!   plain), and an unguarded call using it gets a note saying where it makes no message;
//! - a value read at run time with a literal fallback (`argc > 1 ? atoi(argv[1]) : 256`)
//!   is the input; a broadcast scalar takes what the root read;
//! - C loops whose bound variable changes in the body, and variables changed inside
//!   expressions the front end keeps opaque, are unknown, except a known scalar stepped by a
//!   constant (`reqs[nreq++]`, `k -= 2`), which takes the step;
//! - access paths (`g.nx`, `p->nx`, `ibuf[1]`: [`frontend::path_root`]) are variables of
//!   their own; a write to a path's root or to a path above it (`g = h`, `read *, ibuf`,
//!   `f(&g)` to a procedure that writes it, `a[i] = …`) makes it unknown, and so does a write
//!   to the same member through a pointer (`p->nx` may be `g.nx`). A formal's paths take
//!   the caller's (`f(&g)` binds `q->nx` to `g.nx`), and the caller gets back what the callee
//!   stores in them, in terms of its arguments ([`Summary::fields`]); an element stored from
//!   input on one path (`ibuf(1) = n` on rank 0) is what a broadcast of the array gives.
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use frontend::{
    path_member, path_root, path_under, BinOp, DeclKind, InputOrigin, Language, MpiOp, ProcId,
    Program, Role, Sources, Span, SrcExpr, SrcExprKind, StmtId, StmtKind, UnOp,
};
use symbolic::Expr;

use crate::cap;
use crate::comm::{comm_facts, CommFacts};
use crate::params::Params;
use crate::pointers::{pointer_call, PointerCall};
use crate::procs::{caller_suffix, user_proc, CallSite, ProcFacts, SiteMap};
use crate::rules::{agree, merge, source_text, trip_count};
use crate::value::{
    eval, input_with_default, min_max, or_null, pure_test, short, Scope, Special, Val,
};
use crate::Attr;

pub type Env = BTreeMap<String, Val>;

/// Reason given to every formal and global at entry while computing summaries: a value
/// still carrying it at exit depends on how the procedure was called.
const ENTRY: &str = "⟨value at entry⟩";

/// What a procedure leaves in the globals and formals it writes, computed with every
/// entry value unknown: `Known` exit values do not depend on the call.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub globals: BTreeMap<String, Val>,
    pub formals: BTreeMap<usize, Val>,
    /// Per formal position: the paths under it the procedure leaves set (suffix → value,
    /// `->nx` → `n`), with the formals' entry values standing as [`arg_symbol`]s.
    pub fields: BTreeMap<usize, BTreeMap<String, Val>>,
}

/// The text of the statement a declarator stands in, from its start up to the declarator
/// (continuation lines followed back), lower-cased: where Fortran writes its attributes
/// (`real, allocatable :: a(:)`).
fn statement_head(sources: &Sources, at: Span) -> String {
    let before = sources.text(Span::new(at.file, 0, at.start));
    let mut start = before.rfind('\n').map_or(0, |i| i + 1);
    while start > 0 {
        let prev_start = before[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        let prev = &before[prev_start..start - 1];
        let code = prev.split('!').next().unwrap_or(prev).trim_end();
        if !code.ends_with('&') {
            break;
        }
        start = prev_start;
    }
    before[start..].to_ascii_lowercase()
}

/// A path as a report names it: `a[#ubound1]` (where an array's bound is kept) is
/// `ubound(a, 1)`; other paths as the source spells them.
fn path_text(path: &str) -> String {
    for which in ["lbound", "ubound"] {
        let tag = format!("[#{which}");
        if let Some((array, rest)) = path.split_once(&tag) {
            if let Some(dim) = rest.strip_suffix(']') {
                return format!("`{which}({array}, {dim})`");
            }
        }
    }
    format!("`{path}`")
}

/// The symbol standing for formal `k`'s entry value while computing [`Summary::fields`].
fn arg_symbol(k: usize) -> String {
    format!("__augur_arg{k}")
}

fn arg_index(sym: &str) -> Option<usize> {
    sym.strip_prefix("__augur_arg")?.parse().ok()
}

/// The paths stored in `env` that a write to `name` makes stale: the paths under it and,
/// for a member path, the same member reached through a pointer elsewhere (`p->nx` may be
/// `g.nx`), or reached any way when `name` goes through a pointer. The bounds an ALLOCATE
/// gave an array stay: writing its elements does not change them.
pub fn stale_paths(env: &Env, name: &str) -> Vec<String> {
    let mut out: Vec<String> = env
        .range::<str, _>((Bound::Excluded(name), Bound::Unbounded))
        .take_while(|(k, _)| k.starts_with(name))
        .filter(|(k, _)| path_under(k, name) && !crate::value::is_bound_path(k))
        .map(|(k, _)| k.clone())
        .collect();
    if let Some((m, arrow)) = path_member(name) {
        for k in env.keys() {
            if k == name || path_under(k, name) {
                continue;
            }
            if path_member(k).is_some_and(|(m2, arrow2)| m2 == m && (arrow || arrow2)) {
                out.push(k.clone());
            }
        }
    }
    out
}

/// Whether a write to one of `defined` may change `v` (itself, a path above it, or the same
/// member through a pointer).
fn touched(defined: &BTreeSet<String>, v: &str) -> bool {
    if defined.contains(v) {
        return true;
    }
    let member = path_member(v);
    defined.iter().any(|d| {
        path_under(v, d)
            || member.is_some_and(|(m, arrow)| {
                path_member(d).is_some_and(|(m2, arrow2)| m2 == m && (arrow || arrow2))
            })
    })
}

/// The location an actual argument hands to the callee for its paths: `&g` → (`g`, true),
/// `g`/`ibuf`/`p` → (name, false), `&a[0]` → (`a`, false).
fn arg_root(e: &SrcExpr) -> Option<(String, bool)> {
    match &e.kind {
        SrcExprKind::Var(v) => Some((v.clone(), false)),
        SrcExprKind::Unary {
            op: UnOp::AddrOf,
            operand,
        } => match &operand.kind {
            SrcExprKind::Var(v) => Some((v.clone(), true)),
            SrcExprKind::Index { array, indices }
                if indices.iter().all(|i| i.as_int() == Some(0)) =>
            {
                Some((array.clone(), false))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The callee's suffix of a caller path `root+rest` passed as `&root` (`.nx` → `->nx`).
fn callee_suffix(rest: &str, addr: bool) -> String {
    match rest.strip_prefix('.') {
        Some(r) if addr => format!("->{r}"),
        _ => rest.to_string(),
    }
}

/// Facts about one counted or while loop.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopFacts {
    pub trip: Attr,
    /// An upper bound on `trip` the source proves when the loop may end early ([`crate::cap`]).
    pub cap: Option<Attr>,
    /// Σ of the trip over the enclosing loops whose variables it mentions.
    pub total: Option<Attr>,
    pub var: Option<String>,
    /// The symbol standing for the loop variable inside the body.
    pub sym: Option<String>,
    pub lo: Val,
    pub hi: Val,
    pub step: Val,
}

/// One branch condition: symbolic text, or the source text and why it is not symbolic.
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    pub text: String,
    pub unresolved: Option<String>,
    /// Symbols of the symbolic sides.
    pub vars: BTreeSet<String>,
}

#[derive(Debug, Clone)]
struct ActiveLoop {
    sym: String,
    lo: Val,
    hi: Val,
    step: Val,
}

/// Everything the propagation learns about a program.
#[derive(Debug, Default)]
pub struct Facts {
    pub loops: BTreeMap<StmtId, LoopFacts>,
    pub conds: BTreeMap<StmtId, Vec<Cond>>,
    pub comms: BTreeMap<StmtId, CommFacts>,
}

#[derive(Debug)]
pub struct Analysis<'p> {
    prog: &'p Program,
    sources: &'p Sources,
    pub procs: ProcFacts,
    pub params: Params,
    pub facts: Facts,
    sites: SiteMap,
    cur: ProcId,
    stack: Vec<ActiveLoop>,
    /// Per procedure: the last value read at run time into each variable, on any path
    /// (`if (rank == 0) read(*,*) n` followed by a broadcast of `n`).
    read_into: BTreeMap<String, Val>,
    /// What the report must say about values taken from the source, by line: whose
    /// factoring `MPI_Dims_create`'s exact extents are, where a Cart_shift neighbour is
    /// `MPI_PROC_NULL`, calls through pointers left out.
    pub notes: BTreeMap<u32, String>,
    summaries: BTreeMap<ProcId, Summary>,
    summarizing: bool,
    /// Conditions of `p = c1 ? f1 : …` assignments, where they stood (for calls through `p`).
    pointer_conds: BTreeMap<StmtId, Vec<Cond>>,
    /// Persistent requests by (procedure, path): the message their init describes (as an
    /// Isend/Irecv), `None` when two inits disagree.
    requests: BTreeMap<(ProcId, String), Option<CommFacts>>,
    /// Per procedure: C pointers last assigned an address (`L0 = &lev[0]` → (`lev[0]`,
    /// `lev`, line)), to say why a path through them is not known (their targets' paths are
    /// not copied: a write through either name would leave the other stale).
    points_to: BTreeMap<String, (String, String, u32)>,
}

/// Scope of expression evaluation at one program point.
struct Cx<'a, 'p> {
    an: &'a mut Analysis<'p>,
    env: &'a Env,
    /// The variable being defined (names a parameter read at run time).
    target: Option<&'a str>,
}

impl Scope for Cx<'_, '_> {
    fn var(&mut self, name: &str) -> Val {
        if let Some(v) = self.env.get(name) {
            return v.clone();
        }
        match name.to_ascii_uppercase().as_str() {
            "MPI_ANY_SOURCE" | "MPI_ANY_TAG" => return Val::Special(Special::Wildcard),
            "MPI_PROC_NULL" => return Val::Special(Special::ProcNull),
            "MPI_COMM_WORLD" => return Val::Special(Special::CommWorld),
            u if u.starts_with("MPI_") => return Val::unknown(format!("MPI constant `{name}`")),
            _ => {}
        }
        let prog = self.an.prog;
        match prog.decl(self.an.cur, name).map(|d| &d.kind) {
            Some(DeclKind::Array { .. }) => Val::unknown(format!("held in array `{name}`")),
            // a C `const` whose initialiser is not a number: evaluated where it is used
            Some(DeclKind::Constant { value, .. }) => {
                let env = self.env;
                let mut inner = Cx {
                    an: &mut *self.an,
                    env,
                    target: Some(name),
                };
                eval(value, &mut inner)
            }
            _ => Val::unknown(format!(
                "`{name}` has no known value here{}",
                self.an.through_pointer(name, self.env)
            )),
        }
    }

    fn is_user_proc(&self, name: &str) -> bool {
        user_proc(self.an.prog, &self.an.procs.names, self.an.cur, name).is_some()
    }

    fn element(&mut self, path: &str) -> Option<Val> {
        // an unknown element keeps the array's reason (`held in array `nbr``)
        self.env
            .get(path)
            .filter(|v| matches!(v, Val::Known(_) | Val::OrNull(_)))
            .cloned()
    }

    fn user_call(&mut self, name: &str, args: Vec<Val>, exprs: &[SrcExpr], span: Span) {
        if let Some(callee) = user_proc(self.an.prog, &self.an.procs.names, self.an.cur, name) {
            let line = self.line(span);
            self.an.record_call(callee, args, exprs, self.env, line);
        }
    }

    fn input(&mut self, origin: &InputOrigin, span: Span) -> Val {
        let line = self.line(span);
        let var = self.target.unwrap_or("input");
        let v = match self.an.params.input(origin, var, line) {
            Some(p) => Val::Known(Expr::var(&p)),
            None => Val::unknown(format!("read from a file at line {line}")),
        };
        if let Some(t) = self.target {
            self.an.read_into.insert(t.to_string(), v.clone());
        }
        v
    }

    fn line(&self, span: Span) -> u32 {
        self.an.sources.first_line(span)
    }

    fn is_input(&self, name: &str) -> bool {
        self.an.params.is_input(name)
    }

    fn is_constant(&self, name: &str) -> bool {
        self.an.params.is_constant(name)
    }

    fn stored(&mut self, path: &str) -> Option<Val> {
        self.env.get(path).cloned()
    }

    fn declared_bounds(&mut self, array: &str) -> Option<Vec<Option<(Val, Val)>>> {
        let prog = self.an.prog;
        let Some(DeclKind::Array { dims, .. }) = prog.decl(self.an.cur, array).map(|d| &d.kind)
        else {
            return None;
        };
        let env = self.env;
        let mut ev = |e: &SrcExpr| {
            eval(
                e,
                &mut Cx {
                    an: &mut *self.an,
                    env,
                    target: None,
                },
            )
        };
        Some(
            dims.iter()
                .map(|d| match d {
                    frontend::Dim::Bounds { lo, hi } => Some((ev(lo), ev(hi))),
                    frontend::Dim::Extent(n) => {
                        let hi = match ev(n) {
                            Val::Known(x) => Val::Known(x - Expr::one()),
                            other => other,
                        };
                        Some((Val::Known(Expr::zero()), hi))
                    }
                    frontend::Dim::Assumed => None,
                })
                .collect(),
        )
    }
}

impl<'p> Analysis<'p> {
    pub fn new(prog: &'p Program, sources: &'p Sources, arg_names: Vec<String>) -> Self {
        Analysis {
            prog,
            sources,
            procs: ProcFacts::compute(prog),
            params: Params::new(arg_names),
            facts: Facts::default(),
            sites: SiteMap::new(),
            cur: ProcId(0),
            stack: Vec::new(),
            read_into: BTreeMap::new(),
            notes: BTreeMap::new(),
            summaries: BTreeMap::new(),
            summarizing: false,
            pointer_conds: BTreeMap::new(),
            requests: BTreeMap::new(),
            points_to: BTreeMap::new(),
        }
    }

    fn line(&self, span: Span) -> u32 {
        self.sources.first_line(span)
    }

    fn ev(&mut self, e: &SrcExpr, env: &Env, target: Option<&str>) -> Val {
        let mut cx = Cx {
            an: self,
            env,
            target,
        };
        eval(e, &mut cx)
    }

    /// Two passes. First, callees before callers with unknown entry values, summarising
    /// what each procedure leaves in the globals and formals it writes (so `call
    /// read_input` that reads `n` into COMMON gives `N` to the caller). Then every
    /// procedure once, callers before callees, with formals and globals bound from its call
    /// sites; only this pass's facts are kept.
    pub fn run(&mut self) {
        let order = self.procs.order.clone();
        // notes come from the final pass only (summaries see symbols for the arguments)
        let notes = self.notes.clone();
        self.summarizing = true;
        for &id in order.iter().rev() {
            if let Some(sum) = self.summary(id) {
                self.summaries.insert(id, sum);
            }
        }
        self.summarizing = false;
        self.notes = notes;
        self.facts = Facts::default();
        self.requests.clear();
        self.sites.clear();
        for id in order {
            self.cur = id;
            self.stack.clear();
            self.read_into.clear();
            self.points_to.clear();
            let mut env = self.entry_env(id);
            if let Some(p) = self.prog.proc(id) {
                self.block(&p.body, &mut env);
            }
        }
    }

    /// What `id` leaves in the globals and formals it writes (and the paths under them: a
    /// datatype's size, an ALLOCATE's bounds, `q->nx`), from one run of its body with every
    /// global unknown at entry and each scalar formal standing as its [`arg_symbol`]: an exit
    /// value in those symbols is one the caller can complete with its arguments
    /// ([`Self::bind_args`]). `None` when it writes nothing out.
    fn summary(&mut self, id: ProcId) -> Option<Summary> {
        let i = id.0 as usize;
        let mod_globals = self.procs.mod_globals.get(i).cloned().unwrap_or_default();
        let mod_formals = self.procs.mod_formals.get(i).cloned().unwrap_or_default();
        let arrays = self.procs.mod_global_arrays.get(i);
        if mod_globals.is_empty() && mod_formals.is_empty() && arrays.is_none_or(|a| a.is_empty()) {
            return None;
        }
        let p = self.prog.proc(id)?;
        self.cur = id;
        self.stack.clear();
        self.read_into.clear();
        self.points_to.clear();
        let mut env = self.summary_entry_env(id);
        for (k, f) in p.params.iter().enumerate() {
            if !self.is_array(&f.name) {
                env.insert(f.name.clone(), Val::Known(Expr::var(&arg_symbol(k))));
            }
        }
        self.block(&p.body, &mut env);
        let mut sum = Summary::default();
        for g in &mod_globals {
            sum.globals.insert(
                g.clone(),
                env.get(g).cloned().unwrap_or_else(|| Val::unknown(ENTRY)),
            );
            for (path, v) in env
                .range::<str, _>((Bound::Excluded(g.as_str()), Bound::Unbounded))
                .take_while(|(k, _)| k.starts_with(g.as_str()))
                .filter(|(k, _)| path_under(k, g))
            {
                sum.globals.insert(path.clone(), v.clone());
            }
        }
        // what it leaves in global arrays (not in `mod_globals`: writing their elements
        // changes no scalar): the bounds it ALLOCATEs them with, elements it stores (`dims`
        // from MPI_Dims_create, `coords` from MPI_Cart_coords). The entry environment holds
        // no paths under globals, so each was set here, or made unknown by a write here.
        let globals = self.procs.globals.get(i).cloned().unwrap_or_default();
        for (path, v) in &env {
            let root = path_root(path);
            if path != root && globals.contains(root) && !mod_globals.contains(root) {
                sum.globals.insert(path.clone(), v.clone());
            }
        }
        for &k in &mod_formals {
            let Some(f) = p.params.get(k) else { continue };
            let v = env
                .get(&f.name)
                .cloned()
                .unwrap_or_else(|| Val::unknown(ENTRY));
            sum.formals.insert(k, v);
            if !self.procs.path_formals.contains(&(id, f.name.clone())) {
                continue;
            }
            let m: BTreeMap<String, Val> = env
                .iter()
                .filter(|(path, _)| path_under(path, &f.name))
                .map(|(path, v)| (path[f.name.len()..].to_string(), v.clone()))
                .collect();
            if !m.is_empty() {
                sum.fields.insert(k, m);
            }
        }
        Some(sum)
    }

    /// Why a path under a pointer last assigned an address is not known: ` (`L0` is
    /// `&lev[0]` from line 126; `lev`: assigned in loop at line 113)`, or nothing.
    fn through_pointer(&self, path: &str, env: &Env) -> String {
        let root = path_root(path);
        let Some((target, base, line)) = self.points_to.get(root).filter(|_| root != path) else {
            return String::new();
        };
        let why = match env.get(base) {
            Some(Val::Unknown(r)) if r.starts_with(&format!("`{base}`")) => r.clone(),
            Some(Val::Unknown(r)) => format!("`{base}`: {r}"),
            _ => format!("`{path}` is not followed through the pointer"),
        };
        format!(" (`{root}` is `&{target}` from line {line}; {why})")
    }

    /// A loop symbol, scrubbed from values leaving its scope.
    fn loop_symbols(&self) -> BTreeSet<&str> {
        self.stack.iter().map(|l| l.sym.as_str()).collect()
    }

    /// Values bound across a call must not mention the caller's loop variables.
    fn scrub(&self, v: &Val, line: u32) -> Val {
        let vars = match v {
            Val::Known(e) => Some(e.vars()),
            Val::OrNull(o) => Some(o.vars()),
            _ => None,
        };
        if let Some(vars) = vars {
            if let Some(sym) = vars
                .into_iter()
                .find(|x| self.loop_symbols().contains(x.as_str()))
            {
                return Val::unknown(format!(
                    "depends on loop variable `{sym}` at the call at line {line}"
                ));
            }
        }
        v.clone()
    }

    fn record_call(
        &mut self,
        callee: ProcId,
        args: Vec<Val>,
        exprs: &[SrcExpr],
        env: &Env,
        line: u32,
    ) {
        let args = args.iter().map(|v| self.scrub(v, line)).collect();
        let mut globals = BTreeMap::new();
        if let Some(names) = self.procs.globals.get(self.cur.0 as usize) {
            for g in names {
                if let Some(v) = env.get(g) {
                    globals.insert(g.clone(), self.scrub(v, line));
                }
                for (k, v) in env
                    .range::<str, _>((Bound::Excluded(g.as_str()), Bound::Unbounded))
                    .take_while(|(k, _)| k.starts_with(g.as_str()))
                    .filter(|(k, _)| path_under(k, g))
                {
                    globals.insert(k.clone(), self.scrub(v, line));
                }
            }
        }
        let mut fields = BTreeMap::new();
        for (k, e) in exprs.iter().enumerate() {
            let Some((root, addr)) = arg_root(e) else {
                continue;
            };
            let m: BTreeMap<String, Val> = env
                .range::<str, _>((Bound::Excluded(root.as_str()), Bound::Unbounded))
                .take_while(|(p, _)| p.starts_with(root.as_str()))
                .filter(|(p, _)| path_under(p, &root))
                .map(|(p, v)| (callee_suffix(&p[root.len()..], addr), self.scrub(v, line)))
                .collect();
            if !m.is_empty() {
                fields.insert(k, m);
            }
        }
        for (k, shape) in self.assumed_shapes(callee, exprs, env) {
            let m = fields.entry(k).or_default();
            m.retain(|p, _| !crate::value::is_bound_path(p));
            for (d, x) in shape.into_iter().enumerate() {
                m.insert(
                    crate::value::bound_path("", d + 1, false),
                    Val::Known(Expr::one()),
                );
                m.insert(crate::value::bound_path("", d + 1, true), x);
            }
        }
        self.sites.entry(callee).or_default().push(CallSite {
            caller: self.cur,
            line,
            args,
            globals,
            fields,
        });
    }

    /// Per formal of `callee` declared assumed-shape (`a(:)`, `a(:, :)`; not allocatable or
    /// pointer, whose bounds are the actual's own): the extent of each dimension of its actual
    /// (a whole array or a section, `p(1:nloc)` → `nloc`), as the dummy's ubound (its lbound
    /// is 1), or unknown with why. Actuals of another rank are left out.
    fn assumed_shapes(
        &mut self,
        callee: ProcId,
        exprs: &[SrcExpr],
        env: &Env,
    ) -> Vec<(usize, Vec<Val>)> {
        let prog = self.prog;
        let Some(p) = prog.proc(callee) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, (f, e)) in p.params.iter().zip(exprs).enumerate() {
            let Some(d) = prog.decl(callee, &f.name) else {
                continue;
            };
            let DeclKind::Array { dims, .. } = &d.kind else {
                continue;
            };
            let text = statement_head(self.sources, d.span);
            if dims.is_empty()
                || !dims.iter().all(|x| matches!(x, frontend::Dim::Assumed))
                || text.contains("allocatable")
                || text.contains("pointer")
                || !matches!(e.kind, SrcExprKind::Var(_) | SrcExprKind::Index { .. })
            {
                continue;
            }
            let caller = self.cur;
            let shape = crate::array::extents(prog, caller, e, &mut |x| self.ev(x, env, None));
            let vals = match shape {
                Ok(v) if v.len() == dims.len() => v.into_iter().map(Val::Known).collect(),
                Ok(_) => continue,
                Err(r) => {
                    let why = format!("extent of `{}`: {r}", short(self.sources.text(e.span)));
                    vec![Val::unknown(why); dims.len()]
                }
            };
            out.push((k, vals));
        }
        out
    }

    /// Entry environment of the summary pass: constants known, everything else unknown.
    fn summary_entry_env(&mut self, id: ProcId) -> Env {
        let mut env = self.constants_env(id);
        if let Some(p) = self.prog.proc(id) {
            for g in self.procs.globals.get(id.0 as usize).into_iter().flatten() {
                env.insert(g.clone(), Val::unknown(ENTRY));
            }
            for f in &p.params {
                env.insert(f.name.clone(), Val::unknown(ENTRY));
            }
        }
        env
    }

    /// Named constants visible in `id`, as parameter symbols.
    fn constants_env(&mut self, id: ProcId) -> Env {
        let prog = self.prog;
        let mut env = Env::new();
        let Some(p) = prog.proc(id) else { return env };
        let decls: Vec<&frontend::Decl> = prog.globals.iter().chain(p.decls.iter()).collect();
        for d in &decls {
            if let DeclKind::Constant { value, .. } = &d.kind {
                let line = self.line(d.span);
                let v = self.ev(value, &env, Some(&d.name));
                if let Some(c) = v.known().and_then(|e| self.constant_default(e)) {
                    let name = self.params.constant(&d.name, c, line);
                    if d.span.file != prog.main_file {
                        if let Some(path) = self.sources.path(d.span.file) {
                            self.params.set_file(&name, path.display().to_string());
                        }
                    }
                    env.insert(d.name.clone(), Val::Known(Expr::var(&name)));
                }
            }
        }
        env
    }

    /// Environment at entry of `id`: constants, then globals and formals agreed by all call sites.
    fn entry_env(&mut self, id: ProcId) -> Env {
        let prog = self.prog;
        let mut env = self.constants_env(id);
        let Some(p) = prog.proc(id) else { return env };
        let name = &p.name;
        let recursive = self.procs.recursive.contains(&id);
        let sites = self.sites.get(&id).cloned().unwrap_or_default();
        let outer: Vec<&CallSite> = sites
            .iter()
            .filter(|s| !recursive || !self.procs.same_component(s.caller, id))
            .collect();
        let globals = self
            .procs
            .globals
            .get(id.0 as usize)
            .cloned()
            .unwrap_or_default();
        if sites.is_empty() && !recursive {
            // program entry (or a procedure nothing calls): C initialisers of globals
            for d in prog.globals.iter().filter(|d| globals.contains(&d.name)) {
                if let DeclKind::Scalar { init: Some(init) } = &d.kind {
                    let v = self.ev(init, &env, Some(&d.name));
                    env.insert(d.name.clone(), v);
                }
            }
        } else {
            // paths under globals the callers hold (`cfg.nx` of a global `cfg`)
            let mut globals = globals.clone();
            for s in &sites {
                globals.extend(
                    s.globals
                        .keys()
                        .filter(|k| *k != path_root(k) && globals.contains(path_root(k)))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
            }
            // A recursive procedure is entered from its callers off the cycle and from the
            // cycle itself; a global nothing on the cycle (callees included) may write holds
            // at every re-entry what it held at the first, so the outer callers decide it.
            let i = id.0 as usize;
            let mut cycle_writes = self.procs.mod_globals.get(i).cloned().unwrap_or_default();
            cycle_writes.extend(
                self.procs
                    .mod_global_arrays
                    .get(i)
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            for g in &globals {
                let v = if recursive && touched(&cycle_writes, g) {
                    Val::unknown(format!("`{name}` is recursive and may write `{g}`"))
                } else if outer.is_empty() {
                    Val::unknown(format!("`{name}` is recursive"))
                } else {
                    agree(
                        outer.iter().map(|s| (s.line, s.globals.get(g).cloned())),
                        &format!("global {}", path_text(g)),
                        name,
                    )
                };
                env.insert(g.clone(), v);
            }
        }
        for (k, f) in p.params.iter().enumerate() {
            let v = if recursive && (outer.is_empty() || !self.passed_unchanged(id, k)) {
                Val::unknown(format!(
                    "argument `{}` of `{name}`: `{name}` is recursive",
                    f.name
                ))
            } else if recursive {
                // passed on unchanged: what the first call gave
                agree(
                    outer.iter().map(|s| (s.line, s.args.get(k).cloned())),
                    &format!("argument `{}`", f.name),
                    name,
                )
            } else if sites.is_empty() {
                Val::unknown(format!(
                    "argument `{}` of `{name}`, which nothing calls",
                    f.name
                ))
            } else {
                agree(
                    sites.iter().map(|s| (s.line, s.args.get(k).cloned())),
                    &format!("argument `{}`", f.name),
                    name,
                )
            };
            env.insert(f.name.clone(), v);
            if recursive {
                continue;
            }
            let suffixes: BTreeSet<&String> = sites
                .iter()
                .filter_map(|s| s.fields.get(&k))
                .flat_map(|m| m.keys())
                .collect();
            for suffix in suffixes {
                let v = agree(
                    sites.iter().map(|s| {
                        (
                            s.line,
                            s.fields.get(&k).and_then(|m| m.get(suffix)).cloned(),
                        )
                    }),
                    &format!("argument {}", path_text(&format!("{}{suffix}", f.name))),
                    name,
                );
                env.insert(format!("{}{suffix}", f.name), v);
            }
        }
        env
    }

    /// Whether scalar formal `k` of recursive `id` holds at every re-entry what the first call
    /// gave it: `id` is its cycle's only caller of itself, each of those calls passes the
    /// formal itself in position `k` (`vcycle(l + 1, nu)` for `nu`), and nothing in `id`
    /// (callees included) writes it.
    fn passed_unchanged(&self, id: ProcId, k: usize) -> bool {
        let prog = self.prog;
        let Some(f) = prog.proc(id).and_then(|p| p.params.get(k)) else {
            return false;
        };
        let Some(p) = prog.proc(id) else { return false };
        if self.is_array(&f.name)
            || self
                .procs
                .mod_formals
                .get(id.0 as usize)
                .is_some_and(|m| m.contains(&k))
            || self.procs.block_defs(prog, &p.body).contains(&f.name)
        {
            return false;
        }
        let same = |v: &str| {
            v == f.name || (prog.language == Language::Fortran && v.eq_ignore_ascii_case(&f.name))
        };
        for s in &prog.stmts {
            let mut targets = crate::procs::expr_calls(prog, &self.procs.names, s);
            if let StmtKind::Call(c) = &s.kind {
                if let Some(t) = user_proc(prog, &self.procs.names, s.proc, &c.name) {
                    targets.push((t, c.args.as_slice()));
                }
            }
            for (t, args) in targets {
                if t != id || !self.procs.same_component(s.proc, id) {
                    continue;
                }
                if s.proc != id {
                    return false;
                }
                match args.get(k).map(|a| &a.kind) {
                    Some(SrcExprKind::Var(v)) if same(v) => {}
                    _ => return false,
                }
            }
        }
        true
    }

    /// The numeric value of a constant's initialiser, given other constants' defaults.
    fn constant_default(&self, e: &Expr) -> Option<f64> {
        let lookup = |v: &str| {
            self.params
                .list()
                .iter()
                .find(|p| p.name == v)
                .and_then(|p| match p.origin {
                    crate::params::ParamOrigin::Constant { default } => Some(default),
                    _ => None,
                })
        };
        e.eval(&lookup).ok().filter(|x| x.is_finite())
    }

    pub fn block(&mut self, block: &[StmtId], env: &mut Env) {
        for &id in block {
            self.stmt(id, env);
        }
    }

    fn set_unknown(
        &mut self,
        env: &mut Env,
        names: impl IntoIterator<Item = String>,
        reason: &str,
    ) {
        for n in names {
            self.kill_paths(env, &n, reason);
            env.insert(n, Val::unknown(reason));
        }
    }

    /// Makes the paths a write to `name` makes stale unknown ([`stale_paths`]), not `name`,
    /// and forgets what the root stored under it ([`Self::note_store`]).
    fn kill_paths(&mut self, env: &mut Env, name: &str, reason: &str) {
        for p in stale_paths(env, name) {
            env.insert(p, Val::unknown(reason));
        }
        for p in stale_paths(&self.read_into, name) {
            self.read_into.remove(&p);
        }
    }

    /// An element or member stored from what was read at run time (`ibuf(1) = n` where `n`
    /// is an input): what a broadcast of the whole array or struct gives, unless another
    /// store disagrees.
    fn note_store(&mut self, path: &str, v: &Val) {
        if path == path_root(path) {
            return;
        }
        let from_input = v.known().is_some_and(|e| {
            let vars = e.vars();
            vars.iter().any(|x| self.params.is_input(x))
                && vars
                    .iter()
                    .all(|x| self.params.is_input(x) || self.params.is_constant(x) || x == "P")
        });
        match self.read_into.get(path) {
            Some(old) if from_input && old == v => {}
            None if from_input => {
                self.read_into.insert(path.to_string(), v.clone());
            }
            Some(_) => {
                self.read_into.insert(
                    path.to_string(),
                    Val::unknown(format!("`{path}` is stored more than one value")),
                );
            }
            None => {}
        }
    }

    fn stmt(&mut self, id: StmtId, env: &mut Env) {
        let prog = self.prog;
        let Some(s) = prog.stmt(id) else { return };
        let line = self.line(s.span);
        self.stmt_kind(id, s, env, line);
        if let Some(vars) = self.procs.side_effects.get(&id).cloned() {
            // constant steps (`req[nreq++]`) of a known scalar keep it known
            let steps = crate::procs::increments(s);
            let mut changed: Vec<String> = Vec::new();
            for v in vars.iter().filter(|v| !self.is_array(v)) {
                match (steps.get(v), env.get(v)) {
                    (Some(Some(k)), Some(Val::Known(x))) => {
                        let stepped = Val::Known(x.clone() + Expr::int(*k));
                        env.insert(v.clone(), stepped);
                    }
                    // stepped from an unknown value: unknown for the reason it already has
                    (Some(Some(_)), Some(Val::Unknown(_))) => {}
                    _ => changed.push(v.clone()),
                }
            }
            let reason = format!("modified inside an expression at line {line}");
            let arrays: Vec<String> = vars.iter().filter(|v| self.is_array(v)).cloned().collect();
            for v in arrays {
                self.kill_paths(env, &v, &reason);
            }
            self.set_unknown(env, changed, &reason);
        }
    }

    fn stmt_kind(&mut self, id: StmtId, s: &frontend::Stmt, env: &mut Env, line: u32) {
        let prog = self.prog;
        match &s.kind {
            StmtKind::Assign(a) => {
                self.array_op(id, s, env);
                let chain = crate::pointers::chain_conds(prog, &self.procs.names, s.proc, &a.value);
                if !chain.is_empty() {
                    let conds: Vec<Cond> = chain.into_iter().map(|c| self.cond(c, env)).collect();
                    self.pointer_conds.insert(id, conds);
                }
                let reason = format!(
                    "assigned at line {line} through `{}`",
                    short(self.sources.text(a.target.span))
                );
                if let SrcExprKind::Var(p) = &a.target.kind {
                    self.points_to.remove(p);
                    if let SrcExprKind::Unary {
                        op: UnOp::AddrOf,
                        operand,
                    } = &a.value.kind
                    {
                        if let Some(base) = operand.base_var() {
                            let target = short(self.sources.text(operand.span));
                            self.points_to
                                .insert(p.clone(), (target, base.to_string(), line));
                        }
                    }
                }
                match a.target.path() {
                    Some(x) => {
                        let v = self.ev(&a.value, env, Some(&x));
                        // a logical stored in an array (`periods(1) = .true.`) is 1 or 0
                        // for the MPI calls that read it
                        let v = match &a.value.kind {
                            SrcExprKind::Bool(b) if self.is_array(path_root(&x)) => {
                                Val::Known(Expr::int(i64::from(*b)))
                            }
                            _ => v,
                        };
                        if !matches!(a.target.kind, SrcExprKind::Var(_)) {
                            // `a[0] = …` through a pointer `a`: as before, `a` itself
                            let scalars = self.scalars(&s.defs);
                            self.set_unknown(env, scalars, &reason);
                        }
                        self.kill_paths(env, &x, &reason);
                        self.note_store(&x, &v);
                        env.insert(x, v);
                    }
                    None => {
                        let arrays: Vec<&String> =
                            s.defs.iter().filter(|d| self.is_array(d)).collect();
                        for d in arrays {
                            self.kill_paths(env, d, &reason);
                        }
                        for e in [&a.target, &a.value] {
                            let _ = self.ev(e, env, None);
                        }
                        let scalars = self.scalars(&s.defs);
                        if !scalars.is_empty() {
                            self.set_unknown(env, scalars, &reason);
                        }
                    }
                }
            }
            StmtKind::Input(inp) => {
                let reason = format!("read at line {line}");
                for t in &inp.targets {
                    let Some(x) = t.path() else {
                        // `scanf("%d", &a[i])`, `read *, (a(i), i = 1, n)`: any element
                        if let Some(b) = t.base_var() {
                            self.kill_paths(env, b, &reason);
                        }
                        continue;
                    };
                    self.kill_paths(env, &x, &reason);
                    // a whole array read (`read *, g`) leaves its elements unknown
                    if self.is_array(&x) {
                        continue;
                    }
                    let v = match self.params.input(&inp.origin, &x, line) {
                        Some(p) => Val::Known(Expr::var(&p)),
                        None => Val::unknown(format!("read from a file at line {line}")),
                    };
                    self.read_into.insert(x.clone(), v.clone());
                    env.insert(x, v);
                }
            }
            StmtKind::Mpi(m) => self.mpi(id, m, env, line),
            StmtKind::Call(c) => {
                let callee = user_proc(prog, &self.procs.names, s.proc, &c.name);
                let vals: Vec<Val> = c.args.iter().map(|a| self.ev(a, env, None)).collect();
                let reason = format!("modified by call to `{}` at line {line}", c.name);
                match callee {
                    Some(cid) => {
                        if !self.summarizing {
                            self.record_call(cid, vals.clone(), &c.args, env, line);
                        }
                        let defs = self.procs.call_defs(s, cid, &c.args);
                        self.set_unknown(env, defs.iter().cloned(), &reason);
                        // elements of global arrays it writes (its summary restores those
                        // it leaves known)
                        let arrays = self.procs.mod_global_arrays.get(cid.0 as usize).cloned();
                        for a in arrays.into_iter().flatten() {
                            self.kill_paths(env, &a, &reason);
                        }
                        let at = CallAt {
                            callee: &c.name,
                            line,
                            reason: &reason,
                        };
                        self.apply_summary(cid, &c.args, &vals, env, &at);
                        self.apply_fields(cid, &c.args, &vals, &defs, env, &at);
                    }
                    None => match pointer_call(prog, &self.procs.names, s) {
                        Some(pc) => self.pointer_call(id, s, &pc, vals, env, line, &reason),
                        None => self.set_unknown(env, s.defs.clone(), &reason),
                    },
                }
            }
            StmtKind::Loop(l) => self.counted_loop(id, l, env, line),
            StmtKind::While(w) => {
                self.block(&w.init, env);
                let mut defined = self.procs.block_defs(prog, &w.body);
                defined.extend(self.procs.block_defs(prog, &w.update));
                let reason = format!("assigned in loop at line {line}");
                let (trip, cap) = self.while_trip(w, s.span, env, &defined, line);
                let total = match &trip {
                    Attr::Expr(t) => self.trip_total(t),
                    _ => None,
                };
                let before = env.clone();
                self.set_unknown(env, defined.iter().cloned(), &reason);
                if let Some(c) = &w.cond {
                    let _ = self.ev(c, env, None);
                }
                self.facts.loops.insert(
                    id,
                    LoopFacts {
                        trip,
                        cap,
                        total,
                        var: None,
                        sym: None,
                        lo: Val::unknown("while loop"),
                        hi: Val::unknown("while loop"),
                        step: Val::unknown("while loop"),
                    },
                );
                let mut inner = env.clone();
                self.block(&w.body, &mut inner);
                self.block(&w.update, &mut inner);
                self.set_unknown(env, defined.iter().cloned(), &reason);
                self.inputs_after_loop(&[&w.body, &w.update], &defined, &before, env);
            }
            StmtKind::If(i) => {
                // `if (x < y) m = x; else m = y;` (or no else, `m = y` before it) is `min(x, y)`
                let test = match i.arms.as_slice() {
                    [arm] => pure_test(
                        &arm.cond,
                        &mut Cx {
                            an: self,
                            env,
                            target: None,
                        },
                    ),
                    _ => None,
                };
                let conds: Vec<Cond> = i.arms.iter().map(|a| self.cond(&a.cond, env)).collect();
                self.facts.conds.insert(id, conds);
                let mut outs = Vec::new();
                for arm in &i.arms {
                    let mut e = env.clone();
                    // inside `if (left != MPI_PROC_NULL)` a neighbour with an edge is the
                    // neighbour; it has its edge again after
                    let edge = self.not_null(&arm.cond, env);
                    if let Some((v, o)) = &edge {
                        e.insert(v.clone(), Val::Known(o.peer.clone()));
                    }
                    self.block(&arm.body, &mut e);
                    if let Some((v, o)) = edge {
                        if e.get(&v) == Some(&Val::Known(o.peer.clone())) {
                            e.insert(v, Val::OrNull(o));
                        }
                    }
                    if !self.terminates(&arm.body) {
                        outs.push(e);
                    }
                }
                match &i.else_body {
                    Some(b) => {
                        let mut e = env.clone();
                        self.block(b, &mut e);
                        if !self.terminates(b) {
                            outs.push(e);
                        }
                    }
                    None => outs.push(env.clone()),
                }
                // and `if (left < 0) left = MPI_PROC_NULL` a neighbour with its edge
                let chosen = match (&test, outs.as_slice()) {
                    (Some(t @ (op, x, y)), [then, other]) => then
                        .iter()
                        .filter_map(|(k, a)| {
                            let b = other.get(k)?;
                            (a != b)
                                .then(|| min_max(*op, x, y, a, b).or_else(|| or_null(t, a, b)))
                                .flatten()
                                .map(|v| (k.clone(), v))
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                if !outs.is_empty() {
                    let params = &self.params;
                    *env = merge(outs, line, &|n| params.is_input(n), &|n| {
                        params.is_constant(n)
                    });
                    env.extend(chosen);
                }
            }
            StmtKind::Return { value } => {
                if let Some(v) = value {
                    let _ = self.ev(v, env, None);
                }
            }
            StmtKind::Break | StmtKind::Continue => {}
            StmtKind::Opaque(o) => {
                let scalars = self.scalars(&s.defs);
                let reason = format!("set by `{}` at line {line}, not analysed", short(&o.text));
                let arrays: Vec<&String> = s.defs.iter().filter(|d| self.is_array(d)).collect();
                for d in arrays {
                    self.kill_paths(env, d, &reason);
                }
                if !scalars.is_empty() {
                    self.set_unknown(env, scalars, &reason);
                }
                // the bounds an ALLOCATE gives, for lbound/ubound/size and array syntax
                for a in &o.allocations {
                    for (k, d) in a.dims.iter().enumerate() {
                        let (lo, hi) = match d {
                            frontend::Dim::Bounds { lo, hi } => {
                                (self.ev(lo, env, None), self.ev(hi, env, None))
                            }
                            frontend::Dim::Extent(e) => {
                                (Val::Known(Expr::one()), self.ev(e, env, None))
                            }
                            frontend::Dim::Assumed => continue,
                        };
                        env.insert(crate::value::bound_path(&a.array, k + 1, false), lo);
                        env.insert(crate::value::bound_path(&a.array, k + 1, true), hi);
                    }
                }
            }
        }
    }

    /// After a call: the callee's exit values of what it writes ([`Summary`]), completed
    /// with the call's argument values (`vals`, evaluated before the call).
    fn apply_summary(
        &self,
        callee: ProcId,
        args: &[SrcExpr],
        vals: &[Val],
        env: &mut Env,
        call: &CallAt<'_>,
    ) {
        let Some(sum) = self.summaries.get(&callee) else {
            return;
        };
        for (g, v) in &sum.globals {
            if self
                .procs
                .globals
                .get(self.cur.0 as usize)
                .is_some_and(|gs| gs.contains(path_root(g)))
            {
                env.insert(g.clone(), bind_args(v, vals, path_root(g), call));
            }
        }
        for (k, v) in &sum.formals {
            if let Some(SrcExprKind::Var(x)) = args.get(*k).map(|a| &a.kind) {
                if env
                    .get(x)
                    .is_some_and(|old| *old == Val::unknown(call.reason))
                {
                    env.insert(x.clone(), bind_args(v, vals, x, call));
                }
            }
        }
    }

    /// After a call: what the callee stores under the formals it was handed by address
    /// ([`Summary::fields`]), in the caller's paths, its arguments substituted.
    fn apply_fields(
        &mut self,
        callee: ProcId,
        args: &[SrcExpr],
        vals: &[Val],
        defs: &BTreeSet<String>,
        env: &mut Env,
        call: &CallAt<'_>,
    ) {
        let Some(fields) = self.summaries.get(&callee).map(|s| s.fields.clone()) else {
            return;
        };
        for (k, fields) in &fields {
            let Some((root, addr)) = args.get(*k).and_then(arg_root) else {
                continue;
            };
            // a struct passed by value: the callee's writes stay there (`defs` names the
            // argument, or the paths under it the callee writes)
            let base = path_root(&root);
            if !defs.iter().any(|d| path_root(d) == base) {
                continue;
            }
            for (suffix, v) in fields {
                let Some(rest) = caller_suffix(suffix, addr) else {
                    continue;
                };
                let path = format!("{root}{rest}");
                let v = bind_args(v, vals, &path, call);
                self.note_store(&path, &v);
                env.insert(path, v);
            }
        }
    }

    /// A Fortran array-syntax statement: an implicit loop whose trip is the number of
    /// elements it visits ([`crate::array`]).
    fn array_op(&mut self, id: StmtId, s: &frontend::Stmt, env: &Env) {
        let prog = self.prog;
        let Some(op) = frontend::array_op(prog, s) else {
            return;
        };
        let trip = {
            let mut ev = |e: &SrcExpr| self.ev(e, env, None);
            crate::array::extent(prog, s.proc, &op, &mut ev)
        };
        let total = match &trip {
            Attr::Expr(t) => self.trip_total(t),
            _ => None,
        };
        let none = || Val::unknown("array syntax");
        self.facts.loops.insert(
            id,
            LoopFacts {
                trip,
                cap: None,
                total,
                var: None,
                sym: None,
                lo: none(),
                hi: none(),
                step: none(),
            },
        );
    }

    /// The names in `defs` that are not arrays.
    fn scalars(&self, defs: &std::collections::BTreeSet<String>) -> Vec<String> {
        defs.iter().filter(|d| !self.is_array(d)).cloned().collect()
    }

    fn is_array(&self, name: &str) -> bool {
        matches!(
            self.prog.decl(self.cur, name).map(|d| &d.kind),
            Some(DeclKind::Array { .. })
        )
    }

    /// Whether control never falls out of the end of `block`: one of its statements stops
    /// the process or returns (what follows it is dead).
    fn terminates(&self, block: &[StmtId]) -> bool {
        block
            .iter()
            .filter_map(|id| self.prog.stmt(*id))
            .any(|s| match &s.kind {
                StmtKind::Return { .. } => true,
                StmtKind::Mpi(m) => m.op == MpiOp::Abort,
                StmtKind::Call(c) => matches!(
                    c.name.to_ascii_lowercase().as_str(),
                    "exit" | "abort" | "_exit"
                ),
                StmtKind::Opaque(o) => o.text.trim_start().to_ascii_lowercase().starts_with("stop"),
                _ => false,
            })
    }

    fn mpi(&mut self, id: StmtId, m: &frontend::MpiCall, env: &mut Env, line: u32) {
        // MPI_COMM_WORLD as written or through a variable holding it, or a Cartesian grid
        // of it (ranks as in MPI_COMM_WORLD: crate::cart)
        let world = match m.arg(Role::Comm) {
            Some(a) => {
                self.ev(&a.expr, env, None) == Val::Special(Special::CommWorld)
                    || handle_var(&a.expr).is_some_and(|c| crate::cart::stored(env, c).is_some())
            }
            None => false,
        };
        let out_var = |role: Role| match m.arg(role).map(|a| &a.expr.kind) {
            Some(SrcExprKind::Var(v)) => Some(v.clone()),
            _ => None,
        };
        match m.op {
            MpiOp::CommSize | MpiOp::CommRank => {
                let role = if m.op == MpiOp::CommSize {
                    Role::Size
                } else {
                    Role::Rank
                };
                if let Some(v) = out_var(role) {
                    let val = if world {
                        let p = if m.op == MpiOp::CommSize {
                            self.params.comm_size(&v, line)
                        } else {
                            self.params.comm_rank(&v, line)
                        };
                        Val::Known(Expr::var(&p))
                    } else {
                        Val::unknown(format!(
                            "{} of a communicator other than MPI_COMM_WORLD at line {line}",
                            m.name
                        ))
                    };
                    env.insert(v, val);
                }
                return;
            }
            _ => {}
        }
        let facts = {
            let mut cx = Cx {
                an: self,
                env,
                target: None,
            };
            comm_facts(m, &mut cx)
        };
        if let Some(mut f) = facts {
            if matches!(m.op, MpiOp::Start | MpiOp::Startall) {
                self.started(m, &mut f);
            }
            self.facts.comms.insert(id, f);
            self.note_edges(m, env, line);
        }
        if m.op.is_persistent_init() {
            self.request_init(m, env);
        }
        let balanced = (m.op == MpiOp::DimsCreate)
            .then(|| self.dims_create(m, env, line))
            .flatten();
        for a in &m.args {
            // committing a type keeps its handle (and the size kept under it)
            if a.role.is_written_by(m.op) && m.op != MpiOp::TypeCommit {
                let bcast = matches!(m.op, MpiOp::Bcast | MpiOp::Ibcast) && a.role == Role::Buffer;
                // a broadcast gives every rank the root's value: unchanged if every rank
                // already had it, else what the root read at run time
                let after = |v: &str, env: &Env| match (bcast, env.get(v), self.read_into.get(v)) {
                    (true, Some(b @ (Val::Known(_) | Val::Special(_))), _) => b.clone(),
                    (true, _, Some(read)) => read.clone(),
                    _ => Val::unknown(format!("set by {} at line {line}", m.name)),
                };
                if let SrcExprKind::Var(v) = &a.expr.kind {
                    let x = after(v, env);
                    env.insert(v.clone(), x);
                }
                // the elements and members of the buffer (from `&a[k]` or `a + k` on, the
                // whole array)
                if let Some(root) = written_root(&a.expr) {
                    let mut paths = stale_paths(env, root);
                    paths.extend(
                        self.read_into
                            .keys()
                            .filter(|k| path_under(k, root) && !env.contains_key(*k))
                            .cloned(),
                    );
                    for p in paths {
                        let x = after(&p, env);
                        env.insert(p, x);
                    }
                }
            }
        }
        // after the handle's old paths were dropped above
        let derived = {
            let mut cx = Cx {
                an: self,
                env,
                target: None,
            };
            crate::comm::derived_size(m, &mut cx)
        };
        if let Some((path, size)) = derived {
            env.insert(path, size);
        }
        match m.op {
            MpiOp::CartCreate => {
                if let Some((comm, grid)) = self.cart_create(m, env) {
                    env.extend(crate::cart::store(&comm, &grid));
                }
            }
            MpiOp::CartShift => self.cart_shift(m, env, line),
            MpiOp::CartCoords => self.cart_coords(m, env),
            _ => {}
        }
        if let Some(b) = balanced {
            env.extend(b.elements);
            if let Some(note) = b.note {
                self.notes.insert(line, note);
            }
        }
        if let Some(r) = &m.result {
            if let SrcExprKind::Var(v) = &r.kind {
                env.insert(
                    v.clone(),
                    Val::unknown(format!("returned by {} at line {line}", m.name)),
                );
            }
        }
    }

    /// `MPI_Cart_create(MPI_COMM_WORLD, d, dims, periods, reorder, &comm)` with a constant
    /// `d` and every element of `dims` and `periods` known: the new handle and its grid.
    fn cart_create(
        &mut self,
        m: &frontend::MpiCall,
        env: &Env,
    ) -> Option<(String, crate::cart::Grid)> {
        if self.ev(&m.arg(Role::Comm)?.expr, env, None) != Val::Special(Special::CommWorld) {
            return None;
        }
        let d = self.constant(&m.arg(Role::Ndims)?.expr, env)?;
        let d = usize::try_from(d).ok().filter(|d| (1..=8).contains(d))?;
        let comm = handle_var(&m.arg(Role::NewComm)?.expr)?.to_string();
        let extents = self.elements(&m.arg(Role::Dims)?.expr, d, env)?;
        let periodic = self
            .elements(&m.arg(Role::Periods)?.expr, d, env)?
            .iter()
            .map(|p| p.as_const().map(|c| c != 0.0))
            .collect::<Option<Vec<bool>>>()?;
        Some((comm, crate::cart::Grid { extents, periodic }))
    }

    /// `MPI_Cart_shift(comm, dir, disp, &source, &dest)` on a grid made here (or handed in):
    /// the neighbours ([`crate::cart::shift`]) replace the "set by" the call left.
    fn cart_shift(&mut self, m: &frontend::MpiCall, env: &mut Env, line: u32) {
        let Some(comm) = m.arg(Role::Comm).and_then(|a| handle_var(&a.expr)) else {
            return;
        };
        let Some(grid) = crate::cart::stored(env, comm) else {
            return;
        };
        let dir = m
            .arg(Role::Direction)
            .and_then(|a| self.constant(&a.expr, env));
        let disp = m.arg(Role::Disp).and_then(|a| self.constant(&a.expr, env));
        let (Some(dir), Some(disp)) = (dir.and_then(|d| usize::try_from(d).ok()), disp) else {
            return;
        };
        let rank = Expr::var(&self.params.comm_rank(comm, line));
        let Some((src, dst)) = crate::cart::shift(&grid, &rank, dir, disp) else {
            return;
        };
        for (role, v) in [(Role::Source, src), (Role::Dest, dst)] {
            if let Some(x) = m.arg(role).and_then(|a| handle_var(&a.expr)) {
                env.insert(x.to_string(), v);
            }
        }
    }

    /// `MPI_Cart_coords(comm, r, d, coords)` on a grid made here (or handed in) with `r`
    /// known: the elements of `coords` are `r`'s coordinates ([`crate::cart::coord`]).
    fn cart_coords(&mut self, m: &frontend::MpiCall, env: &mut Env) {
        let Some(comm) = m.arg(Role::Comm).and_then(|a| handle_var(&a.expr)) else {
            return;
        };
        let Some(grid) = crate::cart::stored(env, comm) else {
            return;
        };
        let rank = match m.arg(Role::Rank).map(|a| self.ev(&a.expr, env, None)) {
            Some(Val::Known(r)) => r,
            _ => return,
        };
        let Some(root) = m.arg(Role::Coords).and_then(|a| written_root(&a.expr)) else {
            return;
        };
        let lower = match self.prog.decl(self.cur, root).map(|x| &x.kind) {
            Some(DeclKind::Array { dims, .. }) => match dims.first() {
                Some(frontend::Dim::Bounds { lo, .. }) => lo.as_int(),
                _ if self.prog.language == frontend::Language::Fortran => Some(1),
                _ => Some(0),
            },
            _ => None,
        };
        let Some(lower) = lower else { return };
        for k in 0..grid.extents.len() {
            if let Some(c) = crate::cart::coord(&grid, &rank, k) {
                env.insert(format!("{root}[{}]", lower + k as i64), Val::Known(c));
            }
        }
    }

    /// An integer a named constant may spell (`#define NDIMS 3`, `parameter (nd = 2)`).
    fn constant(&mut self, e: &SrcExpr, env: &Env) -> Option<i64> {
        let v = self.ev(e, env, None);
        let e = v.known()?;
        let params = &self.params;
        let c = e.eval(&|x| params.constant_value(x)).ok()?;
        (c.fract() == 0.0 && c.abs() < 1e9).then_some(c as i64)
    }

    /// The first `d` elements of an array argument (`dims`, `&dims[0]`, Fortran `dims`), as
    /// stored element by element or for the whole array (`periods = .false.`); a scalar
    /// (`&n` with `d` = 1) is its own element. `None` unless all are known.
    fn elements(&self, e: &SrcExpr, d: usize, env: &Env) -> Option<Vec<Expr>> {
        let root = written_root(e)?;
        let lower = match self.prog.decl(self.cur, root).map(|x| &x.kind) {
            Some(DeclKind::Array { dims, .. }) => match dims.first() {
                Some(frontend::Dim::Bounds { lo, .. }) => lo.as_int()?,
                _ if self.prog.language == frontend::Language::Fortran => 1,
                _ => 0,
            },
            _ if d == 1 => return Some(vec![env.get(root)?.known()?.clone()]),
            _ => return None,
        };
        (0..d)
            .map(|k| {
                let at = format!("{root}[{}]", lower + k as i64);
                env.get(&at)
                    .or_else(|| env.get(root))
                    .and_then(Val::known)
                    .cloned()
            })
            .collect()
    }

    /// A COMM node's peer is the neighbour (its attribute); where the neighbour is
    /// `MPI_PROC_NULL` (the edge of the process grid) the note at its line says.
    fn note_edges(&mut self, m: &frontend::MpiCall, env: &Env, line: u32) {
        let mut said = Vec::new();
        for role in [Role::Peer, Role::Dest, Role::Source] {
            let Some(a) = m.arg(role) else { continue };
            // evaluated again: only a variable, which records nothing twice
            let SrcExprKind::Var(v) = &a.expr.kind else {
                continue;
            };
            if let Val::OrNull(o) = self.ev(&a.expr, env, None) {
                said.push(format!("`{v}` is {}", o.text()));
            }
        }
        if !said.is_empty() {
            let note = format!("{} at line {line}: {}", m.name, said.join("; "));
            self.notes
                .entry(line)
                .and_modify(|n| {
                    n.push_str("; ");
                    n.push_str(&note);
                })
                .or_insert(note);
        }
    }

    /// `MPI_Send_init`/`Recv_init`/…: the message each start of the request will make, by
    /// the request's path in this procedure; a request set up by two inits is unknown.
    fn request_init(&mut self, m: &frontend::MpiCall, env: &Env) {
        let Some(path) = m.arg(Role::Request).and_then(|a| a.expr.path()) else {
            return;
        };
        let mut as_p2p = m.clone();
        as_p2p.op = if m.op == MpiOp::RecvInit {
            MpiOp::Irecv
        } else {
            MpiOp::Isend
        };
        let facts = {
            let mut cx = Cx {
                an: self,
                env,
                target: None,
            };
            comm_facts(&as_p2p, &mut cx)
        };
        let key = (self.cur, path);
        let f = match (self.requests.get(&key), facts) {
            (None, Some(f)) => Some(f),
            (Some(Some(old)), Some(f)) if *old == f => Some(f),
            _ => None,
        };
        self.requests.insert(key, f);
    }

    /// A Start or Startall of persistent requests set up in this procedure: the messages
    /// they start (the runtime traces each as the Isend/Irecv it makes) give the node's size,
    /// peer and tag when every started message agrees on them.
    fn started(&self, m: &frontend::MpiCall, f: &mut CommFacts) {
        let paths: Vec<String> = match m.op {
            MpiOp::Start => m
                .arg(Role::Request)
                .and_then(|a| a.expr.path())
                .into_iter()
                .collect(),
            _ => {
                let n = f
                    .count
                    .as_ref()
                    .and_then(Attr::expr)
                    .and_then(Expr::as_const);
                let root = m.arg(Role::Requests).and_then(|a| a.expr.base_var());
                let (Some(n), Some(root)) = (n, root) else {
                    return;
                };
                let lower = i64::from(self.prog.language == frontend::Language::Fortran);
                if n.fract() != 0.0 || !(1.0..=64.0).contains(&n) {
                    return;
                }
                (0..n as i64)
                    .map(|k| format!("{root}[{}]", k + lower))
                    .collect()
            }
        };
        let inits: Option<Vec<&CommFacts>> = paths
            .iter()
            .map(|p| {
                self.requests
                    .get(&(self.cur, p.clone()))
                    .and_then(Option::as_ref)
            })
            .collect();
        let Some(inits) = inits.filter(|v| !v.is_empty()) else {
            return;
        };
        let sends: Vec<&CommFacts> = inits
            .iter()
            .copied()
            .filter(|i| i.op != MpiOp::Irecv)
            .collect();
        let recvs: Vec<&CommFacts> = inits
            .iter()
            .copied()
            .filter(|i| i.op == MpiOp::Irecv)
            .collect();
        let one = |list: &[&CommFacts], pick: &dyn Fn(&CommFacts) -> Option<Attr>, what: &str| {
            let vals: Vec<Attr> = list.iter().filter_map(|i| pick(i)).collect();
            let first = vals.first()?.clone();
            Some(if vals.iter().all(|v| *v == first) {
                first
            } else {
                Attr::Unresolved(format!("the started requests differ in {what}"))
            })
        };
        f.bytes = one(&inits, &|i| i.bytes.clone(), "size");
        f.peer = one(&sends, &|i| i.peer.clone(), "peer");
        f.tag = one(&sends, &|i| i.tag.clone(), "tag");
        f.source = one(&recvs, &|i| i.peer.clone(), "source");
        f.recv_tag = one(&recvs, &|i| i.tag.clone(), "tag");
    }

    /// The extents `MPI_Dims_create(P, d, dims)` leaves in a `dims` zeroed before it (element
    /// by element, or whole: Fortran `dims = 0`): exact, `dims(P, d, k)`, see [`crate::dims`].
    fn dims_create(
        &mut self,
        m: &frontend::MpiCall,
        env: &Env,
        line: u32,
    ) -> Option<crate::dims::Balanced> {
        let nnodes = self.ev(&m.arg(Role::Nnodes)?.expr, env, None);
        // a named constant (`#define NDIMS 3`, `parameter (nd = 2)`) counts as its value
        let ndims = match self.ev(&m.arg(Role::Ndims)?.expr, env, None) {
            Val::Known(e) if e.as_const().is_none() => {
                let params = &self.params;
                match e.eval(&|x| params.constant_value(x)) {
                    Ok(d) => Val::Known(Expr::num(d)),
                    Err(_) => Val::Known(e),
                }
            }
            v => v,
        };
        let root = written_root(&m.arg(Role::Dims)?.expr)?.to_string();
        let fortran = self.prog.language == frontend::Language::Fortran;
        let lower = match self.prog.decl(self.cur, &root).map(|d| &d.kind) {
            Some(DeclKind::Array { dims, .. }) => match dims.first() {
                Some(frontend::Dim::Bounds { lo, .. }) => lo.as_int()?,
                _ if fortran => 1,
                _ => 0,
            },
            _ => return None,
        };
        let zero = |path: &str| match env.get(path) {
            Some(v) => crate::dims::is_zero(Some(v)),
            None => crate::dims::is_zero(env.get(&root)),
        };
        crate::dims::balanced(&nnodes, &ndims, &root, lower, fortran, zero, line)
    }

    fn loop_symbol(&self, var: &str) -> String {
        if self.params.is_param(var) {
            format!("{var}_loop")
        } else {
            var.to_string()
        }
    }

    fn counted_loop(&mut self, id: StmtId, l: &frontend::Loop, env: &mut Env, line: u32) {
        let lo = self.ev(&l.lo, env, None);
        let hi = self.ev(&l.hi, env, None);
        let step = self.ev(&l.step, env, None);
        let mut defined = self.procs.block_defs(self.prog, &l.body);
        let mut trip = trip_count(&lo, &hi, &step);
        // C re-evaluates the condition every iteration (Fortran fixes the count at entry)
        if self.prog.language == frontend::Language::C {
            let changed =
                l.hi.vars()
                    .into_iter()
                    .chain(l.step.vars())
                    .find(|v| touched(&defined, v) && !self.is_array(v));
            if let Some(v) = changed {
                trip = Attr::Unresolved(format!(
                    "bound `{v}` changes in the loop body at line {line}"
                ));
            }
        }
        // left by `break`/`return`: the counted trip is only an upper bound
        let mut cap = None;
        if let (Attr::Expr(t), Some((exit, what))) = (
            &trip,
            cap::early_exit(
                self.prog,
                self.sources,
                self.prog.stmt(id).map_or(l.header_span, |s| s.span),
                &l.body,
                l.end_label,
            ),
        ) {
            let at = self.prog.stmt(exit).map_or(line, |x| self.line(x.span));
            cap = Some(Attr::Expr(t.clone()));
            trip = Attr::Unresolved(format!("exits early ({what} at line {at})"));
        }
        let total = match &trip {
            Attr::Expr(t) => self.trip_total(t),
            _ => None,
        };
        let sym = self.loop_symbol(&l.var);
        self.facts.loops.insert(
            id,
            LoopFacts {
                trip,
                cap,
                total,
                var: Some(l.var.clone()),
                sym: Some(sym.clone()),
                lo: lo.clone(),
                hi: hi.clone(),
                step: step.clone(),
            },
        );
        defined.insert(l.var.clone());
        let reason = format!("assigned in loop at line {line}");
        let mut inner = env.clone();
        self.set_unknown(&mut inner, defined.iter().cloned(), &reason);
        inner.insert(l.var.clone(), Val::Known(Expr::var(&sym)));
        self.stack.push(ActiveLoop { sym, lo, hi, step });
        self.block(&l.body, &mut inner);
        self.stack.pop();
        // Conservative: the loop may run zero times, and values mention its variable.
        let before = env.clone();
        self.set_unknown(env, defined.iter().cloned(), &reason);
        self.inputs_after_loop(&[&l.body], &defined, &before, env);
    }

    /// After a loop: a variable whose one write in the loop stores a value read at run time
    /// (an option a `getopt` loop parses, `case 'n': n = atoi(optarg)`; `n =
    /// atoi(argv[++i])` in a loop over the arguments) holds that input, or the value it had
    /// before when that is a constant default (the loop may not set it).
    fn inputs_after_loop(
        &self,
        blocks: &[&frontend::Block],
        defined: &BTreeSet<String>,
        before: &Env,
        env: &mut Env,
    ) {
        let prog = self.prog;
        let is_read = |e: &SrcExpr| match &e.kind {
            SrcExprKind::Input(o) => *o != InputOrigin::File,
            SrcExprKind::Cast { expr, .. } => {
                matches!(&expr.kind, SrcExprKind::Input(o) if *o != InputOrigin::File)
            }
            _ => false,
        };
        for v in defined {
            let Some(read) = self.read_into.get(v) else {
                continue;
            };
            if !read
                .known()
                .and_then(Expr::as_var)
                .is_some_and(|x| self.params.is_input(x))
            {
                continue;
            }
            let mut writes = blocks
                .iter()
                .flat_map(|b| prog.walk(b))
                .filter_map(|id| prog.stmt(id))
                .filter(|s| {
                    matches!(&s.kind, StmtKind::Loop(l) if l.var == *v)
                        || self.procs.stmt_defs(prog, s).contains(v)
                });
            let (Some(only), None) = (writes.next(), writes.next()) else {
                continue;
            };
            let reads = match &only.kind {
                StmtKind::Assign(a) => {
                    matches!(&a.target.kind, SrcExprKind::Var(x) if x == v) && is_read(&a.value)
                }
                StmtKind::Input(i) => i.origin != InputOrigin::File,
                _ => false,
            };
            if !reads {
                continue;
            }
            let after = match before.get(v) {
                None => Some(read.clone()),
                Some(b) => input_with_default(&[b, read], &|n| self.params.is_input(n), &|n| {
                    self.params.is_constant(n)
                }),
            };
            if let Some(a) = after {
                env.insert(v.clone(), a);
            }
        }
    }

    /// Trip count and cap of a while loop at entry (`env` after its initialiser, before the
    /// body's writes are forgotten): a conjunct `it < limit` of the condition whose counter
    /// every iteration increases by a constant, with `limit` unchanged by the loop, bounds the
    /// trip by the iterations the counter takes from its entry value to `limit` (at least one
    /// when the test follows the body: C `do … while`); the trip is
    /// that bound exactly when nothing else ends the loop ([`crate::cap`]).
    fn while_trip(
        &mut self,
        w: &frontend::While,
        span: frontend::Span,
        env: &Env,
        defined: &BTreeSet<String>,
        line: u32,
    ) -> (Attr, Option<Attr>) {
        let plain = || (Attr::Unresolved("while loop".into()), None);
        let Some(cond) = &w.cond else {
            return plain();
        };
        let prog = self.prog;
        let parts = cap::conjuncts(cond);
        let found = parts.iter().find_map(|c| {
            let t = cap::counter_test(c)?;
            let invariant = !self.is_array(t.var)
                && t.limit.vars().iter().all(|v| !touched(defined, v))
                && t.limit.walk().iter().all(|e| match &e.kind {
                    SrcExprKind::Call { name, .. } | SrcExprKind::Index { array: name, .. } => {
                        user_proc(prog, &self.procs.names, self.cur, name).is_none()
                    }
                    _ => true,
                });
            if !invariant {
                return None;
            }
            let step = cap::counter_step(prog, &self.procs, w, t.var)?;
            Some((t, step))
        });
        let Some((t, step)) = found else {
            return plain();
        };
        let start = self.ev(&SrcExpr::var(t.var, t.limit.span), env, None);
        let hi = match self.ev(t.limit, env, None) {
            Val::Known(e) if t.inclusive => Val::Known(e),
            Val::Known(e) => Val::Known(e - Expr::one()),
            other => other,
        };
        let Attr::Expr(bound) = trip_count(&start, &hi, &Val::Known(Expr::int(step))) else {
            return plain();
        };
        // `do { … } while (it < maxit)` runs its body once even when entered at the limit
        let bound = if w.post_test {
            Expr::max(Expr::one(), bound)
        } else {
            bound
        };
        let exit =
            cap::early_exit(prog, self.sources, span, &w.body, w.end_label).map(|(id, what)| {
                let at = prog.stmt(id).map_or(line, |s| self.line(s.span));
                format!("{what} at line {at}")
            });
        let why = match (parts.len() > 1, exit) {
            (false, None) => return (Attr::Expr(bound), None),
            (true, None) => format!("condition at line {line}"),
            (false, Some(x)) => x,
            (true, Some(x)) => format!("condition at line {line}, {x}"),
        };
        (
            Attr::Unresolved(format!("exits early ({why})")),
            Some(Attr::Expr(bound)),
        )
    }

    /// Σ of `trip` over the enclosing loops whose symbols it mentions, innermost first.
    fn trip_total(&self, trip: &Expr) -> Option<Attr> {
        let mut total = trip.clone();
        let mut mentioned = false;
        for l in self.stack.iter().rev() {
            if !total.contains_var(&l.sym) {
                continue;
            }
            mentioned = true;
            let (Some(lo), Some(hi), Some(step)) = (
                l.lo.known(),
                l.hi.known(),
                l.step.known().and_then(|s| s.as_const()),
            ) else {
                return Some(Attr::Unresolved(format!(
                    "bounds of the loop over `{}` are unresolved",
                    l.sym
                )));
            };
            let sum = if step == 1.0 {
                symbolic::sum_over(&total, &l.sym, lo, hi)
            } else if step == -1.0 {
                symbolic::sum_over(&total, &l.sym, hi, lo)
            } else {
                return Some(Attr::Unresolved(format!(
                    "loop over `{}` has a non-unit step",
                    l.sym
                )));
            };
            match sum {
                Some(s) => total = s,
                None => {
                    return Some(Attr::Unresolved(format!(
                        "no closed form for the sum over `{}`",
                        l.sym
                    )))
                }
            }
        }
        mentioned.then_some(Attr::Expr(total))
    }

    /// A call through a function pointer: each target is called with the arguments (its
    /// formals bound from here), what any of them writes is unknown after it, and the chain
    /// assignment's conditions (evaluated where it stood) are the branch's. A pointer whose
    /// values are not all known procedures is noted: its callee's work is left out.
    #[allow(clippy::too_many_arguments)]
    fn pointer_call(
        &mut self,
        id: StmtId,
        s: &frontend::Stmt,
        pc: &PointerCall,
        vals: Vec<Val>,
        env: &mut Env,
        line: u32,
        reason: &str,
    ) {
        let StmtKind::Call(c) = &s.kind else { return };
        let mut defs = s.defs.clone();
        for &cid in &pc.targets {
            if !self.summarizing {
                self.record_call(cid, vals.clone(), &c.args, env, line);
            }
            defs.extend(self.procs.call_defs(s, cid, &c.args));
        }
        self.set_unknown(env, defs, reason);
        if let Some(conds) = pc.chain.and_then(|a| self.pointer_conds.get(&a)) {
            self.facts.conds.insert(id, conds.clone());
        }
        if !pc.resolved() {
            let file = self
                .sources
                .path(s.span.file)
                .and_then(|p| p.file_name())
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            self.notes.insert(
                line,
                format!(
                    "call through pointer {} at {file}:{line} not resolved: its work is not in the model",
                    pc.var
                ),
            );
        }
    }

    /// `v != MPI_PROC_NULL` (either order) where `v` is a neighbour with an edge.
    fn not_null(&self, cond: &SrcExpr, env: &Env) -> Option<(String, Box<crate::value::OrNull>)> {
        let SrcExprKind::Binary {
            op: BinOp::Ne,
            lhs,
            rhs,
        } = &cond.kind
        else {
            return None;
        };
        let null = |e: &SrcExpr| matches!(&e.kind, SrcExprKind::Var(n) if n.eq_ignore_ascii_case("MPI_PROC_NULL"));
        let v = match (&lhs.kind, &rhs.kind) {
            (SrcExprKind::Var(v), _) if null(rhs) => v,
            (_, SrcExprKind::Var(v)) if null(lhs) => v,
            _ => return None,
        };
        match env.get(v) {
            Some(Val::OrNull(o)) => Some((v.clone(), o.clone())),
            _ => None,
        }
    }

    /// A condition as `lhs op rhs` with symbolic sides, or its source text with the reason.
    fn cond(&mut self, e: &SrcExpr, env: &Env) -> Cond {
        let mut vars = BTreeSet::new();
        match self.cond_text(e, env, &mut vars) {
            Ok(text) => Cond {
                text,
                unresolved: None,
                vars,
            },
            Err(reason) => Cond {
                text: source_text(self.sources.text(e.span)),
                unresolved: Some(reason),
                vars: BTreeSet::new(),
            },
        }
    }

    fn cond_text(
        &mut self,
        e: &SrcExpr,
        env: &Env,
        vars: &mut BTreeSet<String>,
    ) -> Result<String, String> {
        match &e.kind {
            SrcExprKind::Binary { op, lhs, rhs } if op.is_comparison() => {
                let l = self.ev(lhs, env, None);
                let r = self.ev(rhs, env, None);
                // `left != MPI_PROC_NULL` of a neighbour with an edge: where it is not
                if let (Val::OrNull(o), Val::Special(Special::ProcNull))
                | (Val::Special(Special::ProcNull), Val::OrNull(o)) = (&l, &r)
                {
                    let live = match op {
                        BinOp::Ne => Some(o.live.clone()),
                        BinOp::Eq => o.live.negate(),
                        _ => None,
                    };
                    if let Some(t) = live {
                        vars.extend(t.vars());
                        return Ok(t.text());
                    }
                }
                let l = side(l, vars)?;
                let r = side(r, vars)?;
                Ok(format!("{l} {} {r}", op.symbol()))
            }
            SrcExprKind::Binary {
                op: op @ (BinOp::And | BinOp::Or),
                lhs,
                rhs,
            } => {
                let l = self.cond_text(lhs, env, vars);
                let r = self.cond_text(rhs, env, vars);
                let (l, r) = (l?, r?);
                let wrap = |s: String, inner: &SrcExpr| match &inner.kind {
                    SrcExprKind::Binary { op: o, .. }
                        if matches!(o, BinOp::And | BinOp::Or) && o != op =>
                    {
                        format!("({s})")
                    }
                    _ => s,
                };
                Ok(format!("{} {} {}", wrap(l, lhs), op.symbol(), wrap(r, rhs)))
            }
            SrcExprKind::Unary {
                op: UnOp::Not,
                operand,
            } => Ok(format!("!({})", self.cond_text(operand, env, vars)?)),
            _ => {
                let v = self.ev(e, env, None);
                match v {
                    Val::Unknown(r) => Err(r),
                    _ => Err("not a comparison".into()),
                }
            }
        }
    }
}

/// A call statement whose summary is applied: for the reasons of what it leaves unknown.
struct CallAt<'a> {
    callee: &'a str,
    line: u32,
    /// What everything the call may write is before its summary is applied.
    reason: &'a str,
}

/// A callee's exit value `v` of `name` in the caller: its [`arg_symbol`]s replaced by the
/// call's argument values. Unknown, naming `name` and the call, when it depends on what the
/// callee found at entry in a global or on an argument whose value is not known here.
fn bind_args(v: &Val, vals: &[Val], name: &str, call: &CallAt<'_>) -> Val {
    let CallAt { callee, line, .. } = call;
    let set = format!("`{name}`: assigned by call to `{callee}` at line {line}");
    // the argument values `vars` mention, or why one is not known
    let bindings = |vars: BTreeSet<String>| -> Result<BTreeMap<String, Expr>, Val> {
        let mut map = BTreeMap::new();
        for x in vars {
            let Some(j) = arg_index(&x) else { continue };
            match vals.get(j) {
                Some(Val::Known(a)) => {
                    map.insert(x, a.clone());
                }
                Some(Val::Unknown(r)) => {
                    return Err(Val::unknown(format!(
                        "{set} from its argument {}: {r}",
                        j + 1
                    )))
                }
                _ => {
                    return Err(Val::unknown(format!(
                        "{set} from its argument {}, not a number",
                        j + 1
                    )))
                }
            }
        }
        Ok(map)
    };
    match v {
        Val::Known(e) => match bindings(e.vars()) {
            Ok(map) if map.is_empty() => v.clone(),
            Ok(map) => Val::Known(e.subs_all(&map)),
            Err(u) => u,
        },
        Val::OrNull(o) => match bindings(o.vars()) {
            Ok(map) => Val::OrNull(Box::new(o.map(&|e| e.subs_all(&map)))),
            Err(u) => u,
        },
        Val::Unknown(r) if r.contains(ENTRY) => Val::unknown(format!(
            "{set}, not followed (it depends on a value the callee found at entry)"
        )),
        // already naming the call deeper down that set it
        Val::Unknown(r) if r.contains(": assigned by call to ") => v.clone(),
        Val::Unknown(r) => Val::unknown(format!("{set}: {r}")),
        Val::Special(_) => v.clone(),
    }
}

/// The variable (or access path) whose storage a written MPI buffer argument starts in:
/// `g` for `g`, `ibuf` for `ibuf(1)` / `&ibuf[0]` / `ibuf + k`.
fn written_root(e: &SrcExpr) -> Option<&str> {
    match &e.kind {
        SrcExprKind::Var(v) => Some(v),
        SrcExprKind::Index { array, .. } => Some(array),
        SrcExprKind::Binary {
            op: BinOp::Add | BinOp::Sub,
            lhs,
            ..
        } => written_root(lhs),
        SrcExprKind::Unary { operand, .. } => written_root(operand),
        SrcExprKind::Cast { expr, .. } => written_root(expr),
        _ => None,
    }
}

/// The variable a handle argument names: `comm` or C `&comm`.
fn handle_var(e: &SrcExpr) -> Option<&str> {
    match &e.kind {
        SrcExprKind::Var(v) => Some(v),
        SrcExprKind::Unary {
            op: UnOp::AddrOf,
            operand,
        } => match &operand.kind {
            SrcExprKind::Var(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// One side of a comparison as text.
fn side(v: Val, vars: &mut BTreeSet<String>) -> Result<String, String> {
    match v {
        Val::Known(e) => {
            vars.extend(e.vars());
            Ok(e.to_string())
        }
        Val::Special(Special::ProcNull) => Ok("MPI_PROC_NULL".into()),
        Val::Special(Special::Wildcard) => Ok("MPI_ANY".into()),
        Val::Special(Special::CommWorld) => Ok("MPI_COMM_WORLD".into()),
        Val::Unknown(r) => Err(r),
        Val::OrNull(o) => Err(format!("compared with a peer: {}", o.text())),
    }
}
