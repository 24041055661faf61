//! Fortran loops built from GOTO → IR `While`: a post-test loop (`10 CONTINUE … IF (c) GOTO
//! 10`, `post_test`) and a pre-test loop (`10 IF (c) GOTO 20 … GOTO 10` / `20 …`, condition
//! negated); a `GOTO 20` to the statement after the loop, from its body outside inner loops,
//! is a `Break`.
//!
//! Only structured loops: the closing GOTO is the only jump to the loop's label, no jump
//! enters the body from outside, and the only jump out of the body goes to the label of the
//! statement right after the loop (and no jump from outside reaches that label when the loop
//! uses it). Anything else stays opaque with the GOTO warning, whose note names the reason.
use tree_sitter::Node;

use super::{children, FLower};
use crate::ir::*;
use crate::lower::parse_int;

/// Jumps and labels of one scoping unit, by byte offset in the assembled text.
#[derive(Debug, Default)]
pub(super) struct Jumps {
    /// (label, offset of the reference, offsets of the DO loops enclosing it).
    refs: Vec<(u32, usize, Vec<usize>)>,
    /// (label, offset of the label).
    defs: Vec<(u32, usize)>,
}

/// One statement of a list with the label before it: indices into the node list.
#[derive(Debug, Clone, Copy)]
pub(super) struct Item {
    pub label: Option<u32>,
    /// The label node, or the statement when it has none.
    pub first: usize,
    pub stmt: usize,
}

/// A recognised loop: items `from..=to` (`to` closes it).
struct Shape {
    from: usize,
    /// First item of the body.
    body: usize,
    to: usize,
    /// The exit test of a pre-test loop (an item index).
    test: Option<usize>,
    /// Label of the statement after the loop, jumped to from the loop.
    exit: Option<u32>,
}

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

/// `!c` with comparisons flipped (`a >= b` → `a < b`) and `.not.` removed.
pub(super) fn negate(c: SrcExpr) -> SrcExpr {
    let span = c.span;
    match c.kind {
        SrcExprKind::Binary { op, lhs, rhs } if op.is_comparison() => {
            let flipped = match op {
                BinOp::Eq => BinOp::Ne,
                BinOp::Ne => BinOp::Eq,
                BinOp::Lt => BinOp::Ge,
                BinOp::Le => BinOp::Gt,
                BinOp::Gt => BinOp::Le,
                _ => BinOp::Lt,
            };
            let mut e = SrcExpr::binary(flipped, *lhs, *rhs);
            e.span = span;
            e
        }
        SrcExprKind::Unary {
            op: UnOp::Not,
            operand,
        } => *operand,
        kind => {
            let ty = c.ty;
            let inner = SrcExpr { kind, span, ty };
            SrcExpr::new(
                SrcExprKind::Unary {
                    op: UnOp::Not,
                    operand: Box::new(inner),
                },
                span,
            )
            .with_type(Some(BaseType::Logical))
        }
    }
}

impl<'a> FLower<'a> {
    /// Collects the jumps and labels of a scoping unit (internal procedures excluded).
    pub(super) fn collect_jumps(&self, nodes: &[Node<'a>]) -> Jumps {
        let mut j = Jumps::default();
        let mut formats = Vec::new();
        let mut stack: Vec<(Node, Vec<usize>)> =
            nodes.iter().rev().map(|n| (*n, Vec::new())).collect();
        while let Some((n, dos)) = stack.pop() {
            match n.kind() {
                "internal_procedures" => continue,
                "statement_label_reference" => {
                    if let Some(l) = parse_int(self.text(n)).and_then(|v| u32::try_from(v).ok()) {
                        j.refs.push((l, n.start_byte(), dos.clone()));
                    }
                }
                "statement_label" => {
                    if let Some(l) = parse_int(self.text(n)).and_then(|v| u32::try_from(v).ok()) {
                        j.defs.push((l, n.start_byte()));
                        if n.next_named_sibling()
                            .is_some_and(|s| s.kind() == "format_statement")
                        {
                            formats.push(l);
                        }
                    }
                }
                _ => {}
            }
            let mut inner = dos;
            if n.kind() == "do_loop" {
                inner.push(n.start_byte());
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
        items: &[Item],
        i: usize,
        out: &mut Block,
    ) -> Option<usize> {
        let shape = self.loop_shape(nodes, items, i)?;
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
            None => (self.cond_of(closing), self.span(node(shape.from)), true),
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

    /// The structured GOTO loop whose label is on item `i`, if any; an unstructured one
    /// leaves a note for its closing GOTO's warning.
    fn loop_shape(&mut self, nodes: &[Node<'a>], items: &[Item], i: usize) -> Option<Shape> {
        let label = items[i].label?;
        let node = |k: usize| nodes[items[k].stmt];
        // pre-test: `L IF (c) GOTO M` (or `L CONTINUE` then it) … `GOTO L`, then `M …`
        let test = if self.if_goto(node(i)).is_some() {
            Some(i)
        } else if self.is_continue(node(i))
            && items.get(i + 1).is_some_and(|x| x.label.is_none())
            && i + 1 < items.len()
            && self.if_goto(node(i + 1)).is_some()
        {
            Some(i + 1)
        } else {
            None
        };
        let shape = match test {
            Some(t) => {
                let exit = self.if_goto(node(t))?;
                let to = (t + 1..items.len()).find(|&k| self.plain_goto(node(k)) == Some(label))?;
                if items.get(to + 1).and_then(|x| x.label) != Some(exit) {
                    return None;
                }
                Shape {
                    from: i,
                    body: t + 1,
                    to,
                    test: Some(t),
                    exit: Some(exit),
                }
            }
            None => {
                let to = (i + 1..items.len()).find(|&k| {
                    self.if_goto(node(k)) == Some(label) || self.plain_goto(node(k)) == Some(label)
                })?;
                if self.if_goto(node(to)).is_none() {
                    // `GOTO L` without a test at the top: an endless loop left by jumps
                    self.goto_notes.insert(
                        node(to).start_byte(),
                        "a loop closed by an unconditional GOTO needs its exit test at the top"
                            .into(),
                    );
                    return None;
                }
                let first = node(i);
                let one_line = first.start_position().row == first.end_position().row;
                let simple = !matches!(
                    first.kind(),
                    "if_statement" | "do_loop" | "select_case_statement" | "where_statement"
                );
                if !one_line || !simple {
                    self.goto_notes.insert(
                        self.goto_at(node(to)),
                        "the loop's labelled statement spans several lines".into(),
                    );
                    return None;
                }
                Shape {
                    from: i,
                    body: i,
                    to,
                    test: None,
                    exit: items.get(to + 1).and_then(|x| x.label),
                }
            }
        };
        let lo = nodes[items[shape.from].first].start_byte();
        let hi = node(shape.to).end_byte();
        let closing = self.goto_at(node(shape.to));
        match self.unstructured(&shape, label, lo, hi) {
            Some(why) => {
                self.goto_notes.insert(closing, why);
                None
            }
            None => Some(shape),
        }
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

    /// Why the loop over bytes `lo..hi` with label `label` is not structured, if it is not.
    fn unstructured(&self, shape: &Shape, label: u32, lo: usize, hi: usize) -> Option<String> {
        let inside = |p: usize| lo <= p && p < hi;
        let defined_inside = |l: u32| self.jumps.defs.iter().any(|(d, at)| *d == l && inside(*at));
        let to_label = self.jumps.refs.iter().filter(|r| r.0 == label).count();
        if to_label > 1 {
            return Some(format!("{to_label} jumps reach its label {label}"));
        }
        // backward jumps inside the body: inner loops a jump out must not cross
        let inner: Vec<(usize, usize)> = self
            .jumps
            .refs
            .iter()
            .filter(|(l, at, _)| inside(*at) && *l != label)
            .filter_map(|(l, at, _)| {
                let d = self
                    .jumps
                    .defs
                    .iter()
                    .find(|(d, p)| d == l && inside(*p) && p < at)?;
                Some((d.1, *at))
            })
            .collect();
        let uses_exit = shape.test.is_some()
            || self
                .jumps
                .refs
                .iter()
                .any(|(l, at, _)| Some(*l) == shape.exit && inside(*at));
        for (l, at, dos) in &self.jumps.refs {
            let exit = Some(*l) == shape.exit;
            if !inside(*at) {
                if defined_inside(*l) {
                    return Some(format!("a jump from outside enters its body (label {l})"));
                }
                if exit && uses_exit {
                    return Some(format!(
                        "a jump from outside also reaches the label after it ({l})"
                    ));
                }
                continue;
            }
            if defined_inside(*l) || *l == label {
                continue;
            }
            if !exit {
                return Some(format!(
                    "a jump leaves it for label {l}, not for the statement after it"
                ));
            }
            let in_do = dos.iter().any(|d| *d >= lo);
            let in_goto_loop = inner.iter().any(|(a, b)| a < at && at < b);
            if in_do || in_goto_loop {
                return Some(format!(
                    "a jump to label {l} leaves an inner loop and it together"
                ));
            }
        }
        None
    }
}
