#!/bin/sh
# Install the build and test packages. Idempotent; safe on a fresh machine of
# this kind (Debian 12, root, no systemd). Incus comes from bookworm-backports,
# whose apt source we derive from the machine's own sources so that no mirror
# host is ever written into the project.
set -eu

export DEBIAN_FRONTEND=noninteractive
src=/etc/apt/sources.list.d/debian.sources
bpo=/etc/apt/sources.list.d/box-ci-backports.sources

if [ ! -f "$bpo" ] && [ -f "$src" ]; then
	# First stanza of the machine's own sources, with the suite swapped.
	awk 'BEGIN{RS="";ORS="\n\n"} NR==1{print; exit}' "$src" |
		sed 's/^Suites:.*/Suites: bookworm-backports/' >"$bpo.tmp"
	mv "$bpo.tmp" "$bpo"
fi

pkgs="gcc libc6-dev linux-libc-dev musl-tools libbearssl-dev clang llvm libclang-rt-14-dev make file curl nftables iproute2 mmdebstrap busybox-static tmux util-linux socat python3 dnsmasq-base xz-utils libarchive-dev strace btrfs-progs openssh-server openssh-client"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if ! command -v incus >/dev/null 2>&1 || [ ! -x /usr/libexec/incus/incusd ]; then
	missing="$missing incus"
fi
[ -n "$missing" ] || exit 0

apt-get update -qq
# shellcheck disable=SC2046
apt-get install -y -qq --no-install-recommends $(echo "$missing" | sed 's/ incus//') </dev/null
case "$missing" in
*incus*) apt-get install -y -qq -t bookworm-backports incus </dev/null ;;
esac
