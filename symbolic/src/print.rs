//! Printing as text (round-trips through `parse`), LaTeX and Python/sympy, terms by dominance.
//!
//! `{}` prints coefficients with 4 significant digits (near-integers as integers); `{:#}` and
//! `to_text_exact()` print every coefficient with the shortest round-trip representation.

use crate::expr::{Atom, Expr, Term};
use crate::rational::Rational;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Text,
    Latex,
    Python,
}

#[derive(Clone, Copy)]
pub(crate) struct Printer {
    style: Style,
    exact: bool,
    /// Sums inside functions and powers print factored too (the reading form).
    factor: bool,
    /// Indicators print as brackets (`[N/P >= 8192]`, see `print_step.rs`); not in text that
    /// must parse back.
    brackets: bool,
}

/// Growth of an expression as its variables grow: (positive degree, log degree, negative degree).
fn degree(e: &Expr) -> (f64, f64, f64) {
    e.terms
        .iter()
        .map(term_degree)
        .fold(
            (f64::NEG_INFINITY, 0.0, 0.0),
            |a, b| if b.0 > a.0 { b } else { a },
        )
}

/// Dominance of one term: powers of growing factors first, then logs, then the fewest divisions.
pub(crate) fn term_degree(t: &Term) -> (f64, f64, f64) {
    let (mut pos, mut lg, mut neg) = (0.0, 0.0, 0.0);
    for (a, q) in &t.factors {
        let q = q.to_f64();
        let (ad, al) = match a {
            Atom::Var(_) => (1.0, 0.0),
            Atom::Log2(_) => (0.0, 1.0),
            Atom::Max(args) | Atom::Min(args) => {
                let d =
                    args.iter()
                        .map(degree)
                        .fold((0.0, 0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
                (d.0, d.1)
            }
            Atom::Ceil(x) | Atom::Floor(x) | Atom::Pow(x) => {
                let d = degree(x);
                (d.0.max(0.0), d.1)
            }
            // one extent of a d-dimensional grid of n grows as n^(1/d)
            Atom::Dims { n, d, .. } => {
                let g = degree(n);
                let d = f64::from(*d);
                (g.0.max(0.0) / d, g.1 / d)
            }
        };
        if q > 0.0 {
            pos += q * ad;
            lg += q * al;
        } else {
            neg -= q * ad;
            lg += q * al;
        }
    }
    (pos, lg, neg)
}

/// Terms ordered for display: most dominant first, constants last, ties in canonical order.
pub(crate) fn display_order(e: &Expr) -> Vec<&Term> {
    let mut v: Vec<(usize, &Term)> = e.terms.iter().enumerate().collect();
    v.sort_by(|(ia, a), (ib, b)| {
        let (da, db) = (term_degree(a), term_degree(b));
        a.is_constant()
            .cmp(&b.is_constant())
            .then(db.0.total_cmp(&da.0))
            .then(db.1.total_cmp(&da.1))
            .then(da.2.total_cmp(&db.2))
            .then(ia.cmp(ib))
    });
    v.into_iter().map(|(_, t)| t).collect()
}

/// Shortest text that parses back to exactly `x`.
fn exact_number(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let a = x.abs();
    if a == 0.0 || (1e-4..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// About 4 significant digits; near-integers as integers.
fn short_number(x: f64) -> String {
    if !x.is_finite() {
        return exact_number(x);
    }
    let r = x.round();
    // Relative tolerance only: a tiny coefficient (a latency of 5e-10 s/byte) is not "near 0".
    if x == 0.0 || (r != 0.0 && (x - r).abs() <= 1e-9 * x.abs() && r.abs() < 1e15) {
        return format!("{r}");
    }
    let a = x.abs();
    if (1e-3..1e6).contains(&a) {
        let digits = (3 - a.log10().floor() as i32).max(0) as usize;
        let s = format!("{x:.digits$}");
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        };
        return s;
    }
    let s = format!("{x:.3e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            format!("{m}e{e}")
        }
        None => s,
    }
}

impl Printer {
    /// Plain text, coefficients exact (round-trip) or to 4 significant digits.
    pub(crate) fn text(exact: bool) -> Printer {
        Printer {
            style: Style::Text,
            exact,
            factor: false,
            brackets: false,
        }
    }

    /// LaTeX (4 significant digits), indicators as brackets when `brackets`.
    pub(crate) fn latex(brackets: bool) -> Printer {
        Printer {
            style: Style::Latex,
            exact: false,
            factor: false,
            brackets,
        }
    }

    pub(crate) fn is_latex(&self) -> bool {
        self.style == Style::Latex
    }

    /// Text in the reading form: every sum, also inside functions, factored.
    pub(crate) fn reading(exact: bool) -> Printer {
        Printer {
            factor: true,
            ..Printer::text(exact)
        }
    }

    pub(crate) fn number(&self, x: f64) -> String {
        let s = if self.exact {
            exact_number(x)
        } else {
            short_number(x)
        };
        self.styled(s)
    }

    /// `x` with 4 significant digits in exponent form when it is 10^6 or more, whole or not
    /// (`2.353e10`), as [`Printer::number`] otherwise.
    pub(crate) fn number_sig4(&self, x: f64) -> String {
        if self.exact || !x.is_finite() || x.abs() < 1e6 {
            return self.number(x);
        }
        let s = format!("{x:.3e}");
        let s = match s.split_once('e') {
            Some((m, e)) => {
                let m = if m.contains('.') {
                    m.trim_end_matches('0').trim_end_matches('.')
                } else {
                    m
                };
                format!("{m}e{e}")
            }
            None => s,
        };
        self.styled(s)
    }

    /// A number's text in this style (`10^{…}` in LaTeX, `oo` in Python).
    fn styled(&self, s: String) -> String {
        if self.style == Style::Latex {
            if let Some((m, e)) = s.split_once('e') {
                let m = if m == "1" {
                    String::new()
                } else if m == "-1" {
                    "-".into()
                } else {
                    format!("{m} \\times ")
                };
                return format!("{m}10^{{{}}}", e.trim_start_matches('+'));
            }
            if s == "inf" {
                return "\\infty".into();
            }
        }
        if self.style == Style::Python {
            match s.as_str() {
                "inf" => return "oo".into(),
                "-inf" => return "-oo".into(),
                "nan" => return "nan".into(),
                _ => {}
            }
        }
        s
    }

    pub(crate) fn expr(&self, e: &Expr) -> String {
        let Some((folded, mods)) = crate::print_mod::fold(e) else {
            return self.sum(e);
        };
        let mut out = self.sum(&folded);
        for (i, m) in mods.iter().enumerate() {
            let ph = crate::print_mod::placeholder(i);
            let whole = out == ph;
            out = out.replace(&ph, &self.modulo(m, whole));
        }
        out
    }

    /// `a mod b` in this style; in LaTeX in parentheses unless it is the `whole` expression.
    fn modulo(&self, m: &crate::print_mod::Mod, whole: bool) -> String {
        match self.style {
            Style::Text => format!("mod({}, {})", self.expr(&m.a), self.expr(&m.b)),
            Style::Python => format!("Mod({}, {})", self.expr(&m.a), self.expr(&m.b)),
            Style::Latex => {
                let operand = |x: &Expr| {
                    if x.as_const().is_some() || x.as_atom().is_some() {
                        self.expr(x)
                    } else {
                        format!("\\left({}\\right)", self.expr(x))
                    }
                };
                let s = format!("{} \\bmod {}", operand(&m.a), operand(&m.b));
                if whole {
                    s
                } else {
                    format!("\\left({s}\\right)")
                }
            }
        }
    }

    /// A sum with no `mod` left to fold.
    fn sum(&self, e: &Expr) -> String {
        if self.factor {
            return crate::factored::factored(e, self);
        }
        let terms = display_order(e);
        if terms.is_empty() {
            return "0".into();
        }
        let mut out = String::new();
        for (i, t) in terms.iter().enumerate() {
            let neg = t.coef.0 < 0.0 || (t.coef.0 == 0.0 && t.coef.0.is_sign_negative());
            let body = self.term_abs(t);
            match (i, neg) {
                (0, false) => out.push_str(&body),
                (0, true) => {
                    out.push('-');
                    out.push_str(&body);
                }
                (_, false) => {
                    out.push_str(" + ");
                    out.push_str(&body);
                }
                (_, true) => {
                    out.push_str(" - ");
                    out.push_str(&body);
                }
            }
        }
        out
    }

    /// A term with its coefficient's absolute value.
    pub(crate) fn term_abs(&self, t: &Term) -> String {
        let c = if t.coef.0.is_nan() {
            t.coef.0
        } else {
            t.coef.0.abs()
        };
        // `1/(x + 1)^2` would parse as the inverse of the expanded square, so negative integer
        // powers of sums (other than -1) stay in the numerator as `(x + 1)^-2`.
        let inline = |a: &Atom, q: &Rational| {
            !q.is_negative()
                || (matches!(a, Atom::Pow(_))
                    && q.is_integer()
                    && q.numer() < -1
                    && self.style != Style::Latex)
        };
        let num: Vec<String> = t
            .factors
            .iter()
            .filter(|(a, q)| inline(a, q))
            .map(|(a, q)| self.factor(a, *q))
            .collect();
        let den: Vec<String> = t
            .factors
            .iter()
            .filter(|(a, q)| !inline(a, q))
            .map(|(a, q)| self.factor(a, -*q))
            .collect();
        let mul = if self.style == Style::Latex {
            " \\cdot "
        } else {
            "*"
        };
        let mut n = num.join(if self.style == Style::Latex { " " } else { "*" });
        if c != 1.0 || n.is_empty() {
            let cs = self.number(c);
            n = if n.is_empty() {
                cs
            } else {
                format!("{cs}{mul}{n}")
            };
        }
        if den.is_empty() {
            return n;
        }
        match self.style {
            Style::Latex => format!("\\frac{{{n}}}{{{}}}", den.join(" ")),
            _ if den.len() == 1 => format!("{n}/{}", den[0]),
            // `1/(A*(x + 1))` would parse as the inverse of the distributed sum `A*x + A`.
            _ if t
                .factors
                .iter()
                .any(|(a, q)| q.is_negative() && matches!(a, Atom::Pow(_))) =>
            {
                format!("{n}/{}", den.join("/"))
            }
            _ => format!("{n}/({})", den.join("*")),
        }
    }

    /// `atom^q` (`q < 0` only for inlined negative powers of sums).
    fn factor(&self, a: &Atom, q: Rational) -> String {
        let latex = self.style == Style::Latex;
        if q == Rational::HALF {
            let inner = match a {
                Atom::Pow(b) => self.expr(b),
                other => self.atom(other),
            };
            return if latex {
                format!("\\sqrt{{{inner}}}")
            } else {
                format!("sqrt({inner})")
            };
        }
        let base = match a {
            Atom::Pow(b) if latex => format!("\\left({}\\right)", self.expr(b)),
            Atom::Pow(b) => format!("({})", self.expr(b)),
            other => self.atom(other),
        };
        if q == Rational::ONE {
            return base;
        }
        let base = if latex && matches!(a, Atom::Log2(_)) {
            format!("\\left({base}\\right)")
        } else {
            base
        };
        match self.style {
            Style::Latex => format!("{base}^{{{q}}}"),
            Style::Python if q.is_integer() && q.is_negative() => format!("{base}**({q})"),
            Style::Python if q.is_integer() => format!("{base}**{q}"),
            Style::Python => format!("{base}**Rational({}, {})", q.numer(), q.denom()),
            Style::Text if q.is_integer() => format!("{base}^{q}"),
            Style::Text => format!("{base}^({q})"),
        }
    }

    /// max/min arguments: constants last (storage order puts them first).
    fn list(&self, l: &[Expr]) -> String {
        let (c, v): (Vec<&Expr>, Vec<&Expr>) = l.iter().partition(|x| x.as_const().is_some());
        v.into_iter()
            .chain(c)
            .map(|x| self.expr(x))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(crate) fn atom(&self, a: &Atom) -> String {
        match (self.style, a) {
            (Style::Latex, Atom::Var(v)) => latex_name(v),
            (_, Atom::Var(v)) => v.clone(),
            (Style::Latex, Atom::Min(_))
                if self.brackets && crate::print_step::step(a).is_some() =>
            {
                crate::print_step::step(a).map_or_else(String::new, |s| self.step(&s))
            }
            (Style::Latex, Atom::Log2(x)) => match x.as_var() {
                Some(v) => format!("\\log_2 {v}"),
                None => format!("\\log_2\\left({}\\right)", self.expr(x)),
            },
            (Style::Latex, Atom::Max(l)) => format!("\\max\\left({}\\right)", self.list(l)),
            (Style::Latex, Atom::Min(l)) => format!("\\min\\left({}\\right)", self.list(l)),
            (Style::Latex, Atom::Ceil(x)) => {
                format!("\\left\\lceil {} \\right\\rceil", self.expr(x))
            }
            (Style::Latex, Atom::Floor(x)) => {
                format!("\\left\\lfloor {} \\right\\rfloor", self.expr(x))
            }
            (Style::Python, Atom::Log2(x)) => format!("log({}, 2)", self.expr(x)),
            (Style::Python, Atom::Max(l)) => format!("Max({})", self.list(l)),
            (Style::Python, Atom::Min(l)) => format!("Min({})", self.list(l)),
            (Style::Latex, Atom::Dims { n, d, rule, k }) => format!(
                "\\mathrm{{{}}}\\left({}, {d}, {k}\\right)",
                rule.name().replace('_', "\\_"),
                self.expr(n)
            ),
            (Style::Python, Atom::Ceil(x)) => format!("ceiling({})", self.expr(x)),
            (_, Atom::Log2(x)) => format!("log2({})", self.expr(x)),
            (_, Atom::Max(l)) => format!("max({})", self.list(l)),
            (_, Atom::Min(l)) => format!("min({})", self.list(l)),
            (_, Atom::Ceil(x)) => format!("ceil({})", self.expr(x)),
            (_, Atom::Floor(x)) => format!("floor({})", self.expr(x)),
            // Python: a sympy Function defined by `Expr::python_helpers`
            (_, Atom::Dims { n, d, rule, k }) => {
                format!("{}({}, {d}, {k})", rule.name(), self.expr(n))
            }
            (_, Atom::Pow(x)) => format!("({})", self.expr(x)),
        }
    }
}

/// A variable in LaTeX: trailing digits as a subscript (`s1` → `s_{1}`, `x_2` → `x_{2}`), a
/// name of several letters as one italic word (`ITERS` → `\mathit{ITERS}`, not the product
/// of five letters; `NX_LOCAL` → `\mathit{NX\_LOCAL}`).
fn latex_name(v: &str) -> String {
    let base = v.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &v[base.len()..];
    let base_clean = base.strip_suffix('_').unwrap_or(base);
    if !digits.is_empty()
        && !base_clean.is_empty()
        && base_clean.chars().all(|c| c.is_ascii_alphabetic())
    {
        return format!("{}_{{{digits}}}", latex_word(base_clean));
    }
    latex_word(v)
}

/// One letter as it is, a longer name as one italic word, `_` escaped; the printers'
/// placeholders (`~0~`, not identifiers) untouched.
fn latex_word(b: &str) -> String {
    if b.chars().count() <= 1 || b.contains(|c: char| c.is_control() || c == '~') {
        b.to_string()
    } else {
        format!("\\mathit{{{}}}", b.replace('_', "\\_"))
    }
}

impl Expr {
    /// Text with full-precision coefficients: `parse(e.to_text_exact()) == e`.
    pub fn to_text_exact(&self) -> String {
        Printer::text(true).expr(self)
    }

    /// LaTeX (4 significant digits).
    pub fn to_latex(&self) -> String {
        Printer::latex(true).expr(self)
    }

    /// A sympy expression (full precision); assumes `from sympy import *`, the symbols, and
    /// the functions of [`Expr::python_helpers`] defined.
    pub fn to_python(&self) -> String {
        Printer {
            style: Style::Python,
            exact: true,
            factor: false,
            brackets: false,
        }
        .expr(self)
    }
}

impl Expr {
    /// Python definitions that [`Expr::to_python`] output of this expression uses, to print
    /// once before it (after `from sympy import *`): the `dims` function when a `dims(n, d, k)`
    /// occurs, else empty.
    pub fn python_helpers(&self) -> &'static str {
        if self.has_dims() {
            crate::dims::PYTHON_HELPER
        } else {
            ""
        }
    }

    /// Whether a `dims(n, d, k)` occurs anywhere.
    pub fn has_dims(&self) -> bool {
        self.terms.iter().any(|t| {
            t.factors.iter().any(|(a, _)| {
                matches!(a, Atom::Dims { .. }) || a.args().iter().any(|x| x.has_dims())
            })
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            &Printer {
                style: Style::Text,
                exact: f.alternate(),
                factor: false,
                brackets: false,
            }
            .expr(self),
        )
    }
}

impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_text_exact())
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Expr, D::Error> {
        let s = String::deserialize(d)?;
        crate::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(short_number(85.33333333), "85.33");
        assert_eq!(short_number(3e-6), "3e-6");
        assert_eq!(short_number(128.0000000001), "128");
        assert_eq!(short_number(-0.5), "-0.5");
        assert_eq!(short_number(1234567.0), "1234567");
        assert_eq!(short_number(12345678.9), "1.235e7");
        assert_eq!(exact_number(1.0 / 3.0).parse::<f64>().ok(), Some(1.0 / 3.0));
        assert_eq!(exact_number(1e-300), "1e-300");
    }

    /// `--latex` printed the names `s1` and `ITERS` as `s1` (s times 1) and `ITERS` (a product
    /// of five letters).
    #[test]
    fn latex_names() {
        assert_eq!(latex_name("s1"), "s_{1}");
        assert_eq!(latex_name("s12"), "s_{12}");
        assert_eq!(latex_name("x_2"), "x_{2}");
        assert_eq!(latex_name("N"), "N");
        assert_eq!(latex_name("ITERS"), "\\mathit{ITERS}");
        assert_eq!(latex_name("NX_LOCAL"), "\\mathit{NX\\_LOCAL}");
        assert_eq!(
            crate::parse("2*ITERS*s1/P")
                .map(|e| e.to_latex())
                .ok()
                .as_deref(),
            Some("\\frac{2 \\cdot \\mathit{ITERS} s_{1}}{P}")
        );
    }

    #[test]
    fn tiny_coefficients_are_not_rounded_to_zero() {
        assert_eq!(short_number(5e-10), "5e-10");
        assert_eq!(short_number(-1.06e-10), "-1.06e-10");
        assert_eq!(short_number(0.0), "0");
        assert_eq!(
            crate::parse("1.06e-10*d*p")
                .map(|e| e.to_string())
                .ok()
                .as_deref(),
            Some("1.06e-10*d*p")
        );
    }
}
