# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_agentspine_global_optspecs
    string join \n h/help V/version
end

function __fish_agentspine_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_agentspine_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_agentspine_using_subcommand
    set -l cmd (__fish_agentspine_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c agentspine -n "__fish_agentspine_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_needs_command" -s V -l version -d 'Print version'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "resolve" -d 'Show the instruction chain a host would load for a directory.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "memory" -d 'Show which memory facts would be loaded, and why.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "briefing" -d 'Build a byte-budgeted briefing of every source a request resolves.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "query" -d 'Rank passages of the request\'s sources for a question.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "read" -d 'Read one source of the request\'s catalog again, by its id.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "check" -d 'Report what each agent will miss, cut, shadow or follow out of the repository.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "scope" -d 'Show or set the current scope of a project.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "cache" -d 'Inspect or empty the snapshot cache.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "doctor" -d 'Check that agentspine works for a host in a directory.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "source-status" -d 'Show what agentspine resolves for a host in a directory, and why.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "record" -d 'Keep what the agent should learn in this project: preferences, no-gos, corrections, references, and more.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "source-bind" -d 'Read the accepted portable learning of one project everywhere you work.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "source-rollback" -d 'Undo a binding: nothing is read through it from the next call on.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "source-purge" -d 'Purge a binding: undone for good, and every cache row derived through it removed.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "bindings" -d 'List every binding: id, bound project, hosts, state and counts.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "audit" -d 'Show what agentspine recorded: scan errors (event, phase, code, path), required-preflight failures, learning records and binding events.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "mcp" -d 'Serve the MCP tools over stdio (for an MCP client to launch).'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "hook" -d 'Run as a Claude Code, Codex, Gemini CLI or pi hook: native payload on stdin, the host\'s output JSON on stdout.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "install" -d 'Add agentspine\'s hooks and MCP server to Claude Code, Codex, Gemini CLI, pi, opencode, GitHub Copilot CLI or Kimi Code.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "uninstall" -d 'Remove what `agentspine install` added, and nothing else.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "serve" -d 'Serve project instructions to a desktop app over a local socket.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "completions" -d 'Print shell completions for agentspine.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "manpage" -d 'Print a man page (roff) on stdout: agentspine\'s, or a subcommand\'s.'
complete -c agentspine -n "__fish_agentspine_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l host -d 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project\'s own files, no profile, no memory]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l target -d 'A file or directory whose complete chain (root down to its directory) replaces the working directory\'s. Must lie inside the project root' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l codex-profile -d 'Codex only: the `--profile NAME` whose `NAME.config.toml` applies' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l format -d '`native`: exactly the text the host puts in its model request. `text`: the sources, for people. `json`: everything, stable (as --json)' -r -f -a "native\t''
text\t''
json\t''"
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l explain -d 'Also list every candidate probed, with its verdict, and the file system work (to stderr with `--format native`)'
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand resolve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l host -d 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project\'s own files, no profile, no memory]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l memory-dir -d 'Use this memory directory instead of finding Claude Code\'s' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l scope -d 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project\'s `agentspine scope`]' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l prompt -d 'A prompt whose words may make facts relevant' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand memory" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l host -d 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project\'s own files, no profile, no memory]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l target -d 'A file whose chain replaces the working directory\'s' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l scope -d 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project\'s `agentspine scope`]' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l prompt -d 'A prompt whose words may make memory facts relevant' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l budget -d 'Byte budget of the briefing' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l markdown -d 'Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l required -d 'Fail (exit 3, no receipt) unless every required source resolved completely; print a receipt when it did'
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand briefing" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l host -d 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project\'s own files, no profile, no memory]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l target -d 'A file whose chain replaces the working directory\'s' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l scope -d 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project\'s `agentspine scope`]' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l limit -d 'Passages to return, at most' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l markdown -d 'Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l required -d 'Fail (exit 3, no receipt) unless every required source resolved completely; print a receipt when it did'
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l host -d 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project\'s own files, no profile, no memory]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l target -d 'A file whose chain replaces the working directory\'s' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l scope -d 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project\'s `agentspine scope`]' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l prompt -d 'The prompt of the briefing or query that printed the id, when its words made a memory fact relevant' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l markdown -d 'Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l required -d 'Fail (exit 3, no receipt) unless every required source resolved completely; print a receipt when it did'
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l root -d 'Project root to check [default: the current directory\'s git root]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l host -d 'Whose rules to apply, comma-separated [default: the hosts the repository addresses (a file one reads by name, its configuration directory) and the hosts installed for you (their profile directory exists); the desktop rule, generic and pi-0.73 only when named]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l paths -d 'Also check these directories (inside the root), found or not' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l format -d '`text` for people, `json` (stable), `github` (workflow annotations), `sarif` (SARIF 2.1.0)' -r -f -a "text\t''
json\t''
github\t''
sarif\t''"
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l deny -d 'Exit with 1 when a finding is at least this severe' -r -f -a "warning\t''
error\t''"
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l all-hosts -d 'Every agent host (codex, claude, gemini, pi, pi-0.73, opencode, copilot, kimi, desktop)'
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l compare -d 'Also list the directories where hosts disagree on what applies'
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -f -a "set" -d 'Replace the project\'s scope with these ids'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -f -a "show" -d 'Print the project\'s scope (what `agentspine scope` alone does)'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -f -a "clear" -d 'Remove the project\'s scope'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and not __fish_seen_subcommand_from set show clear help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from set" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from set" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from set" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from set" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from set" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from show" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from show" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from show" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from show" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from clear" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from clear" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from clear" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from clear" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from clear" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from clear" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from help" -f -a "set" -d 'Replace the project\'s scope with these ids'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the project\'s scope (what `agentspine scope` alone does)'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from help" -f -a "clear" -d 'Remove the project\'s scope'
complete -c agentspine -n "__fish_agentspine_using_subcommand scope; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and not __fish_seen_subcommand_from stats purge help" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and not __fish_seen_subcommand_from stats purge help" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and not __fish_seen_subcommand_from stats purge help" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and not __fish_seen_subcommand_from stats purge help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and not __fish_seen_subcommand_from stats purge help" -f -a "stats" -d 'Rows, bytes and directories held (what `agentspine cache` alone does)'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and not __fish_seen_subcommand_from stats purge help" -f -a "purge" -d 'Drop cached snapshots: of one memory directory with --memory-dir, else all'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and not __fish_seen_subcommand_from stats purge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from stats" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from stats" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from stats" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from purge" -l memory-dir -d 'The memory directory whose snapshots to drop' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from purge" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from purge" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from purge" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from purge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "stats" -d 'Rows, bytes and directories held (what `agentspine cache` alone does)'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "purge" -d 'Drop cached snapshots: of one memory directory with --memory-dir, else all'
complete -c agentspine -n "__fish_agentspine_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l host -d 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project\'s own files, no profile, no memory]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l scope -d 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project\'s `agentspine scope`]' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l memory-dir -d 'With --offline-memory-orphans: this memory directory instead of Claude Code\'s for the working directory' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l offline-memory-orphans -d 'Count orphans in the memory directory instead (see above)'
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l acknowledge -d 'Say that you have read what a damaged state database cost (the state store section): agentspine stops telling you about it'
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -l host -d 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project\'s own files, no profile, no memory]' -r -f -a "codex\t'Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total'
claude\t'Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory'
gemini\t'Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined'
pi\t'The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or CLAUDE.md per directory, BOM dropped, a `<project_context>` section'
pi-0.73\t'pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per directory, BOM kept, a `# Project Context` section. A host of its own rather than a version flag, so every surface that names a host (CLI, MCP schema, JSON) offers it without a second option'
opencode\t'opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from the cwd up to the git root, all its copies, closest first'
kimi\t'Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in every directory from the git root to the cwd'
copilot\t'GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md of the git root, the cwd and the directories between'
desktop\t'A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB'
generic\t'Project files only, by the desktop rule, with no profile'"
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -l scope -d 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project\'s `agentspine scope`]' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -f -a "add" -d 'Add a proposed record (not context until accepted)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -f -a "accept" -d 'Accept a proposed record: from now on it is context'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -f -a "list" -d 'List the project\'s records, oldest first'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -f -a "retract" -d 'Retract a record: it is no longer context (it is kept, marked retracted)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and not __fish_seen_subcommand_from add accept list retract help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -l kind -d 'What it is about' -r -f -a "preference\t''
no-go\t''
correction\t''
reference\t''
person-relationship\t''
project-fact\t''
task\t''
attention-event\t''
group-private\t''
delegation-policy\t''
execution-grant\t''
job\t''
secret\t''
trust-material\t''"
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -l supersedes -d 'With --kind correction: the record it corrects (superseded once the correction is accepted)' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from accept" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from accept" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from accept" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from accept" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from accept" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from accept" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from list" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from list" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from list" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from list" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from retract" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from retract" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from retract" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from retract" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from retract" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from retract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a proposed record (not context until accepted)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from help" -f -a "accept" -d 'Accept a proposed record: from now on it is context'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s records, oldest first'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from help" -f -a "retract" -d 'Retract a record: it is no longer context (it is kept, marked retracted)'
complete -c agentspine -n "__fish_agentspine_using_subcommand record; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l host -d 'The host(s) that read through it, comma-separated: claude, codex, gemini, pi or desktop (one binding each)' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l scope -d 'Deprecated: `state-user` is the only binding scope, and the default' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l project -d 'The project you are binding from (an existing directory)' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l host-home -d 'The host profile you are binding from, e.g. ~/.claude (an existing directory)' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l all-hosts -d 'Every host reads through it'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l confirm-local-binding -d 'Confirms that you mean to bind'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-bind" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-rollback" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand source-rollback" -l confirm-local-binding -d 'Confirms that you mean it'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-rollback" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-rollback" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-rollback" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-purge" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand source-purge" -l confirm-local-binding -d 'Confirms that you mean it'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-purge" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-purge" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand source-purge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand bindings" -l root -d 'Project root to bind to, instead of the host\'s own rule (git root or root markers) [default: found from --cwd]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand bindings" -l cwd -d 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand bindings" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand bindings" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand bindings" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand bindings" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand audit" -l host -d 'Only events of this host (claude, codex, gemini, pi, desktop, generic, cli); bindings made for all hosts are shown for every host' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand audit" -l since -d 'Only events at or after TIME: 2026-11-30, 2026-11-30T05:00:00Z, or an age such as 90s, 15m, 2h, 7d' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand audit" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand audit" -l verify -d 'Verify the binding chain (and print nothing else)'
complete -c agentspine -n "__fish_agentspine_using_subcommand audit" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand audit" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand mcp" -l root -d 'Also allow this project root (repeatable)' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand hook" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -l settings -d 'Claude Code only: which settings, the user\'s (naming this binary\'s path) or the project\'s, which get committed (naming `agentspine`, found on each user\'s PATH)' -r -f -a "user\t'The user\'s settings (every project)'
project\t'One project\'s `.claude/settings.json` and `.mcp.json`'"
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -l project -d 'Project directory for `--settings project` [default: the git root of the current directory]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -l command -d 'User settings only: the program the hooks and MCP entry run, `agentspine` (found on PATH) or an absolute path ending in `/agentspine`, instead of this binary\'s path. Needed to install from a cargo build directory (developing agentspine), which install otherwise refuses. `$AGENTSPINE_INSTALL_COMMAND` does the same for user settings when the flag is not given' -r
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -l dry-run -d 'Print what would change and write nothing'
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -l trust-hooks -d 'Codex only: also record agentspine\'s hooks as trusted in config.toml (what trusting them in Codex\'s `/hooks` view records), so Codex runs them without asking. Uninstall removes these records either way'
complete -c agentspine -n "__fish_agentspine_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand uninstall" -l settings -d 'Claude Code only: which settings, the user\'s (naming this binary\'s path) or the project\'s, which get committed (naming `agentspine`, found on each user\'s PATH)' -r -f -a "user\t'The user\'s settings (every project)'
project\t'One project\'s `.claude/settings.json` and `.mcp.json`'"
complete -c agentspine -n "__fish_agentspine_using_subcommand uninstall" -l project -d 'Project directory for `--settings project` [default: the git root of the current directory]' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand uninstall" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand uninstall" -l dry-run -d 'Print what would change and write nothing'
complete -c agentspine -n "__fish_agentspine_using_subcommand uninstall" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand uninstall" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand serve" -l socket -d 'The socket to listen on [default: $XDG_RUNTIME_DIR/agentspine/agentspine.sock]. A missing directory is created with mode 0700; an existing one must already be private to you (0700 or narrower), or the server refuses' -r -F
complete -c agentspine -n "__fish_agentspine_using_subcommand serve" -l color -d 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never' -r -f -a "auto\t'On a terminal, unless `NO_COLOR` is set (to anything but empty)'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c agentspine -n "__fish_agentspine_using_subcommand serve" -l control-token-stdin -d 'Read the control token from the first line of stdin (at least 32 characters) instead of creating one and writing it beside the socket'
complete -c agentspine -n "__fish_agentspine_using_subcommand serve" -l json -d 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}'
complete -c agentspine -n "__fish_agentspine_using_subcommand serve" -s q -l quiet -d 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)'
complete -c agentspine -n "__fish_agentspine_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand manpage" -l list -d 'List every page instead: its file name, then its command'
complete -c agentspine -n "__fish_agentspine_using_subcommand manpage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "resolve" -d 'Show the instruction chain a host would load for a directory.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "memory" -d 'Show which memory facts would be loaded, and why.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "briefing" -d 'Build a byte-budgeted briefing of every source a request resolves.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "query" -d 'Rank passages of the request\'s sources for a question.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "read" -d 'Read one source of the request\'s catalog again, by its id.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "check" -d 'Report what each agent will miss, cut, shadow or follow out of the repository.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "scope" -d 'Show or set the current scope of a project.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "cache" -d 'Inspect or empty the snapshot cache.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "doctor" -d 'Check that agentspine works for a host in a directory.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "source-status" -d 'Show what agentspine resolves for a host in a directory, and why.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "record" -d 'Keep what the agent should learn in this project: preferences, no-gos, corrections, references, and more.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "source-bind" -d 'Read the accepted portable learning of one project everywhere you work.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "source-rollback" -d 'Undo a binding: nothing is read through it from the next call on.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "source-purge" -d 'Purge a binding: undone for good, and every cache row derived through it removed.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "bindings" -d 'List every binding: id, bound project, hosts, state and counts.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "audit" -d 'Show what agentspine recorded: scan errors (event, phase, code, path), required-preflight failures, learning records and binding events.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "mcp" -d 'Serve the MCP tools over stdio (for an MCP client to launch).'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "hook" -d 'Run as a Claude Code, Codex, Gemini CLI or pi hook: native payload on stdin, the host\'s output JSON on stdout.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "install" -d 'Add agentspine\'s hooks and MCP server to Claude Code, Codex, Gemini CLI, pi, opencode, GitHub Copilot CLI or Kimi Code.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "uninstall" -d 'Remove what `agentspine install` added, and nothing else.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "serve" -d 'Serve project instructions to a desktop app over a local socket.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "completions" -d 'Print shell completions for agentspine.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "manpage" -d 'Print a man page (roff) on stdout: agentspine\'s, or a subcommand\'s.'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and not __fish_seen_subcommand_from resolve memory briefing query read check scope cache doctor source-status record source-bind source-rollback source-purge bindings audit mcp hook install uninstall serve completions manpage help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from scope" -f -a "set" -d 'Replace the project\'s scope with these ids'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from scope" -f -a "show" -d 'Print the project\'s scope (what `agentspine scope` alone does)'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from scope" -f -a "clear" -d 'Remove the project\'s scope'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "stats" -d 'Rows, bytes and directories held (what `agentspine cache` alone does)'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "purge" -d 'Drop cached snapshots: of one memory directory with --memory-dir, else all'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from record" -f -a "add" -d 'Add a proposed record (not context until accepted)'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from record" -f -a "accept" -d 'Accept a proposed record: from now on it is context'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from record" -f -a "list" -d 'List the project\'s records, oldest first'
complete -c agentspine -n "__fish_agentspine_using_subcommand help; and __fish_seen_subcommand_from record" -f -a "retract" -d 'Retract a record: it is no longer context (it is kept, marked retracted)'
