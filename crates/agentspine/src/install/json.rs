//! A JSON value that keeps the order of object keys as the file has them
//! (`serde_json::Value` sorts them unless the whole build turns on
//! `preserve_order`, which would reorder every other JSON surface).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// One JSON value; objects keep their key order.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json holds it.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, in document order.
    Object(Object),
}

/// A JSON object in document order.
pub type Object = IndexMap<String, Json>;

impl Json {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The member `key`, if this is an object holding it.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// A string value.
    pub fn str(text: &str) -> Json {
        Json::String(text.to_owned())
    }

    /// An object from pairs, in this order.
    pub fn object<const N: usize>(pairs: [(&str, Json); N]) -> Json {
        Json::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }
}
