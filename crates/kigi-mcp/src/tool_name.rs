//! The model-facing name of an MCP tool: `mcp__<server>__<tool>`, in the characters every
//! provider accepts (`[A-Za-z0-9_-]`) and at most 64 of them.
//!
//! The rule: a name is a pure function of the server and tool names (and, for collisions, of
//! the other names offered with it); a long or colliding name gets a short hash of the original
//! names, which is stable across runs and versions (FNV-1a, not `std`'s hasher), so distinct
//! tools keep distinct names and a transcript's names still resolve after a restart.

/// Providers' limit on a tool name.
pub const MAX_TOOL_NAME_LEN: usize = 64;

const PREFIX: &str = "mcp__";
const SEPARATOR: &str = "__";
/// `_` and eight hex digits.
const HASH_SUFFIX_LEN: usize = 9;

/// `text` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn sanitize_name_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `mcp__<server>__<tool>`, sanitised; when longer than 64 characters, cut and suffixed with a
/// hash of the original names.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    let name = format!(
        "{PREFIX}{}{SEPARATOR}{}",
        sanitize_name_part(server),
        sanitize_name_part(tool)
    );
    if name.len() <= MAX_TOOL_NAME_LEN {
        name
    } else {
        with_hash(&name, server, tool)
    }
}

/// Names for every `(server, tool)` offered together: [`mcp_tool_name`], except that names two
/// different tools would share (`a.b` and `a_b` both sanitise to `a_b`) each get the hash.
pub fn unique_tool_names(tools: &[(&str, &str)]) -> Vec<String> {
    let names: Vec<String> = tools
        .iter()
        .map(|(server, tool)| mcp_tool_name(server, tool))
        .collect();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let (server, tool) = tools[i];
            let collides = names
                .iter()
                .zip(tools)
                .any(|(other, &(s, t))| other == name && (s, t) != (server, tool));
            if collides {
                with_hash(name, server, tool)
            } else {
                name.clone()
            }
        })
        .collect()
}

fn with_hash(name: &str, server: &str, tool: &str) -> String {
    let keep = name.len().min(MAX_TOOL_NAME_LEN - HASH_SUFFIX_LEN);
    // `name` is ASCII (sanitised), so any byte index is a character boundary.
    let mut out = name[..keep].to_owned();
    out.push('_');
    out.push_str(&format!("{:08x}", fnv1a(server, tool) as u32));
    out
}

/// FNV-1a over `server`, a NUL, and `tool` (the NUL keeps `("ab","c")` and `("a","bc")` apart).
fn fnv1a(server: &str, tool: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in server.bytes().chain([0]).chain(tool.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn joins_server_and_tool_with_double_underscores() {
        assert_eq!(
            mcp_tool_name("everything", "get-sum"),
            "mcp__everything__get-sum"
        );
    }

    #[test]
    fn replaces_characters_providers_refuse() {
        assert_eq!(
            mcp_tool_name("my server", "files/read.v2"),
            "mcp__my_server__files_read_v2"
        );
        assert_eq!(mcp_tool_name("ünï", "a:b"), "mcp___n___a_b");
    }

    #[test]
    fn long_names_are_cut_to_64_with_a_stable_hash() {
        let tool = "a_really_long_tool_name_that_goes_on_and_on_past_the_provider_limit";
        let name = mcp_tool_name("server", tool);
        assert_eq!(name.len(), MAX_TOOL_NAME_LEN);
        assert!(name.starts_with("mcp__server__a_really_long_tool_name"));
        // Stable across runs and versions: a transcript written today still resolves.
        assert_eq!(name, mcp_tool_name("server", tool));
        assert_eq!(&name[55..], "_5f60edd9");
    }

    #[test]
    fn distinct_long_names_with_a_common_prefix_stay_distinct() {
        let base = "x".repeat(70);
        let a = mcp_tool_name("s", &format!("{base}_alpha"));
        let b = mcp_tool_name("s", &format!("{base}_beta"));
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(b.len(), 64);
    }

    #[test]
    fn names_that_sanitise_alike_are_told_apart_by_hash() {
        let names = unique_tool_names(&[
            ("s", "a.b"),
            ("s", "a_b"),
            ("s", "c"),
            ("t.x", "c"),
            ("t_x", "c"),
        ]);
        assert_eq!(names[2], "mcp__s__c", "no collision, no hash");
        assert_ne!(names[0], names[1]);
        assert_ne!(names[3], names[4]);
        assert!(names[0].starts_with("mcp__s__a_b_") && names[0].len() == "mcp__s__a_b".len() + 9);
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
    }

    proptest! {
        #[test]
        fn every_name_fits_providers(server in ".{0,80}", tool in ".{0,80}") {
            let name = mcp_tool_name(&server, &tool);
            prop_assert!(name.len() <= MAX_TOOL_NAME_LEN);
            prop_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
            prop_assert!(name.starts_with("mcp__"));
        }

        #[test]
        fn distinct_tools_get_distinct_names(
            tools in proptest::collection::btree_set(("[a-c._]{1,3}", "[a-c._ ]{1,70}"), 1..8)
        ) {
            let pairs: Vec<(&str, &str)> = tools.iter().map(|(s, t)| (s.as_str(), t.as_str())).collect();
            let names = unique_tool_names(&pairs);
            let unique: std::collections::BTreeSet<_> = names.iter().collect();
            prop_assert_eq!(unique.len(), names.len());
        }
    }
}
