//! Text syntax → canonical `Expr`, with errors that carry the 0-based column.
//!
//! Grammar: `sum := prod (('+'|'-') prod)*`, `prod := unary (('*'|'/') unary)*`,
//! `unary := ('-'|'+') unary | power`, `power := primary (('^'|'**') unary)?` (right-assoc),
//! `primary := number | ident | ident '(' sum (',' sum)* ')' | '(' sum ')'`.
//! Functions: sqrt cbrt log2 ln log (natural; `log(x, b)` base b) log10 max min ceil floor,
//! `mod(a, b)` (`a - b*floor(a/b)`), and
//! `dims(n, d, k)` (the k-th extent of `MPI_Dims_create(n, d)`; `d`, `k` whole constants).
//! Exponents must be rational constants; `inf` and `nan` are numbers.

use crate::expr::Expr;
use crate::rational::Rational;

/// A syntax error at a 0-based character column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Sym(char),
    End,
}

struct Lexer {
    toks: Vec<(Tok, usize)>,
}

fn err(column: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        column,
        message: message.into(),
    }
}

fn lex(src: &str) -> Result<Lexer, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = chars[start..i].iter().collect();
            let v: f64 = text
                .parse()
                .map_err(|_| err(start, format!("malformed number `{text}`")))?;
            toks.push((Tok::Num(v), start));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let tok = match text.as_str() {
                "inf" => Tok::Num(f64::INFINITY),
                "nan" | "NaN" => Tok::Num(f64::NAN),
                _ => Tok::Ident(text),
            };
            toks.push((tok, start));
        } else if c == '*' && chars.get(i + 1) == Some(&'*') {
            toks.push((Tok::Sym('^'), i));
            i += 2;
        } else if "+-*/^(),".contains(c) {
            toks.push((Tok::Sym(c), i));
            i += 1;
        } else {
            return Err(err(i, format!("unexpected character `{c}`")));
        }
    }
    toks.push((Tok::End, chars.len()));
    Ok(Lexer { toks })
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

/// Parse augur expression text into a canonical expression.
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    let lexer = lex(src)?;
    let mut p = Parser {
        toks: lexer.toks,
        pos: 0,
    };
    if matches!(p.peek(), Tok::End) {
        return Err(err(0, "empty expression"));
    }
    let e = p.sum(0)?;
    match p.peek() {
        Tok::End => Ok(e),
        Tok::Sym(')') => Err(err(p.col(), "unmatched `)`")),
        t => Err(err(
            p.col(),
            format!("expected an operator, found {}", describe(t)),
        )),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("number `{v}`"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Sym(c) => format!("`{c}`"),
        Tok::End => "end of input".to_string(),
    }
}

/// Nesting limit so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 200;

/// Products of sums distribute; this bounds the size (and time) hostile input can cause.
const MAX_TERMS: usize = 10_000;

fn bounded(e: Expr, col: usize) -> Result<Expr, ParseError> {
    if e.terms().len() > MAX_TERMS {
        Err(err(col, format!("expression too large: more than {MAX_TERMS} terms after expanding products of sums")))
    } else {
        Ok(e)
    }
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.pos).map_or(&Tok::End, |t| &t.0)
    }

    fn col(&self) -> usize {
        self.toks.get(self.pos).map_or(0, |t| t.1)
    }

    fn bump(&mut self) {
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), ParseError> {
        if *self.peek() == Tok::Sym(c) {
            self.bump();
            Ok(())
        } else {
            Err(err(
                self.col(),
                format!("expected `{c}` {what}, found {}", describe(self.peek())),
            ))
        }
    }

    fn sum(&mut self, depth: usize) -> Result<Expr, ParseError> {
        if depth > MAX_DEPTH {
            return Err(err(self.col(), "expression nested too deeply"));
        }
        let mut acc = self.prod(depth)?;
        loop {
            match self.peek() {
                Tok::Sym('+') => {
                    let col = self.col();
                    self.bump();
                    acc = bounded(acc + self.prod(depth)?, col)?;
                }
                Tok::Sym('-') => {
                    let col = self.col();
                    self.bump();
                    acc = bounded(acc - self.prod(depth)?, col)?;
                }
                _ => return Ok(acc),
            }
        }
    }

    fn prod(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let mut acc = self.unary(depth)?;
        loop {
            match self.peek() {
                Tok::Sym('*') => {
                    let col = self.col();
                    self.bump();
                    let rhs = self.unary(depth)?;
                    if acc.terms().len().saturating_mul(rhs.terms().len()) > MAX_TERMS {
                        return Err(err(col, format!("expression too large: more than {MAX_TERMS} terms after expanding products of sums")));
                    }
                    acc = acc * rhs;
                }
                Tok::Sym('/') => {
                    self.bump();
                    acc = acc / self.unary(depth)?;
                }
                _ => return Ok(acc),
            }
        }
    }

    fn unary(&mut self, depth: usize) -> Result<Expr, ParseError> {
        if depth > MAX_DEPTH {
            return Err(err(self.col(), "expression nested too deeply"));
        }
        match self.peek() {
            Tok::Sym('-') => {
                self.bump();
                Ok(-self.unary(depth + 1)?)
            }
            Tok::Sym('+') => {
                self.bump();
                self.unary(depth + 1)
            }
            _ => self.power(depth),
        }
    }

    fn power(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let base = self.primary(depth)?;
        if *self.peek() != Tok::Sym('^') {
            return Ok(base);
        }
        self.bump();
        let col = self.col();
        let exp = self.unary(depth + 1)?;
        let Some(x) = exp.as_const() else {
            return Err(err(
                col,
                "exponent must be a constant (variables in exponents are not supported)",
            ));
        };
        if let Some(b) = base.as_const() {
            return Ok(Expr::num(b.powf(x)));
        }
        match Rational::from_f64(x) {
            Some(q) => Ok(base.pow(q)),
            None => Err(err(
                col,
                format!("exponent {x} is not a rational number with denominator ≤ 10^6"),
            )),
        }
    }

    fn primary(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let col = self.col();
        match self.peek().clone() {
            Tok::Num(v) => {
                self.bump();
                Ok(Expr::num(v))
            }
            Tok::Sym('(') => {
                self.bump();
                let e = self.sum(depth + 1)?;
                self.expect(')', "to close `(`")?;
                Ok(e)
            }
            Tok::Ident(name) => {
                self.bump();
                if *self.peek() != Tok::Sym('(') {
                    return Ok(Expr::var(&name));
                }
                self.bump();
                let mut args = vec![self.sum(depth + 1)?];
                while *self.peek() == Tok::Sym(',') {
                    self.bump();
                    args.push(self.sum(depth + 1)?);
                }
                self.expect(')', &format!("to close the call of `{name}`"))?;
                call(&name, args, col)
            }
            t => Err(err(
                col,
                format!("expected a number, a name or `(`, found {}", describe(&t)),
            )),
        }
    }
}

fn call(name: &str, mut args: Vec<Expr>, col: usize) -> Result<Expr, ParseError> {
    let arity = |n: usize| -> Result<(), ParseError> {
        if args.len() == n {
            Ok(())
        } else {
            Err(err(
                col,
                format!("`{name}` takes {n} argument(s), got {}", args.len()),
            ))
        }
    };
    let one = |args: &mut Vec<Expr>| args.pop().unwrap_or_default();
    match name {
        "sqrt" => arity(1).map(|_| one(&mut args).sqrt()),
        "cbrt" => {
            arity(1).map(|_| one(&mut args).pow(Rational::new(1, 3).unwrap_or(Rational::ONE)))
        }
        "log2" => arity(1).map(|_| one(&mut args).log2()),
        "ln" => arity(1).map(|_| Expr::ln(&one(&mut args))),
        "log10" => arity(1).map(|_| Expr::log10(&one(&mut args))),
        "log" => match args.len() {
            1 => Ok(Expr::ln(&args[0])),
            2 => match args[1].as_const() {
                Some(b) if b > 0.0 && b != 1.0 => Ok(args[0].log2() * Expr::num(1.0 / b.log2())),
                _ => Err(err(
                    col,
                    "the base of `log(x, b)` must be a positive constant other than 1",
                )),
            },
            n => Err(err(col, format!("`log` takes 1 or 2 arguments, got {n}"))),
        },
        "ceil" | "ceiling" => arity(1).map(|_| one(&mut args).ceil()),
        "floor" => arity(1).map(|_| one(&mut args).floor()),
        // floored remainder, as the printers show `a - b*floor(a/b)`
        "mod" | "Mod" => arity(2).map(|_| {
            let (a, b) = (&args[0], &args[1]);
            a - &(b * &(a / b).floor())
        }),
        "dims" | "smpi_dims" => {
            arity(3)?;
            let rule = if name == "dims" {
                crate::DimsRule::OpenMpi
            } else {
                crate::DimsRule::SimGrid
            };
            let whole = |e: &Expr| {
                e.as_const()
                    .filter(|c| c.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(c))
                    .map(|c| c as u32)
            };
            match (whole(&args[1]), whole(&args[2])) {
                (Some(d), Some(k)) => Expr::dims_by(rule, &args[0], d, k).ok_or_else(|| {
                    err(
                        col,
                        format!(
                            "`{name}(n, d, k)` needs 0 <= k < d <= {}, got d = {d}, k = {k}",
                            crate::dims::MAX_DIMS
                        ),
                    )
                }),
                _ => Err(err(
                    col,
                    format!("`{name}(n, d, k)` needs whole constants d (dimensions) and k (which extent, from 0)"),
                )),
            }
        }
        "max" | "Max" => Ok(Expr::max_of(args)),
        "min" | "Min" => Ok(Expr::min_of(args)),
        _ => Err(err(
            col,
            format!(
                "unknown function `{name}` (known: sqrt cbrt log2 ln log log10 max min ceil floor mod dims smpi_dims)"
            ),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn errors_point_at_column() {
        let e = parse("N^2/(P*K) + ").unwrap_err();
        assert_eq!(e.column, 12);
        let e = parse("N + $").unwrap_err();
        assert_eq!(e.column, 4);
        let e = parse("foo(N)").unwrap_err();
        assert_eq!(e.column, 0);
        assert!(e.message.contains("unknown function"));
        let e = parse("N^K").unwrap_err();
        assert_eq!(e.column, 2);
        let e = parse("(N + 1").unwrap_err();
        assert_eq!(e.column, 6);
        assert_eq!(parse("").unwrap_err().column, 0);
        assert_eq!(parse("N P").unwrap_err().column, 2);
    }

    #[test]
    fn dims_needs_whole_constant_dimensions() {
        for (s, col, what) in [
            ("N + dims(P, 2)", 4, "takes 3"),
            ("dims(P, 2, 2)", 0, "0 <= k < d <= 8"),
            ("dims(P, 0, 0)", 0, "0 <= k < d <= 8"),
            ("dims(P, 9, 0)", 0, "0 <= k < d <= 8"),
            ("dims(P, K, 0)", 0, "whole constants"),
            ("dims(P, 2, 0.5)", 0, "whole constants"),
            ("dims(P, 2, -1)", 0, "whole constants"),
        ] {
            let e = parse(s).unwrap_err();
            assert_eq!(e.column, col, "{s}: {e}");
            assert!(e.message.contains(what), "{s}: {e}");
        }
        assert_eq!(parse("dims(P, 2, 0)").unwrap().to_string(), "dims(P, 2, 0)");
        assert_eq!(
            parse("dims(12, 2, 0) + dims(P, 1, 0)").unwrap(),
            parse("4 + P").unwrap()
        );
    }

    #[test]
    fn products_of_sums_are_bounded() {
        let s = (0..20)
            .map(|i| format!("(a{i} + b{i})"))
            .collect::<Vec<_>>()
            .join("*");
        let e = parse(&s).unwrap_err();
        assert!(e.message.contains("too large"), "{e}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "(".repeat(5000) + "N" + &")".repeat(5000);
        assert!(parse(&s).is_err());
        let s = "-".repeat(5000) + "N";
        assert!(parse(&s).is_err());
    }
}
