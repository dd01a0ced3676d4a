//! A web page as Markdown for a model: `htmd` (turndown's rules over html5ever) with scripts,
//! styles and other invisible parts left out.
//!
//! The rule: outside input never crashes kigi. The converter walks the tree recursively, so it
//! runs on its own thread with a large stack, and a page nested deeper than any real one is
//! reduced to its text instead.

/// Elements whose content a reader never sees.
const INVISIBLE: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "head",
];
/// Nesting beyond this (as estimated from the tags) is not walked as a tree.
const MAX_NESTING: usize = 5_000;
/// The converter's thread stack: room for [`MAX_NESTING`] levels with a wide margin.
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// `html` as Markdown, converted off the async threads.
pub async fn html_to_markdown(html: String) -> String {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("kigi-html".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            let _ = tx.send(convert(&html));
        });
    match spawned {
        Ok(_) => rx.await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// `html` as Markdown (its text alone when nested too deep to walk).
pub fn convert(html: &str) -> String {
    if nesting_estimate(html) > MAX_NESTING {
        return strip_tags(html);
    }
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(INVISIBLE.to_vec())
        .build();
    let markdown = converter.convert(html).unwrap_or_else(|_| strip_tags(html));
    collapse_blank_lines(&markdown)
}

/// The page's `<title>`, when it has one.
pub fn title(html: &str) -> Option<String> {
    let lower = html.get(..html.len().min(64 * 1024))?.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let text = decode_entities(html.get(start..end)?.trim());
    (!text.is_empty()).then_some(text)
}

/// The deepest nesting the tags suggest: every start tag opens, every end tag closes (void and
/// self-closed elements do neither). Unclosed `<p>` and `<li>` make it an over-estimate.
fn nesting_estimate(html: &str) -> usize {
    const VOID: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr",
    ];
    let (mut depth, mut deepest) = (0usize, 0usize);
    let bytes = html.as_bytes();
    for (at, _) in html.match_indices('<') {
        let rest = &bytes[at + 1..];
        match rest.first() {
            Some(b'/') => depth = depth.saturating_sub(1),
            Some(c) if c.is_ascii_alphabetic() => {
                let name: String = rest
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .map(|c| char::from(c.to_ascii_lowercase()))
                    .collect();
                let tag_end = rest.iter().position(|&c| c == b'>').unwrap_or(rest.len());
                let self_closed = tag_end > 0 && rest[tag_end - 1] == b'/';
                if !VOID.contains(&name.as_str()) && !self_closed {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
            }
            _ => {}
        }
    }
    deepest
}

/// The text between the tags, with invisible elements' content dropped.
fn strip_tags(html: &str) -> String {
    let mut text = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let after = &rest[open..];
        let lower: String = after
            .chars()
            .skip(1)
            .take(10)
            .collect::<String>()
            .to_ascii_lowercase();
        let skipped = INVISIBLE.iter().find(|tag| {
            lower.starts_with(*tag)
                && !lower[tag.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        });
        let end = match skipped {
            Some(tag) => find_ascii_case_insensitive(after, &format!("</{tag}"))
                .and_then(|close| after[close..].find('>').map(|gt| close + gt + 1)),
            None => after.find('>').map(|gt| gt + 1),
        };
        match end {
            Some(end) => {
                text.push(' ');
                rest = &after[end..];
            }
            None => {
                rest = "";
            }
        }
    }
    text.push_str(rest);
    let decoded = decode_entities(&text);
    let lines: Vec<String> = decoded
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    collapse_blank_lines(&lines.join("\n"))
}

fn find_ascii_case_insensitive(haystack: &str, needle: &str) -> Option<usize> {
    let needle = needle.as_bytes();
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
}

/// The few entities a title or a stripped page commonly carries.
fn decode_entities(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// At most one blank line in a row, none at the ends.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_lists_links_and_code_become_markdown_and_scripts_vanish() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
            <h1>Release notes</h1><p>Read the <a href="/docs">docs</a>.</p>
            <script>alert("x")</script><ul><li>one</li><li>two</li></ul>
            <pre><code>cargo test</code></pre></body></html>"#;
        let markdown = convert(html);
        assert!(markdown.starts_with("# Release notes"), "{markdown}");
        assert!(markdown.contains("[docs](/docs)"), "{markdown}");
        assert!(
            markdown.contains("one") && markdown.contains("two"),
            "{markdown}"
        );
        assert!(markdown.contains("```\ncargo test\n```"), "{markdown}");
        assert!(
            !markdown.contains("alert") && !markdown.contains("p{}"),
            "{markdown}"
        );
    }

    #[test]
    fn a_page_nested_deeper_than_any_real_one_is_reduced_to_its_text() {
        let depth = MAX_NESTING + 10;
        let html = format!(
            "{}deep text<script>hidden()</script>{}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        assert!(nesting_estimate(&html) > MAX_NESTING);
        assert_eq!(convert(&html), "deep text");
    }

    #[test]
    fn void_and_closed_elements_do_not_deepen_the_estimate() {
        assert_eq!(
            nesting_estimate("<p>a<br>b<img src=x/></p><p>c</p><div><span>d</span></div>"),
            2
        );
    }

    #[test]
    fn the_title_is_read_and_decoded() {
        assert_eq!(
            title("<html><head><TITLE> Fish &amp; Chips </TITLE></head></html>").as_deref(),
            Some("Fish & Chips")
        );
        assert_eq!(title("<p>no title</p>"), None);
    }
}
