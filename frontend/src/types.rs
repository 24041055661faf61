//! Cheap value-type inference for program expressions (integer vs real division, mostly).
use crate::ir::{BaseType, BinOp};

/// Result type of `lhs op rhs` when both operand types are known.
pub fn binary_type(op: BinOp, lhs: Option<BaseType>, rhs: Option<BaseType>) -> Option<BaseType> {
    if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or | BinOp::Eqv | BinOp::Neqv) {
        return Some(BaseType::Logical);
    }
    if op == BinOp::Concat {
        return Some(BaseType::Character);
    }
    let (l, r) = (lhs?, rhs?);
    match (l, r) {
        (BaseType::Integer, BaseType::Integer) => Some(BaseType::Integer),
        (BaseType::Complex, _) | (_, BaseType::Complex) => Some(BaseType::Complex),
        (BaseType::Real, BaseType::Integer | BaseType::Real)
        | (BaseType::Integer, BaseType::Real) => Some(BaseType::Real),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_stays_integer() {
        let i = Some(BaseType::Integer);
        let r = Some(BaseType::Real);
        assert_eq!(binary_type(BinOp::Div, i, i), i);
        assert_eq!(binary_type(BinOp::Div, i, r), r);
        assert_eq!(binary_type(BinOp::Div, i, None), None);
        assert_eq!(binary_type(BinOp::Lt, None, None), Some(BaseType::Logical));
    }
}
