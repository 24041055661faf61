//! A model's T for reading: factored, with each long `min`/`max`/`floor`/`ceil`/`dims` that
//! occurs more than once, and every indicator (`[N/P >= 8192]`, `clamp(x, 0, 1)`, see
//! `print_step.rs`), named once (`s1`, `s2`, …) and defined below it — as text, or typeset
//! as one LaTeX `aligned` block.
//!
//! Indicators are always named, so a bracket (which does not parse) appears only as a whole
//! definition; the text of T and of every other definition still parses.

use crate::expr::{Atom, Expr};
use crate::print::Printer;
use crate::print_step::step;
use std::collections::BTreeMap;

/// An expression for reading: factored, with repeated long parts and indicators named.
#[derive(Clone, Debug, PartialEq)]
pub struct Readable {
    /// The factored text, in terms of the names.
    pub text: String,
    /// `(name, definition)`, in order of first use (in T, then in the definitions above).
    pub names: Vec<(String, String)>,
    /// The named atoms, outermost first (the order they were replaced in), each in terms of
    /// the names of atoms named before it.
    atoms: Vec<(Atom, String)>,
    /// `(name, definition in terms of the other names, is an indicator)`, outermost first.
    defs: Vec<(String, Expr, bool)>,
}

/// A repeated sub-expression shorter than this is left inline.
const NAME_MIN_LEN: usize = 16;

/// Width (in typeset characters, see `latex_width`) of a line of a long sum before it breaks.
const LATEX_LINE: usize = 64;

/// About how many characters `s` takes typeset: a command (`\\cdot`, `\\log`) counts 1,
/// braces and `\\left`/`\\right` nothing, a fraction its numerator and denominator.
fn latex_width(s: &str) -> usize {
    let mut n = 0;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let mut name = String::new();
                while let Some(&d) = chars.peek() {
                    if !d.is_ascii_alphabetic() {
                        break;
                    }
                    name.push(d);
                    chars.next();
                }
                if !matches!(
                    name.as_str(),
                    "left" | "right" | "frac" | "mathit" | "mathrm"
                ) {
                    n += 1;
                }
            }
            '{' | '}' | '^' | '_' => {}
            _ => n += 1,
        }
    }
    n
}

fn count_atoms(e: &Expr, counts: &mut Vec<(Atom, usize)>) {
    for t in e.terms() {
        for (a, _) in t.factors() {
            if matches!(
                a,
                Atom::Min(_)
                    | Atom::Max(_)
                    | Atom::Floor(_)
                    | Atom::Ceil(_)
                    | Atom::Dims { .. }
                    | Atom::Pow(_)
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

impl Readable {
    /// `e` in terms of these names, and each name's definition as an expression, in an order
    /// where a definition uses only names defined before it (for printers other than the
    /// text: LaTeX, Python).
    pub fn named(&self, e: &Expr) -> (Expr, Vec<(String, Expr)>) {
        let body = self
            .atoms
            .iter()
            .fold(e.clone(), |e, (a, n)| e.replace_atom(a, &Expr::var(n)));
        // outermost first: a definition uses names of atoms found after it
        let defs = self
            .defs
            .iter()
            .rev()
            .map(|(n, d, _)| (n.clone(), d.clone()))
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

    /// `lhs = e` typeset as one LaTeX `aligned` block: names subscripted (`s_{1}`), a long
    /// sum broken across lines, then `where` and each name's definition (indicators as
    /// Iverson brackets), in the order of the text form.
    pub fn latex(&self, e: &Expr, lhs: &str) -> String {
        let p = Printer::latex(false);
        let (body, _) = self.named(e);
        let mut rows: Vec<String> = Vec::new();
        let mut line = format!("{} &= ", p.expr(&Expr::var(lhs)));
        let mut used = 0;
        for (i, (sign, term)) in top_level_terms(&p.expr(&body)).into_iter().enumerate() {
            let piece = match (i, sign) {
                (0, "+") => term,
                (0, _) => format!("-{term}"),
                (_, s) => format!("{s} {term}"),
            };
            let width = latex_width(&piece);
            if used > 0 && used + width > LATEX_LINE {
                rows.push(line);
                line = "&\\quad ".to_string();
                used = 0;
            }
            if used > 0 {
                line.push(' ');
            }
            used += width + 1;
            line.push_str(&piece);
        }
        rows.push(line);
        for (i, (name, _)) in self.names.iter().enumerate() {
            let Some((_, def, is_step)) = self.defs.iter().find(|(n, _, _)| n == name) else {
                continue;
            };
            let shown = match def.as_atom().and_then(step) {
                Some(s) if *is_step => p.step(&s),
                _ => p.expr(def),
            };
            let lead = if i == 0 { "\\text{where } " } else { "" };
            rows.push(format!("{lead}{} &= {shown}", p.expr(&Expr::var(name))));
        }
        format!(
            "\\begin{{aligned}}\n{}\n\\end{{aligned}}\n",
            rows.join(" \\\\\n")
        )
    }
}

/// The terms of a printed sum at bracket depth 0 with their signs (`+` for the first unless
/// it is negative).
fn top_level_terms(s: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut sign) = (0i32, 0usize, "+");
    let b = s.as_bytes();
    let mut i = 0;
    if s.starts_with('-') {
        sign = "-";
        start = 1;
        i = 1;
    }
    while i < b.len() {
        match b[i] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => depth -= 1,
            b' ' if depth == 0
                && i + 2 < b.len()
                && matches!(b[i + 1], b'+' | b'-')
                && b[i + 2] == b' ' =>
            {
                out.push((sign, s[start..i].to_string()));
                sign = if b[i + 1] == b'+' { "+" } else { "-" };
                i += 3;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((sign, s[start..].to_string()));
    out
}

impl Expr {
    /// [`Expr::factored`] with repeated long sub-expressions and every indicator named.
    pub fn readable(&self) -> Readable {
        let p = Printer::reading(false);
        // name the longest candidate, replace it (in T and in the definitions so far), look
        // again: an atom repeated only inside a named one stays inline in its definition,
        // unless it is an indicator
        let placeholder = |i: usize| format!("\u{1}{i}\u{1}");
        let mut e = self.clone();
        let mut found: Vec<Atom> = Vec::new();
        let mut defs: Vec<Expr> = Vec::new();
        let mut is_step: Vec<bool> = Vec::new();
        // placeholder → the expression it stands for, with no placeholder in it: whether an
        // atom is an indicator is decided on that (a name is a positive variable, what it
        // names need not be)
        let mut original: BTreeMap<String, Expr> = BTreeMap::new();
        loop {
            let mut counts = Vec::new();
            count_atoms(&e, &mut counts);
            let mut inside = Vec::new();
            // inside the definitions: the arguments of what they define
            for d in &defs {
                for t in d.terms() {
                    for x in t.factors().iter().flat_map(|(a, _)| a.args()) {
                        count_atoms(x, &mut inside);
                    }
                }
            }
            let indicator = |a: &Atom| {
                Expr::from_atom(a)
                    .subs_all(&original)
                    .as_atom()
                    .and_then(step)
                    .is_some()
            };
            let Some((a, ind)) = counts
                .into_iter()
                .chain(inside)
                .filter_map(|(a, n)| {
                    let ind = indicator(&a);
                    (ind || n >= 2 && p.atom(&a).len() >= NAME_MIN_LEN).then_some((a, ind))
                })
                .max_by_key(|(a, _)| p.atom(a).len())
            else {
                break;
            };
            let v = Expr::var(&placeholder(found.len()));
            e = e.replace_atom(&a, &v);
            for d in &mut defs {
                *d = d.replace_atom(&a, &v);
            }
            original.insert(
                placeholder(found.len()),
                Expr::from_atom(&a).subs_all(&original),
            );
            defs.push(Expr::from_atom(&a));
            found.push(a);
            is_step.push(ind);
        }
        let mut text = p.expr(&e);
        let def_text: Vec<String> = defs
            .iter()
            .zip(&is_step)
            .map(|(d, ind)| match d.as_atom().and_then(step) {
                Some(s) if *ind => p.step(&s),
                _ => p.expr(d),
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
            let d = def_text[order[k]].clone();
            scan(&d, &mut order);
            k += 1;
        }
        let taken = self.vars();
        let mut next = 0;
        let mut names: Vec<String> = vec![String::new(); found.len()];
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
        let by_name: BTreeMap<String, Expr> = (0..found.len())
            .map(|i| (placeholder(i), Expr::var(&names[i])))
            .collect();
        // the atoms as found, in terms of the names of the atoms named before them, so that
        // replacing them in order, outermost first, names an expression's parts
        let atoms = found
            .into_iter()
            .zip(names.iter().cloned())
            .map(|(a, n)| {
                let e = Expr::from_atom(&a).subs_all(&by_name);
                (e.as_atom().cloned().unwrap_or(a), n)
            })
            .collect();
        let defs = defs
            .iter()
            .zip(&is_step)
            .zip(names.iter())
            .map(|((d, ind), n)| (n.clone(), d.subs_all(&by_name), *ind))
            .collect();
        let names = order
            .iter()
            .map(|&i| (names[i].clone(), subst(&def_text[i])))
            .collect();
        Readable {
            text,
            names,
            atoms,
            defs,
        }
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
        for s in [
            "2*I*min(floor(5e-4*N/P), 1) + 3*N*min(floor(5e-4*N/P), 1) + min(max(0.5*P - 1, 0), 1)*I \
             + min(max(0.5*P - 1, 0), 1)*max(N*min(floor(5e-4*N/P), 1), P) + N*min(floor(2000000/P), 1) \
             + min(floor(2000000/P), 1)*max(N*min(floor(5e-4*N/P), 1), P)",
            // an indicator inside a named max, and one that occurs once
            "I*max(N*min(floor(5e-4*N/P), 1), P) + 2*max(N*min(floor(5e-4*N/P), 1), P) \
             + N*min(floor(3e-3*N + 2e-3*N^2/P), 1)",
        ] {
            let e = parse(s).unwrap();
            let (body, defs) = e.readable().named(&e);
            assert!(defs.len() >= 2, "{defs:?}");
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

    /// A long sum repeated as a denominator (the host's detours' law, `a·M/(M + c)`, at each
    /// stretch) is named like a repeated clamp: T reads `7.1e-5*N^2/s1`, and the named form
    /// keeps the value.
    #[test]
    fn names_repeated_denominators() {
        let e = parse(
            "7.124e-5*N^2/(K*P + 0.0998*N^2 + 99099) + 9.48e-5*K*P/(K*P + 0.0998*N^2 + 99099) + N/P",
        )
        .unwrap();
        let r = e.readable();
        assert_eq!(
            r.names,
            vec![("s1".to_string(), "K*P + 0.0998*N^2 + 99099".to_string())]
        );
        assert!(r.text.contains("/s1"), "{}", r.text);
        let (body, defs) = r.named(&e);
        let vals = |x: &str| match x {
            "N" => Some(512.0),
            "K" => Some(32.0),
            "P" => Some(8.0),
            _ => None,
        };
        let s1 = defs[0].1.eval(&vals).unwrap();
        let got = body
            .eval(&|x| if x == "s1" { Some(s1) } else { vals(x) })
            .unwrap();
        let want = e.eval(&vals).unwrap();
        assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
    }

    /// A threshold step over a cost of several terms, met once, is named and reads as a
    /// bracket, as one over a single term does (before: `min(floor(…), 1)` inline in T).
    #[test]
    fn every_threshold_reads_as_a_bracket() {
        let e = parse(
            "4.249e-17*N^2*min(floor(4.249e-11*N^2*min(N^2, 16777216)/P + 6.999e-4*N^2/P), 1)*min(N^2, 16777216)/P \
             + 6.999e-10*N^2*min(floor(4.249e-11*N^2*min(N^2, 16777216)/P + 6.999e-4*N^2/P), 1)/P \
             + I*N*min(floor(1e-3*N), 1)",
        )
        .unwrap();
        let r = e.readable();
        let defs: Vec<&str> = r.names.iter().map(|(_, d)| d.as_str()).collect();
        assert!(defs.contains(&"[N >= 1000]"), "{r:?}");
        assert!(
            defs.contains(&"[N^2/P*(min(N^2, 16777216) + 1.647e7) >= 2.353e10]"),
            "{r:?}"
        );
        assert!(!r.text.contains("floor"), "{r:?}");
        parse(&r.text).unwrap();
    }

    /// `--latex`: names subscripted, a long sum broken into lines, the where-list typeset in
    /// the same block (before: one flat line with `s1`, and the definitions as plain lines).
    #[test]
    fn latex_is_one_aligned_block() {
        let e = parse(
            "2*I*min(floor(5e-4*N/P), 1) + 3*N*min(floor(5e-4*N/P), 1) + min(max(0.5*P - 1, 0), 1)*I \
             + min(max(0.5*P - 1, 0), 1) + N*min(floor(2000000/P), 1) + min(floor(2000000/P), 1) \
             + 3.5e-9*N^2*log2(P)/P + 2.25e-7*K*N*log2(P) + 4.5e-6*P*log2(P) - 1.5e-6*log2(N)",
        )
        .unwrap();
        let tex = e.readable().latex(&e, "T");
        assert!(tex.starts_with("\\begin{aligned}\nT &= "), "{tex}");
        assert!(tex.ends_with("\\end{aligned}\n"), "{tex}");
        assert!(tex.contains("s_{1}") && !tex.contains("s1"), "{tex}");
        assert!(tex.matches("&\\quad ").count() >= 1, "{tex}");
        assert!(tex.contains("\n\\text{where } s_{1} &= "), "{tex}");
        for def in [
            "&= \\operatorname{clamp}\\left(0.5 \\cdot P - 1, 0, 1\\right)",
            "&= \\left[\\frac{N}{P} \\geq 2000\\right]",
            "&= \\left[P \\leq 2000000\\right]",
        ] {
            assert!(tex.contains(def), "{def} in {tex}");
        }
        // every line but the last ends a row
        let lines: Vec<&str> = tex.lines().collect();
        for l in &lines[1..lines.len() - 2] {
            assert!(l.ends_with(" \\\\"), "{l}");
        }
    }
}
