#!/bin/sh
# release.sh VERSION - the release directory (`make release`):
#
#   $DIST/box-<VERSION>-<arch>   the static binary, version stamped in
#   $DIST/install.sh             the installer (host/install.sh)
#   $DIST/SHA256SUMS             sha256sum lines for both
#
# DIST defaults to dist/ and is emptied of earlier releases' files first, so
# it always holds exactly one release: the installer picks "the" binary for
# its architecture from SHA256SUMS.  The architecture is read from the
# binary's ELF header, not from this machine.  RELEASE_URL, when set, is
# stamped into the installer as its default download location.
#
# `make release VERSION=x` on a tree whose objects were built for another
# version would package a binary that says the old version (the objects do
# not depend on the -D flag): this script checks what the binary says and,
# when it disagrees, rebuilds the objects that use BOX_VERSION and relinks.
# It also refuses a binary that is not static or is over the size budget.
set -eu
cd "$(dirname "$0")/.."

V=${1:?usage: ci/release.sh VERSION}
DIST=${DIST:-dist}
MAXSIZE=1048576	# 1 MiB
MAKE=${MAKE:-make}

die()
{
	printf 'release.sh: %s\n' "$*" >&2
	exit 1
}

case $V in
'' | .* | -* | *[!A-Za-z0-9._+-]*) die "'$V' is not a version name" ;;
esac
[ -x box ] || die "no ./box; run make first"

stamped()
{
	case $(./box --version 2>/dev/null) in
	"box $V "*) return 0 ;;
	esac
	return 1
}

if ! stamped; then
	echo "release.sh: ./box is not stamped $V; rebuilding what carries the version" >&2
	for f in $(grep -rl BOX_VERSION src --include='*.c'); do
		rm -f "build/musl/${f%.c}.o"
	done
	rm -f box
	$MAKE --no-print-directory box VERSION="$V" >&2
	stamped || die "./box still does not say version $V"
fi

# ELF e_machine, bytes 18-19 (little endian).
machine=$(od -An -tx1 -j18 -N2 box | tr -d ' \n')
case $machine in
3e00) ARCH=x86_64 ;;
b700) ARCH=aarch64 ;;
*) die "unknown ELF machine $machine in ./box" ;;
esac
if command -v readelf >/dev/null 2>&1 && readelf -l box | grep -q INTERP; then
	die "./box is dynamically linked (it has an INTERP header)"
fi
size=$(wc -c <box | tr -d ' ')
[ "$size" -le "$MAXSIZE" ] || die "./box is $size bytes, over the $MAXSIZE budget"

mkdir -p "$DIST"
rm -f "$DIST"/box-*-* "$DIST/SHA256SUMS" "$DIST/install.sh"
cp box "$DIST/box-$V-$ARCH"
if [ -n "${RELEASE_URL:-}" ]; then
	sed "s|^BOX_DEFAULT_RELEASE_URL=.*|BOX_DEFAULT_RELEASE_URL=\"$RELEASE_URL\"|" \
	    host/install.sh >"$DIST/install.sh"
else
	cp host/install.sh "$DIST/install.sh"
fi
chmod 755 "$DIST/box-$V-$ARCH" "$DIST/install.sh"
(cd "$DIST" && sha256sum "box-$V-$ARCH" install.sh >SHA256SUMS)
echo "release $V ($ARCH) in $DIST/:"
(cd "$DIST" && ls -l "box-$V-$ARCH" install.sh SHA256SUMS | awk '{ printf "  %-28s %8s bytes\n", $NF, $5 }')
