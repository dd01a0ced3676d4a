//! Property: splitting an SSE byte stream at any points yields the same events.

#![allow(clippy::unwrap_used)]

use kigi_model::SseParser;
use proptest::prelude::*;

fn field_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Zé{}\":,\\[\\] ]{0,20}".prop_map(|v| format!("data: {v}")),
        "[a-z_]{1,12}".prop_map(|v| format!("event: {v}")),
        "[0-9]{1,4}".prop_map(|v| format!("id: {v}")),
        "[0-9]{1,4}".prop_map(|v| format!("retry: {v}")),
        "[ -~]{0,10}".prop_map(|v| format!(":{v}")),
        Just(String::new()),
    ]
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    let ending = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    prop::collection::vec((field_line(), ending), 0..40).prop_map(|lines| {
        lines
            .into_iter()
            .flat_map(|(line, end)| format!("{line}{end}").into_bytes())
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn splitting_the_stream_anywhere_yields_the_same_events(
        bytes in stream(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let whole = SseParser::new().push(&bytes);
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut parser = SseParser::new();
        let mut split = Vec::new();
        let mut start = 0;
        for point in points.into_iter().chain([bytes.len()]) {
            split.extend(parser.push(&bytes[start..point]));
            start = point;
        }
        prop_assert_eq!(whole, split);
    }
}
