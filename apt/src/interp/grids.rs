//! Process grids: the extents `MPI_Dims_create` leaves, `MPI_Cart_create`, `Cart_shift`
//! and `Cart_coords` on a grid made here, and the constant array elements they read.

use frontend::{DeclKind, Role, SrcExpr};
use symbolic::Expr;

use crate::value::{Special, Val};

use super::mpi::{handle_var, written_root};
use super::{Analysis, Env};

impl Analysis<'_> {
    /// `MPI_Cart_create(MPI_COMM_WORLD, d, dims, periods, reorder, &comm)` with a constant
    /// `d` and every element of `dims` and `periods` known: the new handle and its grid.
    pub(super) fn cart_create(
        &mut self,
        m: &frontend::MpiCall,
        env: &Env,
    ) -> Option<(String, crate::cart::Grid)> {
        if self.ev(&m.arg(Role::Comm)?.expr, env, None) != Val::Special(Special::CommWorld) {
            return None;
        }
        let d = self.constant(&m.arg(Role::Ndims)?.expr, env)?;
        let d = usize::try_from(d).ok().filter(|d| (1..=8).contains(d))?;
        let comm = handle_var(&m.arg(Role::NewComm)?.expr)?.to_string();
        let extents = self.elements(&m.arg(Role::Dims)?.expr, d, env)?;
        let periodic = self
            .elements(&m.arg(Role::Periods)?.expr, d, env)?
            .iter()
            .map(|p| p.as_const().map(|c| c != 0.0))
            .collect::<Option<Vec<bool>>>()?;
        Some((comm, crate::cart::Grid { extents, periodic }))
    }

    /// `MPI_Cart_sub(comm, remain, &sub)` on a grid made here (or handed in): `sub`'s ranks,
    /// the product of the extents `remain` keeps, for the collectives on it (trial 26: a row
    /// communicator's Allreduce had its group fitted `1.356*sqrt(P) - 0.3219` where the
    /// source says `smpi_dims(P, 2, 0)`). Its ranks are not the grid's, so no grid is kept.
    pub(super) fn cart_sub(&mut self, m: &frontend::MpiCall, env: &mut Env) {
        let Some(comm) = m.arg(Role::Comm).and_then(|a| handle_var(&a.expr)) else {
            return;
        };
        let Some(grid) = crate::cart::stored(env, comm) else {
            return;
        };
        let Some(sub) = m.arg(Role::NewComm).and_then(|a| handle_var(&a.expr)) else {
            return;
        };
        let sub = sub.to_string();
        let Some(keep) = m
            .arg(Role::Periods)
            .and_then(|a| self.elements(&a.expr, grid.extents.len(), env))
        else {
            return;
        };
        let mut size = Expr::one();
        for (extent, k) in grid.extents.iter().zip(&keep) {
            match k.as_const() {
                Some(c) if c != 0.0 => size = size * extent.clone(),
                Some(_) => {}
                None => return,
            }
        }
        env.insert(crate::cart::group_path(&sub), Val::Known(size));
    }

    /// `MPI_Comm_split(MPI_COMM_WORLD, colour, key, &sub)` with a colour in the rank and P
    /// alone: `sub`'s ranks, the largest group the colour makes ([`split_group`]), for the
    /// collectives on it (trial 26: `mod(rank, 2)`'s Allreduce had its group fitted
    /// `0.3885*P + 0.4331` from the traces, where the source says `ceil(P/2)`). The world's
    /// ranks are numbered as the split numbers them only by chance, so no grid is kept.
    pub(super) fn comm_split(&mut self, m: &frontend::MpiCall, env: &mut Env) {
        let Some(sub) = m.arg(Role::NewComm).and_then(|a| handle_var(&a.expr)) else {
            return;
        };
        let sub = sub.to_string();
        let world = m.arg(Role::Comm).map(|a| self.ev(&a.expr, env, None))
            == Some(Val::Special(Special::CommWorld));
        let colour = m.arg(Role::Color).map(|a| self.ev(&a.expr, env, None));
        if let (true, Some(Val::Known(c))) = (world, colour) {
            if let Some(g) = split_group(&c) {
                env.insert(crate::cart::group_path(&sub), Val::Known(g));
            }
        }
    }

    /// `MPI_Cart_shift(comm, dir, disp, &source, &dest)` on a grid made here (or handed in):
    /// the neighbours ([`crate::cart::shift`]) replace the "set by" the call left.
    pub(super) fn cart_shift(&mut self, m: &frontend::MpiCall, env: &mut Env, line: u32) {
        let Some(comm) = m.arg(Role::Comm).and_then(|a| handle_var(&a.expr)) else {
            return;
        };
        let Some(grid) = crate::cart::stored(env, comm) else {
            return;
        };
        let dir = m
            .arg(Role::Direction)
            .and_then(|a| self.constant(&a.expr, env));
        let disp = m.arg(Role::Disp).and_then(|a| self.constant(&a.expr, env));
        let (Some(dir), Some(disp)) = (dir.and_then(|d| usize::try_from(d).ok()), disp) else {
            return;
        };
        let rank = Expr::var(&self.params.comm_rank(comm, line));
        let Some((src, dst)) = crate::cart::shift(&grid, &rank, dir, disp) else {
            return;
        };
        for (role, v) in [(Role::Source, src), (Role::Dest, dst)] {
            if let Some(x) = m.arg(role).and_then(|a| crate::comm::out_path(&a.expr)) {
                env.insert(x, v);
            }
        }
    }

    /// `MPI_Cart_coords(comm, r, d, coords)` on a grid made here (or handed in) with `r`
    /// known: the elements of `coords` are `r`'s coordinates ([`crate::cart::coord`]).
    pub(super) fn cart_coords(&mut self, m: &frontend::MpiCall, env: &mut Env) {
        let Some(comm) = m.arg(Role::Comm).and_then(|a| handle_var(&a.expr)) else {
            return;
        };
        let Some(grid) = crate::cart::stored(env, comm) else {
            return;
        };
        let rank = match m.arg(Role::Rank).map(|a| self.ev(&a.expr, env, None)) {
            Some(Val::Known(r)) => r,
            _ => return,
        };
        let Some(root) = m.arg(Role::Coords).and_then(|a| written_root(&a.expr)) else {
            return;
        };
        let lower = match self.prog.decl(self.cur, root).map(|x| &x.kind) {
            Some(DeclKind::Array { dims, .. }) => match dims.first() {
                Some(frontend::Dim::Bounds { lo, .. }) => lo.as_int(),
                _ if self.prog.language == frontend::Language::Fortran => Some(1),
                _ => Some(0),
            },
            _ => None,
        };
        let Some(lower) = lower else { return };
        for k in 0..grid.extents.len() {
            if let Some(c) = crate::cart::coord(&grid, &rank, k) {
                env.insert(format!("{root}[{}]", lower + k as i64), Val::Known(c));
            }
        }
    }

    /// An integer a named constant may spell (`#define NDIMS 3`, `parameter (nd = 2)`).
    pub(super) fn constant(&mut self, e: &SrcExpr, env: &Env) -> Option<i64> {
        let v = self.ev(e, env, None);
        let e = v.known()?;
        let params = &self.params;
        let c = e.eval(&|x| params.constant_value(x)).ok()?;
        (c.fract() == 0.0 && c.abs() < 1e9).then_some(c as i64)
    }

    /// The lower bound of array `root`'s first dimension as declared (the language's default
    /// without one); a member array of a struct or derived type (`d.dims`, `g%dims`: trial 17)
    /// at the default (`g->dims` too: trial 22). `None` when `root` is not an array.
    fn array_lower(&self, root: &str) -> Option<i64> {
        let fortran = self.prog.language == frontend::Language::Fortran;
        match self.prog.decl(self.cur, root).map(|x| &x.kind) {
            Some(DeclKind::Array { dims, .. }) => match dims.first() {
                Some(frontend::Dim::Bounds { lo, .. }) => lo.as_int(),
                _ => Some(i64::from(fortran)),
            },
            None if root.contains(['.', '%']) || root.contains("->") => Some(i64::from(fortran)),
            _ => None,
        }
    }

    /// The first `d` elements of an array argument (`dims`, `&dims[0]`, Fortran `dims`), as
    /// stored element by element or for the whole array (`periods = .false.`); a scalar
    /// (`&n` with `d` = 1) is its own element. `None` unless all are known.
    pub(super) fn elements(&self, e: &SrcExpr, d: usize, env: &Env) -> Option<Vec<Expr>> {
        let root = written_root(e)?;
        let lower = match self.array_lower(root) {
            Some(lo) => lo,
            None if d == 1 => return Some(vec![env.get(root)?.known()?.clone()]),
            None => return None,
        };
        (0..d)
            .map(|k| {
                let at = format!("{root}[{}]", lower + k as i64);
                env.get(&at)
                    .or_else(|| env.get(root))
                    .and_then(Val::known)
                    .cloned()
            })
            .collect()
    }

    /// The extents `MPI_Dims_create(P, d, dims)` leaves in a `dims` zeroed before it (element
    /// by element, or whole: Fortran `dims = 0`): exact, `dims(P, d, k)`, see [`crate::dims`].
    pub(super) fn dims_create(
        &mut self,
        m: &frontend::MpiCall,
        env: &Env,
        line: u32,
    ) -> Option<crate::dims::Balanced> {
        let nnodes = self.ev(&m.arg(Role::Nnodes)?.expr, env, None);
        // a named constant (`#define NDIMS 3`, `parameter (nd = 2)`) counts as its value
        let ndims = match self.ev(&m.arg(Role::Ndims)?.expr, env, None) {
            Val::Known(e) if e.as_const().is_none() => {
                let params = &self.params;
                match e.eval(&|x| params.constant_value(x)) {
                    Ok(d) => Val::Known(Expr::num(d)),
                    Err(_) => Val::Known(e),
                }
            }
            v => v,
        };
        let root = written_root(&m.arg(Role::Dims)?.expr)?.to_string();
        let fortran = self.prog.language == frontend::Language::Fortran;
        let lower = self.array_lower(&root)?;
        let zero = |path: &str| match env.get(path) {
            Some(v) => crate::dims::is_zero(Some(v)),
            None => crate::dims::is_zero(env.get(&root)),
        };
        let grid = crate::dims::Grid {
            root: &root,
            lower,
            fortran,
            rule: self.dims_rule,
        };
        crate::dims::balanced(&nnodes, &ndims, &grid, zero, line)
    }
}

/// The ranks of the largest group `MPI_Comm_split` makes of the world's P ranks with colour
/// `c`, an expression in the world rank: a colour the same on every rank keeps them all (P);
/// `rank mod k` makes k groups of `ceil(P/k)` at most; `rank / k` (floored or as the model's
/// whole quotient) makes groups of k consecutive ranks, `min(k, P)`. `k` may be a parameter
/// or a grid's extent, never the rank. `None` for any other colour.
fn split_group(c: &Expr) -> Option<Expr> {
    let rank = Expr::var(crate::params::RANK);
    let p = Expr::var(crate::params::P);
    if !c.vars().contains(crate::params::RANK) {
        return Some(p);
    }
    // the divisor k of `rank / k`, from a floor of it in `c` or from `c` itself
    let mut ks: Vec<Expr> = Vec::new();
    for t in c.terms() {
        for (a, _) in t.factors() {
            if let symbolic::Atom::Floor(arg) = a {
                ks.push(&rank / arg.as_ref());
            }
        }
    }
    ks.push(&rank / c);
    ks.into_iter()
        .filter(|k| !k.vars().contains(crate::params::RANK) && !k.is_zero())
        .find_map(|k| {
            if *c == crate::value::modulo(&rank, &k) {
                Some((&p / &k).ceil())
            } else if *c == (&rank / &k).floor() || *c == &rank / &k {
                Some(Expr::min(k, p.clone()))
            } else {
                None
            }
        })
}
