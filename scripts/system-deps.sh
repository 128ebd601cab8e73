#!/usr/bin/env bash
# Debian packages the tests use: Graphviz's `dot` (pictures) and Chromium (the HTML page).
# Installs them when missing and we are root with apt-get; otherwise says what to install.
set -euo pipefail
missing=()
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "note: tests that need ${missing[*]} will be skipped; install them with your package manager" >&2
fi
