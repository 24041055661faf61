//! Fortran loops built from GOTO → IR `While`: a post-test loop (`10 CONTINUE … IF (c) GOTO
//! 10`, `post_test`) and a pre-test loop (`10 IF (c) GOTO 20 … GOTO 10` / `20 …`, condition
//! negated); a `GOTO 20` to the statement after the loop, from its body outside inner loops,
//! is a `Break`. An arithmetic IF closes a post-test loop when the labels it jumps back with
//! are the loop's and the others go to the statement after it (`10 CONTINUE … IF (K - N) 10,
//! 30, 30` / `30 …`: `while K - N < 0`).
//!
//! Only structured loops: the closing GOTO is the only jump to the loop's label, no jump
//! enters the body from outside, and the only jump out of the body goes to the label of the
//! statement right after the loop (and no jump from outside reaches that label when the loop
//! uses it). Anything else stays opaque with the GOTO warning, whose note names the reason.
use tree_sitter::Node;

use super::{children, FLower};
use crate::ir::*;
use crate::lower::goto::{loop_shape, negate, Item, Jumps, Step};
use crate::lower::parse_int;

/// The label a plain `GOTO n` / `GO TO n` jumps to.
fn goto_target(text: &str) -> Option<u32> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '&')
        .collect::<String>()
        .to_ascii_lowercase();
    let rest = compact.strip_prefix("goto")?;
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    parse_int(rest).and_then(|v| u32::try_from(v).ok())
}

impl<'a> FLower<'a> {
    /// Collects the jumps and labels of a scoping unit (internal procedures excluded).
    pub(super) fn collect_jumps(&self, nodes: &[Node<'a>]) -> Jumps<u32> {
        let mut j = Jumps::default();
        let mut formats = Vec::new();
        // offset of a named DO → its name (lower case)
        let mut names: std::collections::BTreeMap<usize, String> = Default::default();
        let mut stack: Vec<(Node, Vec<usize>)> =
            nodes.iter().rev().map(|n| (*n, Vec::new())).collect();
        while let Some((n, dos)) = stack.pop() {
            match n.kind() {
                "internal_procedures" => continue,
                // `DO 30 I = …` names its terminator, it does not jump to it
                "statement_label_reference"
                    if n.parent().is_some_and(|p| p.kind() == "do_statement") => {}
                "statement_label_reference" => {
                    if let Some(l) = parse_int(self.text(n)).and_then(|v| u32::try_from(v).ok()) {
                        j.refs.push((l, n.start_byte(), dos.clone()));
                    }
                }
                // a shared terminator's label (`30 CONTINUE` ending `DO 30 I`, `DO 30 J`) is
                // the inner loop's virtual label; the outer one's is empty
                "statement_label" | "do_label_virtual" => {
                    if let Some(l) = parse_int(self.text(n)).and_then(|v| u32::try_from(v).ok()) {
                        j.defs.push((l, n.start_byte()));
                        if n.next_named_sibling()
                            .is_some_and(|s| s.kind() == "format_statement")
                        {
                            formats.push(l);
                        }
                    }
                }
                "keyword_statement" => {
                    let t = self.text(n).trim_start().to_ascii_lowercase();
                    let word = ["exit", "cycle"].into_iter().find(|w| t.starts_with(w));
                    if let Some(w) = word {
                        // `exit outer` leaves the DO named `outer` alone (none: a construct
                        // that is not a DO around it)
                        let name = t[w.len()..]
                            .trim()
                            .trim_end_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
                        let leaves = if name.is_empty() {
                            dos.clone()
                        } else {
                            dos.iter()
                                .rev()
                                .find(|d| names.get(*d).is_some_and(|x| x == name))
                                .into_iter()
                                .copied()
                                .collect()
                        };
                        j.escapes.push((n.start_byte(), leaves));
                    }
                }
                _ => {}
            }
            let mut inner = dos;
            if n.kind() == "do_loop" {
                inner.push(n.start_byte());
                let label = n
                    .named_child(0)
                    .filter(|k| k.kind() == "block_label_start_expression");
                if let Some(k) = label {
                    let name = self.text(k).trim().trim_end_matches(':').trim();
                    names.insert(n.start_byte(), name.to_ascii_lowercase());
                }
            }
            let kids = children(n);
            stack.extend(kids.into_iter().rev().map(|c| (c, inner.clone())));
        }
        // a FORMAT label is read by I/O statements, never jumped to
        j.refs.retain(|(l, _, _)| !formats.contains(l));
        j
    }

    /// `IF (c) GOTO n` written as a logical IF: (the IF, n).
    fn if_goto(&self, n: Node<'a>) -> Option<u32> {
        if n.kind() != "if_statement" {
            return None;
        }
        let kids = children(n);
        let [cond, body] = kids.as_slice() else {
            return None;
        };
        if cond.kind() != "parenthesized_expression" || body.kind() != "keyword_statement" {
            return None;
        }
        goto_target(self.text(*body))
    }

    /// `IF (e) l1, l2, l3` jumping back to one label (defined before it) for some signs of
    /// `e` and forward to one other label for the rest: (the label jumped back to, which of
    /// negative/zero/positive jump there).
    fn arith_back(&self, n: Node<'a>) -> Option<(u32, [bool; 3])> {
        if n.kind() != "arithmetic_if_statement" {
            return None;
        }
        let labels: Vec<u32> = children(n)
            .into_iter()
            .filter(|c| c.kind() == "statement_label_reference")
            .map(|c| parse_int(self.text(c)).and_then(|v| u32::try_from(v).ok()))
            .collect::<Option<_>>()?;
        let [_, _, _] = labels.as_slice() else {
            return None;
        };
        let at = n.start_byte();
        let before = |l: u32| self.jumps.defs.iter().any(|(d, p)| *d == l && *p < at);
        let back: Vec<u32> = labels.iter().copied().filter(|l| before(*l)).collect();
        let fwd: Vec<u32> = labels.iter().copied().filter(|l| !before(*l)).collect();
        let (Some(&b), Some(&f)) = (back.first(), fwd.first()) else {
            return None;
        };
        if back.iter().any(|l| *l != b) || fwd.iter().any(|l| *l != f) {
            return None;
        }
        let signs = [labels[0] == b, labels[1] == b, labels[2] == b];
        Some((b, signs))
    }

    /// The condition under which the statement closing a post-test loop jumps back: a
    /// logical IF's, or the signs of an arithmetic IF's expression that jump back.
    fn back_cond(&mut self, n: Node<'a>) -> SrcExpr {
        let Some((_, signs)) = self.arith_back(n) else {
            return self.cond_of(n);
        };
        let e = self.cond_of(n);
        let op = match signs {
            [true, false, false] => BinOp::Lt,
            [true, true, false] => BinOp::Le,
            [false, true, true] => BinOp::Ge,
            [false, false, true] => BinOp::Gt,
            [true, false, true] => BinOp::Ne,
            _ => BinOp::Eq,
        };
        let span = e.span;
        // `K - N < 0` is `K < N`, the form the loop analysis knows
        let (l, r) = match e.kind {
            SrcExprKind::Binary {
                op: BinOp::Sub,
                lhs,
                rhs,
            } => (*lhs, *rhs),
            kind => (SrcExpr { kind, ..e }, SrcExpr::int(0, span)),
        };
        let mut c = SrcExpr::binary(op, l, r);
        c.span = span;
        c.with_type(Some(BaseType::Logical))
    }

    fn plain_goto(&self, n: Node<'a>) -> Option<u32> {
        (n.kind() == "keyword_statement")
            .then(|| goto_target(self.text(n)))
            .flatten()
    }

    fn is_continue(&self, n: Node<'a>) -> bool {
        n.kind() == "keyword_statement" && self.text(n).trim().eq_ignore_ascii_case("continue")
    }

    /// Lowers the GOTO loop starting at item `i` when there is a structured one; returns the
    /// index of the item after it.
    pub(super) fn goto_loop(
        &mut self,
        nodes: &[Node<'a>],
        items: &[Item<u32>],
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
        let start = nodes[items[shape.from].first];
        let closing = node(shape.to);
        let span = self.span(start).cover(self.span(closing));
        let (cond, header_span, post_test) = match shape.test {
            Some(t) => {
                let c = self.cond_of(node(t));
                let header = self.span(node(shape.from)).cover(self.span(node(t)));
                (negate(c), header, false)
            }
            None => (self.back_cond(closing), self.span(node(shape.from)), true),
        };
        let id = self.b.alloc(span, None);
        let body_nodes = &nodes[items[shape.body].first..items[shape.to].first];
        self.goto_exits.push(shape.exit);
        let body = self.body(body_nodes, id, span);
        self.goto_exits.pop();
        let w = While {
            cond: Some(cond),
            init: Vec::new(),
            body,
            update: Vec::new(),
            post_test,
            header_span,
            end_span: self.span(closing),
            end_label: None,
        };
        self.b.fill(
            id,
            StmtKind::While(w),
            Default::default(),
            Default::default(),
        );
        out.push(id);
        Some(shape.to + 1)
    }

    /// Byte offset of the GOTO in a closing statement (`IF (c) GOTO L` or `GOTO L`).
    fn goto_at(&self, n: Node<'a>) -> usize {
        if n.kind() == "if_statement" {
            if let Some(k) = children(n).last() {
                return k.start_byte();
            }
        }
        n.start_byte()
    }

    /// The statement at `stmt` (label node at `first`) as the shared shape check sees it.
    pub(super) fn item(
        &self,
        nodes: &[Node<'a>],
        label: Option<u32>,
        first: usize,
        stmt: usize,
    ) -> Item<u32> {
        let n = nodes[stmt];
        let step = if let Some(l) = self.if_goto(n) {
            Step::IfGoto(l)
        } else if let Some((l, _)) = self.arith_back(n) {
            Step::IfGoto(l)
        } else if let Some(l) = self.plain_goto(n) {
            Step::Goto(l)
        } else if self.is_continue(n) {
            Step::Nop
        } else {
            Step::Plain
        };
        // markers go on lines of their own before the labelled statement
        let one_line = n.start_position().row == n.end_position().row;
        let simple = one_line
            && !matches!(
                n.kind(),
                "if_statement" | "do_loop" | "select_case_statement" | "where_statement"
            );
        Item {
            label,
            first,
            stmt,
            step,
            simple,
            lo: nodes[first].start_byte(),
            hi: n.end_byte(),
            goto_at: self.goto_at(n),
        }
    }
}
