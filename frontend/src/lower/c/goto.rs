//! C loops built from `goto` → IR `While`: a post-test loop (`L: … if (c) goto L;`,
//! `post_test`) and a pre-test loop (`L: if (c) goto M; … goto L; M: …`, condition negated);
//! a `goto M` to the statement after the loop, from its body outside inner loops, is a
//! `Break`. The shape check is the one shared with Fortran (`lower/goto.rs`); this file only
//! describes a compound statement's list and the function's jumps to it.
use std::collections::BTreeSet;

use tree_sitter::Node;

use super::CLower;
use crate::ir::*;
use crate::lower::goto::{loop_shape, negate, Item, Jumps, Step};
use crate::parse::FieldExt;

impl<'a> CLower<'a> {
    /// Collects the `goto`s, labels, `break`s and `continue`s of a function body.
    pub(super) fn collect_jumps(&self, body: Node<'a>) -> Jumps<String> {
        let mut j = Jumps::default();
        // (node, enclosing loops, enclosing loops and switches)
        let mut stack: Vec<(Node, Vec<usize>, Vec<usize>)> = vec![(body, Vec::new(), Vec::new())];
        while let Some((n, loops, breakable)) = stack.pop() {
            match n.kind() {
                "goto_statement" => {
                    if let Some(l) = n.field("label") {
                        j.refs
                            .push((self.text(l).to_string(), n.start_byte(), loops.clone()));
                    }
                }
                "labeled_statement" => {
                    if let Some(l) = n.field("label") {
                        j.defs.push((self.text(l).to_string(), n.start_byte()));
                    }
                }
                "break_statement" => j.escapes.push((n.start_byte(), breakable.clone())),
                "continue_statement" => j.escapes.push((n.start_byte(), loops.clone())),
                _ => {}
            }
            let (mut loops, mut breakable) = (loops, breakable);
            match n.kind() {
                "for_statement" | "while_statement" | "do_statement" => {
                    loops.push(n.start_byte());
                    breakable.push(n.start_byte());
                }
                "switch_statement" => breakable.push(n.start_byte()),
                _ => {}
            }
            for c in Self::children(n).into_iter().rev() {
                stack.push((c, loops.clone(), breakable.clone()));
            }
        }
        j
    }

    /// The label `goto L;` (or `{ goto L; }`) jumps to.
    fn goto_label(&self, n: Node<'a>) -> Option<(String, usize)> {
        let g = match n.kind() {
            "goto_statement" => n,
            "compound_statement" => match Self::children(n).as_slice() {
                [g] if g.kind() == "goto_statement" => *g,
                _ => return None,
            },
            _ => return None,
        };
        Some((self.text(g.field("label")?).to_string(), g.start_byte()))
    }

    /// `if (c) goto L;` without an else: (c, L, offset of the goto).
    fn if_goto(&self, n: Node<'a>) -> Option<(Node<'a>, String, usize)> {
        if n.kind() != "if_statement" || n.field("alternative").is_some() {
            return None;
        }
        let (l, at) = self.goto_label(n.field("consequence")?)?;
        Some((n.field("condition")?, l, at))
    }

    /// The statement a label stands before (`L: stmt` → stmt), and the label.
    fn unlabel(&self, n: Node<'a>) -> (Option<String>, Node<'a>) {
        if n.kind() == "labeled_statement" {
            let label = n.field("label").map(|l| self.text(l).to_string());
            let inner = Self::children(n)
                .into_iter()
                .find(|x| x.kind() != "statement_identifier");
            if let Some(inner) = inner {
                return (label, inner);
            }
        }
        (None, n)
    }

    /// The list's statements as the shared shape check sees them.
    fn items(&self, nodes: &[Node<'a>]) -> Vec<Item<String>> {
        let mut items = Vec::new();
        for (k, n) in nodes.iter().enumerate() {
            if n.kind() == "comment" {
                continue;
            }
            let (label, inner) = self.unlabel(*n);
            let (step, goto_at) = if let Some((_, l, at)) = self.if_goto(inner) {
                (Step::IfGoto(l), at)
            } else if let Some((l, at)) = self.goto_label(inner) {
                (Step::Goto(l), at)
            } else if inner.kind() == "expression_statement" && inner.named_child_count() == 0 {
                (Step::Nop, inner.start_byte())
            } else {
                (Step::Plain, inner.start_byte())
            };
            items.push(Item {
                label,
                first: k,
                stmt: k,
                step,
                // the iteration count goes right after the label: any statement may follow
                simple: inner.kind() != "labeled_statement",
                lo: n.start_byte(),
                hi: n.end_byte(),
                goto_at,
            });
        }
        items
    }

    /// Lowers a statement list, turning structured goto loops into `While`s.
    pub(super) fn stmts(&mut self, nodes: &[Node<'a>], out: &mut Block) {
        let items = self.items(nodes);
        let mut i = 0;
        while i < items.len() {
            if items[i].label.is_some() {
                if let Some(next) = self.goto_loop(nodes, &items, i, out) {
                    i = next;
                    continue;
                }
            }
            self.stmt(nodes[items[i].stmt], out);
            i += 1;
        }
    }

    /// Lowers the goto loop starting at item `i` when there is a structured one; returns the
    /// index of the item after it.
    fn goto_loop(
        &mut self,
        nodes: &[Node<'a>],
        items: &[Item<String>],
        i: usize,
        out: &mut Block,
    ) -> Option<usize> {
        let shape = match loop_shape(items, i, &self.jumps) {
            Ok(shape) => shape,
            Err(note) => {
                if let Some((at, why)) = note {
                    self.goto_notes.insert(at, why);
                }
                return None;
            }
        };
        let node = |k: usize| nodes[items[k].stmt];
        let closing = node(shape.to);
        let span = self.span(node(shape.from)).cover(self.span(closing));
        let (_, closing_inner) = self.unlabel(closing);
        let (cond, header_span, post_test) = match shape.test {
            Some(t) => {
                let (_, test) = self.unlabel(node(t));
                let c = self.if_goto(test).map(|(c, _, _)| self.cond(c))?;
                let header = self.span(node(shape.from)).cover(self.span(node(t)));
                (negate(c), header, false)
            }
            None => {
                let c = self.if_goto(closing_inner).map(|(c, _, _)| self.cond(c))?;
                (c, self.span(node(shape.from)), true)
            }
        };
        let id = self.b.alloc(span, None);
        let saved = self.b.parent.replace(id);
        let mut body = Vec::new();
        if self.b.enter(span) {
            self.goto_exits.push(shape.exit.clone());
            self.stmts(
                &nodes[items[shape.body].first..items[shape.to].first],
                &mut body,
            );
            self.goto_exits.pop();
            self.b.leave();
        }
        self.b.parent = saved;
        let w = While {
            cond: Some(cond),
            init: Vec::new(),
            body,
            update: Vec::new(),
            post_test,
            header_span,
            end_span: self.span(closing_inner),
            end_label: None,
        };
        self.b
            .fill(id, StmtKind::While(w), BTreeSet::new(), BTreeSet::new());
        out.push(id);
        Some(shape.to + 1)
    }
}
