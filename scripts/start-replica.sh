#!/usr/bin/env bash
# A real PostgreSQL streaming replica of the local primary (127.0.0.1:5432), on this machine,
# for the tests of "Reads off the primary" (docs/floor-replica.md). Not how a casino runs its
# standby: that is a server of its own, set up by its DBA (the doc says how).
#
#   scripts/start-replica.sh [start] [--allow-replication] [--port N] [--data-dir DIR]
#   scripts/start-replica.sh stop [--port N] [--data-dir DIR] [--remove]
#   scripts/start-replica.sh status [--port N]
#
# start: pg_basebackup -R of the primary into DIR (default /tmp/table-replica-PORT), its own
# configuration (the port, the primary's connection limits, which a standby needs at least as
# high), started with pg_ctl as the postgres OS user when run as root (PostgreSQL refuses root),
# then waits until it accepts connections, is in recovery (pg_is_in_recovery()) and streams
# from the primary. Idempotent: a replica already answering on PORT is reused, a stopped one in
# DIR is started again, one that can no longer follow the primary (its WAL was recycled: the
# script makes no replication slot, so nothing is kept on the primary for a replica that is
# gone) is made again. Prints the replica's URL last, on its own line.
#
# The primary must accept replication connections from 127.0.0.1. A `host all ...` line does
# not cover them: pg_hba.conf needs a line for the `replication` database. When it is missing
# the script prints the line and the file and stops; with --allow-replication it appends
#     host replication all 127.0.0.1/32 trust
# to the primary's pg_hba.conf and reloads it (for a test host: trust, as its other lines).
set -euo pipefail

action="start"
port="${TABLE_REPLICA_PORT:-5433}"
data_dir="${TABLE_REPLICA_DIR:-}"
primary_host="127.0.0.1"
primary_port="${TABLE_REPLICA_PRIMARY_PORT:-5432}"
database="${TABLE_TEST_POSTGRES_DB:-test}"
allow_replication=0
remove=0
hba_line="host replication all 127.0.0.1/32 trust"

usage() { sed -n '6,8p' "$0" | sed 's/^# *//' >&2; exit 2; }
say() { echo "start-replica: $*" >&2; }

while [ $# -gt 0 ]; do
    case "$1" in
        start|stop|status) action="$1" ;;
        --port) port="$2"; shift ;;
        --data-dir) data_dir="$2"; shift ;;
        --allow-replication) allow_replication=1 ;;
        --remove) remove=1 ;;
        -h|--help) usage ;;
        *) say "unknown argument $1"; usage ;;
    esac
    shift
done
data_dir="${data_dir:-/tmp/table-replica-$port}"
url="postgresql+psycopg://postgres@127.0.0.1:$port/$database"

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
    say "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"
    exit 1
fi

# PostgreSQL will not run as root: as root, its commands run as the postgres OS user.
as_postgres() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# One query, on the primary (p) or the replica (r); prints the value, nothing when unreachable.
query() {
    local where="$1" sql="$2" at="$primary_port"
    [ "$where" = r ] && at="$port"
    psql -X -q -h 127.0.0.1 -p "$at" -U postgres -d postgres -tAc "$sql" 2>/dev/null || true
}

replica_answers() { [ "$(query r 'SELECT pg_is_in_recovery()')" = t ]; }
streaming() { [ "$(query r "SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'")" = 1 ]; }

stop_replica() {
    if [ -f "$data_dir/postmaster.pid" ]; then
        as_postgres "$bin/pg_ctl" -D "$data_dir" -m fast -w stop >/dev/null
    fi
}

case "$action" in
    status)
        if replica_answers; then
            echo "replica on port $port: in recovery, streaming=$(streaming && echo yes || echo no)," \
                "replay paused=$(query r 'SELECT pg_is_wal_replay_paused()')"
            echo "$url"
            exit 0
        fi
        echo "no replica answers on port $port" >&2
        exit 1
        ;;
    stop)
        stop_replica
        if [ "$remove" = 1 ] && [ -f "$data_dir/.table-replica" ]; then
            rm -rf "$data_dir" "/tmp/table-replica-$port.lock"
        fi
        exit 0
        ;;
esac

# -- start ----------------------------------------------------------------------------------------
# Two callers at once (two test hosts' setups) take turns.
exec 9>"/tmp/table-replica-$port.lock"
flock 9

if replica_answers; then
    if ! streaming; then  # a replay paused by a test still streams; a receiver that stopped does not
        say "warning: the replica on port $port answers but does not stream from the primary"
    fi
    echo "$url"
    exit 0
fi
if pg_isready -q -h 127.0.0.1 -p "$port"; then
    say "port $port answers but is not a replica (pg_is_in_recovery() is not true): choose another --port"
    exit 1
fi

if ! pg_isready -q -h "$primary_host" -p "$primary_port"; then
    say "no primary answers at $primary_host:$primary_port: start it first (scripts/start-postgres.sh)"
    exit 1
fi

# The primary's side of streaming replication: WAL for a standby, and a sender for it.
wal_level="$(query p 'SHOW wal_level')"
senders="$(query p 'SHOW max_wal_senders')"
if [ "$wal_level" = minimal ] || [ "${senders:-0}" = 0 ]; then
    say "the primary cannot stream: wal_level=$wal_level max_wal_senders=$senders;" \
        "set wal_level = replica and max_wal_senders = 10 in its postgresql.conf and restart it"
    exit 1
fi

# Its pg_hba.conf must let a replication connection in from 127.0.0.1.
replication_refusal() {
    psql -X -q -d "host=$primary_host port=$primary_port user=postgres replication=true" \
        -c "IDENTIFY_SYSTEM" >/dev/null 2>&1 && return 0
    psql -X -q -d "host=$primary_host port=$primary_port user=postgres replication=true" \
        -c "IDENTIFY_SYSTEM" 2>&1 >/dev/null | head -n 1
    return 1
}
if ! refusal="$(replication_refusal)"; then
    hba_file="$(query p 'SHOW hba_file')"
    if [ "$allow_replication" != 1 ]; then
        say "the primary refuses replication connections: $refusal"
        say "add this line to $hba_file and reload the primary (SELECT pg_reload_conf()):"
        say "    $hba_line"
        say "or run again with --allow-replication to have this script do exactly that"
        exit 1
    fi
    say "adding '$hba_line' to $hba_file and reloading the primary (--allow-replication)"
    [ -n "$(tail -c 1 "$hba_file")" ] && echo >>"$hba_file"  # the file's last line, ended
    printf '# streaming replica of this machine (scripts/start-replica.sh --allow-replication)\n%s\n' \
        "$hba_line" >>"$hba_file"
    query p 'SELECT pg_reload_conf()' >/dev/null
    for _ in $(seq 1 25); do
        replication_refusal >/dev/null && break
        sleep 0.2
    done
    if ! refusal="$(replication_refusal)"; then
        say "the primary still refuses replication after the reload: $refusal"
        exit 1
    fi
fi

start_replica() {
    # 9>&-: the server must not inherit the lock of this script (it would hold it for its life)
    as_postgres "$bin/pg_ctl" -D "$data_dir" -l "$data_dir/log/replica.log" -w -t 60 start >/dev/null 9>&-
    for _ in $(seq 1 100); do
        replica_answers && streaming && return 0
        sleep 0.2
    done
    return 1
}

base_backup() {
    say "base backup of $primary_host:$primary_port into $data_dir"
    mkdir -p "$(dirname "$data_dir")"
    install -d -m 0700 "$data_dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$data_dir"
    # -R: standby.signal and primary_conninfo; -X stream: the WAL of the copy itself; -c fast:
    # no waiting for the primary's next spread checkpoint.
    as_postgres "$bin/pg_basebackup" -h "$primary_host" -p "$primary_port" -U postgres \
        -D "$data_dir" -R -X stream -c fast
    # Debian keeps a cluster's configuration under /etc, not in its data directory: the copy
    # gets its own. A standby needs these limits at least as high as its primary's.
    local name limits=""
    for name in max_connections max_worker_processes max_wal_senders max_prepared_transactions \
        max_locks_per_transaction; do
        limits+="$name = $(query p "SHOW $name")"$'\n'
    done
    as_postgres tee "$data_dir/postgresql.conf" >/dev/null <<EOF
# the streaming replica of scripts/start-replica.sh (a test host's; docs/floor-replica.md)
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$data_dir'
hba_file = '$data_dir/pg_hba.conf'
hot_standby = on
hot_standby_feedback = on
shared_buffers = 32MB
# restart points often: a restart replays the WAL since the last one (a test host's primary
# writes a lot of it)
checkpoint_timeout = 1min
cluster_name = 'table-replica-$port'
$limits
EOF
    as_postgres tee "$data_dir/pg_hba.conf" >/dev/null <<EOF
local all all trust
host all all 127.0.0.1/32 trust
EOF
    as_postgres touch "$data_dir/pg_ident.conf"
    as_postgres mkdir -p "$data_dir/log"
    as_postgres touch "$data_dir/.table-replica"
}

if [ -f "$data_dir/standby.signal" ] && [ -f "$data_dir/.table-replica" ]; then
    stop_replica 2>/dev/null || true  # a server left behind that does not answer
    if ! start_replica; then
        say "the replica in $data_dir does not follow the primary any more (see" \
            "$data_dir/log/replica.log); making it again"
        stop_replica || true
        rm -rf "$data_dir"
    fi
elif [ -e "$data_dir" ] && [ -n "$(ls -A "$data_dir" 2>/dev/null)" ]; then
    say "$data_dir exists and is not a replica made by this script: remove it or choose --data-dir"
    exit 1
fi

if ! replica_answers; then
    base_backup
    if ! start_replica; then
        say "the replica did not come up streaming; its log, $data_dir/log/replica.log, ends:"
        tail -n 20 "$data_dir/log/replica.log" >&2 || true
        exit 1
    fi
fi

say "replica on port $port, in recovery and streaming from $primary_host:$primary_port"
echo "$url"
