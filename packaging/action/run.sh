#!/usr/bin/env bash
# The GitHub Action's work (action.yml at the repository root runs this
# one step, then uploads the SARIF log): find or install agentspine, run
# `agentspine check --format sarif` into a file, then the same check with
# `--deny` for the job's verdict. Inputs come as INPUT_* variables, the
# runner's as GITHUB_* and RUNNER_*, so tests/check/action.py runs it
# directly with a fake runner environment.
#
#   INPUT_BINARY             an agentspine to use (a path, or a name on PATH)
#   INPUT_BUILD              true: cargo install this checkout of agentspine
#   INPUT_VERSION            else the release to download: latest, or a tag (v0.1.0)
#   INPUT_RELEASES_URL       where releases are: <url>/download/<tag>/agentspine-<target>
#   INPUT_WORKING_DIRECTORY  the project root to check, inside GITHUB_WORKSPACE
#   INPUT_HOSTS              comma-separated hosts (default: check's own, the hosts the repository addresses)
#   INPUT_ARGS               more `check` arguments (not --format, --deny)
#   INPUT_DENY               error, warning or none
#   INPUT_ANNOTATIONS        true: the deny run prints workflow annotations
#   INPUT_SARIF_FILE         where the log goes (default: RUNNER_TEMP/agentspine.sarif)
#
# Needs bash, python3 (sarif.py) and, to download, curl and sha256sum or
# shasum: GitHub's Linux and macOS runners have them all.
# Outputs: agentspine, version, sarif-file, errors, warnings, notes, denied.
# Exit status: 0 passed, 1 a finding at least as severe as INPUT_DENY
# (the log is written: upload it anyway), 2 anything else (an ::error line
# on stdout names it).
set -euo pipefail

action_root=$(cd "$(dirname "$0")/../.." && pwd)
temp="${RUNNER_TEMP:-$(mktemp -d)}"
workspace="${GITHUB_WORKSPACE:-$PWD}"
install_root="$temp/agentspine"

# A workflow error command on the step's stdout (fd 3: inside a command
# substitution stdout is the substitution's), and exit 2.
exec 3>&1
fail() {
  echo "::error title=agentspine action::$*" >&3
  exit 2
}

output() {
  [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  return 0
}

flag() {
  case "${2:-}" in
    true | false) printf '%s' "$2" ;;
    '') printf 'false' ;;
    *) fail "input $1 must be true or false, not '$2'" ;;
  esac
}

# The release binary's target for this runner, as scripts/dist names it.
release_target() {
  local arch os
  case "${RUNNER_ARCH:-$(uname -m)}" in
    X64 | x86_64 | amd64) arch=x86_64 ;;
    ARM64 | aarch64 | arm64) arch=aarch64 ;;
    *) fail "no release binary for the ${RUNNER_ARCH:-$(uname -m)} architecture (x86_64 and aarch64 are built); set build: true" ;;
  esac
  case "${RUNNER_OS:-$(uname -s)}" in
    Linux) os=unknown-linux-musl ;;
    macOS | Darwin) os=apple-darwin ;;
    *) fail "agentspine runs on Linux and macOS, not ${RUNNER_OS:-$(uname -s)}" ;;
  esac
  printf '%s-%s' "$arch" "$os"
}

# Downloads the release binary and its .sha256, and installs it only when
# the checksum matches.
download() {
  local target base version url dir
  target=$(release_target) || exit 2
  base="${INPUT_RELEASES_URL:-https://github.com/agentspine/agentspine/releases}"
  base="${base%/}"
  version="${INPUT_VERSION:-latest}"
  case "$version" in
    latest) url="$base/latest/download" ;;
    *) url="$base/download/v${version#v}" ;;
  esac
  command -v curl >/dev/null || fail "curl is needed to download agentspine"
  dir="$temp/agentspine-download"
  rm -rf "$dir"
  mkdir -p "$dir" "$install_root/bin"
  for file in "agentspine-$target" "agentspine-$target.sha256"; do
    curl -fsSL --retry 3 -o "$dir/$file" "$url/$file" \
      || fail "cannot download $url/$file (version: $version; set binary or build: true to use another agentspine)"
  done
  if command -v sha256sum >/dev/null; then
    (cd "$dir" && sha256sum --quiet -c "agentspine-$target.sha256") >&2
  else
    (cd "$dir" && shasum -a 256 -c "agentspine-$target.sha256") >&2
  fi || fail "agentspine-$target does not match its checksum (agentspine-$target.sha256): not installed"
  chmod +x "$dir/agentspine-$target"
  mv "$dir/agentspine-$target" "$install_root/bin/agentspine"
  rm -rf "$dir"
  printf '%s' "$install_root/bin/agentspine"
}

# Builds the agentspine this action was checked out at.
build() {
  command -v cargo >/dev/null || fail "build: true needs cargo (Rust 1.95 or newer) on PATH"
  [ -f "$action_root/crates/agentspine/Cargo.toml" ] || fail "build: true needs the action's own source, and $action_root has none"
  cargo install --locked --path "$action_root/crates/agentspine" --root "$install_root" >&2 \
    || fail "cargo install of $action_root/crates/agentspine failed"
  printf '%s' "$install_root/bin/agentspine"
}

# --- the binary
build_flag=$(flag build "${INPUT_BUILD:-}")
annotations=$(flag annotations "${INPUT_ANNOTATIONS:-true}")
case "${INPUT_DENY:-error}" in
  error | warning) deny=(--deny "${INPUT_DENY:-error}") ;;
  none) deny=() ;;
  *) fail "input deny must be error, warning or none, not '$INPUT_DENY'" ;;
esac
if [ -n "${INPUT_BINARY:-}" ]; then
  bin=$(command -v -- "$INPUT_BINARY" || true)
  [ -n "$bin" ] && [ -x "$bin" ] || fail "binary: $INPUT_BINARY is not an executable file or a command on PATH"
  case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
elif [ "$build_flag" = true ]; then
  bin=$(build)
else
  bin=$(download)
fi
version=$("$bin" --version) || fail "$bin --version failed"
echo "using $bin: $version" >&2
output agentspine "$bin"
output version "$version"
[ -n "${GITHUB_PATH:-}" ] && dirname "$bin" >>"$GITHUB_PATH"

# --- the check
cd "$workspace" || fail "GITHUB_WORKSPACE $workspace is not a directory"
cd "${INPUT_WORKING_DIRECTORY:-.}" || fail "working-directory ${INPUT_WORKING_DIRECTORY:-.} is not a directory in $workspace"
root=$(pwd -P)
check=(check --root "$root")
[ -n "${INPUT_HOSTS:-}" ] && check+=(--host "$INPUT_HOSTS")
read -r -a extra <<<"${INPUT_ARGS:-}"
check+=(${extra[@]+"${extra[@]}"})

sarif="${INPUT_SARIF_FILE:-$temp/agentspine.sarif}"
case "$sarif" in /*) ;; *) sarif="$workspace/$sarif" ;; esac
mkdir -p "$(dirname "$sarif")"
"$bin" "${check[@]}" --format sarif >"$sarif" || fail "agentspine ${check[*]} --format sarif failed (exit $?)"

# Code scanning places a result by its path from the repository root
# (sarif.py puts the working directory in front); the count per level.
counts=$(python3 "$action_root/packaging/action/sarif.py" "$sarif" "$root" "$(cd "$workspace" && pwd -P)") || fail "cannot read the SARIF log $sarif"
read -r errors warnings notes <<<"$counts"
output sarif-file "$sarif"
output errors "$errors"
output warnings "$warnings"
output notes "$notes"

# --- the verdict: the same check with --deny, for people (annotations or text)
format=text
[ "$annotations" = true ] && format=github
status=0
"$bin" "${check[@]}" --format "$format" ${deny[@]+"${deny[@]}"} || status=$?
case "$status" in
  0) denied=false ;;
  1) denied=true ;;
  *) fail "agentspine ${check[*]} failed (exit $status)" ;;
esac
output denied "$denied"
plural() { [ "$1" = 1 ] && printf '1 %s' "$2" || printf '%s %ss' "$1" "$2"; }
summary="agentspine check: $(plural "$errors" error), $(plural "$warnings" warning), $(plural "$notes" note)"
if [ "${#deny[@]}" -gt 0 ]; then
  summary="$summary; --deny ${deny[1]}: $([ "$denied" = true ] && echo failed || echo passed)"
fi
echo "$summary" >&2
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && echo "$summary" >>"$GITHUB_STEP_SUMMARY"
[ "$denied" = true ] && exit 1
exit 0
