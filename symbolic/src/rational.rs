//! Reduced rational numbers for exponents: `N^(3/2)` must compare equal however it was built.

use std::fmt;

/// A reduced fraction `num/den` with `den > 0` and `gcd(num, den) = 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rational {
    num: i64,
    den: i64,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl Rational {
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    pub const ONE: Rational = Rational { num: 1, den: 1 };
    pub const HALF: Rational = Rational { num: 1, den: 2 };

    /// `num/den` reduced; `None` when `den == 0` or the reduced value does not fit in i64.
    pub fn new(num: i64, den: i64) -> Option<Rational> {
        Self::from_i128(i128::from(num), i128::from(den))
    }

    fn from_i128(num: i128, den: i128) -> Option<Rational> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den).max(1);
        let (mut n, mut d) = (num / g, den / g);
        if d < 0 {
            n = -n;
            d = -d;
        }
        Some(Rational {
            num: i64::try_from(n).ok()?,
            den: i64::try_from(d).ok()?,
        })
    }

    pub const fn int(n: i64) -> Rational {
        Rational { num: n, den: 1 }
    }

    pub fn numer(self) -> i64 {
        self.num
    }

    pub fn denom(self) -> i64 {
        self.den
    }

    pub fn is_zero(self) -> bool {
        self.num == 0
    }

    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    pub fn is_negative(self) -> bool {
        self.num < 0
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Closest fraction with denominator ≤ 10⁶ when it matches `x` to 1e-14 (continued fractions).
    pub fn from_f64(x: f64) -> Option<Rational> {
        if !x.is_finite() || x.abs() > 1e15 {
            return None;
        }
        let (mut h0, mut h1) = (0i128, 1i128);
        let (mut k0, mut k1) = (1i128, 0i128);
        let mut r = x;
        for _ in 0..40 {
            let a = r.floor();
            let ai = a as i128;
            let h2 = ai * h1 + h0;
            let k2 = ai * k1 + k0;
            if k2 > 1_000_000 {
                break;
            }
            (h0, h1, k0, k1) = (h1, h2, k1, k2);
            let approx = h1 as f64 / k1 as f64;
            if (approx - x).abs() <= 1e-14 * x.abs().max(1.0) {
                return Self::from_i128(h1, k1);
            }
            let frac = r - a;
            if frac.abs() < 1e-15 {
                break;
            }
            r = 1.0 / frac;
        }
        None
    }

    pub fn checked_add(self, o: Rational) -> Option<Rational> {
        let (a, b, c, d) = (
            i128::from(self.num),
            i128::from(self.den),
            i128::from(o.num),
            i128::from(o.den),
        );
        Self::from_i128(a * d + c * b, b * d)
    }

    pub fn checked_mul(self, o: Rational) -> Option<Rational> {
        let (a, b, c, d) = (
            i128::from(self.num),
            i128::from(self.den),
            i128::from(o.num),
            i128::from(o.den),
        );
        Self::from_i128(a * c, b * d)
    }

    pub fn checked_div(self, o: Rational) -> Option<Rational> {
        let (a, b, c, d) = (
            i128::from(self.num),
            i128::from(self.den),
            i128::from(o.num),
            i128::from(o.den),
        );
        Self::from_i128(a * d, b * c)
    }

    pub fn abs(self) -> Rational {
        Rational {
            num: self.num.abs(),
            den: self.den,
        }
    }

    /// Sum, falling back to the nearest representable fraction on overflow (never panics).
    pub(crate) fn add_lossy(self, o: Rational) -> Rational {
        self.checked_add(o)
            .or_else(|| Rational::from_f64(self.to_f64() + o.to_f64()))
            .unwrap_or(Rational::ZERO)
    }

    pub(crate) fn mul_lossy(self, o: Rational) -> Rational {
        self.checked_mul(o)
            .or_else(|| Rational::from_f64(self.to_f64() * o.to_f64()))
            .unwrap_or(Rational::ZERO)
    }

    /// `x^self` for a real base, exact for integer exponents.
    pub fn pow_f64(self, x: f64) -> f64 {
        if self.den == 1 {
            if let Ok(i) = i32::try_from(self.num) {
                return x.powi(i);
            }
        }
        if self.num == 1 && self.den == 2 {
            return x.sqrt();
        }
        if self.num == -1 && self.den == 2 {
            return 1.0 / x.sqrt();
        }
        x.powf(self.to_f64())
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rational {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (i128::from(self.num) * i128::from(other.den))
            .cmp(&(i128::from(other.num) * i128::from(self.den)))
    }
}

impl std::ops::Neg for Rational {
    type Output = Rational;
    fn neg(self) -> Rational {
        Rational {
            num: -self.num,
            den: self.den,
        }
    }
}

impl From<i64> for Rational {
    fn from(n: i64) -> Self {
        Rational::int(n)
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reduces_and_orders() {
        assert_eq!(Rational::new(6, -4), Rational::new(-3, 2));
        assert_eq!(Rational::new(1, 0), None);
        assert!(Rational::new(1, 3) < Rational::new(1, 2));
        assert_eq!(Rational::from_f64(0.75), Rational::new(3, 4));
        assert_eq!(Rational::from_f64(1.0 / 3.0), Rational::new(1, 3));
        assert_eq!(Rational::from_f64(std::f64::consts::PI), None);
        assert_eq!(Rational::from_f64(-2.5), Rational::new(-5, 2));
    }
}
