//! Argument schemas, generated from the argument types so the schema and the parser cannot
//! disagree. They are trimmed to what a model needs: every character here is sent with every
//! request.

use schemars::JsonSchema;
use serde_json::Value;

/// The JSON Schema of `T` as a model-facing parameters object.
pub fn parameters_of<T: JsonSchema>() -> Value {
    let mut settings = schemars::generate::SchemaSettings::draft07();
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or(Value::Null);
    strip(&mut value);
    value
}

/// Drops what models do not need: `$schema`, `title`, integer `format`s and the `minimum: 0`
/// of unsigned types, `default: null`, and the `null` in `["string", "null"]` (a parameter's
/// absence from `required` already says it is optional).
fn strip(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("$schema");
            map.remove("title");
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            if let Some(Value::Array(types)) = map.get("type") {
                let named: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if named.len() == 1 {
                    map.insert("type".into(), named[0].clone());
                }
            }
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint") || f.starts_with("int") || f == "double")
            {
                map.remove("format");
                if map.get("minimum") == Some(&Value::from(0)) {
                    map.remove("minimum");
                }
            }
            for child in map.values_mut() {
                strip(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}
