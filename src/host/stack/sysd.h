/*
 * sysd.h - host administration that setup-host and teardown-host may do
 * with the system's own programs (apt-get, systemctl): box never runs
 * incus, nft, ip or bridge, but installing a package or restarting a unit
 * is the system's job.
 */
#ifndef BOX_SYSD_H
#define BOX_SYSD_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define SYSD_UNIT	"box-firewall.service"
#define SYSD_UNIT_PATH	"/etc/systemd/system/" SYSD_UNIT
/* The unit's program: a root-owned copy of box in a root-owned directory. */
#define SYSD_BOOT_DIR	"/usr/local/libexec/box"
#define SYSD_BOOT_BIN	SYSD_BOOT_DIR "/box-firewall"

/* Is systemd running this machine (PID 1)? */
int sysd_present(void);

/* Run argv (a program from PATH), wait; 0 when it exited 0. */
int sysd_run(char *const argv[], struct box_err *e);

/* Write path atomically (temp file in the same directory, then rename). */
int sysd_write_atomic(const char *path, const void *data, size_t n,
    int mode, struct box_err *e);

/* Replace the first key ("@BOX@") in unit[0..cap) with value: 0, or
 * -EINVAL (no such key) / -ENAMETOOLONG (no room). */
int sysd_fill(char *unit, size_t cap, const char *key, const char *value);

/*
 * The boot path of the firewall: copy this very binary to SYSD_BOOT_BIN
 * (root:root 0755, in a root:root 0755 directory that nobody else can
 * write, atomically), and write the unit running it with --subnet
 * net/24.  Where systemd runs, reload, enable and restart the unit
 * (restart, not "enable --now": that does nothing to an active oneshot).
 * *live is set when systemd took it.
 */
int sysd_install_boot(uint32_t net, int *live, struct box_err *e);
/* Disable and remove the unit and the copy; absent is fine. */
int sysd_remove_unit(struct box_err *e);

/*
 * A daemon of box's where systemd does not run (the resolver, the
 * guard): started detached (setsid, stdin /dev/null, output appended to
 * log, no descriptor of the starter's kept), its pid in pidfile and its
 * argv (NUL-separated) in pidfile SYSD_ARGV: what the guard starts again
 * when it dies (sysd_restart_daemon), since systemd's Restart= is not
 * there to.
 */
#define SYSD_ARGV	".argv"
#define SYSD_ARGMAX	32	/* arguments of a daemon, argv[0] included */
#define SYSD_ARGBYTES	4096	/* ...in bytes */
int sysd_start_daemon(char *const argv[], const char *pidfile,
    const char *log, struct box_err *e);
/*
 * Split buf[0..n) (NUL-separated, the last one terminated) into
 * argv[0..max-1), argv[argc] NULL; buf is changed in place and must hold
 * n + 1 bytes.  The count, or -EINVAL (empty, unterminated, an empty
 * argument, more than max - 1, argv[0] not absolute).  Pure and bounded
 * (fuzz_guard drives it).
 */
int sysd_argv_parse(char *buf, size_t n, char **argv, size_t max);
/*
 * Start again, detached, the daemon whose pidfile (and argv file) a
 * sysd_start_daemon left: 0 and its new pid in *pid, -ENOENT when its
 * argv file is absent (teardown removed it: not wanted), or -errno.  The
 * argv file must be root's and written by root alone.
 */
int sysd_restart_daemon(const char *pidfile, const char *log, int *pid,
    struct box_err *e);
/*
 * The pid in pidfile when that process runs argv[0] bin (NULL: any) with
 * argv[1..] starting with words[0..wn) (NUL-separated, e.g.
 * "resolver\0run" and its sizeof), else 0.
 */
int sysd_daemon_pid(const char *pidfile, const char *bin, const char *words,
    size_t wn);
/* SIGTERM it (waiting up to 2 s) and remove pidfile and its argv. */
void sysd_stop_daemon(const char *pidfile, const char *bin,
    const char *words, size_t wn);

#endif
