//! C preprocessor conditionals resolved before parsing: lines in dead `#if`/`#ifdef`
//! branches and the conditional directives themselves become blanks (same length, newlines
//! kept, so offsets do not move). Unparseable text under `#if 0` and an `if` split by `#else`
//! then never reach tree-sitter. Undefined names are 0, as in cpp.
use std::collections::BTreeMap;

/// Blanks everything but newlines in `bytes[range]`.
fn blank(bytes: &mut [u8], start: usize, end: usize) {
    for b in bytes.iter_mut().take(end).skip(start) {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

#[derive(Clone, Copy)]
struct Frame {
    /// The enclosing region is live.
    outer: bool,
    /// The current branch is live.
    live: bool,
    /// Some branch of this conditional was taken.
    taken: bool,
}

/// Resolves conditionals in `text`. `defined` holds the macros known on entry (name → body);
/// `#define`/`#undef` in live regions update it as the file is read.
pub fn strip_dead_branches(text: &str, defined: &mut BTreeMap<String, String>) -> String {
    strip(text, defined, false)
}

/// [`strip_dead_branches`], also blanking the bodies of function-like `#define`s when
/// `blank_function_bodies`: the front end never reads them from the tree (statement-like
/// ones are expanded from the macro table), and tree-sitter-c misparses some (a comment
/// inside a multi-line body ends the directive early).
pub fn strip(
    text: &str,
    defined: &mut BTreeMap<String, String>,
    blank_function_bodies: bool,
) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut stack: Vec<Frame> = Vec::new();
    let live = |stack: &[Frame]| stack.last().is_none_or(|f| f.live);
    let mut pos = 0usize;
    while pos < text.len() {
        // one logical line (backslash continuations joined)
        let mut end = pos;
        loop {
            let nl = text[end..].find('\n').map_or(text.len(), |i| end + i);
            let content = text[end..nl].trim_end_matches('\r');
            end = nl;
            if content.ends_with('\\') && nl < text.len() {
                end += 1;
                continue;
            }
            break;
        }
        let line = &text[pos..end];
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix('#') {
            let rest = rest.trim_start();
            let word_len = rest
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(rest.len());
            let (word, arg) = rest.split_at(word_len);
            let arg = arg.replace("\\\n", " ");
            let arg = arg.split("//").next().unwrap_or("").trim();
            let here = live(&stack);
            let mut is_conditional = true;
            match word {
                "if" | "ifdef" | "ifndef" => {
                    let cond = here
                        && match word {
                            "ifdef" => defined.contains_key(first_word(arg)),
                            "ifndef" => !defined.contains_key(first_word(arg)),
                            _ => eval(arg, defined) != 0,
                        };
                    stack.push(Frame {
                        outer: here,
                        live: cond,
                        taken: cond,
                    });
                }
                "elif" => {
                    if let Some(f) = stack.last_mut() {
                        let cond = f.outer && !f.taken && eval(arg, defined) != 0;
                        f.live = cond;
                        f.taken |= cond;
                    }
                }
                "else" => {
                    if let Some(f) = stack.last_mut() {
                        f.live = f.outer && !f.taken;
                        f.taken = true;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                _ => {
                    is_conditional = false;
                    if here && word == "define" && blank_function_bodies {
                        // `#define NAME(params) body`: keep the head, blank the body
                        let name = first_word(arg);
                        let after_name = line.find(name).map(|i| i + name.len());
                        if let Some(open) = after_name.filter(|i| line[*i..].starts_with('(')) {
                            if let Some(close) = line[open..].find(')') {
                                let body = pos + open + close + 1;
                                if body < end {
                                    blank(&mut bytes, body, end);
                                    // an empty body followed by blanks makes tree-sitter-c take
                                    // the next line as the body: leave a `1`
                                    if let Some(b) =
                                        bytes.get_mut(body + 1).filter(|_| body + 1 < end)
                                    {
                                        if *b == b' ' {
                                            *b = b'1';
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if here {
                        if word == "define" {
                            let name = first_word(arg);
                            let body = arg[name.len()..].to_string();
                            if !name.is_empty() && !body.starts_with('(') {
                                defined.insert(name.to_string(), body.trim().to_string());
                            } else if !name.is_empty() {
                                defined.insert(name.to_string(), String::new());
                            }
                        } else if word == "undef" {
                            defined.remove(first_word(arg));
                        }
                    }
                }
            }
            if is_conditional || !here {
                blank(&mut bytes, pos, end);
            }
        } else if !live(&stack) {
            blank(&mut bytes, pos, end);
        }
        pos = end + 1;
    }
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn first_word(s: &str) -> &str {
    let s = s.trim_start();
    let n = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..n]
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i64),
    Ident(String),
    Op(&'static str),
}

fn tokens(s: &str) -> Vec<Tok> {
    const OPS: &[&str] = &[
        "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "!", "(", ")", "<", ">", "+", "-", "*",
        "/", "%", "~", "&", "|", "^", "?", ":",
    ];
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            out.push(Tok::Num(crate::lower::parse_int(&s[st..i]).unwrap_or(0)));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
        } else if let Some(op) = OPS
            .iter()
            .find(|op| s.get(i..).is_some_and(|r| r.starts_with(**op)))
        {
            out.push(Tok::Op(op));
            i += op.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Evaluates a `#if` expression (undefined names are 0; anything unparsable is 0).
pub fn eval(expr: &str, defined: &BTreeMap<String, String>) -> i64 {
    let toks = tokens(expr);
    let mut p = Eval {
        toks: &toks,
        pos: 0,
        defined,
        depth: 0,
    };
    p.ternary()
}

struct Eval<'a> {
    toks: &'a [Tok],
    pos: usize,
    defined: &'a BTreeMap<String, String>,
    depth: usize,
}

impl Eval<'_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.toks.get(self.pos) {
            Some(Tok::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn ternary(&mut self) -> i64 {
        let c = self.binary(0);
        if self.peek_op() == Some("?") {
            self.pos += 1;
            let a = self.ternary();
            if self.peek_op() == Some(":") {
                self.pos += 1;
            }
            let b = self.ternary();
            return if c != 0 { a } else { b };
        }
        c
    }

    fn binary(&mut self, min_prec: u8) -> i64 {
        let mut lhs = self.unary();
        loop {
            let Some(op) = self.peek_op() else { return lhs };
            let prec = match op {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => return lhs,
            };
            if prec < min_prec.max(1) {
                return lhs;
            }
            self.pos += 1;
            let rhs = self.binary(prec + 1);
            lhs = match op {
                "||" => i64::from(lhs != 0 || rhs != 0),
                "&&" => i64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i64::from(lhs == rhs),
                "!=" => i64::from(lhs != rhs),
                "<" => i64::from(lhs < rhs),
                ">" => i64::from(lhs > rhs),
                "<=" => i64::from(lhs <= rhs),
                ">=" => i64::from(lhs >= rhs),
                "<<" => lhs.wrapping_shl(u32::try_from(rhs.clamp(0, 63)).unwrap_or(0)),
                ">>" => lhs.wrapping_shr(u32::try_from(rhs.clamp(0, 63)).unwrap_or(0)),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" => lhs.checked_div(rhs).unwrap_or(0),
                _ => lhs.checked_rem(rhs).unwrap_or(0),
            };
        }
    }

    fn unary(&mut self) -> i64 {
        self.depth += 1;
        if self.depth > 200 {
            return 0;
        }
        let tok = self.toks.get(self.pos).cloned();
        self.pos += 1;
        let v = match tok {
            Some(Tok::Num(n)) => n,
            Some(Tok::Op("!")) => i64::from(self.unary() == 0),
            Some(Tok::Op("-")) => self.unary().wrapping_neg(),
            Some(Tok::Op("+")) => self.unary(),
            Some(Tok::Op("~")) => !self.unary(),
            Some(Tok::Op("(")) => {
                let v = self.ternary();
                if self.peek_op() == Some(")") {
                    self.pos += 1;
                }
                v
            }
            Some(Tok::Ident(id)) if id == "defined" => {
                let paren = self.peek_op() == Some("(");
                if paren {
                    self.pos += 1;
                }
                let name = match self.toks.get(self.pos) {
                    Some(Tok::Ident(n)) => n.clone(),
                    _ => String::new(),
                };
                self.pos += 1;
                if paren && self.peek_op() == Some(")") {
                    self.pos += 1;
                }
                i64::from(self.defined.contains_key(&name))
            }
            Some(Tok::Ident(id)) => {
                // a function-like use `F(x)`: skip its arguments
                if self.peek_op() == Some("(") {
                    let mut depth = 0;
                    while let Some(t) = self.toks.get(self.pos) {
                        self.pos += 1;
                        match t {
                            Tok::Op("(") => depth += 1,
                            Tok::Op(")") => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    0
                } else {
                    self.defined
                        .get(&id)
                        .and_then(|v| crate::lower::parse_int(v))
                        .unwrap_or(0)
                }
            }
            _ => 0,
        };
        self.depth -= 1;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn expressions() {
        let t = table(&[("N", "4"), ("USE_X", "")]);
        assert_eq!(eval("0", &t), 0);
        assert_eq!(eval("defined(USE_X) && N > 2", &t), 1);
        assert_eq!(eval("!defined USE_Y || N * 2 == 9", &t), 1);
        assert_eq!(eval("UNDEFINED + 1", &t), 1);
        assert_eq!(eval("(N - 4) ? 1 : 2", &t), 2);
        assert_eq!(eval("__GNUC_PREREQ(4, 2)", &t), 0);
        let _ = eval("é > 1 || 1", &t);
        assert_eq!(eval("((((", &t), 0);
    }

    #[test]
    fn dead_branches_become_blanks_with_the_same_length() {
        let src = "a\n#if 0\nnot C {{{\n#else\nb\n#endif\n#ifndef G\n#define G\nc\n#endif\n#ifdef G\nd\n#endif\n";
        let mut t = BTreeMap::new();
        let out = strip_dead_branches(src, &mut t);
        assert_eq!(out.len(), src.len());
        let kept: Vec<&str> = out
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(kept, ["a", "b", "#define G", "c", "d"]);
        assert!(t.contains_key("G"));
    }

    #[test]
    fn function_macro_bodies_are_blanked_on_request() {
        let src =
            "#define F(a, b) do { \\\n  /* x */ a = b; \\\n} while (0)\n#define N 4\nint x;\n";
        let mut t = BTreeMap::new();
        let out = strip(src, &mut t, true);
        assert_eq!(out.len(), src.len());
        assert!(out.starts_with("#define F(a, b) 1 "), "{out}");
        assert!(!out.contains("while"));
        assert!(out.contains("#define N 4\nint x;"));
        assert!(t.contains_key("F") && t.contains_key("N"));
    }

    #[test]
    fn nested_and_elif() {
        let src = "#if A\nx\n#elif B == 2\ny\n#if 0\nz\n#endif\n#else\nw\n#endif\n";
        let mut t = table(&[("B", "2")]);
        let out = strip_dead_branches(src, &mut t);
        let kept: Vec<&str> = out
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(kept, ["y"]);
    }
}
