//! Which version of a host the user runs, against the versions its profile
//! was verified on ([`super::profile::VERIFIED`]). Hosts change what they
//! load between releases (Claude Code began reading `AGENTS.md` in
//! 2.1.277), so `doctor` asks the installed host (the front end runs the
//! program; this judges its answer).

use serde::Serialize;

use super::profile::Profile;

/// How the version found compares with the verified ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VersionCheck {
    /// One of the verified versions.
    Verified,
    /// Newer than every verified version.
    Newer,
    /// Older than every verified version.
    Older,
    /// Between verified versions, but none of them.
    Between,
    /// The answer holds no version.
    Unreadable,
}

/// What the installed host said, judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostVersion {
    /// The version found in the host's answer.
    pub found: Option<String>,
    /// The versions agentspine was verified on.
    pub verified: Vec<&'static str>,
    /// How they compare.
    pub check: VersionCheck,
}

/// The first `N.N.N` (or `N.N`) in `output`, as numbers.
fn version_in(output: &str) -> Option<(String, Vec<u64>)> {
    output
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|word| word.trim_matches('.'))
        .filter(|word| word.split('.').count() >= 2)
        .find_map(|word| {
            let numbers: Option<Vec<u64>> = word.split('.').map(|n| n.parse().ok()).collect();
            numbers.map(|n| (word.to_owned(), n))
        })
}

/// Judges a host's answer to its version probe.
pub fn judge(profile: &Profile, output: &str) -> HostVersion {
    let verified: Vec<&'static str> = profile.verified().collect();
    let Some((found, numbers)) = version_in(output) else {
        return HostVersion { found: None, verified, check: VersionCheck::Unreadable };
    };
    let known: Vec<Vec<u64>> = verified.iter().filter_map(|v| version_in(v).map(|(_, n)| n)).collect();
    let check = if known.contains(&numbers) {
        VersionCheck::Verified
    } else if known.iter().all(|k| numbers > *k) {
        VersionCheck::Newer
    } else if known.iter().all(|k| numbers < *k) {
        VersionCheck::Older
    } else {
        VersionCheck::Between
    };
    HostVersion { found: Some(found), verified, check }
}

impl HostVersion {
    /// What it means for the user, in a sentence.
    pub fn meaning(&self, profile: &Profile) -> String {
        let name = profile.display;
        let verified = self.verified.join(", ");
        let found = self.found.as_deref().unwrap_or("?");
        match self.check {
            VersionCheck::Verified => {
                format!("{name} {found}: the version agentspine's rules for it were measured on")
            }
            VersionCheck::Newer => format!(
                "{name} {found} is newer than the version agentspine was verified on ({verified}): hosts change \
                 what they load between releases, so agentspine may add a file {name} now reads itself, or miss \
                 one it stopped reading; `agentspine check --host {host}` shows what agentspine assumes",
                host = profile.host
            ),
            VersionCheck::Older => format!(
                "{name} {found} is older than the version agentspine was verified on ({verified}): it may load \
                 less than agentspine assumes it does (files agentspine leaves to it could be missing); \
                 upgrading {name} is the safe choice"
            ),
            VersionCheck::Between => format!(
                "{name} {found} is not one of the versions agentspine was verified on ({verified}): what it \
                 loads may differ from what agentspine assumes"
            ),
            VersionCheck::Unreadable => format!(
                "{name} answered without a version agentspine can read; agentspine assumes {verified}"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Host;

    #[test]
    fn each_host_s_own_answer_is_read_and_compared() {
        let claude = Host::Claude.profile();
        let verified: String = claude.verified().collect();
        let same = judge(claude, &format!("{verified} (Claude Code)\n"));
        assert_eq!((same.found.as_deref(), same.check), (Some(verified.as_str()), VersionCheck::Verified));
        assert_eq!(judge(claude, "99.0.0 (Claude Code)").check, VersionCheck::Newer);
        assert_eq!(judge(claude, "2.1.276 (Claude Code)").check, VersionCheck::Older);
        assert_eq!(judge(claude, "Claude Code").check, VersionCheck::Unreadable);
        let codex: String = Host::Codex.profile().verified().collect();
        assert_eq!(judge(Host::Codex.profile(), &format!("codex-cli {codex}")).check, VersionCheck::Verified);
        // Numbers compare as numbers, not text.
        assert_eq!(judge(Host::Codex.profile(), "codex-cli 0.1000.0").check, VersionCheck::Newer);
        assert!(judge(claude, "99.0.0").meaning(claude).contains("newer than the version"));
    }
}
