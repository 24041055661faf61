//! Trial 26: a C program in a `.cpp` file was read as C without a word, and `profile` then
//! failed compiling it as C++. A C++ source by its name is read as C with a warning saying what
//! is not understood; a `.c` file gets none.
#![allow(clippy::unwrap_used)]

const SRC: &str = "#include <mpi.h>\nint main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n  MPI_Finalize();\n  return 0;\n}\n";

fn warned(name: &str) -> bool {
    let l = frontend::load_str(name, SRC, &frontend::Options::default()).unwrap();
    assert!(!l.has_errors(), "{:?}", l.diagnostics);
    l.diagnostics
        .iter()
        .any(|d| d.message == "a C++ source read as C")
}

#[test]
fn a_cplusplus_file_is_read_as_c_with_a_warning() {
    assert!(warned("ring.cpp"));
    assert!(warned("ring.cc"));
    assert!(warned("ring.C"));
    assert!(!warned("ring.c"));
}
