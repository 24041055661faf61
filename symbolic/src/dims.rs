//! The extents `MPI_Dims_create(n, d, dims)` gives with `dims` zeroed: the value of the atom
//! `dims(n, d, k)` (the k-th extent, from 0), as Open MPI computes it, so that a model whose
//! message sizes are `N/dims(P, 2, 0)` predicts what the program really sends.
//!
//! Open MPI's rule (`ompi/mpi/c/dims_create.c`): factor `n` into primes, give each prime,
//! largest first, to the currently smallest extent, then sort the extents largest first.
//! `tests/data/dims_create_openmpi.txt` holds what Open MPI 4.1.4 returned for n = 1..256,
//! d = 1..4, and `tests/dims.rs` checks this against it. The MPI standard only asks for extents
//! "as close to each other as possible"; other implementations may factor differently (this
//! greedy rule gives 12 × 6 for 72 in 2-D where 9 × 8 is closer), and SimGrid SMPI 3.32 gives
//! 9 × 1 for 9, so a model written with this atom describes Open MPI runs.

/// The largest dimension count the atom accepts.
pub const MAX_DIMS: u32 = 8;

/// The largest `n` evaluated: MPI's `nnodes` is a C `int`.
const MAX_N: u64 = i32::MAX as u64;

/// Relative distance from a whole number within which `n` counts as that number (a rank
/// count computed in floating point, `2^3` or `1e6`, is not exactly whole).
const WHOLE_TOL: f64 = 1e-9;

/// The extents of `MPI_Dims_create(n, d, dims)` with `dims` zeroed, largest first; `None`
/// when `n` is 0 or above `i32::MAX`, or `d` is 0 or above [`MAX_DIMS`].
pub fn dims_create(n: u64, d: u32) -> Option<Vec<u64>> {
    if n == 0 || n > MAX_N || d == 0 || d > MAX_DIMS {
        return None;
    }
    let mut bins = vec![1u64; d as usize];
    for f in prime_factors(n).into_iter().rev() {
        // the first smallest extent (which of equal ones does not matter: they are sorted)
        let mut at = 0;
        for (i, b) in bins.iter().enumerate() {
            if *b < bins[at] {
                at = i;
            }
        }
        bins[at] *= f;
    }
    bins.sort_unstable_by(|a, b| b.cmp(a));
    Some(bins)
}

/// Prime factors with multiplicity, ascending (trial division; `n ≤ i32::MAX` keeps it to
/// at most 46341 divisions).
fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n.is_multiple_of(p) {
            out.push(p);
            n /= p;
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// `dims(n, d, k)` at a real `n`: NaN unless `n` is (within rounding) a whole number from 1 to
/// `i32::MAX` and `k < d ≤ MAX_DIMS`.
pub(crate) fn extent(n: f64, d: u32, k: u32) -> f64 {
    let m = n.round();
    if !(1.0..=MAX_N as f64).contains(&m) || (n - m).abs() > WHOLE_TOL * m {
        return f64::NAN;
    }
    dims_create(m as u64, d)
        .and_then(|v| v.get(k as usize).copied())
        .map_or(f64::NAN, |x| x as f64)
}

/// The definition of `dims` that [`crate::Expr::to_python`] output needs (see
/// [`crate::Expr::python_helpers`]): a sympy `Function` that evaluates at a whole number and
/// stays symbolic otherwise.
pub(crate) const PYTHON_HELPER: &str = r#"class dims(Function):
    """The k-th extent (from 0) of MPI_Dims_create(n, d) with dims zeroed, as Open MPI
    gives it: the prime factors of n, largest first, each to the smallest extent; extents
    sorted largest first."""
    @classmethod
    def eval(cls, n, d, k):
        if not (n.is_number and d.is_Integer and k.is_Integer):
            return None
        m = int(round(float(n)))
        if m < 1 or abs(float(n) - m) > 1e-9 * m or not 0 <= k < d:
            return nan
        bins, f, rest = [1] * int(d), [], m
        p = 2
        while p * p <= rest:
            while rest % p == 0:
                f.append(p)
                rest //= p
            p += 1
        if rest > 1:
            f.append(rest)
        for q in reversed(f):
            i = bins.index(min(bins))
            bins[i] *= q
        return Integer(sorted(bins, reverse=True)[int(k)])
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_from_open_mpi() {
        assert_eq!(dims_create(8, 2), Some(vec![4, 2]));
        assert_eq!(dims_create(8, 3), Some(vec![2, 2, 2]));
        assert_eq!(dims_create(6, 3), Some(vec![3, 2, 1]));
        assert_eq!(dims_create(7, 2), Some(vec![7, 1]));
        assert_eq!(dims_create(12, 2), Some(vec![4, 3]));
        assert_eq!(dims_create(72, 2), Some(vec![12, 6]));
        assert_eq!(dims_create(1, 3), Some(vec![1, 1, 1]));
        assert_eq!(dims_create(0, 2), None);
        assert_eq!(dims_create(4, 0), None);
        assert_eq!(dims_create(4, MAX_DIMS + 1), None);
        assert_eq!(dims_create(MAX_N + 1, 2), None);
        // the largest prime below 2^31 is its own first extent
        assert_eq!(dims_create(2147483647, 2), Some(vec![2147483647, 1]));
    }

    #[test]
    fn extents_multiply_to_n_and_do_not_increase() {
        for n in 1..2000u64 {
            for d in 1..=4 {
                let v = dims_create(n, d).unwrap_or_default();
                assert_eq!(v.iter().product::<u64>(), n);
                assert!(v.windows(2).all(|w| w[0] >= w[1]), "{n} {d}: {v:?}");
            }
        }
    }

    #[test]
    fn real_arguments() {
        assert_eq!(extent(8.0, 2, 0), 4.0);
        assert_eq!(extent(8.0 + 1e-12, 2, 1), 2.0);
        assert_eq!(extent(2f64.powf(3.0), 3, 2), 2.0);
        assert!(extent(8.5, 2, 0).is_nan());
        assert!(extent(0.0, 2, 0).is_nan());
        assert!(extent(-4.0, 2, 0).is_nan());
        assert!(extent(f64::NAN, 2, 0).is_nan());
        assert!(extent(f64::INFINITY, 2, 0).is_nan());
        assert!(extent(8.0, 2, 2).is_nan());
    }
}
