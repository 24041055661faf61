//! Weighted linear least squares by SVD of the column-scaled design matrix, with standard
//! errors and the exact leave-one-out residuals from the hat-matrix diagonal.

use nalgebra::{DMatrix, DVector};

/// Raw numeric result of one least-squares solve.
#[derive(Debug, Clone)]
pub(crate) struct Lsq {
    pub coef: Vec<f64>,
    pub stderr: Vec<f64>,
    pub fitted: Vec<f64>,
    /// Leave-one-out prediction of each point: y_i − r_i/(1 − h_ii).
    pub loo_pred: Vec<f64>,
}

/// Singular values below this fraction of the largest count as zero (rank deficiency).
const RANK_TOL: f64 = 1e-10;

/// Solve min Σ (w_i (y_i − Σ_j x_ij β_j))². `None` when the columns are linearly dependent.
pub(crate) fn solve(x: &[Vec<f64>], y: &[f64], w: &[f64]) -> Option<Lsq> {
    let n = y.len();
    let p = x.first().map_or(0, Vec::len);
    if n == 0 || p == 0 || n < p {
        return None;
    }
    let mut a = DMatrix::<f64>::zeros(n, p);
    for i in 0..n {
        for j in 0..p {
            a[(i, j)] = w[i] * x[i][j];
        }
    }
    let scale: Vec<f64> = (0..p).map(|j| a.column(j).norm()).collect();
    if scale.iter().any(|s| !s.is_finite() || *s == 0.0) {
        return None;
    }
    for (j, s) in scale.iter().enumerate() {
        a.column_mut(j).scale_mut(1.0 / s);
    }
    let yw = DVector::from_iterator(n, (0..n).map(|i| w[i] * y[i]));
    let svd = a.svd(true, true);
    let (u, vt) = (svd.u?, svd.v_t?);
    let sv = &svd.singular_values;
    let smax = sv.iter().copied().fold(0.0, f64::max);
    if sv.iter().any(|s| *s <= RANK_TOL * smax) {
        return None;
    }
    // β' = V Σ⁻¹ Uᵀ y_w, then undo the column scaling.
    let uty = u.transpose() * &yw;
    let mut beta_s = DVector::<f64>::zeros(p);
    for k in 0..p {
        let c = uty[k] / sv[k];
        for j in 0..p {
            beta_s[j] += vt[(k, j)] * c;
        }
    }
    let coef: Vec<f64> = (0..p).map(|j| beta_s[j] / scale[j]).collect();
    let fitted: Vec<f64> = (0..n)
        .map(|i| (0..p).map(|j| x[i][j] * coef[j]).sum())
        .collect();
    let rss: f64 = (0..n).map(|i| (w[i] * (y[i] - fitted[i])).powi(2)).sum();
    let sigma2 = if n > p {
        rss / (n - p) as f64
    } else {
        f64::NAN
    };
    // Cov(β') = σ² V Σ⁻² Vᵀ.
    let stderr = (0..p)
        .map(|j| {
            let var: f64 = (0..p).map(|k| (vt[(k, j)] / sv[k]).powi(2)).sum::<f64>() * sigma2;
            var.sqrt() / scale[j]
        })
        .collect();
    let loo_pred = (0..n)
        .map(|i| {
            let h: f64 = (0..p).map(|k| u[(i, k)].powi(2)).sum();
            let r = y[i] - fitted[i];
            if h >= 1.0 - 1e-12 {
                f64::NAN
            } else {
                y[i] - r / (1.0 - h)
            }
        })
        .collect();
    Some(Lsq {
        coef,
        stderr,
        fitted,
        loo_pred,
    })
}

#[cfg(test)]
#[allow(clippy::panic, clippy::needless_range_loop)]
mod tests {
    use super::*;

    #[test]
    fn exact_line_and_loo_against_refit() {
        let xs = [1.0, 2.0, 3.0, 5.0, 8.0];
        let ys = [2.1, 3.9, 6.2, 9.8, 16.3];
        let x: Vec<Vec<f64>> = xs.iter().map(|&v| vec![1.0, v]).collect();
        let w = vec![1.0; 5];
        let Some(fit) = solve(&x, &ys, &w) else {
            panic!("fit failed")
        };
        // LOO by explicit refit matches the hat-matrix shortcut.
        for i in 0..5 {
            let xr: Vec<Vec<f64>> = x
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != i)
                .map(|(_, r)| r.clone())
                .collect();
            let yr: Vec<f64> = ys
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != i)
                .map(|(_, v)| *v)
                .collect();
            let Some(f) = solve(&xr, &yr, &[1.0; 4]) else {
                panic!("refit failed")
            };
            let pred = f.coef[0] + f.coef[1] * xs[i];
            assert!(
                (pred - fit.loo_pred[i]).abs() < 1e-9,
                "{pred} vs {}",
                fit.loo_pred[i]
            );
        }
        assert!(fit.stderr.iter().all(|s| s.is_finite() && *s > 0.0));
        assert!(solve(
            &[vec![1.0, 2.0], vec![2.0, 4.0], vec![3.0, 6.0]],
            &[1.0, 2.0, 3.0],
            &[1.0; 3]
        )
        .is_none());
    }
}
