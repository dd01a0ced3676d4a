//! What of a long page a model is shown: the whole page when it fits; otherwise, with a
//! `prompt`, the sections (split at Markdown headings) that mention its words most, in page
//! order; without one, the page's beginning. Either way a closing line says what was left out.
//!
//! The rule: the model always learns that something was left out and how much.

/// The part of `markdown` shown, at most about `limit` characters.
pub fn focus(markdown: &str, prompt: Option<&str>, limit: usize) -> String {
    let total = markdown.chars().count();
    if total <= limit {
        return markdown.to_owned();
    }
    let words = prompt.map(prompt_words).unwrap_or_default();
    if words.is_empty() {
        let head: String = markdown.chars().take(limit).collect();
        let cut = head
            .rfind('\n')
            .filter(|&i| i > head.len() / 2)
            .unwrap_or(head.len());
        return format!(
            "{}\n\n[… the page goes on for {} more characters; give a prompt naming what you look for to see the sections about it …]",
            &head[..cut],
            total - head[..cut].chars().count()
        );
    }
    let sections = sections(markdown);
    let mut ranked: Vec<(usize, usize)> = sections
        .iter()
        .enumerate()
        .map(|(index, section)| (index, score(section, &words)))
        .filter(|&(_, score)| score > 0)
        .collect();
    // Most mentions first; among equals, the earlier section.
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut chosen = Vec::new();
    let mut used = 0;
    for (index, _) in ranked {
        let size = sections[index].chars().count();
        if used + size > limit {
            continue;
        }
        used += size;
        chosen.push(index);
    }
    if chosen.is_empty() {
        // Nothing matched that fits: the beginning, so the model still sees the page.
        return focus(markdown, None, limit);
    }
    chosen.sort_unstable();
    let mut out = String::with_capacity(used + 200);
    let mut next = 0;
    for index in &chosen {
        if *index > next {
            out.push_str(&format!("[… {} sections left out …]\n\n", index - next));
        }
        out.push_str(sections[*index].trim_end());
        out.push_str("\n\n");
        next = index + 1;
    }
    if next < sections.len() {
        out.push_str(&format!(
            "[… {} sections left out …]\n\n",
            sections.len() - next
        ));
    }
    out.push_str(&format!(
        "[{} of {} sections shown: those mentioning \"{}\"; the page has {total} characters]",
        chosen.len(),
        sections.len(),
        prompt.unwrap_or_default().trim()
    ));
    out
}

/// The prompt's words worth matching: lowercased, three letters or more, common question
/// words left out (they would match every section).
fn prompt_words(prompt: &str) -> Vec<String> {
    const COMMON: &[&str] = &[
        "the", "and", "for", "how", "what", "with", "this", "that", "are", "was", "does", "from",
        "about", "page", "which", "when", "where", "who", "why", "can", "you", "all", "any",
    ];
    let mut words: Vec<String> = prompt
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|word| !COMMON.contains(&word.as_str()))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// The page split before each heading line (a section too long to show whole is split at
/// blank lines, so one huge section cannot crowd out the rest).
fn sections(markdown: &str) -> Vec<String> {
    const PART: usize = 4_000;
    let mut sections: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        let heading = !in_fence && line.starts_with('#');
        let too_long = line.is_empty() && !in_fence && current.len() > PART;
        if (heading || too_long) && !current.trim().is_empty() {
            sections.push(std::mem::take(&mut current));
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        sections.push(current);
    }
    sections
}

/// How often `section` mentions the words (each word's count, summed).
fn score(section: &str, words: &[String]) -> usize {
    let lower = section.to_lowercase();
    words
        .iter()
        .map(|word| lower.matches(word.as_str()).count())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> String {
        let filler = "Lorem ipsum dolor sit amet. ".repeat(40);
        format!(
            "# Intro\n{filler}\n\n## Install\n{filler}\n\n## Proxy settings\nSet HTTPS_PROXY for the proxy.\n\n## Licence\n{filler}\n"
        )
    }

    #[test]
    fn a_page_that_fits_is_shown_whole() {
        assert_eq!(focus("# A\ntext", Some("anything"), 100), "# A\ntext");
    }

    #[test]
    fn with_a_prompt_the_matching_sections_are_shown_and_the_rest_is_counted() {
        let shown = focus(&page(), Some("How do I set the proxy?"), 1_500);
        assert!(
            shown.contains("## Proxy settings\nSet HTTPS_PROXY"),
            "{shown}"
        );
        assert!(!shown.contains("## Install"), "{shown}");
        assert!(shown.starts_with("[… 2 sections left out …]"), "{shown}");
        assert!(shown.contains("[… 1 sections left out …]"), "{shown}");
        assert!(
            shown.ends_with("\"How do I set the proxy?\"; the page has 3445 characters]"),
            "{shown}"
        );
    }

    #[test]
    fn without_a_prompt_the_beginning_is_shown_with_what_remains() {
        let shown = focus(&page(), None, 1_500);
        assert!(shown.starts_with("# Intro\n"), "{shown}");
        assert!(shown.contains("more characters; give a prompt"), "{shown}");
        assert!(!shown.contains("Proxy"), "{shown}");
    }
}
