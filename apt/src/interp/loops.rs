//! Loops: counted and while trip counts (capped when the loop may leave early), sums over
//! the enclosing loops, and the inputs a loop reads.
use std::collections::BTreeSet;

use frontend::{InputOrigin, SrcExpr, SrcExprKind, StmtId, StmtKind};
use symbolic::Expr;

use crate::cap;
use crate::geometric::Values;
use crate::procs::user_proc;
use crate::rules::trip_count;
use crate::value::{input_with_default, Val};
use crate::Attr;

use super::counters::Counted;
use super::{ActiveLoop, Analysis, Env, IndexFacts, LoopFacts};

/// A while loop's trip, its cap where it may end early, and a geometric counter's values
/// (the counter's name and [`Values`]).
pub(super) type WhileTrip = (Attr, Option<Attr>, Option<(String, Values)>);

/// The prefix of the symbols [`Analysis::unknowns_as_symbols`] stands unknown scalars for.
const UNKNOWN: &str = "unknown__";

/// A count computed with unknowns as symbols ([`Analysis::unknowns_as_symbols`]) that mentions
/// none of them: they cancel (`hi - lo` of `i0 + n` and `i0`).
pub(super) fn free_of_unknowns(trip: Attr) -> Option<Expr> {
    match trip {
        Attr::Expr(t) if t.vars().iter().all(|v| !v.starts_with(UNKNOWN)) => Some(t),
        _ => None,
    }
}

impl Analysis<'_> {
    pub(super) fn loop_symbol(&self, var: &str) -> String {
        if self.params.is_param(var) {
            format!("{var}_loop")
        } else {
            var.to_string()
        }
    }

    /// The trip count of a loop whose bounds share the unknowns that make them unresolved
    /// (`for (i = i0; i < i0 + nrows; i++)`, `i0` set in an enclosing loop: nrows; trial 15):
    /// the bounds evaluated with each unknown scalar as a symbol of its own, kept when the
    /// count mentions none of them.
    fn trip_independent_of_unknowns(&mut self, l: &frontend::Loop, env: &Env) -> Option<Expr> {
        let vars = l.lo.vars().into_iter().chain(l.hi.vars());
        let with = self.unknowns_as_symbols(vars, env)?;
        let lo = self.ev(&l.lo, &with, None);
        let hi = self.ev(&l.hi, &with, None);
        let step = self.ev(&l.step, &with, None);
        free_of_unknowns(trip_count(&lo, &hi, &step))
    }

    /// `env` with each of `vars` whose value is unknown (a scalar, not an array) as a symbol
    /// of its own; None when none is unknown.
    pub(super) fn unknowns_as_symbols(
        &self,
        vars: impl Iterator<Item = String>,
        env: &Env,
    ) -> Option<Env> {
        let mut with = env.clone();
        let mut any = false;
        for v in vars {
            if matches!(env.get(&v), Some(Val::Unknown(_))) && !self.is_array(&v) {
                with.insert(v.clone(), Val::Known(Expr::var(&format!("{UNKNOWN}{v}"))));
                any = true;
            }
        }
        any.then_some(with)
    }

    pub(super) fn counted_loop(
        &mut self,
        id: StmtId,
        l: &frontend::Loop,
        env: &mut Env,
        line: u32,
    ) {
        let lo = self.ev(&l.lo, env, None);
        let hi = self.ev(&l.hi, env, None);
        let step = self.ev(&l.step, env, None);
        let mut defined = self.procs.block_defs(self.prog, &l.body);
        let mut trip = trip_count(&lo, &hi, &step);
        if matches!(trip, Attr::Unresolved(_)) {
            if let Some(t) = self.trip_independent_of_unknowns(l, env) {
                trip = Attr::Expr(t);
            }
        }
        // DO CONCURRENT: every combination of its indices
        let mut more = Vec::new();
        for (var, xlo, xhi, xstep) in l.indices().into_iter().skip(1) {
            let x = IndexFacts {
                sym: self.loop_symbol(var),
                lo: self.ev(xlo, env, None),
                hi: self.ev(xhi, env, None),
                step: self.ev(xstep, env, None),
            };
            trip = match (trip, trip_count(&x.lo, &x.hi, &x.step)) {
                (Attr::Expr(a), Attr::Expr(b)) => Attr::Expr(a * b),
                (Attr::Expr(_), other) | (other, _) => other,
            };
            more.push(x);
        }
        // C re-evaluates the condition every iteration (Fortran fixes the count at entry)
        if self.prog.language == frontend::Language::C {
            let changed =
                l.hi.vars()
                    .into_iter()
                    .chain(l.step.vars())
                    .find(|v| self.touched(&defined, v) && !self.is_array(v));
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
        let (total, mean) = match &trip {
            Attr::Expr(t) => (self.trip_total(t), self.mean_over_loops(t)),
            _ => (None, None),
        };
        let sym = self.loop_symbol(&l.var);
        // the first index's own trip (a DO CONCURRENT's is the product of all)
        let own_trip = trip_count(&lo, &hi, &step).expr().cloned();
        self.facts.loops.insert(
            id,
            LoopFacts {
                trip,
                cap,
                total,
                mean,
                var: Some(l.var.clone()),
                sym: Some(sym.clone()),
                lo: lo.clone(),
                hi: hi.clone(),
                step: step.clone(),
                more: more.clone(),
                geo: None,
            },
        );
        self.guard_counters(&l.body, &sym, &lo, &step, env);
        defined.insert(l.var.clone());
        defined.extend(l.indices().into_iter().skip(1).map(|x| x.0.to_string()));
        let reason = format!("assigned in loop at line {line}");
        let mut inner = env.clone();
        self.set_unknown(&mut inner, defined.iter().cloned(), &reason);
        inner.insert(l.var.clone(), Val::Known(Expr::var(&sym)));
        self.stack.push(ActiveLoop {
            sym,
            lo,
            hi,
            step,
            geo: None,
            trip: own_trip,
        });
        for ((var, ..), x) in l.indices().into_iter().skip(1).zip(&more) {
            inner.insert(var.to_string(), Val::Known(Expr::var(&x.sym)));
            self.stack.push(ActiveLoop {
                sym: x.sym.clone(),
                lo: x.lo.clone(),
                hi: x.hi.clone(),
                step: x.step.clone(),
                geo: None,
                trip: trip_count(&x.lo, &x.hi, &x.step).expr().cloned(),
            });
        }
        self.block(&l.body, &mut inner);
        self.stack.truncate(self.stack.len() - 1 - more.len());
        // Conservative: the loop may run zero times, and values mention its variable.
        let before = env.clone();
        self.set_unknown(env, defined.iter().cloned(), &reason);
        self.inputs_after_loop(&[&l.body], &defined, &before, env);
        self.counters_after_loop(id, &defined, &before, env);
    }

    /// After a loop: a known scalar the nest only steps by constants (`req[nr++]`) is its
    /// value before plus the steps' total ([`super::counters`]), or unknown saying why the
    /// total is not fixed.
    pub(super) fn counters_after_loop(
        &mut self,
        id: StmtId,
        defined: &BTreeSet<String>,
        before: &Env,
        env: &mut Env,
    ) {
        for v in defined {
            let Some(Val::Known(x)) = before.get(v) else {
                continue;
            };
            if self.is_array(v) {
                continue;
            }
            match self.counted_by_loop(id, v) {
                Counted::NotCounter => {}
                Counted::Total(t) => {
                    env.insert(v.clone(), Val::Known(x + &t));
                }
                Counted::Unresolved(why) => {
                    env.insert(v.clone(), Val::unknown(why));
                }
            }
        }
    }

    /// After a loop: a variable whose one write in the loop stores a value read at run time
    /// (an option a `getopt` loop parses, `case 'n': n = atoi(optarg)`; `n =
    /// atoi(argv[++i])` in a loop over the arguments) holds that input, or the value it had
    /// before when that is a constant default (the loop may not set it).
    pub(super) fn inputs_after_loop(
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
    pub(super) fn while_trip(
        &mut self,
        w: &frontend::While,
        span: frontend::Span,
        env: &Env,
        defined: &BTreeSet<String>,
        line: u32,
    ) -> WhileTrip {
        // a C `for` whose counter has no constant step is still written `for`
        let is_for = self.prog.language == frontend::Language::C
            && self
                .sources
                .text(w.header_span)
                .trim_start()
                .starts_with("for");
        let plain = || {
            let why = if is_for {
                "for loop without a counter stepped by a constant against an unchanged bound"
            } else {
                "while loop"
            };
            (Attr::Unresolved(why.into()), None, None)
        };
        let Some(cond) = &w.cond else {
            return plain();
        };
        let prog = self.prog;
        let parts = cap::conjuncts(cond);
        // unchanged by the loop: no variable it writes, no call of the program's own routines
        let unchanged = |e: &SrcExpr| {
            e.vars().iter().all(|v| !self.touched(defined, v))
                && e.walk().iter().all(|e| match &e.kind {
                    SrcExprKind::Call { name, .. } | SrcExprKind::Index { array: name, .. } => {
                        user_proc(prog, &self.procs.names, self.cur, name).is_none()
                    }
                    _ => true,
                })
        };
        // each conjunct's counter test, where it is one
        let counters: Vec<_> = parts
            .iter()
            .map(|c| {
                let t = cap::counter_test(c)?;
                let step = cap::counter_step(prog, &self.procs, w, t.var)?;
                if self.is_array(t.var) || !unchanged(t.limit) || !unchanged(step) {
                    return None;
                }
                Some((t, step))
            })
            .collect();
        // every conjunct a counter's or a geometric counter's test (a multigrid's
        // `while (m > 4 && nlev < MAXLEV) { m /= 2; nlev++; }`): the fewest of their trips
        if parts.len() > 1 {
            if let Some(bound) = self.every_conjunct_bound(w, &parts, &counters, env, defined) {
                let bound = if w.post_test {
                    Expr::max(Expr::one(), bound)
                } else {
                    bound
                };
                let (trip, cap) = self.capped(w, span, false, line, bound);
                return (trip, cap, None);
            }
        }
        let found = counters.into_iter().flatten().next();
        let Some((t, step)) = found else {
            let no_values = |(trip, cap)| (trip, cap, None);
            return self
                .geometric_trip(w, span, env, defined, line)
                .or_else(|| self.halving_trip(w, span, env, line).map(no_values))
                .unwrap_or_else(plain);
        };
        let bound = match self.counter_trip(&t, step, env) {
            Attr::Expr(b) => b,
            // a counted while loop whose bounds are not known: say which
            Attr::Unresolved(why) => {
                return (
                    Attr::Unresolved(format!("while loop over `{}`: {why}", t.var)),
                    None,
                    None,
                )
            }
            _ => return plain(),
        };
        // `do { … } while (it < maxit)` runs its body once even when entered at the limit
        let bound = if w.post_test {
            Expr::max(Expr::one(), bound)
        } else {
            bound
        };
        let (trip, cap) = self.capped(w, span, parts.len() > 1, line, bound);
        (trip, cap, None)
    }

    /// The fewest iterations among the conjuncts of a while loop's condition, each a counter's
    /// test (`counter` finds it) or a geometric counter's ([`crate::geometric`]); `None` when
    /// one is neither or its count is not known.
    fn every_conjunct_bound(
        &mut self,
        w: &frontend::While,
        parts: &[&SrcExpr],
        counters: &[Option<(cap::CounterTest<'_>, &SrcExpr)>],
        env: &Env,
        defined: &BTreeSet<String>,
    ) -> Option<Expr> {
        let prog = self.prog;
        let mut bounds = Vec::new();
        for (c, counter) in parts.iter().zip(counters) {
            if let Some((t, step)) = counter {
                bounds.push(self.counter_trip(t, step, env).expr()?.clone());
                continue;
            }
            let is_int = |name: &str| self.is_int_scalar(name);
            let invariant = |limit: &SrcExpr| self.invariant_bound(limit, defined);
            let g = crate::geometric::recognise_test(prog, &self.procs, w, c, &is_int, &invariant)?;
            let (start, bound) = self.geometric_ends(&g, c.span, env).ok()?;
            bounds.push(g.trip(&start, &bound));
        }
        Some(Expr::min_of(bounds))
    }

    /// The iterations a counter test `t` (with the counter's `step`) allows from the counter's
    /// value in `env` to its limit.
    fn counter_trip(&mut self, t: &cap::CounterTest<'_>, step: &SrcExpr, env: &Env) -> Attr {
        let start = self.ev(&SrcExpr::var(t.var, t.limit.span), env, None);
        let hi = match self.ev(t.limit, env, None) {
            Val::Known(e) if t.inclusive => Val::Known(e),
            Val::Known(e) => Val::Known(e - Expr::one()),
            other => other,
        };
        let step = self.ev(step, env, None);
        trip_count(&start, &hi, &step)
    }

    /// A geometric counter's value at entry and its bound (0 for `v != 0`), or why they are
    /// not known.
    fn geometric_ends(
        &mut self,
        g: &crate::geometric::Geometric<'_>,
        span: frontend::Span,
        env: &Env,
    ) -> Result<(Expr, Expr), String> {
        let start = self.ev(&SrcExpr::var(&g.var, span), env, None);
        let bound = match g.limit {
            Some(l) => self.ev(l, env, None),
            None => Val::Known(Expr::zero()),
        };
        match (start, bound) {
            (Val::Known(s), Val::Known(b)) => Ok((s, b)),
            (Val::Known(_), other) | (other, _) => Err(match other {
                Val::Unknown(r) => r,
                _ => "an MPI constant".into(),
            }),
        }
    }

    /// A scalar of the current routine declared an integer (not a pointer, not an array).
    fn is_int_scalar(&self, name: &str) -> bool {
        self.prog
            .var_type(self.cur, name)
            .is_some_and(|t| t.base == frontend::BaseType::Integer && t.pointer == 0)
            && !self.is_array(name)
    }

    /// A while loop's trip `bound`: exact when nothing may end the loop before it, else
    /// unresolved with the reason ([`Self::early_exit_why`]) and `bound` as its cap.
    fn capped(
        &self,
        w: &frontend::While,
        span: frontend::Span,
        more_conjuncts: bool,
        line: u32,
        bound: Expr,
    ) -> (Attr, Option<Attr>) {
        match self.early_exit_why(w, span, more_conjuncts, line) {
            None => (Attr::Expr(bound), None),
            Some(why) => (
                Attr::Unresolved(format!("exits early ({why})")),
                Some(Attr::Expr(bound)),
            ),
        }
    }

    /// What may end the while loop `w` before its trip count: the other conjuncts of its
    /// condition (`more_conjuncts`), a `break`/`return`/… in its body ([`cap::early_exit`]).
    fn early_exit_why(
        &self,
        w: &frontend::While,
        span: frontend::Span,
        more_conjuncts: bool,
        line: u32,
    ) -> Option<String> {
        let prog = self.prog;
        let exit =
            cap::early_exit(prog, self.sources, span, &w.body, w.end_label).map(|(id, what)| {
                let at = prog.stmt(id).map_or(line, |s| self.line(s.span));
                format!("{what} at line {at}")
            });
        match (more_conjuncts, exit) {
            (false, None) => None,
            (true, None) => Some(format!("condition at line {line}")),
            (false, Some(x)) => Some(x),
            (true, Some(x)) => Some(format!("condition at line {line}, {x}")),
        }
    }

    /// The trip of a while loop whose counter is multiplied or divided by a constant each
    /// iteration ([`crate::geometric`]), with a note saying so, and the counter's values where
    /// the trip is exact; `None` when `w` is no such loop.
    fn geometric_trip(
        &mut self,
        w: &frontend::While,
        span: frontend::Span,
        env: &Env,
        defined: &BTreeSet<String>,
        line: u32,
    ) -> Option<WhileTrip> {
        let prog = self.prog;
        let is_int = |name: &str| self.is_int_scalar(name);
        let invariant = |limit: &SrcExpr| self.invariant_bound(limit, defined);
        let g = crate::geometric::recognise(prog, &self.procs, w, &is_int, &invariant)?;
        let (start, bound) = match self.geometric_ends(&g, span, env) {
            Ok(ends) => ends,
            Err(why) => {
                return Some((
                    Attr::Unresolved(format!(
                        "`{}` is multiplied or divided by a constant each iteration, but its start or bound is unresolved: {why}",
                        g.var
                    )),
                    None,
                    None,
                ));
            }
        };
        let trip = g.trip(&start, &bound);
        let how = if g.up { "multiplies" } else { "divides" };
        // a nest inside is summed over the counter's values ([`Values::sum`]): say what that takes
        let nest = prog.walk(&w.body).into_iter().any(|id| {
            prog.stmt(id)
                .is_some_and(|s| matches!(s.kind, StmtKind::Loop(_) | StmtKind::While(_)))
        });
        let takes = if nest && g.factor.log2().fract() == 0.0 {
            format!(
                "; the work nested in it is summed over `{}` = {start}, {}, … as if its bound were the start times a power of {}",
                g.var,
                if g.up { &start * Expr::num(g.factor) } else { &start / Expr::num(g.factor) },
                g.factor
            )
        } else {
            String::new()
        };
        self.notes.insert(
            line,
            format!(
                "loop at line {line} is geometric: each iteration {how} `{}` by {}, so it runs {trip} times{takes}",
                g.var, g.factor
            ),
        );
        let (trip_attr, cap) = self.capped(w, span, g.more_conjuncts, line, trip.clone());
        let values = (cap.is_none() && matches!(trip_attr, Attr::Expr(_)))
            .then(|| (g.var.clone(), Values::of(&g, start, trip)));
        Some((trip_attr, cap, values))
    }

    /// `limit` keeps its value through a loop that writes `defined`: no variable it reads is
    /// written there, none is an array, and it calls no user procedure.
    fn invariant_bound(&self, limit: &SrcExpr, defined: &BTreeSet<String>) -> bool {
        let prog = self.prog;
        limit
            .vars()
            .iter()
            .all(|v| !self.touched(defined, v) && !self.is_array(v))
            && limit.walk().iter().all(|e| match &e.kind {
                SrcExprKind::Call { name, .. } | SrcExprKind::Index { array: name, .. } => {
                    user_proc(prog, &self.procs.names, self.cur, name).is_none()
                }
                _ => true,
            })
    }

    /// The trip of a while loop that is a binary search ([`crate::halving`]): at most
    /// ⌈log2(n + 2 − k)⌉ with n = hi − lo at entry (a note says so, and whether the data
    /// can make it one fewer); the cap of a search that may end early; `None` when `w` is
    /// no binary search.
    fn halving_trip(
        &mut self,
        w: &frontend::While,
        span: frontend::Span,
        env: &Env,
        line: u32,
    ) -> Option<(Attr, Option<Attr>)> {
        let prog = self.prog;
        let cur = self.cur;
        let is_int = |name: &str| {
            prog.var_type(cur, name)
                .is_some_and(|t| t.base == frontend::BaseType::Integer && t.pointer == 0)
                && !matches!(
                    prog.decl(cur, name).map(|d| &d.kind),
                    Some(frontend::DeclKind::Array { .. })
                )
        };
        let h = crate::halving::recognise(prog, &self.procs, w, &is_int)?;
        let lo = self.ev(&SrcExpr::var(&h.lo, span), env, None);
        let hi = self.ev(&SrcExpr::var(&h.hi, span), env, None);
        let (Val::Known(lo), Val::Known(hi)) = (lo, hi) else {
            return Some((
                Attr::Unresolved("binary search over an interval of unknown length".into()),
                None,
            ));
        };
        let n = &hi - &lo;
        let bound = h.bound(&n);
        let fewer = if h.within_one {
            " (one fewer for some data)"
        } else {
            ""
        };
        self.notes.insert(
            line,
            format!(
                "while loop at line {line} is a binary search: each iteration halves `{} - {}` ({n} at entry), so it runs at most {bound} times{fewer}",
                h.hi, h.lo
            ),
        );
        Some(self.capped(w, span, h.more_conjuncts, line, bound))
    }

    /// Σ of `trip` over the enclosing loops whose symbols it mentions, innermost first.
    pub(super) fn trip_total(&self, trip: &Expr) -> Option<Attr> {
        match self.sum_over_loops(trip, &Expr::one()) {
            Ok(None) => None,
            Ok(Some((total, _))) => Some(Attr::Expr(total)),
            Err(why) => Some(Attr::Unresolved(why)),
        }
    }

    /// The mean of `e` over the iterations of the enclosing loops whose symbols it mentions
    /// (a message of `min(K, NZ - kb)` planes: `NZ/(floor((NZ - 1)/K) + 1)`): its sum over
    /// them divided by their iterations. `None` when it mentions none.
    pub(super) fn mean_over_loops(&self, e: &Expr) -> Option<Attr> {
        match self.sum_over_loops(e, &Expr::one()) {
            Ok(None) => None,
            Ok(Some((total, count))) => Some(Attr::Expr(total / count)),
            Err(why) => Some(Attr::Unresolved(why)),
        }
    }

    /// Σ of `e`, and of `unit` over the same iterations, over the enclosing loops whose
    /// symbols `e` mentions (or its sum so far: an inner loop's bounds in an outer one's
    /// variable), innermost first; `None` when `e` mentions none.
    ///
    /// A loop between whose trip mentions a loop further out that is summed (an FFT's blocks
    /// `for (s = 0; s < n; s += len)` between its butterflies `k < len/2` and the levels over
    /// `len`) multiplies both first: the butterflies' mean per entry is their total over the
    /// blocks' entries, not the mean of `len/2` over the levels.
    fn sum_over_loops(&self, e: &Expr, unit: &Expr) -> Result<Option<(Expr, Expr)>, String> {
        let mut total = e.clone();
        let mut count = unit.clone();
        let mut mentioned = false;
        for (at, l) in self.stack.iter().enumerate().rev() {
            let outer = &self.stack[..at];
            if !total.contains_var(&l.sym) && !count.contains_var(&l.sym) {
                let summed_further = outer.iter().any(|o| total.contains_var(&o.sym));
                let between = l
                    .trip
                    .as_ref()
                    .filter(|t| summed_further && outer.iter().any(|o| t.contains_var(&o.sym)));
                if let Some(t) = between {
                    total = total * t;
                    count = count * t;
                }
                continue;
            }
            mentioned = true;
            total = self.sum_over_loop(&total, l)?;
            count = self.sum_over_loop(&count, l)?;
        }
        Ok(mentioned.then_some((total, count)))
    }

    /// Σ of `e` over the iterations of the active loop `l`.
    pub(super) fn sum_over_loop(&self, e: &Expr, l: &ActiveLoop) -> Result<Expr, String> {
        if let Some(g) = &l.geo {
            return g.sum(e, &l.sym);
        }
        let (Some(lo), Some(hi)) = (l.lo.known(), l.hi.known()) else {
            return Err(format!(
                "bounds of the loop over `{}` are unresolved",
                l.sym
            ));
        };
        let Some(step) = l.step.known() else {
            return Err(format!("step of the loop over `{}` is unresolved", l.sym));
        };
        let sum = match step.as_const() {
            Some(1.0) => symbolic::sum_over(e, &l.sym, lo, hi).ok_or(None),
            Some(-1.0) => symbolic::sum_over(e, &l.sym, hi, lo).ok_or(None),
            // a stride (`do l0 = 1, n, nb`), tiles included
            _ => crate::strided::sum_strided(e, &l.sym, lo, hi, step).map_err(|e| match e {
                crate::strided::StridedError::Trip(r) => Some(r),
                crate::strided::StridedError::NoClosedForm => None,
            }),
        };
        sum.map_err(|r| match r {
            Some(r) => format!("trip of the loop over `{}`: {r}", l.sym),
            None => format!("no closed form for the sum over `{}`", l.sym),
        })
    }
}

impl Analysis<'_> {
    /// The IFs of a counted loop's `body` that a counter guards: `if (c < B)` (or `<=`) whose
    /// taken arm steps `c` by one (`c++`, `c = c + 1`) where nothing else in the body assigns
    /// it, `B` not assigned in the body either. Each iteration takes the arm while `c` < `B`,
    /// and `c` counts the iterations taken, so the guard holds exactly for the iterations
    /// `k < B - c0` (k = 0, 1, … the index's, c0 the counter at the loop's entry): the
    /// counter reads `sym - lo + c0` in the guard (trial 29's farm primes `min(P - 1, NTASK)`
    /// workers, `if (sent < ntask) { …; sent++; }` in `for (w = 1; w < size; w++)`, read as
    /// taken in every iteration from runs that all had NTASK >= P - 1).
    pub(super) fn guard_counters(
        &mut self,
        body: &[StmtId],
        sym: &str,
        lo: &Val,
        step: &Val,
        env: &Env,
    ) {
        let (Val::Known(lo), Val::Known(step)) = (lo, step) else {
            return;
        };
        if step.as_const() != Some(1.0) {
            return;
        }
        let prog = self.prog;
        let all = prog.walk(body);
        for &id in body {
            // a loop analysed again (a call's summary, another caller) decides afresh
            self.guards.remove(&id);
            let Some(StmtKind::If(i)) = prog.stmt(id).map(|s| &s.kind) else {
                continue;
            };
            let Some(arm) = i.arms.first() else { continue };
            let SrcExprKind::Binary { op, lhs, rhs } = &arm.cond.kind else {
                continue;
            };
            if !matches!(op, frontend::BinOp::Lt | frontend::BinOp::Le) {
                continue;
            }
            let SrcExprKind::Var(c) = &lhs.kind else {
                continue;
            };
            // the arm's one step of c, at its top level
            let steps: Vec<StmtId> = arm
                .body
                .iter()
                .copied()
                .filter(|s| prog.stmt(*s).is_some_and(|s| steps_by_one(&s.kind, c)))
                .collect();
            let [step_id] = steps.as_slice() else {
                continue;
            };
            let bound_vars: Vec<&str> = rhs.walk().iter().filter_map(|e| e.base_var()).collect();
            let others = all.iter().any(|s| {
                prog.stmt(*s).is_some_and(|st| {
                    (*s != *step_id && st.defs.contains(c))
                        || bound_vars.iter().any(|v| st.defs.contains(*v))
                })
            });
            if others {
                continue;
            }
            let Some(Val::Known(c0)) = env.get(c) else {
                continue;
            };
            let at = Expr::var(sym) - lo.clone() + c0.clone();
            self.guards.insert(id, (c.clone(), at));
        }
    }
}

/// Whether `k` is `c = c + 1` (C's `c++`, `c += 1`).
fn steps_by_one(k: &StmtKind, c: &str) -> bool {
    let StmtKind::Assign(a) = k else { return false };
    if !matches!(&a.target.kind, SrcExprKind::Var(t) if t == c) {
        return false;
    }
    match &a.value.kind {
        SrcExprKind::Binary {
            op: frontend::BinOp::Add,
            lhs,
            rhs,
        } => {
            let is_c = |e: &SrcExpr| matches!(&e.kind, SrcExprKind::Var(v) if v == c);
            (is_c(lhs) && rhs.as_int() == Some(1)) || (is_c(rhs) && lhs.as_int() == Some(1))
        }
        _ => false,
    }
}
