#!/usr/bin/env bash
# Adds the gateway's routes to the running Kong of a Supabase CLI stack.
# The CLI renders Kong's declarative config from a template on every
# `supabase start`, so run this again after each start. It is idempotent.
#
#   deploy/supabase-cli/patch-kong.sh <project_id>
set -euo pipefail
project_id=${1:-${SUPABASE_PROJECT_ID:-}}
if [[ -z "$project_id" ]]; then
  echo "usage: $0 <project_id>   (project_id from supabase/config.toml)" >&2
  exit 2
fi
container="supabase_kong_${project_id}"
config=/home/kong/kong.yml
marker="# mcp-gateway routes"

if ! docker exec "$container" true 2>/dev/null; then
  echo "Kong container $container is not running; run 'supabase start' first" >&2
  exit 1
fi
if docker exec "$container" grep -qF "$marker" "$config"; then
  echo "Kong already routes to mcp-gateway"
  exit 0
fi

# Kong picks the longest matching path, so these routes win over the
# catch-all /functions/v1/ route without touching it.
block=$(cat <<'YAML'
  # mcp-gateway routes
  - name: mcp-gateway
    url: http://mcp-gateway:9000
    routes:
      - name: mcp-gateway-functions
        strip_path: false
        paths:
          - /functions/v1/mcp-server
          - /functions/v1/mcp-tokens
          - /.well-known/oauth-protected-resource
          - /.well-known/oauth-authorization-server/functions/v1/mcp-server
          - /.well-known/openid-configuration/functions/v1/mcp-server
YAML
)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
docker exec "$container" cat "$config" >"$tmp"
awk -v block="$block" '{ print } /^services:[[:space:]]*$/ && !done { print block; done=1 }' "$tmp" >"$tmp.new"
if ! grep -qF "$marker" "$tmp.new"; then
  echo "could not find the 'services:' list in $config" >&2
  exit 1
fi
docker exec -i "$container" sh -c "cat > $config" <"$tmp.new"
rm -f "$tmp.new"
docker exec "$container" kong reload >/dev/null
echo "Kong now routes /functions/v1/mcp-server and /functions/v1/mcp-tokens to mcp-gateway"
