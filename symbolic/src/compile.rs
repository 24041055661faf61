//! Slot-indexed evaluation for hot loops (plots evaluate 10⁶ points): the expression is lowered
//! once to a flat register program with shared atoms and powers computed once.

use crate::expr::{Atom, Expr};
use crate::rational::Rational;
use crate::EvalError;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
enum Op {
    Const(f64),
    Add(usize, usize),
    /// `a + b·c`
    MulAdd(usize, usize, f64),
    AddC(usize, f64),
    /// `c / a`
    DivC(f64, usize),
    Mul(usize, usize),
    Div(usize, usize),
    Scale(usize, f64),
    PowI(usize, i32),
    Sqrt(usize),
    PowF(usize, f64),
    Log2(usize),
    Max(usize, usize),
    Min(usize, usize),
    Ceil(usize),
    Floor(usize),
    /// `dims(a, d, k)`
    Dims(usize, crate::DimsRule, u32, u32),
}

/// An expression lowered to a register program. Registers `0..slots` hold the arguments;
/// register `slots + i` holds the result of `ops[i]`.
#[derive(Clone, Debug)]
pub struct Compiled {
    ops: Vec<Op>,
    slots: Vec<String>,
}

/// Registers kept on the stack for programs up to this size.
const STACK_REGS: usize = 32;

struct Builder<'a> {
    ops: Vec<Op>,
    slots: &'a [&'a str],
    atoms: BTreeMap<Atom, usize>,
    powers: BTreeMap<(Atom, Rational), usize>,
}

impl Builder<'_> {
    fn push(&mut self, op: Op) -> usize {
        self.ops.push(op);
        self.slots.len() + self.ops.len() - 1
    }

    fn expr(&mut self, e: &Expr) -> Result<usize, EvalError> {
        let mut acc: Option<usize> = None;
        let mut konst = 0.0;
        for t in e.terms() {
            if t.is_constant() {
                konst += t.coef();
                continue;
            }
            // Numerator factors multiply, denominator factors divide once at the end.
            let mut num: Option<usize> = None;
            let mut den: Option<usize> = None;
            for (a, q) in t.factors() {
                let (slot, q) = if q.is_negative() {
                    (&mut den, -*q)
                } else {
                    (&mut num, *q)
                };
                let r = self.power(a, q)?;
                *slot = Some(match *slot {
                    None => r,
                    Some(prev) => self.push(Op::Mul(prev, r)),
                });
            }
            let mut c = t.coef();
            let r = match (num, den) {
                (Some(n), None) => n,
                (Some(n), Some(d)) => self.push(Op::Div(n, d)),
                (None, Some(d)) => {
                    let r = self.push(Op::DivC(c, d));
                    c = 1.0;
                    r
                }
                (None, None) => self.push(Op::Const(1.0)),
            };
            acc = Some(match (acc, c == 1.0) {
                (None, true) => r,
                (None, false) => self.push(Op::Scale(r, c)),
                (Some(prev), true) => self.push(Op::Add(prev, r)),
                (Some(prev), false) => self.push(Op::MulAdd(prev, r, c)),
            });
        }
        Ok(match acc {
            Some(r) if konst == 0.0 => r,
            Some(r) => self.push(Op::AddC(r, konst)),
            None => self.push(Op::Const(konst)),
        })
    }

    fn power(&mut self, a: &Atom, q: Rational) -> Result<usize, EvalError> {
        let key = (a.clone(), q);
        if let Some(&r) = self.powers.get(&key) {
            return Ok(r);
        }
        let base = self.atom(a)?;
        let r = if q == Rational::ONE {
            base
        } else if q == Rational::HALF {
            self.push(Op::Sqrt(base))
        } else if let Some(i) = Some(q)
            .filter(|q| q.is_integer())
            .and_then(|q| i32::try_from(q.numer()).ok())
        {
            self.push(Op::PowI(base, i))
        } else if q.denom() == 2 && q.numer() > 0 {
            // x^(n/2) = x^⌊n/2⌋·sqrt(x): cheaper and exact-er than powf.
            let s = self.power(a, Rational::HALF)?;
            let whole = self.power(a, Rational::int(q.numer() / 2))?;
            self.push(Op::Mul(whole, s))
        } else {
            self.push(Op::PowF(base, q.to_f64()))
        };
        self.powers.insert(key, r);
        Ok(r)
    }

    fn atom(&mut self, a: &Atom) -> Result<usize, EvalError> {
        if let Some(&r) = self.atoms.get(a) {
            return Ok(r);
        }
        let r = match a {
            Atom::Var(v) => self
                .slots
                .iter()
                .position(|s| s == v)
                .ok_or_else(|| EvalError::UnknownVariable(v.clone()))?,
            Atom::Log2(x) => {
                let x = self.expr(x)?;
                self.push(Op::Log2(x))
            }
            Atom::Ceil(x) => {
                let x = self.expr(x)?;
                self.push(Op::Ceil(x))
            }
            Atom::Floor(x) => {
                let x = self.expr(x)?;
                self.push(Op::Floor(x))
            }
            Atom::Dims { n, d, rule, k } => {
                let x = self.expr(n)?;
                self.push(Op::Dims(x, *rule, *d, *k))
            }
            Atom::Pow(x) => self.expr(x)?,
            Atom::Max(l) | Atom::Min(l) => {
                let is_max = matches!(a, Atom::Max(_));
                let mut acc: Option<usize> = None;
                for x in l {
                    let r = self.expr(x)?;
                    acc = Some(match acc {
                        None => r,
                        Some(p) if is_max => self.push(Op::Max(p, r)),
                        Some(p) => self.push(Op::Min(p, r)),
                    });
                }
                match acc {
                    Some(r) => r,
                    None => self.push(Op::Const(0.0)),
                }
            }
        };
        self.atoms.insert(a.clone(), r);
        Ok(r)
    }
}

impl Compiled {
    /// Lower `e`; `slots[i]` names the variable read from `args[i]` at evaluation.
    pub fn new(e: &Expr, slots: &[&str]) -> Result<Compiled, EvalError> {
        let mut b = Builder {
            ops: Vec::new(),
            slots,
            atoms: BTreeMap::new(),
            powers: BTreeMap::new(),
        };
        let out = b.expr(e)?;
        let mut ops = b.ops;
        // The result must be the last register.
        if ops.is_empty() || out + 1 != slots.len() + ops.len() {
            ops.push(Op::Scale(out, 1.0));
        }
        Ok(Compiled {
            ops,
            slots: slots.iter().map(|s| s.to_string()).collect(),
        })
    }

    pub fn slots(&self) -> &[String] {
        &self.slots
    }

    /// Value at `args` (in slot order); a missing argument reads as NaN.
    pub fn eval(&self, args: &[f64]) -> f64 {
        if self.ops.len() + self.slots.len() <= STACK_REGS {
            let mut regs = [0.0f64; STACK_REGS];
            self.run_fixed(args, &mut regs)
        } else {
            let mut regs = vec![0.0f64; self.ops.len() + self.slots.len()];
            self.run(args, &mut regs)
        }
    }

    fn run(&self, args: &[f64], regs: &mut [f64]) -> f64 {
        let n = self.slots.len();
        for (i, r) in regs[..n].iter_mut().enumerate() {
            *r = args.get(i).copied().unwrap_or(f64::NAN);
        }
        let mut last = 0.0;
        for (i, op) in self.ops.iter().enumerate() {
            let v = step(op, |a| regs[a]);
            regs[n + i] = v;
            last = v;
        }
        last
    }

    /// Same as `run` on a fixed array: masking indices with `STACK_REGS - 1` lets the compiler
    /// drop bounds checks (indices are already `< STACK_REGS` on this path).
    fn run_fixed(&self, args: &[f64], regs: &mut [f64; STACK_REGS]) -> f64 {
        let n = self.slots.len();
        for (i, r) in regs[..n.min(STACK_REGS)].iter_mut().enumerate() {
            *r = args.get(i).copied().unwrap_or(f64::NAN);
        }
        let mut last = 0.0;
        for (i, op) in self.ops.iter().enumerate() {
            let v = step(op, |a| regs[a & (STACK_REGS - 1)]);
            regs[(n + i) & (STACK_REGS - 1)] = v;
            last = v;
        }
        last
    }

    /// Number of register operations (a cost measure for benchmarks).
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

#[inline(always)]
fn step(op: &Op, r: impl Fn(usize) -> f64) -> f64 {
    match *op {
        Op::Const(c) => c,
        Op::Add(a, b) => r(a) + r(b),
        Op::MulAdd(a, b, c) => r(a) + r(b) * c,
        Op::AddC(a, c) => r(a) + c,
        Op::DivC(c, a) => c / r(a),
        Op::Mul(a, b) => r(a) * r(b),
        Op::Div(a, b) => r(a) / r(b),
        Op::Scale(a, c) => r(a) * c,
        Op::PowI(a, n) => r(a).powi(n),
        Op::Sqrt(a) => r(a).sqrt(),
        Op::PowF(a, q) => r(a).powf(q),
        Op::Log2(a) => r(a).log2(),
        Op::Max(a, b) => r(a).max(r(b)),
        Op::Min(a, b) => r(a).min(r(b)),
        Op::Ceil(a) => crate::query::ceil(r(a)),
        Op::Floor(a) => crate::query::floor(r(a)),
        Op::Dims(a, rule, d, k) => crate::dims::extent(rule, r(a), d, k),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::parse;

    /// An integer division's floor reached through fractions (10/3 − 1/3 is a few ulps below
    /// 3 in floating point) is the integer, in both evaluators.
    #[test]
    fn floors_of_integer_divisions_are_exact() {
        let e = parse("floor((N - 1)/NB) + ceil((N + 2)/NB)").unwrap();
        let c = Compiled::new(&e, &["N", "NB"]).unwrap();
        for (n, nb, want) in [
            (10.0, 3.0, 7.0),
            (12.0, 4.0, 6.0),
            (7.0, 7.0, 2.0),
            (100.0, 3.0, 67.0),
        ] {
            let tree = e
                .eval(&|v| match v {
                    "N" => Some(n),
                    "NB" => Some(nb),
                    _ => None,
                })
                .unwrap();
            assert_eq!(tree, want, "N={n}, NB={nb}: {e}");
            assert_eq!(c.eval(&[n, nb]), want, "N={n}, NB={nb}");
        }
    }

    #[test]
    fn matches_tree_evaluation() {
        let e = parse("N^2/(P*K) + K*log2(P) + 3*sqrt(N/P) + 5*max(N/P, K) + ceil(N/K)^(3/2) + (N + K)^(1/3) - 7 + N/dims(ceil(P), 2, 1)").unwrap();
        let c = Compiled::new(&e, &["N", "P", "K"]).unwrap();
        for (n, p, k) in [(1024.0, 16.0, 128.0), (3.5, 2.25, 0.75), (100.0, 12.0, 1.0)] {
            let want = e
                .eval(&|v| match v {
                    "N" => Some(n),
                    "P" => Some(p),
                    "K" => Some(k),
                    _ => None,
                })
                .unwrap();
            let got = c.eval(&[n, p, k]);
            assert!((got - want).abs() <= 1e-12 * want.abs(), "{got} vs {want}");
        }
        assert!(Compiled::new(&e, &["N", "P"]).is_err());
        assert_eq!(Compiled::new(&Expr::zero(), &[]).unwrap().eval(&[]), 0.0);
        assert!(c.eval(&[1.0]).is_nan());
        // A bare variable (regression: the last slot was mistaken for the result register).
        assert_eq!(
            Compiled::new(&parse("P").unwrap(), &["N", "P"])
                .unwrap()
                .eval(&[3.0, 5.0]),
            5.0
        );
    }

    #[test]
    fn large_programs_use_the_heap_path() {
        let e: Expr = (1..30)
            .map(|i| parse(&format!("N^{i}/P^2 + {i}*log2(N + {i})")).unwrap())
            .sum();
        let c = Compiled::new(&e, &["N", "P"]).unwrap();
        assert!(c.len() > STACK_REGS);
        let want = e
            .eval(&|v| if v == "N" { Some(1.1) } else { Some(3.0) })
            .unwrap();
        assert!((c.eval(&[1.1, 3.0]) - want).abs() <= 1e-12 * want.abs());
    }
}
