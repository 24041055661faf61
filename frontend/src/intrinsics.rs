//! The one table of math and intrinsic functions, as data: name, language, what kind of
//! function it is. Every entry is free of side effects, so a call to one may be evaluated
//! twice, kept inside an expanded macro, or applied element by element. Shared by the C
//! lowering (macro expansion, result types), the array-syntax analysis (elemental functions,
//! reductions) and code generation (DO bounds evaluated before the loop); `cli` adds the
//! library functions that are not math (I/O, memory, strings) for its external-call warning.
use crate::ir::Language;

/// Where a name is a known function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum In {
    C,
    Fortran,
    Both,
}

/// What an intrinsic does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Real-valued math (`sqrt`, `sin`, `pow`); elemental in Fortran.
    Math,
    /// The type of its arguments (`abs`, `min`, `mod`, `sign`); elemental.
    Numeric,
    /// Type conversion or rounding to an integer (`dble`, `int`, `nint`, Fortran `floor`);
    /// elemental.
    Conversion,
    /// Bit operations (`iand`, `ishft`); elemental.
    Bits,
    /// About an array or a type, not its elements' values (`size`, `len`, `huge`).
    Inquiry,
    /// Reduces an array to a scalar, visiting every element (`sum`, `maxval`).
    Reduction,
}

/// One known function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intrinsic {
    pub name: &'static str,
    pub lang: In,
    pub class: Class,
}

impl Intrinsic {
    /// Array-valued when one of its arguments is (Fortran elemental intrinsics).
    pub fn is_elemental(&self) -> bool {
        matches!(
            self.class,
            Class::Math | Class::Numeric | Class::Conversion | Class::Bits
        )
    }
}

const fn i(name: &'static str, lang: In, class: Class) -> Intrinsic {
    Intrinsic { name, lang, class }
}

use Class::*;
use In::{Both, Fortran, C};

/// Lower case for Fortran (matched case-insensitively), as spelt for C.
pub const INTRINSICS: &[Intrinsic] = &[
    // math in both languages
    i("sqrt", Both, Math),
    i("exp", Both, Math),
    i("log", Both, Math),
    i("log10", Both, Math),
    i("sin", Both, Math),
    i("cos", Both, Math),
    i("tan", Both, Math),
    i("asin", Both, Math),
    i("acos", Both, Math),
    i("atan", Both, Math),
    i("atan2", Both, Math),
    i("sinh", Both, Math),
    i("cosh", Both, Math),
    i("tanh", Both, Math),
    i("asinh", Both, Math),
    i("acosh", Both, Math),
    i("atanh", Both, Math),
    i("erf", Both, Math),
    i("erfc", Both, Math),
    i("hypot", Both, Math),
    i("abs", Both, Numeric),
    i("min", Both, Numeric),
    i("max", Both, Numeric),
    // C (libm, stdlib)
    i("cbrt", C, Math),
    i("log2", C, Math),
    i("log1p", C, Math),
    i("exp2", C, Math),
    i("expm1", C, Math),
    i("pow", C, Math),
    i("fmod", C, Math),
    i("fmin", C, Math),
    i("fmax", C, Math),
    i("fabs", C, Math),
    i("floor", C, Math),
    i("ceil", C, Math),
    i("round", C, Math),
    i("trunc", C, Math),
    i("rint", C, Math),
    i("copysign", C, Math),
    i("sqrtf", C, Math),
    i("expf", C, Math),
    i("logf", C, Math),
    i("powf", C, Math),
    i("sinf", C, Math),
    i("cosf", C, Math),
    i("tanf", C, Math),
    i("asinf", C, Math),
    i("acosf", C, Math),
    i("atanf", C, Math),
    i("atan2f", C, Math),
    i("fabsf", C, Math),
    i("floorf", C, Math),
    i("ceilf", C, Math),
    i("labs", C, Numeric),
    i("llabs", C, Numeric),
    // Fortran specific names and generics
    i("dsqrt", Fortran, Math),
    i("dexp", Fortran, Math),
    i("alog", Fortran, Math),
    i("dlog", Fortran, Math),
    i("alog10", Fortran, Math),
    i("dlog10", Fortran, Math),
    i("dsin", Fortran, Math),
    i("dcos", Fortran, Math),
    i("dtan", Fortran, Math),
    i("dasin", Fortran, Math),
    i("dacos", Fortran, Math),
    i("datan", Fortran, Math),
    i("datan2", Fortran, Math),
    i("dsinh", Fortran, Math),
    i("dcosh", Fortran, Math),
    i("dtanh", Fortran, Math),
    i("gamma", Fortran, Math),
    i("log_gamma", Fortran, Math),
    i("dprod", Fortran, Math),
    i("iabs", Fortran, Numeric),
    i("dabs", Fortran, Numeric),
    i("mod", Fortran, Numeric),
    i("amod", Fortran, Numeric),
    i("dmod", Fortran, Numeric),
    i("modulo", Fortran, Numeric),
    i("sign", Fortran, Numeric),
    i("isign", Fortran, Numeric),
    i("dsign", Fortran, Numeric),
    i("dim", Fortran, Numeric),
    i("idim", Fortran, Numeric),
    i("ddim", Fortran, Numeric),
    i("min0", Fortran, Numeric),
    i("max0", Fortran, Numeric),
    i("amin0", Fortran, Numeric),
    i("amax0", Fortran, Numeric),
    i("min1", Fortran, Numeric),
    i("max1", Fortran, Numeric),
    i("amin1", Fortran, Numeric),
    i("amax1", Fortran, Numeric),
    i("dmin1", Fortran, Numeric),
    i("dmax1", Fortran, Numeric),
    i("aint", Fortran, Numeric),
    i("anint", Fortran, Numeric),
    i("dint", Fortran, Numeric),
    i("dnint", Fortran, Numeric),
    i("merge", Fortran, Numeric),
    i("aimag", Fortran, Numeric),
    i("conjg", Fortran, Numeric),
    i("dble", Fortran, Conversion),
    i("dfloat", Fortran, Conversion),
    i("real", Fortran, Conversion),
    i("float", Fortran, Conversion),
    i("sngl", Fortran, Conversion),
    i("int", Fortran, Conversion),
    i("ifix", Fortran, Conversion),
    i("idint", Fortran, Conversion),
    i("int8", Fortran, Conversion),
    i("nint", Fortran, Conversion),
    i("idnint", Fortran, Conversion),
    i("floor", Fortran, Conversion),
    i("ceiling", Fortran, Conversion),
    i("cmplx", Fortran, Conversion),
    i("dcmplx", Fortran, Conversion),
    i("iand", Fortran, Bits),
    i("ior", Fortran, Bits),
    i("ieor", Fortran, Bits),
    i("not", Fortran, Bits),
    i("ishft", Fortran, Bits),
    i("ishftc", Fortran, Bits),
    i("ibset", Fortran, Bits),
    i("ibclr", Fortran, Bits),
    i("ibits", Fortran, Bits),
    i("btest", Fortran, Bits),
    i("popcnt", Fortran, Bits),
    i("leadz", Fortran, Bits),
    i("trailz", Fortran, Bits),
    i("size", Fortran, Inquiry),
    i("lbound", Fortran, Inquiry),
    i("ubound", Fortran, Inquiry),
    i("shape", Fortran, Inquiry),
    i("len", Fortran, Inquiry),
    i("len_trim", Fortran, Inquiry),
    i("kind", Fortran, Inquiry),
    i("huge", Fortran, Inquiry),
    i("tiny", Fortran, Inquiry),
    i("epsilon", Fortran, Inquiry),
    i("digits", Fortran, Inquiry),
    i("precision", Fortran, Inquiry),
    i("range", Fortran, Inquiry),
    i("radix", Fortran, Inquiry),
    i("bit_size", Fortran, Inquiry),
    i("storage_size", Fortran, Inquiry),
    i("allocated", Fortran, Inquiry),
    i("present", Fortran, Inquiry),
    i("sum", Fortran, Reduction),
    i("product", Fortran, Reduction),
    i("maxval", Fortran, Reduction),
    i("minval", Fortran, Reduction),
    i("maxloc", Fortran, Reduction),
    i("minloc", Fortran, Reduction),
    i("findloc", Fortran, Reduction),
    i("count", Fortran, Reduction),
    i("any", Fortran, Reduction),
    i("all", Fortran, Reduction),
    i("dot_product", Fortran, Reduction),
    i("norm2", Fortran, Reduction),
    i("iall", Fortran, Reduction),
    i("iany", Fortran, Reduction),
    i("iparity", Fortran, Reduction),
    i("parity", Fortran, Reduction),
];

/// The intrinsic `name` is in `lang` (Fortran: any case), if any.
pub fn lookup(name: &str, lang: Language) -> Option<&'static Intrinsic> {
    INTRINSICS.iter().find(|x| match (lang, x.lang) {
        (Language::C, In::C | In::Both) => x.name == name,
        (Language::Fortran, In::Fortran | In::Both) => x.name.eq_ignore_ascii_case(name),
        _ => false,
    })
}

/// Whether `name` is a Fortran intrinsic of class `class`.
pub fn is_fortran(name: &str, class: Class) -> bool {
    lookup(name, Language::Fortran).is_some_and(|x| x.class == class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_listed_once_per_language() {
        for (k, a) in INTRINSICS.iter().enumerate() {
            assert_eq!(a.name, a.name.trim());
            for b in &INTRINSICS[k + 1..] {
                let overlap = a.lang == b.lang || a.lang == In::Both || b.lang == In::Both;
                assert!(!(a.name == b.name && overlap), "{} twice", a.name);
            }
        }
        // the same name may mean different things: C floor is real, Fortran's an integer
        assert_eq!(
            lookup("floor", Language::C).map(|x| x.class),
            Some(Class::Math)
        );
        assert_eq!(
            lookup("FLOOR", Language::Fortran).map(|x| x.class),
            Some(Class::Conversion)
        );
        assert!(lookup("dble", Language::C).is_none());
        assert!(lookup("printf", Language::C).is_none());
    }
}
