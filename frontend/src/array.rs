//! Fortran array syntax: an assignment to an array section or a whole array (`u(1:nx, j) =
//! ...`, `a = b + c`) and a reduction over one (`maxval(abs(a(1:n, 1:m)))`, `sum(u)`) are
//! implicit loop nests. [`array_op`] finds them in the IR so that the APT can count their
//! elements as work and codegen can time and count them like loops: both ask this one
//! function, so they agree on which statements are array operations.
//!
//! Rules:
//! - only Fortran assignments; C has no array syntax;
//! - an assignment whose target is a whole array or a section visits the target's elements
//!   (reductions on its right side are not counted again);
//! - otherwise each reduction intrinsic in the value visits the elements of its first
//!   array-valued operand (`sum(a(1:n)) + maxval(b)` visits both);
//! - a statement that calls a procedure of the program is not an array operation: the
//!   callee's own nodes hold its work, and the APT keeps the call as a CALL node;
//! - a call of a computing library routine ([`crate::library`]) is an implicit loop too, of
//!   kind [`ArrayOpKind::Library`]: a call statement in both languages (`qsort(...);`,
//!   `call dgemm(...)`), and in Fortran an assignment whose value calls one (`s = ddot(...)`;
//!   the whole statement is timed, as array syntax is). A C call inside a larger expression
//!   is not one: codegen cannot wrap it (it may be a declaration's initialiser);
//! - an assignment whose value is `matmul(a, b)` visits the target's elements but does
//!   `size(a) * columns(b)` multiply-adds ([`ArrayOp::product`]): that is its work.
use crate::intrinsics::{self, Class};
use crate::ir::{
    DeclKind, Language, Opaque, ProcId, Program, SrcExpr, SrcExprKind, Stmt, StmtKind,
};
use crate::library::{library_call, library_calls_in, LibraryCall};

/// How an array operation visits its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayOpKind {
    /// An assignment to the section or whole array in [`ArrayOp::shapes`] (exactly one).
    Assign,
    /// Reductions, one shape per reduction call.
    Reduce,
    /// Calls of computing library routines ([`ArrayOp::calls`], at least one; no shapes):
    /// the work is the sum of their laws.
    Library,
}

/// One array-syntax statement: the array expressions whose elements it visits (the number of
/// elements visited is the sum of their sizes).
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayOp<'a> {
    pub kind: ArrayOpKind,
    /// `Var` (a whole array) or `Index` with a section or vector subscript.
    pub shapes: Vec<&'a SrcExpr>,
    /// [`ArrayOpKind::Library`]: the library calls, in source order.
    pub calls: Vec<LibraryCall<'a>>,
    /// `c = matmul(a, b)`: the operands `a`, `b`; the work is `size(a)` times the columns of
    /// `b` (1 for a vector), not the target's elements.
    pub product: Option<(&'a SrcExpr, &'a SrcExpr)>,
}

impl ArrayOp<'_> {
    /// The assignment's target is a whole array (its shape may be set by the assignment
    /// itself: an unallocated allocatable is allocated by it).
    pub fn whole_target(&self) -> bool {
        self.kind == ArrayOpKind::Assign
            && self
                .shapes
                .first()
                .is_some_and(|e| matches!(e.kind, SrcExprKind::Var(_)))
    }
}

/// Whether `name` is declared as an array in `proc` (locals, then globals/module variables).
pub fn is_array(prog: &Program, proc: ProcId, name: &str) -> bool {
    matches!(
        prog.decl(proc, name).map(|d| &d.kind),
        Some(DeclKind::Array { .. })
    )
}

/// Whether `e` denotes more than one element: a whole array, a section (`a(1:n, j)`), a
/// vector subscript, or arithmetic and elemental intrinsics over one.
pub fn is_array_valued(prog: &Program, proc: ProcId, e: &SrcExpr) -> bool {
    match &e.kind {
        SrcExprKind::Var(v) => is_array(prog, proc, v),
        SrcExprKind::Index { array, indices } => {
            is_array(prog, proc, array)
                && indices.iter().any(|i| {
                    matches!(i.kind, SrcExprKind::Range { .. }) || is_array_valued(prog, proc, i)
                })
        }
        SrcExprKind::Unary { operand, .. } => is_array_valued(prog, proc, operand),
        SrcExprKind::Binary { lhs, rhs, .. } => {
            is_array_valued(prog, proc, lhs) || is_array_valued(prog, proc, rhs)
        }
        SrcExprKind::Call { name, args }
            if intrinsics::lookup(name, Language::Fortran).is_some_and(|x| x.is_elemental()) =>
        {
            args.iter().any(|a| is_array_valued(prog, proc, a))
        }
        _ => false,
    }
}

/// The rank of a whole array or section (`None` for anything else): a whole array's declared
/// rank, a section's number of ranges and vector subscripts.
pub fn rank(prog: &Program, proc: ProcId, e: &SrcExpr) -> Option<usize> {
    match &e.kind {
        SrcExprKind::Var(v) => match prog.decl(proc, v).map(|d| &d.kind) {
            Some(DeclKind::Array { dims, .. }) => Some(dims.len()),
            _ => None,
        },
        SrcExprKind::Index { array, indices } if is_array(prog, proc, array) => Some(
            indices
                .iter()
                .filter(|i| {
                    matches!(i.kind, SrcExprKind::Range { .. }) || is_array_valued(prog, proc, i)
                })
                .count(),
        ),
        _ => None,
    }
}

/// The first whole array or section referenced in `e` (pre-order).
fn first_shape<'a>(prog: &Program, proc: ProcId, e: &'a SrcExpr) -> Option<&'a SrcExpr> {
    e.walk().into_iter().find(|x| {
        matches!(x.kind, SrcExprKind::Var(_) | SrcExprKind::Index { .. })
            && is_array_valued(prog, proc, x)
    })
}

/// Reduction calls in `e`, outermost only, with the shape each visits.
fn reductions<'a>(prog: &Program, proc: ProcId, e: &'a SrcExpr, out: &mut Vec<&'a SrcExpr>) {
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if let SrcExprKind::Call { name, args } = &x.kind {
            if intrinsics::is_fortran(name, Class::Reduction) {
                if let Some(s) = args.first().and_then(|a| first_shape(prog, proc, a)) {
                    out.push(s);
                }
                continue;
            }
        }
        stack.extend(x.children().into_iter().rev());
    }
}

/// Whether a statement's expressions call a procedure defined in the program.
fn calls_user_proc(prog: &Program, s: &Stmt, exprs: &[&SrcExpr]) -> bool {
    exprs.iter().flat_map(|e| e.walk()).any(|x| {
        let name = match &x.kind {
            SrcExprKind::Call { name, .. } => name,
            SrcExprKind::Index { array, .. } => array,
            _ => return false,
        };
        prog.proc_by_name(name).is_some() && !is_array(prog, s.proc, name)
    })
}

/// The array operation statement `s` performs, if it is one (module doc).
pub fn array_op<'a>(prog: &Program, s: &'a Stmt) -> Option<ArrayOp<'a>> {
    if let StmtKind::Call(c) = &s.kind {
        let exprs: Vec<&SrcExpr> = c.args.iter().collect();
        if calls_user_proc(prog, s, &exprs) {
            return None;
        }
        return library_call(prog, s.proc, &c.name, &c.args).map(|call| ArrayOp {
            kind: ArrayOpKind::Library,
            shapes: Vec::new(),
            calls: vec![call],
            product: None,
        });
    }
    if prog.language != Language::Fortran {
        return None;
    }
    // a WHERE: the elements of its first masked assignment's target
    if let StmtKind::Opaque(Opaque {
        masked: Some(target),
        ..
    }) = &s.kind
    {
        return Some(ArrayOp {
            kind: ArrayOpKind::Assign,
            shapes: vec![target],
            calls: Vec::new(),
            product: None,
        });
    }
    let StmtKind::Assign(a) = &s.kind else {
        return None;
    };
    if calls_user_proc(prog, s, &[&a.target, &a.value]) {
        return None;
    }
    let target = matches!(
        a.target.kind,
        SrcExprKind::Var(_) | SrcExprKind::Index { .. }
    ) && is_array_valued(prog, s.proc, &a.target);
    if target {
        let product = match &a.value.kind {
            SrcExprKind::Call { name, args } if name == "matmul" => match args.as_slice() {
                [x, y] if is_array_valued(prog, s.proc, x) && is_array_valued(prog, s.proc, y) => {
                    Some((x, y))
                }
                _ => None,
            },
            _ => None,
        };
        return Some(ArrayOp {
            kind: ArrayOpKind::Assign,
            shapes: vec![&a.target],
            calls: Vec::new(),
            product,
        });
    }
    let mut shapes = Vec::new();
    reductions(prog, s.proc, &a.value, &mut shapes);
    if !shapes.is_empty() {
        return Some(ArrayOp {
            kind: ArrayOpKind::Reduce,
            shapes,
            calls: Vec::new(),
            product: None,
        });
    }
    let calls = library_calls_in(prog, s.proc, &[&a.value]);
    (!calls.is_empty()).then_some(ArrayOp {
        kind: ArrayOpKind::Library,
        shapes: Vec::new(),
        calls,
        product: None,
    })
}
