#!/usr/bin/env bash
# Adds the gateway's two sign-in callbacks to [auth] additional_redirect_urls
# of the platform's supabase/config.toml, so Supabase Auth sends people back
# to the gateway instead of the Site URL: the OAuth server's
# (PUBLIC_URL/functions/v1/mcp-server/oauth/callback) and the write tools'
# approval page's (PUBLIC_URL/functions/v1/mcp-server/approve/callback,
# used with GATEWAY_WRITE_TOOLS=on). It is idempotent. Then restart the
# stack: (cd ../platform && supabase stop && supabase start).
#
#   deploy/supabase-cli/allow-redirects.sh ../platform/supabase/config.toml [PUBLIC_URL]
#
# PUBLIC_URL defaults to $PUBLIC_URL, else http://127.0.0.1:54321 (the same
# setting as gateway.env's).
set -euo pipefail
config=${1:?usage: $0 <platform>/supabase/config.toml [PUBLIC_URL]}
public=${2:-${PUBLIC_URL:-http://127.0.0.1:54321}}
public=${public%/}
if [[ ! -f "$config" ]]; then
  echo "$config not found" >&2
  exit 1
fi
urls=("$public/functions/v1/mcp-server/oauth/callback" "$public/functions/v1/mcp-server/approve/callback")

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# In the [auth] table: extend a one-line additional_redirect_urls array, or
# add the key after the table's header when it has none.
awk -v list="$(printf '%s\n' "${urls[@]}")" '
  function add(line,   n, u, i, inner) {
    n = split(list, u, "\n")
    inner = line
    sub(/^[^[]*\[/, "", inner)
    sub(/\][[:space:]]*$/, "", inner)
    for (i = 1; i <= n; i++) {
      if (u[i] == "" || index(inner, "\"" u[i] "\"")) continue
      inner = (inner ~ /[^[:space:]]/ ? inner ", " : "") "\"" u[i] "\""
    }
    return "additional_redirect_urls = [" inner "]"
  }
  /^\[/ {
    if (inauth && !done) { print add("[]"); done = 1 }
    inauth = ($0 ~ /^\[auth\][[:space:]]*$/)
  }
  inauth && /^additional_redirect_urls[[:space:]]*=/ {
    if ($0 !~ /\][[:space:]]*$/) { bad = 1 }
    else { print add($0); done = 1; next }
  }
  { print }
  END {
    if (inauth && !done) { print add("[]"); done = 1 }
    if (bad) exit 4
    if (!done) exit 3
  }
' "$config" >"$tmp" || {
  case $? in
    4) echo "$config: additional_redirect_urls spans several lines; add ${urls[*]} to it by hand" >&2 ;;
    *) echo "$config: no [auth] table" >&2 ;;
  esac
  exit 1
}
cat "$tmp" >"$config"
echo "Supabase Auth may now return to ${urls[*]} (after supabase stop && supabase start)"
