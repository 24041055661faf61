//! An IF arm that ends by leaving its block makes what follows it in that block the IF's else:
//! the recursion's base case (`if (l == last) { smooth(8); return; }`), a Fortran guard
//! (`IF (N .LE. 0) RETURN`) and a skipped iteration (`if (skip) continue;`, `CYCLE`). Counted as unconditional, the rest of a V-cycle ran on the
//! coarsest level too (+25% on every run of trial 6's multigrid).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::apt_of;
use crate::{Node, NodeData};

fn routine<'a>(apt: &'a crate::Apt, name: &str) -> &'a Node {
    apt.routines
        .iter()
        .find(|r| matches!(&r.data, NodeData::Routine { name: n, .. } if n == name))
        .unwrap()
}

fn callees(ns: &[Node]) -> Vec<String> {
    ns.iter()
        .filter_map(|n| match &n.data {
            NodeData::Call { callee, .. } => Some(callee.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn statements_after_an_arm_that_returns_are_its_else() {
    let apt = apt_of(
        "v.c",
        r#"
static int last;
static void smooth(int s) { }
static void restrict_(void) { }
static void cycle(int l) {
  if (l == last) {
    smooth(8);
    return;
  }
  smooth(2);
  restrict_();
  cycle(l + 1);
  smooth(2);
}
int main(void) { cycle(0); return 0; }
"#,
    );
    let c = routine(&apt, "cycle");
    assert_eq!(c.children.len(), 1, "{:#?}", c.children);
    let arm = &c.children[0];
    assert!(matches!(arm.data, NodeData::If(_)));
    assert_eq!(callees(&arm.children), ["smooth"]);
    assert_eq!(
        callees(&arm.else_children),
        ["smooth", "restrict_", "cycle", "smooth"]
    );
    // an arm that does not return leaves its block alone
    let apt = apt_of(
        "w.c",
        r#"
static void f(void) { }
static void g(int l) { if (l > 0) { f(); } f(); }
int main(void) { g(1); return 0; }
"#,
    );
    let g = routine(&apt, "g");
    assert_eq!(g.children.len(), 2, "{:#?}", g.children);
}

#[test]
fn a_fortran_guard_that_returns_puts_the_loop_in_its_else() {
    let apt = apt_of(
        "g.f",
        "      SUBROUTINE WORK(N, A)
      INTEGER N, I
      DOUBLE PRECISION A(N)
      IF (N .LE. 0) RETURN
      DO 10 I = 1, N
         A(I) = 2.0D0 * A(I)
   10 CONTINUE
      END

      PROGRAM MAIN
      DOUBLE PRECISION A(100)
      CALL WORK(100, A)
      END
",
    );
    let w = routine(&apt, "work");
    assert_eq!(w.children.len(), 1, "{:#?}", w.children);
    let guard = &w.children[0];
    assert!(matches!(guard.data, NodeData::If(_)));
    assert!(guard.children.is_empty());
    assert!(matches!(
        guard.else_children.first().map(|n| &n.data),
        Some(NodeData::Loop(_))
    ));
}

#[test]
fn the_rest_of_a_loop_body_after_continue_or_cycle_is_its_else() {
    let apt = apt_of(
        "c.c",
        r#"
static void work(int i) { }
int main(void) {
  int i;
  for (i = 0; i < 100; i++) {
    if (i % 10 == 0) continue;
    work(i);
  }
  return 0;
}
"#,
    );
    let main = routine(&apt, "main");
    let lp = &main.children[0];
    assert!(matches!(lp.data, NodeData::Loop(_)));
    assert_eq!(lp.children.len(), 1, "{:#?}", lp.children);
    assert!(matches!(lp.children[0].data, NodeData::If(_)));
    assert_eq!(callees(&lp.children[0].else_children), ["work"]);
    let apt = apt_of(
        "c.f90",
        "subroutine work(i)
  integer :: i
end subroutine
program p
  integer :: i
  do i = 1, 100
    if (mod(i, 10) == 0) cycle
    call work(i)
  end do
end program
",
    );
    let main = routine(&apt, "p");
    let lp = &main.children[0];
    assert_eq!(lp.children.len(), 1, "{:#?}", lp.children);
    assert_eq!(callees(&lp.children[0].else_children), ["work"]);
}
