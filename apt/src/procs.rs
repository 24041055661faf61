//! Whole-program facts the propagation needs before it starts: which names are user
//! procedures, the call graph and its analysis order (callers first), recursion, and the
//! MOD sets (which formals and globals a procedure may write, transitively).
use std::collections::{BTreeMap, BTreeSet};

use frontend::{
    path_root, path_under, DeclKind, Language, ProcId, Program, SrcExpr, SrcExprKind, Stmt, StmtId,
    StmtKind,
};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

#[derive(Debug, Clone, Default)]
pub struct ProcFacts {
    /// Procedures in analysis order: every caller before its callees (cycles in any order).
    pub order: Vec<ProcId>,
    /// Procedures on a call-graph cycle (including self-recursion).
    pub recursive: BTreeSet<ProcId>,
    /// Per procedure: the index of its strongly connected component of the call graph (two
    /// procedures share one exactly when each may call the other).
    pub component: Vec<usize>,
    /// Per procedure: positions of formals it may write (directly or through callees).
    pub mod_formals: Vec<BTreeSet<usize>>,
    /// Per procedure: global / COMMON names it may write (directly or through callees).
    pub mod_globals: Vec<BTreeSet<String>>,
    /// Per procedure: global / COMMON arrays whose elements (or bounds) it may write, directly
    /// or through callees (not in `mod_globals`: writing them changes no scalar).
    pub mod_global_arrays: Vec<BTreeSet<String>>,
    /// Per procedure: formals of `mod_formals` written only at paths under them, with those
    /// paths' suffixes (`->u` when only `g->u[i]` is written through `g`); a formal written
    /// as a whole (or through itself, `x[i]`, `*g`) is absent.
    pub mod_parts: Vec<BTreeMap<usize, BTreeSet<String>>>,
    /// Per procedure: names that refer to program-wide storage there.
    pub globals: Vec<BTreeSet<String>>,
    pub names: ProcNames,
    /// (procedure, formal) pairs where the procedure itself writes a path under the formal
    /// (`q->nx = …`, `ibuf(1) = …`): the formals whose paths a summary follows.
    pub path_formals: BTreeSet<(ProcId, String)>,
    /// Statements changing variables inside opaque expressions (computed once: every
    /// pass asks about every statement).
    pub side_effects: BTreeMap<StmtId, BTreeSet<String>>,
}

/// Procedure names → ids (first definition wins, as `Program::proc_by_name`); Fortran
/// names compare lower-cased. A map, because every array reference asks.
#[derive(Debug, Clone, Default)]
pub struct ProcNames {
    map: BTreeMap<String, ProcId>,
    fortran: bool,
}

impl ProcNames {
    pub fn new(prog: &Program) -> Self {
        let fortran = prog.language == Language::Fortran;
        let mut map = BTreeMap::new();
        for p in &prog.procs {
            let key = if fortran {
                p.name.to_ascii_lowercase()
            } else {
                p.name.clone()
            };
            map.entry(key).or_insert(p.id);
        }
        ProcNames { map, fortran }
    }

    pub fn get(&self, name: &str) -> Option<ProcId> {
        if self.fortran {
            self.map.get(&name.to_ascii_lowercase()).copied()
        } else {
            self.map.get(name).copied()
        }
    }
}

/// The user procedure `name` refers to in `proc`, unless `name` is an array there.
pub fn user_proc(prog: &Program, names: &ProcNames, proc: ProcId, name: &str) -> Option<ProcId> {
    let callee = names.get(name)?;
    if let Some(d) = prog.decl(proc, name) {
        if matches!(d.kind, DeclKind::Array { .. }) {
            return None;
        }
    }
    Some(callee)
}

/// Calls `f` on `top` and every sub-expression, pre-order, without allocating per node.
pub fn for_each_expr<'a>(
    top: &'a SrcExpr,
    stack: &mut Vec<&'a SrcExpr>,
    f: &mut impl FnMut(&'a SrcExpr),
) {
    stack.clear();
    stack.push(top);
    while let Some(e) = stack.pop() {
        f(e);
        match &e.kind {
            SrcExprKind::Index { indices: v, .. }
            | SrcExprKind::Call { args: v, .. }
            | SrcExprKind::Construct { args: v, .. } => stack.extend(v.iter().rev()),
            SrcExprKind::Range { lo, hi, step } => {
                stack.extend([step, hi, lo].into_iter().flatten().map(|b| &**b));
            }
            SrcExprKind::Unary { operand, .. } => stack.push(operand),
            SrcExprKind::Binary { lhs, rhs, .. } => {
                stack.push(rhs);
                stack.push(lhs);
            }
            SrcExprKind::Ternary { cond, then, other } => {
                stack.push(other);
                stack.push(then);
                stack.push(cond);
            }
            SrcExprKind::SizeOf { expr: Some(x), .. } | SrcExprKind::Cast { expr: x, .. } => {
                stack.push(x)
            }
            _ => {}
        }
    }
}

/// User procedures called inside the expressions of `s`, in pre-order: `(callee, args)`.
/// The arms of a `switch` / `SELECT CASE` each compare a copy of the selector, which runs
/// once: a call there (`select case (pick(m))`, one span in every copy) is listed once.
pub fn expr_calls<'a>(
    prog: &Program,
    names: &ProcNames,
    s: &'a Stmt,
) -> Vec<(ProcId, &'a [SrcExpr])> {
    let switch = matches!(&s.kind, StmtKind::If(i) if i.switch.is_some());
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for top in s.exprs() {
        for_each_expr(top, &mut stack, &mut |e| {
            let (name, args) = match &e.kind {
                SrcExprKind::Call { name, args } => (name, args),
                SrcExprKind::Index { array, indices } => (array, indices),
                _ => return,
            };
            if switch && !seen.insert(e.span) {
                return;
            }
            if let Some(id) = user_proc(prog, names, s.proc, name) {
                out.push((id, args.as_slice()));
            }
        });
    }
    out
}

/// Whether opaque expression text changes something: `++`, `--` or an assignment operator.
fn has_side_effect(text: &str) -> bool {
    if text.contains("++") || text.contains("--") {
        return true;
    }
    let b = text.as_bytes();
    let at = |i: usize, k: usize| i.checked_sub(k).and_then(|j| b.get(j)).copied();
    b.iter().enumerate().any(|(i, &c)| {
        let comparison = match at(i, 1) {
            Some(b'=' | b'!') => true,
            // `<=` / `>=` compare; `<<=` / `>>=` assign
            Some(p @ (b'<' | b'>')) => at(i, 2) != Some(p),
            _ => false,
        };
        c == b'=' && b.get(i + 1) != Some(&b'=') && !comparison
    })
}

/// Variables of opaque sub-expressions with side effects (`reqs[nreq++]`): the front end's
/// def sets do not list them.
pub fn side_effect_vars(s: &Stmt) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = Vec::new();
    for top in s.exprs() {
        for_each_expr(top, &mut stack, &mut |e| {
            if let SrcExprKind::Opaque { text, vars } = &e.kind {
                if has_side_effect(text) {
                    out.extend(vars.iter().cloned());
                }
            }
        });
    }
    out
}

/// Per variable changed inside the opaque sub-expressions of `s`: the sum of the constant
/// steps it takes there (`req[n++]` twice → `n` + 2; `k -= 3` → -3), or `None` when one
/// change is not such a step (`n = f(x)`, `n *= 2`, `a[n++] = n++`-style text with two
/// variables).
pub fn increments(s: &Stmt) -> BTreeMap<String, Option<i64>> {
    let mut out: BTreeMap<String, Option<i64>> = BTreeMap::new();
    let mut stack = Vec::new();
    for top in s.exprs() {
        for_each_expr(top, &mut stack, &mut |e| {
            let SrcExprKind::Opaque { text, vars } = &e.kind else {
                return;
            };
            if !has_side_effect(text) {
                return;
            }
            let step = step_of(text).filter(|(v, _)| vars.len() == 1 && vars.contains(v));
            match step {
                Some((v, k)) => {
                    let slot = out.entry(v).or_insert(Some(0));
                    *slot = slot.and_then(|x| x.checked_add(k));
                }
                None => {
                    for v in vars {
                        out.insert(v.clone(), None);
                    }
                }
            }
        });
    }
    out
}

/// `n++`, `++n`, `n--`, `--n`, `n += 3`, `n -= 3` → (`n`, step).
fn step_of(text: &str) -> Option<(String, i64)> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let ident = |x: &str| {
        let mut cs = x.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    for (op, k) in [("++", 1), ("--", -1)] {
        if let Some(v) = t.strip_prefix(op).or_else(|| t.strip_suffix(op)) {
            return ident(v).then(|| (v.to_string(), k));
        }
    }
    for (op, sign) in [("+=", 1), ("-=", -1)] {
        if let Some((v, n)) = t.split_once(op) {
            let n: i64 = n.parse().ok()?;
            return ident(v).then(|| (v.to_string(), sign * n));
        }
    }
    None
}

/// Names that refer to program-wide storage in `proc`.
fn global_names(prog: &Program, proc: ProcId) -> BTreeSet<String> {
    let Some(p) = prog.proc(proc) else {
        return BTreeSet::new();
    };
    let mut out: BTreeSet<String> = prog
        .globals
        .iter()
        .filter(|d| !matches!(d.kind, DeclKind::Constant { .. }))
        .filter(|d| {
            !p.decls
                .iter()
                .any(|l| l.name == d.name && l.common.is_none())
        })
        .map(|d| d.name.clone())
        .collect();
    if prog.language == Language::Fortran {
        out.extend(
            p.decls
                .iter()
                .filter(|d| d.common.is_some())
                .map(|d| d.name.clone()),
        );
        // an internal procedure sees its host's variables (and formals) not declared again
        let mut host = p.host;
        let mut seen = BTreeSet::new();
        while let Some(h) = host.filter(|h| seen.insert(*h)).and_then(|h| prog.proc(h)) {
            let own = |n: &str| p.decls.iter().any(|l| l.name == n);
            out.extend(
                h.decls
                    .iter()
                    .filter(|d| !matches!(d.kind, DeclKind::Constant { .. }))
                    .map(|d| d.name.clone())
                    .chain(h.params.iter().map(|f| f.name.clone()))
                    .filter(|n| !own(n) && !p.params.iter().any(|f| &f.name == n)),
            );
            host = h.host;
        }
    }
    out
}

impl ProcFacts {
    /// Whether `a` and `b` lie on one call-graph cycle (or are the same procedure).
    pub fn same_component(&self, a: ProcId, b: ProcId) -> bool {
        a == b || self.component.get(a.0 as usize) == self.component.get(b.0 as usize)
    }

    pub fn compute(prog: &Program) -> ProcFacts {
        let n = prog.procs.len();
        let names = ProcNames::new(prog);
        let mut graph: DiGraph<ProcId, ()> = DiGraph::new();
        let nodes: Vec<NodeIndex> = prog.procs.iter().map(|p| graph.add_node(p.id)).collect();
        let mut edges: BTreeSet<(usize, usize)> = BTreeSet::new();
        for s in &prog.stmts {
            let caller = s.proc.0 as usize;
            if let StmtKind::Call(c) = &s.kind {
                if let Some(id) = user_proc(prog, &names, s.proc, &c.name) {
                    edges.insert((caller, id.0 as usize));
                }
            }
            for (id, _) in expr_calls(prog, &names, s) {
                edges.insert((caller, id.0 as usize));
            }
            if let Some(pc) = crate::pointers::pointer_call(prog, &names, s) {
                edges.extend(pc.targets.iter().map(|id| (caller, id.0 as usize)));
            }
        }
        for &(a, b) in &edges {
            if let (Some(&x), Some(&y)) = (nodes.get(a), nodes.get(b)) {
                graph.add_edge(x, y, ());
            }
        }
        let mut recursive = BTreeSet::new();
        let mut order = Vec::new();
        let mut component = vec![0; n];
        // tarjan_scc lists components in reverse topological order: callees first.
        for (c, scc) in tarjan_scc(&graph).into_iter().rev().enumerate() {
            let mut ids: Vec<ProcId> = scc
                .iter()
                .filter_map(|ix| graph.node_weight(*ix).copied())
                .collect();
            ids.sort();
            let self_loop = ids.len() == 1
                && ids
                    .iter()
                    .any(|id| edges.contains(&(id.0 as usize, id.0 as usize)));
            if ids.len() > 1 || self_loop {
                recursive.extend(ids.iter().copied());
            }
            for id in &ids {
                if let Some(slot) = component.get_mut(id.0 as usize) {
                    *slot = c;
                }
            }
            order.extend(ids);
        }
        let globals: Vec<BTreeSet<String>> = (0..n)
            .map(|i| global_names(prog, ProcId(i as u32)))
            .collect();
        let side_effects = prog
            .stmts
            .iter()
            .filter_map(|s| {
                let v = side_effect_vars(s);
                (!v.is_empty()).then_some((s.id, v))
            })
            .collect();
        let path_formals = prog
            .stmts
            .iter()
            .flat_map(|s| {
                let formals = prog.proc(s.proc).map(|p| &p.params);
                let mut defs: Vec<String> = s.defs.iter().cloned().collect();
                if let StmtKind::Assign(a) = &s.kind {
                    defs.extend(a.target.path());
                }
                defs.into_iter()
                    .filter(|d| d != path_root(d))
                    .filter_map(move |d| {
                        let root = path_root(&d).to_string();
                        formals
                            .is_some_and(|f| f.iter().any(|f| f.name == root))
                            .then_some((s.proc, root))
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut facts = ProcFacts {
            path_formals,
            side_effects,
            order,
            recursive,
            component,
            mod_formals: vec![BTreeSet::new(); n],
            mod_globals: vec![BTreeSet::new(); n],
            mod_global_arrays: vec![BTreeSet::new(); n],
            mod_parts: vec![BTreeMap::new(); n],
            globals,
            names,
        };
        facts.compute_mods(prog);
        facts
    }

    /// Iterates MOD sets to a fixpoint (each pass only grows them; bounded by names × procs).
    /// Global arrays are kept apart (`mod_global_arrays`).
    fn compute_mods(&mut self, prog: &Program) {
        let n = prog.procs.len();
        // per procedure: what its statements write directly, and its calls to user procedures
        let mut direct: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n];
        let mut calls: Vec<Vec<(&Stmt, ProcId, &[SrcExpr])>> = vec![Vec::new(); n];
        for s in &prog.stmts {
            let i = s.proc.0 as usize;
            let (Some(d), Some(c)) = (direct.get_mut(i), calls.get_mut(i)) else {
                continue;
            };
            match &s.kind {
                StmtKind::Call(call) => match user_proc(prog, &self.names, s.proc, &call.name) {
                    Some(callee) => c.push((s, callee, &call.args)),
                    None => {
                        d.extend(s.defs.iter().cloned());
                        if let Some(pc) = crate::pointers::pointer_call(prog, &self.names, s) {
                            c.extend(pc.targets.iter().map(|&t| (s, t, call.args.as_slice())));
                        }
                    }
                },
                _ => d.extend(s.defs.iter().cloned()),
            }
            if let Some(v) = self.side_effects.get(&s.id) {
                d.extend(v.iter().cloned());
            }
        }
        for _round in 0..=n {
            let mut changed = false;
            for p in &prog.procs {
                let i = p.id.0 as usize;
                let mut defs = direct.get(i).cloned().unwrap_or_default();
                for (s, callee, args) in calls.get(i).into_iter().flatten() {
                    defs.extend(self.call_defs(s, *callee, args));
                }
                let formals: BTreeSet<usize> = p
                    .params
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| {
                        defs.contains(&f.name) || defs.iter().any(|d| path_under(d, &f.name))
                    })
                    .map(|(k, _)| k)
                    .collect();
                let parts: BTreeMap<usize, BTreeSet<String>> = p
                    .params
                    .iter()
                    .enumerate()
                    .filter(|(k, f)| formals.contains(k) && !defs.contains(&f.name))
                    .map(|(k, f)| {
                        let suffixes = defs
                            .iter()
                            .filter(|d| path_under(d, &f.name))
                            .filter_map(|d| d.get(f.name.len()..).map(str::to_string))
                            .collect();
                        (k, suffixes)
                    })
                    .collect();
                let is_array = |d: &str| {
                    matches!(
                        prog.decl(p.id, path_root(d)).map(|x| &x.kind),
                        Some(DeclKind::Array { .. })
                    )
                };
                let mut arrays: BTreeSet<String> = defs
                    .iter()
                    .filter(|d| {
                        self.globals
                            .get(i)
                            .is_some_and(|g| g.contains(path_root(d)))
                            && is_array(d)
                    })
                    .map(|d| path_root(d).to_string())
                    .collect();
                for (_, callee, _) in calls.get(i).into_iter().flatten() {
                    for a in self
                        .mod_global_arrays
                        .get(callee.0 as usize)
                        .into_iter()
                        .flatten()
                    {
                        if self.globals.get(i).is_some_and(|g| g.contains(a)) {
                            arrays.insert(a.clone());
                        }
                    }
                }
                if let Some(ma) = self.mod_global_arrays.get_mut(i) {
                    if *ma != arrays {
                        *ma = arrays;
                        changed = true;
                    }
                }
                let globals: BTreeSet<String> = defs
                    .iter()
                    .filter(|d| {
                        self.globals
                            .get(i)
                            .is_some_and(|g| g.contains(path_root(d)))
                    })
                    .filter(|d| {
                        !matches!(
                            prog.decl(p.id, path_root(d)).map(|x| &x.kind),
                            Some(DeclKind::Array { .. })
                        )
                    })
                    .cloned()
                    .collect();
                if let (Some(mf), Some(mg), Some(mp)) = (
                    self.mod_formals.get_mut(i),
                    self.mod_globals.get_mut(i),
                    self.mod_parts.get_mut(i),
                ) {
                    if *mf != formals || *mg != globals || *mp != parts {
                        *mf = formals;
                        *mg = globals;
                        *mp = parts;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Variables a statement itself may write, with calls to user procedures narrowed to
    /// the actuals bound to formals the callee writes (plus the globals it writes), and
    /// variables changed inside expressions the front end keeps opaque.
    pub fn stmt_defs(&self, prog: &Program, s: &Stmt) -> BTreeSet<String> {
        let mut defs = self.own_defs(prog, s);
        if let Some(v) = self.side_effects.get(&s.id) {
            defs.extend(v.iter().cloned());
        }
        defs
    }

    fn own_defs(&self, prog: &Program, s: &Stmt) -> BTreeSet<String> {
        match &s.kind {
            StmtKind::Call(c) => match user_proc(prog, &self.names, s.proc, &c.name) {
                Some(callee) => self.call_defs(s, callee, &c.args),
                // a computing library routine never writes its sizes
                None => {
                    let sizes = crate::library::sizes_read(prog, s);
                    s.defs.difference(&sizes).cloned().collect()
                }
            },
            _ => s.defs.clone(),
        }
    }

    /// Caller-side effect of calling `callee` with `args` in statement `s`: the actuals bound
    /// to formals the callee may write, narrowed to the paths it writes under them when it
    /// writes only there and the actual is a variable (`relax(&g)` writing `g->u[i]` writes
    /// `g.u`, not `g.n`; `step(p)` writing `q->u` writes `p->u`; Fortran `t%u`).
    pub fn call_defs(&self, s: &Stmt, callee: ProcId, args: &[SrcExpr]) -> BTreeSet<String> {
        let i = callee.0 as usize;
        let mut out = BTreeSet::new();
        if let Some(mf) = self.mod_formals.get(i) {
            for &k in mf {
                let Some(a) = args.get(k) else { continue };
                let Some(b) = a.base_var() else { continue };
                if !s.defs.contains(b) {
                    continue;
                }
                let parts = self.mod_parts.get(i).and_then(|m| m.get(&k));
                match (parts, narrowable(a)) {
                    (Some(parts), Some((_, addr))) if !parts.is_empty() => {
                        for suffix in parts {
                            match caller_suffix(suffix, addr) {
                                Some(rest) => out.insert(format!("{b}{rest}")),
                                None => out.insert(b.to_string()),
                            };
                        }
                    }
                    _ => {
                        out.insert(b.to_string());
                    }
                }
            }
        }
        if let Some(mg) = self.mod_globals.get(i) {
            out.extend(mg.iter().cloned());
        }
        out
    }

    /// Variables that any statement of `block` (nested bodies included) may write.
    pub fn block_defs(&self, prog: &Program, block: &[StmtId]) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for id in prog.walk(block) {
            if let Some(s) = prog.stmt(id) {
                out.extend(self.stmt_defs(prog, s));
                if let StmtKind::Loop(l) = &s.kind {
                    out.insert(l.var.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::has_side_effect;

    #[test]
    fn constant_steps_in_opaque_text() {
        use super::step_of;
        assert_eq!(step_of("nreq++"), Some(("nreq".into(), 1)));
        assert_eq!(step_of("-- k"), Some(("k".into(), -1)));
        assert_eq!(step_of("n += 3"), Some(("n".into(), 3)));
        assert_eq!(step_of("n -= 2"), Some(("n".into(), -2)));
        for t in ["n *= 2", "n = 4", "n += m", "a[i]++", "p->n++"] {
            assert_eq!(step_of(t), None, "{t}");
        }
    }

    #[test]
    fn side_effects_in_opaque_text() {
        for t in ["nreq++", "--k", "x = 3", "a += 2", "p->n <<= 1"] {
            assert!(has_side_effect(t), "{t}");
        }
        for t in ["a == b", "x <= y", "p->n", "!done", "a >= 2 && b != 3"] {
            assert!(!has_side_effect(t), "{t}");
        }
    }
}

/// An actual argument a callee's writes under its formal can be followed into: a plain
/// variable (`false`) or C `&x` of one (`true`), with the variable.
pub(crate) fn narrowable(a: &SrcExpr) -> Option<(&str, bool)> {
    match &a.kind {
        SrcExprKind::Var(v) if path_root(v) == v => Some((v, false)),
        SrcExprKind::Unary {
            op: frontend::UnOp::AddrOf,
            operand,
        } => match &operand.kind {
            SrcExprKind::Var(v) if path_root(v) == v => Some((v, true)),
            _ => None,
        },
        _ => None,
    }
}

/// The caller's path suffix for a callee suffix under a formal (`->nx` → `.nx` when the
/// actual is `&g`); `None` when it cannot be written so.
pub(crate) fn caller_suffix(suffix: &str, addr: bool) -> Option<String> {
    match suffix.strip_prefix("->") {
        Some(r) if addr => Some(format!(".{r}")),
        // `*rows = …` (the path `rows[0]`) with `&rows` handed in: `rows` itself
        _ if addr && suffix == "[0]" => Some(String::new()),
        _ if addr => None,
        _ => Some(suffix.to_string()),
    }
}

/// Call sites of each procedure, for the entry bindings: `callee → [(args, globals, line)]`.
pub type SiteMap = BTreeMap<ProcId, Vec<CallSite>>;

#[derive(Debug, Clone)]
pub struct CallSite {
    /// The calling procedure (a recursive callee binds only from callers off its cycle).
    pub caller: ProcId,
    pub line: u32,
    pub args: Vec<crate::value::Val>,
    pub globals: BTreeMap<String, crate::value::Val>,
    /// Per argument position: the caller's values of the paths under the argument, as the
    /// callee's formal reaches them (`&g` with `g.nx` known → `->nx`).
    pub fields: BTreeMap<usize, BTreeMap<String, crate::value::Val>>,
}
