//! Reading what SQLite can still read from a damaged database file.
//!
//! The bundled SQLite has no recovery extension (`sqlite3_recover` needs
//! `SQLITE_ENABLE_DBPAGE_VTAB` and sources rusqlite does not ship), so the
//! salvage is a row-by-row copy through SQLite itself, which keeps the
//! rows' own ids and never invents one:
//!
//! 1. The damaged copy is opened read-only (`immutable` when no `-wal`
//!    lies beside it, so no file is made or changed; otherwise `mode=ro`,
//!    so its committed transactions are applied), with `writable_schema`
//!    (a file cut short is read as far as it goes instead of refused) and
//!    `cell_size_check` (a damaged page is reported, not misread).
//!    A file that ends inside a page is read from memory, its whole pages
//!    only: SQLite would read the missing part of the last page as zeros
//!    and return rows made of them.
//! 2. If SQLite says it is not a database, the 100-byte header is rebuilt
//!    in memory (the page size found from the pages themselves) and the
//!    bytes are opened as an in-memory database; the file is not changed.
//! 3. Each table is read in id order (`rowid >= next ORDER BY rowid`).
//!    When a row or page cannot be read, the next readable id is found by
//!    seeking further ahead, doubling the step, then bisecting back, so
//!    exactly the unreadable ids are skipped and reported as ranges.
//!
//! SQLite keeps no checksums: a damaged page that still parses is read as
//! it is. Text holding a NUL byte (what zeroed bytes decode to) is refused
//! by the copy; anything subtler is not detectable.

use std::path::Path;

use agentspine_fs::{Budget, Reader};
use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};

use crate::incident::{IdRange, ReadMethod, TableSalvage};

/// The largest damaged file read into memory for a header rebuild.
const MAX_REBUILD_BYTES: u64 = 1 << 30;
/// Rows read per statement.
const BATCH: i64 = 512;
/// Seeks spent per table finding readable rows past damage.
const MAX_PROBES: u32 = 20_000;

/// An open damaged copy.
pub(crate) struct Damaged {
    conn: Connection,
    /// How it was opened.
    pub read: ReadMethod,
    /// A `-wal` beside it was not applied.
    pub wal_ignored: bool,
}

/// The rows of one table (each starting with its rowid) and the account.
pub(crate) struct Rows {
    pub rows: Vec<Vec<Value>>,
    pub salvage: TableSalvage,
}

/// Opens `dir/name` for salvage, or says why nothing can be read.
pub(crate) fn open(dir: &Path, name: &str) -> Result<Damaged, String> {
    let path = dir.join(name);
    let root = Reader::new(Budget::UNLIMITED).open_root(dir).map_err(|e| e.to_string())?;
    let has_wal = root.stat(format!("{name}-wal")).is_ok_and(|m| m.identity.size > 0);
    let size = root.stat(name).map_err(|e| e.to_string())?.identity.size;
    let head = root.read_head(name, 100).map_err(|e| e.to_string())?.bytes;
    // A file that ends inside a page: SQLite would read that page's
    // missing part as zeros and return rows made of them. Only the whole
    // pages are read, from memory.
    if let Some(page) = stated_page_size(&head)
        && size % page as u64 != 0
    {
        let bytes = root.read(name, MAX_REBUILD_BYTES).map_err(|e| e.to_string())?.bytes;
        let whole = bytes[..bytes.len() / page * page].to_vec();
        return in_memory(&whole)
            .map(|conn| Damaged { conn, read: ReadMethod::WholePages, wal_ignored: has_wal })
            .map_err(|e| format!("its whole pages cannot be read either: {e}"));
    }
    let first_error = match open_file(&path, has_wal).map_err(|e| e.to_string()).and_then(readable) {
        Ok(conn) => return Ok(Damaged { conn, read: ReadMethod::Rows, wal_ignored: false }),
        Err(e) => e,
    };
    if has_wal && let Ok(conn) = open_file(&path, false).map_err(|e| e.to_string()).and_then(readable) {
        return Ok(Damaged { conn, read: ReadMethod::Rows, wal_ignored: true });
    }
    let bytes = root.read(name, MAX_REBUILD_BYTES).map_err(|e| e.to_string())?.bytes;
    for page_size in page_sizes(&bytes) {
        let Some(rebuilt) = rebuild_header(&bytes, page_size) else { continue };
        if let Ok(conn) = in_memory(&rebuilt) {
            return Ok(Damaged { conn, read: ReadMethod::RebuiltHeader, wal_ignored: has_wal });
        }
    }
    Err(first_error)
}

/// The page size a header names, when the header is SQLite's.
fn stated_page_size(head: &[u8]) -> Option<usize> {
    if head.len() < 18 || !head.starts_with(MAGIC) {
        return None;
    }
    let size = match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65536,
        n => usize::from(n),
    };
    (size.is_power_of_two() && size >= 512).then_some(size)
}

/// `bytes` as a read-only in-memory database, readable. A WAL-mode
/// header is read as a rollback-journal one (memory has no WAL).
fn in_memory(bytes: &[u8]) -> Result<Connection, String> {
    let mut owned;
    let mut bytes = bytes;
    if bytes.len() > 20 && bytes[18..20] == [2, 2] {
        owned = bytes.to_vec();
        owned[18..20].copy_from_slice(&[1, 1]);
        bytes = &owned;
    }
    let mut conn = Connection::open_in_memory().map_err(|e| e.to_string())?;
    conn.deserialize_read_exact("main", bytes, bytes.len(), true).map_err(|e| e.to_string())?;
    configure(conn).map_err(|e| e.to_string()).and_then(readable)
}

fn open_file(path: &Path, with_wal: bool) -> rusqlite::Result<Connection> {
    let query = if with_wal { "mode=ro" } else { "immutable=1" };
    let uri = format!("file:{}?{query}", uri_path(path));
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    configure(conn)
}

fn configure(conn: Connection) -> rusqlite::Result<Connection> {
    conn.pragma_update(None, "query_only", true)?;
    conn.pragma_update(None, "writable_schema", true)?;
    conn.pragma_update(None, "cell_size_check", true)?;
    Ok(conn)
}

/// `conn` if its schema can be read at all.
fn readable(conn: Connection) -> Result<Connection, String> {
    conn.query_row("SELECT COUNT(*) FROM sqlite_master", [], |row| row.get::<_, i64>(0))
        .map_err(|e| e.to_string())?;
    Ok(conn)
}

/// A path as a URI path: every byte but unreserved ones and `/`
/// percent-encoded (`?`, `#` and `%` would otherwise end or change it).
fn uri_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The page sizes worth trying for a header rebuild, likeliest first: the
/// one the damaged header still names, SQLite's default (4096), then every
/// other power of two from 512 to 65536 at which page 2 starts like a
/// b-tree page. None when page 1 holds no b-tree header after the file
/// header (the damage is not only the header's).
fn page_sizes(bytes: &[u8]) -> Vec<usize> {
    if bytes.len() < 1024 || !matches!(bytes[100], 0x05 | 0x0d) {
        return Vec::new();
    }
    let named = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => usize::from(n),
    };
    let mut sizes = vec![named, 4096];
    sizes.extend((9..=16).map(|shift| 1usize << shift));
    let mut out: Vec<usize> = Vec::new();
    for size in sizes {
        let valid = size.is_power_of_two() && (512..=65536).contains(&size);
        let page2 = bytes.get(size).copied();
        if valid && !out.contains(&size) && matches!(page2, Some(0x02 | 0x05 | 0x0a | 0x0d)) {
            out.push(size);
        }
    }
    out
}

const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// `bytes` (whole pages of `page_size`) with a header that lets SQLite
/// read them: the format, page size, payload fractions, UTF-8, and the
/// page count taken from the length. Nothing else of the old header is
/// needed to read rows.
fn rebuild_header(bytes: &[u8], page_size: usize) -> Option<Vec<u8>> {
    let pages = bytes.len() / page_size;
    if pages < 2 {
        return None;
    }
    let mut out = bytes[..pages * page_size].to_vec();
    let mut header = [0u8; 100];
    header[..16].copy_from_slice(MAGIC);
    let stored = if page_size == 65536 { 1u16 } else { u16::try_from(page_size).ok()? };
    header[16..18].copy_from_slice(&stored.to_be_bytes());
    // Rollback journal (1, 1): an in-memory copy has no WAL.
    header[18] = 1;
    header[19] = 1;
    header[21] = 64;
    header[22] = 32;
    header[23] = 32;
    header[24..28].copy_from_slice(&1u32.to_be_bytes());
    header[28..32].copy_from_slice(&u32::try_from(pages).ok()?.to_be_bytes());
    header[40..44].copy_from_slice(&1u32.to_be_bytes());
    header[44..48].copy_from_slice(&4u32.to_be_bytes());
    header[56..60].copy_from_slice(&1u32.to_be_bytes());
    header[92..96].copy_from_slice(&1u32.to_be_bytes());
    header[96..100].copy_from_slice(&3_045_000u32.to_be_bytes());
    out[..100].copy_from_slice(&header);
    Some(out)
}

impl Damaged {
    /// Every readable row of `table`: `rowid` first, then `columns` (a
    /// column the table does not have, from an older schema, reads as
    /// NULL). A table that is missing or whose schema cannot be read is
    /// an error in the account, with no rows.
    pub(crate) fn rows(&self, table: &str, columns: &[&str]) -> Rows {
        let mut salvage = TableSalvage::default();
        let present = match self.columns(table) {
            Ok(present) if !present.is_empty() => present,
            Ok(_) => {
                salvage.error = Some("no such table".to_owned());
                return Rows { rows: Vec::new(), salvage };
            }
            Err(e) => {
                salvage.error = Some(e.to_string());
                return Rows { rows: Vec::new(), salvage };
            }
        };
        let list: Vec<String> = columns
            .iter()
            .map(|c| if present.iter().any(|p| p == c) { format!("\"{c}\"") } else { "NULL".to_owned() })
            .collect();
        let sql = format!(
            "SELECT rowid, {} FROM \"{table}\" NOT INDEXED WHERE rowid >= ?1 ORDER BY rowid LIMIT ?2",
            list.join(", ")
        );
        let mut rows = Vec::new();
        // The next id to read.
        let mut from = 1i64;
        let mut probes = MAX_PROBES;
        let mut skipped = false;
        loop {
            let read = self.batch(&sql, from, BATCH, columns.len() + 1, &mut rows);
            let just_skipped = std::mem::replace(&mut skipped, false);
            let next = last_rowid(&rows).map_or(from, |id| id.saturating_add(1).max(from));
            match read {
                Ok(0) if just_skipped => {
                    // Nothing readable after the last skip: the damage
                    // runs to the end of the table.
                    if let Some(range) = salvage.unreadable.last_mut() {
                        range.last = None;
                    }
                    break;
                }
                Ok(n) if n < BATCH as usize => break,
                Ok(_) => from = next,
                Err(()) => match self.next_readable(&sql, next, columns.len() + 1, &mut probes) {
                    Some(resume) => {
                        salvage.unreadable.push(IdRange { first: next, last: Some(resume - 1) });
                        from = resume;
                        skipped = true;
                    }
                    None => {
                        salvage.unreadable.push(IdRange { first: next, last: None });
                        break;
                    }
                },
            }
        }
        Rows { rows, salvage }
    }

    fn columns(&self, table: &str) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self.conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
        let rows = stmt.query_map([], |row| row.get::<_, String>(1))?;
        rows.collect()
    }

    /// Reads up to `limit` rows from id `from` on into `out`; how many, or
    /// `Err` when a row could not be read (those before it are kept).
    fn batch(
        &self,
        sql: &str,
        from: i64,
        limit: i64,
        width: usize,
        out: &mut Vec<Vec<Value>>,
    ) -> Result<usize, ()> {
        let Ok(mut stmt) = self.conn.prepare_cached(sql) else { return Err(()) };
        let Ok(mut rows) = stmt.query((from, limit)) else { return Err(()) };
        let mut n = 0;
        loop {
            match rows.next() {
                Ok(Some(row)) => {
                    let values: rusqlite::Result<Vec<Value>> = (0..width).map(|i| row.get(i)).collect();
                    match values {
                        Ok(values) => {
                            out.push(values);
                            n += 1;
                        }
                        Err(_) => return Err(()),
                    }
                }
                Ok(None) => return Ok(n),
                Err(_) => return Err(()),
            }
        }
    }

    /// After a failure reading from id `failed` on: the smallest `x >
    /// failed` from which reading works again, so ids `failed .. x` are
    /// the unreadable ones; `None` when nothing further can be read.
    ///
    /// A seek for `rowid >= x` reads only the pages on the way to `x`, so
    /// it fails exactly while `x` falls in the damaged part.
    fn next_readable(&self, sql: &str, failed: i64, width: usize, probes: &mut u32) -> Option<i64> {
        let mut works = |x: i64| -> Option<bool> {
            *probes = probes.checked_sub(1)?;
            let mut sink = Vec::new();
            Some(self.batch(sql, x, 1, width, &mut sink).is_ok())
        };
        // Ahead, doubling, until a seek works.
        let mut lo = failed;
        let mut step = 1i64;
        let mut hi = loop {
            let x = failed.checked_add(step).unwrap_or(i64::MAX);
            if works(x)? {
                break x;
            }
            if x == i64::MAX {
                return None;
            }
            lo = x;
            step = step.saturating_mul(2);
        };
        // Back, halving, to the first that works.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if works(mid)? {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }
}

fn last_rowid(rows: &[Vec<Value>]) -> Option<i64> {
    match rows.last()?.first()? {
        Value::Integer(id) => Some(*id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_path_keeps_only_plain_bytes() {
        assert_eq!(uri_path(Path::new("/tmp/a b/state.db?x#y%")), "/tmp/a%20b/state.db%3Fx%23y%25");
    }

    #[test]
    fn a_header_is_rebuilt_only_where_pages_say_how() {
        assert_eq!(page_sizes(&[0u8; 100]), Vec::<usize>::new(), "too short");
        assert_eq!(page_sizes(&vec![0u8; 8192]), Vec::<usize>::new(), "no b-tree page at offset 100");
        let mut bytes = vec![0u8; 3 * 4096 + 10];
        bytes[100] = 0x0d;
        bytes[4096] = 0x0d;
        bytes[8192] = 0x05;
        assert_eq!(page_sizes(&bytes), [4096, 8192]);
        let rebuilt = rebuild_header(&bytes, 4096).unwrap();
        assert!(rebuilt.starts_with(MAGIC));
        assert_eq!(u16::from_be_bytes([rebuilt[16], rebuilt[17]]), 4096);
        assert_eq!(u32::from_be_bytes([rebuilt[28], rebuilt[29], rebuilt[30], rebuilt[31]]), 3);
        assert_eq!(rebuilt[100..], bytes[100..3 * 4096], "only whole pages, unchanged");
    }
}
