# A throwaway PostgreSQL cluster on loopback for one test run. initdb and pg_ctl refuse to run as
# root, so as root they run as the postgres user in a directory that user owns.

as_pg_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start_test_postgres() {
  TEST_PG_DIR=$(mktemp -d /tmp/svc-pg-XXXXXX)
  chmod 755 "$TEST_PG_DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$TEST_PG_DIR"
  TEST_PG_PORT=$(free_port)
  as_pg_user "$PG_BIN/initdb" -D "$TEST_PG_DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
  as_pg_user "$PG_BIN/pg_ctl" -D "$TEST_PG_DIR/data" -l "$TEST_PG_DIR/log" -w start \
    -o "-p $TEST_PG_PORT -k $TEST_PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" >/dev/null
  TEST_PG_URL="postgres://postgres@127.0.0.1:$TEST_PG_PORT/postgres"
  export TEST_PG_DIR TEST_PG_PORT TEST_PG_URL
  echo "PostgreSQL on 127.0.0.1:$TEST_PG_PORT ($TEST_PG_DIR)"
}

stop_test_postgres() {
  [ -n "${TEST_PG_DIR:-}" ] || return 0
  as_pg_user "$PG_BIN/pg_ctl" -D "$TEST_PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$TEST_PG_DIR"
}
