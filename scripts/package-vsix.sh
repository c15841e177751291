#!/usr/bin/env bash
# Builds the platform VS Code extension (.vsix) with the abidoc binary inside:
#   cargo build (release by default) -> extensions/vscode/server/abidoc, grammars copied,
#   extension bundled with esbuild, packaged with @vscode/vsce for linux-x64.
# Usage: scripts/package-vsix.sh [--debug] [--binary FILE] [--out FILE]
#   --debug   package the dev-profile binary (what the end-to-end test uses: much faster to build)
#   --binary  package this abidoc binary instead of building one
# Prints the path of the .vsix on its last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
profile=release
out=""
bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) profile=debug ;;
    --out) out=$2; shift ;;
    --binary) bin=$2; shift ;;
    *) echo "package-vsix.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
ext="$root/extensions/vscode"
version=$(node -p "require('$ext/package.json').version")
[ -n "$out" ] || out="$root/target/vsix/abidoc-linux-x64-$version.vsix"
mkdir -p "$(dirname "$out")"

if [ -z "$bin" ]; then
  if [ "$profile" = release ]; then
    cargo build --release --locked -p abidoc --manifest-path "$root/Cargo.toml" >&2
  else
    cargo build --locked -p abidoc --manifest-path "$root/Cargo.toml" >&2
  fi
  target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')
  bin="$target_dir/$profile/abidoc"
  if [ "$profile" = debug ]; then strip_debug=1; fi
fi
"$bin" --version >&2

mkdir -p "$ext/server"
install -m 0755 "$bin" "$ext/server/abidoc"
if [ -n "${strip_debug:-}" ] && command -v strip >/dev/null; then
  # A dev build carries ~100 MB of DWARF; the test only needs the code.
  strip --strip-debug "$ext/server/abidoc"
fi
cd "$ext"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
npm run -s bundle >&2
# The bundle holds every dependency, so node_modules stays out (--no-dependencies).
npx --yes @vscode/vsce@3.9.2 package --target linux-x64 --no-dependencies --skip-license --allow-missing-repository -o "$out" >&2
echo "$out"
