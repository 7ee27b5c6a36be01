#!/usr/bin/env bash
# Installs fod: the binary into $PREFIX/bin and what it serves and ships into $PREFIX/share/fod
# (the web app Web/, Data/, docs/ with openapi.yaml, deploy/), where the installed binary finds
# them from its own location whatever the working directory (`fod serve --share-dir` overrides).
#   scripts/install.sh --prefix /usr/local [--destdir /tmp/pkg] [--binary .build/release/fod]
# `make install PREFIX=…` runs it after a release build; `--destdir` stages the tree for a package.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=/usr/local; destdir=""; binary=.build/release/fod
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --destdir) destdir="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    *) echo "usage: $0 --prefix DIR [--destdir DIR] [--binary FILE]" >&2; exit 2 ;;
  esac
done
case "$prefix" in /*) ;; *) echo "--prefix must be an absolute path, not $prefix" >&2; exit 2 ;; esac
[ -x "$binary" ] || { echo "no binary at $binary (make release builds it)" >&2; exit 1; }
root="$destdir$prefix"
share="$root/share/fod"
install -d "$root/bin" "$share"
install -m 0755 "$binary" "$root/bin/fod.new"
mv -f "$root/bin/fod.new" "$root/bin/fod"   # a running server keeps its old file
# Replaced whole, so files dropped from the project do not linger.
for dir in Web Data docs deploy; do
  rm -rf "$share/$dir.new"
  cp -R "$dir" "$share/$dir.new"
  rm -rf "$share/$dir"
  mv "$share/$dir.new" "$share/$dir"
done
chmod -R u=rwX,go=rX "$share"
# The binary loads the Swift runtime from the toolchain that built it: deploy/fod.service
# (ProtectHome=yes) cannot reach one inside a home directory.
runtime="$(ldd "$root/bin/fod" 2>/dev/null | awk '/libswiftCore\.so/ {print $3}')"
case "$runtime" in
  /home/*|/root/*) echo "warning: fod loads the Swift runtime from $runtime, inside a home directory; the systemd unit" \
                        "(ProtectHome=yes) cannot read it there: install the Swift toolchain under /opt or /usr" >&2 ;;
  "") echo "warning: the Swift runtime fod needs (libswiftCore.so) was not found: fod will not start" >&2 ;;
esac
echo "installed $prefix/bin/fod and $prefix/share/fod (web app, Data/, docs/, deploy/)"
