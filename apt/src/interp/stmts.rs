//! The transfer function of each statement kind: assignments, input, calls, while loops,
//! branches (merging the arms that fall through), opaque statements and ALLOCATE.

use frontend::{path_root, MpiOp, SrcExpr, SrcExprKind, StmtId, StmtKind, UnOp};
use symbolic::Expr;

use crate::pointers::pointer_call;
use crate::procs::user_proc;
use crate::rules::merge;
use crate::value::{indicator_choice, min_max, or_null, pure_test, short, Val};
use crate::Attr;

use super::scope::Cx;
use super::summary::CallAt;
use super::{ActiveLoop, Analysis, Cond, Env, LoopFacts};

impl Analysis<'_> {
    /// The value `var` reads at `line` from `origin`: its parameter, the number the `--stdin`
    /// template fixes there, or unknown (a file's).
    pub(super) fn input_value(
        &mut self,
        origin: &frontend::InputOrigin,
        var: &str,
        line: u32,
    ) -> Val {
        match self.params.input(origin, var, line) {
            Some(p) => Val::Known(Expr::var(&p)),
            None => match self.params.literal(origin, var) {
                Some(x) => Val::Known(Expr::num(x)),
                None => Val::unknown(format!("read from a file at line {line}")),
            },
        }
    }

    /// Remembers the program's truncated value of `x = value` where it differs from `v`, the
    /// analysis's (a division without calls, whose evaluation has no effects to repeat).
    fn floored_store(&mut self, x: &str, v: &Val, value: &SrcExpr, env: &Env) {
        self.floored.remove(x);
        let Val::Known(held) = v else {
            return;
        };
        let parts = value.walk();
        let divides = parts.iter().any(|e| {
            matches!(
                e.kind,
                SrcExprKind::Binary {
                    op: frontend::BinOp::Div,
                    ..
                }
            )
        });
        let calls = parts
            .iter()
            .any(|e| matches!(e.kind, SrcExprKind::Call { .. }));
        if !divides || calls {
            return;
        }
        self.floor_divisions = true;
        let exact = self.ev(value, env, Some(x));
        self.floor_divisions = false;
        if let Val::Known(f) = exact {
            if f != *held {
                self.floored.insert(x.to_string(), (held.clone(), f));
            }
        }
    }

    pub(super) fn stmt_kind(&mut self, id: StmtId, s: &frontend::Stmt, env: &mut Env, line: u32) {
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
                        // a real stored in an integer variable is truncated, as a cast is
                        let v = crate::value::stored_as(a.target.ty, v, &a.value);
                        if !matches!(a.target.kind, SrcExprKind::Var(_)) {
                            // `a[0] = …` through a pointer `a`: as before, `a` itself (not a
                            // struct or derived type held by value: `d.dims[0] = 0` changes
                            // `d.dims[0]` alone, trial 17's stencil lost every member of `d`;
                            // nor a member reached through a pointer: `g->dims[0] = 0` changes
                            // `g->dims[0]` alone, trial 22's Jacobi lost `g->dims[1]` before
                            // its MPI_Dims_create)
                            let scalars: Vec<String> = self
                                .scalars(&s.defs)
                                .into_iter()
                                .filter(|v| *v == path_root(v))
                                .filter(|v| {
                                    self.prog
                                        .decl(self.cur, path_root(v))
                                        .is_none_or(|d| d.ty.pointer > 0)
                                })
                                .collect();
                            self.set_unknown(env, scalars, &reason);
                        }
                        self.kill_paths(env, &x, &reason);
                        self.note_store(&x, &v);
                        self.floored_store(&x, &v, &a.value, env);
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
                    let v = self.input_value(&inp.origin, &x, line);
                    self.read_into.insert(x.clone(), v.clone());
                    env.insert(x, v);
                }
            }
            StmtKind::Mpi(m) => self.mpi(id, m, env, line),
            StmtKind::Call(c) => {
                // a computing library routine: an implicit loop, its work from the arguments
                // as they are before the call
                self.array_op(id, s, env);
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
                        None => {
                            // a computing library routine never writes its sizes (BLAS
                            // declares them input; C passes them by value or as `const`)
                            let sizes = crate::library::sizes_read(prog, s);
                            let defs = s.defs.iter().filter(|d| !sizes.contains(*d)).cloned();
                            self.set_unknown(env, defs.collect::<Vec<_>>(), &reason)
                        }
                    },
                }
            }
            StmtKind::Loop(l) => self.counted_loop(id, l, env, line),
            StmtKind::While(w) => {
                self.block(&w.init, env);
                let mut defined = self.procs.block_defs(prog, &w.body);
                defined.extend(self.procs.block_defs(prog, &w.update));
                let reason = format!("assigned in loop at line {line}");
                let (trip, cap, geo) = self.while_trip(w, s.span, env, &defined, line);
                let (total, mean) = match &trip {
                    Attr::Expr(t) => (self.trip_total(t), self.mean_over_loops(t)),
                    _ => (None, None),
                };
                let before = env.clone();
                self.set_unknown(env, defined.iter().cloned(), &reason);
                if let Some(c) = &w.cond {
                    let _ = self.ev(c, env, None);
                }
                // a geometric counter is a symbol in the body, its values known
                // ([`crate::geometric::Values`]): the work nested in it sums over them
                let counter = geo.map(|(var, values)| (self.loop_symbol(&var), var, values));
                self.facts.loops.insert(
                    id,
                    LoopFacts {
                        trip,
                        cap,
                        total,
                        mean,
                        var: counter.as_ref().map(|(_, v, _)| v.clone()),
                        sym: counter.as_ref().map(|(sym, ..)| sym.clone()),
                        lo: Val::unknown("while loop"),
                        hi: Val::unknown("while loop"),
                        step: Val::unknown("while loop"),
                        more: Vec::new(),
                        geo: counter.as_ref().map(|(.., g)| g.clone()),
                    },
                );
                let mut inner = env.clone();
                if let Some((sym, var, values)) = counter.clone() {
                    inner.insert(var, Val::Known(Expr::var(&sym)));
                    self.stack.push(ActiveLoop {
                        sym,
                        lo: Val::unknown("geometric loop"),
                        hi: Val::unknown("geometric loop"),
                        step: Val::unknown("geometric loop"),
                        trip: Some(values.trip.clone()),
                        geo: Some(values),
                    });
                }
                self.block(&w.body, &mut inner);
                if counter.is_some() {
                    self.stack.pop();
                }
                self.block(&w.update, &mut inner);
                self.set_unknown(env, defined.iter().cloned(), &reason);
                self.inputs_after_loop(&[&w.body, &w.update], &defined, &before, env);
                self.counters_after_loop(id, &defined, &before, env);
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
                let mut conds: Vec<Cond> = i.arms.iter().map(|a| self.cond(&a.cond, env)).collect();
                // a guard on a counter its arm steps: in the loop's index
                if let (Some((c, at)), Some(first)) =
                    (self.guards.get(&id).cloned(), i.arms.first())
                {
                    let mut e = env.clone();
                    e.insert(c, Val::Known(at));
                    conds[0] = self.cond(&first.cond, &e);
                }
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
                                .then(|| {
                                    min_max(*op, x, y, a, b)
                                        .or_else(|| or_null(t, a, b))
                                        .or_else(|| {
                                            let arm = i.arms.first()?;
                                            indicator_choice(&arm.cond, t, a, b)
                                        })
                                })
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
                // a WHERE: an array statement over its first target's elements
                self.array_op(id, s, env);
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

    /// A Fortran array-syntax statement or a computing library call: an implicit loop whose
    /// trip is the number of elements it visits or the call's work ([`crate::array`]).
    pub(super) fn array_op(&mut self, id: StmtId, s: &frontend::Stmt, env: &Env) {
        let prog = self.prog;
        let Some(op) = frontend::array_op(prog, s) else {
            return;
        };
        let sources = self.sources;
        let mut trip = {
            let mut ev = |e: &SrcExpr| self.ev(e, env, None);
            crate::array::extent(prog, sources, s.proc, &op, &mut ev)
        };
        // a section whose bounds share the unknowns that make them unresolved: `p(a+1:a+nbw)`
        // with `a` read from an array is nbw long (trial 21)
        if matches!(trip, Attr::Unresolved(_)) {
            let vars = op.shapes.iter().flat_map(|e| e.vars());
            if let Some(with) = self.unknowns_as_symbols(vars, env) {
                let mut ev = |e: &SrcExpr| self.ev(e, &with, None);
                let again = crate::array::extent(prog, sources, s.proc, &op, &mut ev);
                if let Some(t) = super::loops::free_of_unknowns(again) {
                    trip = Attr::Expr(t);
                }
            }
        }
        let (total, mean) = match &trip {
            Attr::Expr(t) => (self.trip_total(t), self.mean_over_loops(t)),
            _ => (None, None),
        };
        let none = || Val::unknown("array syntax");
        self.facts.loops.insert(
            id,
            LoopFacts {
                trip,
                cap: None,
                total,
                mean,
                var: None,
                sym: None,
                lo: none(),
                hi: none(),
                step: none(),
                more: Vec::new(),
                geo: None,
            },
        );
    }

    /// Whether control never falls out of the end of `block`: one of its statements stops
    /// the process or returns (what follows it is dead).
    pub(super) fn terminates(&self, block: &[StmtId]) -> bool {
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
}
