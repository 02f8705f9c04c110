#!/bin/sh
# Start incusd if it is not answering, then converge what the tests need:
# storage pool "default" (dir), the test bridge "boxtest0" with explicit
# addresses and no upstream DNS, and the "default" profile's root disk and
# eth0.  Idempotent; safe after an interrupted run.  No systemd here, and
# `incus admin init --minimal` fails on these machines (and would search for
# a subnet by probing addresses that are not ours), so everything is explicit.
set -eu
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

INCUSD=/usr/libexec/incus/incusd
LOG=/var/log/box-ci-incusd.log
POOL=default
NET=boxtest0
NET_CONFIG='{"ipv4.address":"10.123.45.1/24","ipv6.address":"none","ipv4.nat":"false","dns.mode":"none","raw.dnsmasq":"no-resolv\n"}'

# up PATH: the daemon answers GET PATH with a sync envelope.  /1.0 answers
# as soon as the socket is up; /internal/ready (what `incus admin waitready`
# asks) only once the daemon has finished starting.
up()
{
	curl --unix-socket "$INCUS_SOCK" -s -m 5 "http://incus$1" 2>/dev/null |
	    grep -q '"type":"sync"'
}

# daemon_running: an incusd daemon process exists.  Container monitors and
# helpers (`[lxc monitor] ...`, `incusd forkexec ...`) share its name, and
# outlive a daemon that died, so look at the arguments.
daemon_running()
{
	for p in $(pidof incusd); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null
		echo
	done | grep -q "^$INCUSD \(-\|\$\)"
}

t0=$(ci_now_ms)
if ! up /1.0; then
	# A daemon that is still starting (or stuck) holds the database lock;
	# a second one would only fail, so start one only if none runs.
	if ! daemon_running; then
		[ -x "$INCUSD" ] || ci_die "$INCUSD missing (run ci/install-deps.sh)"
		ci_log "starting incusd (log $LOG)"
		# stderr kept: a Go panic goes there, not to the log file.
		# Descriptors 3-9 closed: started under flock(1) (a test run
		# holding the shared lock), the daemon would keep the lock.
		setsid sh -c 'for fd in 3 4 5 6 7 8 9; do eval "exec $fd>&-"; done
		    exec "$0" --group root --logfile "$1"' "$INCUSD" "$LOG" \
		    </dev/null >>"$LOG.stderr" 2>&1 &
	fi
fi
i=0
until up /1.0 && up /internal/ready; do
	i=$((i + 1))
	[ "$i" -le 120 ] || ci_die "incusd not ready on $INCUS_SOCK after 60 s; see $LOG"
	sleep 0.5
done
ci_log "incusd ready ($(ci_since "$t0"))"

# Storage pool.
if ! ci_exists "/1.0/storage-pools/$POOL"; then
	ci_api_wait POST /1.0/storage-pools \
	    "{\"name\":\"$POOL\",\"driver\":\"dir\",\"config\":{}}" >/dev/null
	ci_log "created storage pool $POOL (dir)"
fi

# Test bridge: create it, or put our keys back if someone changed them.
if ! ci_exists "/1.0/networks/$NET"; then
	ci_api_wait POST /1.0/networks \
	    "{\"name\":\"$NET\",\"type\":\"bridge\",\"description\":\"box integration tests\",\"config\":$NET_CONFIG}" >/dev/null
	ci_log "created network $NET"
else
	drift=$(ci_api GET "/1.0/networks/$NET" | ci_json "
[k for k, v in $NET_CONFIG.items() if j['metadata']['config'].get(k) != v]")
	if [ "$drift" != "[]" ]; then
		ci_api_wait PATCH "/1.0/networks/$NET" "{\"config\":$NET_CONFIG}" >/dev/null
		ci_log "network $NET: reset $drift"
	fi
fi

# Default profile: root disk on our pool and eth0 on our bridge.  PUT the
# whole profile (PATCH could drop the description) only when it differs.
body=$(ci_api GET /1.0/profiles/default | python3 -c '
import json, sys
m = json.load(sys.stdin)["metadata"]
want = {"root": {"type": "disk", "path": "/", "pool": sys.argv[1]},
        "eth0": {"type": "nic", "name": "eth0", "network": sys.argv[2]}}
if all(m["devices"].get(k) == v for k, v in want.items()):
	print("null")
else:
	print(json.dumps({"config": m["config"], "description": m["description"],
	                  "devices": dict(m["devices"], **want)}))' "$POOL" "$NET")
if [ "$body" != null ]; then
	ci_api_wait PUT /1.0/profiles/default "$body" >/dev/null
	ci_log "profile default: root on $POOL, eth0 on $NET"
fi
ci_log "done ($(ci_since "$t0"))"
