//! The minimiser against brute force on generated T(K) mixing powers of K, log2(K), max and min:
//! every candidate class (closed form, quadratic/cubic, Brent, breakpoints, range ends) must
//! together find the global minimum over the range.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use std::collections::BTreeMap;
use symbolic::{minimize, parse, SolveOptions};

fn brute(t: &symbolic::Expr, lo: f64, hi: f64) -> f64 {
    let n = 20_000;
    (0..=n)
        .map(|i| lo * (hi / lo).powf(f64::from(i) / f64::from(n)))
        .map(|k| t.eval(&|v| if v == "K" { Some(k) } else { None }).unwrap())
        .fold(f64::INFINITY, f64::min)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn minimum_is_global_over_the_range(
        a in 1.0f64..1e6, b in 0.01f64..100.0, c in 0.0f64..50.0, m in 1.0f64..1e3,
        d in prop::sample::select(vec![0.0, 1e-4, 0.01]), e in prop::sample::select(vec![0.0, 1.0]),
        shape in 0usize..4,
    ) {
        let src = match shape {
            0 => format!("{a}/K + {b}*K + {c}*max({m}, K)"),
            1 => format!("{a}/K^2 + {b}*K + {d}*K^2 + {c}*min({m}, 2*K)"),
            2 => format!("{a}/K + {b}*K*log2(K) + {c}*max({m}, K, K^2/{m})"),
            _ => format!("{a}/sqrt(K) + {b}*K + {e}*{d}*K^3 + {c}*max({m}/K, 1)"),
        };
        let t = parse(&src).unwrap();
        let (lo, hi) = (1.0, 1e4);
        let s = minimize(&t, "K", &BTreeMap::new(), &SolveOptions { range: Some((lo, hi)), integer: false }).unwrap();
        let best = brute(&t, lo, hi);
        prop_assert!(s.t_star <= best * (1.0 + 1e-6), "{}: solver T={} at K={} ({:?}) but brute force T={}", src, s.t_star, s.k_star, s.method, best);
        let at_k = t.eval(&|v| if v == "K" { Some(s.k_star) } else { None }).unwrap();
        prop_assert!((at_k - s.t_star).abs() <= 1e-9 * at_k.abs());
    }
}
