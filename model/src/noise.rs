//! Host noise and what it costs a loosely synchronous program at scale.
//!
//! A core running a program is taken away from it now and then (timer ticks, daemons, the
//! hypervisor): a *detour*. The selfish-detour benchmark (`augur_bench -m noise`, after Beckman
//! et al., "The influence of operating systems on the performance of collective operations at
//! extreme scale", Cluster 2006) measures them: a tight loop reading the clock records every gap
//! longer than a threshold. The data sheet keeps their rate and a histogram of their lengths.
//!
//! Detours land in a rank's computation as a Poisson process of that rate. When P ranks compute
//! for `w` seconds each and then synchronise, the step waits for the rank that met the longest
//! detour: with `M = P·rate·w` detours expected among them, that costs
//! `E[the longest of Poisson(M) detours] = ∫ 1 − exp(−M·(1 − F(x))) dx` over the detours'
//! distribution `F` ([`HostNoise::expected_longest`]). It grows with P at fixed `w` (weak
//! scaling), and stays near the longest detour's typical length once `M` is large, while `w`
//! itself shrinks (strong scaling): the effect Petrini et al. ("The case of the missing
//! supercomputer performance", SC 2003) and Hoefler et al. (SC 2010) measured. Under SMPI the
//! same holds for the simulation's host, whose detours inside a rank's burst are charged to
//! simulated time.
//!
//! In T that expectation takes the closed form [`NoiseLaw`] `a₁·M/(1 + b₁·M) +
//! a₂·M/(1 + b₂·M)`, fitted to the exact expectation over the range a model meets (within 5%
//! over M = 10⁻³ .. 10⁵ for this host's detours).

use serde::{Deserialize, Serialize};
use symbolic::Expr;

/// One bin of the detours' lengths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetourBin {
    /// Detours up to this length (seconds) and longer than the previous bin's.
    pub up_to: f64,
    pub count: u64,
    /// Their mean length, seconds.
    pub mean: f64,
}

/// The detours a selfish-detour loop measured on a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostNoise {
    /// Seconds the loop ran.
    pub seconds: f64,
    /// Gaps between two readings of the clock longer than this (seconds) were detours.
    pub threshold: f64,
    /// The detours by length, ascending.
    pub detours: Vec<DetourBin>,
}

/// `a₁·M/(1 + b₁·M) + a₂·M/(1 + b₂·M)`: E[the longest of Poisson(M) detours]. Each term
/// is a bin's `Δ·(1 − exp(−M·T))` with `x/(1 + x)` for `1 − exp(−x)`, two of them standing for
/// all the bins: linear in M where few ranks meet a detour (the mean detour `a₁ + a₂`),
/// levelling off towards `a₁/b₁ + a₂/b₂` where all but the rarest are certain. Sums of
/// positive terms: no digits cancel when T is printed to four.
#[derive(Debug, Clone, PartialEq)]
pub struct NoiseLaw {
    pub a: [f64; 2],
    pub b: [f64; 2],
    /// Largest relative error against [`HostNoise::expected_longest`] over `M` in
    /// [`LAW_RANGE`].
    pub max_rel_err: f64,
}

/// The range of `M` (expected detours among the ranks in one step) the law is fitted over:
/// from one step in a thousand meeting a detour to a hundred thousand ranks meeting one each.
pub const LAW_RANGE: (f64, f64) = (1e-3, 1e5);

/// What a model says of the detours it charged ([`crate::analysis::ModelFile::noise`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseSummary {
    /// Detours per second of computation.
    pub rate: f64,
    /// Their mean length, seconds.
    pub mean: f64,
    /// The longest bin's upper edge, seconds.
    pub longest_up_to: f64,
    /// Seconds the benchmark measured them over.
    pub seconds: f64,
    /// The closed form of E[the longest of M detours] in `M` ([`NoiseLaw`]).
    pub law: String,
    /// Its largest relative error against the exact expectation.
    pub law_max_rel_err: f64,
}

impl HostNoise {
    /// The summary a model file keeps, with `law`'s error.
    pub fn summary(&self, law: &NoiseLaw) -> NoiseSummary {
        let n: u64 = self.detours.iter().map(|b| b.count).sum();
        let total: f64 = self.detours.iter().map(|b| b.count as f64 * b.mean).sum();
        NoiseSummary {
            rate: self.rate(),
            mean: if n > 0 { total / n as f64 } else { 0.0 },
            longest_up_to: self
                .detours
                .iter()
                .rev()
                .find(|b| b.count > 0)
                .map_or(0.0, |b| b.up_to),
            seconds: self.seconds,
            law: law.expr(&Expr::var("M")).to_string(),
            law_max_rel_err: law.max_rel_err,
        }
    }

    /// Detours per second of computation.
    pub fn rate(&self) -> f64 {
        let n: u64 = self.detours.iter().map(|b| b.count).sum();
        if self.seconds > 0.0 {
            n as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Whether the sheet's numbers make sense: a positive duration and threshold, bins in
    /// ascending order with their means inside them.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.seconds > 0.0 && self.seconds.is_finite()) {
            return Err(format!(
                "noise.seconds must be positive, found {}",
                self.seconds
            ));
        }
        if !(self.threshold > 0.0 && self.threshold.is_finite()) {
            return Err(format!(
                "noise.threshold must be positive, found {}",
                self.threshold
            ));
        }
        let mut below = self.threshold;
        for (i, b) in self.detours.iter().enumerate() {
            if !(b.up_to > below && b.up_to.is_finite()) {
                return Err(format!(
                    "noise.detours[{i}].up_to ({}) must exceed the bin below it ({below})",
                    b.up_to
                ));
            }
            if b.count > 0 && !(b.mean > below * (1.0 - 1e-9) && b.mean <= b.up_to * (1.0 + 1e-9)) {
                return Err(format!(
                    "noise.detours[{i}].mean ({}) must lie in its bin ({below}, {}]",
                    b.mean, b.up_to
                ));
            }
            below = b.up_to;
        }
        Ok(())
    }

    /// The longest detour's mean length over `M` expected detours (a Poisson count), each drawn
    /// from the bins: `Σ_j (v_j − v_{j−1})·(1 − exp(−M·T_j))`, `v_j` the bins' means in
    /// ascending order, `T_j` the share of detours in bin j and above; 0 when there are none.
    pub fn expected_longest(&self, m: f64) -> f64 {
        let bins: Vec<&DetourBin> = self.detours.iter().filter(|b| b.count > 0).collect();
        let n: u64 = bins.iter().map(|b| b.count).sum();
        if n == 0 || m <= 0.0 {
            return 0.0;
        }
        let mut above = n;
        let mut prev = 0.0;
        let mut sum = 0.0;
        for b in bins {
            let tail = above as f64 / n as f64;
            sum += (b.mean - prev) * -(-m * tail).exp_m1();
            prev = b.mean;
            above -= b.count;
        }
        sum
    }

    /// The longest detour's bin mean (0 without detours).
    pub fn longest(&self) -> f64 {
        self.detours
            .iter()
            .rev()
            .find(|b| b.count > 0)
            .map_or(0.0, |b| b.mean)
    }

    /// [`NoiseLaw`] fitted to [`Self::expected_longest`] over [`LAW_RANGE`] (relative error):
    /// `b₁ ≤ b₂` searched on a logarithmic grid and then refined around the best point, the
    /// `a`s non-negative least squares at each. `None` without detours.
    pub fn law(&self) -> Option<NoiseLaw> {
        if self.longest() <= 0.0 {
            return None;
        }
        let (lo, hi) = LAW_RANGE;
        let points: Vec<(f64, f64)> = (0..=80)
            .map(|i| lo * (hi / lo).powf(f64::from(i) / 80.0))
            .map(|m| (m, self.expected_longest(m)))
            .filter(|(_, h)| *h > 0.0)
            .collect();
        let score = |l1: f64, l2: f64| -> (f64, NoiseLaw) {
            let law = fit_linear(&points, [10f64.powf(l1), 10f64.powf(l2)]);
            let (sum, worst) = points.iter().fold((0.0, 0.0f64), |(s, w), (m, h)| {
                let r = ((law.eval(*m) - h) / h).abs();
                (s + r * r, w.max(r))
            });
            (
                sum,
                NoiseLaw {
                    max_rel_err: worst,
                    ..law
                },
            )
        };
        // log10 of the b's in [-6, 2]
        let mut best = (f64::INFINITY, 0.0, 0.0);
        for i in 0..=32 {
            for j in i..=32 {
                let (l1, l2) = (-6.0 + 0.25 * f64::from(i), -6.0 + 0.25 * f64::from(j));
                let (s, _) = score(l1, l2);
                if s < best.0 {
                    best = (s, l1, l2);
                }
            }
        }
        let mut step = 0.125;
        while step > 1e-3 {
            let (_, l1, l2) = best;
            for (d1, d2) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
                let (s, _) = score(l1 + d1 * step, l2 + d2 * step);
                if s < best.0 {
                    best = (s, l1 + d1 * step, l2 + d2 * step);
                }
            }
            if (best.1, best.2) == (l1, l2) {
                step /= 2.0;
            }
        }
        Some(score(best.1, best.2).1)
    }
}

/// The law with its `b`s given: the `a`s by non-negative least squares on the relative error,
/// the better one-term fit where both would not stay non-negative.
fn fit_linear(points: &[(f64, f64)], b: [f64; 2]) -> NoiseLaw {
    let (mut s11, mut s12, mut s22, mut t1, mut t2) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (m, h) in points {
        let (x1, x2) = (m / (1.0 + b[0] * m) / h, m / (1.0 + b[1] * m) / h);
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        t1 += x1;
        t2 += x2;
    }
    let det = s11 * s22 - s12 * s12;
    let (mut a1, mut a2) = if det.abs() > 1e-12 * s11 * s22 {
        ((t1 * s22 - t2 * s12) / det, (t2 * s11 - t1 * s12) / det)
    } else {
        (-1.0, -1.0)
    };
    if a1 < 0.0 || a2 < 0.0 {
        let only1 = if s11 > 0.0 { (t1 / s11).max(0.0) } else { 0.0 };
        let only2 = if s22 > 0.0 { (t2 / s22).max(0.0) } else { 0.0 };
        // Σ (k·x − 1)² less the constant: k²·Σx² − 2k·Σx
        let err1 = s11 * only1 * only1 - 2.0 * t1 * only1;
        let err2 = s22 * only2 * only2 - 2.0 * t2 * only2;
        (a1, a2) = if err1 <= err2 {
            (only1, 0.0)
        } else {
            (0.0, only2)
        };
    }
    NoiseLaw {
        a: [a1, a2],
        b,
        max_rel_err: 0.0,
    }
}

impl NoiseLaw {
    pub fn eval(&self, m: f64) -> f64 {
        (0..2).map(|i| self.a[i] * m / (1.0 + self.b[i] * m)).sum()
    }

    /// The law at `m` as an expression.
    pub fn expr(&self, m: &Expr) -> Expr {
        (0..2)
            .filter(|i| self.a[*i] > 0.0)
            .map(|i| Expr::num(self.a[i]) * m * (Expr::one() + Expr::num(self.b[i]) * m).powi(-1))
            .sum()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Detours of this host measured on 2026-12-02 (selfish loop, 3 s, gaps over 2 µs),
    /// binned by powers of two.
    fn measured() -> HostNoise {
        let bins = [
            (4e-6, 598, 2.9e-6),
            (8e-6, 219, 5.6e-6),
            (16e-6, 504, 12.1e-6),
            (32e-6, 536, 23.5e-6),
            (64e-6, 507, 41.0e-6),
            (128e-6, 132, 83.0e-6),
            (256e-6, 41, 160.0e-6),
            (512e-6, 3, 330.0e-6),
            (2048e-6, 1, 1100.0e-6),
        ];
        HostNoise {
            seconds: 3.0,
            threshold: 2e-6,
            detours: bins
                .iter()
                .map(|&(up_to, count, mean)| DetourBin { up_to, count, mean })
                .collect(),
        }
    }

    #[test]
    fn the_longest_of_few_detours_is_their_mean_times_how_many() {
        let h = measured();
        let n: u64 = h.detours.iter().map(|b| b.count).sum();
        let mean: f64 = h
            .detours
            .iter()
            .map(|b| b.count as f64 * b.mean)
            .sum::<f64>()
            / n as f64;
        // M ≪ 1: at most one detour, met with probability ≈ M
        let m = 1e-4;
        assert!((h.expected_longest(m) / (m * mean) - 1.0).abs() < 1e-3);
        assert_eq!(h.expected_longest(0.0), 0.0);
        // M ≫ n: the longest bin is all but certain
        assert!((h.expected_longest(1e9) - 1100e-6).abs() < 1e-9);
        assert!((h.rate() - n as f64 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn the_expectation_grows_with_the_number_of_detours() {
        let h = measured();
        let mut prev = 0.0;
        for k in 0..40 {
            let m = 1e-3 * 1.5f64.powi(k);
            let v = h.expected_longest(m);
            assert!(v > prev, "E at M = {m}: {v} after {prev}");
            prev = v;
        }
    }

    #[test]
    fn the_law_follows_the_expectation() {
        let h = measured();
        let law = h.law().unwrap();
        assert!(law.max_rel_err < 0.15, "{law:?}");
        for m in [0.01, 0.3, 1.0, 7.0, 100.0, 5000.0] {
            let exact = h.expected_longest(m);
            let e = law.expr(&Expr::var("M"));
            let v = e.eval(&|n| (n == "M").then_some(m)).unwrap();
            assert!((v - law.eval(m)).abs() <= 1e-12 * v.max(1e-30));
            // between the grid's points the error may exceed its largest on them a little
            let err = ((v - exact) / exact).abs();
            assert!(
                err <= law.max_rel_err + 0.02,
                "M = {m}: {v} for {exact} ({law:?})"
            );
        }
    }

    #[test]
    fn a_sheet_without_detours_has_no_law() {
        let mut h = measured();
        for b in &mut h.detours {
            b.count = 0;
        }
        assert!(h.law().is_none());
        assert_eq!(h.expected_longest(10.0), 0.0);
        assert!(h.validate().is_ok());
        h.detours[0].up_to = 1e-6;
        assert!(h.validate().is_err());
    }
}
