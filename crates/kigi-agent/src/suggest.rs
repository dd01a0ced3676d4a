//! "Did you mean": the nearest valid spelling of a mistyped value (`acceptEdit` →
//! `acceptEdits`, `Reed` → `Read`), by edit distance, ignoring case.
//!
//! The rule: a suggestion is offered only when it is close (at most a third of the written
//! word's length in edits, and at least one allowed); a far guess is worse than none.

/// The Levenshtein distance between `a` and `b`, by characters, ignoring ASCII case.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    // One row of the table at a time: `row[j]` is the distance from a[..i] to b[..j].
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The candidate closest to `written`, when close enough; the first of equals wins.
pub(crate) fn nearest<'a>(
    written: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = written.chars().count().div_ceil(3).max(1);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(written, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// `"; did you mean `x`?"`, or nothing when no candidate is close.
pub(crate) fn did_you_mean<'a>(
    written: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    nearest(written, candidates)
        .map(|candidate| format!("; did you mean `{candidate}`?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("acceptEdit", "acceptEdits"), 1);
        assert_eq!(edit_distance("Reed", "read"), 1);
        assert_eq!(edit_distance("ACCEPTEDITS", "acceptEdits"), 0);
    }

    #[test]
    fn the_nearest_close_candidate_is_suggested_and_a_far_one_is_not() {
        let modes = [
            "default",
            "acceptEdits",
            "dontAsk",
            "plan",
            "bypassPermissions",
        ];
        assert_eq!(nearest("acceptEdit", modes), Some("acceptEdits"));
        assert_eq!(nearest("bypass", modes), None);
        assert_eq!(nearest("plna", modes), Some("plan"));
        assert_eq!(nearest("zzzzzzz", modes), None);
        assert_eq!(did_you_mean("dontask", modes), "; did you mean `dontAsk`?");
        assert_eq!(did_you_mean("nothing-like", modes), "");
    }
}
