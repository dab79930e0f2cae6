# Finds or installs what the tests need beyond npm: Chromium, PostgreSQL server binaries, and curl
# and jq (the docs' shell examples run as written).

pg_bin_dir() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && { echo "$dir"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  return 1
}

chromium_bin() {
  local bin
  for bin in "${CHROME_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
    [ -n "$bin" ] && [ -x "$bin" ] && { echo "$bin"; return 0; }
  done
  return 1
}

ensure_requirements() {
  local missing=()
  chromium_bin >/dev/null || missing+=(chromium)
  pg_bin_dir >/dev/null || missing+=(postgresql)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v jq >/dev/null 2>&1 || missing+=(jq)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "installing ${missing[*]} with apt-get (first run on this machine)…"
      DEBIAN_FRONTEND=noninteractive apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      echo "The tests need: ${missing[*]}." >&2
      echo "On Debian or Ubuntu: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
      echo "Elsewhere: install Chromium, PostgreSQL 15+ (initdb, pg_ctl on PATH), curl and jq, and set CHROME_PATH if needed." >&2
      exit 1
    fi
  fi
  CHROME_PATH=$(chromium_bin)
  PG_BIN=$(pg_bin_dir)
  export CHROME_PATH PG_BIN
  echo "chromium: $CHROME_PATH"
  echo "postgresql: $PG_BIN"
}
