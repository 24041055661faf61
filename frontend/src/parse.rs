//! tree-sitter parsing (the only place parsers are made) and syntax-error diagnostics from
//! ERROR / MISSING nodes, mapped back to original files.
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Language, Node, ParseOptions, Parser, Tree};

use crate::diagnostic::{codes, Diagnostic};
use crate::ir::FileId;
use crate::source_map::Assembled;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    C,
    Fortran,
}

/// `child_by_field_name` without tree-sitter's linear search over field names: ids are
/// looked up once per grammar (told apart by node-kind count) and thread and cached.
pub trait FieldExt<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>>;
}

struct FieldCache {
    kinds: usize,
    ids: HashMap<&'static str, std::num::NonZeroU16>,
}

thread_local! {
    static LOCAL: RefCell<Vec<FieldCache>> = const { RefCell::new(Vec::new()) };
}

fn field_id(lang: &tree_sitter::LanguageRef, name: &'static str) -> Option<std::num::NonZeroU16> {
    let kinds = lang.node_kind_count();
    LOCAL.with(|local| {
        let mut local = local.borrow_mut();
        let idx = match local.iter().position(|c| c.kinds == kinds) {
            Some(i) => i,
            None => {
                local.push(FieldCache {
                    kinds,
                    ids: HashMap::new(),
                });
                local.len() - 1
            }
        };
        let cache = local.get_mut(idx)?;
        if let Some(id) = cache.ids.get(name) {
            return Some(*id);
        }
        let id = lang.field_id_for_name(name)?;
        cache.ids.insert(name, id);
        Some(id)
    })
}

impl<'t> FieldExt<'t> for Node<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>> {
        let id = field_id(&self.language(), name)?;
        self.child_by_field_id(id.get())
    }
}

/// Parsing stops (and the file is reported) after this long.
const PARSE_TIME_LIMIT: Duration = Duration::from_secs(120);
/// At most this many syntax errors are reported per program.
const MAX_SYNTAX_DIAGS: usize = 25;

pub fn language(g: Grammar) -> Language {
    match g {
        Grammar::C => tree_sitter_c::LANGUAGE.into(),
        Grammar::Fortran => tree_sitter_fortran::LANGUAGE.into(),
    }
}

/// A parser for `g`; `Err` only if the grammar's ABI does not match the tree-sitter library.
pub fn parser(g: Grammar) -> Result<Parser, tree_sitter::LanguageError> {
    let mut p = Parser::new();
    p.set_language(&language(g))?;
    Ok(p)
}

thread_local! {
    /// One idle parser per grammar and thread: a reused parser keeps its grown buffers.
    static IDLE: RefCell<Vec<(Grammar, Parser)>> = const { RefCell::new(Vec::new()) };
}

/// A parser for `g`, reusing this thread's idle one if any.
pub fn take_parser(g: Grammar) -> Result<Parser, tree_sitter::LanguageError> {
    let idle = IDLE.with(|i| {
        let mut i = i.borrow_mut();
        i.iter()
            .position(|(k, _)| *k == g)
            .map(|pos| i.swap_remove(pos).1)
    });
    match idle {
        Some(p) => Ok(p),
        None => parser(g),
    }
}

/// Returns a parser taken with [`take_parser`].
pub fn give_back_parser(g: Grammar, mut p: Parser) {
    p.reset();
    IDLE.with(|i| i.borrow_mut().push((g, p)));
}

/// Parses `text`; `None` if tree-sitter gave up (time limit).
pub fn parse(parser: &mut Parser, text: &str) -> Option<Tree> {
    let bytes = text.as_bytes();
    let start = Instant::now();
    let mut progress = |_: &tree_sitter::ParseState| {
        if start.elapsed() > PARSE_TIME_LIMIT {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        None,
        Some(options),
    )
}

/// How much of the text the errors cover: the bytes of the outermost ERROR nodes, a MISSING
/// node one. Readings of one file are compared by it: one unbalanced parenthesis in fixed
/// form is one ERROR node spanning its program unit, where reading the file as free form
/// gives fewer, shorter errors and loses every statement (trial 21).
pub fn error_extent(tree: &Tree) -> usize {
    let mut n = 0;
    visit_errors(tree.root_node(), |e| n += e.byte_range().len().max(1));
    n
}

/// Calls `f` on each outermost ERROR node and each MISSING node, in order (explicit cursor,
/// no recursion).
fn visit_errors(root: Node, mut f: impl FnMut(Node)) {
    if !root.has_error() {
        return;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let descend = if node.is_error() || node.is_missing() {
            f(node);
            false
        } else {
            node.has_error()
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Whether the tree is deeper than `limit` (explicit cursor walk, stops early).
pub fn depth_exceeds(tree: &Tree, limit: usize) -> bool {
    let mut cursor = tree.walk();
    let mut depth = 0usize;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > limit {
                return true;
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

/// Byte ranges (in `text`, from `start`) of the Fortran statements whose parentheses do not
/// balance: where an error that tree-sitter's recovery spread over several lines (`if (n > 3
/// then` ... `end if`) most likely is. A statement continued with `&` (fixed form arrives
/// normalised so) is counted over all its lines and reported from its first line to its
/// last; blank and comment lines between them do not end it.
fn unbalanced_lines(text: &str, start: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = start;
    let mut depth = 0i32;
    // byte range of the statement so far (from its first line's code to the current line's)
    let mut stmt: Option<(usize, usize)> = None;
    for line in text.split_inclusive('\n') {
        let mut quote: Option<char> = None;
        let mut code_end = line.len();
        for (i, c) in line.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '!') => {
                    code_end = i;
                    break;
                }
                (None, '(') => depth += 1,
                (None, ')') => depth -= 1,
                _ => {}
            }
        }
        let code = line.get(..code_end).unwrap_or("").trim_end();
        let lead = code.len() - code.trim_start().len();
        if code.trim_start().is_empty() {
            at += line.len();
            continue;
        }
        let first = stmt.map_or(at + lead, |(a, _)| a);
        stmt = Some((first, at + code.len()));
        if !code.ends_with('&') {
            if depth != 0 {
                out.extend(stmt);
            }
            depth = 0;
            stmt = None;
        }
        at += line.len();
    }
    if depth != 0 {
        out.extend(stmt);
    }
    out
}

/// `at`, or when only blanks and comments precede it on its line, the end of the code of
/// the nearest line above with code.
fn end_of_code_before(text: &str, at: usize) -> usize {
    let mut end = at.min(text.len());
    loop {
        let start = text[..end].rfind('\n').map_or(0, |i| i + 1);
        let len = crate::labels::code_len(&text[start..end]);
        if len > 0 || start == 0 {
            return if len > 0 { start + len } else { at };
        }
        end = start - 1;
    }
}

/// Diagnostics for the syntax errors of `tree` (parsed from `asm.text`). `fortran`: an error
/// spanning several lines is reported at its lines with unbalanced parentheses when there are
/// any (tree-sitter's recovery often starts the ERROR node lines before the culprit).
pub fn syntax_diagnostics(
    tree: &Tree,
    asm: &Assembled,
    main: FileId,
    fortran: bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut total = 0usize;
    visit_errors(tree.root_node(), |node| {
        let text = asm.text.get(node.byte_range()).unwrap_or("");
        let lines = if fortran && !node.is_missing() && text.trim_end().contains('\n') {
            unbalanced_lines(text, node.start_byte())
        } else {
            Vec::new()
        };
        if !lines.is_empty() {
            for (a, b) in lines {
                total += 1;
                if out.len() >= MAX_SYNTAX_DIAGS {
                    continue;
                }
                let text = asm.text.get(a..b).unwrap_or("");
                let first: String = text.lines().next().unwrap_or("").chars().take(40).collect();
                out.push(
                    Diagnostic::error(
                        codes::SYNTAX,
                        format!("syntax error: unbalanced parentheses in `{first}`"),
                    )
                    .with_primary(asm.span(a, b, main), "not understood")
                    .with_note("the statements around it are kept as opaque text; analysis continues with the rest of the file"),
                );
            }
            return;
        }
        total += 1;
        if out.len() >= MAX_SYNTAX_DIAGS {
            return;
        }
        let span = if fortran && node.is_missing() {
            // recovery puts a token missing at a statement's end after the comment and blank
            // lines that follow it: point at the end of the statement's code instead
            let at = end_of_code_before(&asm.text, node.start_byte());
            asm.span(at, at, main)
        } else {
            asm.span(node.start_byte(), node.end_byte(), main)
        };
        let d = if node.is_missing() {
            Diagnostic::error(
                codes::MISSING,
                format!("syntax error: missing `{}`", node.kind()),
            )
            .with_primary(span, format!("expected `{}` here", node.kind()))
        } else {
            let text = asm.text.get(node.byte_range()).unwrap_or("");
            let first: String = text
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(40)
                .collect();
            Diagnostic::error(codes::SYNTAX, format!("syntax error: cannot parse `{first}`"))
                .with_primary(span, "not understood")
                .with_note("the statement is kept as opaque text; analysis continues with the rest of the file")
        };
        out.push(d);
    });
    if total > MAX_SYNTAX_DIAGS {
        let extra = total - MAX_SYNTAX_DIAGS;
        if let Some(last) = out.last_mut() {
            last.notes
                .push(format!("{extra} more syntax errors not shown"));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    /// ABI check: both grammars load into this tree-sitter (a version mismatch only shows
    /// at run time).
    #[test]
    fn both_grammars_load() {
        for g in [Grammar::C, Grammar::Fortran] {
            let mut p = parser(g).unwrap_or_else(|e| panic!("{g:?}: {e}"));
            let tree = parse(&mut p, "");
            assert!(tree.is_some());
        }
        assert_eq!(language(Grammar::C).abi_version(), 15);
        assert_eq!(language(Grammar::Fortran).abi_version(), 15);
    }

    #[test]
    fn errors_are_found_and_mapped() {
        let mut p = parser(Grammar::C).unwrap_or_else(|e| panic!("{e}"));
        let src = "int main() { int x = (1 + 2; return x; }\n";
        let tree = parse(&mut p, src).unwrap_or_else(|| panic!("no tree"));
        let mut a = Assembled::new();
        a.push_orig(FileId(0), 0, src);
        assert!(error_extent(&tree) > 0);
        let d = syntax_diagnostics(&tree, &a, FileId(0), false);
        assert!(!d.is_empty());
    }
}

#[cfg(test)]
mod unbalanced {
    use super::*;

    /// The text of an ERROR region: a statement continued with `&` balances over its lines
    /// (`n)` was reported on its own); the unbalanced `if` is reported.
    #[test]
    fn parentheses_balance_over_continued_lines() {
        let text = "  if (n > 3 then\n    call foo(n, &\n             n)\n  end if\n";
        let at: Vec<&str> = unbalanced_lines(text, 0)
            .into_iter()
            .map(|(a, b)| &text[a..b])
            .collect();
        assert_eq!(at, ["if (n > 3 then"]);
        // a comment line inside the statement does not end it; an unbalanced continued
        // statement is reported from its first line to its last
        let text = "x = f(a, &\n! why\n  b\ny = 1\n";
        let at: Vec<&str> = unbalanced_lines(text, 0)
            .into_iter()
            .map(|(a, b)| &text[a..b])
            .collect();
        assert_eq!(at, ["x = f(a, &\n! why\n  b"]);
    }

    /// Fixed form as the parser sees it: the continuation (column 6) normalised to `&`.
    #[test]
    fn fixed_form_continuations_balance_after_normalisation() {
        let src = "      IF (N .GT. 3 THEN\n         CALL FOO(N,\n     &            N)\n      \
                   END IF\n";
        let asm = crate::normalize::fixed_form(FileId(0), src, true);
        let at: Vec<u32> = unbalanced_lines(&asm.text, 0)
            .into_iter()
            .map(|(a, _)| asm.text[..a].matches('\n').count() as u32 + 1)
            .collect();
        assert_eq!(at, [1], "{}", asm.text);
    }
}
