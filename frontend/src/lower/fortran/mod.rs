//! Fortran lowering (free form, and fixed form after normalisation): tree-sitter-fortran
//! nodes → IR. `a(i)` is an array element when `a` is declared with dimensions, else a call.
use std::collections::BTreeMap;

use tree_sitter::Node;

use super::Builder;
use crate::diagnostic::{codes, Diagnostic};
use crate::ir::*;
use crate::parse::FieldExt;
use crate::source_map::Assembled;

/// Canonical Fortran name: lower-case, but `MPI_*` upper-case (matches C spelling of constants).
/// Modules the compiler or MPI provides: never among the given sources.
const INTRINSIC_MODULES: &[&str] = &[
    "iso_c_binding",
    "iso_fortran_env",
    "ieee_arithmetic",
    "ieee_exceptions",
    "ieee_features",
    "mpi",
    "mpi_f08",
    "omp_lib",
    "omp_lib_kinds",
    "openacc",
];

pub fn norm(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == crate::normalize::CLASS_STAND_IN {
        return "class".to_string();
    }
    if lower.starts_with("mpi_") {
        name.to_ascii_uppercase()
    } else {
        lower
    }
}

#[derive(Debug)]
pub struct FLower<'a> {
    src: &'a str,
    asm: &'a Assembled,
    main: FileId,
    b: &'a mut Builder,
    /// Module variables and constants.
    globals: BTreeMap<String, (VarType, bool)>,
    /// Current procedure's declared names → (type, is_array).
    locals: BTreeMap<String, (VarType, bool)>,
    /// Character variables filled by `get_command_argument(i, v)`.
    argv_vars: BTreeMap<String, Option<u32>>,
    /// NAMELIST groups → their variables, in order: the current unit's (its host's too) and,
    /// under `module_namelists`, those of every module lowered so far.
    namelists: BTreeMap<String, Vec<String>>,
    module_namelists: BTreeMap<String, Vec<String>>,
    /// Variables visible to the next internal procedure from its host.
    host: BTreeMap<String, (VarType, bool)>,
    /// Terminator statements of a labelled DO nest, handed to the innermost loop.
    pending_terminator: Option<(u32, Vec<Node<'a>>)>,
    module: Option<String>,
    /// Jumps and labels of the current scoping unit (GOTO loops).
    jumps: crate::lower::goto::Jumps<u32>,
    /// Exit labels of the loops being lowered, innermost last: a plain GOTO to one is a
    /// `break`. A GOTO loop's is the statement after it; a DO loop's the label of the
    /// statement after it in the same list, if that has one (`IF (R .LT. TOL) GOTO 200`
    /// with `200` right after `100 CONTINUE`, trial 26).
    goto_exits: Vec<Option<u32>>,
    /// The label of the statement after the one [`FLower::stmts`] is lowering (a DO loop
    /// takes it as its exit label).
    next_label: Option<u32>,
    /// Why a closing GOTO does not make a loop, by its byte offset (for its warning).
    goto_notes: BTreeMap<usize, String>,
    /// Terminating labels of the DO loops being lowered: a GOTO to one is a `cycle`, which
    /// apt's loop analysis reads from the opaque jump (no warning).
    do_ends: Vec<u32>,
    /// Associate names in scope → the selector each stands for ([`assoc`]).
    aliases: BTreeMap<String, SrcExpr>,
}

pub fn lower(root: Node, asm: &Assembled, main: FileId, b: &mut Builder) {
    // module variables of files lowered before this one
    let globals = b
        .prog
        .globals
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                (d.ty.clone(), matches!(d.kind, DeclKind::Array { .. })),
            )
        })
        .collect();
    let mut l = FLower {
        src: &asm.text,
        asm,
        main,
        b,
        globals,
        locals: BTreeMap::new(),
        argv_vars: BTreeMap::new(),
        namelists: BTreeMap::new(),
        module_namelists: BTreeMap::new(),
        pending_terminator: None,
        host: BTreeMap::new(),
        module: None,
        jumps: crate::lower::goto::Jumps::default(),
        goto_exits: Vec::new(),
        next_label: None,
        goto_notes: BTreeMap::new(),
        do_ends: Vec::new(),
        aliases: BTreeMap::new(),
    };
    let mut loose = Vec::new();
    for n in children(root) {
        match n.kind() {
            "program" | "subroutine" | "function" => {
                l.namelists.clear();
                l.unit(n);
            }
            "module" => l.module(n),
            // BLOCK DATA only initialises COMMON blocks; interface blocks declare
            "comment" | "include_statement" | "block_data" | "interface" => {}
            k if k.starts_with("preproc") => {}
            _ => loose.push(n),
        }
    }
    if loose.iter().any(|n| n.kind() != "ERROR") {
        // a main program without a PROGRAM statement
        let span = loose
            .iter()
            .map(|n| l.span(*n))
            .reduce(Span::cover)
            .unwrap_or_else(|| Span::new(main, 0, 0));
        l.b.begin_proc(
            "main".into(),
            ProcKind::Main,
            span,
            Span::new(span.file, span.start, span.start),
        );
        l.locals.clear();
        l.namelists.clear();
        l.jumps = l.collect_jumps(&loose);
        let body = l.stmts(&loose);
        if let Some(p) = l.b.proc_mut() {
            p.body = body;
        }
    }
}

fn children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

/// Type from Fortran type text (`integer`, `real*8`, `real(kind=8)`, `double precision`).
pub fn f_type(text: &str) -> VarType {
    let t = text.trim().to_ascii_lowercase();
    let digits: String = t
        .split(['*', '(', '=', ')', ','])
        .skip(1)
        .find(|p| !p.trim().is_empty() && p.trim().bytes().all(|b| b.is_ascii_digit()))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let kind: Option<u32> = digits.parse().ok();
    let (base, default) = if t.starts_with("double precision") || t.starts_with("doubleprecision") {
        (BaseType::Real, Some(8))
    } else if t.starts_with("double complex") || t.starts_with("doublecomplex") {
        (BaseType::Complex, Some(16))
    } else if t.starts_with("integer") {
        (BaseType::Integer, Some(4))
    } else if t.starts_with("real") {
        (BaseType::Real, Some(4))
    } else if t.starts_with("complex") {
        (BaseType::Complex, Some(8))
    } else if t.starts_with("logical") {
        (BaseType::Logical, Some(4))
    } else if t.starts_with("character") {
        (BaseType::Character, Some(1))
    } else {
        (BaseType::Other, None)
    };
    let has_kind = t.contains('*') || t.contains('(');
    let bytes = match (base, kind) {
        (BaseType::Character, _) => Some(1),
        (BaseType::Complex, Some(k)) if t.contains('*') => Some(k),
        (BaseType::Complex, Some(k)) => Some(2 * k),
        (_, Some(k)) => Some(k),
        (_, None) if has_kind => None,
        _ => default,
    };
    VarType::new(base, bytes, t)
}

fn rel_op(op: &str) -> Option<BinOp> {
    Some(match op.to_ascii_lowercase().as_str() {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "**" => BinOp::Pow,
        "//" => BinOp::Concat,
        "<" | ".lt." => BinOp::Lt,
        "<=" | ".le." => BinOp::Le,
        ">" | ".gt." => BinOp::Gt,
        ">=" | ".ge." => BinOp::Ge,
        "==" | ".eq." => BinOp::Eq,
        "/=" | ".ne." => BinOp::Ne,
        ".and." => BinOp::And,
        ".or." => BinOp::Or,
        ".eqv." => BinOp::Eqv,
        ".neqv." => BinOp::Neqv,
        _ => return None,
    })
}

/// Fortran intrinsic functions likely in MPI programs (never array names).
pub fn is_intrinsic(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "abs"
            | "dabs"
            | "iabs"
            | "min"
            | "max"
            | "min0"
            | "max0"
            | "amin1"
            | "amax1"
            | "dmin1"
            | "dmax1"
            | "mod"
            | "modulo"
            | "sign"
            | "dsign"
            | "sqrt"
            | "dsqrt"
            | "exp"
            | "dexp"
            | "log"
            | "dlog"
            | "log10"
            | "sin"
            | "cos"
            | "tan"
            | "atan"
            | "atan2"
            | "dble"
            | "real"
            | "float"
            | "int"
            | "nint"
            | "idint"
            | "ifix"
            | "floor"
            | "ceiling"
            | "size"
            | "len"
            | "len_trim"
            | "trim"
            | "adjustl"
            | "ichar"
            | "char"
            | "shape"
            | "lbound"
            | "ubound"
            | "sum"
            | "product"
            | "maxval"
            | "minval"
            | "dot_product"
            | "matmul"
            | "merge"
            | "present"
            | "allocated"
            | "associated"
            | "huge"
            | "tiny"
            | "epsilon"
            | "kind"
            | "selected_real_kind"
            | "selected_int_kind"
            | "command_argument_count"
            | "iargc"
            | "cmplx"
            | "conjg"
            | "aimag"
            | "transpose"
            | "reshape"
            | "spread"
            | "pack"
            | "count"
            | "any"
            | "all"
            | "ishft"
            | "iand"
            | "ior"
            | "ieor"
            | "btest"
            | "mpi_wtime"
            | "mpi_wtick"
    )
}

fn intrinsic_type(name: &str, args: &[SrcExpr]) -> Option<BaseType> {
    match name {
        "dble" | "real" | "sqrt" | "exp" | "log" | "sin" | "cos" | "dsqrt" | "dabs" | "float"
        | "log10" | "dfloat" | "sngl" => Some(BaseType::Real),
        "int"
        | "nint"
        | "size"
        | "len"
        | "ichar"
        | "command_argument_count"
        | "iargc"
        | "floor"
        | "ceiling" => Some(BaseType::Integer),
        "mod" | "abs" | "min" | "max" | "sign" => {
            let ts: Vec<_> = args.iter().map(|a| a.ty).collect();
            ts.first()
                .copied()
                .flatten()
                .filter(|t| ts.iter().all(|x| *x == Some(*t)))
        }
        _ => None,
    }
}

impl<'a> FLower<'a> {
    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn span(&self, n: Node) -> Span {
        self.asm.span(n.start_byte(), n.end_byte(), self.main)
    }

    fn lookup(&self, name: &str) -> Option<&(VarType, bool)> {
        self.locals.get(name).or_else(|| self.globals.get(name))
    }

    fn is_array(&self, name: &str) -> bool {
        self.lookup(name).is_some_and(|(_, a)| *a)
    }

    fn type_of(&self, name: &str) -> Option<BaseType> {
        if let Some((t, _)) = self.lookup(name) {
            return Some(t.base);
        }
        let p = self.b.prog.proc(self.b.cur_proc)?;
        if p.implicit_none {
            return None;
        }
        let first = name.chars().next()?;
        if let Some(r) = p
            .implicit
            .iter()
            .find(|r| r.first <= first && first <= r.last)
        {
            return Some(r.ty.base);
        }
        Some(VarType::fortran_implicit(name).base)
    }

    fn module(&mut self, n: Node<'a>) {
        let name = n
            .named_child(0)
            .and_then(|s| s.named_child(0))
            .map(|x| norm(self.text(x)));
        self.module = name.clone();
        self.b.prog.modules.extend(name);
        self.b.begin_proc(
            String::new(),
            ProcKind::Subroutine,
            self.span(n),
            self.span(n),
        );
        // module-level declarations go to globals: lower them into a scratch procedure
        let scratch = self.b.cur_proc;
        self.locals.clear();
        for c in children(n) {
            match c.kind() {
                "internal_procedures" => {}
                "use_statement" => self.use_stmt(c, true),
                "namelist_statement" => {
                    let groups = self.namelist_groups(c);
                    self.module_namelists.extend(groups);
                }
                k if is_decl(k) => self.decl_stmt(c),
                _ => {}
            }
        }
        let decls = self.b.prog.procs.pop().map(|p| p.decls).unwrap_or_default();
        debug_assert_eq!(scratch.0 as usize, self.b.prog.procs.len());
        for d in decls {
            self.globals.insert(
                d.name.clone(),
                (d.ty.clone(), matches!(d.kind, DeclKind::Array { .. })),
            );
            self.b.prog.globals.push(d);
        }
        for c in children(n) {
            if c.kind() == "internal_procedures" {
                for p in children(c) {
                    if matches!(p.kind(), "subroutine" | "function") {
                        self.namelists.clear();
                        self.unit(p);
                    }
                }
            }
        }
        self.module = None;
    }

    /// Records a `use` of a module that is not intrinsic (`in_module`: in a module's
    /// specification part), for the check that the given sources define it.
    pub(super) fn use_stmt(&mut self, n: Node<'a>, in_module: bool) {
        let text = self.text(n).trim().to_ascii_lowercase();
        let Some(rest) = text.strip_prefix("use") else {
            return;
        };
        // `use m`, `use m, only: x`, `use :: m`, `use, intrinsic :: m`, `use, non_intrinsic :: m`
        let (intrinsic, rest) = match rest.split_once("::") {
            Some((head, tail)) => (head.contains("intrinsic") && !head.contains("non_"), tail),
            None => (false, rest),
        };
        let module: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if module == "mpi_f08" {
            // trial 28: accepted here and refused only at `profile`
            self.b.diags.push(
                Diagnostic::warning(
                    codes::UNSUPPORTED,
                    "`use mpi_f08`: augur's tracer wraps the `mpi` module and `mpif.h` bindings only",
                )
                .with_primary(self.span(n), "`augur profile` cannot instrument this program")
                .with_note(
                    "`apt` reads it; to profile it, use `use mpi` (the calls are the same but for the handle types)",
                ),
            );
        }
        if intrinsic || module.is_empty() || INTRINSIC_MODULES.contains(&module.as_str()) {
            return;
        }
        let span = self.span(n);
        let proc = (!in_module).then_some(self.b.cur_proc);
        let in_module = self.module.clone();
        self.b.prog.module_uses.push(ModuleUse {
            module,
            span,
            proc,
            in_module,
        });
    }

    /// A program, subroutine or function (and its `contains` procedures).
    fn unit(&mut self, n: Node<'a>) {
        let kind = match n.kind() {
            "program" => ProcKind::Main,
            "function" => ProcKind::Function,
            _ => ProcKind::Subroutine,
        };
        let kids = children(n);
        let header = kids
            .first()
            .copied()
            .filter(|h| h.kind().ends_with("_statement"));
        let name_node = header.and_then(|h| h.field("name").or_else(|| h.named_child(0)));
        let name = name_node.map_or_else(|| "main".to_string(), |x| norm(self.text(x)));
        let span = self.span(n);
        let name_span = name_node.map_or(span, |x| self.span(x));
        self.b.begin_proc(name, kind, span, name_span);
        // the prefix words before FUNCTION / SUBROUTINE: `pure function f(x)`,
        // `elemental real(8) function g(x)`, `impure elemental subroutine s(a)`
        let prefix: Vec<String> = header
            .map(|h| self.text(h).to_ascii_lowercase())
            .unwrap_or_default()
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .take_while(|w| *w != "function" && *w != "subroutine")
            .map(str::to_string)
            .collect();
        let has = |w: &str| prefix.iter().any(|x| x == w);
        let pure = (has("pure") || has("elemental")) && !has("impure");
        if let Some(p) = self.b.proc_mut() {
            p.module = None;
            p.pure = pure;
        }
        let module = self.module.clone();
        if let Some(p) = self.b.proc_mut() {
            p.module = module;
        }
        // an internal procedure sees its host's variables (host association)
        self.locals = std::mem::take(&mut self.host);
        self.argv_vars.clear();
        self.aliases.clear();
        if let Some(params) = header.and_then(|h| h.field("parameters")) {
            for p in children(params) {
                let pname = norm(self.text(p));
                let pspan = self.span(p);
                if let Some(pr) = self.b.proc_mut() {
                    pr.params.push(Param {
                        name: pname,
                        span: pspan,
                    });
                }
            }
        }
        if kind == ProcKind::Function {
            if let Some(t) = header.and_then(|h| h.field("type")) {
                let pname = self
                    .b
                    .prog
                    .proc(self.b.cur_proc)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                let ty = f_type(self.text(t));
                self.locals.insert(pname.clone(), (ty.clone(), false));
                let span = self.span(t);
                if let Some(pr) = self.b.proc_mut() {
                    pr.decls.push(Decl {
                        name: pname,
                        ty,
                        kind: DeclKind::Scalar { init: None },
                        span,
                        common: None,
                        common_slot: None,
                    });
                }
            }
        }
        let mut body_nodes = Vec::new();
        let mut internal = Vec::new();
        for k in kids.into_iter().skip(usize::from(header.is_some())) {
            match k.kind() {
                "internal_procedures" => internal.push(k),
                kk if kk.starts_with("end_") && kk.ends_with("_statement") => {}
                _ => body_nodes.push(k),
            }
        }
        self.jumps = self.collect_jumps(&body_nodes);
        let body = self.stmts(&body_nodes);
        if let Some(p) = self.b.proc_mut() {
            p.body = body;
        }
        // fill in parameter declarations that were only implicit
        let host = self.b.cur_proc;
        for ip in internal {
            for p in children(ip) {
                if matches!(p.kind(), "subroutine" | "function") {
                    let saved = self.locals.clone();
                    let groups = self.namelists.clone();
                    self.host = saved.clone();
                    let next = self.b.prog.procs.len();
                    self.unit(p);
                    if let Some(inner) = self.b.prog.procs.get_mut(next) {
                        inner.host = Some(host);
                    }
                    self.locals = saved;
                    self.namelists = groups;
                }
            }
        }
    }
}

fn is_decl(kind: &str) -> bool {
    matches!(
        kind,
        "variable_declaration"
            | "parameter_statement"
            | "variable_modification"
            | "common_statement"
            | "implicit_statement"
            | "save_statement"
            | "equivalence_statement"
            | "interface"
            | "derived_type_definition"
            | "import_statement"
            | "public_statement"
            | "private_statement"
    )
}

mod assoc;
mod decl;
mod expr;
mod goto;
mod loops;
mod stmt;
