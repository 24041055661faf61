//! Building the tree from the IR and the propagated facts: which statements become nodes,
//! computation phases (outermost loops without communication) and their work, and site ids.
//!
//! Site ids: sequential from 0 in pre-order (node, then its `children`, then its
//! `else_children`) over the routines in source order, except that the statements after an
//! IF that may leave early, which sit on every path out of it, are numbered once after the
//! whole IF (where the IR has them) and their copies share those ids ([`number`]). They
//! depend only on the source text and the options, so the same source gives the same ids.
use std::collections::{BTreeMap, BTreeSet};

use frontend::{ProcId, Program, Sources, StmtId, StmtKind};
use symbolic::Expr;

use crate::interp::Facts;
use crate::pointers::{pointer_call, PointerCall};
use crate::procs::{expr_calls, user_proc, ProcNames};
use crate::rules::source_text;
use crate::value::Val;
use crate::{Attr, IfNode, LoopNode, Node, NodeData, NodeKind, Site, SiteId};

#[derive(Debug)]
pub struct Builder<'a> {
    pub prog: &'a Program,
    pub sources: &'a Sources,
    pub facts: &'a Facts,
    pub names: &'a ProcNames,
    /// [`frontend::nested_exits_fit`]: IFs leave early by [`frontend::If::leaves_early`], or
    /// else by [`frontend::If::leaves_directly`] (the instrumentation plan decides alike).
    pub nested_exits: bool,
}

fn node(stmt: Option<StmtId>, line: u32, data: NodeData, children: Vec<Node>) -> Node {
    Node {
        site: SiteId(0),
        stmt,
        arm: None,
        line,
        file: None,
        data,
        children,
        else_children: Vec::new(),
    }
}

impl Builder<'_> {
    pub fn routine(&self, proc: ProcId) -> Option<Node> {
        let p = self.prog.proc(proc)?;
        let children = self.block(&p.body);
        let line = self.sources.first_line(p.span);
        Some(node(
            None,
            line,
            NodeData::Routine {
                name: p.name.clone(),
                proc,
            },
            children,
        ))
    }

    fn calls_in(&self, id: StmtId, out: &mut Vec<Node>) {
        let Some(s) = self.prog.stmt(id) else { return };
        let line = self.sources.first_line(s.span);
        if let Some(pc) = pointer_call(self.prog, self.names, s) {
            out.extend(self.pointer_branch(id, line, &pc));
        }
        if let StmtKind::Call(c) = &s.kind {
            if let Some(callee) = user_proc(self.prog, self.names, s.proc, &c.name) {
                out.push(node(
                    Some(id),
                    line,
                    NodeData::Call {
                        callee: c.name.clone(),
                        proc: callee,
                    },
                    Vec::new(),
                ));
            }
        }
        for (callee, _) in expr_calls(self.prog, self.names, s) {
            if let Some(p) = self.prog.proc(callee) {
                out.push(node(
                    Some(id),
                    line,
                    NodeData::Call {
                        callee: p.name.clone(),
                        proc: callee,
                    },
                    Vec::new(),
                ));
            }
        }
    }

    /// A call through a pointer with known targets: an IF chain (arm `k` tests target `k`, the
    /// last target is the else) over CALL nodes, all on the call statement. The arms are
    /// the chain assignment's conditions when it has one, else unresolved (measured).
    fn pointer_branch(&self, id: StmtId, line: u32, pc: &PointerCall) -> Option<Node> {
        let name = |p: ProcId| {
            self.prog
                .proc(p)
                .map(|p| p.name.clone())
                .unwrap_or_default()
        };
        let call = |p: ProcId| {
            node(
                Some(id),
                line,
                NodeData::Call {
                    callee: name(p),
                    proc: p,
                },
                Vec::new(),
            )
        };
        let conds = pc.chain.and_then(|_| self.facts.conds.get(&id));
        let mut targets = pc.targets.iter().rev();
        let mut rest = targets.next().map(|&p| vec![call(p)]).unwrap_or_default();
        for (k, &p) in targets
            .enumerate()
            .map(|(j, p)| (pc.targets.len() - 2 - j, p))
        {
            let cond = conds.and_then(|c| c.get(k));
            let data = NodeData::If(IfNode {
                cond: cond.map_or_else(|| format!("{} == {}", pc.var, name(p)), |c| c.text.clone()),
                unresolved: match cond {
                    Some(c) => c.unresolved.clone(),
                    None => Some(format!("call through pointer `{}`", pc.var)),
                },
                vars: cond.map(|c| c.vars.clone()).unwrap_or_default(),
            });
            let mut n = node(Some(id), line, data, vec![call(p)]);
            n.arm = Some(k as u32);
            n.else_children = rest;
            rest = vec![n];
        }
        rest.pop()
    }

    fn block(&self, block: &[StmtId]) -> Vec<Node> {
        self.block_then(block, &[])
    }

    /// The nodes of `block` followed, on every path that falls out of its end
    /// ([`frontend::falls_through`]), by those of `then` in order: the statements after the
    /// IFs that may leave early enclosing it ([`frontend::If::leaves_early`]), up to the
    /// innermost loop body or the routine. Such statements sit once on each path that reaches
    /// them (copies share their site ids: [`number`]).
    fn block_then(&self, block: &[StmtId], then: &[&[StmtId]]) -> Vec<Node> {
        let mut out = Vec::new();
        for (j, &id) in block.iter().enumerate() {
            let Some(s) = self.prog.stmt(id) else {
                continue;
            };
            let line = self.sources.first_line(s.span);
            match &s.kind {
                StmtKind::Loop(l) => {
                    self.calls_in(id, &mut out);
                    let children = self.block(&l.body);
                    out.push(self.loop_node(id, line, children));
                }
                StmtKind::While(w) => {
                    out.extend(self.block(&w.init));
                    self.calls_in(id, &mut out);
                    let mut children = self.block(&w.body);
                    children.extend(self.block(&w.update));
                    out.push(self.loop_node(id, line, children));
                }
                StmtKind::If(i) => {
                    self.calls_in(id, &mut out);
                    let conds = self.facts.conds.get(&id);
                    // what follows an IF that may leave the block runs only on the paths that
                    // fall out of it: after each arm and the else
                    let early = if self.nested_exits {
                        i.leaves_early(self.prog)
                    } else {
                        i.leaves_directly(self.prog)
                    };
                    let mut after: Vec<&[StmtId]> = Vec::new();
                    if early {
                        after.push(block.get(j + 1..).unwrap_or(&[]));
                        after.extend_from_slice(then);
                    }
                    let mut rest = match &i.else_body {
                        Some(b) => self.block_then(b, &after),
                        None => self.seq(&after),
                    };
                    // else-if chains become nested IF nodes in the else branch, innermost first
                    for (k, arm) in i.arms.iter().enumerate().rev() {
                        let children = self.block_then(&arm.body, &after);
                        if children.is_empty() && rest.is_empty() {
                            continue;
                        }
                        let cond = conds.and_then(|c| c.get(k));
                        let data = NodeData::If(IfNode {
                            cond: cond.map(|c| c.text.clone()).unwrap_or_default(),
                            unresolved: cond.and_then(|c| c.unresolved.clone()),
                            vars: cond.map(|c| c.vars.clone()).unwrap_or_default(),
                        });
                        let arm_line = if k == 0 {
                            line
                        } else {
                            self.sources.first_line(arm.cond.span)
                        };
                        let mut n = node(Some(id), arm_line, data, children);
                        n.arm = Some(k as u32);
                        n.else_children = rest;
                        rest = vec![n];
                    }
                    out.extend(rest);
                    if early {
                        return out;
                    }
                }
                StmtKind::Mpi(m) if m.op.is_comm() => {
                    if let Some(f) = self.facts.comms.get(&id) {
                        out.push(node(Some(id), line, NodeData::Comm(f.clone()), Vec::new()));
                    }
                }
                StmtKind::Assign(_) | StmtKind::Call(_) | StmtKind::Opaque(_) => {
                    self.calls_in(id, &mut out);
                    if let Some(op) = frontend::array_op(self.prog, s) {
                        let mut n = self.loop_node(id, line, Vec::new());
                        if let NodeData::Loop(l) = &mut n.data {
                            if op.kind == frontend::ArrayOpKind::Library {
                                l.library = Some(crate::library::names(&op));
                            } else {
                                let shapes: Vec<String> = op
                                    .shapes
                                    .iter()
                                    .map(|e| source_text(self.sources.text(e.span)))
                                    .collect();
                                l.array = Some(shapes.join(", "));
                            }
                        }
                        out.push(n);
                    }
                }
                _ => self.calls_in(id, &mut out),
            }
        }
        if !then.is_empty() && frontend::falls_through(self.prog, block) {
            out.extend(self.seq(then));
        }
        out
    }

    /// The nodes of `blocks` run one after the other (each falling into the next).
    fn seq(&self, blocks: &[&[StmtId]]) -> Vec<Node> {
        match blocks.split_first() {
            Some((first, more)) => self.block_then(first, more),
            None => Vec::new(),
        }
    }

    fn loop_node(&self, id: StmtId, line: u32, children: Vec<Node>) -> Node {
        let f = self.facts.loops.get(&id);
        let data = NodeData::Loop(LoopNode {
            var: f.and_then(|f| f.var.clone()),
            trip: f.map_or_else(
                || Attr::Unresolved("loop not analysed".into()),
                |f| f.trip.clone(),
            ),
            start: f
                .and_then(|f| match &f.lo {
                    crate::value::Val::Known(e) => e.as_const(),
                    _ => None,
                })
                .filter(|x| x.fract() == 0.0 && x.abs() < 1e15)
                .map(|x| x as i64),
            cap: f.and_then(|f| f.cap.clone()),
            trip_total: f.and_then(|f| f.total.clone()),
            trip_mean: f.and_then(|f| f.mean.clone()),
            array: None,
            library: None,
            compute: false,
            work: None,
            writes: None,
            writes_unknown: None,
        });
        node(Some(id), line, data, children)
    }
}

/// Procedures whose execution may communicate (directly or through calls).
pub fn communicating(routines: &[Node], nprocs: usize) -> BTreeSet<ProcId> {
    reaching(routines, nprocs, &|n| matches!(n.data, NodeData::Comm(_)))
}

/// Procedures whose execution may run a loop (directly or through calls).
pub fn looping(routines: &[Node], nprocs: usize) -> BTreeSet<ProcId> {
    reaching(routines, nprocs, &|n| matches!(n.data, NodeData::Loop(_)))
}

/// Procedures whose execution reaches a node `own` holds of, directly or through calls: the
/// least fixed point over the call graph.
fn reaching(routines: &[Node], nprocs: usize, own: &dyn Fn(&Node) -> bool) -> BTreeSet<ProcId> {
    let mut set = BTreeSet::new();
    for _ in 0..=nprocs {
        let before = set.len();
        for r in routines {
            if let NodeData::Routine { proc, .. } = &r.data {
                if r.children.iter().any(|c| reaches(c, &set, own)) {
                    set.insert(*proc);
                }
            }
        }
        if set.len() == before {
            break;
        }
    }
    set
}

/// Whether `n` or a node below it holds `own`, or calls a procedure of `procs`.
fn reaches(n: &Node, procs: &BTreeSet<ProcId>, own: &dyn Fn(&Node) -> bool) -> bool {
    let here = own(n) || matches!(&n.data, NodeData::Call { proc, .. } if procs.contains(proc));
    here || n
        .children
        .iter()
        .chain(&n.else_children)
        .any(|c| reaches(c, procs, own))
}

/// Marks the outermost loops that neither communicate nor call a routine with loops of its
/// own as computation phases and sets their work. A loop that calls such a routine (a row
/// FFT called once per row) is composed bottom-up instead: its trip count times the
/// callee's computation phases, each fitted to its own work; one cost per iteration of the
/// caller would have to fit the callee's work as a law of the caller's iterations.
pub fn mark_compute(
    n: &mut Node,
    comm_procs: &BTreeSet<ProcId>,
    loop_procs: &BTreeSet<ProcId>,
    facts: &Facts,
) {
    if let NodeData::Loop(_) = n.data {
        let is_comm = |m: &Node| matches!(m.data, NodeData::Comm(_));
        let calls_loops = reaches(n, loop_procs, &|_| false);
        if !reaches(n, comm_procs, &is_comm) && !calls_loops {
            let w = work(n, facts);
            if let NodeData::Loop(l) = &mut n.data {
                l.compute = true;
                l.work = Some(w);
            }
            return;
        }
    }
    for c in n.children.iter_mut().chain(n.else_children.iter_mut()) {
        mark_compute(c, comm_procs, loop_procs, facts);
    }
}

/// The outermost loops below `nodes` (through IF nodes).
fn loop_roots<'n>(nodes: &'n [Node], out: &mut Vec<&'n Node>) {
    for n in nodes {
        match n.data {
            NodeData::Loop(_) => out.push(n),
            _ => {
                loop_roots(&n.children, out);
                loop_roots(&n.else_children, out);
            }
        }
    }
}

/// Iterations of the innermost bodies of the nest rooted at `n` (per entry of `n`): the
/// dominant work of a computation phase. Straight-line code beside inner loops is a
/// lower-order term and not counted; loops under IFs count as if always taken.
pub fn work(n: &Node, facts: &Facts) -> Attr {
    let mut roots = Vec::new();
    loop_roots(&n.children, &mut roots);
    let mut body = Expr::zero();
    for r in &roots {
        match work(r, facts) {
            Attr::Expr(e) => body = body + e,
            other => return other,
        }
    }
    if roots.is_empty() {
        body = Expr::one();
    }
    let Some(f) = n.stmt.and_then(|s| facts.loops.get(&s)) else {
        return Attr::Unresolved("loop not analysed".into());
    };
    let trip = match &f.trip {
        Attr::Expr(t) => t.clone(),
        other => return other.clone(),
    };
    let in_more = f.more.iter().any(|x| body.contains_var(&x.sym));
    match f.sym.as_deref().filter(|s| body.contains_var(s)) {
        None if !in_more => Attr::Expr(trip * body),
        // a geometric loop's counter: summed over its values
        Some(sym) if f.geo.is_some() => match f.geo.as_ref().map(|g| g.sum(&body, sym)) {
            Some(Ok(e)) => Attr::Expr(e),
            Some(Err(why)) => Attr::Unresolved(why),
            None => Attr::Unresolved("loop not analysed".into()),
        },
        Some(sym) if f.more.is_empty() => sum_body(&body, sym, &f.lo, &f.hi, &f.step),
        _ => {
            // DO CONCURRENT whose body depends on its indices: sum over each, last first
            let mut sum = body;
            let first = f.sym.as_deref().map(|s| (s, &f.lo, &f.hi, &f.step));
            let more = f
                .more
                .iter()
                .map(|x| (x.sym.as_str(), &x.lo, &x.hi, &x.step));
            for (sym, lo, hi, step) in first.into_iter().chain(more).rev() {
                sum = match sum_body(&sum, sym, lo, hi, step) {
                    Attr::Expr(e) => e,
                    other => return other,
                };
            }
            Attr::Expr(sum)
        }
    }
}

fn sum_body(body: &Expr, sym: &str, lo: &Val, hi: &Val, step: &Val) -> Attr {
    let (Some(lo), Some(hi)) = (lo.known(), hi.known()) else {
        return Attr::Unresolved(format!("bounds of the loop over `{sym}` are unresolved"));
    };
    let Some(step) = step.known() else {
        return Attr::Unresolved(format!("step of the loop over `{sym}` is unresolved"));
    };
    let sum = match step.as_const() {
        Some(1.0) => symbolic::sum_over(body, sym, lo, hi),
        Some(-1.0) => symbolic::sum_over(body, sym, hi, lo),
        // a stride, tiles included (`do l0 = 1, n, nb; do l = l0, min(l0 + nb - 1, n)`)
        _ => crate::strided::sum_strided(body, sym, lo, hi, step).ok(),
    };
    match sum {
        Some(s) => Attr::Expr(s),
        None => Attr::Unresolved(format!("no closed form for the work summed over `{sym}`")),
    }
}

/// A node's identity across the copies of the statements that follow an IF that may leave
/// early ([`Builder::block_then`]): routine, statement, arm, kind, callee or routine name,
/// and its rank among its siblings with all of those equal (`f(f(x))`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    proc: ProcId,
    stmt: Option<StmtId>,
    arm: Option<u32>,
    kind: NodeKind,
    name: String,
    nth: usize,
}

/// The keys of sibling nodes, in order.
fn keys(nodes: &[Node], proc: ProcId, prog: &Program) -> Vec<Key> {
    let mut out: Vec<Key> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let (proc, name) = match &n.data {
            NodeData::Routine { proc, name } => (*proc, name.clone()),
            NodeData::Call { callee, .. } => (stmt_proc(n, prog, proc), callee.clone()),
            _ => (stmt_proc(n, prog, proc), String::new()),
        };
        let mut k = Key {
            proc,
            stmt: n.stmt,
            arm: n.arm,
            kind: n.kind(),
            name,
            nth: 0,
        };
        k.nth = out
            .iter()
            .filter(|o| {
                Key {
                    nth: 0,
                    ..(*o).clone()
                } == k
            })
            .count();
        out.push(k);
    }
    out
}

/// The routine a node's statement is in (`cur` for routines).
fn stmt_proc(n: &Node, prog: &Program, cur: ProcId) -> ProcId {
    n.stmt.and_then(|s| prog.stmt(s)).map_or(cur, |s| s.proc)
}

/// The statements an IF node's chain stands for: the IR `if` and everything in its arms and
/// else (a call through a pointer: its call statement).
fn if_scope(stmt: StmtId, prog: &Program) -> BTreeSet<StmtId> {
    let mut out = BTreeSet::from([stmt]);
    if let Some(StmtKind::If(i)) = prog.stmt(stmt).map(|s| &s.kind) {
        for a in &i.arms {
            out.extend(prog.walk(&a.body));
        }
        if let Some(b) = &i.else_body {
            out.extend(prog.walk(b));
        }
    }
    out
}

/// Numbering state: ids by key, the site table, and the open IF scopes (the statements of
/// an IF chain, and the nodes met under it that follow it, numbered once it is done).
struct Numbering<'p, 'n> {
    prog: &'p Program,
    ids: BTreeMap<Key, SiteId>,
    sites: Vec<Site>,
    scopes: Vec<IfScope<'n>>,
}

/// An IF chain being numbered: its statement, the statements it stands for ([`if_scope`]),
/// and the nodes met under it of statements after it.
struct IfScope<'n> {
    stmt: StmtId,
    stmts: BTreeSet<StmtId>,
    later: Vec<(&'n Node, Key, ProcId)>,
}

impl<'n> Numbering<'_, 'n> {
    fn visit(&mut self, n: &'n Node, key: Key, cur: ProcId) {
        // a statement after the innermost open IF: numbered when that IF is done
        if let (Some(s), Some(scope)) = (n.stmt, self.scopes.last_mut()) {
            if !scope.stmts.contains(&s) {
                scope.later.push((n, key, cur));
                return;
            }
        }
        if self.ids.contains_key(&key) {
            return; // a copy of a node numbered already
        }
        let id = SiteId(u32::try_from(self.sites.len()).unwrap_or(u32::MAX));
        self.ids.insert(key, id);
        let prog = self.prog;
        let (proc, span) = match (&n.data, n.stmt.and_then(|s| prog.stmt(s))) {
            (NodeData::Routine { proc, .. }, _) => (*proc, prog.proc(*proc).map(|p| p.span)),
            (_, Some(s)) => (s.proc, Some(s.span)),
            _ => (cur, None),
        };
        let span = span.unwrap_or(frontend::Span::new(prog.main_file, 0, 0));
        self.sites.push(Site {
            id,
            kind: n.data.kind(),
            proc,
            stmt: n.stmt,
            arm: n.arm,
            span,
            line: n.line,
        });
        let opens = match (&n.data, n.stmt) {
            (NodeData::If(_), Some(s)) => self.scopes.last().is_none_or(|top| top.stmt != s),
            _ => false,
        };
        if let (true, Some(s)) = (opens, n.stmt) {
            self.scopes.push(IfScope {
                stmt: s,
                stmts: if_scope(s, prog),
                later: Vec::new(),
            });
        }
        for list in [&n.children, &n.else_children] {
            for (c, k) in list.iter().zip(keys(list, proc, prog)) {
                self.visit(c, k, proc);
            }
        }
        if opens {
            if let Some(scope) = self.scopes.pop() {
                for (c, k, p) in scope.later {
                    self.visit(c, k, p);
                }
            }
        }
    }
}

/// Assigns site ids and returns the site table (index = id). Ids run in pre-order, except
/// that the nodes an IF that may leave early holds of the statements after it are numbered
/// after the whole IF (where the IR, and so the instrumentation plan, has them), once: their
/// copies on the other paths that reach them take the same ids.
pub fn number(routines: &mut [Node], prog: &Program) -> Vec<Site> {
    let ids = {
        let mut num = Numbering {
            prog,
            ids: BTreeMap::new(),
            sites: Vec::new(),
            scopes: Vec::new(),
        };
        for (r, k) in routines.iter().zip(keys(routines, ProcId(0), prog)) {
            let proc = match &r.data {
                NodeData::Routine { proc, .. } => *proc,
                _ => ProcId(0),
            };
            num.visit(r, k, proc);
        }
        (num.ids, num.sites)
    };
    let (ids, sites) = ids;
    fn set(nodes: &mut [Node], cur: ProcId, prog: &Program, ids: &BTreeMap<Key, SiteId>) {
        let ks = keys(nodes, cur, prog);
        for (n, k) in nodes.iter_mut().zip(ks) {
            let proc = k.proc;
            if let Some(id) = ids.get(&k) {
                n.site = *id;
            }
            set(&mut n.children, proc, prog, ids);
            set(&mut n.else_children, proc, prog, ids);
        }
    }
    set(routines, ProcId(0), prog, &ids);
    sites
}

/// Sets [`Node::file`] of every node whose site lies outside the main file.
pub fn set_files(routines: &mut [Node], sites: &[Site], prog: &Program, sources: &Sources) {
    let mut stack: Vec<&mut Node> = routines.iter_mut().collect();
    while let Some(n) = stack.pop() {
        let file = sites
            .get(n.site.0 as usize)
            .map(|s| s.span.file)
            .filter(|f| *f != prog.main_file);
        n.file = file.and_then(|f| sources.path(f).map(|p| p.display().to_string()));
        stack.extend(n.children.iter_mut().chain(n.else_children.iter_mut()));
    }
}

impl NodeData {
    pub fn kind(&self) -> NodeKind {
        match self {
            NodeData::Routine { .. } => NodeKind::Routine,
            NodeData::Loop(_) => NodeKind::Loop,
            NodeData::If(_) => NodeKind::If,
            NodeData::Call { .. } => NodeKind::Call,
            NodeData::Comm(_) => NodeKind::Comm,
        }
    }
}
