#!/usr/bin/env bash
# Everything the test suite needs from the host, started or installed once, before the tests:
# the local PostgreSQL (scripts/start-postgres.sh) and a streaming replica of it
# (scripts/start-replica.sh), and the headless browser of the web-page tests
# (scripts/install-browser.sh). Idempotent. The tests themselves change nothing on the
# host: a test that finds a service missing fails and names this script.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/start-postgres.sh"
# a streaming replica of it on port 5433 (tests/test_replica.py); on a test host the primary
# may be given the pg_hba.conf line replication needs (start-replica.sh says which)
bash "$here/start-replica.sh" --allow-replication >/dev/null
bash "$here/install-browser.sh"
