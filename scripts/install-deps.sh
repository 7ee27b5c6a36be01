#!/usr/bin/env bash
# Installs the Debian packages Find Our Devices needs, if any is missing. Idempotent: when
# everything is present it does nothing (and needs no network). Run as root or with sudo.
set -euo pipefail

packages=(pkg-config libsqlite3-dev libgeos-dev libmicrohttpd-dev libsodium-dev libpq-dev libcurl4-openssl-dev libjs-leaflet)
# The web app's QR code encoder for the phone set-up (served from /vendor/qrcode like Leaflet).
packages+=(node-qrcode-generator)
# Extra tools for tests, checks and benchmarks: curl, wrk (load), GDAL and xmllint (export
# checks), Chromium + python3-websocket (browser test of the web map), the comparison report's
# peers (Redis, PostGIS, SpatiaLite), PostgreSQL 15 (the PostgreSQL store's tests start a
# throwaway server; scripts/pg-test-server.sh) and HAProxy (make cluster).
if [ "${FOD_INSTALL_TEST_TOOLS:-0}" = "1" ]; then
  packages+=(curl wrk gdal-bin libxml2-utils chromium python3-websocket redis-server postgresql-15-postgis-3 libsqlite3-mod-spatialite postgresql-15 haproxy)
  # zbarimg reads the set-up QR codes back off the screen in the browser check.
  packages+=(zbar-tools)
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
