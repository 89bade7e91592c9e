#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the archive's PostgreSQL tests.
#
# Usage: ./scripts/postgres.sh start   starts it (or finds it running) and prints its URL,
#                                      postgres://postgres@127.0.0.1:<port>/postgres
#        ./scripts/postgres.sh ca      prints the CA certificate its TLS certificate chains to
#                                      (only when openssl was there to make one)
#        ./scripts/postgres.sh stop    stops it and deletes its data
#
# Uses Debian's server binaries (/usr/lib/postgresql/<major>/bin, installed by
# scripts/install-tools.sh). PostgreSQL refuses to run as root, so as root the server runs as
# the `postgres` user the package creates. Data lives in a fresh directory under /tmp; trust
# authentication on 127.0.0.1 only. With openssl present the server also speaks TLS, with a
# certificate for 127.0.0.1 from a throwaway CA, so the archive's TLS path is tested too. Exits non-zero (with the reason on stderr) where it cannot
# start; scripts/test.sh then skips those tests with a notice.
set -euo pipefail

PORT="${ONEBOT_GATEWAY_TEST_PG_PORT:-54329}"
DIR="/tmp/onebot-gateway-pg-$PORT"
URL="postgres://postgres@127.0.0.1:$PORT/postgres"

bin_dir() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$found" ] || [ ! -x "$found/postgres" ]; then
    echo "no PostgreSQL server binaries under /usr/lib/postgresql (run scripts/install-tools.sh)" >&2
    return 1
  fi
  echo "$found"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "${1:-}" in
  start)
    BIN="$(bin_dir)"
    if [ -f "$DIR/postmaster.pid" ] && as_owner "$BIN/pg_ctl" status -D "$DIR" >/dev/null 2>&1; then
      echo "$URL"
      exit 0
    fi
    rm -rf "$DIR"
    mkdir -p "$DIR"
    if [ "$(id -u)" = 0 ]; then
      chown postgres:postgres "$DIR"
    fi
    as_owner "$BIN/initdb" -D "$DIR" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$DIR.initdb.log" 2>&1 \
      || { cat "$DIR.initdb.log" >&2; exit 1; }
    OPTS="-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c full_page_writes=off"
    if command -v openssl >/dev/null 2>&1; then
      TLS="$DIR.tls"
      rm -rf "$TLS" && mkdir -p "$TLS"
      openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=onebot-gateway test CA" \
        -keyout "$TLS/ca.key" -out "$TLS/ca.crt" 2>/dev/null
      openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$TLS/server.key" -out "$TLS/server.csr" 2>/dev/null
      printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$TLS/ext.cnf"
      openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.crt" -CAkey "$TLS/ca.key" -CAcreateserial \
        -days 2 -extfile "$TLS/ext.cnf" -out "$TLS/server.crt" 2>/dev/null
      cp "$TLS/server.crt" "$TLS/server.key" "$DIR/"
      chmod 600 "$DIR/server.key"
      if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$DIR/server.crt" "$DIR/server.key"
      fi
      OPTS="$OPTS -c ssl=on -c ssl_cert_file=$DIR/server.crt -c ssl_key_file=$DIR/server.key"
    fi
    as_owner "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 60 -o "$OPTS" start >/dev/null \
      || { cat "$DIR/server.log" >&2; exit 1; }
    echo "$URL"
    ;;
  ca)
    if [ -f "$DIR.tls/ca.crt" ]; then
      echo "$DIR.tls/ca.crt"
    else
      exit 1
    fi
    ;;
  stop)
    BIN="$(bin_dir)" || exit 0
    if [ -d "$DIR" ]; then
      as_owner "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >/dev/null 2>&1 || true
      rm -rf "$DIR" "$DIR.initdb.log" "$DIR.tls"
    fi
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
