
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'agentspine' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'agentspine'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'agentspine' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('resolve', 'resolve', [CompletionResultType]::ParameterValue, 'Show the instruction chain a host would load for a directory.')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'Show which memory facts would be loaded, and why.')
            [CompletionResult]::new('briefing', 'briefing', [CompletionResultType]::ParameterValue, 'Build a byte-budgeted briefing of every source a request resolves.')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Rank passages of the request''s sources for a question.')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read one source of the request''s catalog again, by its id.')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Report what each agent will miss, cut, shadow or follow out of the repository.')
            [CompletionResult]::new('scope', 'scope', [CompletionResultType]::ParameterValue, 'Show or set the current scope of a project.')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'Inspect or empty the snapshot cache.')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check that agentspine works for a host in a directory.')
            [CompletionResult]::new('source-status', 'source-status', [CompletionResultType]::ParameterValue, 'Show what agentspine resolves for a host in a directory, and why.')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Keep what the agent should learn in this project: preferences, no-gos, corrections, references, and more.')
            [CompletionResult]::new('source-bind', 'source-bind', [CompletionResultType]::ParameterValue, 'Read the accepted portable learning of one project everywhere you work.')
            [CompletionResult]::new('source-rollback', 'source-rollback', [CompletionResultType]::ParameterValue, 'Undo a binding: nothing is read through it from the next call on.')
            [CompletionResult]::new('source-purge', 'source-purge', [CompletionResultType]::ParameterValue, 'Purge a binding: undone for good, and every cache row derived through it removed.')
            [CompletionResult]::new('bindings', 'bindings', [CompletionResultType]::ParameterValue, 'List every binding: id, bound project, hosts, state and counts.')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Show what agentspine recorded: scan errors (event, phase, code, path), required-preflight failures, learning records and binding events.')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the MCP tools over stdio (for an MCP client to launch).')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run as a Claude Code, Codex, Gemini CLI or pi hook: native payload on stdin, the host''s output JSON on stdout.')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add agentspine''s hooks and MCP server to Claude Code, Codex, Gemini CLI, pi, opencode, GitHub Copilot CLI or Kimi Code.')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove what `agentspine install` added, and nothing else.')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve project instructions to a desktop app over a local socket.')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions for agentspine.')
            [CompletionResult]::new('manpage', 'manpage', [CompletionResultType]::ParameterValue, 'Print a man page (roff) on stdout: agentspine''s, or a subcommand''s.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;resolve' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project''s own files, no profile, no memory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'A file or directory whose complete chain (root down to its directory) replaces the working directory''s. Must lie inside the project root')
            [CompletionResult]::new('--codex-profile', '--codex-profile', [CompletionResultType]::ParameterName, 'Codex only: the `--profile NAME` whose `NAME.config.toml` applies')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, '`native`: exactly the text the host puts in its model request. `text`: the sources, for people. `json`: everything, stable (as --json)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Also list every candidate probed, with its verdict, and the file system work (to stderr with `--format native`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;memory' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project''s own files, no profile, no memory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--memory-dir', '--memory-dir', [CompletionResultType]::ParameterName, 'Use this memory directory instead of finding Claude Code''s')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project''s `agentspine scope`]')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'A prompt whose words may make facts relevant')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;briefing' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project''s own files, no profile, no memory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'A file whose chain replaces the working directory''s')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project''s `agentspine scope`]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'A prompt whose words may make memory facts relevant')
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'Byte budget of the briefing')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s)')
            [CompletionResult]::new('--required', '--required', [CompletionResultType]::ParameterName, 'Fail (exit 3, no receipt) unless every required source resolved completely; print a receipt when it did')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;query' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project''s own files, no profile, no memory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'A file whose chain replaces the working directory''s')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project''s `agentspine scope`]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Passages to return, at most')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s)')
            [CompletionResult]::new('--required', '--required', [CompletionResultType]::ParameterName, 'Fail (exit 3, no receipt) unless every required source resolved completely; print a receipt when it did')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;read' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project''s own files, no profile, no memory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'A file whose chain replaces the working directory''s')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project''s `agentspine scope`]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'The prompt of the briefing or query that printed the id, when its words made a memory fact relevant')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s)')
            [CompletionResult]::new('--required', '--required', [CompletionResultType]::ParameterName, 'Fail (exit 3, no receipt) unless every required source resolved completely; print a receipt when it did')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;check' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to check [default: the current directory''s git root]')
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose rules to apply, comma-separated [default: the hosts the repository addresses (a file one reads by name, its configuration directory) and the hosts installed for you (their profile directory exists); the desktop rule, generic and pi-0.73 only when named]')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Also check these directories (inside the root), found or not')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, '`text` for people, `json` (stable), `github` (workflow annotations), `sarif` (SARIF 2.1.0)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--deny', '--deny', [CompletionResultType]::ParameterName, 'Exit with 1 when a finding is at least this severe')
            [CompletionResult]::new('--all-hosts', '--all-hosts', [CompletionResultType]::ParameterName, 'Every agent host (codex, claude, gemini, pi, pi-0.73, opencode, copilot, kimi, desktop)')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Also list the directories where hosts disagree on what applies')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;scope' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Replace the project''s scope with these ids')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the project''s scope (what `agentspine scope` alone does)')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove the project''s scope')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;scope;set' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;scope;show' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;scope;clear' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;scope;help' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Replace the project''s scope with these ids')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the project''s scope (what `agentspine scope` alone does)')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove the project''s scope')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;scope;help;set' {
            break
        }
        'agentspine;scope;help;show' {
            break
        }
        'agentspine;scope;help;clear' {
            break
        }
        'agentspine;scope;help;help' {
            break
        }
        'agentspine;cache' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Rows, bytes and directories held (what `agentspine cache` alone does)')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Drop cached snapshots: of one memory directory with --memory-dir, else all')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;cache;stats' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;cache;purge' {
            [CompletionResult]::new('--memory-dir', '--memory-dir', [CompletionResultType]::ParameterName, 'The memory directory whose snapshots to drop')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;cache;help' {
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Rows, bytes and directories held (what `agentspine cache` alone does)')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Drop cached snapshots: of one memory directory with --memory-dir, else all')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;cache;help;stats' {
            break
        }
        'agentspine;cache;help;purge' {
            break
        }
        'agentspine;cache;help;help' {
            break
        }
        'agentspine;doctor' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project''s own files, no profile, no memory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project''s `agentspine scope`]')
            [CompletionResult]::new('--memory-dir', '--memory-dir', [CompletionResultType]::ParameterName, 'With --offline-memory-orphans: this memory directory instead of Claude Code''s for the working directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--offline-memory-orphans', '--offline-memory-orphans', [CompletionResultType]::ParameterName, 'Count orphans in the memory directory instead (see above)')
            [CompletionResult]::new('--acknowledge', '--acknowledge', [CompletionResultType]::ParameterName, 'Say that you have read what a damaged state database cost (the state store section): agentspine stops telling you about it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;source-status' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Whose loading rules apply [default: $AGENTSPINE_HOST, else generic: the project''s own files, no profile, no memory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope ids that make memory facts relevant, e.g. `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the project''s `agentspine scope`]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;record' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a proposed record (not context until accepted)')
            [CompletionResult]::new('accept', 'accept', [CompletionResultType]::ParameterValue, 'Accept a proposed record: from now on it is context')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the project''s records, oldest first')
            [CompletionResult]::new('retract', 'retract', [CompletionResultType]::ParameterValue, 'Retract a record: it is no longer context (it is kept, marked retracted)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;record;add' {
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'What it is about')
            [CompletionResult]::new('--supersedes', '--supersedes', [CompletionResultType]::ParameterName, 'With --kind correction: the record it corrects (superseded once the correction is accepted)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;record;accept' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;record;list' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;record;retract' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;record;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a proposed record (not context until accepted)')
            [CompletionResult]::new('accept', 'accept', [CompletionResultType]::ParameterValue, 'Accept a proposed record: from now on it is context')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the project''s records, oldest first')
            [CompletionResult]::new('retract', 'retract', [CompletionResultType]::ParameterValue, 'Retract a record: it is no longer context (it is kept, marked retracted)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;record;help;add' {
            break
        }
        'agentspine;record;help;accept' {
            break
        }
        'agentspine;record;help;list' {
            break
        }
        'agentspine;record;help;retract' {
            break
        }
        'agentspine;record;help;help' {
            break
        }
        'agentspine;source-bind' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'The host(s) that read through it, comma-separated: claude, codex, gemini, pi or desktop (one binding each)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Deprecated: `state-user` is the only binding scope, and the default')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project you are binding from (an existing directory)')
            [CompletionResult]::new('--host-home', '--host-home', [CompletionResultType]::ParameterName, 'The host profile you are binding from, e.g. ~/.claude (an existing directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--all-hosts', '--all-hosts', [CompletionResultType]::ParameterName, 'Every host reads through it')
            [CompletionResult]::new('--confirm-local-binding', '--confirm-local-binding', [CompletionResultType]::ParameterName, 'Confirms that you mean to bind')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;source-rollback' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--confirm-local-binding', '--confirm-local-binding', [CompletionResultType]::ParameterName, 'Confirms that you mean it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;source-purge' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--confirm-local-binding', '--confirm-local-binding', [CompletionResultType]::ParameterName, 'Confirms that you mean it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;bindings' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root to bind to, instead of the host''s own rule (git root or root markers) [default: found from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the agent runs in [default: the current directory; with --root, the root when the current directory lies outside it]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;audit' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Only events of this host (claude, codex, gemini, pi, desktop, generic, cli); bindings made for all hosts are shown for every host')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only events at or after TIME: 2026-11-30, 2026-11-30T05:00:00Z, or an age such as 90s, 15m, 2h, 7d')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--verify', '--verify', [CompletionResultType]::ParameterName, 'Verify the binding chain (and print nothing else)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;mcp' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Also allow this project root (repeatable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;hook' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;install' {
            [CompletionResult]::new('--settings', '--settings', [CompletionResultType]::ParameterName, 'Claude Code only: which settings, the user''s (naming this binary''s path) or the project''s, which get committed (naming `agentspine`, found on each user''s PATH)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project directory for `--settings project` [default: the git root of the current directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'User settings only: the program the hooks and MCP entry run, `agentspine` (found on PATH) or an absolute path ending in `/agentspine`, instead of this binary''s path. Needed to install from a cargo build directory (developing agentspine), which install otherwise refuses. `$AGENTSPINE_INSTALL_COMMAND` does the same for user settings when the flag is not given')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would change and write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--trust-hooks', '--trust-hooks', [CompletionResultType]::ParameterName, 'Codex only: also record agentspine''s hooks as trusted in config.toml (what trusting them in Codex''s `/hooks` view records), so Codex runs them without asking. Uninstall removes these records either way')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;uninstall' {
            [CompletionResult]::new('--settings', '--settings', [CompletionResultType]::ParameterName, 'Claude Code only: which settings, the user''s (naming this binary''s path) or the project''s, which get committed (naming `agentspine`, found on each user''s PATH)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project directory for `--settings project` [default: the git root of the current directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would change and write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;serve' {
            [CompletionResult]::new('--socket', '--socket', [CompletionResultType]::ParameterName, 'The socket to listen on [default: $XDG_RUNTIME_DIR/agentspine/agentspine.sock]. A missing directory is created with mode 0700; an existing one must already be private to you (0700 or narrower), or the server refuses')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the human output: auto (only on a terminal, never when NO_COLOR is set), always or never')
            [CompletionResult]::new('--control-token-stdin', '--control-token-stdin', [CompletionResultType]::ParameterName, 'Read the control token from the first line of stdin (at least 32 characters) instead of creating one and writing it beside the socket')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON on stdout; errors too, as {"error":{"code","message","path"}}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the result: no counts, notes, warnings or deprecations on stderr (errors still are)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;manpage' {
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List every page instead: its file name, then its command')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentspine;help' {
            [CompletionResult]::new('resolve', 'resolve', [CompletionResultType]::ParameterValue, 'Show the instruction chain a host would load for a directory.')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'Show which memory facts would be loaded, and why.')
            [CompletionResult]::new('briefing', 'briefing', [CompletionResultType]::ParameterValue, 'Build a byte-budgeted briefing of every source a request resolves.')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Rank passages of the request''s sources for a question.')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read one source of the request''s catalog again, by its id.')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Report what each agent will miss, cut, shadow or follow out of the repository.')
            [CompletionResult]::new('scope', 'scope', [CompletionResultType]::ParameterValue, 'Show or set the current scope of a project.')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'Inspect or empty the snapshot cache.')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check that agentspine works for a host in a directory.')
            [CompletionResult]::new('source-status', 'source-status', [CompletionResultType]::ParameterValue, 'Show what agentspine resolves for a host in a directory, and why.')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Keep what the agent should learn in this project: preferences, no-gos, corrections, references, and more.')
            [CompletionResult]::new('source-bind', 'source-bind', [CompletionResultType]::ParameterValue, 'Read the accepted portable learning of one project everywhere you work.')
            [CompletionResult]::new('source-rollback', 'source-rollback', [CompletionResultType]::ParameterValue, 'Undo a binding: nothing is read through it from the next call on.')
            [CompletionResult]::new('source-purge', 'source-purge', [CompletionResultType]::ParameterValue, 'Purge a binding: undone for good, and every cache row derived through it removed.')
            [CompletionResult]::new('bindings', 'bindings', [CompletionResultType]::ParameterValue, 'List every binding: id, bound project, hosts, state and counts.')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Show what agentspine recorded: scan errors (event, phase, code, path), required-preflight failures, learning records and binding events.')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the MCP tools over stdio (for an MCP client to launch).')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run as a Claude Code, Codex, Gemini CLI or pi hook: native payload on stdin, the host''s output JSON on stdout.')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add agentspine''s hooks and MCP server to Claude Code, Codex, Gemini CLI, pi, opencode, GitHub Copilot CLI or Kimi Code.')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove what `agentspine install` added, and nothing else.')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve project instructions to a desktop app over a local socket.')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions for agentspine.')
            [CompletionResult]::new('manpage', 'manpage', [CompletionResultType]::ParameterValue, 'Print a man page (roff) on stdout: agentspine''s, or a subcommand''s.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentspine;help;resolve' {
            break
        }
        'agentspine;help;memory' {
            break
        }
        'agentspine;help;briefing' {
            break
        }
        'agentspine;help;query' {
            break
        }
        'agentspine;help;read' {
            break
        }
        'agentspine;help;check' {
            break
        }
        'agentspine;help;scope' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Replace the project''s scope with these ids')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the project''s scope (what `agentspine scope` alone does)')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove the project''s scope')
            break
        }
        'agentspine;help;scope;set' {
            break
        }
        'agentspine;help;scope;show' {
            break
        }
        'agentspine;help;scope;clear' {
            break
        }
        'agentspine;help;cache' {
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Rows, bytes and directories held (what `agentspine cache` alone does)')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Drop cached snapshots: of one memory directory with --memory-dir, else all')
            break
        }
        'agentspine;help;cache;stats' {
            break
        }
        'agentspine;help;cache;purge' {
            break
        }
        'agentspine;help;doctor' {
            break
        }
        'agentspine;help;source-status' {
            break
        }
        'agentspine;help;record' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a proposed record (not context until accepted)')
            [CompletionResult]::new('accept', 'accept', [CompletionResultType]::ParameterValue, 'Accept a proposed record: from now on it is context')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the project''s records, oldest first')
            [CompletionResult]::new('retract', 'retract', [CompletionResultType]::ParameterValue, 'Retract a record: it is no longer context (it is kept, marked retracted)')
            break
        }
        'agentspine;help;record;add' {
            break
        }
        'agentspine;help;record;accept' {
            break
        }
        'agentspine;help;record;list' {
            break
        }
        'agentspine;help;record;retract' {
            break
        }
        'agentspine;help;source-bind' {
            break
        }
        'agentspine;help;source-rollback' {
            break
        }
        'agentspine;help;source-purge' {
            break
        }
        'agentspine;help;bindings' {
            break
        }
        'agentspine;help;audit' {
            break
        }
        'agentspine;help;mcp' {
            break
        }
        'agentspine;help;hook' {
            break
        }
        'agentspine;help;install' {
            break
        }
        'agentspine;help;uninstall' {
            break
        }
        'agentspine;help;serve' {
            break
        }
        'agentspine;help;completions' {
            break
        }
        'agentspine;help;manpage' {
            break
        }
        'agentspine;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
