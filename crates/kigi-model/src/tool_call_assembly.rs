//! Tool calls arrive in fragments: an id and name first, then the argument JSON in pieces,
//! several calls interleaved by index. This collects them and hands back whole calls in index
//! order.

use std::collections::BTreeMap;

use kigi_protocol::ToolCall;

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Collects fragments of the tool calls of one response.
#[derive(Debug, Default)]
pub(crate) struct ToolCallAssembly {
    calls: BTreeMap<u64, PartialCall>,
}

impl ToolCallAssembly {
    /// Adds a fragment of call `index`. Ids and names are taken when they first appear
    /// (some servers repeat them on every fragment); arguments are appended.
    pub fn push(&mut self, index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) {
        let call = self.calls.entry(index).or_default();
        if let Some(id) = id.filter(|id| !id.is_empty())
            && call.id.is_empty()
        {
            call.id = id.to_owned();
        }
        if let Some(name) = name.filter(|name| !name.is_empty())
            && call.name.is_empty()
        {
            call.name = name.to_owned();
        }
        call.arguments.push_str(arguments);
    }

    /// Replaces call `index`'s arguments with the final text (Responses' `done` events).
    pub fn set_arguments(&mut self, index: u64, arguments: &str) {
        self.calls.entry(index).or_default().arguments = arguments.to_owned();
    }

    /// Removes and returns call `index`, complete.
    pub fn take(&mut self, index: u64) -> Option<ToolCall> {
        self.calls.remove(&index).map(|call| finish(index, call))
    }

    /// Removes and returns every call, in index order.
    pub fn drain(&mut self) -> Vec<ToolCall> {
        std::mem::take(&mut self.calls)
            .into_iter()
            .map(|(index, call)| finish(index, call))
            .collect()
    }
}

/// A call with no id gets one derived from its index; empty arguments become `{}`, which is
/// what a tool with no parameters receives.
fn finish(index: u64, call: PartialCall) -> ToolCall {
    ToolCall {
        id: if call.id.is_empty() {
            format!("call_{index}")
        } else {
            call.id
        },
        name: call.name,
        arguments: if call.arguments.trim().is_empty() {
            "{}".to_owned()
        } else {
            call.arguments
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_fragments_assemble_in_index_order() {
        let mut assembly = ToolCallAssembly::default();
        assembly.push(1, Some("b"), Some("grep"), "{\"pat");
        assembly.push(0, Some("a"), Some("read_file"), "{\"path\":");
        assembly.push(1, Some("b"), None, "tern\":\"x\"}");
        assembly.push(0, None, None, "\"README.md\"}");
        assembly.push(2, None, Some("list_dir"), "");
        let calls = assembly.drain();
        assert_eq!(
            calls,
            vec![
                ToolCall {
                    id: "a".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\":\"README.md\"}".into()
                },
                ToolCall {
                    id: "b".into(),
                    name: "grep".into(),
                    arguments: "{\"pattern\":\"x\"}".into()
                },
                ToolCall {
                    id: "call_2".into(),
                    name: "list_dir".into(),
                    arguments: "{}".into()
                },
            ]
        );
    }
}
