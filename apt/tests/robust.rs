//! Random arithmetic in loop bounds, message counts and conditions never makes the APT
//! panic, and a resolved trip count of `+ - *` arithmetic evaluates to what C computes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;

/// A random C integer expression over `n` (argv 1) and `p` (communicator size).
#[derive(Debug, Clone)]
enum E {
    N,
    P,
    Lit(i64),
    /// Array element and function result: unresolvable.
    Opaque(&'static str),
    Bin(Box<E>, &'static str, Box<E>),
}

impl E {
    fn text(&self) -> String {
        match self {
            E::N => "n".into(),
            E::P => "p".into(),
            E::Lit(v) => v.to_string(),
            E::Opaque(t) => (*t).into(),
            E::Bin(a, op, b) => format!("({} {op} {})", a.text(), b.text()),
        }
    }
    /// C's value when only `+ - *` on known leaves are involved.
    fn value(&self, n: i64, p: i64) -> Option<i64> {
        match self {
            E::N => Some(n),
            E::P => Some(p),
            E::Lit(v) => Some(*v),
            E::Opaque(_) => None,
            E::Bin(a, op, b) => {
                let (x, y) = (a.value(n, p)?, b.value(n, p)?);
                match *op {
                    "+" => x.checked_add(y),
                    "-" => x.checked_sub(y),
                    "*" => x.checked_mul(y),
                    _ => None,
                }
            }
        }
    }
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        Just(E::N),
        Just(E::P),
        (0i64..9).prop_map(E::Lit),
        Just(E::Opaque("a[2]")),
        Just(E::Opaque("f(n)")),
    ];
    leaf.prop_recursive(5, 40, 2, |inner| {
        (
            inner.clone(),
            prop::sample::select(vec!["+", "-", "*", "/", "%"]),
            inner,
        )
            .prop_map(|(a, op, b)| E::Bin(Box::new(a), op, Box::new(b)))
            .boxed()
    })
}

fn program(bound: &str, count: &str, cond: &str) -> String {
    format!(
        "#include <mpi.h>\n#include <stdlib.h>\nint a[10];\nint f(int x) {{ return x; }}\n\
         int main(int argc, char **argv) {{\n  int n, p, i, k;\n  double b[64];\n\
         MPI_Comm_size(MPI_COMM_WORLD, &p);\n  n = atoi(argv[1]);\n  k = {count};\n\
         for (i = 0; i < {bound}; i++) {{\n    if ({cond} > 1) MPI_Send(b, k, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);\n  }}\n\
         return 0;\n}}\n"
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn random_expressions_never_panic(bound in expr(), count in expr(), cond in expr()) {
        let src = program(&bound.text(), &count.text(), &cond.text());
        let lowered = frontend::load_str("r.c", &src, &frontend::Options::default()).unwrap();
        let apt = apt::build(&lowered, &apt::AptOptions::default());
        let json = apt::render::to_json(&apt).to_string();
        prop_assert!(json.contains("\"kind\":\"loop\""));
        let _ = apt::render::to_text(&apt);
        let trip = apt.nodes().into_iter().find_map(|n| match &n.data {
            apt::NodeData::Loop(l) => Some(l.trip.clone()),
            _ => None,
        });
        let trip = trip.unwrap();
        if let Some(e) = trip.expr() {
            prop_assert!(e.vars().iter().all(|v| v == "N" || v == "P"), "{e}");
            for (n, p) in [(7i64, 3i64), (64, 4)] {
                if let Some(want) = bound.value(n, p) {
                    let got = e.eval(&|v| match v { "N" => Some(n as f64), "P" => Some(p as f64), _ => None }).unwrap();
                    prop_assert!((got - want as f64).abs() <= 1e-6 * (want as f64).abs().max(1.0), "{} = {got}, C gives {want}", bound.text());
                }
            }
        } else {
            // unresolved only when the bound holds something not analysable
            prop_assert!(bound.value(7, 3).is_none() || trip.unresolved().is_some_and(|r| r.contains("too large")), "{trip:?}");
        }
    }
}
