//! The Augmented Parse Tree (seed 004 §2.1): only the constructs that matter for time —
//! ROUTINE, LOOP, IF, CALL and COMM nodes — each with symbolic attributes derived from the
//! source by constant propagation ([`interp`]), or marked unresolved with the reason so the
//! traced runs can measure it later.
//!
//! Entry points: [`build`] on a lowered program, or [`load`] from a path. Output: [`Apt`],
//! rendered by [`render::to_json`] and [`render::to_text`]. Site ids and the
//! site → statement/span table are described in [`tree`].
//!
//! Which statements become nodes:
//! - every counted loop and every while loop is a LOOP (while loops have trip "while loop",
//!   unresolved, unless their condition counts iterations: [`cap`]; a loop that may end
//!   early carries the bound the source proves as its `cap`); so is a Fortran array-syntax statement (an assignment to a section or whole
//!   array, or a reduction such as `maxval(abs(a(1:n)))`: [`frontend::array_op`]), an
//!   implicit loop whose trip is the number of elements it visits ([`array`]); the outermost loops whose subtree holds no communication (directly or
//!   through calls) are computation phases (`compute: true`, with their `work` and the
//!   names they may `writes`: [`writes`]);
//! - an IF is kept only when one of its branches holds a node; else-if arms become nested
//!   IF nodes in the else branch;
//! - calls to procedures defined in the program are CALL nodes (call statements and
//!   function calls inside expressions);
//! - MPI communication (point-to-point, collectives, waits/tests/probes) are COMM nodes
//!   (those that send data name their send `buffer`; [`may_rewrite`] compares the two);
//!   `MPI_Comm_size/rank`, `Init`, `Finalize`, `Wtime`, datatype and communicator
//!   management are not.
pub mod aborts;
pub mod aliases;
pub mod array;
pub mod cap;
pub mod cart;
pub mod comm;
pub mod dims;
pub mod divisions;
pub mod externals;
pub mod geometric;
pub mod halving;
pub mod interp;
pub mod library;
pub mod limits;
pub mod params;
pub mod pointers;
pub mod procs;
pub mod render;
pub mod rules;
pub mod strided;
pub mod tree;
pub mod value;
pub mod writes;

use std::path::{Path, PathBuf};

use frontend::{Language, Lowered, ProcId, Program, Sources, Span, StmtId};
use serde::Serialize;
use symbolic::Expr;

pub use comm::{CommFacts, SendBuffer};
pub use params::{ParamOrigin, ProgParam};

/// A symbolic attribute: an expression over program parameters, an MPI wildcard or null
/// process, or unresolved with the reason naming the culprit.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Expr(Expr),
    /// `MPI_ANY_SOURCE` / `MPI_ANY_TAG`.
    Any,
    /// `MPI_PROC_NULL`.
    Null,
    Unresolved(String),
}

impl Attr {
    pub fn expr(&self) -> Option<&Expr> {
        match self {
            Attr::Expr(e) => Some(e),
            _ => None,
        }
    }
    pub fn unresolved(&self) -> Option<&str> {
        match self {
            Attr::Unresolved(r) => Some(r),
            _ => None,
        }
    }
    /// The attribute's text: expression in augur's syntax, `any`, `null`, or `unresolved (…)`.
    pub fn text(&self) -> String {
        match self {
            Attr::Expr(e) => e.to_string(),
            Attr::Any => "any".into(),
            Attr::Null => "null".into(),
            Attr::Unresolved(r) => format!("unresolved ({r})"),
        }
    }
}

/// Stable id of an APT node (see [`tree`] for the numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct SiteId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Routine,
    Loop,
    If,
    Call,
    Comm,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Routine => "routine",
            NodeKind::Loop => "loop",
            NodeKind::If => "if",
            NodeKind::Call => "call",
            NodeKind::Comm => "comm",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LoopNode {
    /// Loop variable (`None` for array syntax and while loops, but for a geometric one:
    /// its counter).
    pub var: Option<String>,
    /// Fortran array syntax (an implicit loop over the elements a statement visits): the
    /// sections or arrays visited, as written (`unew(1:nx, j)`).
    pub array: Option<String>,
    /// A call of a computing library routine (an implicit loop whose iterations are the
    /// routine's work, [`frontend::library`]): the routines called, as written (`qsort`).
    pub library: Option<String>,
    /// Iterations per entry.
    pub trip: Attr,
    /// The loop variable's first value, where the source gives it as a whole number (`for (w
    /// = 1; …)`): where a condition on the index selects iterations, its share counts from
    /// there.
    pub start: Option<i64>,
    /// A loop that may end early (a while loop whose condition also counts iterations, `it <
    /// maxit && …`; a counted loop left by `break`/`return`): the upper bound on `trip` the
    /// source proves, with `trip` unresolved ("exits early (…)"). `None` otherwise.
    pub cap: Option<Attr>,
    /// When `trip` mentions enclosing loop variables: its sum over them (in parameters only).
    pub trip_total: Option<Attr>,
    /// When `trip` mentions enclosing loop variables: its mean per entry of the loop over
    /// them (`trip_total` over the loop's entries there).
    pub trip_mean: Option<Attr>,
    /// Outermost loop without communication below it: a computation phase.
    pub compute: bool,
    /// Computation phases only: iterations of the nest's innermost bodies per entry.
    pub work: Option<Attr>,
    /// Computation phases only: the names of everything the nest may write (loop counters,
    /// assignment targets, variables written by called procedures mapped to the actual
    /// arguments, globals they write), as [`writes`] names storage: access path with
    /// subscripts dropped (`t%u` for `t%u(i) = …`, `g->f` for `g->f[i] = …`), plus what a C
    /// pointer written through may point to. `None` on other loops, and on phases that write
    /// through something apt cannot name (the reason is `writes_unknown`).
    pub writes: Option<std::collections::BTreeSet<String>>,
    /// Computation phases whose writes are unknown: why (`external routine `f` receives `a``).
    pub writes_unknown: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IfNode {
    /// `lhs op rhs` with symbolic sides, or the source text when not resolvable.
    pub cond: String,
    /// Why `cond` is source text rather than symbolic.
    pub unresolved: Option<String>,
    /// Symbols the symbolic condition mentions.
    pub vars: std::collections::BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeData {
    Routine { name: String, proc: ProcId },
    Loop(LoopNode),
    If(IfNode),
    Call { callee: String, proc: ProcId },
    Comm(CommFacts),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub site: SiteId,
    /// The IR statement (`None` for routines).
    pub stmt: Option<StmtId>,
    /// IF nodes: which arm of the IR `if` this node tests (0 = the `if`, 1.. = else-ifs).
    pub arm: Option<u32>,
    /// First line of the statement (of the arm's condition for else-if arms).
    pub line: u32,
    /// The file of `line` when it is not the main file (code from an `#include`d or
    /// `include`d file), as the front end read it.
    pub file: Option<String>,
    pub data: NodeData,
    pub children: Vec<Node>,
    /// IF nodes: the else branch (holding the next else-if arm as a nested IF).
    pub else_children: Vec<Node>,
}

impl Node {
    pub fn kind(&self) -> NodeKind {
        self.data.kind()
    }
    /// Symbols mentioned by this node's own attributes.
    pub fn symbols(&self) -> std::collections::BTreeSet<String> {
        let attrs: Vec<&Attr> = match &self.data {
            NodeData::Loop(l) => [
                Some(&l.trip),
                l.cap.as_ref(),
                l.trip_total.as_ref(),
                l.work.as_ref(),
            ]
            .into_iter()
            .flatten()
            .collect(),
            NodeData::Comm(c) => [
                &c.peer,
                &c.tag,
                &c.bytes,
                &c.source,
                &c.recv_tag,
                &c.recv_bytes,
                &c.count,
            ]
            .into_iter()
            .flatten()
            .collect(),
            NodeData::If(i) => return i.vars.clone(),
            _ => Vec::new(),
        };
        attrs
            .into_iter()
            .filter_map(Attr::expr)
            .flat_map(|e| e.vars())
            .collect()
    }
    /// This node and all below it, pre-order (children, then else-children).
    pub fn preorder(&self) -> Vec<&Node> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(n.else_children.iter().rev());
            stack.extend(n.children.iter().rev());
        }
        out
    }
}

/// Where a site is in the program: what codegen needs to insert markers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Site {
    pub id: SiteId,
    pub kind: NodeKind,
    pub proc: ProcId,
    pub stmt: Option<StmtId>,
    pub arm: Option<u32>,
    /// The whole statement (or procedure) in the original file.
    pub span: Span,
    pub line: u32,
}

/// The APT of one program.
#[derive(Debug, Clone)]
pub struct Apt {
    pub file: PathBuf,
    pub language: Language,
    /// Parameters the attributes are written in (constants only when some attribute uses them).
    pub params: Vec<ProgParam>,
    /// One ROUTINE node per procedure, in source order.
    pub routines: Vec<Node>,
    /// Site table, index = site id.
    pub sites: Vec<Site>,
    /// What the report must say about values taken from the source, by line: the MPI whose
    /// factoring `MPI_Dims_create`'s (exact) extents follow, where Cart_shift neighbours are
    /// `MPI_PROC_NULL`, calls through pointers whose work is not in the model.
    pub notes: Vec<(u32, String)>,
    /// The process grids `MPI_Dims_create` made of the P ranks, as (dimensions, rule): the
    /// grid's faces are hypotheses for sizes and counts the source leaves unresolved, even
    /// where no attribute holds its extents (sizes kept in arrays: trial 13).
    pub grids: Vec<(u32, symbolic::DimsRule)>,
    /// Every CALL node: what the call may write, in the caller's names (the actual arguments
    /// bound to the formals the callee writes, transitively, and the globals, COMMON blocks,
    /// module and host variables it writes), named as [`LoopNode::writes`]; `Err` with the
    /// reason when some write cannot be named. See [`call_may_rewrite`].
    pub call_writes:
        std::collections::BTreeMap<SiteId, Result<std::collections::BTreeSet<String>, String>>,
    /// The program's `MPI_Abort`s under IFs with resolved conditions ([`aborts::aborts`]).
    pub aborts: Vec<aborts::AbortGuard>,
    /// The program's truncating divisions in its parameters ([`divisions::divisions`]).
    pub divisions: Vec<divisions::IntegerDivision>,
}

/// Where a statement is, as reports name it: `file:line` in a file other than the main one,
/// `line N` in the main one.
pub fn source_at(line: u32, file: Option<&str>) -> String {
    match file {
        Some(f) => format!("{f}:{line}"),
        None => format!("line {line}"),
    }
}

impl Apt {
    pub fn site(&self, id: SiteId) -> Option<&Site> {
        self.sites.get(id.0 as usize)
    }
    /// Sites of one IR statement (several for an if/else-if chain or calls in one statement).
    pub fn sites_of_stmt(&self, stmt: StmtId) -> Vec<&Site> {
        self.sites.iter().filter(|s| s.stmt == Some(stmt)).collect()
    }
    /// Every node, pre-order over the routines.
    pub fn nodes(&self) -> Vec<&Node> {
        self.routines.iter().flat_map(|r| r.preorder()).collect()
    }
}

/// Options of the APT construction.
#[derive(Debug, Clone, Default)]
pub struct AptOptions {
    /// Names of the command-line arguments in order (`["N", "K"]` names `argv[1]` `N`);
    /// unnamed arguments take the upper-cased name of the variable they are read into.
    pub arg_names: Vec<String>,
    /// Names of the values read from standard input, in the order read: the k-th value read is
    /// named after the `--stdin` template's k-th token where that is a `{NAME}` placeholder
    /// (`{N} 40` names the first `N`, whatever variable or buffer element it is read into).
    /// A number in the template (`{N} 20`) is that value in every run, not a parameter.
    pub stdin_names: Vec<params::StdinItem>,
    /// Whose `MPI_Dims_create` the grids follow: that of the library the program's runs use
    /// (`augur analyze` takes it from the runs), since some rank counts split differently
    /// (SimGrid SMPI makes 9 ranks 9 × 1, Open MPI 3 × 3).
    pub dims_rule: symbolic::DimsRule,
}

#[derive(Debug, thiserror::Error)]
pub enum AptError {
    #[error(transparent)]
    Load(#[from] frontend::LoadError),
}

/// Builds the APT of a lowered program. Never fails: what cannot be resolved is marked so.
pub fn build(lowered: &Lowered, opts: &AptOptions) -> Apt {
    build_program(&lowered.program, &lowered.sources, opts)
}

/// [`build`] from the program and its sources.
pub fn build_program(prog: &Program, sources: &Sources, opts: &AptOptions) -> Apt {
    let mut an = interp::Analysis::new(prog, sources, opts);
    an.run();
    let b = tree::Builder {
        prog,
        sources,
        facts: &an.facts,
        names: &an.procs.names,
        nested_exits: frontend::nested_exits_fit(prog),
    };
    let mut routines: Vec<Node> = prog.procs.iter().filter_map(|p| b.routine(p.id)).collect();
    let comm_procs = tree::communicating(&routines, prog.procs.len());
    // a Fortran PURE or ELEMENTAL procedure is not instrumented (a marker is not pure): its
    // loops run in its caller's time, so a loop calling it may be a computation phase
    let loop_procs: std::collections::BTreeSet<ProcId> = tree::looping(&routines, prog.procs.len())
        .into_iter()
        .filter(|p| !prog.procs.get(p.0 as usize).is_some_and(|x| x.pure))
        .collect();
    for r in &mut routines {
        tree::mark_compute(r, &comm_procs, &loop_procs, &an.facts);
    }
    let w = writes::Writes::new(prog, sources, &an.procs);
    for r in &mut routines {
        set_writes(r, prog, &w);
    }
    let sites = tree::number(&mut routines, prog);
    let call_writes = routines
        .iter()
        .flat_map(|r| r.preorder())
        .filter_map(|n| match (&n.data, n.stmt) {
            (NodeData::Call { proc, .. }, Some(stmt)) => Some((n.site, w.call_site(stmt, *proc))),
            _ => None,
        })
        .collect();
    tree::set_files(&mut routines, &sites, prog, sources);
    let aborts = aborts::aborts(prog, sources, &an.facts);
    let divisions = divisions::divisions(&an.divisions, prog, sources, &an.params);
    let mut used = std::collections::BTreeSet::new();
    for n in routines.iter().flat_map(|r| r.preorder()) {
        used.extend(n.symbols());
    }
    let notes = an.notes.clone().into_iter().collect();
    let grids = an.grids.iter().copied().collect();
    let mut params = an.params;
    // the named constants an abort's conditions mention, with their values (they are no
    // parameter of any attribute)
    let mut aborts = aborts;
    for a in &mut aborts {
        for p in params.list() {
            if let ParamOrigin::Constant { default } = p.origin {
                if a.vars.contains(&p.name) {
                    a.consts.insert(p.name.clone(), default);
                }
            }
        }
    }
    params.retain(|p| !matches!(p.origin, ParamOrigin::Constant { .. }) || used.contains(&p.name));
    let file = sources
        .path(prog.main_file)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut params = params.list().to_vec();
    // presentation order: command line, stdin/env, P, rank, then constants by declaration
    params.sort_by_key(|p| {
        let (class, index) = match &p.origin {
            ParamOrigin::Argv { index } => (0, index.unwrap_or(u32::MAX)),
            ParamOrigin::Option { .. } | ParamOrigin::Stdin | ParamOrigin::Env { .. } => {
                (1, p.line)
            }
            ParamOrigin::CommSize => (2, 0),
            ParamOrigin::CommRank => (3, 0),
            ParamOrigin::Constant { .. } => (4, p.line),
        };
        (class, p.file.clone(), index, p.name.clone())
    });
    Apt {
        file,
        language: prog.language,
        params,
        routines,
        sites,
        notes,
        grids,
        call_writes,
        aborts,
        divisions,
    }
}

/// Fills [`LoopNode::writes`] of computation phases and [`CommFacts::buffer`] below `n`.
fn set_writes(n: &mut Node, prog: &Program, w: &writes::Writes<'_>) {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        let stmt = n.stmt.and_then(|s| prog.stmt(s));
        match (&mut n.data, stmt) {
            (NodeData::Loop(l), Some(s)) if l.compute => match w.nest(s.id) {
                Ok(names) => l.writes = Some(names),
                Err(r) => l.writes_unknown = Some(r),
            },
            (NodeData::Comm(c), Some(s)) => {
                if let frontend::StmtKind::Mpi(m) = &s.kind {
                    c.buffer = w.send_buffer(s.proc, m).map(|b| match b {
                        Ok(names) => SendBuffer::Named(names),
                        Err(r) => SendBuffer::Unknown(r),
                    });
                    c.buffer_from_start = c.buffer.is_some() && w.send_from_start(s.proc, m);
                }
            }
            _ => {}
        }
        stack.extend(n.children.iter_mut().chain(n.else_children.iter_mut()));
    }
}

/// Whether computation phase `phase` may rewrite data the COMM node `comm` sends: `false`
/// when `comm` sends no data ([`CommFacts::buffer`] is `None`); `true` when either side is
/// unknown (the phase's `writes` is `None`, or the buffer is [`SendBuffer::Unknown`]);
/// otherwise whether some written name and some buffer name overlap: equal, or one an access
/// path under the other at a component boundary ([`frontend::path_under`]: `t` holds `t%u`
/// and `g` holds `g.u`, but `t%v` is beside `t%u`). Both sides name storage the same way
/// (access path, plus what a C pointer may point to); names are compared as written, so the
/// two should be in the same procedure (or the names global). A phase reached through a call
/// is compared in the caller's names by [`call_may_rewrite`].
pub fn may_rewrite(phase: &LoopNode, comm: &CommFacts) -> bool {
    rewrites(phase.writes.as_ref(), comm)
}

/// [`may_rewrite`] for the CALL node at site `call`: whether anything the call may write
/// ([`Apt::call_writes`], in the caller's names) may rewrite what `comm` sends. For a
/// computation phase inside the callee (or deeper), reached through that call: `update(a,
/// b, n)` writing its dummy `x` rewrites a send of `a`. `comm` should be in the caller's
/// procedure. `true` when the call's writes are unknown or `call` is not a CALL node,
/// `false` when `comm` sends no data.
pub fn call_may_rewrite(apt: &Apt, call: SiteId, comm: &CommFacts) -> bool {
    rewrites(
        apt.call_writes.get(&call).and_then(|w| w.as_ref().ok()),
        comm,
    )
}

/// The rule of [`may_rewrite`] on a write set (`None`: unknown).
fn rewrites(writes: Option<&std::collections::BTreeSet<String>>, comm: &CommFacts) -> bool {
    match (&comm.buffer, writes) {
        (None, _) => false,
        (Some(SendBuffer::Unknown(_)), _) | (_, None) => true,
        (Some(SendBuffer::Named(b)), Some(w)) => b.iter().any(|x| {
            w.iter()
                .any(|y| x == y || frontend::path_under(x, y) || frontend::path_under(y, x))
        }),
    }
}

/// Loads `path` with the front end and builds its APT.
pub fn load(
    path: &Path,
    fopts: &frontend::Options,
    opts: &AptOptions,
) -> Result<(Lowered, Apt), AptError> {
    let lowered = frontend::load(path, fopts)?;
    let apt = build(&lowered, opts);
    Ok((lowered, apt))
}
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_alloc;
#[cfg(test)]
mod tests_call_kills;
#[cfg(test)]
mod tests_calls;
#[cfg(test)]
mod tests_casts;
#[cfg(test)]
mod tests_comm_args;
#[cfg(test)]
mod tests_concurrent;
#[cfg(test)]
mod tests_counters;
#[cfg(test)]
mod tests_datatypes;
#[cfg(test)]
mod tests_dims;
#[cfg(test)]
mod tests_divisions;
#[cfg(test)]
mod tests_early_return;
#[cfg(test)]
mod tests_from_start;
#[cfg(test)]
mod tests_geometric;
#[cfg(test)]
mod tests_gotos;
#[cfg(test)]
mod tests_halving;
#[cfg(test)]
mod tests_handles;
#[cfg(test)]
mod tests_host;
#[cfg(test)]
mod tests_idioms;
#[cfg(test)]
mod tests_json;
#[cfg(test)]
mod tests_library;
#[cfg(test)]
mod tests_minmax;
#[cfg(test)]
mod tests_namelist;
#[cfg(test)]
mod tests_paths;
#[cfg(test)]
mod tests_peers;
#[cfg(test)]
mod tests_recursion;
#[cfg(test)]
mod tests_red_black;
#[cfg(test)]
mod tests_requests;
#[cfg(test)]
mod tests_select;
#[cfg(test)]
mod tests_setup_globals;
#[cfg(test)]
mod tests_shapes;
#[cfg(test)]
mod tests_shifts;
#[cfg(test)]
mod tests_struct_members;
#[cfg(test)]
mod tests_tiles;
#[cfg(test)]
mod tests_type_bound;
#[cfg(test)]
mod tests_uneven;
#[cfg(test)]
mod tests_writes;
#[cfg(test)]
mod tests_writes_particles;
