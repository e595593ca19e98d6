#!/usr/bin/env bash
# Start a private, throwaway PostgreSQL server for tests and benchmarks: initdb in a temp folder,
# a random port, a socket in the same folder. Prints the connection URL; `stop` tears it down.
#   url=$(scripts/pg-test-server.sh start /tmp/pgdir)   ...   scripts/pg-test-server.sh stop /tmp/pgdir
#   scripts/pg-test-server.sh restart /tmp/pgdir   (fault tests: cut every connection, come back on the same port)
set -euo pipefail
cmd=${1:?start|restart|stop}
dir=${2:?data folder}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -n "$bin" ] || { echo "PostgreSQL server binaries not found (apt-get install -y postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if [ "$cmd" = start ]; then
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync >"$dir/initdb.log" 2>&1
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
  echo "postgres://postgres@127.0.0.1:$port/postgres"
elif [ "$cmd" = restart ]; then
  # A fast restart (open connections are cut), as an upgrade or a failover would do; same port and settings.
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w restart >/dev/null
elif [ "$cmd" = stop ]; then
  as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
fi
