//! Small lexical scans over original source text: skipping C trivia, finding the end of a C
//! statement, a keyword, or an MPI call's name and parenthesis. Byte offsets throughout; every
//! scan is bounded by the text and never panics.

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Skips C whitespace and comments from `pos`.
pub fn skip_c_trivia(text: &str, mut pos: usize) -> usize {
    let b = text.as_bytes();
    loop {
        while pos < b.len() && b[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if b.get(pos..pos + 2) == Some(b"/*") {
            pos = text
                .get(pos + 2..)
                .and_then(|t| t.find("*/"))
                .map_or(b.len(), |i| pos + 2 + i + 2);
        } else if b.get(pos..pos + 2) == Some(b"//") {
            pos = text
                .get(pos..)
                .and_then(|t| t.find('\n'))
                .map_or(b.len(), |i| pos + i + 1);
        } else {
            return pos;
        }
    }
}

/// Skips C trivia and closing parentheses (the end of an `if`/`while` header).
pub fn skip_c_trivia_parens(text: &str, mut pos: usize) -> usize {
    loop {
        pos = skip_c_trivia(text, pos);
        if text.as_bytes().get(pos) == Some(&b')') {
            pos += 1;
        } else {
            return pos;
        }
    }
}

/// The end of a C statement whose span ends at `end`: past a following `;` when the span
/// stops before it (declarators, expression statements whose span is the expression).
pub fn c_stmt_end(text: &str, end: usize) -> usize {
    let before = text.get(..end).unwrap_or("").trim_end();
    if before.ends_with(';') || before.ends_with('}') {
        return end;
    }
    let next = skip_c_trivia(text, end);
    if text.as_bytes().get(next) == Some(&b';') {
        next + 1
    } else {
        end
    }
}

/// A C statement label at `pos` (after trivia): its name and the offset past its `:`.
pub fn c_label_at(text: &str, pos: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    let start = skip_c_trivia(text, pos);
    let mut end = start;
    while end < b.len() && is_ident(b[end]) {
        end += 1;
    }
    let name = text.get(start..end)?;
    if name.is_empty() || b[start].is_ascii_digit() || matches!(name, "default" | "case") {
        return None;
    }
    let colon = skip_c_trivia(text, end);
    (b.get(colon) == Some(&b':') && b.get(colon + 1) != Some(&b':')).then_some((name, colon + 1))
}

/// Offset of the first C identifier token `kw` at or after `from` (comments, strings and
/// character literals skipped), before `limit`.
pub fn c_find_keyword(text: &str, from: usize, limit: usize, kw: &str) -> Option<usize> {
    let b = text.as_bytes();
    let limit = limit.min(b.len());
    let mut pos = from;
    while pos < limit {
        pos = skip_c_trivia(text, pos);
        if pos >= limit {
            break;
        }
        let c = b[pos];
        if c == b'"' || c == b'\'' {
            pos += 1;
            while pos < limit && b[pos] != c {
                pos += if b[pos] == b'\\' { 2 } else { 1 };
            }
            pos += 1;
        } else if is_ident(c) {
            let start = pos;
            while pos < limit && is_ident(b[pos]) {
                pos += 1;
            }
            if &text[start..pos] == kw {
                return Some(start);
            }
        } else {
            pos += 1;
        }
    }
    None
}

/// In `text[start..end]`, the call of `name` (exact, or ASCII case-insensitive): the offset
/// of the name and of its opening parenthesis. The name must stand as a whole word.
pub fn find_call(
    text: &str,
    start: usize,
    end: usize,
    name: &str,
    ci: bool,
) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let end = end.min(b.len());
    let n = name.len();
    let mut pos = start;
    while pos + n <= end {
        let cand = b.get(pos..pos + n)?;
        let same = if ci {
            cand.eq_ignore_ascii_case(name.as_bytes())
        } else {
            cand == name.as_bytes()
        };
        let left_ok = pos == 0 || !is_ident(b[pos - 1]);
        let right_ok = b.get(pos + n).is_none_or(|c| !is_ident(*c));
        if same && left_ok && right_ok {
            let mut p = pos + n;
            while p < end && (b[p] == b' ' || b[p] == b'\t') {
                p += 1;
            }
            if b.get(p) == Some(&b'(') {
                return Some((pos, p));
            }
        }
        pos += 1;
    }
    None
}

/// The first non-blank byte after `pos` within the same line, if any (`)` of `MPI_Finalize()`).
pub fn next_non_blank(text: &str, pos: usize) -> Option<u8> {
    text.as_bytes()
        .get(pos..)?
        .iter()
        .copied()
        .find(|c| !c.is_ascii_whitespace())
}

/// Every run of decimal digits in `text`, as numbers (to choose labels nobody uses).
pub fn numbers(text: &str) -> std::collections::BTreeSet<u64> {
    let mut out = std::collections::BTreeSet::new();
    let mut cur: Option<u64> = None;
    for b in text.bytes() {
        if b.is_ascii_digit() {
            cur = Some(
                cur.unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(u64::from(b - b'0')),
            );
        } else if let Some(v) = cur.take() {
            out.insert(v);
        }
    }
    out.extend(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trivia_and_statement_end() {
        let t = "for (i = 0; i < n; i++) /* c */ // d\n  { x; }";
        assert_eq!(&t[skip_c_trivia(t, 23)..], "{ x; }");
        let d = "int rc = f(x) ;";
        assert_eq!(c_stmt_end(d, 13), 15);
        assert_eq!(c_stmt_end("x = 1;", 6), 6);
        assert_eq!(skip_c_trivia_parens("(a))  {", 2), 6);
    }

    #[test]
    fn keyword_skips_comments_and_strings() {
        let t = "} /* else */ \"else\" x_else else {";
        assert_eq!(c_find_keyword(t, 0, t.len(), "else"), Some(27));
        assert_eq!(c_find_keyword(t, 0, 20, "else"), None);
    }

    #[test]
    fn calls_are_whole_words() {
        let t = "ierr = XMPI_Send(1); ierr = MPI_Send (a, 1)";
        assert_eq!(find_call(t, 0, t.len(), "MPI_Send", false), Some((28, 37)));
        assert_eq!(
            find_call("CALL mpi_send(a)", 0, 16, "MPI_SEND", true),
            Some((5, 13))
        );
        assert_eq!(
            find_call("CALL mpi_send(a)", 0, 16, "MPI_SEND", false),
            None
        );
    }

    #[test]
    fn numbers_in_text() {
        let n = numbers("10 continue\n  do 99999 i=1,2");
        assert!(n.contains(&10) && n.contains(&99999) && n.contains(&1) && n.contains(&2));
    }
}
