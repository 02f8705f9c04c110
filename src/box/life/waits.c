/*
 * waits.c - the waits that tell a box is up: operations, the guest agent,
 * an address of its own (see waits.h).
 */
#include "box/life/waits.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "box/box.h"
#include "box/lease.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "incus/exec.h"
#include "incus/instance.h"
#include "incus/operation.h"
#include "model/ip4text.h"
#include "util/clock.h"

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int
life_wait_op(struct incus *c, const char *op, long long deadline,
    struct progress *p, struct incus_reply *r, struct box_err *e)
{
	struct box_err le;
	long long left;
	int rc, slice;
	char text[160];

	for (;;) {
		left = deadline - clock_ms();
		if (left <= 0)
			return err_set(e, -ETIMEDOUT, "still running when the "
			    "time ran out");
		if (life_interrupted())
			return err_set(e, -EINTR, "interrupted");
		slice = p != NULL ? 1 : (int)((left + 999) / 1000);
		if (slice > (left + 999) / 1000)
			slice = (int)((left + 999) / 1000);
		err_clear(&le);
		rc = incus_wait(c, op, slice, r, &le);
		if (rc == 0)
			return 0;
		incus_reply_free(r);
		if (rc != -ETIMEDOUT) {
			*e = le;
			return rc;
		}
		if (p != NULL) {
			incus_op_progress(c, op, text, sizeof(text));
			progress_note(p, text);
		}
	}
}

int
life_sh(struct incus *c, const char *name, const char *script, char *out,
    size_t cap, int timeout_ms, int *code, struct box_err *e)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct exec_req req;
	struct exec_buf ob, *obp = NULL;
	struct exec_status st;
	int rc;

	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.uid = req.gid = -1;
	if (out != NULL && cap > 0) {
		ob.p = out;
		ob.cap = cap;
		ob.len = 0;
		ob.truncated = 0;
		out[0] = '\0';
		obp = &ob;
	}
	memset(&st, 0, sizeof(st));
	rc = exec_capture(c, name, &req, NULL, 0, obp, NULL, timeout_ms, &st,
	    e);
	if (rc < 0)
		return rc;
	if (st.err[0] != '\0')
		return err_set(e, -EBOX_API, "Incus says: %s", st.err);
	*code = st.code;
	return 0;
}

int
life_wait_agent(struct incus *c, const char *name, long long deadline,
    struct progress *p, struct box_err *e)
{
	struct box_err le;
	long long left;
	int code = -1, rc;

	err_clear(&le);
	for (;;) {
		left = deadline - clock_ms();
		if (life_interrupted())
			return err_set(e, -EINTR, "interrupted");
		if (left <= 0)
			break;
		err_clear(&le);
		rc = life_sh(c, name, "true", NULL, 0, left < 10000 ?
		    (int)left : 10000, &code, &le);
		if (rc == 0 && code == 0)
			return 0;
		if (p != NULL)
			progress_note(p, le.msg[0] ? le.msg : "");
		sleep_ms(500);
	}
	err_set(e, -ETIMEDOUT, "no command ran in %s before the time ran "
	    "out%s%s", name, le.msg[0] ? " (last answer: " : "",
	    le.msg[0] ? le.msg : "");
	if (le.msg[0])
		strncat(e->msg, ")", sizeof(e->msg) - strlen(e->msg) - 1);
	return -ETIMEDOUT;
}

int
life_wait_address(struct incus *c, const char *name, long long deadline,
    struct progress *p, char *addr, size_t cap, struct box_err *e)
{
	struct box_subnets sn;
	int rc;

	box_subnets_read(&sn);
	for (;;) {
		struct incus_instance in;

		if (life_interrupted())
			return err_set(e, -EINTR, "interrupted");
		rc = incus_instance_get(c, name, INCUS_INST_STATE, &in, e);
		if (rc < 0)
			return rc;
		box_address_of(&in, &sn, addr, cap);
		incus_instance_free(&in);
		if (strcmp(addr, "-") != 0)
			return 0;
		if (clock_ms() >= deadline)
			return err_set(e, -ETIMEDOUT, "%s got no IPv4 address "
			    "on its bridge before the time ran out", name);
		if (p != NULL)
			progress_note(p, "waiting for a DHCP lease");
		/* a lease lands ~0.3 s after start; one GET costs the
		 * daemon ~10 ms, so asking often is cheap and saves the
		 * user most of a poll interval */
		sleep_ms(100);
	}
}

int
life_address_holder(struct incus *c, const char *self, const char *addr,
    char *who, size_t cap, struct box_err *e)
{
	struct incus_instance_list l;
	size_t i, k, a;
	int rc;

	who[0] = '\0';
	rc = incus_instance_list(c, NULL, INCUS_INST_STATE, &l, e);
	for (i = 0; rc == 0 && i < l.n; i++) {
		const struct incus_inst_state *st = &l.v[i].state;

		if (strcmp(l.v[i].name, self) == 0)
			continue;
		for (k = 0; k < st->nnic; k++)
			for (a = 0; a < st->nic[k].naddr; a++)
				if (strcmp(st->nic[k].addr[a].address,
				    addr) == 0) {
					snprintf(who, cap, "%s", l.v[i].name);
					goto out;
				}
	}
out:
	incus_instance_list_free(&l);
	return rc;
}
