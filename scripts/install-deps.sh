#!/usr/bin/env bash
# Installs the Debian packages Find Our Devices needs, if any is missing. Idempotent: when
# everything is present it does nothing (and needs no network). Run as root or with sudo.
# One package a line, so that lists merge cleanly.
set -euo pipefail

# To build and run: the C libraries fod links, and what the web app serves beside its own code:
# Leaflet, and the QR code encoder of the phone set-up (served from /vendor/qrcode like Leaflet).
packages=(
  pkg-config
  libsqlite3-dev
  libgeos-dev
  libmicrohttpd-dev
  libsodium-dev
  libpq-dev
  libcurl4-openssl-dev
  libjs-leaflet
  node-qrcode-generator
)
# For `make test`: what the tests, checks and benchmark smokes run.
if [ "${FOD_INSTALL_TEST_TOOLS:-0}" = "1" ]; then
  packages+=(
    # the checks' scripts, the test watchdog, the PyPI tools' virtual environment (scripts/python-tools.sh)
    python3
    python3-venv
    ca-certificates
    procps
    curl
    git
    # load generator of the benchmark smokes, and the compiler of the live benchmark's C client
    wrk
    gcc
    # export checks: ogrinfo, xmllint
    gdal-bin
    libxml2-utils
    # browser test of the web map; zbarimg reads the set-up QR codes back off the screen
    chromium
    python3-websocket
    zbar-tools
    # the comparison report's peers
    redis-server
    postgresql-15-postgis-3
    libsqlite3-mod-spatialite
    # the PostgreSQL store's tests start a throwaway server (scripts/pg-test-server.sh)
    postgresql-15
    # make cluster: HAProxy in front of the nodes; Patroni (with etcd as its store) runs the
    # primary and its synchronous standby and fails over by itself (PatroniFailoverTests)
    haproxy
    patroni
    etcd-server
    # the TLS proxy test runs the shipped deploy/nginx.conf and deploy/Caddyfile with a throwaway certificate
    nginx
    caddy
    openssl
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
