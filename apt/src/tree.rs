//! Building the tree from the IR and the propagated facts: which statements become nodes,
//! computation phases (outermost loops without communication) and their work, and site ids.
//!
//! Site ids: sequential from 0 in pre-order (node, then its `children`, then its
//! `else_children`) over the routines in source order. They depend only on the source text
//! and the options, so the same source gives the same ids.
use std::collections::BTreeSet;

use frontend::{ProcId, Program, Sources, StmtId, StmtKind};
use symbolic::Expr;

use crate::comm::is_comm;
use crate::interp::{Facts, LoopFacts};
use crate::pointers::{pointer_call, PointerCall};
use crate::procs::{expr_calls, user_proc, ProcNames};
use crate::rules::source_text;
use crate::{Attr, IfNode, LoopNode, Node, NodeData, NodeKind, Site, SiteId};

#[derive(Debug)]
pub struct Builder<'a> {
    pub prog: &'a Program,
    pub sources: &'a Sources,
    pub facts: &'a Facts,
    pub names: &'a ProcNames,
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
                    let mut rest = i
                        .else_body
                        .as_ref()
                        .map(|b| self.block(b))
                        .unwrap_or_default();
                    // what follows an arm that leaves the block runs only when it is not taken
                    let early = i.leaves_early(self.prog);
                    if early {
                        rest.extend(self.block(block.get(j + 1..).unwrap_or(&[])));
                    }
                    // else-if chains become nested IF nodes in the else branch, innermost first
                    for (k, arm) in i.arms.iter().enumerate().rev() {
                        let children = self.block(&arm.body);
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
                        break;
                    }
                }
                StmtKind::Mpi(m) if is_comm(m.op) => {
                    if let Some(f) = self.facts.comms.get(&id) {
                        out.push(node(Some(id), line, NodeData::Comm(f.clone()), Vec::new()));
                    }
                }
                StmtKind::Assign(_) => {
                    self.calls_in(id, &mut out);
                    if let Some(op) = frontend::array_op(self.prog, s) {
                        let mut n = self.loop_node(id, line, Vec::new());
                        if let NodeData::Loop(l) = &mut n.data {
                            let shapes: Vec<String> = op
                                .shapes
                                .iter()
                                .map(|e| source_text(self.sources.text(e.span)))
                                .collect();
                            l.array = Some(shapes.join(", "));
                        }
                        out.push(n);
                    }
                }
                _ => self.calls_in(id, &mut out),
            }
        }
        out
    }

    fn loop_node(&self, id: StmtId, line: u32, children: Vec<Node>) -> Node {
        let f = self.facts.loops.get(&id);
        let data = NodeData::Loop(LoopNode {
            var: f.and_then(|f| f.var.clone()),
            trip: f.map_or_else(
                || Attr::Unresolved("loop not analysed".into()),
                |f| f.trip.clone(),
            ),
            cap: f.and_then(|f| f.cap.clone()),
            trip_total: f.and_then(|f| f.total.clone()),
            array: None,
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
    let mut comm = BTreeSet::new();
    for _ in 0..=nprocs {
        let before = comm.len();
        for r in routines {
            if let NodeData::Routine { proc, .. } = &r.data {
                if r.children.iter().any(|c| has_comm(c, &comm)) {
                    comm.insert(*proc);
                }
            }
        }
        if comm.len() == before {
            break;
        }
    }
    comm
}

fn has_comm(n: &Node, comm_procs: &BTreeSet<ProcId>) -> bool {
    let own = match &n.data {
        NodeData::Comm(_) => true,
        NodeData::Call { proc, .. } => comm_procs.contains(proc),
        _ => false,
    };
    own || n
        .children
        .iter()
        .chain(&n.else_children)
        .any(|c| has_comm(c, comm_procs))
}

/// Marks the outermost communication-free loops as computation phases and sets their work.
pub fn mark_compute(n: &mut Node, comm_procs: &BTreeSet<ProcId>, facts: &Facts) {
    if let NodeData::Loop(_) = n.data {
        if !has_comm(n, comm_procs) {
            let w = work(n, facts);
            if let NodeData::Loop(l) = &mut n.data {
                l.compute = true;
                l.work = Some(w);
            }
            return;
        }
    }
    for c in n.children.iter_mut().chain(n.else_children.iter_mut()) {
        mark_compute(c, comm_procs, facts);
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
    match f.sym.as_deref().filter(|s| body.contains_var(s)) {
        None => Attr::Expr(trip * body),
        Some(sym) => sum_body(&body, sym, f),
    }
}

fn sum_body(body: &Expr, sym: &str, f: &LoopFacts) -> Attr {
    let (Some(lo), Some(hi), Some(step)) = (
        f.lo.known(),
        f.hi.known(),
        f.step.known().and_then(|s| s.as_const()),
    ) else {
        return Attr::Unresolved(format!("bounds of the loop over `{sym}` are unresolved"));
    };
    let sum = if step == 1.0 {
        symbolic::sum_over(body, sym, lo, hi)
    } else if step == -1.0 {
        symbolic::sum_over(body, sym, hi, lo)
    } else {
        None
    };
    match sum {
        Some(s) => Attr::Expr(s),
        None => Attr::Unresolved(format!("no closed form for the work summed over `{sym}`")),
    }
}

/// Assigns site ids in pre-order and returns the site table (index = id).
pub fn number(routines: &mut [Node], prog: &Program) -> Vec<Site> {
    let mut sites = Vec::new();
    // iterative pre-order with an explicit stack: safe on any depth
    fn visit(n: &mut Node, cur: ProcId, sites: &mut Vec<Site>, prog: &Program) {
        let mut work: Vec<(&mut Node, ProcId)> = vec![(n, cur)];
        while let Some((n, cur)) = work.pop() {
            let id = SiteId(u32::try_from(sites.len()).unwrap_or(u32::MAX));
            n.site = id;
            let (proc, span) = match (&n.data, n.stmt.and_then(|s| prog.stmt(s))) {
                (NodeData::Routine { proc, .. }, _) => (*proc, prog.proc(*proc).map(|p| p.span)),
                (_, Some(s)) => (s.proc, Some(s.span)),
                _ => (cur, None),
            };
            let span = span.unwrap_or(frontend::Span::new(prog.main_file, 0, 0));
            sites.push(Site {
                id,
                kind: n.data.kind(),
                proc,
                stmt: n.stmt,
                arm: n.arm,
                span,
                line: n.line,
            });
            let kids: Vec<&mut Node> = n
                .children
                .iter_mut()
                .chain(n.else_children.iter_mut())
                .collect();
            for k in kids.into_iter().rev() {
                work.push((k, proc));
            }
        }
    }
    for r in routines.iter_mut() {
        let proc = match &r.data {
            NodeData::Routine { proc, .. } => *proc,
            _ => ProcId(0),
        };
        visit(r, proc, &mut sites, prog);
    }
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
