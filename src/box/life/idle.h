/*
 * idle.h - boxes that stop themselves when nobody uses them.
 *
 * A box minted with --idle-stop <duration> (or a template's
 * BOX_IDLE_STOP, or the idle-stop default) carries user.box.idle-stop
 * (seconds).  There is no daemon for it: the check runs at the start of
 * box new and box prune and at the end of box list (the verbs that look
 * at every box; list's output is never delayed by it), and
 * stops, without waiting, each running box that has been idle that long:
 * a container at once, a VM asked to shut down.
 *
 * Idle is judged only from what the box cannot forge: the daemon's CPU
 * counter for its cgroup (state cpu.usage) and the sessions the daemon
 * holds open on it (running exec and console operations).  Each check
 * writes user.box.idle.mark = "<last active>:<cpu ns>:<when>:<session>"
 * (Unix seconds; session 1 when one was open) into the instance's config,
 * which the box cannot write.  A box counts as active between two checks
 * when a session was open at either, it was started since the last one
 * (Incus's last_used_at), its
 * counter went backwards (a restart), or it used more than
 * IDLE_CPU_PERMILLE of one CPU over min(the gap, its idle-stop).  The
 * first check of a box only marks it.  box's own sessions also mark
 * their end (box_idle_touch); a session of another client that opened
 * and closed between two checks is seen only through the CPU it used.
 */
#ifndef BOX_IDLE_H
#define BOX_IDLE_H

#include "incus/api.h"
#include "incus/instance.h"
#include "util/err.h"

#define IDLE_KEY	"user.box.idle-stop"
#define IDLE_MARK_KEY	"user.box.idle.mark"
#define IDLE_CPU_PERMILLE 20	/* 2% of one CPU is activity */
#define IDLE_MAX_S	(366L * 86400)

/* "90s", "30m", "2h", "1d" (or a bare count of seconds): seconds. */
int idle_duration(const char *s, long *secs, char *why, size_t cap);

struct idle_mark {
	long long last, cpu_ns, at;
	int session;		/* a session was open at that check */
};

/* "last:cpu:at[:0|1]" into m: 0, or -1 when it is not one. */
int idle_mark_parse(const char *s, struct idle_mark *m);

/*
 * One check of one box: m (have: it held a mark) moved to now; 1 when the
 * box has been idle idle_s seconds and is to stop.
 */
int idle_judge(struct idle_mark *m, int have, long long now,
    long long cpu_ns, int session, long long started, long idle_s);

/*
 * The check over every box (see above); what it stops is said on stderr.
 * Never fails the verb that runs it: a daemon that does not answer is
 * left for the next check.
 */
void box_idle_sweep(struct incus *c);
/*
 * A session of box's own (exec, shell, root, tmux) has just ended on in:
 * when it has an idle-stop, its mark says it was active now, so a session
 * that opened and closed between two checks is not missed.  Failures are
 * ignored (the next check judges as before).
 */
void box_idle_touch(struct incus *c, const struct incus_instance *in);
/* The same on a connection of its own (box new). */
void box_idle_sweep_once(void);

#endif
