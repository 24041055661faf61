//! C preprocessor conditionals still in the tree (in sub-parses and where text-level
//! resolution left them): which branch is live, from the macro table.
use tree_sitter::Node;

use super::CLower;
use crate::lower::parse_int;
use crate::parse::FieldExt;

impl<'a> CLower<'a> {
    /// Which children of a preprocessor conditional are live, and its alternative.
    pub(super) fn preproc_branch(&self, n: Node) -> bool {
        match n.kind() {
            "preproc_ifdef" => {
                let name = n.field("name").map(|x| self.text(x)).unwrap_or("");
                let is_ndef = self
                    .text(n)
                    .trim_start()
                    .trim_start_matches('#')
                    .trim_start()
                    .starts_with("ifndef");
                self.defined.contains(name) != is_ndef
            }
            "preproc_if" | "preproc_elif" => {
                let cond = n.field("condition");
                cond.is_none_or(|c| self.eval_pp(c).unwrap_or(1) != 0)
            }
            _ => true,
        }
    }

    /// Evaluates a `#if` condition; `None` when unknown.
    pub(super) fn eval_pp(&self, n: Node) -> Option<i64> {
        match n.kind() {
            "number_literal" => parse_int(self.text(n)),
            "identifier" => Some(
                self.macros
                    .values
                    .get(self.text(n))
                    .and_then(|v| parse_int(v))
                    .unwrap_or(0),
            ),
            "preproc_defined" => {
                let name = n.named_child(0).map(|x| self.text(x)).unwrap_or("");
                Some(i64::from(self.defined.contains(name)))
            }
            "parenthesized_expression" => self.eval_pp(n.named_child(0)?),
            "unary_expression" => {
                let v = self.eval_pp(n.field("argument")?)?;
                let op = n.field("operator").map(|o| self.text(o)).unwrap_or("");
                Some(match op {
                    "!" => i64::from(v == 0),
                    "-" => -v,
                    _ => v,
                })
            }
            "binary_expression" => {
                let l = self.eval_pp(n.field("left")?)?;
                let r = self.eval_pp(n.field("right")?)?;
                let op = n.field("operator").map(|o| self.text(o)).unwrap_or("");
                Some(match op {
                    "&&" => i64::from(l != 0 && r != 0),
                    "||" => i64::from(l != 0 || r != 0),
                    "==" => i64::from(l == r),
                    "!=" => i64::from(l != r),
                    "<" => i64::from(l < r),
                    ">" => i64::from(l > r),
                    "<=" => i64::from(l <= r),
                    ">=" => i64::from(l >= r),
                    "+" => l.wrapping_add(r),
                    "-" => l.wrapping_sub(r),
                    "*" => l.wrapping_mul(r),
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// The live children of a preprocessor conditional.
    pub(super) fn preproc_live(&self, n: Node<'a>) -> Vec<Node<'a>> {
        let mut cur = n;
        for _ in 0..256 {
            let alt = cur.field("alternative");
            if self.preproc_branch(cur) {
                let mut c = cur.walk();
                return cur
                    .named_children(&mut c)
                    .filter(|ch| {
                        Some(ch.id()) != alt.map(|a| a.id())
                            && Some(ch.id()) != cur.field("name").map(|x| x.id())
                            && Some(ch.id()) != cur.field("condition").map(|x| x.id())
                    })
                    .collect();
            }
            match alt {
                Some(a) if a.kind() == "preproc_else" => {
                    let mut c = a.walk();
                    return a.named_children(&mut c).collect();
                }
                Some(a) => cur = a,
                None => return Vec::new(),
            }
        }
        Vec::new()
    }
}
