#!/usr/bin/env bash
# Start the local PostgreSQL cluster the storage tests use, if it is not running, and make
# sure the test database exists. Idempotent. Used by tests/storage/conftest.py when no server
# answers at TABLE_TEST_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test, trust
# auth). CI with a PostgreSQL service container sets TABLE_TEST_POSTGRES_URL instead.
set -euo pipefail

database="${TABLE_TEST_POSTGRES_DB:-test}"

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "start-postgres: pg_ctlcluster not found; install postgresql or set TABLE_TEST_POSTGRES_URL" >&2
    exit 1
fi

version="$(ls /etc/postgresql | sort -V | tail -n 1)"
if [ -z "$version" ]; then
    echo "start-postgres: no cluster under /etc/postgresql" >&2
    exit 1
fi

if ! pg_ctlcluster "$version" main status >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
fi

for _ in $(seq 1 50); do
    if pg_isready -h 127.0.0.1 -p 5432 -q; then
        break
    fi
    sleep 0.2
done
pg_isready -h 127.0.0.1 -p 5432

if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1; then
    psql -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE \"$database\""
fi
