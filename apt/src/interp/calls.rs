//! Call sites: the argument, global and path values each call binds in its callee (loop
//! variables scrubbed, assumed-shape extents), and calls through function pointers.
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use frontend::{
    path_under, DeclKind, ProcId, Sources, Span, SrcExpr, SrcExprKind, StmtId, StmtKind, UnOp,
};
use symbolic::Expr;

use crate::pointers::PointerCall;
use crate::procs::CallSite;
use crate::value::{short, Val};

use super::{Analysis, Env};

/// The text of the statement a declarator stands in, from its start up to the declarator
/// (continuation lines followed back), lower-cased: where Fortran writes its attributes
/// (`real, allocatable :: a(:)`).
pub(super) fn statement_head(sources: &Sources, at: Span) -> String {
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

/// The location an actual argument hands to the callee for its paths: `&g` → (`g`, true),
/// `g`/`ibuf`/`p` → (name, false), `&a[0]` → (`a`, false).
pub(super) fn arg_root(e: &SrcExpr) -> Option<(String, bool)> {
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
pub(super) fn callee_suffix(rest: &str, addr: bool) -> String {
    match rest.strip_prefix('.') {
        Some(r) if addr => format!("->{r}"),
        _ => rest.to_string(),
    }
}

impl Analysis<'_> {
    /// A loop symbol, scrubbed from values leaving its scope.
    pub(super) fn loop_symbols(&self) -> BTreeSet<&str> {
        self.stack.iter().map(|l| l.sym.as_str()).collect()
    }

    /// Values bound across a call must not mention the caller's loop variables.
    pub(super) fn scrub(&self, v: &Val, line: u32) -> Val {
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

    pub(super) fn record_call(
        &mut self,
        callee: ProcId,
        args: Vec<Val>,
        exprs: &[SrcExpr],
        env: &Env,
        line: u32,
    ) {
        // an argument in the caller's loop variables enters the callee as its mean over those
        // loops (trial 17: `jacobi_sweep(…, hw - 1 - s)` for s = 0..hw-1, whose row loops run
        // over the halo it is handed, were unresolved): the callee's counts are the mean
        // iteration's, exact for counts linear in it
        let args = args
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Val::Known(e) => match self.mean_over_loops(e) {
                    Some(crate::Attr::Expr(m)) => {
                        let note = format!(
                            "the call at line {line} hands its argument {} over the enclosing loops' iterations ({}): the callee is analysed with its mean, {}",
                            k + 1,
                            e,
                            m
                        );
                        self.notes.entry(line).or_insert(note);
                        Val::Known(m)
                    }
                    _ => self.scrub(v, line),
                },
                _ => self.scrub(v, line),
            })
            .collect();
        let mut globals = BTreeMap::new();
        // the caller's globals, and its variables the callee sees by host association
        let hosted = self.prog.proc(callee).and_then(|p| p.host) == Some(self.cur);
        let names: BTreeSet<String> = std::iter::once(self.cur)
            .chain(hosted.then_some(callee))
            .filter_map(|p| self.procs.globals.get(p.0 as usize))
            .flatten()
            .cloned()
            .collect();
        for g in &names {
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
    pub(super) fn assumed_shapes(
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

    /// A call through a function pointer: each target is called with the arguments (its
    /// formals bound from here), what any of them writes is unknown after it, and the chain
    /// assignment's conditions (evaluated where it stood) are the branch's. A pointer whose
    /// values are not all known procedures is noted: its callee's work is left out.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pointer_call(
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
}
