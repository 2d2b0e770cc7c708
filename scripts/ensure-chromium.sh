#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (Playwright's own browser download
# does not work offline). Installs it when missing; needs root and apt.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "Installing Debian's chromium for the browser tests..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
