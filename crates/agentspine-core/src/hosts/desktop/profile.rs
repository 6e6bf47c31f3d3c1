//! The desktop rule (ADR 0037) and `generic`, agentspine's own rules: no
//! hooks (a desktop app loads agentspine through `agentspine serve`).

use crate::env::Environment;
use crate::host::Host;
use crate::hosts::profile::{CheckFacts, NO_CHECKS, Profile};

/// A desktop app.
pub const PROFILE: Profile = Profile {
    host: Host::Desktop,
    name: "desktop",
    binds_as: Host::Desktop,
    display: "a desktop app (ADR 0037)",
    home: Environment::desktop_home,
    profile_inputs: |env| vec![("desktop_home", env.desktop_home())],
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
    profile_inputs: |_| Vec::new(),
    checked_by_default: false,
    ..PROFILE
};
