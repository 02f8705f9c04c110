/*
 * idle.c - the idle check (idle.h): marks, the judgement, the sweep.
 */
#include "box/life/idle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box/box.h"
#include "box/lease.h"
#include "box/narrate.h"
#include "incus/instance.h"
#include "incus/operation.h"

#define IDLE_SESSIONS_MAX 256

int
idle_duration(const char *s, long *secs, char *why, size_t cap)
{
	char *end;
	long n, mul = 1;

	errno = 0;
	n = strtol(s, &end, 10);
	if (end == s || errno != 0 || n < 1 || s[0] == '+' || s[0] == '-')
		goto bad;
	if (*end != '\0') {
		switch (*end) {
		case 's': mul = 1; break;
		case 'm': mul = 60; break;
		case 'h': mul = 3600; break;
		case 'd': mul = 86400; break;
		default: goto bad;
		}
		if (end[1] != '\0')
			goto bad;
	}
	if (n > IDLE_MAX_S / mul) {
		snprintf(why, cap, "'%.40s' is over a year", s);
		return -1;
	}
	*secs = n * mul;
	return 0;
bad:
	snprintf(why, cap, "'%.40s' is not a duration (90s, 30m, 2h, 1d)", s);
	return -1;
}

int
idle_mark_parse(const char *s, struct idle_mark *m)
{
	char *end;

	errno = 0;
	m->last = strtoll(s, &end, 10);
	if (end == s || *end != ':' || errno)
		return -1;
	s = end + 1;
	m->cpu_ns = strtoll(s, &end, 10);
	if (end == s || *end != ':' || errno)
		return -1;
	s = end + 1;
	m->at = strtoll(s, &end, 10);
	if (end == s || errno || m->last < 0 || m->cpu_ns < 0 ||
	    m->at < m->last)
		return -1;
	m->session = 0;
	if (*end == '\0')
		return 0;
	if ((end[0] != ':' || (end[1] != '0' && end[1] != '1') ||
	    end[2] != '\0'))
		return -1;
	m->session = end[1] == '1';
	return 0;
}

int
idle_judge(struct idle_mark *m, int have, long long now, long long cpu_ns,
    int session, long long started, long idle_s)
{
	long long window, used;
	int active;

	/*
	 * A session seen at the last check may have lasted until a moment
	 * ago: it counts as activity now, so the box stops no sooner than
	 * idle_s after the first check that finds it gone.
	 */
	if (!have || session || m->session || started > m->at ||
	    cpu_ns < m->cpu_ns || now < m->at)
		active = 1;
	else {
		window = now - m->at < idle_s ? now - m->at : idle_s;
		if (window < 1)
			window = 1;
		used = cpu_ns - m->cpu_ns;
		active = used / 1000 > window * (1000000LL *
		    IDLE_CPU_PERMILLE / 1000);
	}
	if (active)
		m->last = now;
	m->cpu_ns = cpu_ns;
	m->at = now;
	m->session = session != 0;
	return now - m->last >= idle_s;
}

static int
has_session(char (*v)[64], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return 1;
	return 0;
}

static void
check_one(struct incus *c, const struct incus_instance *in, long idle_s,
    char (*ses)[64], int nses)
{
	struct incus_inst_state st;
	struct incus_kvs kv = { 0 };
	struct idle_mark m = { 0, 0, 0, 0 };
	struct box_err e;
	struct incus_op op;
	const char *mk = incus_kv_get(&in->config, IDLE_MARK_KEY);
	long long now = (long long)time(NULL), started = 0;
	char val[80];
	int have, stop, vm;

	err_clear(&e);
	if (incus_instance_state(c, in->name, &st, &e) < 0)
		return;
	if (!st.has_cpu) {
		incus_state_free(&st);
		return;		/* no counter: no judgement */
	}
	have = mk != NULL && idle_mark_parse(mk, &m) == 0;
	if (lease_iso_time(in->last_used_at, &started) < 0)
		started = 0;
	stop = idle_judge(&m, have, now, st.cpu_ns,
	    has_session(ses, nses, in->name), started, idle_s);
	incus_state_free(&st);
	snprintf(val, sizeof(val), "%lld:%lld:%lld:%d", m.last, m.cpu_ns,
	    m.at, m.session);
	if (incus_kv_set(&kv, IDLE_MARK_KEY, val) == 0)
		incus_instance_patch(c, in->name, &kv, NULL, in->description,
		    0, &e);
	incus_kv_free(&kv);
	if (!stop)
		return;
	/*
	 * A container is stopped at once: its writes are already the host
	 * kernel's, and an idle one has nothing in flight.  A VM keeps a page
	 * cache of its own, so it is asked to shut down (30 s); one that
	 * ignores the request stays up, and the next check asks again.
	 */
	vm = strcmp(in->type, "virtual-machine") == 0;
	err_clear(&e);
	if (incus_instance_state_begin(c, in->name, "stop", !vm, vm ? 30 : 0,
	    &op, &e) == 0)
		life_say("stopping %s: idle for %llds (its idle-stop is %lds; "
		    "box start %s brings it back)", in->name,
		    (long long)(now - m.last), idle_s, in->name);
}

void
box_idle_sweep(struct incus *c)
{
	struct incus_instance_list l;
	char (*ses)[64];
	struct box_err e;
	const char *v;
	char why[80];
	long idle_s;
	size_t i;
	int nses = -1;

	err_clear(&e);
	if ((ses = calloc(IDLE_SESSIONS_MAX, sizeof(*ses))) == NULL)
		return;	/* sessions unknown: judge nothing */
	if (incus_instance_list(c, BOX_FILTER, 0, &l, &e) < 0) {
		free(ses);
		return;
	}
	for (i = 0; i < l.n; i++) {
		v = incus_kv_get(&l.v[i].config, IDLE_KEY);
		if (v == NULL || idle_duration(v, &idle_s, why,
		    sizeof(why)) < 0 || !box_runs(&l.v[i]))
			continue;
		if (nses < 0 && incus_sessions_open(c, ses, IDLE_SESSIONS_MAX,
		    &nses, &e) < 0)
			break;	/* sessions unknown: judge nothing */
		check_one(c, &l.v[i], idle_s, ses, nses);
	}
	incus_instance_list_free(&l);
	free(ses);
}

void
box_idle_sweep_once(void)
{
	struct box_err e;
	struct incus c;

	err_clear(&e);
	if (incus_init(&c, &e) < 0)
		return;
	box_idle_sweep(&c);
	incus_close(&c);
}

void
box_idle_touch(struct incus *c, const struct incus_instance *in)
{
	const char *mk = incus_kv_get(&in->config, IDLE_MARK_KEY);
	struct incus_kvs kv = { 0 };
	struct idle_mark m = { 0, 0, 0, 0 };
	struct box_err e;
	char val[80];

	if (incus_kv_get(&in->config, IDLE_KEY) == NULL)
		return;
	if (mk == NULL || idle_mark_parse(mk, &m) < 0)
		m.cpu_ns = 0;	/* the next check finds CPU used: active */
	m.last = m.at = (long long)time(NULL);
	m.session = 0;		/* ended: idle from this moment on */
	snprintf(val, sizeof(val), "%lld:%lld:%lld:%d", m.last, m.cpu_ns,
	    m.at, m.session);
	err_clear(&e);
	if (incus_kv_set(&kv, IDLE_MARK_KEY, val) == 0)
		incus_instance_patch(c, in->name, &kv, NULL, in->description,
		    0, &e);
	incus_kv_free(&kv);
}
