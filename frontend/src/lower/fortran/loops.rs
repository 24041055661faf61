//! Fortran DO loops → IR: counted loops, DO WHILE and bare DO, labelled nests whose
//! shared terminator statement runs in the innermost loop.
use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{children, norm, FLower};
use crate::ir::*;
use crate::lower::parse_int;
use crate::parse::FieldExt;

impl<'a> FLower<'a> {
    pub(super) fn do_loop(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        // a plain GOTO to the statement after the loop leaves it: a `break`
        let exit = self.next_label.take();
        let span = self.span(n);
        // a construct name (`outer: do …`) comes first; `exit outer` / `cycle outer` keep it
        // in their text (apt's cap, codegen's exit markers read it there)
        let kids: Vec<Node<'a>> = children(n)
            .into_iter()
            .skip_while(|k| k.kind() == "block_label_start_expression")
            .collect();
        let Some(head) = kids.first().copied().filter(|k| k.kind() == "do_statement") else {
            return self.opaque(n, label, "do loop", BTreeSet::new(), out);
        };
        let mut body_nodes = Vec::new();
        let mut end_span = span;
        let my_label = self.do_label(n);
        let mut end_label = my_label;
        // a terminator statement handed down by an enclosing loop ending on the same label
        let mut terminator: Vec<Node<'a>> = match self.pending_terminator.take() {
            Some((l, nodes)) if Some(l) == my_label => nodes,
            other => {
                self.pending_terminator = other;
                Vec::new()
            }
        };
        for (i, k) in kids.iter().enumerate().skip(1) {
            match k.kind() {
                "end_do_loop_statement" => {
                    end_span = self.span(*k);
                    // `200 end do`: the label precedes it (or opens it)
                    let before = kids[i - 1];
                    let label = children(*k)
                        .into_iter()
                        .chain((before.kind() == "statement_label").then_some(before))
                        .find(|c| c.kind() == "statement_label");
                    end_label = end_label.or_else(|| {
                        label
                            .and_then(|l| parse_int(self.text(l)))
                            .and_then(|v| u32::try_from(v).ok())
                    });
                }
                "end_do_label_loop_statement" => {
                    end_span = self.span(*k);
                    // a terminator that is a real statement belongs to the body
                    for c in children(*k) {
                        let ck = c.kind();
                        let is_continue = ck == "keyword_statement"
                            && self.text(c).trim().eq_ignore_ascii_case("continue");
                        if !matches!(ck, "statement_label" | "do_label_virtual" | "comment")
                            && !is_continue
                        {
                            terminator.push(c);
                        }
                    }
                }
                _ => body_nodes.push(*k),
            }
        }
        // `DO 10 J ... DO 10 I ... 10 A(I,J) = 0`: the shared terminator runs in the
        // innermost loop, which tree-sitter closes with a virtual label
        let inner_shares = body_nodes
            .iter()
            .rev()
            .find(|b| b.kind() != "comment")
            .is_some_and(|b| {
                b.kind() == "do_loop" && my_label.is_some() && self.do_label(*b) == my_label
            });
        if inner_shares && !terminator.is_empty() {
            self.pending_terminator = my_label.map(|l| (l, std::mem::take(&mut terminator)));
        }
        body_nodes.extend(terminator);
        let header_span = self.span(head);
        let control = children(head)
            .into_iter()
            .find(|c| c.kind() == "loop_control_expression");
        let whiled = children(head)
            .into_iter()
            .find(|c| c.kind() == "while_statement");
        let mut header = control.and_then(|ctl| {
            let parts = children(ctl);
            if parts.len() < 3 {
                return None;
            }
            let var = norm(self.text(parts[0]));
            let lo = self.expr(parts[1], 0);
            let hi = self.expr(parts[2], 0);
            let step = match parts.get(3) {
                Some(s) => self.expr(*s, 0),
                None => SrcExpr::int(1, hi.span),
            };
            Some((LoopIndex { var, lo, hi, step }, None))
        });
        if header.is_none() {
            header = self.concurrent_header(head);
        }
        if let Some((first, concurrent)) = header {
            let LoopIndex { var, lo, hi, step } = first;
            let more = concurrent.iter().flat_map(|c| &c.more);
            let bounds = more.flat_map(|x| [&x.lo, &x.hi, &x.step]);
            let mask = concurrent.iter().filter_map(|c| c.mask.as_ref());
            let all: Vec<&SrcExpr> = [&lo, &hi, &step]
                .into_iter()
                .chain(bounds)
                .chain(mask)
                .collect();
            for e in all {
                self.hoist_nested(e, out);
            }
            let id = self.b.alloc(span, label);
            self.goto_exits.push(exit);
            self.do_ends.extend(end_label);
            let body = self.body(&body_nodes, id, span);
            self.do_ends
                .truncate(self.do_ends.len() - usize::from(end_label.is_some()));
            self.goto_exits.pop();
            let l = Loop {
                var,
                lo,
                hi,
                step,
                body,
                header_span,
                end_span,
                end_label,
                concurrent,
            };
            self.b
                .fill(id, StmtKind::Loop(l), BTreeSet::new(), BTreeSet::new());
            out.push(id);
            return;
        }
        let cond = whiled.and_then(|w| w.named_child(0)).map(|c| {
            let inner = if c.kind() == "parenthesized_expression" {
                c.named_child(0).unwrap_or(c)
            } else {
                c
            };
            self.expr(inner, 0)
        });
        if let Some(c) = &cond {
            self.hoist_nested(c, out);
        }
        let id = self.b.alloc(span, label);
        self.goto_exits.push(exit);
        self.do_ends.extend(end_label);
        let body = self.body(&body_nodes, id, span);
        self.do_ends
            .truncate(self.do_ends.len() - usize::from(end_label.is_some()));
        self.goto_exits.pop();
        let w = While {
            cond,
            init: Vec::new(),
            body,
            update: Vec::new(),
            post_test: false,
            header_span,
            end_span,
            end_label,
        };
        self.b
            .fill(id, StmtKind::While(w), BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    /// A `FORALL` (construct or statement) is a DO CONCURRENT over its triplets with its mask:
    /// the same iterations, the same work, and nothing may be timed inside it.
    pub(super) fn forall(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let span = self.span(n);
        let mut indices = Vec::new();
        let mut mask = None;
        let mut body_nodes = Vec::new();
        let mut end_span = span;
        let mut header_end = n.start_byte();
        for k in children(n) {
            match k.kind() {
                "block_label_start_expression" | "statement_label" | "comment" => {}
                "triplet_spec" => {
                    let parts = children(k);
                    let (Some(var), Some(lo), Some(hi)) =
                        (parts.first(), parts.get(1), parts.get(2))
                    else {
                        return self.opaque(n, label, "forall", BTreeSet::new(), out);
                    };
                    let lo = self.expr(*lo, 0);
                    let hi = self.expr(*hi, 0);
                    let step = match parts.get(3) {
                        Some(s) => self.expr(*s, 0),
                        None => SrcExpr::int(1, hi.span),
                    };
                    indices.push(LoopIndex {
                        var: norm(self.text(*var)),
                        lo,
                        hi,
                        step,
                    });
                    header_end = k.end_byte();
                }
                "end_forall_statement" => end_span = self.span(k),
                kind if kind.ends_with("_statement") || kind == "subroutine_call" => {
                    body_nodes.push(k);
                }
                // the mask, after the triplets
                _ if body_nodes.is_empty() => {
                    mask = Some(self.expr(k, 0));
                    header_end = k.end_byte();
                }
                _ => body_nodes.push(k),
            }
        }
        let mut indices = indices.into_iter();
        let Some(LoopIndex { var, lo, hi, step }) = indices.next() else {
            return self.opaque(n, label, "forall", BTreeSet::new(), out);
        };
        // the header runs to the parenthesis closing its triplets and mask
        let rest = self
            .src
            .get(header_end..n.end_byte())
            .and_then(|t| t.find(')'))
            .map_or(header_end, |i| header_end + i + 1);
        let header_span = self.asm.span(n.start_byte(), rest, self.main);
        let concurrent = Some(Box::new(Concurrent {
            more: indices.collect(),
            mask,
        }));
        let id = self.b.alloc(span, label);
        let body = self.body(&body_nodes, id, span);
        let l = Loop {
            var,
            lo,
            hi,
            step,
            body,
            header_span,
            end_span,
            end_label: None,
            concurrent,
        };
        self.b
            .fill(id, StmtKind::Loop(l), BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    /// The indices and mask of `DO CONCURRENT (j = 1:ny, i = 1:nx, mask)` (its first index,
    /// then the others); `None` for any other DO or a header without an index.
    fn concurrent_header(&mut self, head: Node) -> Option<(LoopIndex, Option<Box<Concurrent>>)> {
        let header = children(head)
            .into_iter()
            .find(|c| c.kind() == "concurrent_statement")
            .and_then(|c| {
                children(c)
                    .into_iter()
                    .find(|h| h.kind() == "concurrent_header")
            })?;
        let mut indices = Vec::new();
        let mut mask = None;
        for c in children(header) {
            match c.kind() {
                "concurrent_control" => {
                    let var = c.named_child(0).filter(|v| v.kind() == "identifier")?;
                    let var = norm(self.text(var));
                    let lo = self.expr(c.field("initial")?, 0);
                    let hi = self.expr(c.field("final")?, 0);
                    let step = match c.field("step") {
                        Some(s) => self.expr(s, 0),
                        None => SrcExpr::int(1, hi.span),
                    };
                    indices.push(LoopIndex { var, lo, hi, step });
                }
                "concurrent_mask" => {
                    mask = c.named_child(0).map(|m| self.expr(m, 0));
                }
                _ => {}
            }
        }
        let mut indices = indices.into_iter();
        let first = indices.next()?;
        let more = indices.collect();
        Some((first, Some(Box::new(Concurrent { more, mask }))))
    }

    /// The label of a labelled DO (`DO 10 I = ...` → 10).
    pub(super) fn do_label(&self, n: Node) -> Option<u32> {
        let head = n.named_child(0).filter(|h| h.kind() == "do_statement")?;
        let l = head.field("do_label")?;
        parse_int(self.text(l)).and_then(|v| u32::try_from(v).ok())
    }
}
