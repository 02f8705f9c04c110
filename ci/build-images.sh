#!/bin/sh
# build-images.sh [--debian]
#
# Build the local test images and import them into Incus under fixed aliases:
#   box-test-busybox  (~1 MB) always;
#   box-test-debian   (systemd + cloud-init) with --debian.
# Nothing is ever pulled by the daemon.  Each image's tarball is cached under
# /var/cache/box-tests/, keyed by a sha256 of its recipe (the recipe's own text
# in this file plus its inputs), so an unchanged recipe is not rebuilt and is
# only re-imported when the alias is missing.  Work happens in scratch
# directories that every run wipes first, and a tarball only gets its final
# name once complete, so an interrupted run leaves nothing half-made behind.
set -eu
SELF=$0
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

CACHE=${BOX_TEST_CACHE:-/var/cache/box-tests}
BUSYBOX=/bin/busybox

# recipe NAME: the text between this file's "# >>> NAME" and "# <<< NAME".
recipe()
{
	sed -n "/^# >>> $1\$/,/^# <<< $1\$/p" "$SELF"
}

# metadata ALIAS HASH OS RELEASE DESCRIPTION: metadata.yaml, without templates.
# >>> common
metadata()
{
	cat <<EOF
architecture: x86_64
creation_date: $(date +%s)
properties:
  os: $3
  release: "$4"
  description: "$5"
  box.alias: $1
  box.recipe: $2
EOF
}

# pack DIR OUT: the unified image tarball (metadata.yaml, templates/ if any,
# rootfs/), owners kept as numbers.
pack()
{
	set -- "$1" "$2" metadata.yaml rootfs
	[ -d "$1/templates" ] && set -- "$@" templates
	_d=$1 _o=$2
	shift 2
	tar -C "$_d" --numeric-owner --xattrs --xattrs-include='*' -cf - "$@" |
	    gzip -1 >"$_o"
}

# scrub DIR: remove a scratch directory.  A build killed inside mmdebstrap can
# leave /proc, /sys or /dev mounted below it: unmount those first, and never
# let rm cross into another file system.
scrub()
{
	[ -e "$1" ] || return 0
	awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts |
	    sort -r | while read -r m; do umount -l "$m"; done
	rm -rf --one-file-system "$1"
}
# <<< common

# >>> busybox
# A rootfs of busybox-static: /bin/busybox, its applets as links, an init
# that keeps a DHCP client on every NIC, root and a user dev (uid 1000).
build_busybox()
{
	_w=$CACHE/work.busybox
	_r=$_w/rootfs
	scrub "$_w"
	mkdir -p "$_r"
	for d in bin sbin usr/bin usr/sbin etc dev proc sys tmp run root \
	    home/dev var; do
		mkdir -p "$_r/$d"
	done
	ln -s ../run "$_r/var/run"
	cp "$BUSYBOX" "$_r/bin/busybox"
	# The applet list names busybox itself (a link would replace the
	# binary with a loop) and init (ours is below).
	"$_r/bin/busybox" --list-full | while read -r a; do
		case $a in
		bin/busybox | sbin/init | linuxrc) ;;
		*) ln -sf /bin/busybox "$_r/$a" ;;
		esac
	done

	cat >"$_r/sbin/init" <<'EOF'
#!/bin/sh
# PID 1 of the box test image.  Every NIC but lo gets its own udhcpc; a NIC
# that goes away or comes back with a new ifindex (Incus re-plugs a NIC when
# some of its config changes) gets a fresh client, hence a fresh lease.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
[ -r /proc/self/stat ] || mount -t proc proc /proc
[ -d /sys/class/net ] || mount -t sysfs sysfs /sys
mkdir -p /run/dhcp /tmp
ip link set lo up
# Incus stops an instance by sending SIGPWR to PID 1: leave, and it is down.
trap 'kill $(cat /run/dhcp/*.pid 2>/dev/null) 2>/dev/null; exit 0' PWR TERM
while :; do
	for p in /run/dhcp/*.pid; do
		[ -e "$p" ] || continue
		k=${p##*/}
		k=${k%.pid}
		if [ "$(cat "/sys/class/net/${k#*_}/ifindex" 2>/dev/null)" != "${k%%_*}" ] ||
		    ! kill -0 "$(cat "$p")" 2>/dev/null; then
			kill "$(cat "$p")" 2>/dev/null
			rm -f "$p"
		fi
	done
	for d in /sys/class/net/*; do
		n=${d##*/}
		[ "$n" = lo ] && continue
		p=/run/dhcp/$(cat "$d/ifindex" 2>/dev/null)_$n.pid
		[ -e "$p" ] && continue
		ip link set "$n" up 2>/dev/null
		udhcpc -f -i "$n" -s /etc/udhcpc.script -t 3 -T 1 -A 2 \
		    -x "hostname:$(hostname)" >/dev/null 2>&1 &
		echo $! >"$p"
	done
	jobs >/dev/null	# reap
	sleep 1
done
EOF
	cat >"$_r/etc/udhcpc.script" <<'EOF'
#!/bin/sh
# udhcpc hook: $1 is the event, the lease is in the environment.
case $1 in
deconfig)
	ip -4 addr flush dev "$interface"
	ip link set "$interface" up
	;;
bound | renew)
	if [ -z "${mask:-}" ]; then
		mask=0
		for o in $(echo "$subnet" | tr . ' '); do
			while [ "$o" -gt 0 ]; do
				mask=$((mask + (o & 1)))
				o=$((o >> 1))
			done
		done
	fi
	[ "$1" = bound ] && ip -4 addr flush dev "$interface"
	ip addr replace "$ip/$mask" dev "$interface"
	for r in $router; do
		ip route replace default via "$r" dev "$interface"
		break
	done
	: >/etc/resolv.conf
	for s in $dns; do
		echo "nameserver $s" >>/etc/resolv.conf
	done
	;;
esac
exit 0
EOF
	chmod 755 "$_r/sbin/init" "$_r/etc/udhcpc.script"
	cat >"$_r/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
dev:x:1000:1000:dev:/home/dev:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
	cat >"$_r/etc/group" <<'EOF'
root:x:0:
dev:x:1000:
nogroup:x:65534:
EOF
	echo "127.0.0.1 localhost" >"$_r/etc/hosts"
	: >"$_r/etc/resolv.conf"
	chmod 1777 "$_r/tmp"
	chmod 700 "$_r/root"
	chown 1000:1000 "$_r/home/dev"
	metadata "$1" "$2" busybox "$("$BUSYBOX" 2>&1 | sed -n '1s/^BusyBox v\([^ ]*\).*/\1/p')" \
	    "box test image (busybox)" >"$_w/metadata.yaml"
	pack "$_w" "$3"
	scrub "$_w"
}
# <<< busybox

# >>> debian
# Debian with systemd and cloud-init, from the machine's own apt sources (so
# no host is named here).  The NoCloud seed is rendered by Incus from the
# instance config at create/copy time.
DEBIAN_SUITE=bookworm
DEBIAN_INCLUDE=systemd-sysv,cloud-init,iproute2,ifupdown,isc-dhcp-client,sudo,tmux,netbase,procps
build_debian()
{
	_w=$CACHE/work.debian
	_r=$_w/rootfs
	scrub "$_w"
	mkdir -p "$_w/templates"
	set -- "$@" /etc/apt/sources.list.d/debian.sources
	[ -f "$4" ] || set -- "$1" "$2" "$3" /etc/apt/sources.list
	_tm=$(ci_now_ms)
	mmdebstrap --quiet --variant=minbase --include="$DEBIAN_INCLUDE" \
	    "$DEBIAN_SUITE" "$_r" "$4" </dev/null
	ci_log "$1: mmdebstrap $(du -sh "$_r" | cut -f1) ($(ci_since "$_tm"))"
	# mmdebstrap copies the host's resolv.conf and hostname in.
	: >"$_r/etc/resolv.conf"
	echo localhost >"$_r/etc/hostname"
	# minbase has no locales, so cloud-init's default `update-locale
	# LANG=en_US.UTF-8` fails and status ends in "error"; and only the
	# seed is a datasource (no probing of metadata addresses).
	cat >"$_r/etc/cloud/cloud.cfg.d/99-box-test.cfg" <<'EOF'
# box test image (ci/build-images.sh)
locale: C.UTF-8
datasource_list: [ NoCloud, None ]
EOF
	# No apt runs of its own inside test boxes.
	for t in apt-daily.timer apt-daily-upgrade.timer; do
		ln -sf /dev/null "$_r/etc/systemd/system/$t"
	done

	cat >"$_w/templates/meta-data.tpl" <<'EOF'
instance-id: {{ config_get("volatile.cloud-init.instance-id", instance.name) }}
local-hostname: {{ instance.name }}
{{ config_get("user.meta-data", "") }}
EOF
	cat >"$_w/templates/user-data.tpl" <<'EOF'
{{ config_get("cloud-init.user-data", properties.default) }}
EOF
	cat >"$_w/templates/network-config.tpl" <<'EOF'
{% if config_get("cloud-init.network-config", "") == "" %}version: 1
config:
  - type: physical
    name: eth0
    subnets:
      - type: dhcp
        control: auto
{% else %}{{ config_get("cloud-init.network-config", "") }}{% endif %}
EOF
	cat >"$_w/templates/hostname.tpl" <<'EOF'
{{ instance.name }}
EOF
	{
		metadata "$1" "$2" debian "$DEBIAN_SUITE" \
		    "box test image (Debian $DEBIAN_SUITE, cloud-init)"
		s=/var/lib/cloud/seed/nocloud-net
		cat <<EOF
templates:
  $s/meta-data:
    when: [create, copy]
    template: meta-data.tpl
  $s/user-data:
    when: [create, copy]
    template: user-data.tpl
    properties:
      default: |
        #cloud-config
        {}
  $s/network-config:
    when: [create, copy]
    template: network-config.tpl
  /etc/hostname:
    when: [create, copy]
    template: hostname.tpl
EOF
	} >"$_w/metadata.yaml"
	pack "$_w" "$3"
	scrub "$_w"
}
# <<< debian

# import ALIAS TARBALL: make ALIAS name the image in TARBALL.  The image's
# fingerprint is the tarball's sha256, so an alias already on it means done.
import()
{
	_fp=$(sha256sum "$2" | cut -d' ' -f1)
	if ! ci_exists "/1.0/images/$_fp"; then
		_ti=$(ci_now_ms)
		_e=$(curl -sS --unix-socket "$INCUS_SOCK" -X POST \
		    -H 'Content-Type: application/octet-stream' -T "$2" \
		    http://incus/1.0/images) || ci_die "import $2: no answer from incusd"
		_got=$(ci_finish POST /1.0/images "$_e" | ci_json 'j["metadata"]["fingerprint"]')
		[ "$_got" = "$_fp" ] || ci_die "import $2: fingerprint $_got, expected $_fp"
		ci_log "$1: imported ${_fp%"${_fp#????????????}"} ($(ci_since "$_ti"))"
	fi
	if ci_exists "/1.0/images/aliases/$1"; then
		_cur=$(ci_api GET "/1.0/images/aliases/$1" | ci_json 'j["metadata"]["target"]')
		[ "$_cur" = "$_fp" ] ||
		    ci_api_wait PUT "/1.0/images/aliases/$1" \
		    "{\"target\":\"$_fp\",\"description\":\"box test image\"}" >/dev/null
	else
		ci_api_wait POST /1.0/images/aliases \
		    "{\"name\":\"$1\",\"target\":\"$_fp\",\"description\":\"box test image\"}" >/dev/null
	fi
	# Earlier builds of this alias are no longer needed (instances made from
	# them keep their own copy of the rootfs).
	for _old in $(ci_api GET '/1.0/images?recursion=1' | ci_json "' '.join(
	    i['fingerprint'] for i in j['metadata']
	    if i['properties'].get('box.alias') == '$1' and i['fingerprint'] != '$_fp')"); do
		ci_api_wait DELETE "/1.0/images/$_old" >/dev/null
		ci_log "$1: deleted stale image ${_old%"${_old#????????????}"}"
	done
}

# image ALIAS INPUTS...: build (unless cached) and import one image.
image()
{
	_alias=$1
	_name=${1#box-test-}
	shift
	_hash=$({ recipe common; recipe "$_name"; for i in "$@"; do
		sha256sum "$i"; done; } | sha256sum | cut -d' ' -f1)
	_tar=$CACHE/$_alias-$_hash.tar.gz
	_t=$(ci_now_ms)
	if [ ! -f "$_tar" ]; then
		rm -f "$CACHE/$_alias"-*.tar.gz.tmp
		"build_$_name" "$_alias" "$_hash" "$_tar.tmp"
		mv "$_tar.tmp" "$_tar"
		for f in "$CACHE/$_alias"-*.tar.gz; do
			[ "$f" = "$_tar" ] || rm -f "$f"
		done
		ci_log "$_alias: built $(du -h "$_tar" | cut -f1) ($(ci_since "$_t"))"
	else
		ci_log "$_alias: cached ${_tar##*/}"
	fi
	import "$_alias" "$_tar"
	ci_log "$_alias: ready ($(ci_since "$_t"))"
}

debian=0
for a in "$@"; do
	case $a in
	--debian) debian=1 ;;
	*) echo "usage: build-images.sh [--debian]" >&2; exit 2 ;;
	esac
done
mkdir -p "$CACHE"
image box-test-busybox "$BUSYBOX"
if [ "$debian" = 1 ]; then
	command -v mmdebstrap >/dev/null || ci_die "mmdebstrap missing (run ci/install-deps.sh)"
	# shellcheck disable=SC2046 # the sources files that exist, one word each
	image box-test-debian $(ls /etc/apt/sources.list.d/debian.sources \
	    /etc/apt/sources.list 2>/dev/null)
fi
