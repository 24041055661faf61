//! C member accesses with no run-time index lower to variables named by their access path
//! (`g.nx`, `p->nx`), with def/use sets in those names; anything indexed at run time stays
//! opaque.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use frontend::*;

const SRC: &str = r#"
struct inner { int b; };
struct grid { int nx, ny; int a[4]; struct inner in; };
void f(struct grid *p, struct grid g, struct grid *arr, int i) {
    g.nx = p->ny + 1;
    p->in.b = (*p).nx;
    g.a[2] = arr[1].nx;
    g.ny = arr[i].nx;
    g.nx++;
}
"#;

fn assigns(l: &Lowered) -> Vec<&Stmt> {
    let p = l.program.procs.first().unwrap();
    l.program
        .walk(&p.body)
        .into_iter()
        .map(|id| l.program.stmt(id).unwrap())
        .collect()
}

fn set(s: &[&str]) -> std::collections::BTreeSet<String> {
    s.iter().map(|x| (*x).to_string()).collect()
}

#[test]
fn member_accesses_are_variables_named_by_their_path() {
    let l = load_str("paths.c", SRC, &Options::default()).unwrap();
    let s = assigns(&l);
    assert_eq!(s.len(), 5);
    let target = |k: usize| match &s[k].kind {
        StmtKind::Assign(a) => (a.target.path(), a.value.to_string()),
        other => panic!("{other:?}"),
    };
    assert_eq!(target(0), (Some("g.nx".into()), "p->ny + 1".into()));
    assert_eq!(s[0].defs, set(&["g.nx"]));
    assert_eq!(s[0].uses, set(&["p->ny"]));
    // `(*p).nx` is `p->nx`
    assert_eq!(target(1), (Some("p->in.b".into()), "p->nx".into()));
    // a member array's element with a literal subscript, an element's member
    assert_eq!(target(2), (Some("g.a[2]".into()), "arr[1].nx".into()));
    assert_eq!(s[2].defs, set(&["g.a"]));
    // an index known only at run time: opaque, its variables kept
    match &s[3].kind {
        StmtKind::Assign(a) => assert!(
            matches!(&a.value.kind, SrcExprKind::Opaque { vars, .. } if vars.contains(&"i".to_string())),
            "{:?}",
            a.value
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(target(4).0, Some("g.nx".into()));
}

#[test]
fn path_roots_and_members() {
    assert_eq!(path_root("g.a[2]"), "g");
    assert_eq!(path_root("p->nx"), "p");
    assert_eq!(path_root("n"), "n");
    assert!(path_under("g.nx", "g"));
    assert!(path_under("g.a[2]", "g.a"));
    assert!(!path_under("g.nx", "g.n"));
    assert!(!path_under("g", "g"));
    assert_eq!(path_member("p->in.b"), Some(("b", false)));
    assert_eq!(path_member("g.in->b"), Some(("b", true)));
    assert_eq!(path_member("a[2]"), None);
}

const SRC_F: &str = "\
subroutine f(t, u, i)
  type grid
    integer :: nx, ny
    integer :: a(4)
  end type grid
  type(grid) :: t, u(3)
  integer :: i
  t%nx = u(2)%ny + 1
  t%a(3) = t%nx
  u(i)%nx = t%a(i)
  read (*, *) t%ny
end subroutine f
";

#[test]
fn fortran_components_are_variables_named_by_their_path() {
    let l = load_str("paths.f90", SRC_F, &Options::default()).unwrap();
    let s = assigns(&l);
    assert_eq!(s.len(), 4);
    let target = |k: usize| match &s[k].kind {
        StmtKind::Assign(a) => (a.target.path(), a.value.to_string()),
        other => panic!("{other:?}"),
    };
    assert_eq!(target(0).0, Some("t%nx".into()));
    assert_eq!(s[0].defs, set(&["t%nx"]));
    assert_eq!(s[0].uses, set(&["u[2]%ny"]));
    // a component array's element with a literal subscript
    assert_eq!(target(1).0, Some("t%a[3]".into()));
    assert_eq!(s[1].uses, set(&["t%nx"]));
    // an element reached through a run-time index writes its whole variable: the target is
    // that element of it (no access path), not the whole array (trial 27: an array assignment
    // over all of `u`)
    assert_eq!(target(2).0, None);
    assert_eq!(s[2].defs, set(&["u"]));
    match &s[2].kind {
        StmtKind::Assign(a) => assert!(
            matches!(&a.target.kind, SrcExprKind::Index { array, .. } if array == "u"),
            "{:?}",
            a.target
        ),
        other => panic!("{other:?}"),
    }
    match &s[3].kind {
        StmtKind::Input(i) => assert_eq!(i.targets[0].path(), Some("t%ny".into())),
        other => panic!("{other:?}"),
    }
    assert_eq!(path_member("t%in%b"), Some(("b", false)));
    assert_eq!(path_root("u[2]%nx"), "u");
}

#[test]
fn small_c_array_initializer_lists_store_their_elements() {
    let src = "void f(int n) {\n  int dims[2] = {0, n}, box[3] = {1}, big[100] = {0}, m[2][2] = {{0}}, d[2] = {[1] = 3};\n}\n";
    let l = load_str("init.c", src, &Options::default()).unwrap();
    let stores: Vec<(Option<String>, String)> = assigns(&l)
        .into_iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Assign(a) => Some((a.target.path(), a.value.to_string())),
            _ => None,
        })
        .collect();
    let want = [
        ("dims[0]", "0"),
        ("dims[1]", "n"),
        ("box[0]", "1"),
        ("box[1]", "0"),
        ("box[2]", "0"),
    ];
    let want: Vec<(Option<String>, String)> = want
        .iter()
        .map(|(p, v)| (Some((*p).to_string()), (*v).to_string()))
        .collect();
    assert_eq!(stores, want);
}
