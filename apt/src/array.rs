//! Extents of Fortran array operations ([`frontend::array_op`]): the number of elements an
//! array-syntax statement visits, which the APT gives the statement as the trip count of an
//! implicit loop. A section's extent is the product over its dimensions of
//! `(hi - lo)/stride + 1` (a scalar subscript counts 1; an omitted bound is the declared
//! one); a whole array's is the product of its declared extents. Arrays whose extents the
//! declaration does not give (allocatable, pointer, assumed-shape) are unresolved with that
//! reason, and the traced runs measure them.
use frontend::{ArrayOp, DeclKind, Dim, ProcId, Program, SrcExpr, SrcExprKind};
use symbolic::Expr;

use crate::rules::trip_count;
use crate::value::{assumed, Val};
use crate::Attr;

/// Elements visited by `op`: the sum of its shapes' sizes, or of its library calls' work
/// ([`crate::library::work`]), or for `c = matmul(a, b)` the multiply-adds `size(a) *
/// columns(b)`. `ev` evaluates a source expression at the statement.
pub fn extent(
    prog: &Program,
    sources: &frontend::Sources,
    proc: ProcId,
    op: &ArrayOp<'_>,
    ev: &mut dyn FnMut(&SrcExpr) -> Val,
) -> Attr {
    if let Some((x, y)) = op.product {
        // matmul: size(x) multiply-adds per column of y (a vector has one)
        let ex = extents(prog, proc, x, ev);
        let ey = extents(prog, proc, y, ev);
        return match (ex, ey) {
            (Ok(ex), Ok(ey)) => {
                let cols = if ey.len() == 2 {
                    ey.get(1).cloned().unwrap_or_else(Expr::one)
                } else {
                    Expr::one()
                };
                Attr::Expr(ex.into_iter().fold(cols, |n, x| n * x))
            }
            (Err(r), _) | (_, Err(r)) => Attr::Unresolved(r),
        };
    }
    let mut total = Expr::zero();
    for call in &op.calls {
        match crate::library::work(sources, call, ev) {
            Attr::Expr(e) => total = total + e,
            other => return other,
        }
    }
    for shape in &op.shapes {
        match size(prog, proc, shape, ev) {
            Attr::Expr(e) => total = total + e,
            other => return other,
        }
    }
    Attr::Expr(total)
}

/// Declared dimensions of `array`, or why they are not known.
fn dims<'p>(prog: &'p Program, proc: ProcId, array: &str) -> Result<&'p [Dim], String> {
    match prog.decl(proc, array).map(|d| &d.kind) {
        Some(DeclKind::Array { dims, .. }) => Ok(dims),
        _ => Err(format!("`{array}` is not declared as an array here")),
    }
}

/// `which(array, dim)` (`size`, `lbound`, `ubound`) as the source would write it: known when
/// an ALLOCATE gave the array its bounds.
fn inquiry(which: &str, array: &str, dim: usize, at: &SrcExpr) -> SrcExpr {
    let dim = i64::try_from(dim).unwrap_or(i64::MAX);
    SrcExpr::new(
        SrcExprKind::Call {
            name: which.to_string(),
            args: vec![SrcExpr::var(array, at.span), SrcExpr::int(dim, at.span)],
        },
        at.span,
    )
}

/// Number of elements of one whole array or section.
fn size(
    prog: &Program,
    proc: ProcId,
    shape: &SrcExpr,
    ev: &mut dyn FnMut(&SrcExpr) -> Val,
) -> Attr {
    match extents(prog, proc, shape, ev) {
        Ok(v) => Attr::Expr(v.into_iter().fold(Expr::one(), |n, x| n * x)),
        Err(r) => Attr::Unresolved(r),
    }
}

/// Extent of each dimension of one whole array or section (a scalar subscript drops its
/// dimension): the shape an assumed-shape dummy takes from this actual. Or why not known.
pub fn extents(
    prog: &Program,
    proc: ProcId,
    shape: &SrcExpr,
    ev: &mut dyn FnMut(&SrcExpr) -> Val,
) -> Result<Vec<Expr>, String> {
    let known = |v: Val, what: &str| match v {
        Val::Known(e) => Ok(e),
        Val::Unknown(r) => Err(format!("{what} {r}")),
        Val::Special(_) | Val::OrNull(_) => Err(format!("{what} is an MPI constant")),
    };
    match &shape.kind {
        SrcExprKind::Var(array) => {
            let mut n = Vec::new();
            for (k, d) in dims(prog, proc, array)?.iter().enumerate() {
                n.push(match d {
                    Dim::Extent(e) => known(ev(e), "extent")?,
                    Dim::Bounds { lo, hi } => {
                        let lo = known(ev(lo), "bound")?;
                        let hi = known(ev(hi), "bound")?;
                        hi - lo + Expr::one()
                    }
                    // the bounds an ALLOCATE gave, or why they are not known
                    Dim::Assumed => match ev(&inquiry("size", array, k + 1, shape)) {
                        Val::Known(e) => e,
                        Val::Unknown(r) => return Err(r),
                        Val::Special(_) | Val::OrNull(_) => return Err(assumed(array)),
                    },
                });
            }
            Ok(n)
        }
        SrcExprKind::Index { array, indices } => {
            let dims = dims(prog, proc, array)?;
            let mut n = Vec::new();
            for (k, idx) in indices.iter().enumerate() {
                let SrcExprKind::Range { lo, hi, step } = &idx.kind else {
                    if frontend::array::is_array_valued(prog, proc, idx) {
                        return Err(format!("vector subscript of `{array}`"));
                    }
                    continue;
                };
                let dim = dims.get(k);
                let bound = |e: &Option<Box<SrcExpr>>,
                             upper: bool,
                             ev: &mut dyn FnMut(&SrcExpr) -> Val|
                 -> Result<Val, String> {
                    if let Some(e) = e {
                        return Ok(ev(e));
                    }
                    match dim {
                        Some(Dim::Bounds { lo, hi }) => Ok(ev(if upper { hi } else { lo })),
                        Some(Dim::Extent(e)) if upper => Ok(ev(e).known().map_or_else(
                            || Val::unknown("unknown extent"),
                            |x| Val::Known(x - Expr::one()),
                        )),
                        Some(Dim::Extent(_)) => Ok(Val::Known(Expr::zero())),
                        _ => {
                            let which = if upper { "ubound" } else { "lbound" };
                            match ev(&inquiry(which, array, k + 1, idx)) {
                                v @ Val::Known(_) => Ok(v),
                                Val::Unknown(r) => Err(r),
                                Val::Special(_) | Val::OrNull(_) => Err(assumed(array)),
                            }
                        }
                    }
                };
                let lo = bound(lo, false, ev)?;
                let hi = bound(hi, true, ev)?;
                let step = match step {
                    Some(s) => ev(s),
                    None => Val::Known(Expr::one()),
                };
                match trip_count(&lo, &hi, &step) {
                    Attr::Expr(e) => n.push(e),
                    Attr::Unresolved(r) => return Err(r),
                    _ => return Err(format!("section of `{array}`")),
                }
            }
            Ok(n)
        }
        _ => Err("not an array reference".into()),
    }
}
