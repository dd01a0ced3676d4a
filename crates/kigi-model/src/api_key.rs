//! An API key that cannot leak by accident: it has no `Display`, its `Debug` is redacted, and
//! the only way to read it is [`ApiKey::expose`], called where the header is written. It
//! remembers the environment variable it was read from, so a refused key can be named by
//! where it lives, never by its value.

/// A secret credential.
#[derive(Clone)]
pub struct ApiKey {
    key: String,
    /// The environment variable the key was read from, if it came from one.
    variable: Option<String>,
}

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            variable: None,
        }
    }

    /// A key read from the environment variable `variable`.
    pub fn from_variable(key: impl Into<String>, variable: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            variable: Some(variable.into()),
        }
    }

    /// The key itself, for the request header and nothing else.
    pub fn expose(&self) -> &str {
        &self.key
    }

    /// The environment variable the key came from, if known.
    pub fn variable(&self) -> Option<&str> {
        self.variable.as_deref()
    }
}

/// Two keys are equal when their values are, wherever they were read from.
impl PartialEq for ApiKey {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for ApiKey {}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.variable {
            Some(variable) => write!(f, "ApiKey(<redacted> from ${variable})"),
            None => f.write_str("ApiKey(<redacted>)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_hides_the_key() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(key.expose(), "sk-secret-123");
        let named = ApiKey::from_variable("sk-secret-123", "KIGI_API_KEY");
        assert_eq!(
            format!("{named:?}"),
            "ApiKey(<redacted> from $KIGI_API_KEY)"
        );
        assert_eq!(named.variable(), Some("KIGI_API_KEY"));
        assert_eq!(named, key);
    }
}
