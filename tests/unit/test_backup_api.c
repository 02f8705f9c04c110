/*
 * Unit tests for incus/backup through the dialer seam: a dialer that hands
 * out in-memory transports with a canned daemon reply, so the request box
 * writes and the reply it decodes are both checked without a daemon.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "incus/backup.h"
#include "incus/backup_test.h"
#include "incus/transport_test.h"
#include "t.h"

struct canned {
	struct dialer base;
	struct mem_transport m;
	char in[2048];
	unsigned char out[4096];
	int dials;
};

static int
canned_dial(const struct dialer *d, const char *addr, int timeout_ms,
    struct transport **out, struct box_err *e)
{
	struct canned *c = (struct canned *)d;

	c->dials++;
	mem_transport_init(&c->m, c->in, strlen(c->in), c->out,
	    sizeof(c->out) - 1);
	*out = &c->m.base;
	return 0;
}

static void
canned_reply(struct canned *c, const char *envelope)
{
	snprintf(c->in, sizeof(c->in), "HTTP/1.1 200 OK\r\nContent-Type: "
	    "application/json\r\nContent-Length: %zu\r\n\r\n%s",
	    strlen(envelope), envelope);
	c->m.out_len = 0;
}

static void
client(struct incus *ic, struct canned *cd)
{
	struct incus_settings s;
	struct box_err e;

	cd->base.dial = canned_dial;
	memset(&s, 0, sizeof(s));
	snprintf(s.socket_path, sizeof(s.socket_path), "canned");
	s.dialer = &cd->base;
	err_clear(&e);
	CHECK_INT(incus_open(ic, &s, &e), 0);
}

TEST(backup_list_through_a_canned_dialer)
{
	static struct canned cd;
	struct incus_backup_list l;
	struct incus ic;
	struct box_err e;

	client(&ic, &cd);
	canned_reply(&cd, "{\"type\":\"sync\",\"status_code\":200,"
	    "\"metadata\":[{\"name\":\"b1\",\"created_at\":\"2026-01-01T00:00:"
	    "00Z\",\"instance_only\":true},{\"name\":\"b2\"}]}");
	err_clear(&e);
	CHECK_INT(incus_backup_list(&ic, "my box", &l, &e), 0);
	CHECK_INT(cd.dials, 1);
	cd.out[cd.m.out_len] = '\0';
	/* the path is built (and escaped) inside incus/ */
	CHECK(strncmp((char *)cd.out, "GET /1.0/instances/my%20box/backups?"
	    "recursion=1 HTTP/1.1\r\n", 54) == 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.b[0].name, "b1");
	CHECK_INT(l.b[0].instance_only, 1);
	CHECK_STR(l.b[1].name, "b2");
	CHECK_INT(l.b[1].instance_only, 0);
	incus_backup_list_free(&l);
	incus_close(&ic);
}

TEST(backup_create_writes_the_body_and_hands_back_the_operation)
{
	static struct canned cd;
	struct incus_backup_spec spec = { "box-export-1", 86400, 1, 0,
	    "gzip" };
	struct incus ic;
	struct box_err e;
	char op[INCUS_OP_LEN], *body;

	client(&ic, &cd);
	canned_reply(&cd, "{\"type\":\"async\",\"status_code\":100,"
	    "\"operation\":\"/1.0/operations/abc\",\"metadata\":{}}");
	err_clear(&e);
	CHECK_INT(incus_backup_create(&ic, "b", &spec, op, sizeof(op), &e), 0);
	CHECK_STR(op, "/1.0/operations/abc");
	cd.out[cd.m.out_len] = '\0';
	body = strstr((char *)cd.out, "\r\n\r\n");
	CHECK(body != NULL);
	if (body != NULL)
		CHECK_STR(body + 4, "{\"name\":\"box-export-1\",\"expires_at\":"
		    "\"1970-01-02T00:00:00Z\",\"instance_only\":true,"
		    "\"optimized_storage\":false,\"compression_algorithm\":"
		    "\"gzip\"}");
	incus_close(&ic);
	/* a sync answer is no backup being made */
	client(&ic, &cd);
	canned_reply(&cd, "{\"type\":\"sync\",\"status_code\":200,"
	    "\"metadata\":{}}");
	err_clear(&e);
	CHECK_INT(incus_backup_create(&ic, "b", &spec, op, sizeof(op), &e),
	    -EBOX_PROTO);
	CHECK_STR(e.msg, "no backup operation");
	incus_close(&ic);
}
