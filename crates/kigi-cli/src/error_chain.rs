//! How a failure is printed: the error and its causes on one line, each cause said once.
//! Library errors often end their message with their source's text and also return that
//! source as their cause (`path: File exists (os error 17)` over `File exists (os error
//! 17)`), so `{:#}` would say it twice.
//!
//! The rule: a cause is left out only when the text before it already contains it.

/// `error` and its causes joined with `: `, each cause left out when already said.
pub fn render(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let said = cause.to_string();
        if said.is_empty() || text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{path}: {source}")]
    struct Create {
        path: String,
        source: std::io::Error,
    }

    #[test]
    fn a_cause_the_message_already_says_is_not_repeated() {
        let io = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
        let error = anyhow::Error::new(Create {
            path: "/x/foo.md".into(),
            source: io,
        });
        assert_eq!(
            format!("{error:#}"),
            "/x/foo.md: entity already exists: entity already exists"
        );
        assert_eq!(render(&error), "/x/foo.md: entity already exists");
    }

    #[test]
    fn context_and_new_causes_are_kept() {
        let error = anyhow::Error::new(std::io::Error::other("disk full"))
            .context("--items-file items.txt");
        assert_eq!(render(&error), "--items-file items.txt: disk full");
    }
}
