/* guard_int.h - the guard's parts, shared between its files only. */
#ifndef BOX_GUARD_INT_H
#define BOX_GUARD_INT_H

/* The log's rate cap: GUARD_LOGCAP lines a minute. */
struct guard_logcap {
	long long minute_ms;
	int n;
	unsigned suppressed;
};

/* One record (see log.c); fields may be "" (by, back). */
void guard_log(struct guard_logcap *cap, long long now_ms, const char *kind,
    long window_ms, const char *by, const char *what, const char *back);

/* A daemon of box's the guard keeps running (daemons.c). */
#define GUARD_NDAEMON	4
struct guard_daemon {
	const char *name;	/* "the resolver" */
	const char *pidfile;	/* its sysd_start_daemon pid file */
	const char *log;	/* its output */
	const char *words;	/* argv[1..] it runs with, NUL-separated */
	size_t wn;
	int backoff_ms;
	long long next_at;	/* its next look */
	long long up_since;	/* seen running since; 0 not */
	unsigned revived;
};

/* Fill d[0..max) with the daemons to keep: how many. */
size_t guard_daemons_init(struct guard_daemon *d, size_t max);

/*
 * Start again each wanted daemon that is not running (not where systemd
 * runs them); returns when to look next (ms, clock_ms's scale).
 */
long long guard_daemons_tick(struct guard_daemon *d, size_t n,
    struct guard_logcap *cap, long long now);

#endif
