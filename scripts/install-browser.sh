#!/usr/bin/env bash
# Install the headless browser the web-page tests drive (tests/api/test_pages_browser.py):
# Debian's chromium and its chromedriver. Idempotent; the test setup runs it when
# /usr/bin/chromium or /usr/bin/chromedriver is missing. Needs root (apt-get).
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: apt-get not found; install chromium and chromium-driver by hand" >&2
    exit 1
fi
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -q
$sudo_cmd apt-get install -y -q --no-install-recommends chromium chromium-driver
/usr/bin/chromium --version
/usr/bin/chromedriver --version
