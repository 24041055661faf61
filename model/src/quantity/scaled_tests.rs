//! Tests of costs with the source's work: floors, outer iterations, swept volume, ranks.
#![allow(clippy::unwrap_used)]

use super::*;

use super::tests::samples;

/// A loop that rewrites the block it has just sent: its law at P = 1, the sheet's floor
/// (which falls with the size past 128 KiB) where that is slower, at P = 2. The floor, not a
/// cost per element fitted to two runs, predicts the third.
#[test]
fn a_floor_from_the_sheet_governs_the_runs_it_exceeds() {
    let floor_of = |bound: f64| -> [Expr; 3] {
        let e = symbolic::parse(&format!(
            "{bound}*min(1, max(0, P - 1))*N/P*(1.5e-9 - 0.7e-9*min(1, floor(N/P/16385)))"
        ))
        .unwrap();
        [&e * Expr::num(0.98), e.clone(), &e * Expr::num(1.02)]
    };
    let floor = Floor {
        bounds: floor_of(1.0),
        proven: true,
    };
    let law = |n: f64, p: f64| 0.6e-9 * n / p;
    let at = |e: &Expr, n: f64, p: f64| e.eval(&|v| Some(if v == "N" { n } else { p })).unwrap();
    let mut all = Samples::new(vec!["N".into(), "P".into()]);
    let mut held = Samples::new(vec!["N".into(), "P".into()]);
    for n in [16384.0, 32768.0, 65536.0] {
        for p in [1.0, 2.0] {
            let y = law(n, p).max(at(&floor.bounds[1], n, p));
            all.push(vec![n, p], y);
            if !(n == 65536.0 && p == 2.0) {
                held.push(vec![n, p], y);
            }
        }
    }
    let w = symbolic::parse("N/P").unwrap();
    let ramp = symbolic::parse("min(1, max(0, P - 1))").unwrap();
    let f = fit_scaled(&all, &w, &[], Some(&ramp), &Expr::var("P"), Some(&floor));
    assert!(f.expr.to_string().starts_with("max("), "{}", f.expr);
    for (n, p) in [
        (16384.0, 1.0),
        (65536.0, 1.0),
        (32768.0, 2.0),
        (65536.0, 2.0),
    ] {
        let want = law(n, p).max(at(&floor.bounds[1], n, p));
        assert!(
            (at(&f.expr, n, p) / want - 1.0).abs() < 0.01,
            "{n},{p}: {}",
            f.expr
        );
        assert!(at(&f.lo, n, p) <= at(&f.expr, n, p) && at(&f.expr, n, p) <= at(&f.hi, n, p));
    }
    // the run past the fall, held out: the floor predicts it; a cost per element fitted
    // to the two P = 2 runs before the fall does not
    let (n, p) = (65536.0, 2.0);
    let want = at(&floor.bounds[1], n, p);
    let g = fit_scaled(&held, &w, &[], Some(&ramp), &Expr::var("P"), Some(&floor));
    assert!((at(&g.expr, n, p) / want - 1.0).abs() < 0.01, "{}", g.expr);
    let h = fit_scaled(&held, &w, &[], Some(&ramp), &Expr::var("P"), None);
    assert!(at(&h.expr, n, p) / want > 1.3, "{}", h.expr);
    // where the source cannot tell whether the loop rewrites what was sent, the floor is
    // only a candidate: runs that never come near it keep their law
    let maybe = Floor {
        bounds: floor_of(0.1),
        proven: false,
    };
    let mut plain = Samples::new(vec!["N".into(), "P".into()]);
    for n in [16384.0, 32768.0, 65536.0] {
        for p in [1.0, 2.0] {
            plain.push(vec![n, p], law(n, p));
        }
    }
    let k = fit_scaled(&plain, &w, &[], Some(&ramp), &Expr::var("P"), Some(&maybe));
    assert!(!k.expr.to_string().contains("max("), "{}", k.expr);
    // and a floor the runs do follow is taken even when not proven
    let both = Floor {
        bounds: floor.bounds.clone(),
        proven: false,
    };
    let j = fit_scaled(&all, &w, &[], Some(&ramp), &Expr::var("P"), Some(&both));
    assert!(j.expr.to_string().starts_with("max("), "{}", j.expr);
}

/// A proven floor stays where no traced run reaches it (it may govern other sizes), and
/// where every run is governed by it the law is still fitted (to all runs: an upper bound)
/// and the floor kept; an unproven one in those cases is dropped, and a floor that does
/// not evaluate is no floor.
#[test]
fn a_proven_floor_is_kept_where_the_runs_cannot_judge_it() {
    let w = symbolic::parse("N/P").unwrap();
    let floor_at = |k: f64| -> [Expr; 3] {
        let e = symbolic::parse(&format!("{k}*min(1, max(0, P - 1))*N/P")).unwrap();
        [e.clone(), e.clone(), e]
    };
    let samples = |f: &dyn Fn(f64, f64) -> f64, ps: &[f64]| {
        let mut s = Samples::new(vec!["N".into(), "P".into()]);
        for n in [16384.0, 32768.0, 65536.0] {
            for &p in ps {
                s.push(vec![n, p], f(n, p));
            }
        }
        s
    };
    let at = |e: &Expr, n: f64, p: f64| e.eval(&|v| Some(if v == "N" { n } else { p })).unwrap();
    // a floor a tenth of the law: proven, kept (and the law rules the runs)
    let law = |n: f64, p: f64| 1e-9 * n / p;
    let low = samples(&law, &[1.0, 2.0]);
    for proven in [true, false] {
        let fl = Floor {
            bounds: floor_at(1e-10),
            proven,
        };
        let f = fit_scaled(&low, &w, &[], None, &Expr::var("P"), Some(&fl));
        assert_eq!(f.expr.to_string().starts_with("max("), proven, "{}", f.expr);
        assert!((at(&f.expr, 65536.0, 2.0) / law(65536.0, 2.0) - 1.0).abs() < 1e-6);
    }
    // every run governed (no P = 1 run): the floor is kept under a proven floor
    let floor = |n: f64, p: f64| 2e-9 * n / p;
    let high = samples(&floor, &[2.0, 4.0]);
    let fl = Floor {
        bounds: floor_at(2e-9),
        proven: true,
    };
    let f = fit_scaled(&high, &w, &[], None, &Expr::var("P"), Some(&fl));
    assert!(f.expr.to_string().starts_with("max("), "{}", f.expr);
    assert!(at(&f.expr, 65536.0, 4.0) >= floor(65536.0, 4.0) * (1.0 - 1e-9));
    // a floor that does not evaluate (a parameter the runs do not have)
    let bad = Floor {
        bounds: [Expr::var("Q"), Expr::var("Q"), Expr::var("Q")],
        proven: true,
    };
    let g = fit_scaled(&low, &w, &[], None, &Expr::var("P"), Some(&bad));
    assert!(!g.expr.to_string().contains("max("), "{}", g.expr);
}

#[test]
fn scaled_cost_adds_a_cost_per_outer_iteration_when_it_earns_it() {
    let w = symbolic::parse("N^2/P").unwrap();
    let outer = symbolic::parse("N").unwrap();
    // 3 ns per element plus 2 us per row (a page fault on each new row)
    let f = fit_scaled(
        &samples(|n, p| 3e-9 * n * n / p + 2e-6 * n),
        &w,
        std::slice::from_ref(&outer),
        None,
        &Expr::var("P"),
        None,
    );
    let row = f.expr.terms().iter().find(|t| t.monomial() == outer);
    assert!(
        row.is_some_and(|t| (t.coef() - 2e-6).abs() < 1e-9),
        "{}",
        f.expr
    );
    // without a per-row cost the plain form wins
    let g = fit_scaled(
        &samples(|n, p| 3e-9 * n * n / p),
        &w,
        std::slice::from_ref(&outer),
        None,
        &Expr::var("P"),
        None,
    );
    assert_eq!(g.expr.terms().len(), 1, "{}", g.expr);
}

fn at_np(e: &Expr, n: f64, p: f64) -> f64 {
    e.eval(&|x| match x {
        "N" => Some(n),
        "P" => Some(p),
        _ => None,
    })
    .unwrap()
}

#[test]
fn scaled_cost_follows_a_cost_per_element_that_grows_with_the_swept_volume() {
    let w = symbolic::parse("N^2/P + 2*N + 4").unwrap();
    // 1.6 ns per element, plus 0.2 ns per element per 10^4 elements swept by all ranks (at
    // N = 256, 1.3 ns: the data no longer fits)
    let cost = |n: f64, p: f64| (n * n / p + 2.0 * n + 4.0) * (1.6e-9 + 0.2e-9 * n * n / 1e4);
    let f = fit_scaled(&samples(cost), &w, &[], None, &Expr::var("P"), None);
    let at = |n: f64, p: f64| at_np(&f.expr, n, p);
    // between the traced sizes it follows the growth
    let rel = at(192.0, 4.0) / cost(192.0, 4.0) - 1.0;
    assert!(rel.abs() < 0.05, "{rel} {}", f.expr);
    // beyond them the cost per element stays at the largest traced volume's
    let per = |n: f64, c: f64| c / (n * n / 4.0 + 2.0 * n + 4.0);
    let rel = per(512.0, at(512.0, 4.0)) / per(256.0, cost(256.0, 4.0)) - 1.0;
    assert!(rel.abs() < 0.05, "{rel} {}", f.expr);
}

#[test]
fn slowest_rank_per_occurrence_grows_with_log2_of_the_ranks() {
    let w = symbolic::parse("N^2/P").unwrap();
    // the slowest of P ranks, noise of an exponential tail: 10% more per doubling
    let cost = |n: f64, p: f64| 2e-9 * n * n / p * (1.0 + 0.1 * p.log2());
    let f = fit_scaled(&samples(cost), &w, &[], None, &Expr::var("P"), None);
    let rel = at_np(&f.expr, 256.0, 256.0) / cost(256.0, 256.0) - 1.0;
    assert!(rel.abs() < 1e-6, "{rel} {}", f.expr);
    // inside a pipeline (one rank at a time) no such term is offered
    let g = fit_scaled(&samples(cost), &w, &[], None, &Expr::one(), None);
    assert!(!g.expr.to_string().contains("log2"), "{}", g.expr);
}

/// Trial 18's native Jacobi: runs at P = 1 and 2 only. The second rank's cost per element
/// (10% more: the two ranks share the memory bus) fits `w*log2(P)` exactly, and carried it to
/// P = 64 as 60% more; from two counts of ranks it is held at the larger one.
#[test]
fn from_two_counts_of_ranks_the_slowest_ranks_growth_is_held() {
    let w = symbolic::parse("N^2/P").unwrap();
    let cost = |n: f64, p: f64| 2e-9 * n * n / p * (1.0 + 0.1 * (p - 1.0));
    let mut s = Samples::new(vec!["N".into(), "P".into()]);
    for n in [64.0, 128.0, 256.0] {
        for p in [1.0, 2.0] {
            s.push(vec![n, p], cost(n, p));
        }
    }
    let f = fit_scaled(&s, &w, &[], None, &Expr::var("P"), None);
    // on the runs it holds
    let rel = at_np(&f.expr, 128.0, 2.0) / cost(128.0, 2.0) - 1.0;
    assert!(rel.abs() < 1e-6, "{rel} {}", f.expr);
    // beyond them the cost per element stays at P = 2's
    let per = |p: f64| at_np(&f.expr, 128.0, p) * p / (128.0 * 128.0);
    assert!((per(64.0) / per(2.0) - 1.0).abs() < 1e-9, "{}", f.expr);
}

#[test]
fn scaled_cost_per_element_differs_where_the_phase_communicates() {
    let mut s = Samples::new(vec!["N".into(), "P".into()]);
    // a sender's update: 0.6 ns per element alone (P = 1), 1.2 ns at P = 2
    for n in [16384.0, 32768.0, 65536.0] {
        for (p, c) in [(1.0, 0.6e-9), (2.0, 1.2e-9)] {
            s.push(vec![n, p], c * n / p);
        }
    }
    let w = symbolic::parse("N/P").unwrap();
    let ramp = symbolic::parse("min(1, max(0, P - 1))").unwrap();
    let f = fit_scaled(&s, &w, &[], Some(&ramp), &Expr::var("P"), None);
    let at = |n: f64, p: f64| at_np(&f.expr, n, p);
    for (p, c) in [(1.0, 0.6e-9), (2.0, 1.2e-9)] {
        let rel = at(32768.0, p) / (c * 32768.0 / p) - 1.0;
        assert!(rel.abs() < 1e-6, "P = {p}: {rel} {}", f.expr);
    }
    // without the ramp one cost per element cannot serve both (at P = 1, 2 the log2(P)
    // spread outside pipelines is the ramp itself, so this is a pipeline's site)
    let g = fit_scaled(&s, &w, &[], None, &Expr::one(), None);
    assert!(g.max_rel_err > 0.1, "{}", g.expr);
}
