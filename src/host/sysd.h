/*
 * sysd.h - host administration that setup-host and teardown-host may do
 * with the system's own programs (apt-get, systemctl): box never runs
 * incus, nft, ip or bridge, but installing a package or restarting a unit
 * is the system's job.
 */
#ifndef BOX_SYSD_H
#define BOX_SYSD_H

#include "util/err.h"

#define SYSD_UNIT	"box-firewall.service"
#define SYSD_UNIT_PATH	"/etc/systemd/system/" SYSD_UNIT

/* Is systemd running this machine (PID 1)? */
int sysd_present(void);

/* Run argv (a program from PATH), wait; 0 when it exited 0. */
int sysd_run(char *const argv[], struct box_err *e);

/* Write path atomically (temp file in the same directory, then rename). */
int sysd_write_atomic(const char *path, const void *data, size_t n,
    int mode, struct box_err *e);

/*
 * Install the firewall unit pointing at box_path, reload, enable, and
 * restart it (restart, not "enable --now": that does nothing to an active
 * oneshot, so new rules would not apply).
 */
int sysd_install_unit(const char *box_path, struct box_err *e);
/* Disable and remove it; absent is fine. */
int sysd_remove_unit(struct box_err *e);

/* The stable path of this box: /usr/local/bin/box when that is us. */
void sysd_box_path(char *buf, size_t cap);

#endif
