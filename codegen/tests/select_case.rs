//! SELECT CASE lowered to comparisons with CASE DEFAULT as the else (trial2 #2): each CASE
//! line gets its markers, CASE DEFAULT gets every arm's not-taken marker, and no second
//! CASE DEFAULT is added.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

const SRC: &str = r#"program t
  use mpi
  implicit none
  integer :: method, i, ierr
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) method
  select case (method)
  case (1)
     do i = 1, 10
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
     end do
  case default
     do i = 1, 20
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
     end do
  case (2:3)
     call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end select
  call MPI_Finalize(ierr)
end program t
"#;

#[test]
fn case_default_gets_the_else_markers() {
    let lowered = frontend::load_str("select.f90", SRC, &frontend::Options::default()).unwrap();
    let plan = codegen::Plan::from_program(&lowered.program);
    let out = codegen::instrument(&lowered.program, &lowered.sources, &plan).unwrap();
    let text = &out.files[0].text;
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let after = |head: &str| -> Vec<&str> {
        let at = lines.iter().position(|l| *l == head).unwrap();
        lines[at + 1..]
            .iter()
            .take_while(|l| l.starts_with("call augur_branch"))
            .copied()
            .collect()
    };
    let one = after("case (1)");
    let default = after("case default");
    let range = after("case (2:3)");
    assert_eq!(one.len(), 1, "{text}");
    assert!(one[0].ends_with(", 0)"), "{text}");
    assert_eq!(default.len(), 2, "{text}");
    assert!(default.iter().all(|c| c.ends_with(", 1)")), "{text}");
    assert_eq!(range.len(), 2, "{text}");
    assert_eq!(
        lines.iter().filter(|l| **l == "case default").count(),
        1,
        "{text}"
    );
    let again = frontend::load_str("select.f90", text, &frontend::Options::default()).unwrap();
    assert!(!again.has_errors(), "{:?}", again.diagnostics);
}
