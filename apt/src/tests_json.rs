//! `augur apt --json` carries what the text form shows: what a computation phase and a call
//! may write, and the buffer a send reads (from its start or an offset).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};

use crate::render::{to_json, to_json_with_writes, to_text};
use crate::tests::apt_of;

/// Every node of a JSON routine list, in pre-order.
fn nodes(v: &Value, out: &mut Vec<Value>) {
    for n in v.as_array().into_iter().flatten() {
        out.push(n.clone());
        nodes(&n["children"], out);
        nodes(&n["else"], out);
    }
}

#[test]
fn json_has_writes_and_send_buffers() {
    let apt = apt_of(
        "w.c",
        r#"
#include <mpi.h>
double a[100], b[100];
int g;
static void setg(int k) { g = k; }
int main(int argc, char **argv) {
  int rank, i;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (i = 0; i < 100; i++) a[i] = i;
  setg(3);
  MPI_Send(&a[10], 5, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  MPI_Send(b, 5, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
"#,
    );
    let text = to_text(&apt);
    let mut all = Vec::new();
    nodes(&to_json_with_writes(&apt)["routines"], &mut all);
    let of = |kind: &str| -> Vec<&Value> { all.iter().filter(|n| n["kind"] == kind).collect() };
    let phase = of("loop")[0];
    assert_eq!(phase["compute"], json!(true), "{phase}");
    assert_eq!(phase["writes"], json!(["a", "i"]), "{phase}\n{text}");
    assert!(text.contains("writes={a,i}"), "{text}");
    let calls = of("call");
    let setg = calls.iter().find(|c| c["callee"] == "setg").unwrap();
    assert_eq!(setg["writes"], json!(["g"]), "{setg}\n{text}");
    let sends = of("comm");
    assert_eq!(sends.len(), 2, "{all:?}");
    assert_eq!(sends[0]["buffer"], json!(["a"]), "{text}");
    assert_eq!(sends[0]["buffer_from_start"], json!(false));
    assert!(text.contains("buffer={a} (from an offset)"), "{text}");
    assert_eq!(sends[1]["buffer"], json!(["b"]));
    assert_eq!(sends[1]["buffer_from_start"], json!(true));
}

#[test]
fn json_says_why_a_write_or_buffer_is_not_named() {
    let apt = apt_of(
        "u.c",
        r#"
#include <mpi.h>
extern void fill(double *x, int n);
extern double *pick(int k);
double a[100];
int main(int argc, char **argv) {
  int i;
  MPI_Init(&argc, &argv);
  for (i = 0; i < 100; i++) fill(a, i);
  MPI_Send(pick(1), 5, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
"#,
    );
    let text = to_text(&apt);
    let mut all = Vec::new();
    nodes(&to_json_with_writes(&apt)["routines"], &mut all);
    let phase = all.iter().find(|n| n["kind"] == "loop").unwrap();
    let why = phase["writes"]["unresolved"]
        .as_str()
        .unwrap_or_else(|| panic!("{phase}"));
    assert!(text.contains(&format!("writes=? ({why})")), "{why}\n{text}");
    let send = all.iter().find(|n| n["kind"] == "comm").unwrap();
    let why = send["buffer"]["unresolved"]
        .as_str()
        .unwrap_or_else(|| panic!("{send}"));
    assert!(text.contains(&format!("buffer=? ({why})")), "{why}\n{text}");
    assert!(send.get("buffer_from_start").is_none());
    // the form run directories save has neither
    let saved = to_json(&apt).to_string();
    assert!(
        !saved.contains("\"writes\"") && !saved.contains("\"buffer\""),
        "{saved}"
    );
}
