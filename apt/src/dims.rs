//! `MPI_Dims_create(P, d, dims)` with `dims` zeroed before (the usual idiom): the balanced
//! grid, every extent `P^(1/d)`, taken as the symbolic value of `dims`' elements. MPI
//! factors `P` as evenly as it can, so this is exact when `P` is a perfect `d`-th power and
//! an approximation otherwise (P = 8 in 2-D gives 4 × 2, not 2.83 × 2.83): the APT keeps a
//! note saying so, for the report to show beside a model written in `P^(1/d)`.
use symbolic::{Expr, Rational};

use crate::value::Val;

/// The most dimensions given balanced extents.
const MAX_DIMS: i64 = 3;

/// What a `MPI_Dims_create` call leaves in `dims`, when the source tells.
#[derive(Debug)]
pub struct Balanced {
    /// (element path, value), `dims[0]`… (C) or `dims[1]`… (Fortran, from `lower`).
    pub elements: Vec<(String, Val)>,
    /// Why the values are approximate; `None` when they are exact (one dimension).
    pub note: Option<String>,
}

/// The extents `MPI_Dims_create(nnodes, ndims, root)` gives, when `ndims` is a constant from
/// 1 to 3, `nnodes` is known, and every element of `root` is known to be zero before the call
/// (`zero(path)`). `lower` is the index of the first element; `fortran` picks the spelling of
/// the note.
pub fn balanced(
    nnodes: &Val,
    ndims: &Val,
    root: &str,
    lower: i64,
    fortran: bool,
    zero: impl Fn(&str) -> bool,
    line: u32,
) -> Option<Balanced> {
    let p = nnodes.known()?;
    let d = ndims.known()?.as_const()?;
    if d.fract() != 0.0 || !(1.0..=MAX_DIMS as f64).contains(&d) {
        return None;
    }
    let d = d as i64;
    let paths: Vec<String> = (lower..lower + d).map(|k| format!("{root}[{k}]")).collect();
    if !paths.iter().all(|x| zero(x)) {
        return None;
    }
    let value = p.pow(Rational::new(1, d)?);
    let elements = paths
        .iter()
        .map(|x| (x.clone(), Val::Known(value.clone())))
        .collect();
    let name = |k: i64| {
        if fortran {
            format!("{root}({k})")
        } else {
            format!("{root}[{k}]")
        }
    };
    let listed: Vec<String> = (lower..lower + d).map(name).collect();
    let note = match d {
        1 => None,
        2 => Some(format!(
            "MPI_Dims_create at line {line}: {} taken as {value} each, the balanced grid; \
             exact when {p} is a square, otherwise MPI's factors differ (8 ranks give 4 x 2)",
            listed.join(" and ")
        )),
        _ => Some(format!(
            "MPI_Dims_create at line {line}: {} taken as {value} each, the balanced grid; \
             exact when {p} is a cube, otherwise MPI's factors differ (16 ranks give 4 x 2 x 2)",
            listed.join(", ")
        )),
    };
    Some(Balanced { elements, note })
}

/// Whether a value is the constant zero.
pub fn is_zero(v: Option<&Val>) -> bool {
    v.and_then(Val::known)
        .and_then(Expr::as_const)
        .is_some_and(|c| c == 0.0)
}
