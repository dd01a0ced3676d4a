//! Which model a child runs on, and which layer said so: spawn-time override, then
//! `[subagents.models]` for its type, then the type definition's `model:` (when it names a
//! configured alias), then the parent's model. The answer records its layer so `kigi` can
//! show why a child ran where it did.

/// Where the choice came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    SpawnOverride,
    SubagentsModels,
    Definition,
    Parent,
}

impl ModelSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SpawnOverride => "spawn-time override",
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

/// Picks the first layer that names a model.
pub fn pick_model(
    spawn: Option<&str>,
    routed: Option<&str>,
    definition: Option<&str>,
) -> ModelPick {
    let layers = [
        (spawn, ModelSource::SpawnOverride),
        (routed, ModelSource::SubagentsModels),
        (definition, ModelSource::Definition),
    ];
    layers
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
        let pick = |s, r, d| pick_model(s, r, d);
        assert_eq!(
            pick(Some("a"), Some("b"), Some("c")).source,
            ModelSource::SpawnOverride
        );
        assert_eq!(pick(None, Some("b"), Some("c")).alias.as_deref(), Some("b"));
        assert_eq!(pick(None, None, Some("c")).source, ModelSource::Definition);
        assert_eq!(
            pick(None, None, None),
            ModelPick {
                alias: None,
                source: ModelSource::Parent
            }
        );
    }
}
