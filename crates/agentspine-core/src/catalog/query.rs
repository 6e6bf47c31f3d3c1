//! Knowledge query: ranks passages of the same catalog with BM25.
//!
//! Why our own BM25 rather than a search crate: the corpus is one small,
//! bounded catalog built for this request (at most a few hundred passages),
//! so an index structure would cost more to build than to scan; BM25 with
//! the usual constants (k1 = 1.2, b = 0.75) over the same normalized words
//! the memory relevance uses (NFKC, lower case, alphanumeric runs) is a
//! few dozen lines, deterministic, and needs no dependency. Passages are
//! runs of lines separated by blank lines, at most 20 lines each.

use std::collections::HashMap;

use serde::Serialize;

use crate::catalog::{Briefing, Catalog, briefing};
use crate::memory::relevance::words;

/// Lines in one passage, at most.
pub const PASSAGE_LINES: usize = 20;
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// One ranked passage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// The source it comes from.
    pub source_id: String,
    /// Its path label.
    pub rel_path: String,
    /// First line (1-based).
    pub line_start: usize,
    /// Last line (1-based, inclusive).
    pub line_end: usize,
    /// BM25 score.
    pub score: f64,
    /// The passage text.
    pub excerpt: String,
}

/// The answer to a query: hits, and the briefing of the same catalog.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryAnswer {
    /// The query.
    pub query: String,
    /// Best first; ties in catalog order.
    pub hits: Vec<Hit>,
    /// The briefing built from the same catalog.
    pub briefing: Briefing,
}

struct Passage {
    source: usize,
    start: usize,
    end: usize,
    text: String,
    terms: HashMap<String, usize>,
    len: usize,
}

fn passages(catalog: &Catalog) -> Vec<Passage> {
    let mut out = Vec::new();
    for (index, source) in catalog.sources.iter().enumerate() {
        let mut current: Vec<(usize, &str)> = Vec::new();
        let flush = |current: &mut Vec<(usize, &str)>, out: &mut Vec<Passage>| {
            if current.is_empty() {
                return;
            }
            let text = current.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n");
            let mut terms = HashMap::new();
            let mut len = 0;
            for word in split_words(&text) {
                *terms.entry(word).or_insert(0) += 1;
                len += 1;
            }
            out.push(Passage {
                source: index,
                start: current[0].0,
                end: current[current.len() - 1].0,
                text,
                terms,
                len,
            });
            current.clear();
        };
        for (n, line) in source.text.lines().enumerate() {
            if line.trim().is_empty() || current.len() == PASSAGE_LINES {
                flush(&mut current, &mut out);
                if line.trim().is_empty() {
                    continue;
                }
            }
            current.push((n + 1, line));
        }
        flush(&mut current, &mut out);
    }
    out
}

/// Every normalized word of `text`, repeats kept (for term counts).
fn split_words(text: &str) -> Vec<String> {
    use unicode_normalization::UnicodeNormalization;
    let normalized: String = text.nfkc().collect::<String>().to_lowercase();
    normalized.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// Ranks the catalog's passages for `text`; at most `k` hits (passages that
/// share no word with the query are never hits).
pub fn query(catalog: &Catalog, text: &str, k: usize, budget: usize) -> QueryAnswer {
    let all = passages(catalog);
    let n = all.len() as f64;
    let avg = if all.is_empty() { 0.0 } else { all.iter().map(|p| p.len).sum::<usize>() as f64 / n };
    let terms = words(text);
    let mut scored: Vec<(f64, usize)> = Vec::new();
    for (i, p) in all.iter().enumerate() {
        let mut score = 0.0;
        for term in &terms {
            let Some(&tf) = p.terms.get(term) else { continue };
            let df = all.iter().filter(|q| q.terms.contains_key(term)).count() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            let tf = tf as f64;
            score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * p.len as f64 / avg.max(1.0)));
        }
        if score > 0.0 {
            scored.push((score, i));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let hits = scored
        .into_iter()
        .take(k)
        .map(|(score, i)| {
            let p = &all[i];
            let source = &catalog.sources[p.source];
            Hit {
                source_id: source.source_id.clone(),
                rel_path: source.rel_path.clone(),
                line_start: p.start,
                line_end: p.end,
                score: (score * 1000.0).round() / 1000.0,
                excerpt: p.text.clone(),
            }
        })
        .collect();
    QueryAnswer { query: text.to_owned(), hits, briefing: briefing(catalog, budget) }
}
