/*
 * supervise.c - the guard kept running: a parent that restarts it with a
 * back-off when it dies, and the pid file doctor checks (see guard.h).
 */
#include "host/guard/guard.h"
#include "host/guard/guard_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/stack/guard_unit.h"
#include "host/stack/sysd.h"
#include "util/clock.h"

#define SUP_MIN_MS	500
#define SUP_MAX_MS	30000
#define SUP_STEADY_MS	60000	/* a run this long resets the back-off */

static volatile sig_atomic_t sup_stop;

static void
sup_term(int sig)
{
	(void)sig;
	sup_stop = 1;
}

/* Run the guard in a child; its exit status (-1 killed by a signal). */
static int
one_run(const struct guard_opts *o, pid_t *child)
{
	struct box_err e;
	int status;

	fflush(NULL);
	if ((*child = fork()) < 0)
		return -1;
	if (*child == 0) {
		signal(SIGTERM, SIG_DFL);
		/* the guard never outlives its supervisor */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(0);
		err_clear(&e);
		if (guard_run(o, &e) < 0) {
			fprintf(stderr, "box guard: %s\n", e.msg);
			_exit(1);
		}
		_exit(0);
	}
	while (waitpid(*child, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
		if (sup_stop)
			kill(*child, SIGTERM);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
guard_supervise(const struct guard_opts *o, struct box_err *e)
{
	struct guard_logcap cap;
	struct sigaction sa;
	char pid[32];
	int rc, backoff = SUP_MIN_MS;
	pid_t child;

	memset(&cap, 0, sizeof(cap));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sup_term;	/* no SA_RESTART: waitpid wakes */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* where systemd (not sysd_start_daemon) started it, too */
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if ((rc = sysd_write_atomic(GUARD_PIDFILE, pid, strlen(pid), 0644,
	    e)) < 0)
		return rc;
	while (!sup_stop) {
		long long t0 = clock_ms();
		char why[64];

		rc = one_run(o, &child);
		if (sup_stop)
			break;
		if (clock_ms() - t0 >= SUP_STEADY_MS)
			backoff = SUP_MIN_MS;
		snprintf(why, sizeof(why), "the guard ended (%s %d)",
		    rc < 0 ? "signal or fork failure" : "exit", rc);
		guard_log(&cap, clock_ms(), "restart", -1, "", why, "");
		usleep((useconds_t)backoff * 1000);
		backoff = backoff * 2 > SUP_MAX_MS ? SUP_MAX_MS : backoff * 2;
	}
	unlink(GUARD_PIDFILE);
	return 0;
}
