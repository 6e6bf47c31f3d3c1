//! Finding the catalog a source id came from. An id is an opaque keyed
//! digest of a root, a path and a scope: it names one file but not the
//! request that listed it. An id printed by a briefing for another host,
//! or by a query with project-wide Markdown, is in a catalog the same
//! project builds under other settings; this tries those settings, in a
//! fixed order, and says which one held it, or every one it tried.
//!
//! What it never tries: a prompt, scope or target other than the
//! request's (a memory fact made relevant by a prompt's words stays
//! unread without those words), and roots other than the request's.

use crate::catalog::{Catalog, CatalogRequest, ContinuityItem};
use crate::error::ResolveError;
use crate::host::Host;
use crate::resolver::Resolver;

/// One setting of the request under which a catalog was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Whose rules.
    pub host: Host,
    /// Whether project-wide Markdown was added.
    pub markdown: bool,
}

impl Variant {
    /// The command-line flags that build this catalog, e.g.
    /// `--host claude --markdown`.
    pub fn flags(&self) -> String {
        format!("--host {}{}", self.host, if self.markdown { " --markdown" } else { "" })
    }
}

/// Where an id was found.
#[derive(Debug)]
pub enum Lookup {
    /// In this catalog, built under `variant`.
    Found {
        /// The catalog holding the id.
        catalog: Box<Catalog>,
        /// The settings it was built under.
        variant: Variant,
    },
    /// In none of the catalogs tried, in the order tried.
    Missing {
        /// Every variant tried.
        tried: Vec<Variant>,
    },
}

/// The variants tried for a request under `host` with `markdown`: that
/// one first; then every other host as asked; then, if it was off,
/// project-wide Markdown under the asked host once (a document's id does
/// not depend on the host, so once is enough).
pub fn variants(host: Host, markdown: bool) -> Vec<Variant> {
    let mut out = vec![Variant { host, markdown }];
    out.extend(Host::ALL.iter().filter(|h| **h != host).map(|&host| Variant { host, markdown }));
    if !markdown {
        out.push(Variant { host, markdown: true });
    }
    out
}

impl Resolver<'_> {
    /// The catalog of `request`, or of the first variant of it (see
    /// [`variants`]) that holds `source_id`. `continuity` gives the records
    /// read through bindings for a host (they differ per host).
    pub fn catalog_holding(
        &self,
        request: &CatalogRequest,
        source_id: &str,
        continuity: &dyn Fn(Host) -> Vec<ContinuityItem>,
    ) -> Result<Lookup, ResolveError> {
        let mut tried = Vec::new();
        for variant in variants(request.host, request.markdown) {
            let asked = variant.host == request.host;
            let built = CatalogRequest {
                host: variant.host,
                markdown: variant.markdown,
                continuity: if asked { request.continuity.clone() } else { continuity(variant.host) },
                ..request.clone()
            };
            let catalog = self.catalog(&built)?;
            tried.push(variant);
            if catalog.source(source_id).is_some() {
                return Ok(Lookup::Found { catalog: Box::new(catalog), variant });
            }
        }
        Ok(Lookup::Missing { tried })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_asked_variant_comes_first_and_markdown_is_tried_once() {
        let v = variants(Host::Generic, false);
        assert_eq!(v[0], Variant { host: Host::Generic, markdown: false });
        assert_eq!(v.len(), Host::ALL.len() + 1);
        assert_eq!(v.iter().filter(|v| v.markdown).count(), 1);
        assert_eq!(v.last().map(Variant::flags).as_deref(), Some("--host generic --markdown"));
        assert_eq!(variants(Host::Claude, true).len(), Host::ALL.len());
    }
}
