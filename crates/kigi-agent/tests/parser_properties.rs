//! Property tests: the frontmatter parser (and its line-by-line recovery) never panics on
//! arbitrary input, and a valid file survives any line-ending style.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use kigi_agent::{AgentDefinition, NamePolicy, ParseOptions};
use proptest::prelude::*;

fn lenient() -> ParseOptions {
    ParseOptions {
        name_policy: NamePolicy::Derive,
        ..ParseOptions::default()
    }
}

/// Text built from the pieces frontmatter is made of, so the parser's deep paths are reached.
fn frontmatter_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_owned()),
        Just("name: a\n".to_owned()),
        Just("description: x: y\n".to_owned()),
        Just("tools: [read_file\n".to_owned()),
        Just("tools:\n  - Read\n".to_owned()),
        Just("  read: false\n".to_owned()),
        Just("bash:\n  timeoutSecs: -1\n".to_owned()),
        Just("completionRequirement:\n  tool: x\n".to_owned()),
        Just("user: \"hi\"\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("${{ tools.x }}${% if %}".to_owned()),
        "[^\n]{0,12}\n",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn parser_never_panics_on_arbitrary_text(text in any::<String>()) {
        let _ = AgentDefinition::parse(&text, None);
        let _ = AgentDefinition::parse_with(&text, None, lenient());
    }

    #[test]
    fn parser_never_panics_on_frontmatter_shaped_text(text in frontmatter_like()) {
        let _ = AgentDefinition::parse(&text, None);
        let _ = AgentDefinition::parse_with(&text, None, lenient());
    }

    #[test]
    fn line_endings_do_not_change_the_definition(
        name in "[a-z][a-z0-9]{0,10}",
        description in "[A-Za-z][A-Za-z ]{0,29}",
        body in "[A-Za-z .]{0,40}",
    ) {
        let lf = format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n");
        let crlf = lf.replace('\n', "\r\n");
        let a = AgentDefinition::parse(&lf, None).unwrap();
        let b = AgentDefinition::parse(&format!("\u{feff}{crlf}"), None).unwrap();
        prop_assert_eq!(a, b);
    }
}
