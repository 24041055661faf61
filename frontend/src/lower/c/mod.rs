//! C lowering: tree-sitter-c nodes → IR. Preprocessor conditionals pick a branch from the
//! macro table; `#define NAME value` becomes a named constant; MPI calls go through the table.
use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::{parse_int, Builder};
use crate::ir::*;
use crate::macros::{needs_substitution, MacroTable};
use crate::parse::FieldExt;
use crate::parse::{self, Grammar};
use crate::source_map::Assembled;

pub struct CLower<'a> {
    src: &'a str,
    /// Added to node offsets to get offsets in `asm.text` (sub-parses of macro bodies).
    shift: i64,
    asm: &'a Assembled,
    main: FileId,
    b: &'a mut Builder,
    macros: &'a MacroTable,
    /// Macro names defined so far (for `#ifdef`).
    defined: BTreeSet<String>,
    globals: BTreeMap<String, VarType>,
    locals: BTreeMap<String, VarType>,
    /// Parser for macro bodies, made on first use and reused.
    value_parser: Option<tree_sitter::Parser>,
    /// What `break` leaves, innermost last: true for a loop, false for a `switch` (whose
    /// `break` only ends a case and is not lowered).
    break_targets: Vec<bool>,
    /// Macros substituted textually before parsing (qualifiers, attributes, declarations):
    /// not named constants.
    substituted: BTreeSet<String>,
    /// The `case` label the statements being lowered sit under (`n` for `case 'n':`): names
    /// the option a `getopt` loop reads with `atoi(optarg)`.
    case_label: Option<String>,
    /// Expression macros being expanded, outermost first: a macro is not expanded again
    /// inside its own expansion (the C preprocessor's rule).
    expanding: Vec<String>,
    /// Jumps and labels of the current function (goto loops).
    jumps: crate::lower::goto::Jumps<String>,
    /// Exit labels of the goto loops being lowered, innermost last (`None`: a C loop).
    goto_exits: Vec<Option<String>>,
    /// Why a closing `goto` does not make a loop, by its byte offset (for its warning).
    goto_notes: BTreeMap<usize, String>,
    /// (size, alignment) in bytes of the structs the unit defines, by `struct name` and by
    /// typedef name ([`struct_layouts`]), for `sizeof`.
    structs: BTreeMap<String, (u32, u32)>,
    /// The scalar type of each struct member name the unit declares, where every struct
    /// declaring a member of that name agrees ([`member_types`]): `g->nloc` is an `int`.
    members: BTreeMap<String, BaseType>,
}

/// Lowers a whole C translation unit into `b`.
pub fn lower(root: Node, asm: &Assembled, main: FileId, macros: &MacroTable, b: &mut Builder) {
    let defined = macros.command_line.keys().cloned().collect();
    // declarations of files lowered before this one
    let globals = b
        .prog
        .globals
        .iter()
        .map(|d| (d.name.clone(), d.ty.clone()))
        .collect();
    let mut l = CLower {
        src: &asm.text,
        shift: 0,
        asm,
        main,
        b,
        macros,
        defined,
        globals,
        locals: BTreeMap::new(),
        value_parser: None,
        break_targets: Vec::new(),
        substituted: macros
            .substitutions()
            .into_keys()
            .map(str::to_string)
            .collect(),
        case_label: None,
        expanding: Vec::new(),
        jumps: Default::default(),
        goto_exits: Vec::new(),
        goto_notes: BTreeMap::new(),
        structs: BTreeMap::new(),
        members: BTreeMap::new(),
    };
    l.structs = struct_layouts(root, &asm.text);
    l.members = member_types(root, &asm.text);
    let typedefs = struct_typedefs(root, &asm.text);
    l.b.prog.c_typedefs.extend(typedefs);
    l.b.prog.c_statement_macros.extend(
        macros
            .functions
            .iter()
            .map(|(name, (_, body))| (name.clone(), crate::macros::timed_in_body(body))),
    );
    for (name, value) in &macros.command_line {
        if needs_substitution(value) || l.b.prog.globals.iter().any(|g| &g.name == name) {
            continue;
        }
        let span = Span::new(main, 0, 0);
        let expr = l
            .macro_value(value, None)
            .unwrap_or_else(|| opaque_expr(value, span));
        let ty = type_of_value(&expr);
        l.b.prog.globals.push(Decl {
            name: name.clone(),
            ty,
            kind: DeclKind::Constant {
                value: expr,
                origin: ConstOrigin::CommandLine,
            },
            span,
            common: None,
            common_slot: None,
        });
    }
    l.top_level(root);
}

/// The (size, alignment) of each struct the unit defines with its members, as the x86-64 C ABI
/// lays it out: each member at a multiple of its alignment (a scalar's size, a pointer's 8, a
/// struct's largest member's), the whole rounded up to its largest alignment. Keyed by
/// `struct name` and by each typedef name that names it (`typedef struct { int task; double
/// value; } result_t;`: 16 bytes; trial 21 read `sizeof(result_t)` as "a type not known").
/// A struct with a member of unknown size (a union, a bit-field, an array of a non-constant
/// length) is left out.
fn struct_layouts(root: Node, src: &str) -> BTreeMap<String, (u32, u32)> {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").trim().to_string();
    let mut out: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    // definitions in source order: a struct's members may be structs defined before it
    let mut nodes = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "struct_specifier" || n.kind() == "type_definition" {
            nodes.push(n);
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.children(&mut c).collect();
        stack.extend(kids.into_iter().rev());
    }
    nodes.sort_by_key(|n| (n.end_byte(), n.kind() == "type_definition"));
    for n in nodes {
        if n.kind() == "struct_specifier" {
            let Some(body) = n.field("body") else {
                continue;
            };
            let Some(layout) = layout_of(body, &out, &text) else {
                continue;
            };
            if let Some(name) = n.field("name") {
                out.insert(format!("struct {}", text(name)), layout);
            }
            continue;
        }
        // typedef: the type's layout under each declared name (not pointers or arrays)
        let Some(ty) = n.field("type") else { continue };
        let layout = match ty.field("body") {
            Some(body) => layout_of(body, &out, &text),
            None => out.get(&text(ty)).copied(),
        };
        let Some(layout) = layout else { continue };
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            if d.kind() == "type_identifier" {
                out.insert(text(d), layout);
            }
        }
    }
    out
}

/// The base type of each struct member name declared as a scalar (not a pointer, array or
/// struct) in the unit, kept where every declaration of that name agrees (trial 22 E10:
/// `m->nloc = n / pg->q` divides two `int`s, and was not listed as truncating because the
/// members' types were not known). Keyed by name alone: a member is looked up by the name
/// an access path ends in, whatever struct the path's root has.
fn member_types(root: Node, src: &str) -> BTreeMap<String, BaseType> {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").trim().to_string();
    let mut seen: BTreeMap<String, Option<BaseType>> = BTreeMap::new();
    for n in nodes_of_kind(root, "field_declaration") {
        let Some(ty) = n.field("type") else { continue };
        let base = c_type(&text(ty)).base;
        let mut fc = n.walk();
        for d in n.children_by_field_name("declarator", &mut fc) {
            let d = unwrap_declarator(d);
            let Some(name) = d.name.map(text) else {
                continue;
            };
            let scalar = d.pointer == 0 && d.dims.is_empty() && !d.is_function;
            let this = (scalar && base != BaseType::Other).then_some(base);
            seen.entry(name)
                .and_modify(|t| {
                    if *t != this {
                        *t = None;
                    }
                })
                .or_insert(this);
        }
    }
    seen.into_iter()
        .filter_map(|(k, t)| Some((k, t?)))
        .collect()
}

/// Every node of `kind` in the tree under `root`.
fn nodes_of_kind<'t>(root: Node<'t>, kind: &str) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
        if n.kind() == kind {
            out.push(n);
        }
    }
    out
}

/// Typedef names of struct types → the struct each names ([`crate::Program::c_typedefs`]).
fn struct_typedefs(root: Node, src: &str) -> BTreeMap<String, String> {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").trim().to_string();
    let mut out = BTreeMap::new();
    for n in nodes_of_kind(root, "type_definition") {
        let Some(ty) = n.field("type").filter(|t| t.kind() == "struct_specifier") else {
            continue;
        };
        let named = ty.field("name").map(|x| format!("struct {}", text(x)));
        let mut dc = n.walk();
        for d in n.children_by_field_name("declarator", &mut dc) {
            if d.kind() == "type_identifier" {
                let t = text(d);
                out.insert(t.clone(), named.clone().unwrap_or(t));
            }
        }
    }
    out
}

/// A struct body's (size, alignment), or None when a member's size is unknown.
fn layout_of(
    body: Node,
    known: &BTreeMap<String, (u32, u32)>,
    text: &dyn Fn(Node) -> String,
) -> Option<(u32, u32)> {
    let (mut off, mut align) = (0u32, 1u32);
    let mut c = body.walk();
    for f in body.children(&mut c) {
        if f.kind() != "field_declaration" {
            continue;
        }
        let ty = text(f.field("type")?);
        // a pointer member is 8 bytes whatever it points to (`struct node *next` in `struct
        // node` itself)
        let scalar = match c_type(&ty).bytes {
            Some(b) => Some((b, b.min(8))),
            None => known.get(&ty).copied(),
        };
        let mut fc = f.walk();
        let decls: Vec<Node> = f.children_by_field_name("declarator", &mut fc).collect();
        if decls.is_empty() {
            return None;
        }
        for d in decls {
            let d = unwrap_declarator(d);
            if d.is_function {
                return None;
            }
            let (mut size, a) = if d.pointer > 0 { (8, 8) } else { scalar? };
            for dim in &d.dims {
                let n = u32::try_from(parse_int(&text((*dim)?))?).ok()?;
                size = size.checked_mul(n)?;
            }
            off = off.div_ceil(a) * a + size;
            align = align.max(a);
        }
    }
    (off > 0).then(|| (off.div_ceil(align) * align, align))
}

fn opaque_expr(text: &str, span: Span) -> SrcExpr {
    SrcExpr::new(
        SrcExprKind::Opaque {
            text: text.chars().take(120).collect(),
            vars: Vec::new(),
        },
        span,
    )
}

fn type_of_value(e: &SrcExpr) -> VarType {
    match e.ty {
        Some(BaseType::Real) => VarType::new(BaseType::Real, Some(8), "double"),
        Some(BaseType::Integer) | None => VarType::new(BaseType::Integer, Some(4), "int"),
        Some(other) => VarType::new(other, None, "const"),
    }
}

/// Type from C type-specifier text.
pub fn c_type(text: &str) -> VarType {
    let t = text.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    let has = |w: &str| words.contains(&w);
    let (base, bytes) = if has("double") {
        (BaseType::Real, Some(if has("long") { 16 } else { 8 }))
    } else if has("float") {
        (BaseType::Real, Some(4))
    } else if has("char") {
        (BaseType::Character, Some(1))
    } else if has("_Bool") || has("bool") {
        (BaseType::Logical, Some(1))
    } else if has("short") {
        (BaseType::Integer, Some(2))
    } else if has("long") || has("size_t") || has("ptrdiff_t") || has("int64_t") || has("uint64_t")
    {
        (BaseType::Integer, Some(8))
    } else if has("int") || has("unsigned") || has("signed") || has("int32_t") || has("uint32_t") {
        (BaseType::Integer, Some(4))
    } else if t.contains("complex") {
        (BaseType::Complex, Some(16))
    } else {
        (BaseType::Other, None)
    };
    VarType::new(base, bytes, t)
}

fn binop(op: &str) -> Option<BinOp> {
    Some(match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "&&" => BinOp::And,
        "||" => BinOp::Or,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        _ => return None,
    })
}

/// A declarator unwrapped: name, pointer depth, array dims (outermost first), initialiser.
struct Declarator<'t> {
    name: Option<Node<'t>>,
    pointer: u8,
    dims: Vec<Option<Node<'t>>>,
    init: Option<Node<'t>>,
    is_function: bool,
}

fn unwrap_declarator(mut n: Node) -> Declarator {
    let mut d = Declarator {
        name: None,
        pointer: 0,
        dims: Vec::new(),
        init: None,
        is_function: false,
    };
    for _ in 0..64 {
        match n.kind() {
            "identifier" | "field_identifier" => {
                d.name = Some(n);
                break;
            }
            "init_declarator" => {
                d.init = n.field("value");
            }
            "pointer_declarator" => d.pointer = d.pointer.saturating_add(1),
            "array_declarator" => d.dims.push(n.field("size")),
            "function_declarator" => d.is_function = true,
            "parenthesized_declarator" => {}
            _ => break,
        }
        let next = n.field("declarator").or_else(|| n.named_child(0));
        match next {
            Some(c) => n = c,
            None => break,
        }
    }
    d.dims.reverse();
    d
}

impl<'a> CLower<'a> {
    /// The size of a struct this unit defines, named as a type is written (`struct name`,
    /// a typedef's name, `const` before either).
    pub(super) fn struct_bytes(&self, text: &str) -> Option<u32> {
        let name = text.trim().trim_start_matches("const ").trim();
        self.structs.get(name).map(|(size, _)| *size)
    }

    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn span(&self, n: Node) -> Span {
        let s = usize::try_from(n.start_byte() as i64 + self.shift).unwrap_or(0);
        let e = usize::try_from(n.end_byte() as i64 + self.shift).unwrap_or(0);
        self.asm.span(s, e, self.main)
    }

    fn var_type(&self, name: &str) -> Option<&VarType> {
        self.locals.get(name).or_else(|| self.globals.get(name))
    }

    /// Lowers a macro body by parsing it as an initialiser; `at` is the body's node.
    fn macro_value(&mut self, value: &str, at: Option<Node>) -> Option<SrcExpr> {
        const PREFIX: &str = "int __augur_v = (";
        // fast path for the common `#define N 100`
        if value.bytes().all(|b| b.is_ascii_digit()) {
            if let Some(v) = parse_int(value) {
                let span = at.map_or_else(|| Span::new(self.main, 0, 0), |n| self.span(n));
                return Some(SrcExpr::int(v, span));
            }
        }
        let wrapper = format!("{PREFIX}{value});");
        if self.value_parser.is_none() {
            self.value_parser = parse::parser(Grammar::C).ok();
        }
        let tree = parse::parse(self.value_parser.as_mut()?, &wrapper)?;
        if tree.root_node().has_error() {
            return None;
        }
        let decl = tree.root_node().named_child(0)?;
        let init = decl.field("declarator")?.field("value")?;
        let shift = match at {
            Some(n) => n.start_byte() as i64 + self.shift - PREFIX.len() as i64,
            None => i64::MIN / 2,
        };
        let mut sub = CLower {
            src: &wrapper,
            shift,
            asm: self.asm,
            main: self.main,
            b: &mut *self.b,
            macros: self.macros,
            defined: BTreeSet::new(),
            globals: BTreeMap::new(),
            locals: BTreeMap::new(),
            value_parser: None,
            break_targets: Vec::new(),
            substituted: BTreeSet::new(),
            case_label: self.case_label.clone(),
            expanding: Vec::new(),
            jumps: Default::default(),
            goto_exits: Vec::new(),
            goto_notes: BTreeMap::new(),
            structs: self.structs.clone(),
            members: self.members.clone(),
        };
        let mut e = sub.expr(init, 0);
        if at.is_none() {
            strip_spans(&mut e, Span::new(self.main, 0, 0));
        }
        Some(e)
    }

    /// The use of expression macro `name` at `at` with `args` (their text), expanded as the C
    /// preprocessor does and lowered; every span of the result is the use's. `None` (the use
    /// stays a call) when the expansion does not parse as an expression or calls anything
    /// but the math functions the analysis knows: a call or MPI operation hidden in a macro
    /// has no text of its own in the source for instrumentation to wrap.
    fn expand_macro(&mut self, name: &str, args: &[&str], at: Node) -> Option<SrcExpr> {
        const PREFIX: &str = "int __augur_v = (";
        if self.expanding.len() >= 16 || self.expanding.iter().any(|m| m == name) {
            return None;
        }
        let (params, body) = self.macros.expressions.get(name)?;
        if params.len() != args.len() && !(params.is_empty() && args == [""]) {
            return None;
        }
        let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
        let wrapper = format!(
            "{PREFIX}{});",
            crate::macros::expand_function(params, body, &args)
        );
        if self.value_parser.is_none() {
            self.value_parser = parse::parser(Grammar::C).ok();
        }
        let tree = parse::parse(self.value_parser.as_mut()?, &wrapper)?;
        if tree.root_node().has_error() {
            return None;
        }
        let init = tree
            .root_node()
            .named_child(0)?
            .field("declarator")?
            .field("value")?;
        let mut expanding = self.expanding.clone();
        expanding.push(name.to_string());
        let mut sub = CLower {
            src: &wrapper,
            shift: i64::MIN / 2,
            asm: self.asm,
            main: self.main,
            b: &mut *self.b,
            macros: self.macros,
            defined: BTreeSet::new(),
            globals: self.globals.clone(),
            locals: self.locals.clone(),
            value_parser: self.value_parser.take(),
            break_targets: Vec::new(),
            substituted: BTreeSet::new(),
            case_label: self.case_label.clone(),
            expanding,
            jumps: Default::default(),
            goto_exits: Vec::new(),
            goto_notes: BTreeMap::new(),
            structs: self.structs.clone(),
            members: self.members.clone(),
        };
        let mut e = sub.expr(init, 0);
        self.value_parser = sub.value_parser.take();
        let hidden_call = e.walk().iter().any(|x| match &x.kind {
            SrcExprKind::Call { name, .. } => {
                crate::intrinsics::lookup(name, crate::ir::Language::C).is_none()
            }
            _ => false,
        });
        if hidden_call {
            return None;
        }
        strip_spans(&mut e, self.span(at));
        Some(e)
    }

    fn children(n: Node) -> Vec<Node> {
        let mut c = n.walk();
        n.named_children(&mut c).collect()
    }

    fn top_level(&mut self, root: Node<'a>) {
        let mut work: Vec<Node<'a>> = Self::children(root).into_iter().rev().collect();
        while let Some(n) = work.pop() {
            match n.kind() {
                "function_definition" => self.function(n),
                "declaration" => {
                    let decls = self.declaration(n);
                    for (d, _) in decls {
                        self.push_global(d);
                    }
                }
                "preproc_def" => self.define(n),
                "preproc_ifdef" | "preproc_if" => {
                    work.extend(self.preproc_live(n).into_iter().rev());
                }
                "linkage_specification" => {
                    if let Some(body) = n.field("body") {
                        work.extend(Self::children(body).into_iter().rev());
                    }
                }
                _ => {}
            }
        }
    }

    fn is_array(&self, v: &str) -> bool {
        let proc = self.b.cur_proc;
        self.b.prog.proc(proc).is_some_and(|p| {
            p.decls
                .iter()
                .any(|d| d.name == v && matches!(d.kind, DeclKind::Array { .. }))
        }) || self
            .b
            .prog
            .globals
            .iter()
            .any(|d| d.name == v && matches!(d.kind, DeclKind::Array { .. }))
    }
}

/// Gives every span in `e` the value `span` (expressions from `-D`, which have no source).
fn strip_spans(e: &mut SrcExpr, span: Span) {
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        x.span = span;
        match &mut x.kind {
            SrcExprKind::Index { indices, .. } => stack.extend(indices.iter_mut()),
            SrcExprKind::Call { args, .. } => stack.extend(args.iter_mut()),
            SrcExprKind::Unary { operand, .. } => stack.push(operand),
            SrcExprKind::Binary { lhs, rhs, .. } => {
                stack.push(lhs);
                stack.push(rhs);
            }
            SrcExprKind::Ternary { cond, then, other } => {
                stack.push(cond);
                stack.push(then);
                stack.push(other);
            }
            SrcExprKind::Cast { expr, .. } => stack.push(expr),
            SrcExprKind::SizeOf { expr: Some(x2), .. } => stack.push(x2),
            _ => {}
        }
    }
}

mod decl;
mod expr;
mod goto;
mod loops;
mod preproc;
mod stmt;
