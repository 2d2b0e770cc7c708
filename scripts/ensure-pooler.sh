#!/usr/bin/env bash
# Installs Debian's HAProxy and PgBouncer when missing (root and apt), for the stress test and the benchmark's pooled
# run; only the binaries are used, so the packages' own services are stopped and disabled.
set -euo pipefail
if command -v pgbouncer >/dev/null && command -v haproxy >/dev/null; then exit 0; fi
echo "Installing Debian's pgbouncer and haproxy for the scale-out tests..."
bash "$(dirname "$0")/apt-install.sh" pgbouncer haproxy
