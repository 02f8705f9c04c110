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

#endif
