#!/bin/sh
# Everything the tests need on this machine, in order; each step is
# idempotent, so re-running after an interruption just finishes the job.
#   BOX_CI_DEBIAN=1  also build/import the Debian (systemd + cloud-init) image.
# The egress guard goes in before incusd is even started: from then on no
# test bridge can reach the real uplink, whatever starts on it.
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=ci/lib.sh
. ci/lib.sh

step()
{
	_t=$(ci_now_ms)
	echo "setup: $*" >&2
	"$@"
	echo "setup: $* ($(ci_since "$_t"))" >&2
}

t0=$(ci_now_ms)
step sh ci/install-deps.sh
step sh ci/egress-guard.sh install
step sh ci/start-incus.sh
if [ "${BOX_CI_DEBIAN:-0}" = 1 ]; then
	step sh ci/build-images.sh --debian
else
	step sh ci/build-images.sh
fi
echo "setup: done ($(ci_since "$t0"))" >&2
