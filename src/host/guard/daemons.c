/*
 * daemons.c - box's other long-running processes kept running by the
 * guard: the resolver (and any daemon of box's sysd_start_daemon started
 * detached, listed in guard_daemons_init).  Where systemd runs, their
 * units' Restart= does this and the guard leaves them alone; where it
 * does not, nothing else would start a dead resolver again, and the boxes
 * would have no DNS until the next setup-host.
 *
 * A daemon is wanted while the argv file its start left beside its pid
 * file exists (teardown-host removes both); one that is wanted and not
 * running is started again from that argv, with a back-off (0.5 s
 * doubling to 30 s, back to 0.5 s after a minute's run), and each start
 * logged as a "revive" event doctor shows.
 */
#include "host/guard/guard.h"
#include "host/guard/guard_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/stack/resolver_unit.h"
#include "host/stack/sysd.h"

#define DMN_CHECK_MS	500
#define DMN_MIN_MS	500
#define DMN_MAX_MS	30000
#define DMN_STEADY_MS	60000
#define DMN_SETTLE_S	2	/* an argv file this young: a start under way */

/* argv[1..] as each runs: what tells it from another process */
static const char rsvd_words[] = "resolver\0run";

size_t
guard_daemons_init(struct guard_daemon *d, size_t max)
{
	size_t n = 0, i;

	if (max < 1)
		return 0;
	memset(d, 0, max * sizeof(*d));
	d[n].name = "the resolver";
	d[n].pidfile = RSVD_PIDFILE;
	d[n].log = RSVD_LOG;
	d[n].words = rsvd_words;
	d[n].wn = sizeof(rsvd_words);
	n++;
	for (i = 0; i < n; i++)
		d[i].backoff_ms = DMN_MIN_MS;
	return n;
}

/*
 * Is d wanted: its argv file (setup-host's start left it) exists, and no
 * start is under way.  sysd_start_daemon writes the pid file, then the
 * argv, before its grandchild has exec'd: for that moment the pid names a
 * process that is not yet the daemon, and a revive then would start a
 * second one, which loses port 53 to the first and leaves the pid file
 * naming the loser.  An argv file younger than DMN_SETTLE_S is a start
 * under way: looked at again next round.
 */
static int
wanted(const struct guard_daemon *d)
{
	char path[256];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s%s", d->pidfile, SYSD_ARGV) >=
	    (int)sizeof(path))
		return 0;
	if (stat(path, &st) < 0)
		return 0;
	return time(NULL) - st.st_mtime >= DMN_SETTLE_S;
}

static void
revive(struct guard_daemon *d, struct guard_logcap *cap, long long now)
{
	char what[GUARD_TEXT], back[GUARD_TEXT];
	struct box_err e;
	int pid;

	err_clear(&e);
	snprintf(what, sizeof(what), "%s was not running (%s)", d->name,
	    d->pidfile);
	if (sysd_restart_daemon(d->pidfile, d->log, &pid, &e) < 0)
		snprintf(back, sizeof(back), "could not start it again: %.150s; "
		    "next try in %d ms", e.msg, d->backoff_ms);
	else
		snprintf(back, sizeof(back), "started again (pid %d); its "
		    "output in %s", pid, d->log);
	guard_log(cap, now, "revive", -1, "", what, back);
	d->next_at = now + d->backoff_ms;
	d->backoff_ms = d->backoff_ms * 2 > DMN_MAX_MS ? DMN_MAX_MS :
	    d->backoff_ms * 2;
	d->up_since = 0;
	d->revived++;
}

long long
guard_daemons_tick(struct guard_daemon *d, size_t n, struct guard_logcap *cap,
    long long now)
{
	long long next = now + DMN_CHECK_MS;
	size_t i;

	for (i = 0; i < n; i++) {
		if (now < d[i].next_at) {
			if (d[i].next_at < next)
				next = d[i].next_at;
			continue;
		}
		d[i].next_at = now + DMN_CHECK_MS;
		/* systemd's Restart= keeps them; nothing to want here */
		if (sysd_present() || !wanted(&d[i]))
			continue;
		if (sysd_daemon_pid(d[i].pidfile, NULL, d[i].words,
		    d[i].wn) > 0) {
			if (d[i].up_since == 0)
				d[i].up_since = now;
			else if (now - d[i].up_since >= DMN_STEADY_MS)
				d[i].backoff_ms = DMN_MIN_MS;
			continue;
		}
		revive(&d[i], cap, now);
		if (d[i].next_at < next)
			next = d[i].next_at;
	}
	return next;
}
