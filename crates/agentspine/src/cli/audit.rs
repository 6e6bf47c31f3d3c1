//! `agentspine audit`: the audit log (scan errors, required-preflight
//! failures, learning records, binding events, a damaged state database),
//! and `--verify`, which walks the whole binding chain and names the first
//! bad row. Both say first what a damaged database cost, until the user
//! acknowledges it, and the log says which old problem rows were pruned.

use std::io::Write;
use std::process::ExitCode;

use agentspine_store::{AuditRow, BindingError};

use crate::state::State;
use crate::surface::args::OutputArgs;

/// Show what agentspine recorded: scan errors (event, phase, code, path),
/// required-preflight failures, learning records and binding events.
///
/// `--verify` checks the binding registry instead: every event's hash
/// links to the one before it, from the first to the last. A row that was
/// edited, removed or reordered is named with its position; the exit code
/// is then 1.
///
/// Examples:
///
///   agentspine audit --host claude --since 1h
///
///   agentspine audit --since 2026-11-30T05:00:00Z --json
///
///   agentspine audit --verify
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/doctor.md#audit
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Only events of this host (claude, codex, gemini, pi, desktop, generic, cli);
    /// bindings made for all hosts are shown for every host.
    #[arg(long, value_name = "HOST")]
    host: Option<String>,
    /// Only events at or after TIME: 2026-11-30, 2026-11-30T05:00:00Z, or
    /// an age such as 90s, 15m, 2h, 7d.
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// Verify the binding chain (and print nothing else).
    #[arg(long)]
    verify: bool,
    #[command(flatten)]
    out: OutputArgs,
}

impl Args {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let since = args.since.as_deref().map(|t| parse_time(t, now_ms())).transpose()?;
    let state = State::open();
    let store = state.require_store()?;
    let incidents = state.incidents();
    let mut out = std::io::stdout().lock();
    if !args.out.json {
        out.write_all(super::incident_lines(&incidents).as_bytes())?;
    }
    if args.verify {
        let events = store.binding_event_count()?;
        let bindings = store.bindings()?;
        let active = bindings.iter().filter(|b| b.state == agentspine_store::BindingState::Active).count();
        let verdict = store.binding_verify();
        let bad = match verdict {
            Ok(()) => None,
            Err(BindingError::Broken(bad)) => Some(bad),
            Err(other) => return Err(other.into()),
        };
        if args.out.json {
            let value = serde_json::json!({
                "verified": bad.is_none(),
                "events": events,
                "bindings": bindings.len(),
                "active": active,
                "first_bad_row": bad,
                "state_incidents": crate::state::incidents_json(&incidents),
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        } else if let Some(bad) = &bad {
            writeln!(
                out,
                "binding chain BROKEN at event {} of {events}: {}. Nothing is read through any binding until it is repaired.",
                bad.seq, bad.reason
            )?;
        } else {
            writeln!(
                out,
                "binding chain verified: {events} {}, each hash-linked to the one before; {} {}, {active} active.",
                if events == 1 { "event" } else { "events" },
                bindings.len(),
                if bindings.len() == 1 { "binding" } else { "bindings" }
            )?;
        }
        return Ok(if bad.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS });
    }
    let rows: Vec<AuditRow> = store
        .audit_list(since, None)?
        .into_iter()
        .filter(|r| match &args.host {
            None => true,
            Some(host) => {
                agentspine_store::BoundHosts::of(&r.host).include(host)
                    && (&r.host == host || r.phase == "binding")
            }
        })
        .collect();
    let pruned = store.audit_prunes()?;
    // The latest sourceResolution report per root, as the hooks sent it.
    let reports = agentspine_store::ReportFiles::open(store.dir())?.list(args.host.as_deref())?;
    if args.out.json {
        let events: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut value = serde_json::to_value(r).expect("audit rows serialize");
                value["at"] = serde_json::Value::String(iso(r.at_ms));
                value
            })
            .collect();
        let reports: Vec<serde_json::Value> = reports
            .iter()
            .map(|r| {
                let mut value = serde_json::to_value(r).expect("reports serialize");
                value["at"] = serde_json::Value::String(iso(r.at_ms));
                value
            })
            .collect();
        let value = serde_json::json!({
            "events": events,
            "pruned": pruned,
            "reports": reports,
            "state_incidents": crate::state::incidents_json(&incidents),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(through) = pruned.through_id {
        writeln!(
            out,
            "{} older problem rows were pruned (ids up to {through}, last on {}) to keep the log bounded; \
             binding, record and incident events are never pruned",
            pruned.rows,
            iso(pruned.last_at_ms.unwrap_or_default())
        )?;
    }
    for r in &reports {
        writeln!(out, "{}  {:<7}  latest sourceResolution: {}", iso(r.at_ms), r.host, r.line)?;
    }
    if rows.is_empty() {
        writeln!(
            out,
            "no audit events{}",
            if args.host.is_some() || since.is_some() { " match" } else { " yet" }
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    for r in &rows {
        let mut line =
            format!("{}  {:<7}  {}  phase={} code={}", iso(r.at_ms), r.host, r.event, r.phase, r.code);
        if let Some(path) = &r.path {
            line.push_str(&format!(" path={path}"));
        }
        if let Some(detail) = &r.detail {
            line.push_str(&format!("  {}", detail.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
        writeln!(out, "{line}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `--since`: an age (`90s`, `15m`, `2h`, `7d`) before `now`, a date
/// (`2026-11-30`, UTC midnight) or a UTC time (`2026-11-30T05:00:00Z`).
fn parse_time(text: &str, now: i64) -> anyhow::Result<i64> {
    let bad = || {
        anyhow::Error::from(crate::surface::errors::Coded::new(
            "bad-time",
            format!(
                "--since {text:?}: expected an age such as 15m, 2h or 7d, a date such as 2026-11-30, or a UTC time such as 2026-11-30T05:00:00Z"
            ),
        ))
    };
    if let Some(unit) = text.chars().last().filter(|c| "smhd".contains(*c)) {
        let n: i64 = text[..text.len() - 1].parse().map_err(|_| bad())?;
        let per = match unit {
            's' => 1_000,
            'm' => 60_000,
            'h' => 3_600_000,
            _ => 86_400_000,
        };
        return Ok(now - n.checked_mul(per).ok_or_else(bad)?);
    }
    let (date, time) = match text.split_once('T') {
        Some((date, time)) => (date, Some(time.strip_suffix('Z').ok_or_else(bad)?)),
        None => (text, None),
    };
    let num = |s: &str, digits: usize| -> anyhow::Result<i64> {
        if s.len() != digits || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse().map_err(|_| bad())
    };
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts[..] else { return Err(bad()) };
    let (y, m, d) = (num(y, 4)?, num(m, 2)?, num(d, 2)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    let mut ms = days_from_civil(y, m, d) * 86_400_000;
    if let Some(time) = time {
        let parts: Vec<&str> = time.split(':').collect();
        let [h, mi, s] = parts[..] else { return Err(bad()) };
        let (h, mi, s) = (num(h, 2)?, num(mi, 2)?, num(s, 2)?);
        if h > 23 || mi > 59 || s > 60 {
            return Err(bad());
        }
        ms += ((h * 60 + mi) * 60 + s) * 1_000;
    }
    Ok(ms)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `ms` as a UTC time, `2026-11-30T05:21:03.123Z`.
pub(crate) fn iso(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1_000 % 60,
        rem % 1_000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_and_ages_count_back_from_now() {
        let t = parse_time("2026-11-30T05:21:03Z", 0).unwrap();
        assert_eq!(iso(t), "2026-11-30T05:21:03.000Z");
        assert_eq!(parse_time("1970-01-01", 0).unwrap(), 0);
        assert_eq!(iso(parse_time("2000-02-29", 0).unwrap()), "2000-02-29T00:00:00.000Z");
        assert_eq!(parse_time("15m", 1_000_000).unwrap(), 100_000);
        assert_eq!(parse_time("2d", 200_000_000).unwrap(), 200_000_000 - 172_800_000);
        for bad in ["", "yesterday", "2026-13-01", "2026-11-30T05:00", "2026-11-30T25:00:00Z", "m", "-"] {
            assert!(parse_time(bad, 0).is_err(), "{bad}");
        }
    }
}
