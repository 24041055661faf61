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
//!   constant (`reqs[nreq++]`, `k -= 2`), which takes the step; after a counted loop nest
//!   that only steps a known scalar by constants, on every iteration, the scalar is its value
//!   before plus the steps summed over the nest (`nr` after `req[nr++]` in two loops);
//! - access paths (`g.nx`, `p->nx`, `ibuf[1]`: [`frontend::path_root`]) are variables of
//!   their own; a write to a path's root or to a path above it (`g = h`, `read *, ibuf`,
//!   `f(&g)` to a procedure that writes it, `a[i] = …`) makes it unknown, and so does a write
//!   to the same member through a pointer (`p->nx` may be `g.nx`). A formal's paths take
//!   the caller's (`f(&g)` binds `q->nx` to `g.nx`), and the caller gets back what the callee
//!   stores in them, in terms of its arguments ([`Summary::fields`]); an element stored from
//!   input on one path (`ibuf(1) = n` on rank 0) is what a broadcast of the array gives.
//!
//! Where each part lives: `stmts` (statement kinds, branches), `loops` (trip counts),
//! `counters` (counters a loop nest steps), `calls`, `summary` and `entry` (procedures: call
//! sites, what a call leaves, entry values and recursion), `mpi`, `grids` and `requests` (MPI
//! calls), `conds` (branch conditions), `scope` (what expression evaluation sees).
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use frontend::{
    path_member, path_root, path_under, DeclKind, ProcId, Program, Sources, Span, SrcExpr, StmtId,
};
use symbolic::Expr;

use crate::comm::CommFacts;
use crate::params::Params;
use crate::procs::{ProcFacts, SiteMap};
use crate::value::{eval, Val};
use crate::Attr;

mod calls;
mod conds;
mod counters;
mod entry;
mod grids;
mod loops;
mod mpi;
mod requests;
mod scope;
mod stmts;
mod summary;

use scope::Cx;
pub use summary::Summary;

pub type Env = BTreeMap<String, Val>;

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

/// Facts about one counted or while loop.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopFacts {
    pub trip: Attr,
    /// An upper bound on `trip` the source proves when the loop may end early ([`crate::cap`]).
    pub cap: Option<Attr>,
    /// Σ of the trip over the enclosing loops whose variables it mentions (and the loops
    /// between, whose trips depend on them).
    pub total: Option<Attr>,
    /// The trip's mean per entry over those loops: `total` over the entries.
    pub mean: Option<Attr>,
    pub var: Option<String>,
    /// The symbol standing for the loop variable inside the body.
    pub sym: Option<String>,
    pub lo: Val,
    pub hi: Val,
    pub step: Val,
    /// A `DO CONCURRENT`'s indices after the first (`var`/`sym`/`lo`/`hi`/`step`), in header
    /// order: its trip is the product of every index's.
    pub more: Vec<IndexFacts>,
    /// A geometric while loop's counter values (`sym` stands for the counter in its body).
    pub geo: Option<crate::geometric::Values>,
}

/// One more index of a `DO CONCURRENT` ([`LoopFacts::more`]).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexFacts {
    pub sym: String,
    pub lo: Val,
    pub hi: Val,
    pub step: Val,
}

/// One branch condition: symbolic text, or the source text and why it is not symbolic.
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    pub text: String,
    /// The condition with the program's truncating integer divisions as it takes them
    /// (`floor(N/Q)*Q != N` where `text` reads `N != N`), where that differs from `text`.
    pub exact: Option<String>,
    pub unresolved: Option<String>,
    /// Symbols of the symbolic sides.
    pub vars: BTreeSet<String>,
    /// An unresolved disjunction's resolved disjuncts (`mod(N, P) != 0` of `(P & (P - 1)) !=
    /// 0 || n % P != 0`), in the program's integer divisions: where one holds, so does the
    /// condition. `None` otherwise.
    pub sufficient: Option<String>,
}

#[derive(Debug, Clone)]
struct ActiveLoop {
    sym: String,
    lo: Val,
    hi: Val,
    step: Val,
    /// The values of a geometric loop's counter (`lo`/`hi`/`step` unknown then).
    geo: Option<crate::geometric::Values>,
    /// Its trip, where known: a loop between a nested loop and an outer one its trip
    /// mentions multiplies the nested loop's entries by it.
    trip: Option<Expr>,
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
    /// Integer divisions evaluate to `floor(num/den)` ([`crate::value::Scope::floors_divisions`]).
    floor_divisions: bool,
    /// Variables last assigned a truncating quotient (`nloc = n / nprocs`): path → (the value
    /// the analysis holds, `N/P`, and the program's, `floor(N/P)`). A condition's exact form
    /// reads the latter where the variable still holds the former (adi's `nloc * nprocs /=
    /// n` read `N != N`, trial 29).
    floored: BTreeMap<String, (Expr, Expr)>,
    /// IFs in a counted loop's body guarded by a counter they step (`if (sent < ntask) { …;
    /// sent++; }`): the counter and its value in the loop's index while the guard holds
    /// (`w - 1 + sent0` for `for (w = 1; …)`), [`Analysis::guard_counters`].
    guards: BTreeMap<StmtId, (String, Expr)>,
    /// Conditions of `p = c1 ? f1 : …` assignments, where they stood (for calls through `p`).
    pointer_conds: BTreeMap<StmtId, Vec<Cond>>,
    /// Persistent requests by (procedure, path): the message their init describes (as an
    /// Isend/Irecv), `None` when two inits disagree.
    requests: BTreeMap<(ProcId, String), Option<CommFacts>>,
    /// Per procedure: C pointers last assigned an address (`L0 = &lev[0]` → (`lev[0]`,
    /// `lev`, line)), to say why a path through them is not known (their targets' paths are
    /// not copied: a write through either name would leave the other stale).
    points_to: BTreeMap<String, (String, String, u32)>,
    /// Whose `MPI_Dims_create` grids follow ([`crate::AptOptions::dims_rule`]).
    dims_rule: symbolic::DimsRule,
    /// The process grids `MPI_Dims_create` made of the P ranks: (dimensions, rule).
    pub grids: std::collections::BTreeSet<(u32, symbolic::DimsRule)>,
    /// Truncating divisions of known values ([`crate::divisions`]).
    pub divisions: crate::divisions::Seen,
}

impl<'p> Analysis<'p> {
    pub fn new(prog: &'p Program, sources: &'p Sources, opts: &crate::AptOptions) -> Self {
        Analysis {
            prog,
            sources,
            procs: ProcFacts::compute(prog),
            params: Params::new(opts.arg_names.clone()).with_stdin_names(opts.stdin_names.clone()),
            dims_rule: opts.dims_rule,
            facts: Facts::default(),
            sites: SiteMap::new(),
            cur: ProcId(0),
            stack: Vec::new(),
            read_into: BTreeMap::new(),
            notes: BTreeMap::new(),
            summaries: BTreeMap::new(),
            summarizing: false,
            floor_divisions: false,
            floored: BTreeMap::new(),
            guards: BTreeMap::new(),
            pointer_conds: BTreeMap::new(),
            requests: BTreeMap::new(),
            points_to: BTreeMap::new(),
            grids: std::collections::BTreeSet::new(),
            divisions: BTreeMap::new(),
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
            if self.distinct_structs(name, &p) {
                continue;
            }
            env.insert(p, Val::unknown(reason));
        }
        for p in stale_paths(&self.read_into, name) {
            self.read_into.remove(&p);
        }
    }

    /// Whether a write to one of `defined` may change `v`: itself, a path above it, or the
    /// same member through a pointer, unless the two pointers are to different struct types
    /// ([`Self::distinct_structs`], the rule [`Self::kill_paths`] follows too).
    fn touched(&self, defined: &BTreeSet<String>, v: &str) -> bool {
        if defined.contains(v) {
            return true;
        }
        let member = path_member(v);
        defined.iter().any(|d| {
            path_under(v, d)
                || member.is_some_and(|(m, arrow)| {
                    path_member(d).is_some_and(|(m2, arrow2)| m2 == m && (arrow || arrow2))
                        && !self.distinct_structs(d, v)
                })
        })
    }

    /// Whether C paths `a` and `b`, each a member through a pointer variable (`g->q`,
    /// `pg->q`), go through pointers to different struct types, which cannot point to the same
    /// storage (trial 22 E6: `g->q = pg->q` made `pg->q` unknown, and with it `n / pg->q`).
    fn distinct_structs(&self, a: &str, b: &str) -> bool {
        let of = |p: &str| -> Option<String> {
            let root = path_root(p);
            let (m, arrow) = frontend::path_member(p)?;
            // the member right after the pointer, nothing deeper
            if !arrow || p != format!("{root}->{m}") {
                return None;
            }
            let d = self.prog.decl(self.cur, root)?;
            (d.ty.pointer == 1)
                .then(|| self.prog.c_struct(&d.ty))
                .flatten()
        };
        matches!((of(a), of(b)), (Some(x), Some(y)) if x != y)
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
}
