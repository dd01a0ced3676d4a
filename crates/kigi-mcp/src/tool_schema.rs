//! An MCP tool's `inputSchema`, as the model is shown it.
//!
//! The rule: the server's schema goes through as written, except what strict providers refuse
//! at the root of a tool's parameters: the root is `type: "object"` with a `properties`
//! object, `required` is a list of names, and `$schema` / `$id` (metadata no provider reads,
//! and some reject) are dropped. Nested schemas, descriptions, `$defs` and every other keyword
//! are kept.

use serde_json::{Map, Value};

/// The parameters schema for the model, from the server's `inputSchema`.
pub fn provider_schema(input_schema: &Value) -> Value {
    let mut schema = match input_schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    schema.remove("$schema");
    schema.remove("$id");
    let is_object = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        _ => false,
    };
    if !is_object {
        schema.insert("type".into(), Value::String("object".into()));
    }
    if !matches!(schema.get("properties"), Some(Value::Object(_))) {
        schema.insert("properties".into(), Value::Object(Map::new()));
    }
    if let Some(required) = schema.remove("required")
        && let Value::Array(items) = required
    {
        let names: Vec<Value> = items.into_iter().filter(Value::is_string).collect();
        if !names.is_empty() {
            schema.insert("required".into(), Value::Array(names));
        }
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_well_formed_schema_passes_through_without_meta_keywords() {
        let written = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"message": {"type": "string", "description": "Message to echo"}},
            "required": ["message"],
            "additionalProperties": false,
            "$defs": {"x": {"type": "number"}}
        });
        assert_eq!(
            provider_schema(&written),
            json!({
                "type": "object",
                "properties": {"message": {"type": "string", "description": "Message to echo"}},
                "required": ["message"],
                "additionalProperties": false,
                "$defs": {"x": {"type": "number"}}
            })
        );
    }

    #[test]
    fn an_empty_schema_becomes_an_object_without_properties() {
        assert_eq!(
            provider_schema(&json!({})),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            provider_schema(&Value::Null),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn a_missing_type_or_properties_is_filled_in() {
        assert_eq!(
            provider_schema(&json!({"properties": {"a": {}}})),
            json!({"type": "object", "properties": {"a": {}}})
        );
        assert_eq!(
            provider_schema(&json!({"type": ["object", "null"], "properties": []})),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn required_keeps_only_names() {
        assert_eq!(
            provider_schema(&json!({"type": "object", "properties": {}, "required": ["a", 3]})),
            json!({"type": "object", "properties": {}, "required": ["a"]})
        );
        assert_eq!(
            provider_schema(&json!({"type": "object", "properties": {}, "required": true})),
            json!({"type": "object", "properties": {}})
        );
    }
}
