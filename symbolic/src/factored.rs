//! A reading form of a sum: common factors pulled out of groups of terms, so that a model's
//! structure shows — `ITERS*(N/P*(5.9e-10 + 5.4e-10*log2(P)) + 3.9e-6) + 6.9e-7` rather than
//! six flat terms each repeating `ITERS` and `N/P`.
//!
//! Greedy: the factor (an atom with the sign of its exponent) that most terms share is pulled
//! out with every other factor its group has in common, then the group and the rest are
//! factored again; ties go to the choice that prints shortest. The text still parses back to
//! the same expression (for the exact form, `parse(e.factored_exact()) == e`).

use crate::expr::{Atom, Coef, Expr, Term};
use crate::print::{term_degree, Printer};
use crate::rational::Rational;

/// A group `common·(inner)` or a single term.
enum Part {
    Term(Term),
    /// `common` has coefficient ±1; `inner` is factored in turn.
    Group {
        common: Term,
        inner: Vec<Part>,
    },
}

/// Ties in the greedy choice are settled by printing each; more than this many are not tried.
const MAX_TIES: usize = 4;

/// Exponent of `a` in `t` when its sign matches `positive`.
fn exponent(t: &Term, a: &Atom, positive: bool) -> Option<Rational> {
    t.factors
        .iter()
        .find(|(b, q)| b == a && q.is_negative() != positive)
        .map(|(_, q)| *q)
}

/// Every (atom, sign) of `terms` shared by at least two of them, most shared first.
fn candidates(terms: &[Term]) -> Vec<(Atom, bool, usize)> {
    let mut seen: Vec<(Atom, bool, usize)> = Vec::new();
    for t in terms {
        for (a, q) in &t.factors {
            let pos = !q.is_negative();
            match seen.iter_mut().find(|(b, p, _)| b == a && *p == pos) {
                Some(e) => e.2 += 1,
                None => seen.push((a.clone(), pos, 1)),
            }
        }
    }
    seen.retain(|c| c.2 >= 2);
    // stable: among equals, the atom met first (terms come in display order)
    seen.sort_by_key(|c| std::cmp::Reverse(c.2));
    seen
}

/// The monomial all of `terms` share: each common (atom, sign) at its smallest magnitude.
fn common(terms: &[Term]) -> Term {
    let factors = terms[0]
        .factors
        .iter()
        .filter_map(|(a, q)| {
            let pos = !q.is_negative();
            terms[1..]
                .iter()
                .map(|t| exponent(t, a, pos))
                .try_fold(*q, |m, e| e.map(|e| if e.abs() < m.abs() { e } else { m }))
                .map(|m| (a.clone(), m))
        })
        .collect();
    Term {
        factors,
        coef: Coef(1.0),
    }
}

/// `t / m` for a monomial `m` that divides `t`.
fn divide(t: &Term, m: &Term) -> Term {
    let factors = t
        .factors
        .iter()
        .filter_map(|(a, q)| {
            let d = m.factors.iter().find(|(b, _)| b == a).map(|(_, e)| *e);
            match d {
                None => Some((a.clone(), *q)),
                Some(e) => q
                    .checked_add(-e)
                    .filter(|r| !r.is_zero())
                    .map(|r| (a.clone(), r)),
            }
        })
        .collect();
    Term {
        factors,
        coef: t.coef,
    }
}

/// Greedy grouping; at the top of each call, ties among the most shared factors are tried
/// (`branch`) and the shortest print kept.
fn group(terms: Vec<Term>, p: &Printer, branch: bool) -> Vec<Part> {
    let cands = candidates(&terms);
    let Some(best) = cands.first().map(|c| c.2) else {
        return terms.into_iter().map(Part::Term).collect();
    };
    let tied: Vec<&(Atom, bool, usize)> = cands.iter().take_while(|c| c.2 == best).collect();
    let choose = |(a, pos, _): &(Atom, bool, usize)| {
        let (with, rest): (Vec<Term>, Vec<Term>) = terms
            .iter()
            .cloned()
            .partition(|t| exponent(t, a, *pos).is_some());
        let mut common = common(&with);
        let mut inner: Vec<Term> = with.iter().map(|t| divide(t, &common)).collect();
        if inner.iter().all(|t| t.coef.0 < 0.0) {
            common.coef = Coef(-1.0);
            for t in &mut inner {
                t.coef = Coef(-t.coef.0);
            }
        }
        let mut parts = vec![Part::Group {
            common,
            inner: group(inner, p, false),
        }];
        parts.extend(group(rest, p, false));
        parts
    };
    if !branch || tied.len() == 1 {
        return choose(tied[0]);
    }
    tied.into_iter()
        .take(MAX_TIES)
        .map(|c| {
            let parts = choose(c);
            (print(p, &parts).len(), parts)
        })
        .min_by_key(|(len, _)| *len)
        .map(|(_, parts)| parts)
        .unwrap_or_default()
}

/// The (positive, log, negative) growth of a part: that of its most dominant term.
fn degree(part: &Part) -> (f64, f64, f64) {
    match part {
        Part::Term(t) => term_degree(t),
        Part::Group { common, inner } => {
            let c = term_degree(common);
            inner
                .iter()
                .map(degree)
                .map(|d| (c.0 + d.0, c.1 + d.1, c.2 + d.2))
                .fold(
                    (f64::NEG_INFINITY, 0.0, 0.0),
                    |a, b| if b.0 > a.0 { b } else { a },
                )
        }
    }
}

fn is_constant(part: &Part) -> bool {
    matches!(part, Part::Term(t) if t.is_constant())
}

fn negative(part: &Part) -> bool {
    match part {
        Part::Term(t) => t.coef.0 < 0.0,
        Part::Group { common, .. } => common.coef.0 < 0.0,
    }
}

/// A part without its sign.
fn body(p: &Printer, part: &Part) -> String {
    match part {
        Part::Term(t) => p.term_abs(t),
        Part::Group { common, inner } => {
            let c = p.term_abs(common);
            let s = print(p, inner);
            // `1/P*(…)` reads better as `(…)/P`
            match c.strip_prefix("1/") {
                Some(den) => format!("({s})/{den}"),
                None => format!("{c}*({s})"),
            }
        }
    }
}

/// Parts as a sum, most dominant first and constants last.
fn print(p: &Printer, parts: &[Part]) -> String {
    let mut order: Vec<(usize, &Part)> = parts.iter().enumerate().collect();
    order.sort_by(|(ia, a), (ib, b)| {
        let (da, db) = (degree(a), degree(b));
        is_constant(a)
            .cmp(&is_constant(b))
            .then(db.0.total_cmp(&da.0))
            .then(db.1.total_cmp(&da.1))
            .then(da.2.total_cmp(&db.2))
            .then(ia.cmp(ib))
    });
    let mut out = String::new();
    for (i, (_, part)) in order.iter().enumerate() {
        let sign = match (i, negative(part)) {
            (0, false) => "",
            (0, true) => "-",
            (_, false) => " + ",
            (_, true) => " - ",
        };
        out.push_str(sign);
        out.push_str(&body(p, part));
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

pub(crate) fn factored(e: &Expr, p: &Printer) -> String {
    let terms: Vec<Term> = crate::print::display_order(e)
        .into_iter()
        .cloned()
        .collect();
    print(p, &group(terms, p, true))
}

impl Expr {
    /// Text for reading, with common factors pulled out of groups of terms (4 significant
    /// digits; parses back to this expression up to that rounding).
    pub fn factored(&self) -> String {
        factored(self, &Printer::reading(false))
    }

    /// As [`Expr::factored`] with full-precision coefficients: `parse(e.factored_exact()) == e`
    /// up to floating-point rounding of the regrouped coefficients.
    pub fn factored_exact(&self) -> String {
        factored(self, &Printer::reading(true))
    }
}

/// An expression for reading: factored, with each long `min`/`max`/`floor`/`ceil`/`dims` that occurs
/// more than once named (`s1`, `s2`, …) and defined once.
#[derive(Clone, Debug, PartialEq)]
pub struct Readable {
    /// The factored text, in terms of the names.
    pub text: String,
    /// `(name, definition)`, in order of first use; a definition may use earlier names.
    pub names: Vec<(String, String)>,
    /// The named atoms, outermost first (the order they were replaced in).
    atoms: Vec<(Atom, String)>,
}

impl Readable {
    /// `e` in terms of these names, and each name's definition as an expression, in an order
    /// where a definition uses only names defined before it (for printers other than the
    /// text: LaTeX, Python).
    pub fn named(&self, e: &Expr) -> (Expr, Vec<(String, Expr)>) {
        let body = self
            .atoms
            .iter()
            .fold(e.clone(), |e, (a, n)| e.replace_atom(a, &Expr::var(n)));
        let defs = self
            .atoms
            .iter()
            .map(|(a, n)| (n.clone(), Expr::from_atom(a)))
            .collect();
        (body, defs)
    }

    /// Another expression (a term of T, say) factored and in terms of these names.
    pub fn show(&self, e: &Expr) -> String {
        let e = self
            .atoms
            .iter()
            .fold(e.clone(), |e, (a, n)| e.replace_atom(a, &Expr::var(n)));
        e.factored()
    }
}

/// A repeated sub-expression shorter than this is left inline.
const NAME_MIN_LEN: usize = 16;

fn count_atoms(e: &Expr, counts: &mut Vec<(Atom, usize)>) {
    for t in &e.terms {
        for (a, _) in &t.factors {
            if matches!(
                a,
                Atom::Min(_) | Atom::Max(_) | Atom::Floor(_) | Atom::Ceil(_) | Atom::Dims { .. }
            ) {
                match counts.iter_mut().find(|(b, _)| b == a) {
                    Some(c) => c.1 += 1,
                    None => counts.push((a.clone(), 1)),
                }
            }
            for x in a.args() {
                count_atoms(x, counts);
            }
        }
    }
}

/// `min(floor(k*X + c), 1)` with `k > 0`, `c < 1` is the step `[X ≥ (1 − c)/k]`, and
/// `min(max(x, 0), 1)` the ramp `clamp(x, 0, 1)`.
fn step(a: &Atom, p: &Printer) -> Option<String> {
    let Atom::Min(args) = a else { return None };
    let [one, f] = args.as_slice() else {
        return None;
    };
    if one.as_const() != Some(1.0) {
        return None;
    }
    if let Some(Atom::Max(m)) = f.as_atom() {
        if let [zero, x] = m.as_slice() {
            if zero.as_const() == Some(0.0) {
                return Some(format!("clamp({}, 0, 1)", p.expr(x)));
            }
        }
        // min(max(x, -x), 1) = [x != 0] for integer x; `x = V - c` reads `[V != c]`
        if let [a, b] = m.as_slice() {
            // (an indicator only for integer x: integer coefficients)
            let integral = a.terms.iter().all(|t| t.coef.0.fract() == 0.0);
            if integral && (a.clone() + b.clone()).is_zero() {
                let x = if a
                    .terms
                    .iter()
                    .find(|t| !t.is_constant())
                    .is_some_and(|t| t.coef.0 > 0.0)
                {
                    a
                } else {
                    b
                };
                let (c, v): (Vec<&Term>, Vec<&Term>) =
                    x.terms.iter().partition(|t| t.is_constant());
                let rhs = -c.first().map_or(0.0, |t| t.coef.0);
                let lhs = Expr {
                    terms: v.into_iter().cloned().collect(),
                };
                return Some(format!("[{} != {}]", p.expr(&lhs), p.number(rhs)));
            }
        }
    }
    let Some(Atom::Floor(x)) = f.as_atom() else {
        return None;
    };
    let (c, var): (Vec<&Term>, Vec<&Term>) = x.terms.iter().partition(|t| t.is_constant());
    let [v] = var.as_slice() else { return None };
    let c = c.first().map_or(0.0, |t| t.coef.0);
    let k = v.coef.0;
    // below the threshold floor(k·X + c) is 0 only when c ≥ 0 (else it goes negative)
    if k <= 0.0 || !(0.0..1.0).contains(&c) {
        return None;
    }
    let mono = Term {
        factors: v.factors.clone(),
        coef: Coef(1.0),
    };
    let at = (1.0 - c) / k;
    // `[1/P >= 5e-7]` reads as `[P <= 2e6]`
    if mono.factors.iter().all(|(_, q)| q.is_negative()) {
        let inv = Term {
            factors: mono.factors.iter().map(|(a, q)| (a.clone(), -*q)).collect(),
            coef: Coef(1.0),
        };
        return Some(format!("[{} <= {}]", p.term_abs(&inv), p.number(1.0 / at)));
    }
    Some(format!("[{} >= {}]", p.term_abs(&mono), p.number(at)))
}

impl Expr {
    /// [`Expr::factored`] with repeated long sub-expressions named.
    pub fn readable(&self) -> Readable {
        let p = Printer::reading(false);
        // name the longest repeated atom, replace it, count again: an atom repeated only
        // inside a named one stays inline in its definition
        let placeholder = |i: usize| format!("\u{1}{i}\u{1}");
        let mut e = self.clone();
        let mut atoms: Vec<Atom> = Vec::new();
        loop {
            let mut counts = Vec::new();
            count_atoms(&e, &mut counts);
            let Some(a) = counts
                .into_iter()
                .filter(|(a, n)| *n >= 2 && p.atom(a).len() >= NAME_MIN_LEN)
                .map(|(a, _)| a)
                .max_by_key(|a| p.atom(a).len())
            else {
                break;
            };
            e = e.replace_atom(&a, &Expr::var(&placeholder(atoms.len())));
            atoms.push(a);
        }
        let mut text = factored(&e, &p);
        // definitions in terms of the names of atoms inside them
        let mut defs: Vec<String> = atoms
            .iter()
            .enumerate()
            .map(|(i, a)| {
                step(a, &p).unwrap_or_else(|| {
                    let d = atoms[..i]
                        .iter()
                        .enumerate()
                        .fold(Expr::from_atom(a), |d, (j, b)| {
                            d.replace_atom(b, &Expr::var(&placeholder(j)))
                        });
                    p.expr(&d)
                })
            })
            .collect();
        // number the names in order of first use: in T, then in the definitions
        let mut order: Vec<usize> = Vec::new();
        let scan = |s: &str, order: &mut Vec<usize>| {
            for piece in s.split('\u{1}').skip(1).step_by(2) {
                if let Ok(i) = piece.parse::<usize>() {
                    if !order.contains(&i) {
                        order.push(i);
                    }
                }
            }
        };
        scan(&text, &mut order);
        let mut k = 0;
        while k < order.len() {
            let d = defs[order[k]].clone();
            scan(&d, &mut order);
            k += 1;
        }
        let taken = self.vars();
        let mut next = 0;
        let mut names: Vec<String> = vec![String::new(); atoms.len()];
        for &i in &order {
            names[i] = loop {
                next += 1;
                let s = format!("s{next}");
                if !taken.contains(&s) {
                    break s;
                }
            };
        }
        let subst = |s: &str| {
            names
                .iter()
                .enumerate()
                .fold(s.to_string(), |s, (i, n)| s.replace(&placeholder(i), n))
        };
        text = subst(&text);
        for d in &mut defs {
            *d = subst(d);
        }
        // the atoms in terms of the names (not the placeholders) of the atoms inside them, so
        // that replacing them in order, outermost first, names an expression's parts
        let by_name: std::collections::BTreeMap<String, Expr> = (0..atoms.len())
            .map(|i| (placeholder(i), Expr::var(&names[i])))
            .collect();
        let atoms = atoms
            .into_iter()
            .zip(names.iter().cloned())
            .map(|(a, n)| {
                let e = Expr::from_atom(&a).subs_all(&by_name);
                (e.as_atom().cloned().unwrap_or(a), n)
            })
            .collect();
        let names = order
            .iter()
            .map(|&i| (names[i].clone(), defs[i].clone()))
            .collect();
        Readable { text, names, atoms }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::parse;

    /// Only what is 0 or 1 reads as a bracket: a floor that goes negative below its threshold,
    /// or a distance with fractional coefficients (0.5 at odd P), stays as it is.
    #[test]
    fn brackets_only_for_indicators() {
        let e = parse("N*min(floor(0.5*N - 3.5), 1) + min(floor(0.5*N - 3.5), 1)").unwrap();
        assert_eq!(e.readable().names[0].1, "min(floor(0.5*N - 3.5), 1)");
        let f = parse("N*min(max(0.5*P - 1, 1 - 0.5*P), 1) + min(max(0.5*P - 1, 1 - 0.5*P), 1)")
            .unwrap();
        assert!(
            !f.readable().names[0].1.starts_with('['),
            "{:?}",
            f.readable()
        );
    }

    #[test]
    fn an_inequality_indicator_reads_as_one() {
        let e = parse("3*N*min(max(M - 1, 1 - M), 1) + 2*min(max(M - 1, 1 - M), 1)").unwrap();
        let r = e.readable();
        assert_eq!(r.names, vec![("s1".to_string(), "[M != 1]".to_string())]);
        assert_eq!(r.text, "s1*(3*N + 2)");
    }

    /// The named form (LaTeX, Python) is the same value: each definition uses only names
    /// defined before it, and the body with them evaluates to the expression.
    #[test]
    fn named_parts_evaluate_to_the_whole() {
        let e = parse(
            "2*I*min(floor(5e-4*N/P), 1) + 3*N*min(floor(5e-4*N/P), 1) + min(max(0.5*P - 1, 0), 1)*I \
             + min(max(0.5*P - 1, 0), 1)*max(N*min(floor(5e-4*N/P), 1), P) + N*min(floor(2000000/P), 1) \
             + min(floor(2000000/P), 1)*max(N*min(floor(5e-4*N/P), 1), P)",
        )
        .unwrap();
        let (body, defs) = e.readable().named(&e);
        assert!(defs.len() >= 3, "{defs:?}");
        for (n, p, i) in [(1024.0, 4.0, 7.0), (65536.0, 1.0, 3.0), (100.0, 3e6, 2.0)] {
            let mut vals: std::collections::BTreeMap<String, f64> =
                [("N".into(), n), ("P".into(), p), ("I".into(), i)].into();
            for (name, d) in &defs {
                let v = d.eval(&|x| vals.get(x).copied()).unwrap();
                vals.insert(name.clone(), v);
            }
            let got = body.eval(&|x| vals.get(x).copied()).unwrap();
            let want = e.eval(&|x| vals.get(x).copied()).unwrap();
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{got} vs {want}"
            );
        }
        for (name, _) in &defs {
            assert!(
                body.vars().contains(name) || defs.iter().any(|(_, d)| d.vars().contains(name))
            );
        }
    }

    #[test]
    fn names_repeated_steps() {
        let e = parse(
            "2*I*min(floor(5e-4*N/P), 1) + 3*N*min(floor(5e-4*N/P), 1) + min(max(0.5*P - 1, 0), 1)*I \
             + min(max(0.5*P - 1, 0), 1) + N*min(floor(2000000/P), 1) + min(floor(2000000/P), 1)",
        )
        .unwrap();
        let r = e.readable();
        assert_eq!(
            r.names,
            vec![
                ("s1".to_string(), "clamp(0.5*P - 1, 0, 1)".to_string()),
                ("s2".to_string(), "[P <= 2000000]".to_string()),
                ("s3".to_string(), "[N/P >= 2000]".to_string()),
            ]
        );
        assert_eq!(r.text, "s1*(I + 1) + s2*(N + 1) + s3*(2*I + 3*N)");
    }

    fn f(s: &str) -> String {
        parse(s).unwrap().factored()
    }

    #[test]
    fn pulls_out_shared_factors() {
        assert_eq!(f("a*x + b*x + c"), "x*(a + b) + c");
        assert_eq!(
            f("2*I*N/P + 3*I*N*log2(P)/P + 5*I + 7"),
            "I*(N/P*(3*log2(P) + 2) + 5) + 7"
        );
        assert_eq!(f("3*x + 4"), "3*x + 4");
        assert_eq!(f("0"), "0");
    }

    #[test]
    fn negative_groups_carry_their_sign() {
        assert_eq!(f("x - a*y - b*y"), "-y*(a + b) + x");
    }

    #[test]
    fn reparses_to_the_same_expression() {
        for s in [
            "-1.711e-10*I*N*min(max(P - 1, 0), 1)*min(floor(1.221e-4*N/P), 1)/P \
             - 1.324e-7*I*min(max(P - 1, 0), 1)*min(floor(1.221e-4*N/P), 1) \
             + 8.466e-10*I*N*min(max(P - 1, 0), 1)/P + 5.366e-10*I*N*log2(P)/P \
             + 3.888e-6*I*min(max(P - 1, 0), 1) + 5.94e-10*I*N/P + 1.383e-9*N*log2(P)/P \
             + 2.791e-7*P + 8.618e-9*N/P + 6.876e-7",
            "N^2/(P*K) + K*log2(P) + 3*sqrt(N/P) + 2*N/(P*K)",
            "x^-2*y + x^-1*y + (x + 1)^-2*y",
        ] {
            let e = parse(s).unwrap();
            let back = parse(&e.factored_exact()).unwrap();
            for (a, b) in [(2.0, 3.0), (64.0, 1e4), (7.0, 5.0)] {
                let env = |v: &str| match v {
                    "P" | "x" => Some(a),
                    "K" => Some(8.0),
                    _ => Some(b),
                };
                let (u, w) = (e.eval(&env).unwrap(), back.eval(&env).unwrap());
                assert!(
                    (u - w).abs() <= 1e-12 * u.abs().max(1e-30),
                    "{s}: {u} vs {w}"
                );
            }
        }
    }
}
