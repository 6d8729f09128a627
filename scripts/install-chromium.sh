#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests and `maker bench view` (headless, driven by
# playwright-core). Does nothing when it is already there; needs root (CI runs as root).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-chromium: run as root (apt-get install -y chromium); the browser tests skip without it." >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
