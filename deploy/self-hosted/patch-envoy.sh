#!/usr/bin/env bash
# Adds the gateway to the Envoy configuration of a self-hosted Supabase
# (supabase/docker, where Envoy is the default API gateway): the routes of
# envoy-routes.yaml go first in the virtual host's routes of
# volumes/api/envoy/lds.template.yaml, and the cluster of envoy-cds.yaml is
# appended to the resources of volumes/api/envoy/cds.yaml. Run it from
# anywhere, naming Supabase's docker directory (default: the current one),
# then restart Envoy (docker compose restart api-gw). It is idempotent, and
# running it again after an upgrade of this repository replaces the block
# it added before.
#
#   deploy/self-hosted/patch-envoy.sh [path/to/supabase/docker]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-.}
lds="$dir/volumes/api/envoy/lds.template.yaml"
cds="$dir/volumes/api/envoy/cds.yaml"
begin="# >>> mcp-gateway (deploy/self-hosted)"
end="# <<< mcp-gateway"
for f in "$lds" "$cds"; do
  if [[ ! -f "$f" ]]; then
    echo "$f not found: name the directory of Supabase's docker-compose.yml (with volumes/api/envoy)" >&2
    exit 1
  fi
done

# body FILE KEY: the lines after the top-level "KEY:" line of one of our
# snippets (its list items, indented by two).
body() { awk -v key="$2:" 'found { print } $0 == key { found = 1 }' "$1"; }

# strip FILE: FILE without a block this script added before.
strip() { awk -v b="$begin" -v e="$end" 'index($0, b) { skip = 1 } !skip { print } index($0, e) { skip = 0 }' "$1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Routes: before the first route of the first "routes:" list after
# "virtual_hosts:", re-indented to that list's depth.
body "$here/envoy-routes.yaml" routes >"$tmp/routes"
strip "$lds" >"$tmp/lds"
awk -v b="$begin" -v e="$end" -v block="$tmp/routes" '
  /^[ ]*virtual_hosts:[ ]*$/ { inhosts = 1 }
  inhosts && !done && /^[ ]*routes:[ ]*$/ {
    print
    ind = substr($0, 1, match($0, /[^ ]/) - 1)
    print ind "  " b
    while ((getline line < block) > 0) print (line == "" ? "" : ind line)
    print ind "  " e
    done = 1
    next
  }
  { print }
  END { if (!done) exit 3 }
' "$tmp/lds" >"$tmp/lds.new" || {
  echo "$lds: found no routes: list under virtual_hosts:" >&2
  exit 1
}

# Cluster: appended to cds.yaml's top-level resources list.
if ! grep -q '^resources:[[:space:]]*$' "$cds"; then
  echo "$cds: found no top-level resources: list" >&2
  exit 1
fi
strip "$cds" >"$tmp/cds.new"
{
  echo "  $begin"
  body "$here/envoy-cds.yaml" resources
  echo "  $end"
} >>"$tmp/cds.new"

cat "$tmp/lds.new" >"$lds"
cat "$tmp/cds.new" >"$cds"
echo "Envoy routes /functions/v1/mcp-server, /functions/v1/mcp-tokens and the OAuth metadata to mcp-gateway after: docker compose restart api-gw"
