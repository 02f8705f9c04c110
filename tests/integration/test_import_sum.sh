#!/bin/sh
# box import checks an export against its recorded SHA-256 while it
# uploads (issue 15), and still creates nothing from a file that does not
# match: a whole, valid export whose sidecar records another sum (the vet
# passes; the mismatch is found at the last bytes, which are withheld) and
# a truncated export (the vet cannot read it; it is then hashed on its own
# and called truncated).  The intact file imports and runs.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=${IT_IMPORT_SUM_PREFIX:-hl-is-}
IT_PREFIX=$P
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
tmp=$(mktemp -d /tmp/hl-is.XXXXXX)
trap 'cleanup_prefix $P >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
api GET /1.0/profiles/box-net | grep -q '"type":"sync"' ||
    { fail "the box-net profile (box setup-host) is missing"; summary; }

api_wait POST /1.0/instances '{"name":"'${P}base'","type":"container",
 "source":{"type":"image","alias":"box-test-busybox"},"profiles":[],
 "devices":{"root":{"type":"disk","path":"/","pool":"default"}},
 "config":{"user.box":"1"}}' >/dev/null &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"start"}' >/dev/null &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"stop","force":true}' >/dev/null &&
    head -c 8000000 /dev/urandom >"$tmp/blob" &&
    curl -sS --unix-socket "$INCUS_SOCK" -X POST -H 'Content-Type: application/octet-stream' \
        -H 'X-Incus-path: /blob' -H 'X-Incus-type: file' --data-binary @"$tmp/blob" \
        "http://incus/1.0/instances/${P}base/files?path=/blob" >/dev/null &&
    api_wait POST /1.0/instances/${P}base/backups '{"name":"b","compression_algorithm":"gzip"}' >/dev/null &&
    curl -sS --unix-socket "$INCUS_SOCK" -o "$tmp/e.tar.gz" \
        "http://incus/1.0/instances/${P}base/backups/b/export" ||
    { fail "making the export"; summary; }
ok "a real export ($(stat -c %s "$tmp/e.tar.gz") bytes)"
sum=$(sha256sum "$tmp/e.tar.gz" | cut -d' ' -f1)

gone() {	# gone <name>: no instance, no storage volume
	api GET /1.0/instances/$1 | grep -q '"error_code":404' &&
	    ! api GET '/1.0/storage-pools/default/volumes' | grep -q "/$1\""
}

# A whole, valid export, its sidecar recording another sum.
cp "$tmp/e.tar.gz" "$tmp/w.tar.gz"
echo "$(echo "$sum" | tr 0-9a-f 1-9a-f0)  w.tar.gz" >"$tmp/w.tar.gz.sha256"
out=$($BOX import "$tmp/w.tar.gz" --name ${P}w 2>&1); rc=$?
expect_eq "$rc" 1 "a valid export with another recorded sum is refused"
expect_contains "$out" "does not match its recorded SHA-256" "the refusal names the sum"
expect_contains "$out" "stage 'upload' failed" "it was found while uploading (the vet passed)"
gone ${P}w && ok "nothing created from it" || fail "${P}w (or its volume) exists"

# A truncated export beside the whole file's sum.
head -c 300000 "$tmp/e.tar.gz" >"$tmp/t.tar.gz"
echo "$sum  t.tar.gz" >"$tmp/t.tar.gz.sha256"
out=$($BOX import "$tmp/t.tar.gz" --name ${P}t 2>&1); rc=$?
expect_eq "$rc" 1 "a truncated export is refused"
expect_contains "$out" "does not match its recorded SHA-256 — it is truncated or corrupted" "called truncated"
gone ${P}t && ok "nothing created from it" || fail "${P}t exists"

# The intact file, with its sum.
echo "$sum  e.tar.gz" >"$tmp/e.tar.gz.sha256"
out=$($BOX import "$tmp/e.tar.gz" --name ${P}ok 2>&1); rc=$?
expect_eq "$rc" 0 "the intact export imports ($out)"
expect_eq "$(api GET /1.0/instances/${P}ok | json "j['metadata']['status']")" "Running" "and runs"
want=$(sha256sum <"$tmp/blob" | cut -d' ' -f1)
got=$(curl -s --unix-socket "$INCUS_SOCK" "http://incus/1.0/instances/${P}ok/files?path=/blob" | sha256sum | cut -d' ' -f1)
expect_eq "$got" "$want" "its data came back whole"

summary
