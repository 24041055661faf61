//! Storage the Fortran IR does not show as shared: `EQUIVALENCE` groups and `use` renames
//! (`use m, only: l => v`), read from the source text for the write analysis ([`crate::writes`]).
use crate::writes::Names;

/// Fortran statements of `text` (free or fixed form) starting with `keyword`, continuation
/// lines joined, lower-cased, without the keyword.
fn statements(text: &str, keyword: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(line) = lines.get(k) {
        k += 1;
        let fixed_body = line.get(6..).filter(|_| {
            line.get(..6)
                .is_some_and(|h| h.chars().all(|c| c == ' ' || c.is_ascii_digit()))
        });
        let body = fixed_body.unwrap_or(line).trim().to_ascii_lowercase();
        let Some(rest) = body.strip_prefix(keyword) else {
            continue;
        };
        if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut stmt = rest.trim_end_matches('&').to_string();
        let mut open = body.ends_with('&');
        while let Some(next) = lines.get(k) {
            // free form `&` at the end, or fixed form column-6 continuation
            let fixed = next.len() > 6
                && next.get(..5).is_some_and(|h| h.trim().is_empty())
                && next.get(5..6).is_some_and(|c| c != " " && c != "0");
            if !open && !fixed {
                break;
            }
            let cont = if fixed && !open {
                next.get(6..).unwrap_or("")
            } else {
                next.trim_start().trim_start_matches('&')
            };
            let cont = cont
                .split('!')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            open = cont.ends_with('&');
            stmt.push(' ');
            stmt.push_str(cont.trim_end_matches('&'));
            k += 1;
        }
        out.push(stmt.split('!').next().unwrap_or("").to_string());
    }
    out
}

/// The root name of a Fortran data reference (`a` for `a(3)`, `t` for `t%u`).
fn ref_root(item: &str) -> Option<String> {
    let name: String = item
        .trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

/// Alias groups of a Fortran source text: each `EQUIVALENCE` group, and each rename of a
/// `use` (read from the text: the front end keeps neither).
pub fn fortran_aliases(text: &str) -> Vec<Names> {
    let mut out = Vec::new();
    for stmt in statements(text, "equivalence") {
        // top-level groups `(a, b(1)), (c, d)`: split each at depth-1 commas
        let mut depth = 0u32;
        let mut item = String::new();
        let mut group = Names::new();
        for c in stmt.chars() {
            match c {
                '(' => {
                    depth += 1;
                    if depth > 1 {
                        item.push(c);
                    }
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        group.extend(ref_root(&item));
                        item.clear();
                        if group.len() > 1 {
                            out.push(std::mem::take(&mut group));
                        }
                        group.clear();
                    } else {
                        item.push(c);
                    }
                }
                ',' if depth == 1 => {
                    group.extend(ref_root(&item));
                    item.clear();
                }
                _ if depth >= 1 => item.push(c),
                _ => {}
            }
        }
    }
    for stmt in statements(text, "use") {
        for part in stmt.split([',', ':']) {
            if let Some((local, used)) = part.split_once("=>") {
                let group: Names = [ref_root(local), ref_root(used)]
                    .into_iter()
                    .flatten()
                    .collect();
                if group.len() > 1 {
                    out.push(group);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fortran_aliases;

    #[test]
    fn equivalence_groups_and_use_renames() {
        let text = "      program p\n      equivalence (a(1), b), (c, d(2,3))\n\
                    \x20     use grid, only: loc => field, n\n\
                    \x20     equivalence (e, f,\n     &  g)\n      end\n";
        let groups: Vec<Vec<String>> = fortran_aliases(text)
            .into_iter()
            .map(|g| g.into_iter().collect())
            .collect();
        assert_eq!(
            groups,
            [
                vec!["a", "b"],
                vec!["c", "d"],
                vec!["e", "f", "g"],
                vec!["field", "loc"]
            ]
        );
    }
}
