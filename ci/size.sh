#!/bin/sh
# make size: what each module costs in the static binary, from the linker
# map (sections the linker kept after --gc-sections), plus the total
# stripped size against the 1 MiB budget (raised from 768 KiB for the door's TLS client).
#   ci/size.sh build/box.map box
set -eu
map=$1 bin=$2
budget=$((1024 * 1024))
awk '
function hex(s,    i, c, v) {
	v = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
/^Discarded input sections/ { skip = 1 }
/^Memory Configuration/ { skip = 1 }
/^Linker script and memory map/ { skip = 0; next }
skip { next }
# "  .text.foo  0x... 0x1234 build/musl/src/incus/json.o" (one line), or the
# section name alone on a line and the numbers on the next.
{
	line = $0
	if (NF == 1 && $1 ~ /^\./) { pending = 1; next }
	n = split(line, f, /[ \t]+/)
	if (pending && n >= 4 && f[2] ~ /^0x/ && f[3] ~ /^0x/) {
		obj = f[4]; sz = hex(f[3]); pending = 0
	} else if (n >= 5 && f[2] ~ /^\./ && f[3] ~ /^0x/ && f[4] ~ /^0x/) {
		obj = f[5]; sz = hex(f[4]); pending = 0
	} else { pending = 0; next }
	if (f[2] ~ /^\.(debug|comment|note)/) next
	if (obj ~ /build\/musl\/src\//) {
		sub(/.*build\/musl\/src\//, "", obj); sub(/\/[^\/]*$/, "/", obj)
		if (obj !~ /\//) obj = "main"
	} else if (obj ~ /build\/musl\/gen\//) {
		obj = "generated (templates, host files)"
	} else if (obj ~ /libbearssl/) {
		obj = "BearSSL (libbearssl.a)"
	} else if (obj ~ /musl|libc\.a|crt/) {
		obj = "musl libc"
	} else {
		obj = "other"
	}
	size[obj] += sz
}
END {
	for (o in size) printf "%8.1f KiB  %s\n", size[o] / 1024, o
}' "$map" | sort -rn
total=$(stat -c %s "$bin")
awk -v t="$total" -v b="$bin" -v k=$((budget / 1024)) \
    'BEGIN { printf "%8.1f KiB  TOTAL stripped %s (budget %d KiB)\n", t / 1024, b, k }'
[ "$total" -le "$budget" ] || { echo "over the size budget"; exit 1; }
