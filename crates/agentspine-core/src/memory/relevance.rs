//! Which indexed facts are relevant: proven by a marker against an explicit
//! scope, or by a word of the prompt. Uncertain means unopened.

use std::collections::BTreeSet;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

use crate::memory::index::{Link, Marker};

/// At most this many facts are opened per load.
pub const MAX_FACTS: usize = 8;

/// The current scope: typed ids (`person:…`, `project:…`, `group:…`,
/// `task:…`) from explicit configuration or the request, never guessed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScopeIds(pub BTreeSet<String>);

/// A scope id that is not `kind:id` with a known kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a scope id: use person:ID, project:ID, group:ID or task:ID")]
pub struct BadScopeId(pub String);

/// A scope that does not parse, and where it came from.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}: {error}")]
pub struct ScopeSourceError {
    /// The argument's name, or `$AGENTSPINE_SCOPE`.
    pub source_name: &'static str,
    /// What is wrong with it.
    pub error: BadScopeId,
}

impl ScopeIds {
    /// Parses ids separated by commas or whitespace.
    pub fn parse(text: &str) -> Result<ScopeIds, BadScopeId> {
        let mut ids = BTreeSet::new();
        for id in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()) {
            let valid = ["person:", "project:", "group:", "task:"].iter().any(|kind| {
                id.strip_prefix(kind).is_some_and(|rest| !rest.is_empty() && !rest.contains(':'))
            });
            if !valid {
                return Err(BadScopeId(id.to_owned()));
            }
            ids.insert(id.to_owned());
        }
        Ok(ScopeIds(ids))
    }

    /// The scope of a request, one precedence on every surface: the
    /// request's own argument (`(its name, its text)`), else
    /// `$AGENTSPINE_SCOPE` (`environment`),
    /// else what was stored for the project (`stored`, asked only then),
    /// else none. Nothing is guessed from file contents.
    pub fn resolve(
        argument: Option<(&'static str, &str)>,
        environment: Option<&str>,
        stored: impl FnOnce() -> Option<Vec<String>>,
    ) -> Result<ScopeIds, ScopeSourceError> {
        if let Some((name, text)) = argument {
            return ScopeIds::parse(text).map_err(|e| ScopeSourceError { source_name: name, error: e });
        }
        if let Some(text) = environment {
            return ScopeIds::parse(text)
                .map_err(|e| ScopeSourceError { source_name: "$AGENTSPINE_SCOPE", error: e });
        }
        Ok(ScopeIds(stored().unwrap_or_default().into_iter().collect()))
    }

    /// Whether the scope holds `id`.
    pub fn contains(&self, id: &str) -> bool {
        self.0.contains(id)
    }
}

/// Lower-case NFKC words, split on anything that is not alphanumeric.
pub fn words(text: &str) -> BTreeSet<String> {
    let normalized: String = text.nfkc().collect::<String>().to_lowercase();
    normalized.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// Why a link was selected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "kebab-case")]
pub enum Selected {
    /// `agentspine:always`.
    Always,
    /// A scope marker equal to a scope id.
    Scope(String),
    /// A prompt word equal to a word of the label, file stem or keywords.
    Keyword(String),
}

/// Why a link was not opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "kebab-case")]
pub enum Skipped {
    /// Its target can never be opened (absolute, `..`, scheme, …).
    PathEscape(String),
    /// Scoped to ids that are not in the current scope.
    OutOfScope,
    /// Nothing proves it relevant.
    NotRelevant,
    /// Relevant, but [`MAX_FACTS`] were already chosen.
    OverLimit,
}

/// The outcome for every link, in index order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Links to open, in the order they are opened (always, then scope,
    /// then keyword hits; index order within each).
    pub chosen: Vec<(usize, Selected)>,
    /// Links left unopened, with the reason.
    pub skipped: Vec<(usize, Skipped)>,
}

/// Decides for every link.
pub fn select(links: &[Link], scope: &ScopeIds, prompt: Option<&str>) -> Selection {
    let prompt_words = prompt.map(words).unwrap_or_default();
    let mut tiers: [Vec<(usize, Selected)>; 3] = Default::default();
    let mut skipped = Vec::new();
    for link in links {
        if let Some(reason) = link.escape {
            skipped.push((link.position, Skipped::PathEscape(reason.to_owned())));
            continue;
        }
        let scoped: Vec<&str> = link.markers.iter().filter_map(Marker::scope_id).collect();
        if link.markers.contains(&Marker::Always) {
            tiers[0].push((link.position, Selected::Always));
        } else if let Some(id) = scoped.iter().find(|id| scope.contains(id)) {
            tiers[1].push((link.position, Selected::Scope((*id).to_owned())));
        } else if !scoped.is_empty() {
            skipped.push((link.position, Skipped::OutOfScope));
        } else if let Some(word) = keyword_hit(link, &prompt_words) {
            tiers[2].push((link.position, Selected::Keyword(word)));
        } else {
            skipped.push((link.position, Skipped::NotRelevant));
        }
    }
    let mut chosen = Vec::new();
    for (position, why) in tiers.into_iter().flatten() {
        if chosen.len() < MAX_FACTS {
            chosen.push((position, why));
        } else {
            skipped.push((position, Skipped::OverLimit));
        }
    }
    skipped.sort_by_key(|(position, _)| *position);
    Selection { chosen, skipped }
}

fn keyword_hit(link: &Link, prompt: &BTreeSet<String>) -> Option<String> {
    if prompt.is_empty() {
        return None;
    }
    link_words(link).intersection(prompt).next().cloned()
}

/// The words a prompt may match to select `link`: its label's, its file
/// stem's and its `keywords=` marker's.
pub fn link_words(link: &Link) -> BTreeSet<String> {
    let mut candidates = words(&link.label);
    let stem = link.target.rsplit('/').next().unwrap_or(&link.target);
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    candidates.extend(words(stem));
    for marker in &link.markers {
        if let Marker::Keywords(list) = marker {
            for k in list {
                candidates.extend(words(k));
            }
        }
    }
    candidates
}

/// Whether any scope or prompt can ever select `link`: a marker, or a
/// word of its label, file stem or keywords (an unsafe target never).
pub fn selectable(link: &Link) -> bool {
    link.escape.is_none() && (!link.markers.is_empty() || !link_words(link).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::index::parse;

    fn scope(s: &str) -> ScopeIds {
        ScopeIds::parse(s).unwrap()
    }

    #[test]
    fn words_are_nfkc_lowercase_alphanumeric() {
        let w: Vec<String> = words("Ｃarbonara, PASTA!  ﬁne").into_iter().collect();
        assert_eq!(w, vec!["carbonara", "fine", "pasta"]);
    }

    #[test]
    fn scope_ids_are_typed() {
        assert!(ScopeIds::parse("project:blun, person:owner task:x").is_ok());
        assert_eq!(ScopeIds::parse("blun").unwrap_err().0, "blun");
        assert!(ScopeIds::parse("team:x").is_err());
        assert!(ScopeIds::parse("project:").is_err());
    }

    #[test]
    fn selects_by_tier_then_index_order_and_caps_at_eight() {
        let mut text = String::from("- [kw](a.md) <!-- agentspine:keywords=pasta -->\n");
        text.push_str("- [scoped](b.md) <!-- agentspine:project=project:blun -->\n");
        text.push_str("- [style](c.md) <!-- agentspine:always -->\n");
        text.push_str("- [other](d.md) <!-- agentspine:project=project:other keywords=pasta -->\n");
        text.push_str("- [plain](e.md)\n- [esc](../x.md) <!-- agentspine:always -->\n");
        let index = parse(&text);
        let sel = select(&index.links, &scope("project:blun"), Some("I want pasta"));
        assert_eq!(
            sel.chosen,
            vec![
                (2, Selected::Always),
                (1, Selected::Scope("project:blun".into())),
                (0, Selected::Keyword("pasta".into()))
            ]
        );
        assert_eq!(
            sel.skipped,
            vec![
                (3, Skipped::OutOfScope),
                (4, Skipped::NotRelevant),
                (5, Skipped::PathEscape("`..` component".into()))
            ]
        );
        let many: String =
            (0..12).map(|i| format!("- [f{i}](f{i}.md) <!-- agentspine:always -->\n")).collect();
        let sel = select(&parse(&many).links, &ScopeIds::default(), None);
        assert_eq!(sel.chosen.len(), MAX_FACTS);
        assert_eq!(sel.skipped.iter().filter(|(_, s)| *s == Skipped::OverLimit).count(), 4);
    }

    #[test]
    fn label_and_file_stem_match_prompt_words() {
        let index = parse("- [Carbonara preference](food/pasta.md)\n");
        assert!(select(&index.links, &ScopeIds::default(), Some("carbonara?")).chosen.len() == 1);
        assert!(select(&index.links, &ScopeIds::default(), Some("PASTA")).chosen.len() == 1);
        assert!(select(&index.links, &ScopeIds::default(), Some("pizza")).chosen.is_empty());
        assert!(select(&index.links, &ScopeIds::default(), None).chosen.is_empty());
    }
}
