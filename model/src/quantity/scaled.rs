//! The cost per entry of a computation with the source's work expression: `c·w` and the
//! candidates beside it (a fixed overhead, a cost per outer iteration, one growing with the
//! volume swept or with the ranks, one where the phase communicates), under a floor.

use symbolic::fit::{self, FitOptions, FitResult, Weighting};
use symbolic::Expr;

use super::floor::{floored, Floor};
use super::{from_fit, least_loo, loo_score, Fitted, Origin, Samples};

/// The monomial of `w` that is largest at the samples' largest value (the work's dominant term,
/// without the lower-order terms a source bound adds, e.g. `N^2/P` of `N^2/P + 2*N + 4`).
fn leading_term(s: &Samples, w: &Expr) -> Expr {
    let Some(row) = s
        .values
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .and_then(|(i, _)| s.points.get(i))
    else {
        return w.clone();
    };
    let at = |e: &Expr| {
        e.eval(&|n| s.params.iter().position(|x| x == n).map(|k| row[k]))
            .unwrap_or(0.0)
            .abs()
    };
    w.terms()
        .iter()
        .map(|t| t.monomial())
        .filter(|m| m.as_const().is_none())
        .max_by(|a, b| at(a).total_cmp(&at(b)))
        .unwrap_or_else(|| w.clone())
}

/// A cost per entry with the source's work expression `w`: `c·w`, plus, when it fits clearly
/// better (leave-one-out), a fixed per-entry overhead `c0` and a cost per count of `outer`
/// (`c1·outer`: per iteration of the nest's outer loop, its own trip count — loop overhead,
/// and what the body does once per outer iteration, e.g. a first touch of a new row of a 2-D
/// array; per entry of its innermost loops, their start-up in a deeper nest). Never a
/// free PMNF search: timings of small loops are noisy, and free terms would extrapolate that
/// noise.
///
/// A cost per element that grows linearly with the volume swept between two entries of one
/// rank, `c2·w·min(w·sharers, V)` (`w` its dominant term, `V` the largest volume traced), is a
/// candidate too: the first-order effect of data outgrowing a shared cache, which a constant
/// cost per element cannot follow.
/// `sharers` is how many ranks sweep their data in that time: `P` where the ranks meet at every
/// exchange (each runs its loop between two of another's), `1` inside a pipeline (a rank runs
/// its next block while most others wait for theirs).
///
/// `communicating`, for a computation phase inside a communication phase that only some runs
/// have, is that phase's presence ramp (0 where it does not communicate, 1 where it does): then
/// `c·w + c2·w·ramp` is a candidate too, a cost per element that differs where the data the loop
/// touches also moves between processors (a sender rewriting the block its receiver just read
/// pays for the cache lines coming back), so that P = 1 and P ≥ 2 get each their own.
///
/// `floor`, for a loop that may rewrite data a send of its phase has just given to another
/// core, is the least time that takes by the machine sheet: the cost is `max(law, floor)` (see
/// [`floored`]) where the source shows the loop writes what is sent, and that is a candidate
/// beside the others where the source cannot tell.
pub fn fit_scaled(
    s: &Samples,
    w: &Expr,
    outer: &[Expr],
    communicating: Option<&Expr>,
    sharers: &Expr,
    floor: Option<&Floor>,
) -> Fitted {
    let n = s.values.len();
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    let opts = FitOptions {
        weighting: Weighting::Relative,
        ..Default::default()
    };
    let mut hyps = vec![vec![w.clone()], vec![w.clone(), Expr::one()]];
    // a count per entry is a term of its own only when no term of `w` already has its shape;
    // a count with a constant off (`NY/P - 1` rows below the first: trial 16's back
    // substitution, 24 ns per element in blocks of 8 columns, 4 in blocks of 128) by its
    // leading term
    let leading = |o: &Expr| -> Option<Expr> {
        let t: Vec<_> = o.terms().iter().filter(|t| !t.is_constant()).collect();
        (t.len() == 1).then(|| t[0].monomial())
    };
    for o in outer
        .iter()
        .filter_map(leading)
        .filter(|o| w.terms().iter().all(|t| t.monomial() != *o))
    {
        hyps.push(vec![w.clone(), o.clone()]);
        hyps.push(vec![w.clone(), o, Expr::one()]);
    }
    // a cost per element that grows with the volume swept between two entries of one rank:
    // ranks share the node's last-level cache (under SMPI, every rank runs on the one host), and
    // once their data outgrows it each element comes from memory (stencil on this host: 1.62 ns
    // per element at N = 2048, 2.82 ns at 4096)
    // per element, never beyond the largest volume the runs swept: past it the data may already
    // come from memory, where the cost per element stops growing, and a line through the traced
    // points would not
    let lead = leading_term(s, w);
    let swept = &lead * sharers;
    let most = s
        .points
        .iter()
        .filter_map(|row| {
            swept
                .eval(&|n| params.iter().position(|x| *x == n).map(|k| row[k]))
                .ok()
        })
        .fold(f64::NAN, f64::max);
    if most.is_finite() && most > 0.0 {
        let volume = &lead * &Expr::min(swept, Expr::num(most));
        hyps.push(vec![w.clone(), volume.clone()]);
        hyps.push(vec![w.clone(), volume, Expr::one()]);
    }
    // the slowest of the ranks at each occurrence (the per-occurrence maximum is what the
    // samples hold outside pipelines): with noise of an exponential tail its expectation grows
    // with the logarithm of the number of ranks
    if sharers.as_const().is_none() {
        // from two counts of ranks (P = 1, 2 natively) that growth is not seen: the step
        // between them is any effect of the second rank (trial 18's native Jacobi carried
        // `2.703e-9*N^3*log2(P)/P` to P = 64), held at the larger count beyond them
        let mut counts: Vec<f64> = s
            .points
            .iter()
            .filter_map(|row| {
                sharers
                    .eval(&|n| params.iter().position(|x| *x == n).map(|k| row[k]))
                    .ok()
            })
            .collect();
        counts.sort_by(f64::total_cmp);
        counts.dedup();
        let ranks = match (counts.len(), counts.last()) {
            (2, Some(&most)) => Expr::min(sharers.clone(), Expr::num(most)),
            _ => sharers.clone(),
        };
        let spread = w * &ranks.log2();
        hyps.push(vec![w.clone(), spread.clone()]);
        hyps.push(vec![w.clone(), spread, Expr::one()]);
    }
    let laws = hyps.clone();
    if let Some(ramp) = communicating {
        let moved = w * ramp;
        hyps.push(vec![w.clone(), moved.clone()]);
        hyps.push(vec![w.clone(), moved, Expr::one()]);
    }
    let ok = |r: &FitResult| r.coeffs.iter().all(|c| c.coef >= 0.0);
    let fits: Vec<FitResult> = hyps
        .iter()
        .filter_map(|h| fit::fit_terms(h, &params, &s.points, &s.values, &opts).ok())
        .filter(ok)
        .collect();
    let best = least_loo(&fits);
    if let Some(fl) = floor {
        match floored(s, &laws, &opts, fl) {
            Some((law, f)) if fl.proven || best.is_none_or(|b| loo_score(&law) < loo_score(b)) => {
                return f;
            }
            _ => {}
        }
    }
    match best {
        Some(r) => from_fit(r, Origin::SourceScaled, n),
        None => {
            let mean = s.values.iter().sum::<f64>() / n.max(1) as f64;
            let mut f = Fitted::constant(mean);
            f.points = n;
            f
        }
    }
}
