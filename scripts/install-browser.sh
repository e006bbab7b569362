#!/usr/bin/env bash
# Install what the web-page tests and the printed reports need from the host: Debian's
# chromium-headless-shell and chromedriver (the headless browser of the web-page tests,
# tests/browser.py), and
# Pango, which WeasyPrint renders the floor's PDF reports with (tests/floor/test_floor_reports.py;
# docs/floor-reports.md). Idempotent; scripts/setup-test-host.sh runs it. Needs root (apt-get).
set -euo pipefail

packages=()
if [ ! -x /usr/bin/chromium-headless-shell ] || [ ! -x /usr/bin/chromedriver ]; then
    packages+=(chromium-headless-shell chromium-driver)
fi
if ! ldconfig -p | grep -q 'libpangoft2-1.0.so.0'; then
    packages+=(libpango-1.0-0 libpangoft2-1.0-0)
fi
if [ "${#packages[@]}" -eq 0 ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: apt-get not found; install ${packages[*]} by hand" >&2
    exit 1
fi
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -q
$sudo_cmd apt-get install -y -q --no-install-recommends "${packages[@]}"
/usr/bin/chromium-headless-shell --version
/usr/bin/chromedriver --version
