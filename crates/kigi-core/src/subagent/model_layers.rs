//! Which model a child runs on, and which layer said so: spawn-time override, then its
//! role, then its persona, then `[subagents.models]` for its type, then the type definition's
//! `model:` (when it names a configured alias), then the parent's model. The answer records
//! its layer so `kigi` can show why a child ran where it did.

/// Where the choice came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    SpawnOverride,
    Role,
    Persona,
    SubagentsModels,
    Definition,
    Parent,
}

impl ModelSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SpawnOverride => "spawn-time override",
            Self::Role => "role",
            Self::Persona => "persona",
            Self::SubagentsModels => "[subagents.models]",
            Self::Definition => "agent definition",
            Self::Parent => "parent",
        }
    }
}

/// The pick: an alias to resolve, or the parent's model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelPick {
    /// `None`: the parent's client.
    pub alias: Option<String>,
    pub source: ModelSource,
}

/// The model each layer names, highest first.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelLayers<'a> {
    pub spawn: Option<&'a str>,
    pub role: Option<&'a str>,
    pub persona: Option<&'a str>,
    pub routed: Option<&'a str>,
    pub definition: Option<&'a str>,
}

/// Picks the first layer that names a model.
pub fn pick_model(layers: ModelLayers<'_>) -> ModelPick {
    let ordered = [
        (layers.spawn, ModelSource::SpawnOverride),
        (layers.role, ModelSource::Role),
        (layers.persona, ModelSource::Persona),
        (layers.routed, ModelSource::SubagentsModels),
        (layers.definition, ModelSource::Definition),
    ];
    ordered
        .into_iter()
        .find_map(|(alias, source)| {
            alias
                .filter(|a| !a.trim().is_empty())
                .map(|alias| ModelPick {
                    alias: Some(alias.to_owned()),
                    source,
                })
        })
        .unwrap_or(ModelPick {
            alias: None,
            source: ModelSource::Parent,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_layer_wins_over_the_ones_below() {
        let mut layers = ModelLayers {
            spawn: Some("s"),
            role: Some("r"),
            persona: Some("p"),
            routed: Some("m"),
            definition: Some("d"),
        };
        let mut seen = Vec::new();
        loop {
            let pick = pick_model(layers);
            seen.push((pick.alias.clone(), pick.source));
            match pick.source {
                ModelSource::SpawnOverride => layers.spawn = None,
                ModelSource::Role => layers.role = None,
                ModelSource::Persona => layers.persona = None,
                ModelSource::SubagentsModels => layers.routed = None,
                ModelSource::Definition => layers.definition = None,
                ModelSource::Parent => break,
            }
        }
        let sources: Vec<ModelSource> = seen.iter().map(|(_, s)| *s).collect();
        assert_eq!(
            sources,
            [
                ModelSource::SpawnOverride,
                ModelSource::Role,
                ModelSource::Persona,
                ModelSource::SubagentsModels,
                ModelSource::Definition,
                ModelSource::Parent
            ]
        );
        assert_eq!(seen[1].0.as_deref(), Some("r"));
        assert_eq!(seen[5].0, None);
    }
}
