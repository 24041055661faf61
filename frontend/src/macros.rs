//! The C macro table: `-D NAME[=VALUE]` and source `#define`s, and the textual substitution
//! of the macros that would otherwise break parsing (empty or qualifier-like bodies such as
//! `RESTRICT`), with an offset map. Value-like macros (`-D N=100`) are NOT substituted: they
//! stay names in the IR and become named constants, which is what the model needs.
use std::collections::BTreeMap;

use crate::ir::FileId;
use crate::source_map::Assembled;

const QUALIFIERS: &[&str] = &[
    "const", "static", "inline", "restrict", "volatile", "register", "extern", "__inline",
    "__inline__", "__restrict", "__restrict__", "__attribute__",
];

/// Whether a macro body only makes sense substituted (it is not an expression).
pub fn needs_substitution(value: &str) -> bool {
    let v = value.trim();
    v.is_empty() || v.split_whitespace().all(|w| QUALIFIERS.contains(&w))
}

#[derive(Debug, Clone, Default)]
pub struct MacroTable {
    /// Every known object-like macro: name → body (`-D X` without value → `1`).
    pub values: BTreeMap<String, String>,
    /// Names given with `-D` (they override source `#define`s).
    pub command_line: BTreeMap<String, String>,
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

    /// Records the object-like `#define NAME body` lines of `text` (not overriding `-D`).
    pub fn scan_defines(&mut self, text: &str) {
        for line in text.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix('#') else { continue };
            let Some(rest) = rest.trim_start().strip_prefix("define") else { continue };
            if !rest.starts_with([' ', '\t']) {
                continue;
            }
            let rest = rest.trim_start();
            let name_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let (name, body) = rest.split_at(name_len);
            if name.is_empty() || body.starts_with('(') || self.command_line.contains_key(name) {
                continue;
            }
            let body = body.split("//").next().unwrap_or("").trim();
            self.values.entry(name.to_string()).or_insert_with(|| body.to_string());
        }
    }


    /// The macros to substitute textually.
    fn substitutions(&self) -> BTreeMap<&str, &str> {
        self.values
            .iter()
            .filter(|(_, v)| needs_substitution(v))
            .map(|(k, v)| (k.as_str(), v.trim()))
            .collect()
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
    let live = crate::cpp::strip_dead_branches(text, &mut defined);
    substitute(file, &live, table)
}

/// Copies C `text` of `file` with substitutable macros replaced (outside comments, strings,
/// character literals and preprocessor lines).
pub fn substitute(file: FileId, text: &str, table: &MacroTable) -> Assembled {
    let subs = table.substitutions();
    let mut out = Assembled::new();
    if subs.is_empty() {
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
            if let Some(rep) = subs.get(word) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_macros_are_substituted_value_macros_kept() {
        let mut t = MacroTable::from_defines(&[("N".into(), Some("100".into())), ("RESTRICT".into(), Some(String::new()))]);
        t.scan_defines("#define INLINE static inline\n#define M 5\n#define F(x) x\n");
        assert_eq!(t.values.get("M").map(String::as_str), Some("5"));
        assert!(!t.values.contains_key("F"));
        let src = "#define RESTRICT\nINLINE void f(double *RESTRICT a) { a[0] = N; /* RESTRICT */ }\n";
        let out = substitute(FileId(0), src, &t);
        assert_eq!(out.text, "#define RESTRICT\nstatic inline void f(double *  a) { a[0] = N; /* RESTRICT */ }\n");
        let n_buf = out.text.find("N;").unwrap_or(0);
        let n_src = src.find("N;").unwrap_or(0);
        assert_eq!(out.map(u32::try_from(n_buf).unwrap_or(0)), Some((FileId(0), u32::try_from(n_src).unwrap_or(0))));
    }

    #[test]
    fn command_line_overrides_source() {
        let mut t = MacroTable::from_defines(&[("M".into(), Some("7".into()))]);
        t.scan_defines("#define M 5\n");
        assert_eq!(t.values.get("M").map(String::as_str), Some("7"));

    }
}
