//! SELECT CASE arms, and those of a C switch whose cases end with break, are comparisons of
//! the selector (trial2 #2): a case on an input parameter resolves like an IF on it, and the
//! text of an arm is its condition, never its body.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::apt_of;
use crate::NodeData;

/// (condition, unresolved reason) of each IF node, in tree order.
fn conds(apt: &crate::Apt) -> Vec<(String, Option<String>)> {
    apt.nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            NodeData::If(i) => Some((i.cond.clone(), i.unresolved.clone())),
            _ => None,
        })
        .collect()
}

const SELECT: &str = r#"
program t
  use mpi
  implicit none
  integer :: method, n, i, ierr
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) method
  n = 100
  select case (method)
  case (1)
     do i = 1, n
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
     end do
  case (2:4)
     do i = 1, 2 * n
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
     end do
  case (6, 8)
     call MPI_Barrier(MPI_COMM_WORLD, ierr)
  case (10:)
     call MPI_Barrier(MPI_COMM_WORLD, ierr)
  case default
     do i = 1, 3 * n
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
     end do
  end select
  call MPI_Finalize(ierr)
end program t
"#;

#[test]
fn select_case_arms_compare_the_selector() {
    let apt = apt_of("select.f90", SELECT);
    let c = conds(&apt);
    let texts: Vec<&str> = c.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "METHOD == 1",
            "METHOD >= 2 && METHOD <= 4",
            "METHOD == 6 || METHOD == 8",
            "METHOD >= 10",
        ],
        "{c:?}"
    );
    assert!(c.iter().all(|(_, u)| u.is_none()), "{c:?}");
    // case default is the else of the last arm: its loop sits under it, not under an arm
    let text = crate::render::to_text(&apt);
    assert!(!text.contains("case ("), "{text}");
}

#[test]
fn select_case_on_a_constant_and_an_unresolved_selector_read_as_the_case_head() {
    let src = r#"
program t
  use mpi
  implicit none
  integer, parameter :: method = 2
  integer :: i, ierr, k(4)
  call MPI_Init(ierr)
  select case (method)
  case (1)
     call MPI_Barrier(MPI_COMM_WORLD, ierr)
  case (2)
     do i = 1, 5
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
     end do
  end select
  read (10, *) k
  select case (k(2))
  case (1)
     do i = 1, 5
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
     end do
  end select
  call MPI_Finalize(ierr)
end program t
"#;
    let apt = apt_of("const.f90", src);
    let c = conds(&apt);
    assert_eq!(c.len(), 3, "{c:?}");
    assert_eq!(c[0].0, "METHOD == 1", "{c:?}");
    assert_eq!(c[1].0, "METHOD == 2", "{c:?}");
    // the unresolved arm shows its head as written, without the loop under it
    assert_eq!(c[2].0, "case (1)", "{c:?}");
    assert!(c[2].1.is_some(), "{c:?}");
}

#[test]
fn c_switch_with_a_break_per_case_is_a_chain_of_comparisons() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int method = atoi(argv[1]), n = 100, i;
    MPI_Init(&argc, &argv);
    switch (method) {
    case 1:
        for (i = 0; i < n; i++) MPI_Barrier(MPI_COMM_WORLD);
        break;
    case 2:
    case 3:
        /* two labels, one body */
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    default:
        for (i = 0; i < 2 * n; i++) MPI_Barrier(MPI_COMM_WORLD);
        break;
    }
    switch (method) {
    case 1:
        MPI_Barrier(MPI_COMM_WORLD);
    case 2:
        /* falls through from case 1: kept as one opaque arm */
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    }
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("switch.c", src);
    let c = conds(&apt);
    let texts: Vec<&str> = c.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        texts,
        ["METHOD == 1", "METHOD == 2 || METHOD == 3", "(method)"],
        "{c:?}"
    );
    assert!(c[..2].iter().all(|(_, u)| u.is_none()), "{c:?}");
}

/// review8 M3: `case 1: if (x) break; work(n); break;` skips the rest of the case when `x`,
/// which an IF arm cannot say: the switch stays one opaque arm. A `break` of a loop inside a
/// case is the loop's, and the switch is still a chain.
#[test]
fn c_switch_with_an_inner_break_in_a_case_stays_opaque() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int method = atoi(argv[1]), n = atoi(argv[2]), i;
    int x = n % 3;
    MPI_Init(&argc, &argv);
    switch (method) {
    case 1:
        if (x) break;
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    default:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    }
    switch (method) {
    case 1:
        for (i = 0; i < n; i++) {
            if (i > x) break;
            MPI_Barrier(MPI_COMM_WORLD);
        }
        break;
    default:
        break;
    }
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("sw.c", src);
    let c = conds(&apt);
    let texts: Vec<&str> = c.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts[0], "(method)", "{c:?}");
    assert!(texts.contains(&"METHOD == 1"), "{c:?}");
}

/// review8 M2: `select case (pick(m))` calls `pick` once, however many arms (and ranges,
/// which compare the selector twice) compare its value.
#[test]
fn a_selector_call_is_one_call_not_one_per_comparison() {
    let src = r#"
program p
  use mpi
  integer :: n, ierr, m
  call MPI_Init(ierr)
  read (*, *) n, m
  select case (pick(m))
  case (1)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  case (2)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  case (3:5)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end select
  call MPI_Finalize(ierr)
contains
  integer function pick(k)
    integer :: k, i
    pick = 0
    do i = 1, k
      pick = pick + 1
    end do
  end function pick
end program p
"#;
    let apt = apt_of("selfun.f90", src);
    let picks = apt
        .nodes()
        .into_iter()
        .filter(|n| matches!(&n.data, NodeData::Call { callee, .. } if callee == "pick"))
        .count();
    assert_eq!(picks, 1, "{}", crate::render::to_text(&apt));
}
