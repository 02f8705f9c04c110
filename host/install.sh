#!/bin/sh
# shellcheck disable=SC2015 # "a && b || die": die when any step fails
# install.sh - install box, one static binary, on any Linux host.
#
#   curl -fsSL <release-url>/install.sh | sh
#   BOX_INSTALL_SOURCE=/media/box-release sh install.sh     (air-gapped)
#
# What it does, in order; nothing is changed before step 5:
#   1. asks "Install box?" on the terminal (/dev/tty: under `curl | sh` the
#      script itself is stdin).  BOX_YES=1 (or yes, true, any case) answers
#      yes; BOX_YES=0, no, false or empty count as unset; any other value is
#      a usage error (exit 2).  No terminal and no yes from BOX_YES: refuses
#      (exit 1); it never assumes consent.
#   2. fetches SHA256SUMS and the binary box-<version>-<arch> from
#      BOX_RELEASE_URL (default below), or copies them from
#      BOX_INSTALL_SOURCE (a release directory, or the binary itself with
#      SHA256SUMS beside it), into a temporary directory.
#   3. verifies the binary against SHA256SUMS.  A mismatch installs nothing.
#   4. runs the downloaded binary's `box whereami --json`.  Inside a box it
#      refuses and changes nothing: a box host stack built inside a box takes
#      over the box's own uplink (the #80 outage).  BOX_ALLOW_NESTED=1
#      installs the CLI only, and never the host stack unless BOX_SUBNET pins
#      a subnet nothing here claims.
#   5. installs:  root:  /opt/box/versions/<v>/box, /opt/box/current,
#                        /usr/local/bin/box -> /opt/box/current/box
#                 user:  ~/.local/share/box/..., ~/.local/bin/box
#      (BOX_HOME and BOX_BIN override the two directories; as root, only
#      where no other user can write, the whole way there: root_only), with a MANIFEST
#      of what was installed and from where, written before the version
#      directory appears under its name (one rename).  The same version
#      again changes nothing and says so.  A new version lands beside the
#      old ones; `current` moves to it only while the host has no boxes.
#      The manual page and the bash, zsh and fish completions, written by
#      the installed binary itself (box help --man, box completion <sh>:
#      an air-gapped install gets them too), go under the share directory
#      beside BOX_BIN (/usr/local/share, ~/.local/share; BOX_SHARE
#      overrides): man/man1/box.1, bash-completion/completions/box,
#      zsh/site-functions/_box, fish/vendor_completions.d/box.fish, where
#      man, bash-completion, zsh and fish look.  <root>/DOCS lists them
#      for box uninstall.
#   6. on a fresh host (no boxnet network, no box-net profile) asks, as a
#      separate question, whether to run `box setup-host` now.
#      BOX_SKIP_SETUP_HOST=1 skips the question.
#
# Other knobs: BOX_VERSION=<v> picks a version when the release directory
# holds several; BOX_REINSTALL=1 replaces an installed version whose bytes
# differ; TMPDIR for the scratch directory (it must allow executing).
#
# The whole script is functions; the last line calls main, so a download
# cut short runs nothing.

# The project's release location: the directory holding SHA256SUMS,
# install.sh and box-<version>-<arch>.  ci/release.sh stamps it when
# RELEASE_URL is given; tests always set BOX_RELEASE_URL.
BOX_DEFAULT_RELEASE_URL="https://github.com/heavy-duty/box/releases/latest/download"

say()
{
	printf 'box-install: %s\n' "$*"
}

warn()
{
	printf 'box-install: %s\n' "$*" >&2
}

# die MESSAGE [FIX]
die()
{
	printf 'box-install: %s\n' "$1" >&2
	[ $# -lt 2 ] || printf '  fix: %s\n' "$2" >&2
	exit 1
}

# Opening /dev/tty fails without a controlling terminal, even if it exists.
have_tty()
{
	( : </dev/tty ) 2>/dev/null
}

# box_yes: the one BOX_YES rule, the same as the binary's (consent_parse in
# src/util/prompt.c).  0 when BOX_YES says yes (1, yes, true, any case); 1
# when it says no (0, no, false, any case) or is empty or unset; anything
# else is a usage error (exit 2): a typo must not be read as consent, nor
# silently as a refusal the user did not mean.
box_yes()
{
	case ${BOX_YES:-} in
	1 | [Yy][Ee][Ss] | [Tt][Rr][Uu][Ee]) return 0 ;;
	'' | 0 | [Nn][Oo] | [Ff][Aa][Ll][Ss][Ee]) return 1 ;;
	esac
	printf 'box-install: BOX_YES=%s is neither yes nor no — nothing was changed\n' "$BOX_YES" >&2
	printf '  fix: BOX_YES takes 1, yes or true (yes), or 0, no, false or empty (no); any case\n' >&2
	exit 2
}

# ask QUESTION: 0 for yes.  A yes from BOX_YES answers it; EOF and anything
# but y/yes is no.
ask()
{
	if box_yes; then
		say "$1? yes (BOX_YES)"
		return 0
	fi
	have_tty || return 1
	printf '%s? [y/N] ' "$1" >/dev/tty
	_ans=
	read -r _ans </dev/tty || _ans=
	case $_ans in
	y | Y | yes | YES | Yes) return 0 ;;
	esac
	return 1
}

sha256()
{
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	else
		die "no sha256sum, shasum or openssl to verify the download with"
	fi
}

# fetch URL FILE
fetch()
{
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --connect-timeout 20 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		die "neither curl nor wget is installed" \
		    "install one, or install from a local copy: BOX_INSTALL_SOURCE=<dir>"
	fi
}

version_ok()
{
	case $1 in
	'' | .* | -* | *[!A-Za-z0-9._+-]*) return 1 ;;
	esac
	return 0
}

arch()
{
	case $(uname -m) in
	x86_64 | amd64) echo x86_64 ;;
	aarch64 | arm64) echo aarch64 ;;
	*) uname -m ;;
	esac
}

# pick SUMS: the one binary for this machine named in SUMS.
pick()
{
	if [ -n "${BOX_VERSION:-}" ]; then
		version_ok "$BOX_VERSION" || die "BOX_VERSION=$BOX_VERSION is not a version name"
		_want="box-$BOX_VERSION-$ARCH"
		awk -v n="$_want" '$2 == n || $2 == "*" n { print n }' "$1" | head -n 1
		return
	fi
	_all=$(awk -v a="-$ARCH" '{ n = $2; sub(/^\*/, "", n) }
	    n ~ /^box-/ && substr(n, length(n) - length(a) + 1) == a { print n }' "$1")
	_cnt=$(printf '%s\n' "$_all" | grep -c . || :)
	[ "$_cnt" -le 1 ] || die "SHA256SUMS names $_cnt binaries for $ARCH:" \
	    "pick one: BOX_VERSION=<v> (one of: $(printf '%s\n' "$_all" | sed 's/^box-//; s/-'"$ARCH"'$//' | tr '\n' ' '))"
	printf '%s\n' "$_all"
}

# acquire: SHA256SUMS and the binary into $TMP; sets NAME, SOURCE.
acquire()
{
	if [ -n "${BOX_INSTALL_SOURCE:-}" ]; then
		_src=$BOX_INSTALL_SOURCE
		if [ -d "$_src" ]; then
			_dir=$_src
			_name=
		elif [ -f "$_src" ]; then
			_dir=$(dirname "$_src")
			_name=$(basename "$_src")
		else
			die "BOX_INSTALL_SOURCE=$_src is neither a release directory nor a file"
		fi
		[ -f "$_dir/SHA256SUMS" ] || die "no SHA256SUMS in $_dir: a local copy is verified like a download" \
		    "copy the release's SHA256SUMS next to the binary"
		cp "$_dir/SHA256SUMS" "$TMP/SHA256SUMS" || die "cannot read $_dir/SHA256SUMS"
		if [ -n "$_name" ]; then
			NAME=$_name
		else
			pick "$TMP/SHA256SUMS" >"$TMP/.name" || exit 1
			NAME=$(cat "$TMP/.name")
		fi
		[ -n "$NAME" ] || die "SHA256SUMS in $_dir names no box binary for $ARCH"
		[ -f "$_dir/$NAME" ] || die "$_dir/$NAME is missing"
		cp "$_dir/$NAME" "$TMP/$NAME" || die "cannot read $_dir/$NAME"
		SOURCE="local:$(cd "$_dir" && pwd)/$NAME"
	else
		_url=${BOX_RELEASE_URL:-$BOX_DEFAULT_RELEASE_URL}
		_url=${_url%/}
		say "fetching $_url/SHA256SUMS"
		fetch "$_url/SHA256SUMS" "$TMP/SHA256SUMS" ||
		    die "could not download $_url/SHA256SUMS — nothing was changed" \
		    "check the address, or install from a local copy: BOX_INSTALL_SOURCE=<dir>"
		pick "$TMP/SHA256SUMS" >"$TMP/.name" || exit 1
		NAME=$(cat "$TMP/.name")
		[ -n "$NAME" ] || die "$_url/SHA256SUMS names no box binary for $ARCH — nothing was changed"
		say "fetching $_url/$NAME"
		fetch "$_url/$NAME" "$TMP/$NAME" ||
		    die "could not download $_url/$NAME — nothing was changed"
		SOURCE="$_url/$NAME"
	fi
	case $NAME in
	*/* | '') die "bad file name in SHA256SUMS: '$NAME'" ;;
	esac
}

verify()
{
	_want=$(awk -v n="$NAME" '$2 == n || $2 == "*" n { print $1; exit }' "$TMP/SHA256SUMS")
	[ -n "$_want" ] || die "SHA256SUMS has no line for $NAME — nothing was installed"
	SUM=$(sha256 "$TMP/$NAME")
	[ "$(printf '%s' "$_want" | tr 'A-F' 'a-f')" = "$SUM" ] ||
	    die "checksum mismatch for $NAME: SHA256SUMS says $_want, the file is $SUM — nothing was installed" \
	    "the download is damaged or was tampered with; fetch it again from a source you trust"
	say "verified $NAME (sha256 $SUM)"
	V=${NAME#box-}
	V=${V%-"$ARCH"}
	version_ok "$V" || die "'$V' (from $NAME) is not a version name"
	BIN=$TMP/box
	mv "$TMP/$NAME" "$BIN" && chmod 755 "$BIN" || die "cannot prepare $BIN"
	_out=$("$BIN" --version </dev/null 2>&1) ||
	    die "the downloaded binary does not run here: $_out" \
	    "if $TMP sits on a noexec mount, point TMPDIR at one that allows executing"
	case $_out in
	"box $V "*) ;;
	*) die "$NAME says it is '$_out', not box $V — nothing was installed" ;;
	esac
}

# jget KEY: a string or number field of the whereami JSON in $WHERE.
jget()
{
	printf '%s\n' "$WHERE" | sed -n 's/.*"'"$1"'":"\{0,1\}\([^",}]*\)"\{0,1\}[,}].*/\1/p' | head -n 1
}

where()
{
	WHERE=$("$BIN" whereami --json </dev/null 2>/dev/null) ||
	    die "the downloaded box could not tell where it runs — nothing was installed"
	VERDICT=$(jget verdict)
	BOXES=$(jget boxes)
	STACK=$(jget stack)
	PIN_FREE=$(jget box_subnet_free)
	BOX_NAMES=$(printf '%s\n' "$WHERE" | sed -n 's/.*"box_names":\[\([^]]*\)\].*/\1/p' |
	    sed 's/"//g; s/,/, /g')
	NESTED=0
	case $VERDICT in
	box)
		if [ "${BOX_ALLOW_NESTED:-}" != 1 ]; then
			refuse_nested
		fi
		NESTED=1
		say "inside a box, and BOX_ALLOW_NESTED=1: installing the CLI only, no host stack"
		;;
	instance)
		say "note: this is an Incus instance (not a box, as far as can be seen)"
		;;
	host) ;;
	*) die "the downloaded box gave no verdict on where it runs — nothing was installed" ;;
	esac
}

refuse_nested()
{
	{
		echo "box-install: refusing to install: this machine is inside a box."
		echo
		"$BIN" whereami </dev/null 2>/dev/null | sed 's/^/  /'
		cat <<'EOF'

A box host stack built inside a box puts a second bridge on the box's own
uplink subnet and takes its gateway's address; the box then loses its
network in bursts that look like flaky internet (the #80 outage).
Nothing was changed.

To install just the CLI here (never the host stack): BOX_ALLOW_NESTED=1
EOF
	} >&2
	exit 1
}

# layout: DEST and BINDIR for this user.
layout()
{
	if [ "$(id -u)" = 0 ]; then
		DEST=${BOX_HOME:-/opt/box}
		BINDIR=${BOX_BIN:-/usr/local/bin}
	else
		[ -n "${HOME:-}" ] || die "HOME is not set; say where to install: BOX_HOME=<dir> BOX_BIN=<dir>"
		DEST=${BOX_HOME:-$HOME/.local/share/box}
		BINDIR=${BOX_BIN:-$HOME/.local/bin}
	fi
	case $DEST in
	/*) ;;
	*) DEST=$(pwd)/$DEST ;;
	esac
	case $BINDIR in
	/*) ;;
	*) BINDIR=$(pwd)/$BINDIR ;;
	esac
	SHARE=${BOX_SHARE:-$(dirname "$BINDIR")/share}
	case $SHARE in
	/*) ;;
	*) SHARE=$(pwd)/$SHARE ;;
	esac
}

# root_fix WHAT: the fix line for a refused directory.
root_fix()
{
	case $1 in
	BOX_SHARE) echo "make it root's (chown root, chmod go-w, the whole way up), or name one only root can write: BOX_SHARE=<dir> (the default /usr/local/share is)" ;;
	*) echo "pick a directory only root can write (the defaults /opt/box and /usr/local/bin are)" ;;
	esac
}

# root_only PATH WHAT: as root, refuse PATH unless no other user can
# change what lands there (the check setup-host makes of its boot copy's
# directory, src/host/stack/sysd.c, applied to the whole way there): PATH
# and everything in the way, as far as they exist, resolved, owned by root
# and writable by nobody else - except a sticky directory (/tmp) right
# above a root-owned one, whose entries only their owner may rename.  A
# user's directory anywhere on the way could swap `current` or the binary
# under root's `box`.
root_only()
{
	_p=$1
	while [ ! -e "$_p" ] && [ ! -L "$_p" ]; do
		_p=$(dirname "$_p")
	done
	# the way as written (a link on it is root's, in a root-only
	# directory), then the way it resolves to
	root_chain "$_p" "$1" "$2" "${3:-}"
	_r=$(readlink -f "$_p") || die "cannot resolve $_p ($2)"
	root_chain "$_r" "$1" "$2" "${3:-}"
}

# root_chain PATH ASKED WHAT [MKTEMP]: PATH and each directory above it
# (lstat); MKTEMP: PATH is where mktemp makes root's own 0700 directory,
# so a sticky PATH (/tmp) is fine.
root_chain()
{
	_r=$1
	_below=$4
	while :; do
		_u=$(stat -c %u "$_r") && _m=$(stat -c %a "$_r") ||
		    die "cannot stat $_r ($3)"
		[ "$_u" = 0 ] || die "refusing to install as root under $_r, which uid $_u owns ($3=$2): that user could swap what root runs or writes" \
		    "$(root_fix "$3")"
		if [ ! -L "$_r" ]; then
			_w=$(( 0$_m & 022 ))
			_sticky=$(( 0$_m & 01000 ))
			if [ "$_w" != 0 ] && ! { [ "$_sticky" != 0 ] && [ -n "$_below" ]; }; then
				die "refusing to install as root under $_r (mode $_m: other users can write it; $3=$2): they could swap what root runs or writes" \
				    "$(root_fix "$3")"
			fi
		fi
		[ "$_r" = / ] && break
		_below=$_r
		_r=$(dirname "$_r")
	done
}

# The share directory's subdirectories install_docs writes into.
DOC_DIRS="man/man1 bash-completion/completions zsh/site-functions fish/vendor_completions.d"

# root_install_safe: as root, DEST, BINDIR and every directory the manual
# and completions go to (given as BOX_SHARE or derived from BOX_BIN; what
# is already in them) pass root_only: through a user's share directory
# root would write its text wherever that user's links point; the scratch
# directory is made only where root alone can (TMPDIR too, else /tmp).
root_install_safe()
{
	[ "$(id -u)" = 0 ] || return 0
	root_only "$DEST" BOX_HOME
	root_only "$BINDIR" BOX_BIN
	for _d in $DOC_DIRS; do
		root_only "$SHARE/$_d" BOX_SHARE
	done
	for _f in "$DEST/versions" "$DEST/current" "$BINDIR/box"; do
		if [ -e "$_f" ] || [ -L "$_f" ]; then
			[ "$(stat -c %u "$_f")" = 0 ] ||
			    die "refusing to install as root: $_f is owned by uid $(stat -c %u "$_f"), not root" \
			    "remove it, or pick another BOX_HOME/BOX_BIN"
		fi
	done
	_tmpd=${TMPDIR:-/tmp}
	( root_only "$_tmpd" TMPDIR mktemp ) >/dev/null 2>&1 || _tmpd=/tmp
	root_only "$_tmpd" TMPDIR mktemp
	TMPDIR=$_tmpd
}

manifest()
{
	cat <<EOF
version=$V
arch=$ARCH
file=$NAME
sha256=$SUM
source=$SOURCE
installed_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
installed_by=uid $(id -u) ($(id -un 2>/dev/null || echo '?'))
mode=$([ "$NESTED" = 1 ] && echo cli-only-nested || echo full)
EOF
}

manifest_get()
{
	sed -n "s/^$2=//p" "$1/MANIFEST" 2>/dev/null | head -n 1
}

# install_version: sets NEW=1 when the version was not there before.
install_version()
{
	VDIR=$DEST/versions/$V
	NEW=0
	if [ -e "$VDIR/box" ]; then
		if [ "$(sha256 "$VDIR/box")" = "$SUM" ]; then
			say "box $V is already installed ($(manifest_get "$VDIR" source)) — nothing to do"
			return
		fi
		[ "${BOX_REINSTALL:-}" = 1 ] ||
		    die "box $V is already installed in $VDIR with different contents — nothing was changed" \
		    "replace it: BOX_REINSTALL=1"
		_t=$(mktemp "$VDIR/.box.XXXXXX") && cp "$BIN" "$_t" &&
		    chmod 755 "$_t" && mv -f "$_t" "$VDIR/box" || {
			[ -z "${_t:-}" ] || rm -f "$_t"
			die "could not replace $VDIR/box"
		}
		_t=$(mktemp "$VDIR/.MANIFEST.XXXXXX") && manifest >"$_t" &&
		    chmod 644 "$_t" && mv -f "$_t" "$VDIR/MANIFEST" || {
			[ -z "${_t:-}" ] || rm -f "$_t"
			die "could not write $VDIR/MANIFEST"
		}
		say "reinstalled box $V in $VDIR"
		return
	fi
	mkdir -p "$DEST/versions" || die "cannot create $DEST/versions" \
	    "$([ "$(id -u)" = 0 ] && echo "check $DEST" || echo "install system-wide as root, or pick a directory: BOX_HOME=<dir>")"
	_stage=$(mktemp -d "$DEST/versions/.$V.new.XXXXXX") ||
	    die "cannot create a staging directory in $DEST/versions"
	cp "$BIN" "$_stage/box" && chmod 755 "$_stage/box" &&
	    manifest >"$_stage/MANIFEST" && chmod 644 "$_stage/MANIFEST" &&
	    chmod 755 "$_stage" &&
	    mv "$_stage" "$VDIR" || {
		rm -rf "$_stage"
		die "could not install into $VDIR"
	}
	NEW=1
	say "installed box $V in $VDIR"
}

# relink LINK TARGET: point LINK at TARGET in one rename, the new link
# made in a directory of mktemp's beside LINK (no name another user
# could guess and plant first).
relink()
{
	_rd=$(mktemp -d "$(dirname "$1")/.box.XXXXXX") || return 1
	ln -s "$2" "$_rd/link" && mv -Tf "$_rd/link" "$1" 2>/dev/null || {
		rm -f "$_rd/link" "$1" && ln -s "$2" "$1"
	}
	_rc=$?
	rmdir "$_rd"
	return $_rc
}

flip_current()
{
	_cur=$(readlink "$DEST/current" 2>/dev/null || :)
	_old=${_cur#versions/}
	if [ -z "$_cur" ] || [ ! -f "$DEST/$_cur/box" ]; then
		relink "$DEST/current" "versions/$V" || die "could not point $DEST/current at versions/$V"
		say "default version: $V"
	elif [ "$_cur" = "versions/$V" ]; then
		:
	elif [ "$NEW" != 1 ]; then
		say "the default stays $_old; to switch: box use $V"
	elif [ "$BOXES" != 0 ]; then
		if [ "$BOXES" = -1 ] || [ -z "$BOXES" ]; then
			warn "cannot tell whether boxes exist, so the default stays $_old"
		else
			warn "this host has $BOXES box(es) ($BOX_NAMES): the default stays $_old,"
			warn "so no box is switched to another version behind its owner's back"
		fi
		warn "$V is installed beside it; once no box is left (box down, box export, box rm): box use $V"
	else
		relink "$DEST/current" "versions/$V" || die "could not point $DEST/current at versions/$V"
		say "default version: $V (was $_old; back: box use $_old)"
	fi
}

link_bin()
{
	_link=$BINDIR/box
	_want=$DEST/current/box
	mkdir -p "$BINDIR" || die "cannot create $BINDIR" "pick another: BOX_BIN=<dir>"
	if [ -L "$_link" ]; then
		_have=$(readlink "$_link")
		[ "$_have" = "$_want" ] && return
		case $_have in
		"$DEST"/*) ;;
		*)
			if [ -e "$_link" ]; then
				warn "$_link points at $_have (another install) — left alone"
				return
			fi
			;;
		esac
		relink "$_link" "$_want" || die "could not point $_link at $_want"
	elif [ -e "$_link" ]; then
		warn "$_link exists and is not a symlink — left alone; run box as $_want"
		return
	else
		ln -s "$_want" "$_link" || die "could not create $_link"
	fi
	say "linked $_link -> $_want"
}

# put_if_changed NEW DEST: DEST gets NEW's bytes (atomically, by rename)
# unless it has them already, so installing the same version twice touches
# nothing, not even a directory's time.
put_if_changed()
{
	cmp -s "$1" "$2" && return 0
	_t=$(mktemp "$(dirname "$2")/.box.XXXXXX") || return 1
	cp "$1" "$_t" && chmod 644 "$_t" && mv -f "$_t" "$2" && return 0
	rm -f "$_t"
	return 1
}

# install_docs: box.1 and the completions, written by the binary current
# points at (the one `box` runs).
# Best effort: a page that cannot be written is said, never fatal.
install_docs()
{
	_share=$SHARE
	_list=$TMP/DOCS
	: >"$_list" || { warn "cannot write $DEST/DOCS; no manual page or completions"; return; }
	for _doc in "man/man1/box.1:help --man" \
	    "bash-completion/completions/box:completion bash" \
	    "zsh/site-functions/_box:completion zsh" \
	    "fish/vendor_completions.d/box.fish:completion fish"; do
		_path=$_share/${_doc%%:*}
		# shellcheck disable=SC2086 # the verb and its argument, split
		if mkdir -p "$(dirname "$_path")" &&
		    "$DEST/current/box" ${_doc#*:} >"$TMP/doc" </dev/null &&
		    put_if_changed "$TMP/doc" "$_path"; then
			echo "$_path" >>"$_list"
		else
			warn "could not write $_path"
		fi
	done
	put_if_changed "$_list" "$DEST/DOCS" || warn "could not write $DEST/DOCS"
	say "manual page and completions in $_share (man box; box <tab>)"
}

path_hint()
{
	case ":$PATH:" in
	*":$BINDIR:"*) ;;
	*) say "$BINDIR is not on PATH; add it: export PATH=\"$BINDIR:\$PATH\"" ;;
	esac
	if [ "$(id -u)" != 0 ] && [ -e /usr/local/bin/box ]; then
		say "note: a system-wide box exists too (/usr/local/bin/box); PATH order decides which runs"
	fi
}

offer_setup()
{
	if [ "$NESTED" = 1 ]; then
		if [ -z "${BOX_SUBNET:-}" ] || [ "$PIN_FREE" != true ]; then
			say "inside a box: no host stack (only with BOX_SUBNET pinning a private (RFC 1918) subnet nothing here claims)"
			return
		fi
		say "inside a box, BOX_SUBNET=$BOX_SUBNET is claimed by nothing here: a host stack may go there"
	elif [ "$STACK" = present ]; then
		say "this host already has a box host stack; re-apply it any time: box setup-host"
		return
	elif [ "$STACK" != absent ]; then
		say "cannot tell whether this host has a box host stack; set it up yourself: box setup-host"
		return
	fi
	if [ -n "${BOX_SKIP_SETUP_HOST:-}" ]; then
		say "host setup skipped (BOX_SKIP_SETUP_HOST); later: box setup-host"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		say "setting up the host needs root; later: sudo box setup-host"
		return
	fi
	if ! "$VDIR/box" help setup-host </dev/null >/dev/null 2>&1; then
		say "box $V has no setup-host; nothing more to do"
		return
	fi
	if ! ask "Set up this machine as a box host now (box setup-host: Incus, the boxnet bridge, the firewall)"; then
		say "host setup skipped; later: box setup-host"
		return
	fi
	"$VDIR/box" setup-host </dev/null ||
	    warn "box setup-host did not complete; see above, then run it again: box setup-host"
}

main()
{
	set -u
	umask 022
	ARCH=$(arch)
	layout
	root_install_safe
	if [ -n "${BOX_INSTALL_SOURCE:-}" ]; then
		_from="the local copy $BOX_INSTALL_SOURCE"
	else
		_from=${BOX_RELEASE_URL:-$BOX_DEFAULT_RELEASE_URL}
	fi
	if ! box_yes && ! have_tty; then
		die "no terminal to confirm on, and BOX_YES does not say yes — nothing was changed" \
		    "to install without a question: BOX_YES=1"
	fi
	ask "Install box ($ARCH) from $_from into $DEST (command: $BINDIR/box)" ||
	    die "cancelled — nothing was changed"
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/box-install.XXXXXX") || die "cannot create a scratch directory"
	trap 'rm -rf "$TMP"' EXIT
	trap 'exit 130' INT TERM HUP
	acquire
	verify
	where
	install_version
	flip_current
	link_bin
	install_docs
	path_hint
	offer_setup
	say "done: box $V from $SOURCE in $DEST"
}

main "$@"
