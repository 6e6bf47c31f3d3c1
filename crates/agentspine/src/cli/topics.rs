//! `agentspine help TOPIC`: the concepts a newcomer meets in the output,
//! each in a few lines, with where to read more. Answered before the
//! parser, so clap's own `help COMMAND` keeps working for commands.

/// Every topic: its name and its text.
pub const TOPICS: &[(&str, &str)] = &[
    (
        "scope-ids",
        "Scope ids are the typed ids of the work at hand: person:ID, project:ID, group:ID, task:ID.
They decide which memory facts are relevant (a fact marked project=project:blun loads only
when project:blun is in scope). agentspine never guesses them from file contents.

Where they come from, first match wins: --scope on the command, $AGENTSPINE_SCOPE, the
project's stored scope (`agentspine scope set project:blun person:owner`).

Not the same as install's --settings user|project, which says which settings file to edit.
More: https://github.com/agentspine/agentspine/blob/main/docs/memory.md",
    ),
    (
        "markers",
        "A marker is an HTML comment after a link in MEMORY.md that proves the linked fact relevant:

  - [Carbonara preference](pasta.md) <!-- agentspine:keywords=carbonara,pasta -->

Keys: always; project=, group=, entity=, task= (equal to an id in scope); keywords=a,b (a
word of the prompt). Without a marker a fact is opened only when a prompt word equals a
word of its label or file name. Uncertain means unopened; at most 8 facts are opened.
See it: `agentspine memory --memory-dir DIR --prompt TEXT`.
More: https://github.com/agentspine/agentspine/blob/main/docs/memory.md#markers",
    ),
    (
        "bindings",
        "A binding lets every project read the accepted portable records (preference, no-go,
correction, reference, person-relationship) of one project where you keep them. Nothing
is copied; a binding is context only, never identity, permission, delegation or trust.

  agentspine source-bind ~/src/blog --all-hosts --project . --host-home ~/.claude \\
      --confirm-local-binding
  agentspine bindings                 every binding: id, project, hosts, state, counts
  agentspine source-rollback binding:ID --confirm-local-binding
  agentspine source-purge binding:ID --confirm-local-binding

A project's own accepted records are context in that project without any binding: every
kind but secrets, trust material, execution grants, delegation policy and jobs, which are
never context anywhere.
More: https://github.com/agentspine/agentspine/blob/main/docs/continuity.md",
    ),
    (
        "source-ids",
        "A source id (src_ and 24 hex digits) names one file or record a catalog holds: a keyed
digest of its root, path and scope, never the path itself. Briefings, queries and the MCP
tools print them; `agentspine read ID` reads one again, whole.

read looks for the id in its own request's catalog, then for every other host, then with
project-wide Markdown, and says which flags held it. A memory fact that a prompt made
relevant needs the same --prompt (and --scope).
More: https://github.com/agentspine/agentspine/blob/main/docs/briefing.md",
    ),
];

/// The text of `topic`, if it is one.
pub fn text(topic: &str) -> Option<&'static str> {
    TOPICS.iter().find(|(name, _)| *name == topic).map(|(_, text)| *text)
}

/// The line `--help` ends with.
pub fn listing() -> String {
    let names: Vec<&str> = TOPICS.iter().map(|(name, _)| *name).collect();
    format!(
        "Concepts: agentspine help {}. Reference, a page per subject (flags and error codes: cli.md): \
         https://github.com/agentspine/agentspine/tree/main/docs",
        names.join(" | ")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_topic_is_in_the_docs_list() {
        let doc = include_str!("../../../../docs/cli.md");
        for (name, _) in super::TOPICS {
            assert!(doc.contains(&format!("`agentspine help {name}`")), "{name}");
        }
        assert_eq!(super::TOPICS.len(), 4);
    }
}
