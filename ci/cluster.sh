#!/bin/sh
# shellcheck disable=SC2086
# cluster.sh {up|down|status}
#
# A real 3-member Incus cluster on this one machine, for tests
# (../shared/docs/cluster-test-recipe.md has the facts it rests on).
#
#   namespaces  h26hub      a bridge (h26br) with no address: the members' LAN
#               h26m1..3    one per member: lo, eth0 = 172.30.26.1N/24 and
#                           192.0.2.1N/24 on the hub, h26w = 203.0.113.(129+4N)/30 to its internet
#               h26i1..3    "the internet" of member N: 203.0.113.(130+4N)/30,
#                           and 203.0.113.200/32, the same in each (the one
#                           public host), routed from its own member only
#   no default route anywhere: nothing here can reach past these namespaces.
#   daemons     incusd with INCUS_DIR=/var/lib/incus-mN, in h26mN and in a
#               private mount namespace where sysfs is mounted again (its
#               /sys/class/net is the member's), the cgroup v1 tree moved
#               over, and tmpfs over /run, /var/log, /usr/local and
#               /etc/systemd/system: a member's box writes its boot units,
#               lease hook, resolver pid file there, never the host's.
#   cluster     m1 bootstraps (pool "default", dir), m2 and m3 join by
#               token; the busybox test image is imported once from the
#               tarball ci/build-images.sh caches (nothing is ever pulled).
#   guard       each member's own egress guard (inet box_test_guard): what
#               its bridges forward may leave only by the hub link and its
#               internet link, both to namespaces made here.
#
# Run a command as member N:  sh ci/cluster.sh exec N CMD...
#   (its net and mount namespaces, INCUS_DIR and box's state paths set).
# Every step is bounded (CLUSTER_TIMEOUT, default 90 s for up); down stops
# each daemon by its own PID, kills what is left in each namespace by PID,
# removes the cgroups of the cluster's own instances (bxc-*), then the
# namespaces and directories.  Both are idempotent.
set -eu
cd "$(dirname "$0")/.."

N=${CLUSTER_MEMBERS:-3}
P=h26
ST=/run/$P-cluster		# pids, scratch client config
CACHE=${BOX_TEST_CACHE:-/var/cache/box-tests}
INCUSD=/usr/libexec/incus/incusd
T=${CLUSTER_TIMEOUT:-90}

log() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
now_ms() { date +%s%3N; }

dir() { echo "/var/lib/incus-m$1"; }
pidof_m() { cat "$ST/m$1.pid" 2>/dev/null || :; }

# as N CMD...: run CMD in member N's namespaces with its environment.
as()
{
	_n=$1
	shift
	_p=$(pidof_m "$_n")
	[ -n "$_p" ] && [ -d "/proc/$_p" ] || die "member m$_n is not running"
	INCUS_DIR=$(dir "$_n") INCUS_CONF=$(dir "$_n")/client \
	    BOX_FIREWALL_DATA=$(dir "$_n")/box/firewall.data \
	    BOX_EGRESS_STATE=$(dir "$_n")/box/egress.state \
	    nsenter -t "$_p" -n -m --wd="$PWD" "$@"
}

# client N ARGS...: the incus client, talking to member N's socket (and
# dialling from its network namespace: a join dials the token's address).
client() { _c=$1; shift; as "$_c" timeout 30 incus "$@"; }

up_answers()
{
	curl -s -m 2 --unix-socket "$(dir "$1")/unix.socket" \
	    http://incus/internal/ready 2>/dev/null | grep -q '"type":"sync"'
}

net_up()
{
	ip netns add ${P}hub
	ip -n ${P}hub link add ${P}br type bridge
	ip -n ${P}hub link set ${P}br up
	ip -n ${P}hub link set lo up
	for i in $(seq 1 "$N"); do
		ip netns add ${P}m$i
		ip netns add ${P}i$i
		ip -n ${P}m$i link set lo up
		ip -n ${P}i$i link set lo up
		ip link add ${P}h$i netns ${P}hub type veth peer name eth0 netns ${P}m$i
		ip -n ${P}hub link set ${P}h$i master ${P}br up
		ip -n ${P}m$i addr add 172.30.26.1$i/24 dev eth0
		# and a public-range address on the same LAN (a member's
		# public face, for probes that only the firewall answers)
		ip -n ${P}m$i addr add 192.0.2.1$i/24 dev eth0
		ip -n ${P}m$i link set eth0 up
		ip link add ${P}w netns ${P}m$i type veth peer name eth0 netns ${P}i$i
		ip -n ${P}m$i addr add 203.0.113.$((128 + 4 * i + 1))/30 dev ${P}w
		ip -n ${P}m$i link set ${P}w up
		ip -n ${P}i$i addr add 203.0.113.$((128 + 4 * i + 2))/30 dev eth0
		ip -n ${P}i$i link set eth0 up
		# the same "public" host in every member's internet: one
		# probe target and one upstream resolver for all of them
		ip -n ${P}i$i addr add 203.0.113.200/32 dev eth0
		ip -n ${P}m$i route add 203.0.113.200/32 via 203.0.113.$((128 + 4 * i + 2))
		# the member's own guard: its bridges forward only to the two
		# links made here
		ip netns exec ${P}m$i nft -f - <<EOF
table inet box_test_guard
delete table inet box_test_guard
table inet box_test_guard {
	chain forward {
		type filter hook forward priority filter - 10; policy accept;
		iifname "box*" oifname != { "eth0", "${P}w", "box*" } counter drop
	}
}
EOF
	done
}

daemon_start()
{
	_d=$(dir "$1")
	mkdir -p "$_d/box" "$_d/client" "$ST" "/run/${P}sys$1"
	rm -f "$_d/unix.socket"
	# shellcheck disable=SC2016
	# fds 3-9 closed: a lock the caller holds (flock) must not live on
	# in the daemon
	setsid sh -c 'exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; echo $$ >"$0"; exec nsenter --net=/run/netns/'"${P}m$1"' \
	    unshare --mount --propagation private sh -c "
		mount --move /sys /run/'"${P}sys$1"' &&
		mount -t sysfs sysfs /sys &&
		mount --move /run/'"${P}sys$1"'/fs/cgroup /sys/fs/cgroup &&
		umount -l /run/'"${P}sys$1"' &&
		mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/log &&
		mount -t tmpfs tmpfs /usr/local &&
		mount -t tmpfs tmpfs /etc/systemd/system &&
		exec env INCUS_DIR='"$_d"' '"$INCUSD"' --group root \
		    --logfile '"$_d"'/incusd.log"' "$ST/m$1.pid" \
	    </dev/null >>"$_d/incusd.stderr" 2>&1 &
}

preseed_boot()
{
	cat <<EOF
config:
  core.https_address: 172.30.26.11:8443
storage_pools:
- name: default
  driver: dir
cluster:
  server_name: m1
  enabled: true
EOF
}

preseed_join()
{
	cat <<EOF
cluster:
  enabled: true
  server_name: m$1
  server_address: 172.30.26.1$1:8443
  cluster_token: $2
  member_config:
  - entity: storage-pool
    name: default
    key: source
    value: ""
EOF
}

cluster_up()
{
	t0=$(now_ms)
	[ ! -e "$ST/up" ] || { log "already up"; return 0; }
	[ -x "$INCUSD" ] || die "$INCUSD missing (run ci/install-deps.sh)"
	img=$(ls -t "$CACHE"/box-test-busybox-*.tar.gz 2>/dev/null | head -1)
	[ -n "$img" ] || die "no busybox image in $CACHE (run ci/build-images.sh)"
	cluster_down quiet
	mkdir -p "$ST"
	net_up
	for i in $(seq 1 "$N"); do daemon_start "$i"; done
	end=$(($(date +%s) + T))
	for i in $(seq 1 "$N"); do
		until up_answers "$i"; do
			[ "$(date +%s)" -lt "$end" ] || die "m$i not ready in $T s (see $(dir "$i")/incusd.log)"
			sleep 0.2
		done
	done
	t1=$(now_ms)
	preseed_boot | client 1 admin init --preseed ||
	    die "bootstrap of m1 failed"
	for i in $(seq 2 "$N"); do
		# fresh veths drop the first ARPs: wait for m1's :8443 from mN
		until as "$i" curl -sk -m 1 -o /dev/null https://172.30.26.11:8443/1.0; do
			[ "$(date +%s)" -lt "$end" ] || die "m$i cannot reach m1:8443"
			sleep 0.2
		done
		tok=$(client 1 cluster add "m$i" --quiet) || die "no join token for m$i"
		preseed_join "$i" "$tok" | client "$i" admin init --preseed ||
		    die "join of m$i failed"
	done
	t2=$(now_ms)
	client 1 image import "$img" --alias box-test-busybox >/dev/null ||
	    die "image import failed"
	touch "$ST/up"
	log "up: $N members ONLINE ($(client 1 cluster list -f csv -c n,s | tr '\n' ' '))"
	log "up: daemons $((t1 - t0)) ms, bootstrap+joins $((t2 - t1)) ms, image $(( $(now_ms) - t2)) ms, total $(( $(now_ms) - t0)) ms"
}

# Everything the daemon of member N left running: by PID only.
member_stop()
{
	_p=$(pidof_m "$1")
	if [ -n "$_p" ] && [ -d "/proc/$_p" ]; then
		kill -TERM "$_p" 2>/dev/null || :
		_i=0
		while [ -d "/proc/$_p" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
		kill -KILL "$_p" 2>/dev/null || :
	fi
	for _q in $(ip netns pids ${P}m$1 2>/dev/null); do
		kill -KILL "$_q" 2>/dev/null || :
	done
}

cluster_down()
{
	for i in 1 2 3 4 5; do member_stop "$i"; done
	# The cgroups of the cluster's own instances (only bxc-*: the host
	# daemon's cgroups are never touched).
	for g in /sys/fs/cgroup/*/lxc.payload.bxc-* /sys/fs/cgroup/*/lxc.monitor.bxc-*; do
		[ -d "$g" ] || continue
		find "$g" -depth -type d -exec rmdir {} + 2>/dev/null || :
	done
	for i in 1 2 3 4 5; do
		ip netns del ${P}m$i 2>/dev/null || :
		ip netns del ${P}i$i 2>/dev/null || :
		d=$(dir "$i")
		if [ -d "$d" ]; then
			# mounts the daemon made below its directory (storage,
			# shmounts, guestapi) go with its mount namespace; any
			# left in ours are unmounted before the rm
			grep -o " $d/[^ ]*" /proc/mounts | sort -r |
			    while read -r m; do umount -l "$m" 2>/dev/null || :; done
			rm -rf --one-file-system "$d"
		fi
		rmdir "/run/${P}sys$i" 2>/dev/null || :
	done
	ip netns del ${P}hub 2>/dev/null || :
	rm -rf "$ST"
	[ "${1:-}" = quiet ] || log "down"
}

case ${1:-} in
up)	cluster_up ;;
down)	cluster_down ;;
status)	client 1 cluster list ;;
exec)	shift; n=$1; shift; as "$n" "$@" ;;
kill)	# kill -9 member N's daemon (its containers keep running)
	kill -KILL "$(pidof_m "$2")" ;;
start)	# start member N's daemon again and wait until it is ready
	daemon_start "$2"
	end=$(($(date +%s) + T))
	until up_answers "$2"; do
		[ "$(date +%s)" -lt "$end" ] || die "m$2 not ready in $T s"
		sleep 0.2
	done ;;
*)	echo "usage: cluster.sh {up|down|status|exec N CMD...|kill N|start N}" >&2; exit 2 ;;
esac
