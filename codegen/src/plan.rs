//! The instrumentation plan: which IR statement gets which marker, under which site id.
//!
//! A plan is data, built from the APT's site table (`Plan::from_apt`) or, for tests and for
//! programs analysed without an APT, by [`Plan::from_program`] with the same node rules.
//! Branch convention (what `augur_branch(site, arm)` records): for the IF node testing arm
//! `k` of an IR `if`, arm `0` = its condition was true (the arm's body ran), arm `1` = it was
//! false (control went on to the next `else if`, the `else`, or past the `if`).
use std::collections::{BTreeMap, BTreeSet};

use frontend::{DeclKind, MpiOp, ProcId, Program, SrcExpr, SrcExprKind, Stmt, StmtId, StmtKind};
use serde::Serialize;

/// What the marker at one site records.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Role {
    /// A counted or while loop: iterations per entry. `compute_phase`: the outermost loop of a
    /// computation phase, also timed (wall, thread CPU, MPI_Wtime) per entry. On a Fortran
    /// array-syntax assignment or a computing library call ([`frontend::array_op`]): an
    /// implicit loop whose iterations are the elements the statement visits, or the routine's
    /// work.
    Loop {
        compute_phase: bool,
    },
    /// The IF node for arm `arm` of an IR `if` (0 = the `if`, 1.. = its `else if`s).
    Branch {
        arm: u32,
    },
    /// A call of the user procedure `callee` (a call statement or a call inside an expression).
    Call {
        callee: String,
    },
    /// An MPI communication call, recorded by the runtime's wrapper.
    Comm,
    MpiInit,
    MpiFinalize,
    /// `MPI_Abort` (the runtime flushes the trace before aborting).
    MpiAbort,
    /// `MPI_Comm_size` / `MPI_Comm_rank` (wrapped, not recorded).
    CommSizeRank,
    /// `MPI_Send_init` (and Ssend/Bsend/Rsend), `MPI_Recv_init`, `MPI_Request_free`: not APT
    /// nodes (they move no data), but wrapped so the runtime knows the persistent requests
    /// whose starts it records as messages.
    Request,
}

/// One marker: site id, IR statement, role.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Mark {
    pub stmt: StmtId,
    pub site: u32,
    pub role: Role,
}

/// Every marker of one program, sorted by statement then site.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Plan {
    marks: Vec<Mark>,
}

impl Plan {
    pub fn new(mut marks: Vec<Mark>) -> Plan {
        marks.sort();
        marks.dedup();
        Plan { marks }
    }

    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// The marks of one statement, by site id.
    pub fn of_stmt(&self, stmt: StmtId) -> &[Mark] {
        let lo = self.marks.partition_point(|m| m.stmt < stmt);
        let hi = self.marks.partition_point(|m| m.stmt <= stmt);
        self.marks.get(lo..hi).unwrap_or(&[])
    }

    /// The loop mark of a statement, if any.
    pub fn loop_of(&self, stmt: StmtId) -> Option<(u32, bool)> {
        self.of_stmt(stmt).iter().find_map(|m| match m.role {
            Role::Loop { compute_phase } => Some((m.site, compute_phase)),
            _ => None,
        })
    }

    /// Branch sites of an `if` statement by arm index.
    pub fn branches_of(&self, stmt: StmtId) -> BTreeMap<u32, u32> {
        self.of_stmt(stmt)
            .iter()
            .filter_map(|m| match m.role {
                Role::Branch { arm } => Some((arm, m.site)),
                _ => None,
            })
            .collect()
    }

    /// The highest site id in use, if any.
    pub fn max_site(&self) -> Option<u32> {
        self.marks.iter().map(|m| m.site).max()
    }

    /// The plan of an APT: every LOOP, IF arm, CALL and COMM node of `apt` with its site id,
    /// plus MPI init/finalize/abort/size/rank markers numbered after the APT's sites (they are
    /// not APT nodes). `prog` must be the program the APT was built from.
    pub fn from_apt(apt: &apt::Apt, prog: &Program) -> Plan {
        let mut marks = Vec::new();
        for n in apt.nodes() {
            let Some(stmt) = n.stmt else { continue };
            let role = match &n.data {
                apt::NodeData::Routine { .. } => continue,
                apt::NodeData::Loop(l) => Role::Loop {
                    compute_phase: l.compute,
                },
                apt::NodeData::If(_) => Role::Branch {
                    arm: n.arm.unwrap_or(0),
                },
                apt::NodeData::Call { callee, .. } => Role::Call {
                    callee: callee.clone(),
                },
                apt::NodeData::Comm(_) => Role::Comm,
            };
            marks.push(Mark {
                stmt,
                site: n.site.0,
                role,
            });
        }
        let mut next = u32::try_from(apt.sites.len()).unwrap_or(u32::MAX);
        add_mpi_setup_marks(prog, &mut marks, &mut next);
        Plan::new(outside_pure(prog, marks))
    }

    /// A plan with the APT's node rules and numbering, computed from the IR alone: site ids in
    /// pre-order from 0 with one id per procedure (the APT's ROUTINE node) before its body, then
    /// the MPI init/finalize/abort/size/rank markers numbered after them. Equal to
    /// [`Plan::from_apt`] on the same program (tested on every testdata program).
    pub fn from_program(prog: &Program) -> Plan {
        let comm_procs = communicating(prog);
        let loop_procs = looping(prog);
        let mut b = PlanBuilder {
            prog,
            comm_procs,
            loop_procs,
            marks: Vec::new(),
            next: 0,
            nested_exits: frontend::nested_exits_fit(prog),
        };
        for p in &prog.procs {
            // the APT's ROUTINE node takes the procedure's first id
            b.next += 1;
            b.block(&p.body, false);
        }
        let mut marks = b.marks;
        let mut next = b.next;
        add_mpi_setup_marks(prog, &mut marks, &mut next);
        Plan::new(outside_pure(prog, marks))
    }
}

/// The marks outside Fortran PURE and ELEMENTAL procedures: those may call pure procedures
/// only, and a marker is not one (trial 21: `pure function row_apply` with a loop did not
/// compile instrumented). Their sites keep their ids and are never recorded; their time is
/// their caller's.
fn outside_pure(prog: &Program, marks: Vec<Mark>) -> Vec<Mark> {
    let pure = |m: &Mark| {
        prog.stmts
            .get(m.stmt.0 as usize)
            .and_then(|s| prog.procs.get(s.proc.0 as usize))
            .is_some_and(|p| p.pure)
    };
    marks.into_iter().filter(|m| !pure(m)).collect()
}

/// Adds `MpiInit` / `MpiFinalize` / `MpiAbort` / `CommSizeRank` / `Request` marks with fresh ids
/// from `*next`.
pub(crate) fn add_mpi_setup_marks(prog: &Program, marks: &mut Vec<Mark>, next: &mut u32) {
    for s in &prog.stmts {
        let StmtKind::Mpi(m) = &s.kind else { continue };
        let role = match m.op {
            MpiOp::Init | MpiOp::InitThread => Role::MpiInit,
            MpiOp::Finalize => Role::MpiFinalize,
            MpiOp::Abort => Role::MpiAbort,
            MpiOp::CommSize | MpiOp::CommRank => Role::CommSizeRank,
            MpiOp::SendInit
            | MpiOp::SsendInit
            | MpiOp::BsendInit
            | MpiOp::RsendInit
            | MpiOp::RecvInit
            | MpiOp::RequestFree => Role::Request,
            _ => continue,
        };
        if marks.iter().any(|k| k.stmt == s.id) {
            continue;
        }
        marks.push(Mark {
            stmt: s.id,
            site: *next,
            role,
        });
        *next += 1;
    }
}

/// The user procedure `name` called from `proc`, unless `name` is an array there.
pub(crate) fn user_proc(prog: &Program, proc: ProcId, name: &str) -> Option<ProcId> {
    let callee = prog.proc_by_name(name)?;
    if let Some(d) = prog.decl(proc, name) {
        if matches!(d.kind, DeclKind::Array { .. }) {
            return None;
        }
    }
    Some(callee.id)
}

/// Calls of user procedures inside the statement's own expressions, pre-order: (callee
/// name, the call expression).
pub(crate) fn expr_calls<'a>(prog: &Program, s: &'a Stmt) -> Vec<(&'a str, &'a SrcExpr)> {
    let mut out = Vec::new();
    for top in s.exprs() {
        for e in top.walk() {
            let name = match &e.kind {
                SrcExprKind::Call { name, .. } => name,
                SrcExprKind::Index { array, .. } => array,
                _ => continue,
            };
            if user_proc(prog, s.proc, name).is_some() {
                out.push((name.as_str(), e));
            }
        }
    }
    out
}

/// A C call statement through a function pointer (see [`apt::pointers`]); `None` for any
/// other statement.
pub(crate) fn pointer_call(prog: &Program, s: &Stmt) -> Option<apt::pointers::PointerCall> {
    match &s.kind {
        StmtKind::Call(c) if user_proc(prog, s.proc, &c.name).is_none() => {
            apt::pointers::pointer_call(prog, &apt::procs::ProcNames::new(prog), s)
        }
        _ => None,
    }
}

/// The user procedures called by statement `s` itself: the call statement's callee (or the
/// targets of a call through a pointer) first, then calls inside its expressions.
pub(crate) fn callees(prog: &Program, s: &Stmt) -> Vec<ProcId> {
    let mut out = Vec::new();
    if let StmtKind::Call(c) = &s.kind {
        out.extend(user_proc(prog, s.proc, &c.name));
        out.extend(
            pointer_call(prog, s)
                .map(|pc| pc.targets)
                .unwrap_or_default(),
        );
    }
    out.extend(
        expr_calls(prog, s)
            .into_iter()
            .filter_map(|(n, _)| user_proc(prog, s.proc, n)),
    );
    out
}

/// Procedures that may communicate, directly or through calls (fixed point).
fn communicating(prog: &Program) -> BTreeSet<ProcId> {
    reaching(
        prog,
        &|s| matches!(&s.kind, StmtKind::Mpi(m) if m.op.is_comm()),
    )
}

/// Procedures that may run a loop (an implicit one of array syntax or a computing library call
/// included), directly or through calls: as apt's `tree::looping`.
fn looping(prog: &Program) -> BTreeSet<ProcId> {
    without_pure(
        prog,
        reaching(prog, &|s| {
            matches!(s.kind, StmtKind::Loop(_) | StmtKind::While(_))
                || frontend::array_op(prog, s).is_some()
        }),
    )
}

/// `procs` without Fortran PURE and ELEMENTAL procedures: they are not instrumented
/// ([`outside_pure`]), so a call of one runs in its caller's time, as a leaf's (a pure
/// procedure calls pure procedures only, so none of them reaches anything else).
fn without_pure(prog: &Program, procs: BTreeSet<ProcId>) -> BTreeSet<ProcId> {
    procs
        .into_iter()
        .filter(|p| !prog.procs.get(p.0 as usize).is_some_and(|x| x.pure))
        .collect()
}

/// Procedures that are not leaves: they may run a loop (an implicit one included), an MPI call
/// of any kind or a jump the front end does not follow, directly or through calls. A call of any other user procedure inside an
/// accumulating computation phase is counted in a local ([`crate::accum`]).
pub(crate) fn not_leaves(prog: &Program) -> BTreeSet<ProcId> {
    let reached = reaching(prog, &|s| {
        match &s.kind {
            StmtKind::Loop(_) | StmtKind::While(_) | StmtKind::Mpi(_) => true,
            // a jump the front end does not follow may loop: not a leaf when unsure
            StmtKind::Opaque(o) => matches!(
                o.reason.as_str(),
                "goto" | "arithmetic if" | "syntax error" | "incomplete"
            ),
            _ => frontend::array_op(prog, s).is_some(),
        }
    });
    without_pure(prog, reached)
}

/// Procedures with a statement `direct` holds of, or that call one of them (fixed point).
fn reaching(prog: &Program, direct: &dyn Fn(&Stmt) -> bool) -> BTreeSet<ProcId> {
    let mut set = BTreeSet::new();
    let mut calls: BTreeMap<ProcId, BTreeSet<ProcId>> = BTreeMap::new();
    for s in &prog.stmts {
        if direct(s) {
            set.insert(s.proc);
        }
        calls.entry(s.proc).or_default().extend(callees(prog, s));
    }
    loop {
        let before = set.len();
        for (p, cs) in &calls {
            if cs.iter().any(|c| set.contains(c)) {
                set.insert(*p);
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

struct PlanBuilder<'a> {
    prog: &'a Program,
    comm_procs: BTreeSet<ProcId>,
    /// [`looping`]: a loop calling one of these is not a computation phase (as apt's).
    loop_procs: BTreeSet<ProcId>,
    marks: Vec<Mark>,
    next: u32,
    /// [`frontend::nested_exits_fit`]: which rule says an IF leaves early (as the APT's).
    nested_exits: bool,
}

impl PlanBuilder<'_> {
    fn push(&mut self, stmt: StmtId, role: Role) {
        self.marks.push(Mark {
            stmt,
            site: self.next,
            role,
        });
        self.next += 1;
    }

    /// Whether the statements of `block` (and below) communicate.
    fn communicates(&self, block: &[StmtId]) -> bool {
        self.prog
            .walk(block)
            .into_iter()
            .filter_map(|id| self.prog.stmt(id))
            .any(|s| {
                matches!(&s.kind, StmtKind::Mpi(m) if m.op.is_comm())
                    || callees(self.prog, s)
                        .iter()
                        .any(|c| self.comm_procs.contains(c))
            })
    }

    /// Whether the statements of `block` (and below) call a routine that runs loops.
    fn calls_loops(&self, block: &[StmtId]) -> bool {
        self.prog
            .walk(block)
            .into_iter()
            .filter_map(|id| self.prog.stmt(id))
            .any(|s| {
                callees(self.prog, s)
                    .iter()
                    .any(|c| self.loop_procs.contains(c))
            })
    }

    /// Whether `block` holds anything that becomes a node.
    fn has_node(&self, block: &[StmtId]) -> bool {
        self.prog
            .walk(block)
            .into_iter()
            .filter_map(|id| self.prog.stmt(id))
            .any(|s| match &s.kind {
                StmtKind::Loop(_) | StmtKind::While(_) => true,
                StmtKind::Mpi(m) => m.op.is_comm(),
                _ => {
                    !callees(self.prog, s).is_empty() || frontend::array_op(self.prog, s).is_some()
                }
            })
    }

    fn calls(&mut self, s: &Stmt) {
        // a call through a pointer: arm k tests target k, the last target is the else
        if let Some(pc) = pointer_call(self.prog, s) {
            let last = pc.targets.len().saturating_sub(1);
            for (k, &t) in pc.targets.iter().enumerate() {
                if k < last {
                    self.push(
                        s.id,
                        Role::Branch {
                            arm: u32::try_from(k).unwrap_or(u32::MAX),
                        },
                    );
                }
                let callee = self
                    .prog
                    .proc(t)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                self.push(s.id, Role::Call { callee });
            }
        }
        let mut names: Vec<String> = Vec::new();
        if let StmtKind::Call(c) = &s.kind {
            if user_proc(self.prog, s.proc, &c.name).is_some() {
                names.push(c.name.clone());
            }
        }
        names.extend(
            expr_calls(self.prog, s)
                .into_iter()
                .map(|(n, _)| n.to_string()),
        );
        for callee in names {
            self.push(s.id, Role::Call { callee });
        }
    }

    /// Pre-order over `block`; `in_phase`: inside a computation phase already.
    fn block(&mut self, block: &[StmtId], in_phase: bool) {
        self.block_then(block, in_phase, false);
    }

    /// As [`Self::block`]; `then`: the statements that follow `block` on the paths falling
    /// out of its end (after IFs that may leave early, as apt's tree builder places them)
    /// hold a node, so IF arms that fall through hold one too.
    fn block_then(&mut self, block: &[StmtId], in_phase: bool, then: bool) {
        for (j, &id) in block.iter().enumerate() {
            let Some(s) = self.prog.stmt(id) else {
                continue;
            };
            match &s.kind {
                StmtKind::Loop(_) | StmtKind::While(_) => {
                    if let StmtKind::While(w) = &s.kind {
                        self.block(&w.init, in_phase);
                    }
                    self.calls(s);
                    let whole = [id];
                    // the loop's calls below its header (those in the header are its
                    // siblings in the APT)
                    let calls_loops = match &s.kind {
                        StmtKind::Loop(l) => self.calls_loops(&l.body),
                        StmtKind::While(w) => {
                            self.calls_loops(&w.body) || self.calls_loops(&w.update)
                        }
                        _ => false,
                    };
                    let phase = !in_phase && !self.communicates(&whole) && !calls_loops;
                    self.push(
                        id,
                        Role::Loop {
                            compute_phase: phase,
                        },
                    );
                    match &s.kind {
                        StmtKind::Loop(l) => self.block(&l.body, in_phase || phase),
                        StmtKind::While(w) => {
                            self.block(&w.body, in_phase || phase);
                            self.block(&w.update, in_phase || phase);
                        }
                        _ => {}
                    }
                }
                StmtKind::If(i) => {
                    self.calls(s);
                    // after an IF that may leave early, the rest of the block (and what
                    // follows it) sits on every path that falls out of the IF
                    let early = if self.nested_exits {
                        i.leaves_early(self.prog)
                    } else {
                        i.leaves_directly(self.prog)
                    };
                    let after = early && {
                        let rest = block.get(j + 1..).unwrap_or(&[]);
                        self.has_node(rest) || (then && frontend::falls_through(self.prog, rest))
                    };
                    let holds = |b: &[StmtId]| {
                        self.has_node(b) || (after && frontend::falls_through(self.prog, b))
                    };
                    // arm k is a node when it or anything after it holds a node
                    let mut keep = vec![false; i.arms.len()];
                    let mut rest = match &i.else_body {
                        Some(b) => holds(b),
                        None => after,
                    };
                    for (k, arm) in i.arms.iter().enumerate().rev() {
                        rest = rest || holds(&arm.body);
                        keep[k] = rest;
                    }
                    for (k, arm) in i.arms.iter().enumerate() {
                        if keep[k] {
                            self.push(
                                id,
                                Role::Branch {
                                    arm: u32::try_from(k).unwrap_or(u32::MAX),
                                },
                            );
                        }
                        self.block_then(&arm.body, in_phase, after);
                    }
                    if let Some(e) = &i.else_body {
                        self.block_then(e, in_phase, after);
                    }
                }
                StmtKind::Mpi(m) if m.op.is_comm() => self.push(id, Role::Comm),
                StmtKind::Assign(_) | StmtKind::Call(_) => {
                    self.calls(s);
                    // Fortran array syntax or a computing library call: an implicit loop (a
                    // statement of its own, so a computation phase unless inside one)
                    if frontend::array_op(self.prog, s).is_some() {
                        self.push(
                            id,
                            Role::Loop {
                                compute_phase: !in_phase,
                            },
                        );
                    }
                }
                _ => self.calls(s),
            }
        }
    }
}
