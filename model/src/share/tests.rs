//! Tests of branch shares from the source: conditions on the rank, on loop indices through
//! `mod` and bounds, and the comparisons they parse into.
#![allow(clippy::unwrap_used)]

use super::comparison::Comparison;
use super::*;

fn ctx<'a>(consts: &'a BTreeMap<String, Expr>, params: &'a [String]) -> Context<'a> {
    Context {
        consts,
        params,
        fortran: true,
    }
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Traced shares of `f` at the given parameter rows.
fn traced(params: &[&str], rows: &[&[f64]], f: &dyn Fn(&[f64]) -> f64) -> Samples {
    let mut s = Samples::new(names(params));
    for r in rows {
        s.push(r.to_vec(), f(r));
    }
    s
}

fn guard(cond: &str, taken: bool) -> Outer {
    Outer::If {
        cond: cond.into(),
        symbolic: true,
        vars: Comparison::parse(cond).unwrap().vars(),
        taken,
    }
}

fn at_p(e: &Expr, p: f64) -> f64 {
    e.eval(&|v| (v == "P").then_some(p)).unwrap()
}

const EVEN: &str = "rank - 2*floor(0.5*rank) == 0";

/// trial 5 item 5: a condition on the rank alone is the mean of its 0/1 value over
/// rank = 0..P-1, a closed form in P (not 1/P regressed from the shares at P = 1, 2).
#[test]
fn a_rank_condition_is_its_mean_over_the_ranks() {
    let consts = BTreeMap::new();
    let params = names(&["P"]);
    let ceil_half = |p: f64| (p / 2.0).ceil() / p;
    for (cond, want) in [
        (EVEN, &ceil_half as &dyn Fn(f64) -> f64),
        ("rank + 1 < P", &|p: f64| (p - 1.0) / p),
        ("rank == 0", &|p: f64| 1.0 / p),
        ("rank > 0", &|p: f64| (p - 1.0) / p),
        ("rank - 2*floor(0.5*rank) != 0", &|p: f64| {
            (p / 2.0).floor() / p
        }),
        ("rank - 3*floor(rank/3) == 1", &|p: f64| {
            ((p - 1.0) / 3.0).ceil() / p
        }),
    ] {
        let s = traced(&["P"], &[&[1.0], &[2.0], &[4.0]], &|r| want(r[0]));
        let got = source_share(cond, &[], &ctx(&consts, &params), &s).unwrap();
        assert_eq!(got.over, "rank = 0..P-1");
        for p in [1.0, 2.0, 3.0, 5.0, 7.0, 64.0, 100.0, 1001.0, 4096.0] {
            assert!(
                (at_p(&got.expr, p) - want(p)).abs() < 1e-12,
                "{cond} at P = {p}: {}",
                got.expr
            );
        }
    }
    // a divisor in P: the first column of the MPI_Dims_create grid
    let col = "rank - dims(P, 2, 1)*floor(rank/dims(P, 2, 1)) == 0";
    let s = traced(&["P"], &[], &|_| 0.0);
    let got = source_share(col, &[], &ctx(&consts, &params), &s).unwrap();
    for p in [1.0, 2.0, 6.0, 7.0, 8.0, 9.0, 12.0, 100.0] {
        let k = symbolic::parse("dims(P, 2, 1)").unwrap();
        let k = at_p(&k, p) as usize;
        let want = (0..p as usize).filter(|r| r % k == 0).count() as f64 / p;
        assert!(
            (at_p(&got.expr, p) - want).abs() < 1e-12,
            "P = {p}: {}",
            got.expr
        );
    }
    // shares the runs traced that say otherwise (1/P at P = 4): not the source's mean
    let s = traced(&["P"], &[&[1.0], &[2.0], &[4.0]], &|r| 1.0 / r[0]);
    assert!(source_share(EVEN, &[], &ctx(&consts, &params), &s).is_none());
}

/// Inside an arm that reads the rank, the share is over the ranks that reach the IF: the
/// hydro halo exchange's `rank - 1 >= 0` among the even ranks is floor((P-1)/2)/ceil(P/2),
/// `rank + 1 < P` among the odd ones floor((P-1)/2)/floor(P/2) (no odd rank at P = 1).
#[test]
fn a_nested_rank_condition_is_its_mean_over_the_ranks_that_reach_it() {
    let consts = BTreeMap::new();
    let params = names(&["P"]);
    let none = Samples::new(names(&["P"]));
    let c = ctx(&consts, &params);
    let even = [guard(EVEN, true)];
    let odd = [guard(EVEN, false)];
    let share = |cond: &str, outer: &[Outer]| source_share(cond, outer, &c, &none).unwrap();
    let left = share("rank - 1 >= 0", &even);
    let right = share("rank + 1 < P", &odd);
    for p in 1..=40 {
        let pf = p as f64;
        let (evens, odds) = ((p + 1) / 2, p / 2);
        let want = (evens - 1) as f64 / evens as f64;
        assert!((at_p(&left.expr, pf) - want).abs() < 1e-12, "P = {p}");
        if odds > 0 {
            let want = ((p - 1) / 2) as f64 / odds as f64;
            assert!((at_p(&right.expr, pf) - want).abs() < 1e-12, "P = {p}");
        }
    }
    // every odd rank has a left neighbour
    assert_eq!(share("rank - 1 >= 0", &odd).expr, Expr::one());
    // an unresolved arm is no guard the count can read, a loop whose count reads the rank
    // weighs ranks unequally
    let loop_on_rank = [Outer::Loop {
        var: Some("i".into()),
        trip: Attr::Expr(symbolic::parse("rank + 1").unwrap()),
        start: None,
    }];
    assert!(source_share("rank == 0", &loop_on_rank, &c, &none).is_none());
    // a condition reading another parameter is not a mean over the ranks alone
    let params = names(&["NPX", "P"]);
    let c = ctx(&consts, &params);
    assert!(source_share("rank < NPX", &[], &c, &none).is_none());
}

/// trial 6 item 3: the PROC_NULL guards of a Cart_shift halo on the MPI_Dims_create grid
/// (row-major: rank mod dims(P, 2, 1) is the column) are means over the ranks in the
/// grid's extents, `west != MPI_PROC_NULL` 1 - 1/dims(P, 2, 1), not a constant regressed
/// from the traced 0, 1/2, 1/2, 3/4 (nor 1 - ceil(P/dims(P, 2, 1))/P).
#[test]
fn a_cartesian_neighbour_guard_is_a_share_in_the_grid_extents() {
    let consts = BTreeMap::new();
    let params = names(&["P"]);
    let c = ctx(&consts, &params);
    let ext = |k: u32| symbolic::parse(&format!("dims(P, 2, {k})")).unwrap();
    let (d0, d1) = (ext(0), ext(1));
    let col = "-floor(rank/dims(P, 2, 1))*dims(P, 2, 1) + rank";
    let row = "floor(rank/dims(P, 2, 1))";
    type Count = fn(usize, usize, usize, usize) -> bool;
    let cases: [(String, Count, Expr); 5] = [
        // west, east: a column other than the first (last)
        (
            format!("{col} >= 1"),
            |_, c1, _, _| c1 >= 1,
            Expr::one() - d1.powi(-1),
        ),
        (
            format!("{col} < dims(P, 2, 1) - 1"),
            |_, c1, _, n1| c1 + 1 < n1,
            Expr::one() - d1.powi(-1),
        ),
        // north, south: a row other than the first (last)
        (
            format!("{row} >= 1"),
            |c0, _, _, _| c0 >= 1,
            Expr::one() - d0.powi(-1),
        ),
        (
            format!("{row} < dims(P, 2, 0) - 1"),
            |c0, _, n0, _| c0 + 1 < n0,
            Expr::one() - d0.powi(-1),
        ),
        // the first column
        (format!("{col} == 0"), |_, c1, _, _| c1 == 0, d1.powi(-1)),
    ];
    for (cond, holds, want) in cases {
        let share = |p: usize| {
            let ext = symbolic::dims_create(p as u64, 2).unwrap();
            let n1 = ext[1] as usize;
            let on = (0..p).filter(|r| holds(r / n1, r % n1, p / n1, n1)).count();
            on as f64 / p as f64
        };
        let s = traced(&["P"], &[&[2.0], &[4.0], &[8.0], &[16.0]], &|r| {
            share(r[0] as usize)
        });
        let got = source_share(&cond, &[], &c, &s).unwrap();
        assert_eq!(got.expr, want, "{cond}");
        for p in [1, 3, 6, 12, 18, 30, 64, 72, 100, 4096] {
            assert!(
                (at_p(&got.expr, p as f64) - share(p)).abs() < 1e-12,
                "{cond} at P = {p}: {}",
                got.expr
            );
        }
    }
    // inside `west != MPI_PROC_NULL`: the ranks with an east neighbour too
    let west = [guard(&format!("{col} >= 1"), true)];
    let s = Samples::new(names(&["P"]));
    let got = source_share(&format!("{col} < dims(P, 2, 1) - 1"), &west, &c, &s).unwrap();
    for p in [2u64, 3, 4, 9, 16, 27, 64, 100] {
        let n1 = symbolic::dims_create(p, 2).unwrap()[1];
        if n1 > 1 {
            let want = n1.saturating_sub(2) as f64 / (n1 - 1) as f64;
            assert!(
                (at_p(&got.expr, p as f64) - want).abs() < 1e-12,
                "P = {p}: {}",
                got.expr
            );
        }
    }
}

fn nstep_loop() -> [Outer; 1] {
    [Outer::Loop {
        var: Some("istep".into()),
        trip: Attr::Expr(Expr::var("NSTEP")),
        start: None,
    }]
}

const EVERY_NOUT: &str = "-NOUT*floor(istep/NOUT) + istep == 0";

/// trial 5 item 5: `MOD(ISTEP, NOUT) .EQ. 0` inside `DO ISTEP = 1, NSTEP` is taken
/// floor(NSTEP/NOUT) times in NSTEP (a constant 0.06 was fitted to the shares 0.1, 0.02).
#[test]
fn a_mod_of_a_loop_index_is_its_mean_over_the_loop() {
    let consts = BTreeMap::new();
    let params = names(&["NOUT", "NSTEP", "P"]);
    let c = ctx(&consts, &params);
    let rows: [&[f64]; 4] = [
        &[10.0, 100.0, 2.0],
        &[50.0, 100.0, 2.0],
        &[10.0, 200.0, 4.0],
        &[50.0, 200.0, 4.0],
    ];
    let s = traced(&["NOUT", "NSTEP", "P"], &rows, &|r| {
        (r[1] / r[0]).floor() / r[1]
    });
    let got = source_share(EVERY_NOUT, &nstep_loop(), &c, &s).unwrap();
    assert_eq!(got.over, "istep = 1..NSTEP");
    let at = |e: &Expr, nout: f64, nstep: f64| {
        e.eval(&|v| match v {
            "NOUT" => Some(nout),
            "NSTEP" => Some(nstep),
            _ => None,
        })
        .unwrap()
    };
    for (nout, nstep) in [(10.0_f64, 25.0), (7.0, 100.0), (1.0, 3.0), (30.0, 20.0)] {
        let want = (nstep / nout).floor() / nstep;
        assert!((at(&got.expr, nout, nstep) - want).abs() < 1e-12);
    }
    // the complement, and a loop counted from 0 (C) where the traces tell the start apart
    let ne = EVERY_NOUT.replace("==", "!=");
    let s_ne = traced(&["NOUT", "NSTEP", "P"], &rows, &|r| {
        1.0 - (r[1] / r[0]).floor() / r[1]
    });
    let got = source_share(&ne, &nstep_loop(), &c, &s_ne).unwrap();
    assert!((at(&got.expr, 10.0, 25.0) - 23.0 / 25.0).abs() < 1e-12);
    let from0 = traced(&["NOUT", "NSTEP", "P"], &[&[10.0, 25.0, 2.0]], &|_| {
        3.0 / 25.0
    });
    let got = source_share(EVERY_NOUT, &nstep_loop(), &c, &from0).unwrap();
    assert_eq!(got.over, "istep = 0..NSTEP - 1");
    assert!((at(&got.expr, 10.0, 95.0) - 10.0 / 95.0).abs() < 1e-12);
    // a residue other than 0, and the mod written on the right
    let one = "1 == -NOUT*floor(istep/NOUT) + istep";
    let s1 = traced(&["NOUT", "NSTEP", "P"], &[&[10.0, 25.0, 2.0]], &|_| {
        3.0 / 25.0
    });
    let got = source_share(one, &nstep_loop(), &c, &s1).unwrap();
    assert_eq!(got.over, "istep = 1..NSTEP");
    // shares the source's mean does not give: none
    let off = traced(&["NOUT", "NSTEP", "P"], &rows, &|_| 0.06);
    assert!(source_share(EVERY_NOUT, &nstep_loop(), &c, &off).is_none());
    // a loop with a step (its trip a rounded quotient) visits only some of its range
    let stepped = [Outer::Loop {
        var: Some("istep".into()),
        trip: Attr::Expr(symbolic::parse("ceil(NSTEP/2)").unwrap()),
        start: None,
    }];
    assert!(source_share(EVERY_NOUT, &stepped, &c, &s).is_none());
    // an arm between the loop and the IF that tests the index too: none
    let outer = [nstep_loop()[0].clone(), guard("istep > 5", true)];
    assert!(source_share(EVERY_NOUT, &outer, &c, &s).is_none());
}

/// A bound on the loop index is its count over the loop: `ISTEP > NOUT` is taken
/// NSTEP - min(NOUT, NSTEP) times, `ISTEP == 1` once, `2*ISTEP <= NSTEP` floor(NSTEP/2).
#[test]
fn a_bound_on_a_loop_index_is_its_mean_over_the_loop() {
    let consts = BTreeMap::new();
    let params = names(&["NOUT", "NSTEP", "P"]);
    let c = ctx(&consts, &params);
    let none = Samples::new(params.clone());
    type Count = fn(i64, i64) -> i64;
    let cases: [(&str, Count); 6] = [
        ("istep > NOUT", |nout, nstep| (nstep - nout).max(0)),
        ("istep == 1", |_, _| 1),
        ("istep < NSTEP", |_, nstep| nstep - 1),
        ("2*istep <= NSTEP", |_, nstep| nstep / 2),
        ("NOUT >= istep", |nout, nstep| nout.min(nstep)),
        ("istep != NOUT", |nout, nstep| {
            nstep - i64::from(nout <= nstep)
        }),
    ];
    for (cond, want) in cases {
        let got = source_share(cond, &nstep_loop(), &c, &none).unwrap();
        assert_eq!(got.over, "istep = 1..NSTEP", "{cond}");
        for (nout, nstep) in [(10, 25), (50, 20), (7, 7), (1, 1000)] {
            let x = got
                .expr
                .eval(&|v| match v {
                    "NOUT" => Some(nout as f64),
                    "NSTEP" => Some(nstep as f64),
                    _ => None,
                })
                .unwrap();
            let w = want(nout, nstep) as f64 / nstep as f64;
            assert!(
                (x - w).abs() < 1e-12,
                "{cond} at {nout}, {nstep}: {}",
                got.expr
            );
        }
    }
    // not linear in the index: none
    assert!(source_share("istep^2 > NOUT", &nstep_loop(), &c, &none).is_none());
}

/// trial 5 item 5: the warning that T misses NOUT names the branch whose share was
/// fitted without it.
#[test]
fn a_branch_fitted_without_a_parameter_is_named() {
    let i = apt::IfNode {
        cond: EVERY_NOUT.into(),
        unresolved: None,
        vars: ["NOUT", "istep"].map(String::from).into(),
    };
    let params = names(&["NOUT", "NSTEP", "P"]);
    let flat = Expr::num(0.06);
    let at = |s: u32| format!("line {}", s + 49);
    let b = fitted_without(&[(27, &i, &flat)], &params, &at);
    assert_eq!(
        b.get("NOUT").map(String::as_str),
        Some("the branch at line 76 (site 27, `-NOUT*floor(istep/NOUT) + istep == 0`) tests NOUT, but its share was fitted without it (0.06)")
    );
    assert_eq!(b.len(), 1);
    let law = symbolic::parse("floor(NSTEP/NOUT)/NSTEP").unwrap();
    assert!(fitted_without(&[(27, &i, &law)], &params, &at).is_empty());
}

/// `rank/K` with K a whole constant or a grid extent is the program's integer division: it
/// is floored (a side's whole-valued terms left outside); a rank with a whole factor, or
/// already inside a rounding, is left as it is.
#[test]
fn a_quotient_of_the_rank_reads_as_an_integer_division() {
    let rank = apt::params::RANK;
    for (cond, want) in [
        (
            "rank/smpi_dims(P, 2, 1) == 0",
            Some("floor(rank/smpi_dims(P, 2, 1)) == 0"),
        ),
        (
            "rank/dims(P, 2, 1) < dims(P, 2, 0) - 1",
            Some("floor(rank/dims(P, 2, 1)) < dims(P, 2, 0) - 1"),
        ),
        ("rank/4 + 1 < P", Some("floor(rank/4) + 1 < P")),
        ("(rank + 1)/3 > 1", Some("floor((rank + 1)/3) > 1")),
        (EVEN, None),
        ("2*rank < P", None),
        ("rank + 1 < P", None),
        ("rank/N > 1", None),
        ("rank^2/4 > 1", None),
    ] {
        let side = |c: &Comparison| (c.lhs.clone(), c.op, c.rhs.clone());
        let got = Comparison::parse(cond).unwrap().truncating(rank);
        let want = want.map(|w| side(&Comparison::parse(w).unwrap()));
        assert_eq!(got.as_ref().map(side), want, "{cond}");
    }
}

/// trial 18 item 8: the wavefront's `prow = rank / py` reaches its conditions as apt's exact
/// `rank/smpi_dims(P, 2, 1)`; the program truncates it to the grid row, so `prow == 0` is
/// taken by 1/smpi_dims(P, 2, 0) of the ranks and `prow > 0` by the rest (the traced 1, 1/2,
/// 1/2, 1/4, 1/4 were fitted a constant 0.5). A quotient the program takes as a real (`(double)
/// rank / py`, which apt writes the same way) is read as written where the traces say so.
#[test]
fn a_grid_row_by_integer_division_is_a_share_in_the_grid_extents() {
    let consts = BTreeMap::new();
    let params = names(&["P"]);
    let c = ctx(&consts, &params);
    let ext = |k: u32| symbolic::parse(&format!("smpi_dims(P, 2, {k})")).unwrap();
    let (d0, d1) = (ext(0), ext(1));
    let row = "rank/smpi_dims(P, 2, 1)";
    type Count = fn(usize, usize) -> bool;
    let cases: [(String, Count, Expr); 4] = [
        (format!("{row} == 0"), |r, _| r == 0, d0.powi(-1)),
        (
            format!("{row} > 0"),
            |r, _| r > 0,
            Expr::one() - d0.powi(-1),
        ),
        (
            format!("{row} >= 1"),
            |r, _| r >= 1,
            Expr::one() - d0.powi(-1),
        ),
        (
            format!("{row} < smpi_dims(P, 2, 0) - 1"),
            |r, n0| r + 1 < n0,
            Expr::one() - d0.powi(-1),
        ),
    ];
    for (cond, holds, want) in cases {
        let share = |p: usize| {
            let n1 = at_p(&d1, p as f64) as usize;
            let on = (0..p).filter(|r| holds(r / n1, p / n1)).count();
            on as f64 / p as f64
        };
        let rows: [&[f64]; 5] = [&[1.0], &[2.0], &[4.0], &[8.0], &[16.0]];
        let with = traced(&["P"], &rows, &|r| share(r[0] as usize));
        for s in [with, Samples::new(names(&["P"]))] {
            let got = source_share(&cond, &[], &c, &s).unwrap();
            assert_eq!(got.expr, want, "{cond}");
            assert_eq!(got.over, "rank = 0..P-1");
            for p in [1, 3, 6, 9, 12, 18, 30, 64, 72, 100, 4096] {
                assert!(
                    (at_p(&got.expr, p as f64) - share(p)).abs() < 1e-12,
                    "{cond} at P = {p}: {}",
                    got.expr
                );
            }
        }
    }
    // a constant divisor: the first pair of ranks
    let none = Samples::new(names(&["P"]));
    let got = source_share("rank/2 == 0", &[], &c, &none).unwrap();
    for p in 1..=40 {
        let want = p.min(2) as f64 / p as f64;
        assert!((at_p(&got.expr, p as f64) - want).abs() < 1e-12, "P = {p}");
    }
    // inside `prow > 0`: the ranks of the rows below the first that are not in the last
    let below = [guard(&format!("{row} > 0"), true)];
    let got = source_share(
        &format!("{row} < smpi_dims(P, 2, 0) - 1"),
        &below,
        &c,
        &none,
    )
    .unwrap();
    assert_eq!(got.over, "the ranks that reach it");
    for p in [2, 4, 8, 9, 16, 36, 64] {
        let n0 = at_p(&d0, p as f64) as usize;
        if n0 > 1 {
            let want = (n0 - 2) as f64 / (n0 - 1) as f64;
            assert!((at_p(&got.expr, p as f64) - want).abs() < 1e-12, "P = {p}");
        }
    }
    // a real quotient: only rank 0 has rank/py == 0, which the traces show
    let real = traced(&["P"], &[&[1.0], &[2.0], &[4.0], &[8.0]], &|r| 1.0 / r[0]);
    let got = source_share(&format!("{row} == 0"), &[], &c, &real).unwrap();
    assert_eq!(got.expr, Expr::var("P").powi(-1));
}

/// trial 18 item 8: `b == 0 && pcol > 0` over the wavefront's blocks b = 0..nblk-1 is taken in
/// the first block by the ranks off the grid's first column: the product of the two means,
/// (1 - 1/smpi_dims(P, 2, 1))·KB·smpi_dims(P, 2, 1)/N, not a constant regressed from shares
/// that change with KB, N and P.
#[test]
fn a_conjunction_of_a_rank_and_a_loop_index_condition_is_the_product_of_their_means() {
    let consts = BTreeMap::new();
    let params = names(&["KB", "N", "P"]);
    let mut c = ctx(&consts, &params);
    c.fortran = false;
    let d1 = symbolic::parse("smpi_dims(P, 2, 1)").unwrap();
    let nblk = symbolic::parse("N/(KB*smpi_dims(P, 2, 1))").unwrap();
    let blocks = [Outer::Loop {
        var: Some("b".into()),
        trip: Attr::Expr(nblk.clone()),
        start: None,
    }];
    let col = "mod(rank, smpi_dims(P, 2, 1))";
    type Count = fn(usize, usize, usize, usize) -> bool;
    let cases: [(String, Count); 2] = [
        (format!("b == 0 && {col} > 0"), |b, c, _, _| b == 0 && c > 0),
        (
            format!("b == N/(KB*smpi_dims(P, 2, 1)) - 1 && {col} < smpi_dims(P, 2, 1) - 1"),
            |b, c, nb, n1| b + 1 == nb && c + 1 < n1,
        ),
    ];
    let at = |e: &Expr, kb: f64, n: f64, p: f64| {
        e.eval(&|v| match v {
            "KB" => Some(kb),
            "N" => Some(n),
            "P" => Some(p),
            _ => None,
        })
        .unwrap()
    };
    for (cond, holds) in cases {
        let share = |r: &[f64]| {
            let (p, n1) = (r[2] as usize, at(&d1, r[0], r[1], r[2]) as usize);
            let nb = at(&nblk, r[0], r[1], r[2]) as usize;
            let on: usize = (0..p)
                .map(|rank| (0..nb).filter(|&b| holds(b, rank % n1, nb, n1)).count())
                .sum();
            on as f64 / (p * nb) as f64
        };
        let mut rows: Vec<Vec<f64>> = Vec::new();
        for kb in [4.0, 16.0, 64.0] {
            for n in [256.0, 512.0, 1024.0] {
                for p in [1.0, 2.0, 4.0, 8.0, 16.0] {
                    rows.push(vec![kb, n, p]);
                }
            }
        }
        let refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        let s = traced(&["KB", "N", "P"], &refs, &share);
        let got = source_share(&cond, &blocks, &c, &s).unwrap();
        assert!(
            got.over.starts_with("rank = 0..P-1 and b = 0.."),
            "{}",
            got.over
        );
        for r in [
            [2.0, 96.0, 6.0],
            [8.0, 4096.0, 64.0],
            [1.0, 36.0, 9.0],
            [3.0, 12.0, 1.0],
        ] {
            assert!(
                (at(&got.expr, r[0], r[1], r[2]) - share(&r)).abs() < 1e-12,
                "{cond} at {r:?}: {}",
                got.expr
            );
        }
    }
    // two conditions on loop indices: no product (they need not be independent)
    let none = Samples::new(params.clone());
    assert!(source_share("b == 0 && b < N", &blocks, &c, &none).is_none());
}

/// Trial 29's farm: `if (sent < ntask) { …; sent++; }` in `for (w = 1; w < size; w++)` reads
/// `w - 1 < NTASK` (apt's guard counter); from runs that all had NTASK >= P - 1, where every
/// share is 1, either start fits: the source's, 1, counts min(P - 1, NTASK) primed workers,
/// where a guessed 0 counted one more.
#[test]
fn a_loop_index_share_counts_from_the_sources_start() {
    let consts = BTreeMap::new();
    let params = names(&["NTASK", "P"]);
    let c = ctx(&consts, &params);
    let rows: [&[f64]; 3] = [&[32.0, 2.0], &[32.0, 4.0], &[64.0, 16.0]];
    let s = traced(&["NTASK", "P"], &rows, &|_| 1.0);
    let workers = |start| {
        [Outer::Loop {
            var: Some("w".into()),
            trip: Attr::Expr(symbolic::parse("P - 1").unwrap()),
            start,
        }]
    };
    let got = source_share("w - 1 < NTASK", &workers(Some(1)), &c, &s).unwrap();
    assert_eq!(got.over, "w = 1..P - 1");
    let at = |e: &Expr, ntask: f64, p: f64| {
        e.eval(&|v| match v {
            "NTASK" => Some(ntask),
            "P" => Some(p),
            _ => None,
        })
        .unwrap()
    };
    // 64 tasks on 255 workers: 64 primed
    assert!(
        (at(&got.expr, 64.0, 256.0) * 255.0 - 64.0).abs() < 1e-9,
        "{}",
        got.expr
    );
    assert!((at(&got.expr, 64.0, 16.0) - 1.0).abs() < 1e-12);
    // from 0 (`for (w = 0; w < size - 1; w++)`), one more iteration passes the test
    let from0 = source_share("w - 1 < NTASK", &workers(Some(0)), &c, &s).unwrap();
    assert_eq!(from0.over, "w = 0..P - 2");
    assert!(
        (at(&from0.expr, 64.0, 256.0) * 255.0 - 65.0).abs() < 1e-9,
        "{}",
        from0.expr
    );
}
