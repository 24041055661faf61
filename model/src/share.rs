//! Branch shares from the source: an IF whose condition reads only the rank (with P and
//! constants) is taken by a share of the ranks that reach it that is a closed form in P
//! (`MOD(MYID, 2) == 0`: ceil(P/2)/P), and one that tests a loop index through `mod` or a bound
//! by a share of the loop's iterations (`MOD(ISTEP, NOUT) == 0` over ISTEP = 1..NSTEP:
//! floor(NSTEP/NOUT)/NSTEP; `ISTEP == 1`: 1/NSTEP). Each closed form is checked by counting the
//! condition exactly at many P (or parameter values); the build takes it when it also gives
//! every traced share.

use std::collections::{BTreeMap, BTreeSet};

use apt::{Apt, Attr, Node, NodeData};
use symbolic::{Atom, Expr};

use crate::quantity::Samples;

/// What encloses a node in its routine, outermost first.
#[derive(Debug, Clone)]
pub enum Outer {
    /// An IF arm: its condition (empty when unresolved), the symbols it reads, and whether the
    /// node sits where the condition holds (`children`) or not (`else_children`).
    If {
        cond: String,
        symbolic: bool,
        vars: BTreeSet<String>,
        taken: bool,
    },
    /// A loop: its variable (none for while loops) and trip count per entry.
    Loop { var: Option<String>, trip: Attr },
}

/// [`Outer`] lists of every node, by site.
pub fn enclosing(apt: &Apt) -> BTreeMap<u32, Vec<Outer>> {
    fn go(n: &Node, path: &mut Vec<Outer>, out: &mut BTreeMap<u32, Vec<Outer>>) {
        out.insert(n.site.0, path.clone());
        let arms: [(&[Node], bool); 2] = [(&n.children, true), (&n.else_children, false)];
        for (nodes, taken) in arms {
            let pushed = match &n.data {
                NodeData::If(i) => {
                    path.push(Outer::If {
                        cond: i.cond.clone(),
                        symbolic: i.unresolved.is_none() && !i.cond.is_empty(),
                        vars: i.vars.clone(),
                        taken,
                    });
                    true
                }
                NodeData::Loop(l) => {
                    path.push(Outer::Loop {
                        var: l.var.clone(),
                        trip: l.trip.clone(),
                    });
                    true
                }
                _ => false,
            };
            for c in nodes {
                go(c, path, out);
            }
            if pushed {
                path.pop();
            }
        }
    }
    let mut out = BTreeMap::new();
    for r in &apt.routines {
        go(r, &mut Vec::new(), &mut out);
    }
    out
}

/// Whether the program is Fortran (apt's language is the front end's type, which this crate
/// does not depend on: read through its name).
pub fn is_fortran(apt: &Apt) -> bool {
    format!("{:?}", apt.language) == "Fortran"
}

/// A branch share derived from the source.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceShare {
    pub expr: Expr,
    /// What it is the mean over (`rank = 0..P-1`, `istep = 1..NSTEP`).
    pub over: String,
}

/// The facts [`source_share`] reads besides the condition.
pub struct Context<'a> {
    /// Named constants of the program (substituted into conditions and trip counts).
    pub consts: &'a BTreeMap<String, Expr>,
    /// The run parameters (P among them when the runs set it).
    pub params: &'a [String],
    /// Fortran: a DO loop's index starts at 1 more often than at 0 (C: the other way round);
    /// the order in which the two starts are tried when the traces cannot tell them apart.
    pub fortran: bool,
}

/// The share of evaluations that take the IF `cond` (its enclosing arms and loops `outer`),
/// from the source, when it is a mean over the ranks or over a loop's index that matches every
/// traced share in `traced` (or there is none).
pub fn source_share(
    cond: &str,
    outer: &[Outer],
    ctx: &Context<'_>,
    traced: &Samples,
) -> Option<SourceShare> {
    let c = Comparison::parse(cond)?.subs(ctx.consts);
    let vars = c.vars();
    let fits = |e: &Expr| matches_traced(e, traced);
    if vars.contains(apt::params::RANK) {
        let (e, guarded) = rank_share(&c, outer, ctx, &traced_ps(traced))?;
        return fits(&e).then(|| SourceShare {
            expr: e,
            over: if guarded {
                "the ranks that reach it".into()
            } else {
                "rank = 0..P-1".into()
            },
        });
    }
    // an index of an enclosing loop: the innermost one the condition reads
    let (at, var, trip) = outer.iter().enumerate().rev().find_map(|(k, o)| match o {
        Outer::Loop {
            var: Some(v),
            trip: Attr::Expr(t),
        } => {
            let sym = [v.clone(), format!("{v}_loop")]
                .into_iter()
                .find(|s| vars.contains(s))?;
            Some((k, sym, t.subs_all(ctx.consts)))
        }
        _ => None,
    })?;
    let known = |v: &String| *v == var || ctx.params.contains(v);
    if !vars.iter().all(known) || !trip.vars().iter().all(|v| ctx.params.contains(v)) {
        return None;
    }
    // a step other than 1 rounds the count (ceil((hi - lo + 1)/s)): the index is not every
    // whole number of its range, which the counts below assume
    let stepped = trip.terms().iter().any(|t| {
        t.factors()
            .iter()
            .any(|(a, _)| matches!(a, Atom::Floor(_) | Atom::Ceil(_)))
    });
    if stepped {
        return None;
    }
    // an arm between the loop and the IF that also tests the index selects iterations
    if outer[at..].iter().any(|o| match o {
        Outer::If { vars, .. } => vars.contains(&var),
        Outer::Loop { .. } => false,
    }) {
        return None;
    }
    let starts: [i64; 2] = if ctx.fortran { [1, 0] } else { [0, 1] };
    starts.into_iter().find_map(|lo| {
        let e = index_share(&c, &var, lo, &trip, traced)?;
        fits(&e).then(|| SourceShare {
            expr: e,
            over: format!("{var} = {lo}..{}", trip.clone() + Expr::int(lo - 1)),
        })
    })
}

/// Whether `e` gives every traced share (to 1e-9).
fn matches_traced(e: &Expr, s: &Samples) -> bool {
    s.points.iter().zip(&s.values).all(|(row, v)| {
        let at = |name: &str| s.params.iter().position(|p| p == name).map(|k| row[k]);
        e.eval(&at).is_ok_and(|x| (x - v).abs() <= 1e-9)
    })
}

fn traced_ps(s: &Samples) -> Vec<i64> {
    let Some(k) = s.params.iter().position(|p| p == "P") else {
        return Vec::new();
    };
    s.points.iter().map(|r| r[k].round() as i64).collect()
}

/// `lhs op rhs` with symbolic sides.
#[derive(Debug, Clone)]
struct Comparison {
    lhs: Expr,
    op: Op,
    rhs: Expr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Le,
    Ge,
    Lt,
    Gt,
}

impl Comparison {
    /// None for a compound condition or a side that does not parse.
    fn parse(cond: &str) -> Option<Comparison> {
        const OPS: [(&str, Op); 6] = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        if cond.contains("&&") || cond.contains("||") || cond.replace("!=", "").contains('!') {
            return None;
        }
        let (text, op, at) = OPS
            .iter()
            .find_map(|(t, op)| cond.find(t).map(|at| (*t, *op, at)))?;
        let (l, r) = (&cond[..at], &cond[at + text.len()..]);
        if OPS.iter().any(|(t, _)| r.contains(t)) {
            return None;
        }
        Some(Comparison {
            lhs: symbolic::parse(l.trim()).ok()?,
            op,
            rhs: symbolic::parse(r.trim()).ok()?,
        })
    }

    fn subs(self, consts: &BTreeMap<String, Expr>) -> Comparison {
        Comparison {
            lhs: self.lhs.subs_all(consts),
            rhs: self.rhs.subs_all(consts),
            ..self
        }
    }

    fn vars(&self) -> BTreeSet<String> {
        let mut v = self.lhs.vars();
        v.extend(self.rhs.vars());
        v
    }

    /// Its truth at integer values of its symbols.
    fn holds(&self, at: &dyn Fn(&str) -> Option<f64>) -> Option<bool> {
        let d = self.rhs.eval(at).ok()? - self.lhs.eval(at).ok()?;
        const EPS: f64 = 1e-9;
        Some(match self.op {
            Op::Eq => d.abs() < EPS,
            Op::Ne => d.abs() >= EPS,
            Op::Lt => d > EPS,
            Op::Le => d > -EPS,
            Op::Gt => d < -EPS,
            Op::Ge => d < EPS,
        })
    }

    /// Divisors K of `floor(x/K)` or `ceil(x/K)` in either side (`floor(0.5*rank)`: 2).
    fn divisors_of(&self, x: &str) -> Vec<Expr> {
        let mut out = Vec::new();
        for side in [&self.lhs, &self.rhs] {
            for t in side.terms() {
                for (a, _) in t.factors() {
                    if let Some(k) = divisor(a, x) {
                        if !out.contains(&k) {
                            out.push(k);
                        }
                    }
                }
            }
        }
        out
    }
}

/// K of an atom `floor(x/K + a)` or `ceil(x/K + a)`, `a` free of `x`.
fn divisor(a: &Atom, x: &str) -> Option<Expr> {
    let (Atom::Floor(arg) | Atom::Ceil(arg)) = a else {
        return None;
    };
    let xe = Expr::var(x);
    let inv: Expr = arg
        .terms()
        .iter()
        .map(|t| t.monomial() * Expr::num(t.coef()))
        .filter(|m| m.contains_var(x))
        .map(|m| m / &xe)
        .sum();
    (!inv.is_zero() && !inv.contains_var(x)).then(|| inv.powi(-1))
}

/// Ranks counted for the closed forms: every P up to 64 and the traced ones up to 2^14.
fn rank_grid(traced: &[i64]) -> Vec<i64> {
    let mut ps: BTreeSet<i64> = (1..=64).collect();
    ps.extend(traced.iter().copied().filter(|p| (1..=1 << 14).contains(p)));
    ps.into_iter().collect()
}

/// The mean over the ranks that reach the IF (those where every enclosing arm that reads the
/// rank is taken as the path to it says) of a condition on the rank, P and constants; beside
/// it, whether some enclosing arm reads the rank.
fn rank_share(
    c: &Comparison,
    outer: &[Outer],
    ctx: &Context<'_>,
    traced: &[i64],
) -> Option<(Expr, bool)> {
    let rank = apt::params::RANK;
    let on_rank = |v: &BTreeSet<String>| v.iter().all(|x| x == rank || x == "P");
    if !on_rank(&c.vars()) {
        return None;
    }
    let mut guards: Vec<(Comparison, bool)> = Vec::new();
    for o in outer {
        match o {
            Outer::If {
                cond,
                symbolic,
                vars,
                taken,
            } if vars.contains(rank) => {
                if !symbolic {
                    return None;
                }
                let g = Comparison::parse(cond)?.subs(ctx.consts);
                if !on_rank(&g.vars()) {
                    return None;
                }
                guards.push((g, *taken));
            }
            // a loop whose count differs between ranks weighs their evaluations unequally
            Outer::Loop { trip, .. } => {
                if trip.expr().is_some_and(|t| t.contains_var(rank)) {
                    return None;
                }
            }
            Outer::If { .. } => {}
        }
    }
    let conds: Vec<&Comparison> = std::iter::once(c)
        .chain(guards.iter().map(|(g, _)| g))
        .collect();
    let mut ks: Vec<Expr> = vec![Expr::int(2)];
    for k in conds.iter().flat_map(|g| g.divisors_of(rank)) {
        // a whole constant, or an extent in P (`rank mod dims(P, 2, 1)`: a grid column)
        let usable = match k.as_const() {
            Some(v) => v.fract() == 0.0 && (2.0..=64.0).contains(&v),
            None => k.vars().iter().all(|v| v == "P"),
        };
        if usable && !ks.contains(&k) {
            ks.push(k);
        }
    }
    // every extent of a grid the conditions read (`floor(rank/dims(P, 2, 1)) >= 1`, a grid
    // row below the first, is counted through dims(P, 2, 1) itself)
    for g in &conds {
        for k in grid_extents(&g.lhs).into_iter().chain(grid_extents(&g.rhs)) {
            if !ks.contains(&k) {
                ks.push(k);
            }
        }
    }
    let grid = rank_grid(traced);
    // extents that divide P wherever counted (a grid's): P/K is whole, no rounding needed
    let exact: Vec<Expr> = ks
        .iter()
        .filter(|k| k.as_const().is_none() && divides_p(k, &grid))
        .cloned()
        .collect();
    let mut reach = Vec::with_capacity(grid.len());
    let mut take = Vec::with_capacity(grid.len());
    for &p in &grid {
        let (mut n, mut t) = (0i64, 0i64);
        for r in 0..p {
            let at = |v: &str| match v {
                "P" => Some(p as f64),
                x if x == rank => Some(r as f64),
                _ => None,
            };
            let mut reached = true;
            for (g, taken) in &guards {
                reached &= g.holds(&at)? == *taken;
            }
            if reached {
                n += 1;
                t += i64::from(c.holds(&at)?);
            }
        }
        reach.push(n);
        take.push(t);
    }
    let reached: Vec<usize> = (0..grid.len()).filter(|&k| reach[k] > 0).collect();
    if reached.is_empty() {
        return None;
    }
    let guarded = !guards.is_empty();
    if reached.iter().all(|&k| take[k] == reach[k]) {
        return Some((Expr::one(), guarded));
    }
    if take.iter().all(|&t| t == 0) {
        return Some((Expr::zero(), guarded));
    }
    let cands = rank_counts(&ks, &exact);
    let pick = |want: &[i64]| {
        cands
            .iter()
            .find(|e| {
                grid.iter().zip(want).all(|(&p, &w)| {
                    e.eval(&|v| (v == "P").then_some(p as f64))
                        .is_ok_and(|x| (x - w as f64).abs() < 1e-9)
                })
            })
            .cloned()
    };
    let (num, den) = (pick(&take)?, pick(&reach)?);
    let den = if reach.contains(&0) {
        Expr::max(den, Expr::one())
    } else {
        den
    };
    Some((num / den, guarded))
}

/// The extents `dims(n, d, j)`, j = 0..d-1, of every grid `dims(n, d, k)` with `n` in P alone
/// that `e` reads (inside rounding too), in order of first appearance.
fn grid_extents(e: &Expr) -> Vec<Expr> {
    fn walk(e: &Expr, out: &mut Vec<Expr>) {
        for t in e.terms() {
            for (a, _) in t.factors() {
                match a {
                    Atom::Dims { n, d, .. } if n.vars().iter().all(|v| v == "P") => {
                        for j in 0..*d {
                            if let Some(k) = Expr::dims(n, *d, j) {
                                if !out.contains(&k) {
                                    out.push(k);
                                }
                            }
                        }
                    }
                    Atom::Dims { n, .. } | Atom::Log2(n) | Atom::Ceil(n) | Atom::Floor(n) => {
                        walk(n, out)
                    }
                    Atom::Pow(b) => walk(b, out),
                    Atom::Max(args) | Atom::Min(args) => args.iter().for_each(|x| walk(x, out)),
                    Atom::Var(_) => {}
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(e, &mut out);
    out
}

/// Whether P/K is a whole number at every P of `grid` (a grid extent: the extents' product is P).
fn divides_p(k: &Expr, grid: &[i64]) -> bool {
    let q = Expr::var("P") / k.clone();
    grid.iter().all(|&p| {
        q.eval(&|v| (v == "P").then_some(p as f64))
            .is_ok_and(|x| x >= 1.0 - 1e-9 && (x - x.round()).abs() < 1e-9)
    })
}

/// Closed forms a count of ranks takes, simplest first: 1, P − c, min(P, 2); for each extent
/// K that divides P (`exact`: a process grid's) the ranks of one grid column or row and the
/// others, P/K and P − P/K, then K and P − K, then those off both edges, max(P − 2P/K, 0), max(P − 2K, 0);
/// and for each divisor K the ranks of one residue, ceil((P − c)/K) and floor((P − c)/K), and
/// the others.
fn rank_counts(ks: &[Expr], exact: &[Expr]) -> Vec<Expr> {
    let p = Expr::var("P");
    let zero_floor = |e: Expr| Expr::max(e, Expr::zero());
    let mut out = vec![
        Expr::one(),
        p.clone(),
        p.clone() - Expr::one(),
        zero_floor(p.clone() - Expr::int(2)),
        Expr::min(p.clone(), Expr::int(2)),
    ];
    // P/K first: a share 1/K or 1 − 1/K reads better than K/P (the grid's other extents
    // are tried as K too)
    for k in exact {
        let per = p.clone() / k.clone();
        out.extend([per.clone(), p.clone() - per]);
    }
    for k in exact {
        out.extend([k.clone(), p.clone() - k.clone()]);
    }
    for k in exact {
        let per = p.clone() / k.clone();
        out.extend([
            zero_floor(p.clone() - Expr::int(2) * per),
            zero_floor(p.clone() - Expr::int(2) * k.clone()),
        ]);
    }
    let mut others = Vec::new();
    for k in ks {
        for c in 0..=2 {
            let x = (p.clone() - Expr::int(c)) / k.clone();
            for e in [x.ceil(), x.floor()] {
                // floor((1 - 2)/2) is -1 at P = 1, where no rank is counted
                let e = if c == 2 { zero_floor(e) } else { e };
                others.push(p.clone() - e.clone());
                out.push(e);
            }
        }
    }
    out.extend(others);
    out
}

/// The mean over `var` = lo..lo+trip−1 of the condition: a `mod` of the index
/// ([`mod_count`]) or a bound on it ([`bound_count`]), checked by counting at the traced
/// parameter values and a few more (where a quotient evaluates a hair below a whole number
/// the check fails: none).
fn index_share(c: &Comparison, var: &str, lo: i64, trip: &Expr, traced: &Samples) -> Option<Expr> {
    let (count, premise) = mod_count(c, var, lo, trip).or_else(|| bound_count(c, var, lo, trip))?;
    let share = count / trip.clone();
    let mut checked = 0;
    for values in index_grid(&c.vars(), trip, var, traced) {
        let at = |v: &str| values.get(v).copied();
        let Ok(n) = trip.eval(&at) else {
            continue;
        };
        if !(n.fract() == 0.0 && (1.0..=2000.0).contains(&n) && premise(&at)) {
            continue;
        }
        let mut hits = 0i64;
        for i in lo..lo + n as i64 {
            let at = |v: &str| {
                if v == var {
                    Some(i as f64)
                } else {
                    values.get(v).copied()
                }
            };
            hits += i64::from(c.holds(&at)?);
        }
        if (share.eval(&at).ok()? - hits as f64 / n).abs() > 1e-12 {
            return None;
        }
        checked += 1;
    }
    (checked > 0).then_some(share)
}

/// Where a closed count holds, given the parameters' values.
type Premise = Box<dyn Fn(&dyn Fn(&str) -> Option<f64>) -> bool>;

/// The count over `var` = lo..lo+trip−1 of `mod(var + a, K) == j` (or `!=`), where the
/// condition reads `var + a − K·floor((var + a)/K) == j`, K free of `var`, a and j whole
/// numbers: floor((trip + L)/K) + [L < 0] with L = lo + a − 1 − j, where K is a whole
/// number above j and −K ≤ L < K.
fn mod_count(c: &Comparison, var: &str, lo: i64, trip: &Expr) -> Option<(Expr, Premise)> {
    if !matches!(c.op, Op::Eq | Op::Ne) {
        return None;
    }
    let d = c.lhs.clone() - c.rhs.clone();
    let floors: Vec<&Expr> = d
        .terms()
        .iter()
        .flat_map(|t| t.factors())
        .filter_map(|(a, _)| match a {
            Atom::Floor(arg) if arg.contains_var(var) => Some(arg.as_ref()),
            _ => None,
        })
        .collect();
    let arg = *floors.first()?;
    if floors.iter().any(|f| *f != arg) {
        return None;
    }
    let k = divisor(&Atom::Floor(Box::new(arg.clone())), var)?;
    let a = ((arg.clone() - Expr::var(var) / k.clone()) * k.clone()).as_const()?;
    let modulo = Expr::var(var) + Expr::num(a) - k.clone() * arg.floor();
    // `mod(...) == j` or `j == mod(...)`
    let j = [d.clone(), Expr::zero() - d]
        .into_iter()
        .find_map(|d| (modulo.clone() - d).as_const())?;
    if a.fract() != 0.0 || j.fract() != 0.0 || j < 0.0 {
        return None;
    }
    let l = lo as f64 + a - 1.0 - j;
    // floor(m/K) + 1 = ceil((m + 1)/K) for whole m: L = -1 (C's `i % K == 0` from 0) is
    // ceil(trip/K), with no constant whose quotient rounds below a whole number
    let count = if l < 0.0 {
        ((trip.clone() + Expr::num(l + 1.0)) / k.clone()).ceil()
    } else {
        ((trip.clone() + Expr::num(l)) / k.clone()).floor()
    };
    let count = match c.op {
        Op::Eq => count,
        _ => trip.clone() - count,
    };
    let premise: Premise = Box::new(move |at| {
        k.eval(at)
            .is_ok_and(|kv| kv.fract() == 0.0 && j < kv && -kv <= l && l < kv)
    });
    Some((count, premise))
}

/// The count over `var` = lo..hi (hi = lo + trip − 1) of a bound `a·var + b op 0` (a a
/// constant, b free of `var`): with t = −b/a, `var < t` holds clamp(ceil(t) − lo) times,
/// `var <= t` clamp(floor(t) − lo + 1), `>`/`>=` the rest, `==` the difference of the two,
/// clamp(x) = min(max(x, 0), trip); floor and ceil are left out where t is a polynomial with
/// whole coefficients in the (whole) parameters.
fn bound_count(c: &Comparison, var: &str, lo: i64, trip: &Expr) -> Option<(Expr, Premise)> {
    let d = c.lhs.clone() - c.rhs.clone();
    let mut a = 0.0;
    for t in d.terms() {
        match t.factors() {
            [(Atom::Var(v), q)] if v == var && *q == symbolic::Rational::ONE => a += t.coef(),
            f if f.iter().any(|(x, _)| Expr::from_atom(x).contains_var(var)) => return None,
            _ => {}
        }
    }
    if a == 0.0 {
        return None;
    }
    let b = d - Expr::num(a) * Expr::var(var);
    let t = (Expr::zero() - b) / Expr::num(a);
    let whole = t.terms().iter().all(|m| {
        m.coef().fract() == 0.0
            && m.factors()
                .iter()
                .all(|(x, q)| matches!(x, Atom::Var(_)) && q.is_integer() && !q.is_negative())
    });
    let (fl, ce) = if whole {
        (t.clone(), t.clone())
    } else {
        (t.floor(), t.ceil())
    };
    let lo = Expr::int(lo);
    let clamp = |x: Expr| Expr::min(Expr::max(x, Expr::zero()), trip.clone());
    let below = clamp(ce.clone() - lo.clone()); // var < t
    let upto = clamp(fl - lo + Expr::one()); // var <= t
                                             // a < 0 turns the comparison around
    let op = match (c.op, a < 0.0) {
        (op, false) => op,
        (Op::Lt, true) => Op::Gt,
        (Op::Le, true) => Op::Ge,
        (Op::Gt, true) => Op::Lt,
        (Op::Ge, true) => Op::Le,
        (op, true) => op,
    };
    let count = match op {
        Op::Lt => below,
        Op::Le => upto,
        Op::Gt => trip.clone() - upto,
        Op::Ge => trip.clone() - below,
        Op::Eq => upto - below,
        Op::Ne => trip.clone() - upto + below,
    };
    Some((count, Box::new(|_| true)))
}

/// Values of the condition's and the trip count's parameters to count at: each one's traced
/// values and 1..8, 10, 12, 16, 30; at most 512 combinations.
fn index_grid(
    cond_vars: &BTreeSet<String>,
    trip: &Expr,
    var: &str,
    traced: &Samples,
) -> Vec<BTreeMap<String, f64>> {
    let mut names: BTreeSet<String> = cond_vars.clone();
    names.extend(trip.vars());
    names.remove(var);
    let mut rows: Vec<BTreeMap<String, f64>> = vec![BTreeMap::new()];
    for name in &names {
        let mut vals: BTreeSet<i64> = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 30].into();
        if let Some(k) = traced.params.iter().position(|p| p == name) {
            vals.extend(traced.points.iter().map(|r| r[k].round() as i64));
        }
        rows = rows
            .into_iter()
            .flat_map(|r| {
                vals.iter().map(move |v| {
                    let mut r = r.clone();
                    r.insert(name.clone(), *v as f64);
                    r
                })
            })
            .take(512)
            .collect();
    }
    rows
}

/// For each run parameter, the branches whose condition tests it but whose share was fitted
/// without it (`at` names a site's place): a parameter T misses may reach the time only
/// there, and the warning should say so rather than blame code the analysis does not follow.
pub fn fitted_without(
    branches: &[(u32, &apt::IfNode, &Expr)],
    params: &[String],
    at: &dyn Fn(u32) -> String,
) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (site, i, share) in branches {
        for x in i.vars.iter().filter(|x| params.contains(x)) {
            if !share.contains_var(x) {
                out.entry(x.clone()).or_default().push(format!(
                    "the branch at {} (site {site}, `{}`) tests {x}, but its share was fitted without it ({share})",
                    at(*site),
                    i.cond
                ));
            }
        }
    }
    out.into_iter().map(|(k, v)| (k, v.join("; "))).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
#[path = "share_tests.rs"]
mod build_tests;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ctx<'a>(consts: &'a BTreeMap<String, Expr>, params: &'a [String]) -> Context<'a> {
        Context {
            consts,
            params,
            fortran: true,
        }
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Traced shares of `f` at the given parameter rows.
    fn traced(params: &[&str], rows: &[&[f64]], f: &dyn Fn(&[f64]) -> f64) -> Samples {
        let mut s = Samples::new(names(params));
        for r in rows {
            s.push(r.to_vec(), f(r));
        }
        s
    }

    fn guard(cond: &str, taken: bool) -> Outer {
        Outer::If {
            cond: cond.into(),
            symbolic: true,
            vars: Comparison::parse(cond).unwrap().vars(),
            taken,
        }
    }

    fn at_p(e: &Expr, p: f64) -> f64 {
        e.eval(&|v| (v == "P").then_some(p)).unwrap()
    }

    const EVEN: &str = "rank - 2*floor(0.5*rank) == 0";

    /// trial 5 item 5: a condition on the rank alone is the mean of its 0/1 value over
    /// rank = 0..P-1, a closed form in P (not 1/P regressed from the shares at P = 1, 2).
    #[test]
    fn a_rank_condition_is_its_mean_over_the_ranks() {
        let consts = BTreeMap::new();
        let params = names(&["P"]);
        let ceil_half = |p: f64| (p / 2.0).ceil() / p;
        for (cond, want) in [
            (EVEN, &ceil_half as &dyn Fn(f64) -> f64),
            ("rank + 1 < P", &|p: f64| (p - 1.0) / p),
            ("rank == 0", &|p: f64| 1.0 / p),
            ("rank > 0", &|p: f64| (p - 1.0) / p),
            ("rank - 2*floor(0.5*rank) != 0", &|p: f64| {
                (p / 2.0).floor() / p
            }),
            ("rank - 3*floor(rank/3) == 1", &|p: f64| {
                ((p - 1.0) / 3.0).ceil() / p
            }),
        ] {
            let s = traced(&["P"], &[&[1.0], &[2.0], &[4.0]], &|r| want(r[0]));
            let got = source_share(cond, &[], &ctx(&consts, &params), &s).unwrap();
            assert_eq!(got.over, "rank = 0..P-1");
            for p in [1.0, 2.0, 3.0, 5.0, 7.0, 64.0, 100.0, 1001.0, 4096.0] {
                assert!(
                    (at_p(&got.expr, p) - want(p)).abs() < 1e-12,
                    "{cond} at P = {p}: {}",
                    got.expr
                );
            }
        }
        // a divisor in P: the first column of the MPI_Dims_create grid
        let col = "rank - dims(P, 2, 1)*floor(rank/dims(P, 2, 1)) == 0";
        let s = traced(&["P"], &[], &|_| 0.0);
        let got = source_share(col, &[], &ctx(&consts, &params), &s).unwrap();
        for p in [1.0, 2.0, 6.0, 7.0, 8.0, 9.0, 12.0, 100.0] {
            let k = symbolic::parse("dims(P, 2, 1)").unwrap();
            let k = at_p(&k, p) as usize;
            let want = (0..p as usize).filter(|r| r % k == 0).count() as f64 / p;
            assert!(
                (at_p(&got.expr, p) - want).abs() < 1e-12,
                "P = {p}: {}",
                got.expr
            );
        }
        // shares the runs traced that say otherwise (1/P at P = 4): not the source's mean
        let s = traced(&["P"], &[&[1.0], &[2.0], &[4.0]], &|r| 1.0 / r[0]);
        assert!(source_share(EVEN, &[], &ctx(&consts, &params), &s).is_none());
    }

    /// Inside an arm that reads the rank, the share is over the ranks that reach the IF: the
    /// hydro halo exchange's `rank - 1 >= 0` among the even ranks is floor((P-1)/2)/ceil(P/2),
    /// `rank + 1 < P` among the odd ones floor((P-1)/2)/floor(P/2) (no odd rank at P = 1).
    #[test]
    fn a_nested_rank_condition_is_its_mean_over_the_ranks_that_reach_it() {
        let consts = BTreeMap::new();
        let params = names(&["P"]);
        let none = Samples::new(names(&["P"]));
        let c = ctx(&consts, &params);
        let even = [guard(EVEN, true)];
        let odd = [guard(EVEN, false)];
        let share = |cond: &str, outer: &[Outer]| source_share(cond, outer, &c, &none).unwrap();
        let left = share("rank - 1 >= 0", &even);
        let right = share("rank + 1 < P", &odd);
        for p in 1..=40 {
            let pf = p as f64;
            let (evens, odds) = ((p + 1) / 2, p / 2);
            let want = (evens - 1) as f64 / evens as f64;
            assert!((at_p(&left.expr, pf) - want).abs() < 1e-12, "P = {p}");
            if odds > 0 {
                let want = ((p - 1) / 2) as f64 / odds as f64;
                assert!((at_p(&right.expr, pf) - want).abs() < 1e-12, "P = {p}");
            }
        }
        // every odd rank has a left neighbour
        assert_eq!(share("rank - 1 >= 0", &odd).expr, Expr::one());
        // an unresolved arm is no guard the count can read, a loop whose count reads the rank
        // weighs ranks unequally
        let loop_on_rank = [Outer::Loop {
            var: Some("i".into()),
            trip: Attr::Expr(symbolic::parse("rank + 1").unwrap()),
        }];
        assert!(source_share("rank == 0", &loop_on_rank, &c, &none).is_none());
        // a condition reading another parameter is not a mean over the ranks alone
        let params = names(&["NPX", "P"]);
        let c = ctx(&consts, &params);
        assert!(source_share("rank < NPX", &[], &c, &none).is_none());
    }

    /// trial 6 item 3: the PROC_NULL guards of a Cart_shift halo on the MPI_Dims_create grid
    /// (row-major: rank mod dims(P, 2, 1) is the column) are means over the ranks in the
    /// grid's extents, `west != MPI_PROC_NULL` 1 - 1/dims(P, 2, 1), not a constant regressed
    /// from the traced 0, 1/2, 1/2, 3/4 (nor 1 - ceil(P/dims(P, 2, 1))/P).
    #[test]
    fn a_cartesian_neighbour_guard_is_a_share_in_the_grid_extents() {
        let consts = BTreeMap::new();
        let params = names(&["P"]);
        let c = ctx(&consts, &params);
        let ext = |k: u32| symbolic::parse(&format!("dims(P, 2, {k})")).unwrap();
        let (d0, d1) = (ext(0), ext(1));
        let col = "-floor(rank/dims(P, 2, 1))*dims(P, 2, 1) + rank";
        let row = "floor(rank/dims(P, 2, 1))";
        type Count = fn(usize, usize, usize, usize) -> bool;
        let cases: [(String, Count, Expr); 5] = [
            // west, east: a column other than the first (last)
            (
                format!("{col} >= 1"),
                |_, c1, _, _| c1 >= 1,
                Expr::one() - d1.powi(-1),
            ),
            (
                format!("{col} < dims(P, 2, 1) - 1"),
                |_, c1, _, n1| c1 + 1 < n1,
                Expr::one() - d1.powi(-1),
            ),
            // north, south: a row other than the first (last)
            (
                format!("{row} >= 1"),
                |c0, _, _, _| c0 >= 1,
                Expr::one() - d0.powi(-1),
            ),
            (
                format!("{row} < dims(P, 2, 0) - 1"),
                |c0, _, n0, _| c0 + 1 < n0,
                Expr::one() - d0.powi(-1),
            ),
            // the first column
            (format!("{col} == 0"), |_, c1, _, _| c1 == 0, d1.powi(-1)),
        ];
        for (cond, holds, want) in cases {
            let share = |p: usize| {
                let ext = symbolic::dims_create(p as u64, 2).unwrap();
                let n1 = ext[1] as usize;
                let on = (0..p).filter(|r| holds(r / n1, r % n1, p / n1, n1)).count();
                on as f64 / p as f64
            };
            let s = traced(&["P"], &[&[2.0], &[4.0], &[8.0], &[16.0]], &|r| {
                share(r[0] as usize)
            });
            let got = source_share(&cond, &[], &c, &s).unwrap();
            assert_eq!(got.expr, want, "{cond}");
            for p in [1, 3, 6, 12, 18, 30, 64, 72, 100, 4096] {
                assert!(
                    (at_p(&got.expr, p as f64) - share(p)).abs() < 1e-12,
                    "{cond} at P = {p}: {}",
                    got.expr
                );
            }
        }
        // inside `west != MPI_PROC_NULL`: the ranks with an east neighbour too
        let west = [guard(&format!("{col} >= 1"), true)];
        let s = Samples::new(names(&["P"]));
        let got = source_share(&format!("{col} < dims(P, 2, 1) - 1"), &west, &c, &s).unwrap();
        for p in [2u64, 3, 4, 9, 16, 27, 64, 100] {
            let n1 = symbolic::dims_create(p, 2).unwrap()[1];
            if n1 > 1 {
                let want = n1.saturating_sub(2) as f64 / (n1 - 1) as f64;
                assert!(
                    (at_p(&got.expr, p as f64) - want).abs() < 1e-12,
                    "P = {p}: {}",
                    got.expr
                );
            }
        }
    }

    fn nstep_loop() -> [Outer; 1] {
        [Outer::Loop {
            var: Some("istep".into()),
            trip: Attr::Expr(Expr::var("NSTEP")),
        }]
    }

    const EVERY_NOUT: &str = "-NOUT*floor(istep/NOUT) + istep == 0";

    /// trial 5 item 5: `MOD(ISTEP, NOUT) .EQ. 0` inside `DO ISTEP = 1, NSTEP` is taken
    /// floor(NSTEP/NOUT) times in NSTEP (a constant 0.06 was fitted to the shares 0.1, 0.02).
    #[test]
    fn a_mod_of_a_loop_index_is_its_mean_over_the_loop() {
        let consts = BTreeMap::new();
        let params = names(&["NOUT", "NSTEP", "P"]);
        let c = ctx(&consts, &params);
        let rows: [&[f64]; 4] = [
            &[10.0, 100.0, 2.0],
            &[50.0, 100.0, 2.0],
            &[10.0, 200.0, 4.0],
            &[50.0, 200.0, 4.0],
        ];
        let s = traced(&["NOUT", "NSTEP", "P"], &rows, &|r| {
            (r[1] / r[0]).floor() / r[1]
        });
        let got = source_share(EVERY_NOUT, &nstep_loop(), &c, &s).unwrap();
        assert_eq!(got.over, "istep = 1..NSTEP");
        let at = |e: &Expr, nout: f64, nstep: f64| {
            e.eval(&|v| match v {
                "NOUT" => Some(nout),
                "NSTEP" => Some(nstep),
                _ => None,
            })
            .unwrap()
        };
        for (nout, nstep) in [(10.0_f64, 25.0), (7.0, 100.0), (1.0, 3.0), (30.0, 20.0)] {
            let want = (nstep / nout).floor() / nstep;
            assert!((at(&got.expr, nout, nstep) - want).abs() < 1e-12);
        }
        // the complement, and a loop counted from 0 (C) where the traces tell the start apart
        let ne = EVERY_NOUT.replace("==", "!=");
        let s_ne = traced(&["NOUT", "NSTEP", "P"], &rows, &|r| {
            1.0 - (r[1] / r[0]).floor() / r[1]
        });
        let got = source_share(&ne, &nstep_loop(), &c, &s_ne).unwrap();
        assert!((at(&got.expr, 10.0, 25.0) - 23.0 / 25.0).abs() < 1e-12);
        let from0 = traced(&["NOUT", "NSTEP", "P"], &[&[10.0, 25.0, 2.0]], &|_| {
            3.0 / 25.0
        });
        let got = source_share(EVERY_NOUT, &nstep_loop(), &c, &from0).unwrap();
        assert_eq!(got.over, "istep = 0..NSTEP - 1");
        assert!((at(&got.expr, 10.0, 95.0) - 10.0 / 95.0).abs() < 1e-12);
        // a residue other than 0, and the mod written on the right
        let one = "1 == -NOUT*floor(istep/NOUT) + istep";
        let s1 = traced(&["NOUT", "NSTEP", "P"], &[&[10.0, 25.0, 2.0]], &|_| {
            3.0 / 25.0
        });
        let got = source_share(one, &nstep_loop(), &c, &s1).unwrap();
        assert_eq!(got.over, "istep = 1..NSTEP");
        // shares the source's mean does not give: none
        let off = traced(&["NOUT", "NSTEP", "P"], &rows, &|_| 0.06);
        assert!(source_share(EVERY_NOUT, &nstep_loop(), &c, &off).is_none());
        // a loop with a step (its trip a rounded quotient) visits only some of its range
        let stepped = [Outer::Loop {
            var: Some("istep".into()),
            trip: Attr::Expr(symbolic::parse("ceil(NSTEP/2)").unwrap()),
        }];
        assert!(source_share(EVERY_NOUT, &stepped, &c, &s).is_none());
        // an arm between the loop and the IF that tests the index too: none
        let outer = [nstep_loop()[0].clone(), guard("istep > 5", true)];
        assert!(source_share(EVERY_NOUT, &outer, &c, &s).is_none());
    }

    /// A bound on the loop index is its count over the loop: `ISTEP > NOUT` is taken
    /// NSTEP - min(NOUT, NSTEP) times, `ISTEP == 1` once, `2*ISTEP <= NSTEP` floor(NSTEP/2).
    #[test]
    fn a_bound_on_a_loop_index_is_its_mean_over_the_loop() {
        let consts = BTreeMap::new();
        let params = names(&["NOUT", "NSTEP", "P"]);
        let c = ctx(&consts, &params);
        let none = Samples::new(params.clone());
        type Count = fn(i64, i64) -> i64;
        let cases: [(&str, Count); 6] = [
            ("istep > NOUT", |nout, nstep| (nstep - nout).max(0)),
            ("istep == 1", |_, _| 1),
            ("istep < NSTEP", |_, nstep| nstep - 1),
            ("2*istep <= NSTEP", |_, nstep| nstep / 2),
            ("NOUT >= istep", |nout, nstep| nout.min(nstep)),
            ("istep != NOUT", |nout, nstep| {
                nstep - i64::from(nout <= nstep)
            }),
        ];
        for (cond, want) in cases {
            let got = source_share(cond, &nstep_loop(), &c, &none).unwrap();
            assert_eq!(got.over, "istep = 1..NSTEP", "{cond}");
            for (nout, nstep) in [(10, 25), (50, 20), (7, 7), (1, 1000)] {
                let x = got
                    .expr
                    .eval(&|v| match v {
                        "NOUT" => Some(nout as f64),
                        "NSTEP" => Some(nstep as f64),
                        _ => None,
                    })
                    .unwrap();
                let w = want(nout, nstep) as f64 / nstep as f64;
                assert!(
                    (x - w).abs() < 1e-12,
                    "{cond} at {nout}, {nstep}: {}",
                    got.expr
                );
            }
        }
        // not linear in the index: none
        assert!(source_share("istep^2 > NOUT", &nstep_loop(), &c, &none).is_none());
    }

    /// trial 5 item 5: the warning that T misses NOUT names the branch whose share was
    /// fitted without it.
    #[test]
    fn a_branch_fitted_without_a_parameter_is_named() {
        let i = apt::IfNode {
            cond: EVERY_NOUT.into(),
            unresolved: None,
            vars: ["NOUT", "istep"].map(String::from).into(),
        };
        let params = names(&["NOUT", "NSTEP", "P"]);
        let flat = Expr::num(0.06);
        let at = |s: u32| format!("line {}", s + 49);
        let b = fitted_without(&[(27, &i, &flat)], &params, &at);
        assert_eq!(
            b.get("NOUT").map(String::as_str),
            Some("the branch at line 76 (site 27, `-NOUT*floor(istep/NOUT) + istep == 0`) tests NOUT, but its share was fitted without it (0.06)")
        );
        assert_eq!(b.len(), 1);
        let law = symbolic::parse("floor(NSTEP/NOUT)/NSTEP").unwrap();
        assert!(fitted_without(&[(27, &i, &law)], &params, &at).is_empty());
    }
}
