//! C loops → IR: `for` headers recognised as counted loops (normalised to inclusive
//! bounds), everything else as `While` with its init and update.
use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{unwrap_declarator, CLower};
use crate::ir::*;
use crate::parse::FieldExt;

impl<'a> CLower<'a> {
    pub(super) fn while_stmt(&mut self, n: Node<'a>, out: &mut Block) {
        let post = n.kind() == "do_statement";
        let cond = n.field("condition").map(|c| self.cond(c));
        if let Some(c) = &cond {
            self.hoist_nested(c, out);
        }
        let span = self.span(n);
        let id = self.b.alloc(span, None);
        let body_node = n.field("body");
        let body = self.body(body_node, id);
        let end_span = self.end_span(body_node.unwrap_or(n));
        let header_span = match (post, cond.as_ref()) {
            (false, Some(c)) => Span::new(span.file, span.start, c.span.end.max(span.start)),
            _ => span,
        };
        let w = While {
            cond,
            init: Vec::new(),
            body,
            update: Vec::new(),
            post_test: post,
            header_span,
            end_span,
            end_label: None,
        };
        self.b
            .fill(id, StmtKind::While(w), BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    pub(super) fn for_stmt(&mut self, n: Node<'a>, out: &mut Block) {
        let span = self.span(n);
        let body_node = n.field("body");
        let header_end = body_node.map_or(span.end, |b| self.span(b).start);
        let header_span = Span::new(span.file, span.start, header_end);
        let end_span = self.end_span(body_node.unwrap_or(n));
        // `for (i = 1, j = 0; i < n; i++)`: counted over `i`, the other operands before it
        let init = n.field("initializer");
        let parts = init.map(super::stmt::comma_parts).unwrap_or_default();
        let counted = if parts.len() > 1 {
            parts.iter().enumerate().find_map(|(k, &p)| {
                let c = self.counted(n, Some(p))?;
                let others: Vec<Node> = parts
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != k)
                    .map(|(_, &q)| q)
                    .collect();
                // the others may not read or write the counter (they run before it is set)
                let var = c.0.clone();
                others
                    .iter()
                    .all(|q| !mentions(self.text(*q), &var))
                    .then_some((c, others))
            })
        } else {
            self.counted(n, init).map(|c| (c, Vec::new()))
        };
        if let Some(((var, lo, hi, step), others)) = counted {
            for q in others {
                self.expr_stmt(q, q, out);
            }
            let id = self.b.alloc(span, None);
            let body = self.body(body_node, id);
            let l = Loop {
                var,
                lo,
                hi,
                step,
                body,
                header_span,
                end_span,
                end_label: None,
                concurrent: None,
            };
            self.b
                .fill(id, StmtKind::Loop(l), BTreeSet::new(), BTreeSet::new());
            out.push(id);
            return;
        }
        let cond = n.field("condition").map(|c| self.expr(c, 0));
        let id = self.b.alloc(span, None);
        let saved = self.b.parent.replace(id);
        let mut init = Vec::new();
        if let Some(i) = n.field("initializer") {
            if i.kind() == "declaration" {
                self.stmt(i, &mut init);
            } else {
                self.expr_stmt(i, i, &mut init);
            }
        }
        let mut update = Vec::new();
        let mut c = n.walk();
        let updates: Vec<Node> = n.children_by_field_name("update", &mut c).collect();
        for u in updates {
            self.expr_stmt(u, u, &mut update);
        }
        self.b.parent = saved;
        let body = self.body(body_node, id);
        let w = While {
            cond,
            init,
            body,
            update,
            post_test: false,
            header_span,
            end_span,
            end_label: None,
        };
        self.b
            .fill(id, StmtKind::While(w), BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    /// Recognises `for (v = lo; v OP bound; v += step)` with `init` its initializer (or one
    /// operand of it); returns (var, lo, hi inclusive, step).
    pub(super) fn counted(
        &mut self,
        n: Node<'a>,
        init: Option<Node<'a>>,
    ) -> Option<(String, SrcExpr, SrcExpr, SrcExpr)> {
        let init = init?;
        let (var, lo_node) = match init.kind() {
            "assignment_expression" => {
                let l = init
                    .field("left")
                    .map(strip_parens)
                    .filter(|l| l.kind() == "identifier")?;
                if init.field("operator").map(|o| self.text(o)) != Some("=") {
                    return None;
                }
                (self.text(l).to_string(), init.field("right")?)
            }
            "declaration" => {
                let mut c = init.walk();
                let decls: Vec<Node> = init.children_by_field_name("declarator", &mut c).collect();
                let [d] = decls.as_slice() else { return None };
                let dd = unwrap_declarator(*d);
                let found = (self.text(dd.name?).to_string(), dd.init?);
                // `for (int k = ...)` declares k
                for (decl, _) in self.declaration(init) {
                    self.locals.insert(decl.name.clone(), decl.ty.clone());
                    if let Some(p) = self.b.proc_mut() {
                        p.decls.push(decl);
                    }
                }
                found
            }
            _ => return None,
        };
        let cond = n.field("condition")?;
        if cond.kind() != "binary_expression" {
            return None;
        }
        let mut op = self.text(cond.field("operator")?).to_string();
        let (cl, cr) = (
            strip_parens(cond.field("left")?),
            strip_parens(cond.field("right")?),
        );
        let bound_node = if cl.kind() == "identifier" && self.text(cl) == var {
            cr
        } else if cr.kind() == "identifier" && self.text(cr) == var {
            op = match op.as_str() {
                "<" => ">",
                "<=" => ">=",
                ">" => "<",
                ">=" => "<=",
                o => o,
            }
            .to_string();
            cl
        } else {
            return None;
        };
        let mut c = n.walk();
        let updates: Vec<Node> = n.children_by_field_name("update", &mut c).collect();
        let [upd] = updates.as_slice() else {
            return None;
        };
        let upd = *upd;
        let step: SrcExpr = match upd.kind() {
            "update_expression" => {
                let a = strip_parens(upd.field("argument")?);
                if self.text(a) != var {
                    return None;
                }
                let v = if self.text(upd).contains("--") { -1 } else { 1 };
                SrcExpr::int(v, self.span(upd))
            }
            "assignment_expression" => {
                let l = strip_parens(upd.field("left")?);
                if self.text(l) != var {
                    return None;
                }
                let r = upd.field("right")?;
                match self.text(upd.field("operator")?) {
                    "+=" => self.expr(r, 0),
                    "-=" => negate(self.expr(r, 0)),
                    "=" if r.kind() == "binary_expression" => {
                        let rl = strip_parens(r.field("left")?);
                        let rop = self.text(r.field("operator")?);
                        if self.text(rl) != var {
                            return None;
                        }
                        let k = self.expr(r.field("right")?, 0);
                        match rop {
                            "+" => k,
                            "-" => negate(k),
                            _ => return None,
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let sign = step.as_int().map(i64::signum);
        let up = match op.as_str() {
            "<" | "<=" => true,
            ">" | ">=" => false,
            "!=" => match sign {
                Some(1) => true,
                Some(-1) => false,
                _ => return None,
            },
            _ => return None,
        };
        if sign.is_some_and(|s| (s > 0) != up || s == 0) {
            return None;
        }
        if let Some(body) = n.field("body") {
            if text_may_write(self.text(body), &var) {
                return None;
            }
        }
        let lo = self.expr(lo_node, 0);
        let bound = self.expr(bound_node, 0);
        let hi = match op.as_str() {
            "<" | "!=" if up => offset(bound, -1),
            ">" | "!=" => offset(bound, 1),
            _ => bound,
        };
        Some((var, lo, hi, step))
    }
}

/// Whether C text names the identifier `var` anywhere.
fn mentions(text: &str, var: &str) -> bool {
    text.match_indices(var).any(|(i, _)| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        !text[..i].ends_with(word) && !text[i + var.len()..].starts_with(word)
    })
}

/// Whether C text may assign `var`: an occurrence of the identifier followed by an
/// assignment or `++`/`--`, or preceded by `++`, `--` or `&`. A text scan (conservative,
/// comments included) is much cheaper than walking the body's syntax tree for every loop.
pub(super) fn text_may_write(text: &str, var: &str) -> bool {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(pos) = text.get(from..).and_then(|t| t.find(var)) {
        let start = from + pos;
        let end = start + var.len();
        from = end;
        if (start > 0 && is_ident(bytes[start - 1])) || bytes.get(end).is_some_and(|b| is_ident(*b))
        {
            continue;
        }
        let after = text.get(end..).unwrap_or("").trim_start();
        let before = text.get(..start).unwrap_or("").trim_end();
        let assigns = after.starts_with("++")
            || after.starts_with("--")
            || (after.starts_with('=') && !after.starts_with("=="))
            || ["+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="]
                .iter()
                .any(|op| after.starts_with(op));
        let prefixed = before.ends_with("++")
            || before.ends_with("--")
            || (before.ends_with('&') && !before.ends_with("&&"));
        if assigns || prefixed {
            return true;
        }
    }
    false
}

/// `((x))` → `x`.
pub(super) fn strip_parens(mut n: Node) -> Node {
    for _ in 0..64 {
        match n.named_child(0) {
            Some(c) if n.kind() == "parenthesized_expression" => n = c,
            _ => break,
        }
    }
    n
}

pub(super) fn negate(e: SrcExpr) -> SrcExpr {
    match e.as_int() {
        Some(v) => SrcExpr::int(-v, e.span),
        None => {
            let span = e.span;
            let ty = e.ty;
            SrcExpr {
                kind: SrcExprKind::Unary {
                    op: UnOp::Neg,
                    operand: Box::new(e),
                },
                span,
                ty,
            }
        }
    }
}

/// `e + k`, folded when `e` is a literal; the result has `e`'s span.
pub fn offset(e: SrcExpr, k: i64) -> SrcExpr {
    let span = e.span;
    if let Some(v) = e.as_int() {
        return SrcExpr::int(v + k, span);
    }
    let (op, k) = if k < 0 {
        (BinOp::Sub, -k)
    } else {
        (BinOp::Add, k)
    };
    let mut out = SrcExpr::binary(op, e, SrcExpr::int(k, span));
    out.span = span;
    out
}

#[cfg(test)]
mod tests {
    use super::text_may_write;

    #[test]
    fn loop_variable_writes_are_found_in_text() {
        assert!(text_may_write("{ i += 2; }", "i"));
        assert!(text_may_write("{ i = 0; }", "i"));
        assert!(text_may_write("{ ++i; }", "i"));
        assert!(text_may_write("{ f(&i); }", "i"));
        assert!(!text_may_write("{ a[i] = i == 2 && ii++; }", "i"));
        assert!(!text_may_write("{ x = i + 1; }", "i"));
    }
}
