//! `MPI_Dims_create(P, d, dims)` with `dims` zeroed before (the usual idiom): element `k` of
//! `dims` becomes the symbolic `dims(P, d, k)`, the k-th extent Open MPI gives, or
//! `smpi_dims(P, d, k)`, SimGrid SMPI's (see `symbolic`'s `dims.rs`; [`crate::AptOptions`]
//! chooses): exact at every P, so 8 ranks in 2-D are 4 × 2 and a message of `N/dims[0]`
//! elements is `N/4` there, not `N/2.83`. The APT keeps a note naming the extents, for the
//! report to explain `dims(P, 2, 0)` in a model and to say which MPI's factoring it is.
use symbolic::Expr;

use crate::value::Val;

/// What a `MPI_Dims_create` call leaves in `dims`, when the source tells.
#[derive(Debug)]
pub struct Balanced {
    /// (element path, value), `dims[0]`… (C) or `dims[1]`… (Fortran, from `lower`).
    pub elements: Vec<(String, Val)>,
    /// What the values are; `None` for one dimension (`dims[0]` is `P`).
    pub note: Option<String>,
}

/// The `dims` array of a `MPI_Dims_create` call and whose rule fills it.
#[derive(Debug, Clone, Copy)]
pub struct Grid<'a> {
    /// The array's name.
    pub root: &'a str,
    /// The index of its first element.
    pub lower: i64,
    /// Spell the note's elements `dims(1)`, not `dims[1]`.
    pub fortran: bool,
    pub rule: symbolic::DimsRule,
}

/// The extents `MPI_Dims_create(nnodes, ndims, grid.root)` gives, when `ndims` is a constant
/// from 1 to [`symbolic::MAX_DIMS`], `nnodes` is known, and every element of the array is known
/// to be zero before the call (`zero(path)`).
pub fn balanced(
    nnodes: &Val,
    ndims: &Val,
    grid: &Grid<'_>,
    zero: impl Fn(&str) -> bool,
    line: u32,
) -> Option<Balanced> {
    let Grid {
        root,
        lower,
        fortran,
        rule,
    } = *grid;
    let p = nnodes.known()?;
    let d = ndims.known()?.as_const()?;
    if d.fract() != 0.0 || !(1.0..=f64::from(symbolic::MAX_DIMS)).contains(&d) {
        return None;
    }
    let d = d as u32;
    let paths: Vec<String> = (lower..lower + i64::from(d))
        .map(|k| format!("{root}[{k}]"))
        .collect();
    if !paths.iter().all(|x| zero(x)) {
        return None;
    }
    let values: Vec<Expr> = (0..d)
        .map(|k| Expr::dims_by(rule, p, d, k))
        .collect::<Option<_>>()?;
    let name = |k: i64| {
        if fortran {
            format!("{root}({k})")
        } else {
            format!("{root}[{k}]")
        }
    };
    let listed: Vec<String> = (lower..lower + i64::from(d)).map(name).collect();
    // a constant P needs no explaining, nor one dimension (the extent is P)
    let note = (d > 1 && p.as_const().is_none()).then(|| {
        let shown: Vec<String> = values.iter().map(Expr::to_string).collect();
        let split = |n: u64| {
            rule.create(n, d)
                .unwrap_or_default()
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" x ")
        };
        // 2^(d+1) ranks show the uneven split: 4 x 2, 4 x 2 x 2, …
        let n = 1u64 << (d + 1);
        let how = match rule {
            symbolic::DimsRule::OpenMpi => format!(
                "Open MPI makes of {p} ranks (prime factors, largest first, to the smallest \
                 extent: {n} ranks give {})",
                split(n)
            ),
            symbolic::DimsRule::SimGrid => format!(
                "SimGrid SMPI makes of {p} ranks (factors, largest first, to the smallest \
                 extent, an odd prime's square kept whole: {n} ranks give {}, 9 give {})",
                split(n),
                split(9)
            ),
        };
        format!(
            "MPI_Dims_create at line {line}: {} are {}, the grid {how}; another MPI library \
             may factor differently",
            join(&listed),
            join(&shown),
        )
    });
    let elements = paths
        .into_iter()
        .zip(values)
        .map(|(x, v)| (x, Val::Known(v)))
        .collect();
    Some(Balanced { elements, note })
}

/// `a and b`, `a, b and c`.
fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Whether a value is the constant zero.
pub fn is_zero(v: Option<&Val>) -> bool {
    v.and_then(Val::known)
        .and_then(Expr::as_const)
        .is_some_and(|c| c == 0.0)
}
