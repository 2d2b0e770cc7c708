#!/usr/bin/env bash
# Installs Debian packages for the tests (scripts/ensure-*.sh); needs root and apt. The packages' own services are
# not started (policy-rc.d 101), since the tests start their own on free ports.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && trap 'rm -f "$policy"' EXIT; fi
apt-get install -y -qq --no-install-recommends "$@" >/dev/null
