/*
 * box guard run [--subnet A.B.C.0/24] [--once] [--no-supervise]
 *     [--test-refuse FILE] - box's guard in the foreground
 * (host/guard/guard.h): watches the kernel and puts the contract back.
 * box guard status - whether it runs, and its last events.  Internal: not
 * listed in box help (setup-host starts it; doctor checks it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "host/guard/guard.h"
#include "host/stack/contract.h"
#include "host/stack/subnet.h"
#include "util/opt.h"

static int
status(struct box_err *e)
{
	struct guard_event ev[10];
	unsigned recent;
	size_t n, i;
	int rc, pid = guard_pid();

	if ((rc = guard_events_read(ev, 10, &n, &recent, (long long)time(NULL),
	    e)) < 0)
		return rc;
	printf("guard        %s", pid ? "running" : "NOT running");
	if (pid)
		printf(" (pid %d)", pid);
	printf("; %u heals in the last %d min\n", recent, GUARD_RECENT_S / 60);
	for (i = 0; i < n; i++) {
		printf("%-12s %lld", ev[i].kind, ev[i].at);
		if (ev[i].window_ms >= 0)
			printf(" window %ld ms", ev[i].window_ms);
		if (ev[i].by[0] != '\0')
			printf(" by %s", ev[i].by);
		printf(": %s%s%s\n", ev[i].what, ev[i].back[0] ? " -> put "
		    "back: " : "", ev[i].back);
	}
	return pid ? 0 : 1;
}

int
cmd_guard(int argc, char **argv, struct box_err *e)
{
	const char *subnet = NULL, *refuse = NULL;
	struct guard_opts o;
	struct opt_result res;
	int rc, once = 0, nosup = 0;
	const struct opt rows[] = {
		OPT_WORDS("run|status", 1, 1, "run status", NULL),
		OPT_STR("--subnet", "A.B.C.0/24", &subnet, OC_NONE, "the "
		    "boxes' subnet (else the bridge's, read each time)"),
		OPT_FLAG("--once", NULL, &once, "judge and heal once, then "
		    "exit"),
		OPT_FLAG("--no-supervise", NULL, &nosup, "run the guard "
		    "itself, without the parent that restarts it"),
		OPT_STR("--test-refuse", "FILE", &refuse, OC_NONE, "TESTS "
		    "ONLY: while FILE exists, every heal's batch carries a "
		    "rule the kernel refuses (the fail-closed path)"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (strcmp(res.pos[0], "status") == 0)
		return status(e);
	if (strcmp(res.pos[0], "run") != 0)
		return opt_usage(argv[0], rows, e);
	memset(&o, 0, sizeof(o));
	o.br = CONTRACT_BRIDGE;
	o.refuse = refuse;
	o.once = once;
	if (subnet != NULL && subnet_parse(subnet, &o.net) < 0)
		return err_usage(e, "--subnet takes A.B.C.0/24, not '%s'",
		    subnet);
	if (geteuid() != 0)
		return err_set(e, -EPERM, "the guard needs root");
	return once || nosup ? guard_run(&o, e) : guard_supervise(&o, e);
}
