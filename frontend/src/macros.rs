//! The C macro table: `-D NAME[=VALUE]` and source `#define`s, and the textual substitution
//! of the macros that would otherwise break parsing (empty or qualifier-like bodies such as
//! `RESTRICT`), with an offset map. Value-like macros (`-D N=100`) are NOT substituted: they
//! stay names in the IR and become named constants, which is what the model needs.
use std::collections::BTreeMap;

use crate::ir::FileId;
use crate::source_map::Assembled;

const QUALIFIERS: &[&str] = &[
    "const",
    "static",
    "inline",
    "restrict",
    "volatile",
    "register",
    "extern",
    "__inline",
    "__inline__",
    "__restrict",
    "__restrict__",
    "__attribute__",
];

/// Whether a macro body only makes sense substituted (it is not an expression): empty,
/// qualifiers and attributes (`RESTRICT`, `TS_PUBLIC`), or declarations and statements
/// (`SUBTREE_SIZE` expanding to struct fields).
pub fn needs_substitution(value: &str) -> bool {
    let v = value.trim();
    v.is_empty() || v.split_whitespace().all(is_qualifier) || v.contains([';', '{', '}'])
}

/// A declaration qualifier or compiler attribute word.
fn is_qualifier(w: &str) -> bool {
    QUALIFIERS.contains(&w)
        || w.starts_with("__attribute__")
        || w.starts_with("__declspec")
        || w.starts_with("__forceinline")
        || w.starts_with("__extension__")
}

#[derive(Debug, Clone, Default)]
pub struct MacroTable {
    /// Every known object-like macro: name → body (`-D X` without value → `1`).
    pub values: BTreeMap<String, String>,
    /// Names given with `-D` (they override source `#define`s).
    pub command_line: BTreeMap<String, String>,
    /// Function-like macros whose body is a statement or a statement head (`for (...)`,
    /// `if (...)`, `{ ... }`): name → (parameters, body). Expanded before parsing, since a
    /// use like `FOR_ALL(i, n) { ... }` does not parse as C. Expression-like function macros
    /// are kept as calls.
    pub functions: BTreeMap<String, (Vec<String>, String)>,
    /// Function-like macros whose body is an expression (`IDX(i, j, n) ((i) * (n) + (j))`):
    /// name → (parameters, body). Their uses parse as calls; the C lowering expands them
    /// where it lowers the call ([`expand_function`], the C preprocessor's textual rules).
    pub expressions: BTreeMap<String, (Vec<String>, String)>,
    /// Set once the table is complete: text prepared from now on is what tree-sitter parses,
    /// with function-like macro bodies blanked (see [`crate::cpp::strip`]).
    pub final_pass: bool,
}

/// Whether a macro body is a statement (or statement head) rather than an expression.
fn statement_like(body: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "for", "while", "if", "do", "switch", "return", "break", "continue", "goto",
    ];
    body.contains(['{', '}', ';'])
        || body
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| KEYWORDS.contains(&w))
}

/// What the body of a statement-like function macro does that the model would time, beyond
/// evaluating its arguments: a loop (`for`, `while` other than the closing `while (0)` of
/// the `do { … } while (0)` idiom) or an MPI call other than the error path's (`MPI_Abort`,
/// `MPI_Error_string`, `MPI_Error_class`). `None`: a wrapper such as an error check.
pub fn timed_in_body(body: &str) -> Option<String> {
    const ERROR_PATH: &[&str] = &["MPI_Abort", "MPI_Error_string", "MPI_Error_class"];
    let words: Vec<(usize, &str)> = body
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .scan(0usize, |at, w| {
            let here = *at;
            *at += w.len() + 1;
            Some((here, w))
        })
        .filter(|(_, w)| !w.is_empty())
        .collect();
    for (k, &(at, w)) in words.iter().enumerate() {
        let rest = body.get(at + w.len()..).unwrap_or("").trim_start();
        match w {
            "for" => return Some("a loop".into()),
            "while" => {
                let zero = words.get(k + 1).is_some_and(|(_, n)| *n == "0")
                    && rest.trim_start_matches('(').trim_start().starts_with('0');
                if !zero {
                    return Some("a loop".into());
                }
            }
            _ if w.starts_with("MPI_") && rest.starts_with('(') && !ERROR_PATH.contains(&w) => {
                return Some(format!("a call of {w}"));
            }
            _ => {}
        }
    }
    None
}

/// Logical lines of C text: backslash-newline continuations joined.
fn logical_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        let l = line.trim_end_matches('\r');
        if let Some(head) = l.strip_suffix('\\') {
            cur.push_str(head);
            cur.push(' ');
        } else {
            cur.push_str(l);
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl MacroTable {
    pub fn from_defines(defines: &[(String, Option<String>)]) -> Self {
        let mut t = MacroTable::default();
        for (name, value) in defines {
            let v = value.clone().unwrap_or_else(|| "1".to_string());
            t.values.insert(name.clone(), v.clone());
            t.command_line.insert(name.clone(), v);
        }
        t
    }

    /// Records the `#define`s of `text` (not overriding `-D`): object-like ones, and
    /// statement-like function macros.
    pub fn scan_defines(&mut self, text: &str) {
        for line in logical_lines(text) {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            if !rest.starts_with([' ', '\t']) {
                continue;
            }
            let rest = rest.trim_start();
            let name_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let (name, body) = rest.split_at(name_len);
            if name.is_empty() || self.command_line.contains_key(name) {
                continue;
            }
            if let Some(params) = body.strip_prefix('(') {
                let Some(close) = params.find(')') else {
                    continue;
                };
                let body = params[close + 1..].split("//").next().unwrap_or("").trim();
                let params: Vec<String> = params[..close]
                    .split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
                if statement_like(body) {
                    self.functions
                        .entry(name.to_string())
                        .or_insert((params, body.to_string()));
                } else if !needs_substitution(body) && !params.iter().any(|p| p.contains("...")) {
                    self.expressions
                        .entry(name.to_string())
                        .or_insert((params, body.to_string()));
                }
                continue;
            }
            let body = body.split("//").next().unwrap_or("").trim();
            self.values
                .entry(name.to_string())
                .or_insert_with(|| body.to_string());
        }
    }

    /// The macros to substitute textually, with their bodies expanded through other
    /// substitutable macros (`U_STABLE` → `U_CAPI` → `U_CFUNC U_EXPORT` → `extern`).
    pub(crate) fn substitutions(&self) -> BTreeMap<&str, String> {
        let mut subs: BTreeMap<&str, String> = self
            .values
            .iter()
            .filter(|(_, v)| needs_substitution(v))
            .map(|(k, v)| (k.as_str(), v.trim().to_string()))
            .collect();
        // bodies made only of qualifiers and substitutable macro names are substitutable too
        for _ in 0..8 {
            let mut changed = false;
            for (k, v) in &self.values {
                let words: Vec<&str> = v.split_whitespace().collect();
                if subs.contains_key(k.as_str()) || words.is_empty() {
                    continue;
                }
                let all = words
                    .iter()
                    .all(|w| is_qualifier(w) || subs.contains_key(w));
                if all && words.iter().any(|w| subs.contains_key(w)) {
                    let body: Vec<String> = words
                        .iter()
                        .map(|w| subs.get(w).cloned().unwrap_or_else(|| (*w).to_string()))
                        .collect();
                    subs.insert(k.as_str(), body.join(" ").trim().to_string());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        subs
    }
}

/// Names `#define`d anywhere in `text`.
fn own_defines(text: &str) -> std::collections::BTreeSet<String> {
    let mut t = MacroTable::default();
    t.scan_defines(text);
    t.values.into_keys().collect()
}

/// The C text tree-sitter sees for one file: dead `#if` branches blanked (see
/// [`crate::cpp`]), then substitutable macros replaced. Macros this file defines itself start
/// undefined (an include guard is defined after its `#ifndef`), others as in `table`.
pub fn prepare_c(file: FileId, text: &str, table: &MacroTable) -> Assembled {
    let own = own_defines(text);
    let mut defined: BTreeMap<String, String> = table
        .values
        .iter()
        .filter(|(k, _)| table.command_line.contains_key(*k) || !own.contains(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let live = crate::cpp::strip(text, &mut defined, table.final_pass);
    substitute(file, &live, table)
}

/// Copies C `text` of `file` with substitutable macros replaced (outside comments, strings,
/// character literals and preprocessor lines).
pub fn substitute(file: FileId, text: &str, table: &MacroTable) -> Assembled {
    let subs = table.substitutions();
    let mut out = Assembled::new();
    if subs.is_empty() && table.functions.is_empty() {
        out.push_orig(file, 0, text);
        return out;
    }
    let bytes = text.as_bytes();
    let mut copied = 0usize;
    let mut i = 0usize;
    let mut line_start = true;
    let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' if line_start => {
                // skip the directive, with backslash continuations
                while i < bytes.len() {
                    if bytes[i] == b'\n' && (i == 0 || bytes[i - 1] != b'\\') {
                        break;
                    }
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        line_start = false;
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                i += 1;
            }
            i = (i + 2).min(bytes.len());
        } else if b == b'"' || b == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(bytes.len());
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let s = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = text.get(s..i).unwrap_or("");
            if let Some((params, body)) = table.functions.get(word) {
                // only uses that do not already parse as a call (`CHECK(x);` does) are expanded
                let statement_use = macro_args(text, i).filter(|(_, end)| {
                    let next = text.get(*end..).unwrap_or("").trim_start().chars().next();
                    next.is_some_and(|c| {
                        c == '{'
                            || c == '}'
                            || c == '('
                            || c == '*'
                            || c == '_'
                            || c.is_ascii_alphanumeric()
                    })
                });
                if let Some((args, end)) = statement_use {
                    out.push_orig(file, at(copied), text.get(copied..s).unwrap_or(""));
                    let expansion = expand_function(params, body, &args);
                    out.push_synth(file, at(s), at(end - s), &expansion);
                    copied = end;
                    i = end;
                    continue;
                }
            }
            if let Some(rep) = subs.get(word).map(String::as_str) {
                out.push_orig(file, at(copied), text.get(copied..s).unwrap_or(""));
                // an empty replacement keeps one space so neighbouring tokens stay apart
                let rep = if rep.is_empty() { " " } else { rep };
                out.push_synth(file, at(s), at(i - s), rep);
                copied = i;
            }
        } else {
            i += 1;
        }
    }
    out.push_orig(file, at(copied), text.get(copied..).unwrap_or(""));
    out
}

/// The arguments of a macro use whose name ends at `from` (`(` may follow after blanks),
/// and the offset just past the closing parenthesis.
fn macro_args(text: &str, from: usize) -> Option<(Vec<String>, usize)> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    if bytes.get(i) != Some(&b'(') {
        return None;
    }
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut start = i + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    args.push(text.get(start..i)?.trim().to_string());
                    return Some((args, i + 1));
                }
            }
            b',' if depth == 1 => {
                args.push(text.get(start..i)?.trim().to_string());
                start = i + 1;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The body with parameters replaced by arguments (`#p` → a string, `##` pasted).
pub(crate) fn expand_function(params: &[String], body: &str, args: &[String]) -> String {
    let mut out = String::with_capacity(body.len() + 16);
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &body[s..i];
            match params.iter().position(|p| p == word) {
                Some(k) => out.push_str(args.get(k).map_or("", String::as_str)),
                None => out.push_str(word),
            }
        } else if c == b'#' {
            i += 1;
            if b.get(i) == Some(&b'#') {
                i += 1;
                while out.ends_with(' ') {
                    out.pop();
                }
                while i < b.len() && b[i] == b' ' {
                    i += 1;
                }
            } else {
                // stringify the next parameter
                while i < b.len() && b[i] == b' ' {
                    i += 1;
                }
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &body[s..i];
                let arg = params
                    .iter()
                    .position(|p| p == word)
                    .and_then(|k| args.get(k));
                out.push('"');
                out.push_str(&arg.map_or(word.to_string(), |a| a.replace('"', "\\\"")));
                out.push('"');
            }
        } else if c == b'\n' || c == b'\r' {
            out.push(' ');
            i += 1;
        } else {
            let ch = body[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_macros_are_substituted_value_macros_kept() {
        let mut t = MacroTable::from_defines(&[
            ("N".into(), Some("100".into())),
            ("RESTRICT".into(), Some(String::new())),
        ]);
        t.scan_defines("#define INLINE static inline\n#define M 5\n#define F(x) x\n");
        assert_eq!(t.values.get("M").map(String::as_str), Some("5"));
        assert!(!t.values.contains_key("F"));
        let src =
            "#define RESTRICT\nINLINE void f(double *RESTRICT a) { a[0] = N; /* RESTRICT */ }\n";
        let out = substitute(FileId(0), src, &t);
        assert_eq!(
            out.text,
            "#define RESTRICT\nstatic inline void f(double *  a) { a[0] = N; /* RESTRICT */ }\n"
        );
        let n_buf = out.text.find("N;").unwrap_or(0);
        let n_src = src.find("N;").unwrap_or(0);
        assert_eq!(
            out.map(u32::try_from(n_buf).unwrap_or(0)),
            Some((FileId(0), u32::try_from(n_src).unwrap_or(0)))
        );
    }

    #[test]
    fn statement_macros_are_expanded() {
        let mut t = MacroTable::default();
        t.scan_defines("#define FOR_ALL(i, n) for ((i) = 0; (i) < (n); (i)++)\n#define IDX(i, j) ((i) * N + (j))\n#define SWAP(a, b) \\\n  { double t_ = a; a = b; b = t_; }\n");
        assert!(t.functions.contains_key("FOR_ALL"));
        assert!(t.functions.contains_key("SWAP"));
        assert!(
            !t.functions.contains_key("IDX"),
            "expression macros stay calls"
        );
        assert!(t.expressions.contains_key("IDX"));
        let src = "#define X\nvoid f(int n, double *a) { int k; FOR_ALL(k, n) { a[IDX(k, 0)] = 0; } SWAP(a[0], a[1]) SWAP(a[1], a[2]); }\n";
        let out = substitute(FileId(0), src, &t);
        assert!(
            out.text
                .contains("for ((k) = 0; (k) < (n); (k)++) { a[IDX(k, 0)] = 0; }"),
            "{}",
            out.text
        );
        assert!(
            out.text
                .contains("{ double t_ = a[0]; a[0] = a[1]; a[1] = t_; }"),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("SWAP(a[1], a[2]);"),
            "a use followed by `;` parses as a call: {}",
            out.text
        );
        // the loop's text maps to the macro use
        let at = out.text.find("for (").unwrap_or(0);
        assert_eq!(
            out.map(u32::try_from(at).unwrap_or(0)),
            Some((
                FileId(0),
                u32::try_from(src.find("FOR_ALL(k").unwrap_or(0)).unwrap_or(0)
            ))
        );
    }

    #[test]
    fn attribute_and_declaration_macros_are_substituted() {
        assert!(needs_substitution(
            "__attribute__((visibility(\"default\")))"
        ));
        assert!(needs_substitution("uint8_t a; uint8_t b;"));
        assert!(!needs_substitution("(N * 2)"));
        assert!(!needs_substitution("100"));
        assert!(needs_substitution(
            "static inline __attribute__((always_inline))"
        ));
        let mut t = MacroTable::default();
        t.scan_defines("#define U_EXPORT\n#define U_CFUNC extern\n#define U_CAPI U_CFUNC U_EXPORT\n#define U_STABLE U_CAPI\n#define N M\n");
        let subs = t.substitutions();
        assert_eq!(subs.get("U_STABLE").map(String::as_str), Some("extern"));
        assert!(!subs.contains_key("N"), "value-like chains stay names");
    }

    #[test]
    fn command_line_overrides_source() {
        let mut t = MacroTable::from_defines(&[("M".into(), Some("7".into()))]);
        t.scan_defines("#define M 5\n");
        assert_eq!(t.values.get("M").map(String::as_str), Some("7"));
    }
}
