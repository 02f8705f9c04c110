/*
 * refusals.c - a box's refusal log, named where the name holds (see
 * refusals.h).
 */
#include "box/egress/refusals.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "box/bridge.h"

int
refusals_read(struct incus *c, const char *box, size_t max,
    struct refusals *out, struct box_err *e)
{
	struct egfw_refused *raw;
	struct box_err ignore;
	uint32_t net = 0, gw;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	raw = calloc(max > 0 ? max : 1, sizeof(*raw));
	out->v = calloc(max > 0 ? max : 1, sizeof(*out->v));
	if (raw == NULL || out->v == NULL) {
		free(raw);
		return err_set(e, -ENOMEM, "out of memory");
	}
	rc = egfw_log(box, raw, max, &out->n, &out->total, &out->refused,
	    &out->since, e);
	if (rc == -ENOENT) {
		err_clear(e);
		rc = 0;		/* open: nothing is refused by policy */
	}
	if (rc < 0) {
		free(raw);
		return rc;
	}
	for (i = 0; i < out->n; i++)
		out->v[i].r = raw[i];
	free(raw);
	err_clear(&ignore);
	bridge_net(c, &net, &ignore);
	gw = bridge_name_server(c, net);	/* box's resolver answers the host
					   no names: its upstream, then */
	for (i = 0; i < out->n && i < REFUSALS_NAMED && gw != 0; i++)
		out->v[i].confirmed = ptr_confirmed(gw, out->v[i].r.addr, 300,
		    out->v[i].ptr, sizeof(out->v[i].ptr));
	return 0;
}

long
refusals_count(const char *box)
{
	struct box_err quiet;
	uint64_t refused;
	long long since;
	size_t n, total;
	int rc;

	err_clear(&quiet);
	rc = egfw_log(box, NULL, 0, &n, &total, &refused, &since, &quiet);
	if (rc == -ENOENT)
		return 0;
	return rc < 0 ? rc : (long)total;
}

void
refusals_free(struct refusals *out)
{
	free(out->v);
	memset(out, 0, sizeof(*out));
}
