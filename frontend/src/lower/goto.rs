//! Loops built from goto, for both languages: which statement lists hold one, found on a
//! language-neutral description of the list (labels, jumps, byte offsets) that each
//! language's lowering builds from its own tree.
//!
//! Two shapes: a post-test loop (`L: … if (c) goto L`) and a pre-test loop (`L: if (c) goto
//! M; … goto L;` with `M:` the statement after it, the condition negated). Only structured
//! ones: the closing jump is the only one to `L`, no jump enters the body from outside, the
//! only jump out of the body goes to the label of the statement right after the loop (and no
//! jump from outside reaches that label when the loop uses it), and no `break`/`continue`
//! (`EXIT`/`CYCLE`) in the body leaves it for a loop around it. Anything else stays opaque;
//! the reason is returned for the closing jump's warning.
use std::fmt::Display;

use crate::ir::*;

/// What a statement of the list is, as far as goto loops care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step<L> {
    /// `if (c) goto L` (a logical IF whose only statement is the jump).
    IfGoto(L),
    /// `goto L`.
    Goto(L),
    /// A statement doing nothing (`CONTINUE`, `;`): may stand before a pre-test loop's test.
    Nop,
    Plain,
}

/// One statement of a list with the label before it.
#[derive(Debug, Clone)]
pub(crate) struct Item<L> {
    pub label: Option<L>,
    /// Index (in the caller's node list) of the label node, or of the statement without one.
    pub first: usize,
    /// Index of the statement.
    pub stmt: usize,
    pub step: Step<L>,
    /// The statement may open a post-test loop (its markers can go before it).
    pub simple: bool,
    /// Bytes of the statement, its label included.
    pub lo: usize,
    pub hi: usize,
    /// Offset of the jump in an `IfGoto`/`Goto` statement (the key of its warning's note).
    pub goto_at: usize,
}

/// Jumps and labels of one procedure, by byte offset.
#[derive(Debug)]
pub(crate) struct Jumps<L> {
    /// (label, offset of the jump, offsets of the loops enclosing it).
    pub refs: Vec<(L, usize, Vec<usize>)>,
    /// (label, offset of the label).
    pub defs: Vec<(L, usize)>,
    /// `break`/`continue` (`EXIT`/`CYCLE`): (offset, offsets of the constructs it may leave
    /// or continue).
    pub escapes: Vec<(usize, Vec<usize>)>,
}

impl<L> Default for Jumps<L> {
    fn default() -> Self {
        Jumps {
            refs: Vec::new(),
            defs: Vec::new(),
            escapes: Vec::new(),
        }
    }
}

/// A recognised loop: items `from..=to` (`to` closes it).
#[derive(Debug, Clone)]
pub(crate) struct Shape<L> {
    pub from: usize,
    /// First item of the body.
    pub body: usize,
    pub to: usize,
    /// The exit test of a pre-test loop (an item index).
    pub test: Option<usize>,
    /// Label of the statement after the loop, jumped to from the loop.
    pub exit: Option<L>,
}

/// Why there is no loop at an item: nothing to say, or a note for the jump at an offset.
pub(crate) type NoLoop = Option<(usize, String)>;

/// The structured goto loop whose label is on item `i`, if any.
pub(crate) fn loop_shape<L: Clone + Eq + Display>(
    items: &[Item<L>],
    i: usize,
    jumps: &Jumps<L>,
) -> Result<Shape<L>, NoLoop> {
    let label = items[i].label.clone().ok_or(None)?;
    let if_goto = |k: usize| match &items[k].step {
        Step::IfGoto(l) => Some(l.clone()),
        _ => None,
    };
    let plain = |k: usize| match &items[k].step {
        Step::Goto(l) => Some(l.clone()),
        _ => None,
    };
    // pre-test: `L: if (c) goto M` (or `L: ;` then it) … `goto L`, then `M: …`
    let test = if if_goto(i).is_some() {
        Some(i)
    } else if items[i].step == Step::Nop
        && items
            .get(i + 1)
            .is_some_and(|x| x.label.is_none() && matches!(x.step, Step::IfGoto(_)))
    {
        Some(i + 1)
    } else {
        None
    };
    let shape = match test {
        Some(t) => {
            let exit = if_goto(t).ok_or(None)?;
            let to = (t + 1..items.len())
                .find(|&k| plain(k).as_ref() == Some(&label))
                .ok_or(None)?;
            if items.get(to + 1).and_then(|x| x.label.as_ref()) != Some(&exit) {
                return Err(None);
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
            let to = (i + 1..items.len())
                .find(|&k| if_goto(k).as_ref() == Some(&label) || plain(k).as_ref() == Some(&label))
                .ok_or(None)?;
            if if_goto(to).is_none() {
                // `goto L` without a test at the top: an endless loop left by jumps
                let why = "a loop closed by an unconditional GOTO needs its exit test at the top";
                return Err(Some((items[to].goto_at, why.into())));
            }
            if !items[i].simple {
                let why = "the loop's labelled statement spans several lines";
                return Err(Some((items[to].goto_at, why.into())));
            }
            Shape {
                from: i,
                body: i,
                to,
                test: None,
                exit: items.get(to + 1).and_then(|x| x.label.clone()),
            }
        }
    };
    let (lo, hi) = (items[shape.from].lo, items[shape.to].hi);
    match unstructured(jumps, &shape, &label, lo, hi) {
        Some(why) => Err(Some((items[shape.to].goto_at, why))),
        None => Ok(shape),
    }
}

/// Why the loop over bytes `lo..hi` with label `label` is not structured, if it is not.
fn unstructured<L: Eq + Display>(
    jumps: &Jumps<L>,
    shape: &Shape<L>,
    label: &L,
    lo: usize,
    hi: usize,
) -> Option<String> {
    let inside = |p: usize| lo <= p && p < hi;
    let defined_inside = |l: &L| jumps.defs.iter().any(|(d, at)| d == l && inside(*at));
    let to_label = jumps.refs.iter().filter(|r| &r.0 == label).count();
    if to_label > 1 {
        return Some(format!("{to_label} jumps reach its label {label}"));
    }
    // backward jumps inside the body: inner loops a jump out must not cross
    let inner: Vec<(usize, usize)> = jumps
        .refs
        .iter()
        .filter(|(l, at, _)| inside(*at) && l != label)
        .filter_map(|(l, at, _)| {
            let d = jumps
                .defs
                .iter()
                .find(|(d, p)| d == l && inside(*p) && p < at)?;
            Some((d.1, *at))
        })
        .collect();
    let uses_exit = shape.test.is_some()
        || jumps
            .refs
            .iter()
            .any(|(l, at, _)| Some(l) == shape.exit.as_ref() && inside(*at));
    for (l, at, dos) in &jumps.refs {
        let exit = Some(l) == shape.exit.as_ref();
        if !inside(*at) {
            if defined_inside(l) {
                return Some(format!("a jump from outside enters its body (label {l})"));
            }
            if exit && uses_exit {
                return Some(format!(
                    "a jump from outside also reaches the label after it ({l})"
                ));
            }
            continue;
        }
        if defined_inside(l) || l == label {
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
    let escapes = jumps
        .escapes
        .iter()
        .any(|(at, around)| inside(*at) && !around.iter().any(|d| *d >= lo));
    if escapes {
        return Some("a loop exit or cycle in its body belongs to the loop around it".into());
    }
    None
}

/// `!c` with comparisons flipped (`a >= b` → `a < b`) and a negation removed.
pub(crate) fn negate(c: SrcExpr) -> SrcExpr {
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
