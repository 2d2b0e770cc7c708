#!/usr/bin/env bash
# The metrics test lets Debian's Prometheus scrape a running server and checks a scrape with promtool
# (docs/operating.md, "Metrics"). Installs both when missing; only the binaries are used.
set -euo pipefail
if command -v prometheus >/dev/null && command -v promtool >/dev/null; then exit 0; fi
echo "Installing Debian's prometheus for the metrics test..."
bash "$(dirname "$0")/apt-install.sh" prometheus
