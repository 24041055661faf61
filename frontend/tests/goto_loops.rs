//! Loops built from GOTO and named DO constructs, lowered with the real Fortran grammar.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use frontend::*;

fn lower(name: &str, src: &str) -> Lowered {
    load_str(name, src, &Options::default()).unwrap()
}

/// The main program's statements, pre-order, as `kind` or `kind@line`, indented by depth.
fn outline(l: &Lowered) -> Vec<String> {
    let p = l.program.main_proc().unwrap();
    l.program
        .walk(&p.body)
        .into_iter()
        .map(|id| {
            let s = l.program.stmt(id).unwrap();
            let mut depth = 0;
            let mut cur = s.parent;
            while let Some(c) = cur {
                depth += 1;
                cur = l.program.stmt(c).unwrap().parent;
            }
            let label = s.label.map(|x| format!(" {x}")).unwrap_or_default();
            format!("{}{}{label}", "  ".repeat(depth), s.kind.name())
        })
        .collect()
}

fn whiles(l: &Lowered) -> Vec<(String, bool)> {
    l.program
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::While(w) => Some((
                w.cond.as_ref().map(|c| c.to_string()).unwrap_or_default(),
                w.post_test,
            )),
            _ => None,
        })
        .collect()
}

/// Notes of the GOTO warnings.
fn goto_notes(l: &Lowered) -> Vec<String> {
    l.diagnostics
        .iter()
        .filter(|d| d.message == "GOTO is not analysed")
        .map(|d| d.notes.join("; "))
        .collect()
}

const POST_TEST: &str = "\
      PROGRAM WAVE
      INTEGER IT, NITER
      NITER = 10
      IT = 0
   10 CONTINUE
      IT = IT + 1
      CALL WORK(IT)
      IF (IT .LT. NITER) GOTO 10
      PRINT *, IT
      END
";

#[test]
fn post_test_goto_loop_is_a_do_while() {
    let l = lower("w.f", POST_TEST);
    assert_eq!(whiles(&l), [("it < niter".to_string(), true)]);
    assert_eq!(
        outline(&l),
        [
            "assign",
            "assign",
            "while",
            "  opaque 10",
            "  assign",
            "  call",
            "opaque"
        ]
    );
    let w = l
        .program
        .stmts
        .iter()
        .find(|s| s.kind.name() == "while")
        .unwrap();
    assert_eq!(l.sources.first_line(w.span), 5);
    assert_eq!(l.sources.last_line(w.span), 8);
    assert!(goto_notes(&l).is_empty(), "{:?}", l.diagnostics);
}

#[test]
fn pre_test_goto_loop_negates_its_exit_test_and_jumps_out_are_breaks() {
    let src = "\
      PROGRAM P
      INTEGER K, N
      N = 5
      K = 0
   20 IF (K .GE. N) GO TO 30
      K = K + 1
      IF (K .EQ. 3) THEN
         GOTO 30
      END IF
      GOTO 20
   30 CONTINUE
      J = 0
   40 CONTINUE
      IF (.NOT. (J .LT. N)) GOTO 50
      J = J + 2
      GOTO 40
   50 PRINT *, K, J
      END
";
    let l = lower("p.f", src);
    assert_eq!(
        whiles(&l),
        [("k < n".to_string(), false), ("j < n".to_string(), false)]
    );
    assert_eq!(
        outline(&l),
        [
            "assign",
            "assign",
            "while",
            "  assign",
            "  if",
            "    break",
            "opaque 30",
            "assign",
            "while",
            "  assign",
            "opaque 50"
        ]
    );
    assert!(goto_notes(&l).is_empty(), "{:?}", l.diagnostics);
}

#[test]
fn free_form_goto_loop() {
    let src = "program p\n  integer :: it\n  it = 0\n10 it = it + 1\n  if (it < 4) goto 10\n  print *, it\nend program p\n";
    let l = lower("p.f90", src);
    assert_eq!(whiles(&l), [("it < 4".to_string(), true)]);
    assert_eq!(outline(&l), ["assign", "while", "  assign 10", "opaque"]);
}

#[test]
fn unstructured_goto_loops_stay_opaque_and_say_why() {
    // (source body, expected words in the note)
    let cases = [
        // a jump into the body from before the loop
        (
            "      IF (N .GT. 2) GOTO 15\n   10 CONTINUE\n      I = I + 1\n   15 CONTINUE\n      IF (I .LT. N) GOTO 10\n",
            "enters its body (label 15)",
        ),
        // two backward jumps to one label
        (
            "   10 CONTINUE\n      I = I + 1\n      IF (I .EQ. 2) GOTO 10\n      IF (I .LT. N) GOTO 10\n",
            "2 jumps reach its label 10",
        ),
        // a jump out of the body to somewhere else than the next statement
        (
            "   10 CONTINUE\n      I = I + 1\n      IF (I .EQ. 7) GOTO 99\n      IF (I .LT. N) GOTO 10\n      I = 0\n   99 CONTINUE\n",
            "leaves it for label 99",
        ),
        // the exit jump leaves an inner DO too
        (
            "   10 CONTINUE\n      DO J = 1, N\n         IF (J .EQ. I) GOTO 20\n      END DO\n      I = I + 1\n      IF (I .LT. N) GOTO 10\n   20 CONTINUE\n",
            "leaves an inner loop",
        ),
        // an endless loop closed by an unconditional GOTO
        (
            "   10 CONTINUE\n      I = I + 1\n      GOTO 10\n",
            "exit test at the top",
        ),
        // an EXIT of the DO around it in the body (was a Break of the GOTO loop)
        (
            "      DO J = 1, N\n   10 CONTINUE\n      I = I + 1\n      IF (I .GT. 5) EXIT\n      IF (I .LT. N) GOTO 10\n      END DO\n",
            "belongs to the loop around it",
        ),
    ];
    for (body, want) in cases {
        let src = format!(
            "      PROGRAM P\n      INTEGER I, J, N\n      N = 4\n      I = 0\n{body}      END\n"
        );
        let l = lower("p.f", &src);
        assert!(whiles(&l).is_empty(), "{body}: {:?}", whiles(&l));
        let notes = goto_notes(&l);
        assert!(
            notes.iter().any(|n| n.contains(want)),
            "{body}: want a note with `{want}`, got {notes:?}"
        );
    }
}

#[test]
fn computed_goto_stays_opaque() {
    let src = "      PROGRAM P\n      I = 1\n   10 CONTINUE\n      I = I + 1\n      GO TO (10, 20) I\n   20 CONTINUE\n      END\n";
    let l = lower("p.f", src);
    assert!(whiles(&l).is_empty());
    assert_eq!(goto_notes(&l).len(), 1);
}

#[test]
fn nested_goto_loops() {
    let src = "\
      PROGRAM P
      I = 0
   10 CONTINUE
      J = 0
   20 CONTINUE
      J = J + 1
      IF (J .LT. 3) GOTO 20
      I = I + 1
      IF (I .LT. 4) GOTO 10
      END
";
    let l = lower("p.f", src);
    assert_eq!(
        outline(&l),
        [
            "assign",
            "while",
            "  opaque 10",
            "  assign",
            "  while",
            "    opaque 20",
            "    assign",
            "  assign"
        ]
    );
}

#[test]
fn named_do_loops_are_loops_with_exit_and_cycle() {
    let src = "\
program p
  integer :: i, j, n
  n = 4
  outer: do i = 1, n
    inner: do j = 1, n
      if (j > i) cycle outer
      if (i*j > 6) exit outer
    end do inner
  end do outer
  search: do
    n = n - 1
    if (n < 0) exit search
  end do search
end program p
";
    let l = lower("p.f90", src);
    assert_eq!(
        outline(&l),
        [
            "assign",
            "loop",
            "  loop",
            "    if",
            "      continue",
            "    if",
            "      break",
            "while",
            "  assign",
            "  if",
            "    break"
        ]
    );
    let named: Vec<&str> = l
        .program
        .stmts
        .iter()
        .filter(|s| matches!(s.kind, StmtKind::Break | StmtKind::Continue))
        .map(|s| l.sources.text(s.span))
        .collect();
    assert_eq!(named, ["cycle outer", "exit outer", "exit search"]);
}

/// review8 L2: `exit outer` in an inner DO of a GOTO loop names a DO around the GOTO loop,
/// so it leaves the GOTO loop too: not a loop. `exit inner` naming the DO inside is fine.
#[test]
fn a_named_exit_of_a_loop_around_a_goto_loop_keeps_it_opaque() {
    let body = |name: &str| {
        format!(
            "program p\n  integer :: i, j, n\n  n = 4\n  i = 0\n  outer: do j = 1, n\n10  continue\n    inner: do k = 1, n\n      if (k > i) exit {name}\n    end do inner\n    i = i + 1\n    if (i < n) goto 10\n  end do outer\nend program p\n"
        )
    };
    let l = lower("p.f90", &body("outer"));
    assert!(whiles(&l).is_empty(), "{:?}", whiles(&l));
    let notes = goto_notes(&l);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("belongs to the loop around it")),
        "{notes:?}"
    );
    let l = lower("p.f90", &body("inner"));
    assert_eq!(whiles(&l), [("i < n".to_string(), true)]);
}
