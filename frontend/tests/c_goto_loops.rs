//! C loops built from `goto`, lowered with the real C grammar: the same shapes as the Fortran
//! ones (post-test `L: … if (c) goto L;`, pre-test `L: if (c) goto M; … goto L; M: …`), and
//! unstructured ones kept opaque with a warning saying why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use frontend::*;

fn lower(src: &str) -> Lowered {
    load_str("g.c", src, &Options::default()).unwrap()
}

/// `main`'s statements, pre-order, as `kind`, indented by depth.
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
            format!("{}{}", "  ".repeat(depth), s.kind.name())
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

fn goto_notes(l: &Lowered) -> Vec<String> {
    l.diagnostics
        .iter()
        .filter(|d| d.message == "`goto` is not analysed")
        .map(|d| d.notes.join("; "))
        .collect()
}

fn main_with(body: &str) -> String {
    format!(
        "void work(int);\nint main(void) {{\n  int i = 0, j = 0, n = 4;\n{body}  return 0;\n}}\n"
    )
}

#[test]
fn post_test_goto_loop_is_a_do_while() {
    let l = lower(&main_with(
        "again:\n  i = i + 1;\n  work(i);\n  if (i < n) goto again;\n  work(0);\n",
    ));
    assert_eq!(whiles(&l), [("i < n".to_string(), true)]);
    assert_eq!(
        outline(&l),
        ["assign", "assign", "assign", "while", "  assign", "  call", "call", "return"]
    );
    let w = l
        .program
        .stmts
        .iter()
        .find(|s| s.kind.name() == "while")
        .unwrap();
    assert_eq!(l.sources.first_line(w.span), 4);
    assert_eq!(l.sources.last_line(w.span), 7);
    assert!(goto_notes(&l).is_empty(), "{:?}", l.diagnostics);
}

#[test]
fn pre_test_goto_loop_negates_its_exit_test_and_jumps_out_are_breaks() {
    let l = lower(&main_with(
        "top:\n  if (i >= n) goto done;\n  i++;\n  if (i == 3) { goto done; }\n  goto top;\ndone:\n  work(i);\nnext: ;\n  if (!(j < n)) goto out;\n  j += 2;\n  goto next;\nout: work(j);\n",
    ));
    assert_eq!(
        whiles(&l),
        [("i < n".to_string(), false), ("j < n".to_string(), false)]
    );
    assert_eq!(
        outline(&l),
        [
            "assign",
            "assign",
            "assign",
            "while",
            "  assign",
            "  if",
            "    break",
            "call",
            "while",
            "  assign",
            "call",
            "return"
        ]
    );
    assert!(goto_notes(&l).is_empty(), "{:?}", l.diagnostics);
}

#[test]
fn nested_goto_loops_and_loops_inside() {
    let l = lower(&main_with(
        "outer:\n  j = 0;\ninner:\n  j++;\n  if (j < 3) goto inner;\n  for (int k = 0; k < n; k++) work(k);\n  i++;\n  if (i < n) goto outer;\n",
    ));
    assert_eq!(
        outline(&l),
        [
            "assign",
            "assign",
            "assign",
            "while",
            "  assign",
            "  while",
            "    assign",
            "  loop",
            "    call",
            "  assign",
            "return"
        ]
    );
    assert!(goto_notes(&l).is_empty(), "{:?}", l.diagnostics);
}

#[test]
fn unstructured_goto_loops_stay_opaque_and_say_why() {
    let cases = [
        (
            "  if (n > 2) goto mid;\nl:\n  i++;\nmid:\n  if (i < n) goto l;\n",
            "enters its body (label mid)",
        ),
        (
            "l:\n  i++;\n  if (i == 2) goto l;\n  if (i < n) goto l;\n",
            "2 jumps reach its label l",
        ),
        (
            "l:\n  i++;\n  if (i == 7) goto away;\n  if (i < n) goto l;\n  i = 0;\naway: ;\n",
            "leaves it for label away",
        ),
        (
            "l:\n  for (j = 0; j < n; j++) if (j == i) goto out;\n  i++;\n  if (i < n) goto l;\nout: ;\n",
            "leaves an inner loop",
        ),
        ("l:\n  i++;\n  goto l;\n", "exit test at the top"),
        (
            "  while (j < n) {\n    j++;\nl:\n    i++;\n    if (i > 5) break;\n    if (i < n) goto l;\n  }\n",
            "belongs to the loop around it",
        ),
    ];
    for (body, want) in cases {
        let l = lower(&main_with(body));
        assert!(
            whiles(&l).iter().all(|w| w.0 == "j < n"),
            "{body}: {:?}",
            whiles(&l)
        );
        let notes = goto_notes(&l);
        assert!(
            notes.iter().any(|n| n.contains(want)),
            "{body}: want a note with `{want}`, got {notes:?}"
        );
    }
}
