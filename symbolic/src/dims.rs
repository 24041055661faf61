//! The extents `MPI_Dims_create(n, d, dims)` gives with `dims` zeroed: the value of the atoms
//! `dims(n, d, k)` and `smpi_dims(n, d, k)` (the k-th extent, from 0), as Open MPI and SimGrid
//! SMPI compute it, so that a model whose message sizes are `N/dims(P, 2, 0)` predicts what the
//! program really sends under the library that runs it.
//!
//! Both libraries factor `n`, give each factor, largest first, to the currently smallest extent,
//! then sort the extents largest first; they differ in the factors. Open MPI
//! (`ompi/mpi/c/dims_create.c`) uses the primes. SimGrid SMPI 3.32 strips the 2s, then tries odd
//! divisors `q` only while `q < ceil(sqrt(rest))`, so an odd square of a prime stays whole:
//! 9 is one factor (9 × 1 in 2-D, Open MPI 3 × 3), 36 is 2·2·9 (9 × 4, Open MPI 6 × 6). The MPI
//! standard only asks for extents "as close to each other as possible".
//! `tests/data/dims_create_{openmpi,smpi}.txt` hold what Open MPI 4.1.4 and SimGrid SMPI 3.32
//! returned for n = 1..256, d = 1..4 (recorded here), and `tests/dims.rs` checks both rules
//! against them.

/// Whose `MPI_Dims_create` a grid extent follows: the libraries split some rank counts
/// differently (see the module text). MPICH and others are not measured here; they get
/// Open MPI's rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DimsRule {
    /// Open MPI: the prime factors. Printed `dims(n, d, k)`.
    #[default]
    OpenMpi,
    /// SimGrid SMPI: odd prime squares stay whole. Printed `smpi_dims(n, d, k)`.
    SimGrid,
}

impl DimsRule {
    /// The function name the printers and the parser use.
    pub fn name(self) -> &'static str {
        match self {
            DimsRule::OpenMpi => "dims",
            DimsRule::SimGrid => "smpi_dims",
        }
    }

    /// The rule of the library a run or a machine data sheet names (`SimGrid SMPI 3.32`,
    /// `SMPI Version 3.32 …`, `Open MPI 4.1.4`): SimGrid's for SMPI, else Open MPI's.
    pub fn of_library(mpi: &str) -> DimsRule {
        let m = mpi.to_ascii_lowercase();
        if m.contains("smpi") || m.contains("simgrid") {
            DimsRule::SimGrid
        } else {
            DimsRule::OpenMpi
        }
    }

    /// The extents of `MPI_Dims_create(n, d, dims)` with `dims` zeroed, largest first; `None`
    /// when `n` is 0 or above `i32::MAX`, or `d` is 0 or above [`MAX_DIMS`].
    pub fn create(self, n: u64, d: u32) -> Option<Vec<u64>> {
        if n == 0 || n > MAX_N || d == 0 || d > MAX_DIMS {
            return None;
        }
        let factors = match self {
            DimsRule::OpenMpi => prime_factors(n),
            DimsRule::SimGrid => simgrid_factors(n),
        };
        let mut bins = vec![1u64; d as usize];
        for f in factors.into_iter().rev() {
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
}

/// The largest dimension count the atom accepts.
pub const MAX_DIMS: u32 = 8;

/// The largest `n` evaluated: MPI's `nnodes` is a C `int`.
const MAX_N: u64 = i32::MAX as u64;

/// Relative distance from a whole number within which `n` counts as that number (a rank
/// count computed in floating point, `2^3` or `1e6`, is not exactly whole).
const WHOLE_TOL: f64 = 1e-9;

/// Open MPI's extents ([`DimsRule::OpenMpi`]`.create`).
pub fn dims_create(n: u64, d: u32) -> Option<Vec<u64>> {
    DimsRule::OpenMpi.create(n, d)
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

/// SimGrid SMPI 3.32's factors of `n ≥ 2`, ascending: every 2, then each odd `q` while
/// `q < ceil(sqrt(rest))`, then what is left (`9` stays `9`, `225` is `3·3·25`).
fn simgrid_factors(mut n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    while n.is_multiple_of(2) {
        out.push(2);
        n /= 2;
    }
    let mut q = 3;
    // ceil(sqrt(n)) > q  ⇔  n > q²  (for whole q, n)
    while n > 1 && n > q * q {
        while n.is_multiple_of(q) {
            out.push(q);
            n /= q;
        }
        q += 2;
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// `dims(n, d, k)` (or `smpi_dims`) at a real `n`: NaN unless `n` is (within rounding) a whole
/// number from 1 to `i32::MAX` and `k < d ≤ MAX_DIMS`.
pub(crate) fn extent(rule: DimsRule, n: f64, d: u32, k: u32) -> f64 {
    let m = n.round();
    if !(1.0..=MAX_N as f64).contains(&m) || (n - m).abs() > WHOLE_TOL * m {
        return f64::NAN;
    }
    rule.create(m as u64, d)
        .and_then(|v| v.get(k as usize).copied())
        .map_or(f64::NAN, |x| x as f64)
}

/// The definitions of `dims` and `smpi_dims` that [`crate::Expr::to_python`] output needs (see
/// [`crate::Expr::python_helpers`]): sympy `Function`s that evaluate at a whole number and
/// stay symbolic otherwise.
pub(crate) const PYTHON_HELPER: &str = r#"def _dims_create(n, d, k, simgrid):
    """The k-th extent (from 0) of MPI_Dims_create(n, d) with dims zeroed: the factors of n,
    largest first, each to the smallest extent; extents sorted largest first. Open MPI uses
    the primes; SimGrid SMPI strips the 2s, then tries odd q only while q*q < rest."""
    if not (n.is_number and d.is_Integer and k.is_Integer):
        return None
    m = int(round(float(n)))
    if m < 1 or abs(float(n) - m) > 1e-9 * m or not 0 <= k < d:
        return nan
    bins, f, rest = [1] * int(d), [], m
    p = 2
    while (rest > p * p) if (simgrid and p > 2) else (p * p <= rest):
        while rest % p == 0:
            f.append(p)
            rest //= p
        p += 1 if p == 2 else 2
    if rest > 1:
        f.append(rest)
    for q in reversed(f):
        i = bins.index(min(bins))
        bins[i] *= q
    return Integer(sorted(bins, reverse=True)[int(k)])

class dims(Function):
    """MPI_Dims_create's k-th extent as Open MPI gives it."""
    @classmethod
    def eval(cls, n, d, k):
        return _dims_create(n, d, k, False)

class smpi_dims(Function):
    """MPI_Dims_create's k-th extent as SimGrid SMPI gives it."""
    @classmethod
    def eval(cls, n, d, k):
        return _dims_create(n, d, k, True)
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
        assert_eq!(extent(DimsRule::OpenMpi, 8.0, 2, 0), 4.0);
        assert_eq!(extent(DimsRule::OpenMpi, 8.0 + 1e-12, 2, 1), 2.0);
        assert_eq!(extent(DimsRule::OpenMpi, 2f64.powf(3.0), 3, 2), 2.0);
        assert!(extent(DimsRule::OpenMpi, 8.5, 2, 0).is_nan());
        assert!(extent(DimsRule::OpenMpi, 0.0, 2, 0).is_nan());
        assert!(extent(DimsRule::OpenMpi, -4.0, 2, 0).is_nan());
        assert!(extent(DimsRule::OpenMpi, f64::NAN, 2, 0).is_nan());
        assert!(extent(DimsRule::OpenMpi, f64::INFINITY, 2, 0).is_nan());
        assert!(extent(DimsRule::OpenMpi, 8.0, 2, 2).is_nan());
    }
}
