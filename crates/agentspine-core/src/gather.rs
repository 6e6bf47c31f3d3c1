//! Collecting parts and probe verdicts while a host's rules run.

use crate::chain::NotRead;
use crate::resolution::{Cut, Part, Probe, Scope, Verdict};

/// Parts and probes in the order they were found.
#[derive(Debug, Default)]
pub(crate) struct Gather {
    pub(crate) parts: Vec<Part>,
    pub(crate) probes: Vec<Probe>,
    /// Whether the resolution explains itself (`resolve --explain`): host
    /// rules then also look at candidates they pass over without reading
    /// (one stat each), to say why.
    pub(crate) explain: bool,
}

impl Gather {
    /// Records a candidate that did not make it into the chain (with the
    /// file it links to, when it is a link inside its root).
    pub(crate) fn probe(&mut self, path: impl Into<String>, scope: Scope, outcome: impl Into<NotRead>) {
        let NotRead { verdict, link } = outcome.into();
        self.probes.push(Probe {
            path: path.into(),
            scope,
            verdict,
            host_differs: None,
            link,
            imported_by: None,
            imported_at: None,
        });
    }

    /// Records a candidate with a note on what the host itself would do.
    pub(crate) fn probe_differs(
        &mut self,
        path: impl Into<String>,
        scope: Scope,
        outcome: impl Into<NotRead>,
        note: String,
    ) {
        self.probe(path, scope, outcome);
        if let Some(probe) = self.probes.last_mut() {
            probe.host_differs = Some(note);
        }
    }

    /// Adds a part (and its `included` probe, which names the file a
    /// link led to).
    pub(crate) fn include(&mut self, part: Part) {
        self.probe(
            part.label.clone(),
            part.scope,
            NotRead { verdict: Verdict::Included, link: part.link.clone() },
        );
        self.parts.push(part);
    }

    /// Sets the verdict of the latest probe for `label`.
    pub(crate) fn set_verdict(&mut self, label: &str, verdict: Verdict) {
        if let Some(probe) = self.probes.iter_mut().rev().find(|p| p.path == label) {
            probe.verdict = verdict;
        }
    }
}

impl Gather {
    /// Spends a cap of `cap` content bytes from the last part back to the
    /// first: the closest parts (the ones that take precedence) are kept
    /// whole, the part that crosses the cap keeps its beginning
    /// (`cut_text`), and the parts before it (nearest the root, and the
    /// global file) are left out; verdicts follow.
    pub(crate) fn spend_cap_from_end(&mut self, cap: usize, cut_text: impl Fn(&str, usize) -> String) {
        let mut spent = 0usize;
        let mut kept = Vec::with_capacity(self.parts.len());
        for mut part in std::mem::take(&mut self.parts).into_iter().rev() {
            let room = cap - spent;
            if room == 0 {
                self.set_verdict(&part.label, Verdict::BudgetSpent);
                continue;
            }
            if part.text.len() > room {
                let total = part.text.len() as u64;
                part.text = cut_text(&part.text, room);
                let cut = Cut { kept: part.text.len() as u64, total };
                self.set_verdict(&part.label, Verdict::Truncated { kept: cut.kept, total });
                part.cut = Some(cut);
                spent = cap;
                kept.push(part);
                continue;
            }
            spent += part.text.len();
            kept.push(part);
        }
        kept.reverse();
        self.parts = kept;
    }
}
