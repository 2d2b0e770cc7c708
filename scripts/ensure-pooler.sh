#!/usr/bin/env bash
# The scale-out stress test and the benchmark's pooled row run several server
# processes behind Debian's HAProxy, on PostgreSQL through Debian's PgBouncer
# (docs/host-guide.md, "Connection poolers"). Installs both when missing; needs root
# and apt. Only the binaries are used: the packages' own services are stopped and
# disabled, since the tests start their own on free ports.
set -euo pipefail
if command -v pgbouncer >/dev/null && command -v haproxy >/dev/null; then exit 0; fi
echo "Installing Debian's pgbouncer and haproxy for the scale-out tests..."
bash "$(dirname "$0")/apt-install.sh" pgbouncer haproxy
