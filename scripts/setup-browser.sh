#!/usr/bin/env bash
# Installs headless Chromium for the web app's browser tests (cmd/journal/web):
# Debian's chromium package, with apt-get when it is missing. Fails loudly
# when it cannot: those tests never skip.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "FATAL: chromium is not installed and there is no apt-get to install it (the web app's tests need /usr/bin/chromium)" >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "FATAL: installing chromium needs root (or sudo)" >&2; exit 1; }
	sudo=sudo
fi
echo "installing chromium (apt-get) for the web app's browser tests" >&2
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
command -v chromium >/dev/null 2>&1 || { echo "FATAL: apt-get installed no chromium" >&2; exit 1; }
