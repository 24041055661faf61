//! Fortran NAMELIST reads (`read(u, nml=g)`, `read(5, g)`) lower to inputs of every variable
//! of the group, from the group declared in the unit, its host or a module.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use frontend::*;

fn inputs(src: &str) -> Vec<(InputOrigin, Vec<String>)> {
    let l = load_str("nml.f90", src, &Options::default()).unwrap();
    let errors: Vec<String> = l
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| diagnostic::render_human(d, &l.sources))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let mut out = Vec::new();
    for p in &l.program.procs {
        for id in l.program.walk(&p.body) {
            let s = l.program.stmt(id).unwrap();
            if let StmtKind::Input(i) = &s.kind {
                let mut defs: Vec<String> = s.defs.iter().cloned().collect();
                let targets: Vec<String> = i.targets.iter().map(ToString::to_string).collect();
                defs.sort();
                let mut t = targets.clone();
                t.sort();
                assert_eq!(t, defs, "an input defines exactly its targets");
                out.push((i.origin.clone(), targets));
            }
        }
    }
    out
}

#[test]
fn namelist_reads_assign_every_variable_of_their_group() {
    let got = inputs(
        "program p\n integer :: n, m\n real :: tend\n namelist /params/ n, tend /g2/ m\n n = 1000\n\
         read(10, nml=params)\n read(*, nml=params)\n read(unit=5, NML=g2)\n read(5, params)\n\
         read(*, *) m\nend program\n",
    );
    let n_tend = || vec!["n".to_string(), "tend".to_string()];
    assert_eq!(
        got,
        vec![
            (InputOrigin::File, n_tend()),
            (InputOrigin::Stdin, n_tend()),
            (InputOrigin::Stdin, vec!["m".to_string()]),
            (InputOrigin::Stdin, n_tend()),
            (InputOrigin::Stdin, vec!["m".to_string()]),
        ]
    );
}

#[test]
fn namelist_groups_of_modules_and_hosts_are_visible() {
    let got = inputs(
        "module cfg\n integer :: nx, ny\n namelist /grid/ nx, ny\nend module cfg\n\
         program p\n use cfg\n integer :: steps\n namelist /run/ steps\n call setup()\n\
         contains\n subroutine setup()\n  read(*, nml=grid)\n  read(*, nml=run)\n end subroutine setup\n\
         end program\n",
    );
    assert_eq!(
        got,
        vec![
            (InputOrigin::Stdin, vec!["nx".to_string(), "ny".to_string()]),
            (InputOrigin::Stdin, vec!["steps".to_string()]),
        ]
    );
}

#[test]
fn a_group_of_another_unit_is_not_visible() {
    // `run` belongs to `a`; in `b` the read names no known group and assigns nothing known
    let got = inputs(
        "subroutine a()\n integer :: s\n namelist /run/ s\n read(*, nml=run)\nend subroutine\n\
         subroutine b()\n integer :: s\n read(*, nml=run)\nend subroutine\n",
    );
    assert_eq!(got, vec![(InputOrigin::Stdin, vec!["s".to_string()])]);
}
