#!/usr/bin/env bash
# Installs the Debian-packaged PHP applications that tests/apps drives end to end, and the
# MariaDB server WordPress needs. Their files are served by Spindle's own libphp; Debian's
# php8.2 packages come along as dependencies and are never loaded. No service is started:
# the tests start what they need on 127.0.0.1. Idempotent.
set -euo pipefail

packages=(
  dokuwiki adminer mediawiki
  wordpress wordpress-theme-twentytwentythree mariadb-server
  php-symfony-http-kernel php-symfony-http-foundation php-symfony-routing
  php-symfony-event-dispatcher php-symfony-error-handler php-twig
  php-symfony-security-csrf
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-app-deps: all ${#packages[@]} packages present" >&2
  exit 0
fi

echo "install-app-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Keep maintainer scripts from starting daemons (MariaDB, a web server pulled in by php8.2).
policy=/usr/sbin/policy-rc.d
created_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  created_policy=1
fi
trap 'if ((created_policy)); then rm -f "$policy"; fi' EXIT
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
