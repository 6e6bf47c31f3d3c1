//! The desktop rule (ADR 0037) and `generic`, agentspine's own rules: no
//! hooks (a desktop app loads agentspine through `agentspine serve`).

use crate::host::Host;
use crate::hosts::profile::{CheckFacts, NO_CHECKS, Profile};

/// A desktop app.
pub const PROFILE: Profile = Profile {
    host: Host::Desktop,
    name: "desktop",
    binds_as: Host::Desktop,
    display: "a desktop app (ADR 0037)",
    home: super::home,
    variables: &[],
    profile_inputs: |env| vec![("desktop_home", super::home(env))],
    project_dir: None,
    evidence_names: &[],
    configurable_names: false,
    checked_by_default: true,
    chosen_by_evidence: false,
    memory_facts: false,
    hooks: None,
    check: CheckFacts {
        // agentspine's own rules: nothing there follows a link.
        follows_links: false,
        stops_at_link_loop: false,
        stops_at_unreadable: false,
        never_read_why: |_| None,
        checks: NO_CHECKS,
    },
    rules: rules(true),
    version_probe: None,
    install: None,
};

/// Project files only, by the desktop rule, with no profile.
pub const GENERIC: Profile = Profile {
    host: Host::Generic,
    name: "generic",
    binds_as: Host::Generic,
    display: "the generic rule",
    home: |_| None,
    variables: &[],
    profile_inputs: |_| Vec::new(),
    checked_by_default: false,
    rules: rules(false),
    ..PROFILE
};

/// The desktop rule, with the global file or (`generic`) without.
const fn rules(with_global: bool) -> crate::hosts::Rules {
    crate::hosts::Rules {
        resolve: if with_global { resolve_with_global } else { resolve_project_only },
        bind: crate::hosts::bind_by_git,
        render: |r| super::render(&r.parts),
        names: |_, _, _| {
            ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md", ".claude"].map(str::to_owned).to_vec()
        },
    }
}

fn resolve_with_global(
    ask: &crate::hosts::Ask<'_>,
    gather: &mut crate::gather::Gather,
    _: &mut Vec<crate::resolution::Warning>,
) -> Result<crate::locate::Located, crate::error::ResolveError> {
    let located = crate::hosts::bind_by_git(ask)?;
    super::resolve(ask.env, &located, true, gather);
    Ok(located)
}

fn resolve_project_only(
    ask: &crate::hosts::Ask<'_>,
    gather: &mut crate::gather::Gather,
    _: &mut Vec<crate::resolution::Warning>,
) -> Result<crate::locate::Located, crate::error::ResolveError> {
    let located = crate::hosts::bind_by_git(ask)?;
    super::resolve(ask.env, &located, false, gather);
    Ok(located)
}
