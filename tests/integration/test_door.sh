#!/bin/sh
# The credential door (issue 37) on loopback, each refusal with its
# control.  No daemon and no box: the door runs under its test flag
# (BOX_DOOR_TEST=1), which alone lets it take the test's CA
# (BOX_DOOR_TEST_CA), treat 127.0.0.0/8 as one box granted every secret
# (--test-open) and pin the upstream's name to 127.0.0.1 (--test-pin).
# The upstream is tests/integration/door_up.py with certificates of a CA
# the test makes (openssl); a second CA signs nothing the door trusts.
#   1. the header arrives upstream with the host's value, the box's own
#      placeholder replaced; the value is not in what the door returned;
#   2. an upstream echoing the value in a header: redacted (control: the
#      same request straight to the upstream shows it);
#   3. smuggling (CL+TE, CL twice, TE twice, obs-fold, bare LF), CONNECT,
#      absolute-form: 400 and nothing upstream (control: the same body
#      with one Content-Length, and chunked alone, get through);
#   4. a certificate for another name: refused (control: the right one);
#   5. a door trusting another CA: refused (control: the test's CA);
#   6. a secret host that resolves to loopback: refused by the address
#      check (control: the check off, --test-no-addr-check);
#   7. the use log: the line, the path without its query; the value in
#      neither the log nor `box secret list --json`;
#   8. a streamed (SSE) event reaches the client within 50 ms of leaving
#      the upstream.
# Not here (they need real boxes): the grant checked against a box's
# source address, a forged sibling's source.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
BOX=${BOX:-./box}
T=$(mktemp -d /tmp/h37-door.XXXXXX)
P=$((20000 + $$ % 20000))
UP1=$P UP2=$((P + 1)) D1=$((P + 2)) D2=$((P + 3)) D3=$((P + 4))
pids=""
cleanup()
{
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
export BOX_SECRETS=$T/store

mkcert()	# ca name
{
	openssl req -newkey rsa:2048 -nodes -keyout "$T/$2.key" \
	    -out "$T/$2.csr" -subj "/CN=$2" 2>/dev/null &&
	printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n' "$2" \
	    >"$T/$2.ext" &&
	openssl x509 -req -in "$T/$2.csr" -CA "$T/$1.pem" -CAkey "$T/$1.key" \
	    -CAcreateserial -out "$T/$2.pem" -days 2 -extfile "$T/$2.ext" \
	    2>/dev/null
}
for ca in ca otherca; do
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/$ca.key" \
	    -out "$T/$ca.pem" -days 2 -subj "/CN=box test $ca" \
	    -addext "basicConstraints=critical,CA:TRUE" \
	    -addext "keyUsage=critical,keyCertSign" 2>/dev/null
done
mkcert ca api.test && mkcert ca other.test ||
    { fail "openssl could not make the test's certificates"; summary; }

python3 tests/integration/door_up.py "$T/api.test.pem" "$T/api.test.key" \
    "$UP1" "$T/up.log" & pids="$pids $!"
python3 tests/integration/door_up.py "$T/other.test.pem" \
    "$T/other.test.key" "$UP2" "$T/up.log" & pids="$pids $!"

VALUE=sk-host-$$-value
printf '%s' "$VALUE" | "$BOX" secret add api --host "api.test:$UP1" \
    --header x-api-key 2>/dev/null
printf '%s' "$VALUE" | "$BOX" secret add wrongname \
    --host "api.test:$UP2" --header x-api-key 2>/dev/null

door()	# port ca-file extra...
{
	_p=$1 _ca=$2
	shift 2
	BOX_DOOR_TEST=1 BOX_DOOR_TEST_CA=$_ca "$BOX" secret-door run \
	    --listen "127.0.0.1:$_p" --store "$T/store" \
	    --test-open 127.0.0.0/8 --test-pin api.test=127.0.0.1 "$@" \
	    >>"$T/door.log" 2>&1 &
	pids="$pids $!"
}
door "$D1" "$T/ca.pem" --test-no-addr-check
door "$D2" "$T/otherca.pem" --test-no-addr-check
door "$D3" "$T/ca.pem"
# up (within 10 s each), or the setup failed: a failure, not a skip
for p in "$UP1" "$UP2" "$D1" "$D2" "$D3"; do
	i=0
	until curl -s -m 1 -k "https://127.0.0.1:$p/" >/dev/null 2>&1 ||
	    curl -s -m 1 "http://127.0.0.1:$p/" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] || { fail "nothing answers on $p (setup)"; break; }
		sleep 0.2
	done
done
: >"$T/up.log"

U=http://127.0.0.1:$D1/s
# 1. the header, with the host's value
out=$(curl -s -m 5 -H 'x-api-key: placeholder' "$U/api/v1/messages?q=1")
expect_eq "$out" "ok" "a granted request is answered by the upstream"
expect_contains "$(cat "$T/up.log")" "GET /v1/messages?q=1 key=$VALUE" \
    "the upstream got the host's value in x-api-key"
case $(cat "$T/up.log") in
*placeholder*) fail "the box's own x-api-key reached the upstream" ;;
*) ok "the box's own x-api-key was replaced" ;;
esac

# 2. an echo of the value in a header: redacted; control straight
got=$(curl -s -m 5 -i "$U/api/echo-key")
expect_contains "$got" "X-Echo: [redacted by box]" "an echoed value is redacted"
case $got in *"$VALUE"*) fail "the value reached the box" ;;
*) ok "the value is nowhere in what the door returned" ;; esac
ctl=$(curl -s -m 5 -i --cacert "$T/ca.pem" --resolve "api.test:$UP1:127.0.0.1" \
    -H "x-api-key: $VALUE" "https://api.test:$UP1/echo-key")
expect_contains "$ctl" "X-Echo: $VALUE" "control: the upstream does echo it"

# 3. smuggling and friends, raw
raw()	# port request-bytes: the status line's code
{
	printf '%b' "$2" | python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.stdin.buffer.read())
d = b""
while True:
    try:
        b = s.recv(65536)
    except Exception:
        break
    if not b:
        break
    d += b
print(d.split(b" ")[1].decode() if d.startswith(b"HTTP/1.1 ") else "none")
' "$1"
}
before=$(wc -l <"$T/up.log")
H='POST /s/api/p HTTP/1.1\r\nHost: box.internal\r\n'
expect_eq "$(raw "$D1" "${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")" 400 "CL and TE both: 400"
expect_eq "$(raw "$D1" "${H}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")" 400 "Content-Length twice: 400"
expect_eq "$(raw "$D1" "${H}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")" 400 "Transfer-Encoding twice: 400"
expect_eq "$(raw "$D1" "${H}X-A: a\r\n b\r\nContent-Length: 0\r\n\r\n")" 400 "obs-fold: 400"
expect_eq "$(raw "$D1" "${H}X-A: a\nContent-Length: 0\r\n\r\n")" 400 "a bare LF: 400"
expect_eq "$(raw "$D1" 'CONNECT api.test:443 HTTP/1.1\r\n\r\n')" 400 "CONNECT: 400"
expect_eq "$(raw "$D1" 'GET http://api.test/s/api/x HTTP/1.1\r\n\r\n')" 400 "absolute-form: 400"
expect_eq "$(wc -l <"$T/up.log")" "$before" "none of them reached the upstream"
expect_eq "$(raw "$D1" "${H}Content-Length: 5\r\n\r\nhello")" 200 "control: one Content-Length: 200"
expect_eq "$(raw "$D1" "${H}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")" 200 "control: chunked alone: 200"

# 4. another name's certificate; 5. another CA; 6. loopback
got=$(curl -s -m 5 "$U/wrongname/x")
expect_contains "$got" "for another name" "a certificate for another name is refused"
expect_eq "$(curl -s -m 5 "$U/api/x")" ok "control: the right name gets through"
got=$(curl -s -m 5 "http://127.0.0.1:$D2/s/api/x")
expect_contains "$got" "not from a trusted authority" "an upstream the door's CAs did not sign is refused"
got=$(curl -s -m 5 "http://127.0.0.1:$D3/s/api/x")
expect_contains "$got" "resolves to 127.0.0.1 (loopback)" "a secret host resolving to loopback is refused"
expect_eq "$(curl -s -m 5 "$U/api/x")" ok "control: with the check off it gets through"

# 7. the use log
log=$("$BOX" secret log --json 2>&1)
expect_contains "$log" '"box":"test","secret":"api","method":"GET","host":"api.test","path":"/v1/messages","status":200' "the use log has the request, without its query"
lst=$("$BOX" secret list --json 2>&1)
case "$log$lst$(cat "$T/door.log")" in
*"$VALUE"*) fail "the value is in the log, the list or the door's output" ;;
*) ok "the value is in neither the use log, the list nor the door's output" ;;
esac

# 8. a streamed event's first byte within 50 ms
lat=$(python3 - "$D1" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"GET /s/api/sse HTTP/1.1\r\nHost: box.internal\r\n\r\n")
buf, worst = b"", 0.0
while True:
    b = s.recv(65536)
    if not b:
        break
    now = time.time()
    buf += b
    for part in b.split(b"data: ")[1:]:
        sent = float(part.split(b"\n")[0].split()[1])
        worst = max(worst, now - sent)
print(int(worst * 1000) if b"data: 2" in buf else -1)
PY
)
if [ "$lat" -ge 0 ] 2>/dev/null && [ "$lat" -lt 50 ]; then
	ok "every streamed event reached the client within 50 ms ($lat ms worst)"
else
	fail "streamed events: worst $lat ms (want < 50; -1: not all arrived)"
fi
summary
