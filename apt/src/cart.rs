//! Cartesian communicators (trial 4 item 8, trial 5 item 9): `MPI_Cart_create` over
//! `MPI_COMM_WORLD` with known extents and periods gives a grid, kept in the environment under
//! the new communicator's variable (so it follows the handle into callees as a global or an
//! argument, and is dropped when the handle is written again); `MPI_Cart_shift` on it gives
//! each rank's neighbours: `(rank ± 1) mod P` on a periodic ring, `rank - 1` with
//! `MPI_PROC_NULL` at the edge ([`Val::OrNull`]) on a non-periodic one; `MPI_Cart_coords`
//! gives the rank's coordinates.
//!
//! Ranks are laid out as MPI lays them out, row-major (the last dimension varies fastest), and
//! a rank in the grid is taken as its rank in `MPI_COMM_WORLD` (no reordering: what Open MPI
//! does, and what `reorder = 0` asks for).
use symbolic::Expr;

use crate::interp::Env;
use crate::value::{modulo, OrNull, Test, Val};
use frontend::BinOp;

/// A process grid: extent and periodicity of each dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub extents: Vec<Expr>,
    pub periodic: Vec<bool>,
}

fn ndims_path(comm: &str) -> String {
    format!("{comm}[#cartdims]")
}

fn extent_path(comm: &str, k: usize) -> String {
    format!("{comm}[#cartextent{k}]")
}

fn period_path(comm: &str, k: usize) -> String {
    format!("{comm}[#cartperiodic{k}]")
}

/// Where the ranks of a communicator made from a grid (`MPI_Cart_sub`) are kept under its
/// variable.
pub fn group_path(comm: &str) -> String {
    format!("{comm}[#group]")
}

/// The environment entries that keep `grid` under the communicator variable `comm`.
pub fn store(comm: &str, grid: &Grid) -> Vec<(String, Val)> {
    let mut out = vec![(
        ndims_path(comm),
        Val::Known(Expr::int(grid.extents.len() as i64)),
    )];
    for (k, (e, p)) in grid.extents.iter().zip(&grid.periodic).enumerate() {
        out.push((extent_path(comm, k), Val::Known(e.clone())));
        out.push((period_path(comm, k), Val::Known(Expr::int(i64::from(*p)))));
    }
    out
}

/// The grid kept under `comm`, when every part of it is known.
pub fn stored(env: &Env, comm: &str) -> Option<Grid> {
    let d = env.get(&ndims_path(comm))?.known()?.as_const()?;
    if d.fract() != 0.0 || !(1.0..=8.0).contains(&d) {
        return None;
    }
    let mut grid = Grid {
        extents: Vec::new(),
        periodic: Vec::new(),
    };
    for k in 0..d as usize {
        grid.extents
            .push(env.get(&extent_path(comm, k))?.known()?.clone());
        let p = env.get(&period_path(comm, k))?.known()?.as_const()?;
        grid.periodic.push(p != 0.0);
    }
    Some(grid)
}

/// Ranks between neighbours along dimension `dir`: the product of the later extents.
fn stride(grid: &Grid, dir: usize) -> Expr {
    grid.extents
        .iter()
        .skip(dir + 1)
        .fold(Expr::one(), |acc, e| acc * e.clone())
}

/// The coordinate of `rank` in dimension `dir` (what `MPI_Cart_coords` gives), `None` when
/// `dir` is not one of the grid's dimensions.
pub fn coord(grid: &Grid, rank: &Expr, dir: usize) -> Option<Expr> {
    let n = grid.extents.get(dir)?;
    let along = if dir + 1 == grid.extents.len() {
        rank.clone()
    } else {
        (rank / &stride(grid, dir)).floor()
    };
    Some(if dir == 0 { along } else { modulo(&along, n) })
}

/// `MPI_Cart_shift(comm, dir, disp, &source, &dest)` on `grid` at rank `rank`: (source,
/// dest). `None` when `dir` is not one of the grid's dimensions or `disp` is zero.
pub fn shift(grid: &Grid, rank: &Expr, dir: usize, disp: i64) -> Option<(Val, Val)> {
    let n = grid.extents.get(dir)?;
    if disp == 0 {
        return None;
    }
    let stride = stride(grid, dir);
    let coord = coord(grid, rank, dir)?;
    let periodic = grid.periodic.get(dir).copied().unwrap_or(false);
    let step = |s: i64| -> Val {
        let s_e = Expr::int(s);
        if periodic {
            let wrapped = modulo(&(&coord + &s_e), n);
            return Val::Known(rank + &stride * (wrapped - coord.clone()));
        }
        // inside the grid: coord + s in 0 .. n-1
        let live = if s > 0 {
            Test {
                op: BinOp::Lt,
                lhs: coord.clone(),
                rhs: n - &s_e,
            }
        } else {
            Test {
                op: BinOp::Ge,
                lhs: coord.clone(),
                rhs: -s_e.clone(),
            }
        };
        Val::OrNull(Box::new(OrNull {
            peer: rank + &stride * s_e,
            live,
        }))
    };
    Some((step(-disp), step(disp)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn p(s: &str) -> Expr {
        symbolic::parse(s).unwrap()
    }

    #[test]
    fn a_periodic_ring_wraps_and_an_open_line_has_edges() {
        let rank = p("rank");
        let ring = Grid {
            extents: vec![p("P")],
            periodic: vec![true],
        };
        let (src, dst) = shift(&ring, &rank, 0, 1).unwrap();
        let at = |v: &Val, r: f64| {
            v.known()
                .unwrap()
                .eval(&|x| match x {
                    "rank" => Some(r),
                    "P" => Some(4.0),
                    _ => None,
                })
                .unwrap()
        };
        assert_eq!((at(&src, 0.0), at(&dst, 3.0)), (3.0, 0.0));
        assert_eq!((at(&src, 2.0), at(&dst, 2.0)), (1.0, 3.0));
        let line = Grid {
            periodic: vec![false],
            ..ring
        };
        let (src, dst) = shift(&line, &rank, 0, 1).unwrap();
        let Val::OrNull(s) = src else { panic!() };
        let Val::OrNull(d) = dst else { panic!() };
        assert_eq!(
            (s.peer.to_string(), s.live.text()),
            ("rank - 1".into(), "rank >= 1".into())
        );
        assert_eq!(
            (d.peer.to_string(), d.live.text()),
            ("rank + 1".into(), "rank < P - 1".into())
        );
    }
}
