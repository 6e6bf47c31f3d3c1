//! The flag table of `docs/cli.md`, held against the parser itself: every
//! flag of every command (global ones where they reach) must be a row of
//! the table, with the row's value name, and be allowed on that command;
//! every hidden spelling must be an old spelling of the table below it.
//! A command that flattens the shared structs of `args` passes by
//! construction; one that invents a flag fails until the table says what
//! it means.

use std::collections::BTreeMap;

use clap::CommandFactory;

/// One row of the flag table.
#[derive(Debug)]
struct Row {
    /// `--long` and `-s` spellings.
    spellings: Vec<String>,
    /// The value name, empty for a switch.
    value: String,
    /// `every`, or the command paths that take the flag.
    commands: Vec<String>,
}

const DOC: &str = include_str!("../../../../docs/cli.md");

/// The cells of the table rows in the section titled `heading`.
fn table(heading: &str) -> Vec<Vec<String>> {
    let section = DOC.split("\n## ").find(|s| s.starts_with(heading)).unwrap_or_default();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.trim().trim_matches('|').split('|').map(|c| c.trim().to_owned()).collect())
        .collect()
}

/// The words in backticks of a cell.
fn quoted(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

fn flag_rows() -> Vec<Row> {
    table("Flags")
        .into_iter()
        .map(|cells| Row {
            spellings: quoted(&cells[0]),
            value: quoted(&cells[1]).join(""),
            commands: if cells[3] == "every" { vec!["every".to_owned()] } else { quoted(&cells[3]) },
        })
        .collect()
}

/// Every command path with its built command (globals propagated).
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(prefix: &str, cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands() {
            let path = if prefix.is_empty() {
                sub.get_name().to_owned()
            } else {
                format!("{prefix} {}", sub.get_name())
            };
            out.push((path.clone(), sub.clone()));
            walk(&path, sub, out);
        }
    }
    let mut cmd = super::Cli::command();
    cmd.build();
    let mut out = Vec::new();
    walk("", &cmd, &mut out);
    out
}

/// What is wrong between the parser and the table, one line each.
fn mismatches() -> Vec<String> {
    let rows = flag_rows();
    let old: Vec<(String, String)> = table("Old spellings")
        .into_iter()
        .map(|c| (quoted(&c[0]).join(""), quoted(&c[1]).join("")))
        .collect();
    let mut wrong = Vec::new();
    for (path, cmd) in commands() {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if arg.is_positional() || id == "help" || id == "version" {
                continue;
            }
            let long = arg.get_long().map(|l| format!("--{l}"));
            let short = arg.get_short().map(|s| format!("-{s}"));
            let Some(name) = long.clone().or(short.clone()) else { continue };
            if arg.is_hide_set() {
                if !old.iter().any(|(c, o)| c == &path && o.split(' ').next() == Some(name.as_str())) {
                    wrong.push(format!("{path}: hidden {name} is not an old spelling in docs/cli.md"));
                }
                continue;
            }
            let Some(row) = rows.iter().find(|r| r.spellings.contains(&name)) else {
                wrong.push(format!("{path}: {name} is not in the flag table of docs/cli.md"));
                continue;
            };
            if let Some(short) = &short
                && !row.spellings.contains(short)
            {
                wrong.push(format!("{path}: {name} has the short {short}, which the table does not give"));
            }
            if !row.commands.iter().any(|c| c == "every" || c == &path) {
                wrong.push(format!("{path}: {name} is in the table, but not for `{path}`"));
            }
            let takes = arg.get_num_args().is_some_and(|n| n.takes_values());
            let value = if takes {
                arg.get_value_names()
                    .map(|v| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "))
                    .unwrap_or_else(|| id.to_uppercase())
            } else {
                String::new()
            };
            if value != row.value {
                wrong.push(format!("{path}: {name} takes `{value}`; the table says `{}`", row.value));
            }
            let aliases = arg.get_all_aliases().unwrap_or_default().into_iter().map(|a| format!("--{a}"));
            let shorts = arg.get_all_short_aliases().unwrap_or_default().into_iter().map(|a| format!("-{a}"));
            for alias in aliases.chain(shorts) {
                if !old.iter().any(|(c, o)| c == &path && o.split(' ').next() == Some(alias.as_str())) {
                    wrong.push(format!(
                        "{path}: {alias} (alias of {name}) is not an old spelling in docs/cli.md"
                    ));
                }
            }
        }
    }
    wrong
}

#[test]
fn every_flag_of_every_command_is_in_the_table() {
    assert_eq!(mismatches(), Vec::<String>::new());
}

#[test]
fn the_old_spellings_table_is_the_one_the_binary_warns_about() {
    let doc: Vec<(String, String)> = table("Old spellings")
        .into_iter()
        .map(|c| (quoted(&c[0]).join(""), quoted(&c[1]).join("")))
        .collect();
    let code: Vec<(String, String)> =
        crate::surface::args::DEPRECATED.iter().map(|d| (d.command.to_owned(), d.old.to_owned())).collect();
    assert_eq!(doc, code);
}

/// A made-up command with one shared struct and one invented flag: the
/// shared flags pass, the invented one is named.
#[test]
fn an_invented_flag_fails_and_shared_ones_pass() {
    #[derive(Debug, clap::Parser)]
    struct Probe {
        #[command(flatten)]
        out: crate::surface::args::OutputArgs,
        #[command(flatten)]
        place: crate::surface::args::RootArgs,
        #[arg(long)]
        frobnicate: bool,
    }
    let rows = flag_rows();
    let cmd = Probe::command();
    let unknown: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long())
        .map(|l| format!("--{l}"))
        .filter(|l| !rows.iter().any(|r| r.spellings.contains(l)))
        .collect();
    assert_eq!(unknown, ["--frobnicate"]);
}

/// Every command path the table names exists (or is `check`, which its
/// own change adds): no row describes a flag of a command that is gone.
#[test]
fn the_table_names_only_real_commands() {
    let paths: BTreeMap<String, ()> = commands().into_iter().map(|(p, _)| (p, ())).collect();
    let unknown: Vec<String> = flag_rows()
        .into_iter()
        .flat_map(|r| r.commands)
        .filter(|c| c != "every" && c != "check" && !paths.contains_key(c))
        .collect();
    assert_eq!(unknown, Vec::<String>::new());
}
