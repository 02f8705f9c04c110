/* guard_unit.c - box's guard as the host runs it (see guard_unit.h). */
#include "host/stack/guard_unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/embedded.h"
#include "host/stack/sysd.h"

/* argv[1..] of the guard (any argv[0]: a test runs its own ./box) */
static const char guard_words[] = "guard\0run";

int
guard_pid(void)
{
	return sysd_daemon_pid(GUARD_PIDFILE, NULL, guard_words,
	    sizeof(guard_words));
}

static void
stop_detached(void)
{
	sysd_stop_daemon(GUARD_PIDFILE, NULL, guard_words,
	    sizeof(guard_words));
}

void
guard_pause(void)
{
	if (!sysd_present())
		stop_detached();
}

int
guard_off(void)
{
	const char *off = getenv("BOX_GUARD");

	return off != NULL && strcmp(off, "0") == 0;
}

int
guard_install(int *mode, struct box_err *e)
{
	const struct embedded_file *f = embedded_find(embedded_host,
	    embedded_host_count, GUARD_UNIT);
	char *argv[] = { (char *)SYSD_BOOT_BIN, (char *)"guard",
	    (char *)"run", NULL };
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	char *enable[] = { "systemctl", "enable", GUARD_UNIT, NULL };
	char *restart[] = { "systemctl", "restart", GUARD_UNIT, NULL };
	char unit[4096];
	int rc;

	*mode = GUARD_OFF;
	if (guard_off())
		return 0;
	if (f == NULL || f->len >= sizeof(unit) / 2)
		return err_set(e, -ENOENT, "the guard's unit is not built in");
	memcpy(unit, f->data, f->len);
	unit[f->len] = '\0';
	if (sysd_fill(unit, sizeof(unit), "@BOX@", SYSD_BOOT_BIN) < 0)
		return err_set(e, -EINVAL, "the built-in guard unit lacks "
		    "@BOX@");
	if ((rc = sysd_write_atomic(GUARD_UNIT_PATH, unit, strlen(unit), 0644,
	    e)) < 0)
		return rc;
	stop_detached();
	if (sysd_present()) {
		if ((rc = sysd_run(reload, e)) < 0 ||
		    (rc = sysd_run(enable, e)) < 0 ||
		    (rc = sysd_run(restart, e)) < 0)
			return rc;
		*mode = GUARD_SYSTEMD;
		return 0;
	}
	if ((rc = sysd_start_daemon(argv, GUARD_PIDFILE, GUARD_OUT, e)) < 0)
		return rc;
	*mode = GUARD_DETACHED;
	return 0;
}

int
guard_remove(struct box_err *e)
{
	char *disable[] = { "systemctl", "disable", "--now", GUARD_UNIT, NULL };
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	struct box_err ignore;

	stop_detached();
	if (access(GUARD_UNIT_PATH, F_OK) != 0)
		return 0;
	err_clear(&ignore);
	if (sysd_present())
		sysd_run(disable, &ignore);
	if (unlink(GUARD_UNIT_PATH) < 0 && errno != ENOENT)
		return err_set(e, -errno, "removing %s: %s", GUARD_UNIT_PATH,
		    strerror(errno));
	if (sysd_present())
		return sysd_run(reload, e);
	return 0;
}
