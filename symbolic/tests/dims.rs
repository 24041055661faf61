//! `dims(n, d, k)` against what Open MPI 4.1.4's `MPI_Dims_create` returned for n = 1..256,
//! d = 1..4 (`data/dims_create_openmpi.txt`, recorded here with mpicc/mpirun), through every
//! evaluation path: `dims_create`, folding a constant, tree evaluation, compiled evaluation.
#![allow(clippy::unwrap_used)]

use symbolic::{dims_create, parse, Compiled, Expr};

fn table() -> Vec<(u64, u32, Vec<u64>)> {
    include_str!("data/dims_create_openmpi.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let v: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            (v[0], v[1] as u32, v[2..].to_vec())
        })
        .collect()
}

#[test]
fn matches_open_mpi() {
    let t = table();
    assert_eq!(t.len(), 256 * 4);
    for (n, d, want) in &t {
        assert_eq!(dims_create(*n, *d).as_ref(), Some(want), "n = {n}, d = {d}");
    }
}

#[test]
fn every_evaluation_path_agrees_with_open_mpi() {
    let t = table();
    for d in 1..=4u32 {
        for k in 0..d {
            let e = Expr::dims(&Expr::var("P"), d, k).unwrap();
            let c = Compiled::new(&e, &["P"]).unwrap();
            for (n, _, want) in t.iter().filter(|r| r.1 == d) {
                let w = want[k as usize] as f64;
                let p = *n as f64;
                assert_eq!(e.eval(&|_| Some(p)).unwrap(), w, "{e} at P = {n}");
                assert_eq!(c.eval(&[p]), w, "compiled {e} at P = {n}");
                assert_eq!(Expr::dims(&Expr::num(p), d, k).unwrap().as_const(), Some(w));
            }
        }
    }
}

/// The wavefront depth over a 2-D grid, dims(P,2,0) + dims(P,2,1) - 2, is whole at every P
/// (P^(1/2) + P^(1/2) - 2 gave 3.66 at P = 8 where the real grid 4 x 2 has depth 4).
#[test]
fn wavefront_depth_on_the_real_grid() {
    let e = parse("dims(P, 2, 0) + dims(P, 2, 1) - 2").unwrap();
    let at = |p: f64| e.eval(&|_| Some(p)).unwrap();
    assert_eq!(at(8.0), 4.0);
    assert_eq!(at(16.0), 6.0);
    assert_eq!(at(12.0), 5.0);
    assert_eq!(at(7.0), 6.0);
}
