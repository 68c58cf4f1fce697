//! The one pattern language of lockstep's name patterns (suppressions,
//! `--atomic` transactions): `*` matches any run of characters, everything
//! else itself, and the whole name must match.

/// Does `text` match `pattern`?
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::glob_matches;

    #[test]
    fn globs_match_whole_names_with_stars_anywhere() {
        assert!(glob_matches("p.Bank.transfer", "p.Bank.transfer"));
        assert!(!glob_matches("p.Bank.transfer", "p.Bank.transferAll"));
        assert!(glob_matches("p.Bank.*", "p.Bank.transfer"));
        assert!(glob_matches("*.transfer", "p.Bank.transfer"));
        assert!(glob_matches("p.*.get*", "p.Map.getOrAdd"));
        assert!(!glob_matches("p.*.get*", "q.Map.getOrAdd"));
        assert!(glob_matches("*", "anything"));
        assert!(!glob_matches("a*a", "a"));
    }
}
