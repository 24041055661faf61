//! An IF that may leave its block — an arm ending in return, continue or break (Fortran
//! RETURN, CYCLE, EXIT), or holding an IF that may — puts what follows it in its block on
//! every path that falls out of it: the recursion's base case (`if (l == last) { smooth(8);
//! return; }`), a Fortran guard (`IF (N .LE. 0) RETURN`), a skipped iteration (`if (skip)
//! continue;`), `if (a) { if (b) return; x(); } y();`. Counted as unconditional, the rest of a
//! V-cycle ran on the coarsest level too (+25% on every run of trial 6's multigrid).
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

fn sites_of(ns: &[Node], callee: &str, out: &mut Vec<u32>) {
    for n in ns {
        if matches!(&n.data, NodeData::Call { callee: c, .. } if c == callee) {
            out.push(n.site.0);
        }
        sites_of(&n.children, callee, out);
        sites_of(&n.else_children, callee, out);
    }
}

/// `if (a) { if (b) return; x(); } y();`: y runs when a is not taken and after x (a taken, b
/// not); counted as unconditional it also ran on the paths that returned.
#[test]
fn statements_after_an_if_whose_nested_arm_returns_follow_each_path_out_of_it() {
    let apt = apt_of(
        "n.c",
        r#"
static void x(void) { }
static void y(void) { }
static void f(int a, int b) {
  if (a > 0) {
    if (b > 0) return;
    x();
  }
  y();
}
int main(void) { f(1, 2); return 0; }
"#,
    );
    let f = routine(&apt, "f");
    assert_eq!(f.children.len(), 1, "{:#?}", f.children);
    let a = &f.children[0];
    assert!(matches!(a.data, NodeData::If(_)));
    assert_eq!(a.children.len(), 1, "{:#?}", a.children);
    let b = &a.children[0];
    assert!(matches!(b.data, NodeData::If(_)));
    assert!(b.children.is_empty());
    assert_eq!(callees(&b.else_children), ["x", "y"]);
    assert_eq!(callees(&a.else_children), ["y"]);
    // one site for both copies, numbered after x (where the source has it)
    let mut ys = Vec::new();
    sites_of(&f.children, "y", &mut ys);
    let mut xs = Vec::new();
    sites_of(&f.children, "x", &mut xs);
    assert_eq!(ys.len(), 2);
    assert_eq!(ys[0], ys[1]);
    assert!(xs[0] < ys[0], "{xs:?} {ys:?}");
    // routines x, y, f, main; IF a, IF b, CALL x, CALL y, CALL f: the copy adds no site
    assert_eq!(apt.sites.len(), 9, "{:#?}", apt.sites);
}

/// A loop body `if (c) { work(); if (done) break; } more();` (Fortran EXIT / CYCLE): more runs
/// when c is not taken and when done is not; an IF that always leaves keeps the old rule.
#[test]
fn an_arm_ending_in_an_if_that_exits_guards_the_rest_of_the_loop_body() {
    let apt = apt_of(
        "e.f90",
        "subroutine work(i)
  integer :: i
end subroutine
subroutine more(i)
  integer :: i
end subroutine
program p
  integer :: i
  do i = 1, 100
    if (mod(i, 2) == 0) then
      call work(i)
      if (i > 50) exit
    end if
    call more(i)
  end do
  do i = 1, 100
    if (mod(i, 3) == 0) then
      if (i > 10) cycle
      call work(i)
    else
      cycle
    end if
    call more(i)
  end do
end program
",
    );
    let main = routine(&apt, "p");
    let first = &main.children[0];
    assert!(matches!(first.data, NodeData::Loop(_)));
    assert_eq!(first.children.len(), 1, "{:#?}", first.children);
    let c = &first.children[0];
    assert_eq!(callees(&c.children), ["work"]);
    let done = &c.children[1];
    assert!(done.children.is_empty());
    assert_eq!(callees(&done.else_children), ["more"]);
    assert_eq!(callees(&c.else_children), ["more"]);
    // the else leaves too: `more` follows only the path through `work`
    let second = &main.children[1];
    assert_eq!(second.children.len(), 1, "{:#?}", second.children);
    let c = &second.children[0];
    let inner = &c.children[0];
    assert_eq!(callees(&inner.else_children), ["work", "more"]);
    assert!(c.else_children.is_empty(), "{:#?}", c.else_children);
}
