//! `paramNameOverrides`: the model sees renamed parameters; execution gets canonical ones.
//! Two pure functions, one for each direction.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The schema with properties (and `required` entries) renamed canonical → model-facing.
pub fn rename_schema(schema: &Value, names: &BTreeMap<String, String>) -> Value {
    if names.is_empty() {
        return schema.clone();
    }
    let mut schema = schema.clone();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        let renamed: Map<String, Value> = std::mem::take(properties)
            .into_iter()
            .map(|(key, value)| (names.get(&key).cloned().unwrap_or(key), value))
            .collect();
        *properties = renamed;
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        for entry in required.iter_mut() {
            if let Some(name) = entry.as_str().and_then(|key| names.get(key)) {
                *entry = Value::String(name.clone());
            }
        }
    }
    schema
}

/// The arguments with keys renamed model-facing → canonical.
pub fn canonical_arguments(arguments: Value, names: &BTreeMap<String, String>) -> Value {
    match arguments {
        Value::Object(map) if !names.is_empty() => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let canonical = names
                        .iter()
                        .find(|(_, model)| **model == key)
                        .map_or(key, |(canonical, _)| canonical.clone());
                    (canonical, value)
                })
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renames_round_trip() {
        let names = BTreeMap::from([("path".to_owned(), "file_path".to_owned())]);
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}, "limit": {}}, "required": ["path"]});
        let renamed = rename_schema(&schema, &names);
        assert_eq!(renamed["properties"]["file_path"]["type"], "string");
        assert!(renamed["properties"].get("path").is_none());
        assert_eq!(renamed["required"], json!(["file_path"]));
        let args = canonical_arguments(json!({"file_path": "a", "limit": 3}), &names);
        assert_eq!(args, json!({"path": "a", "limit": 3}));
    }
}
