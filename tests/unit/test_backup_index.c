/*
 * Unit tests for incus/backup's typed index of an imported instance (what
 * the daemon holds after an import, as the import vet judges it): the
 * parser's strictness, the vet judging the struct, and the read through a
 * dialer that hands out the daemon's two replies.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/life/vet.h"
#include "incus/transport_test.h"
#include "box/import/vet_export.h"
#include "incus/backup.h"
#include "t.h"

static const char *
judged(const struct incus_backup_index *ix)
{
	static char buf[2048];
	struct vet v;

	vet_init(&v);
	CHECK_INT(vet_daemon_index(ix, &v), 0);
	vet_list(&v, buf, sizeof(buf));
	return buf;
}

static int
index_of(const char *inst, const char *snaps, struct incus_backup_index *ix)
{
	struct box_err e;

	err_clear(&e);
	return incus_backup_index_from_json(inst, strlen(inst), snaps,
	    strlen(snaps), ix, &e);
}

TEST(backup_index_typed_and_judged)
{
	static const char inst[] = "{\"name\":\"web\",\"config\":{\"user.box\":"
	    "\"1\",\"security.privileged\":\"true\"},\"devices\":{\"root\":"
	    "{\"type\":\"disk\",\"path\":\"/\",\"pool\":\"default\"},"
	    "\"x\":{\"type\":\"unix-block\",\"source\":\"/dev/sda\"}},"
	    "\"profiles\":[\"box-net\"],\"stateful\":false}";
	static const char snaps[] = "[{\"name\":\"s0\",\"config\":"
	    "{\"raw.lxc\":\"x\"},\"devices\":{},\"profiles\":[\"box-net\"],"
	    "\"stateful\":false},{\"name\":\"s1\",\"config\":null,"
	    "\"profiles\":[],\"stateful\":true}]";
	struct incus_backup_index ix;

	CHECK_INT(index_of(inst, snaps, &ix), 0);
	CHECK(ix.inst.name == NULL);
	CHECK_STR(incus_kv_get(&ix.inst.config, "user.box"), "1");
	CHECK_STR(incus_dev_key(&ix.inst.devices, "x", "source"), "/dev/sda");
	CHECK_INT((int)ix.inst.nprofiles, 1);
	CHECK_STR(ix.inst.profiles[0], "box-net");
	CHECK_INT(ix.inst.stateful, 0);
	CHECK_INT((int)ix.nsnap, 2);
	CHECK_STR(ix.snap[0].name, "s0");
	CHECK_STR(ix.snap[1].name, "s1");
	CHECK_INT((int)ix.snap[1].config.n, 0);	/* null: empty */
	CHECK_INT(ix.snap[1].stateful, 1);
	CHECK_STR(judged(&ix), "security.privileged (instance), device \"x\" "
	    "(unix-block), raw.lxc (snapshot s0), stateful (snapshot s1)");
	incus_backup_index_free(&ix);
	/* no stateful flag at all is not "not stateful" */
	CHECK_INT(index_of("{\"profiles\":[\"box-net\"]}", "[]", &ix), 0);
	CHECK_INT(ix.inst.stateful, -1);
	CHECK(strstr(judged(&ix), "unreadable stateful flag") != NULL);
	incus_backup_index_free(&ix);
	CHECK_INT(index_of("{\"config\":{\"user.box\":\"1\"},\"devices\":{},"
	    "\"profiles\":[\"box-net\"],\"stateful\":false}", "[]", &ix), 0);
	CHECK_STR(judged(&ix), "");
	incus_backup_index_free(&ix);
}

/* What the vet must never judge a cleaner copy of: refused whole. */
TEST(backup_index_refuses_what_it_cannot_read_whole)
{
	static const char *const bad_inst[] = {
		"[]",
		"{\"devices\":{},\"devices\":{\"x\":{\"type\":\"gpu\"}}}",
		"{\"config\":{},\"config\":{\"raw.lxc\":\"x\"}}",
		"{\"stateful\":false,\"stateful\":true}",
		"{\"config\":{\"user.a\":\"1\",\"user.a\":\"2\"}}",
		"{\"config\":{\"raw.lxc\\u0000\":\"x\"}}",
		"{\"config\":{\"user.a\":\"x\\u0000y\"}}",
		"{\"config\":{\"user.a\":1}}",
		"{\"config\":[]}",
		"{\"devices\":null}",
		"{\"devices\":[]}",
		"{\"devices\":{\"x\":[]}}",
		"{\"devices\":{\"x\":{\"type\":\"nic\"},\"x\":{\"type\":\"gpu\"}}}",
		"{\"devices\":{\"x\":{\"type\":true}}}",
		"{\"profiles\":\"box-net\"}",
		"{\"profiles\":[\"box-net\",7]}",
		"{\"profiles\":null}",
	};
	static const char *const bad_snaps[] = {
		"{}",
		"[{\"config\":{}}]",			/* no name */
		"[{\"name\":7}]",
		"[{\"name\":\"s0\",\"name\":\"s1\"}]",
		"[{\"name\":\"s0\",\"config\":{\"a\":{}}}]",
		"[7]",
	};
	struct incus_backup_index ix;
	size_t i;

	for (i = 0; i < sizeof(bad_inst) / sizeof(bad_inst[0]); i++) {
		CHECK_INT(index_of(bad_inst[i], "[]", &ix), -EBOX_PROTO);
		CHECK(ix.snap == NULL && ix.inst.profiles == NULL &&
		    ix.inst.config.n == 0);	/* nothing half kept */
	}
	for (i = 0; i < sizeof(bad_snaps) / sizeof(bad_snaps[0]); i++)
		CHECK_INT(index_of("{}", bad_snaps[i], &ix), -EBOX_PROTO);
	CHECK(index_of("{", "[]", &ix) < 0);
	CHECK(index_of("{}", "[", &ix) < 0);
}

/* --- the read, through a dialer with the daemon's replies ------------- */

struct replies {
	struct dialer base;
	struct mem_transport m;
	char in[2][2048];
	unsigned char out[8192];
	int dials;
};

/* Each dial answers the next request (a kept-alive one finds the end,
 * and the client dials again). */
static int
replies_dial(const struct dialer *d, const char *addr, int timeout_ms,
    struct transport **out, struct box_err *e)
{
	struct replies *r = (struct replies *)d;
	const char *in = r->in[r->dials < 2 ? r->dials : 1];

	(void)addr;
	(void)timeout_ms;
	(void)e;
	r->dials++;
	mem_transport_init(&r->m, in, strlen(in), r->out + strlen(
	    (char *)r->out), sizeof(r->out) - strlen((char *)r->out) - 1);
	*out = &r->m.base;
	return 0;
}

static void
reply(char *buf, size_t cap, const char *metadata)
{
	char env[1800];

	snprintf(env, sizeof(env), "{\"type\":\"sync\",\"status_code\":200,"
	    "\"metadata\":%s}", metadata);
	snprintf(buf, cap, "HTTP/1.1 200 OK\r\nContent-Type: application/"
	    "json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
	    strlen(env), env);
}

TEST(backup_index_get_reads_the_instance_and_its_snapshots)
{
	static struct replies rp;
	struct incus_backup_index ix;
	struct incus_settings s;
	struct incus ic;
	struct box_err e;

	memset(&rp, 0, sizeof(rp));
	rp.base.dial = replies_dial;
	reply(rp.in[0], sizeof(rp.in[0]), "{\"name\":\"web\",\"type\":"
	    "\"container\",\"status\":\"Stopped\",\"config\":{\"user.box\":"
	    "\"1\"},\"devices\":{},\"profiles\":[\"box-net\"],\"stateful\":"
	    "false}");
	reply(rp.in[1], sizeof(rp.in[1]), "[{\"name\":\"s0\",\"config\":"
	    "{\"raw.idmap\":\"both 0 0\"},\"devices\":{},\"profiles\":"
	    "[\"box-net\"],\"stateful\":false}]");
	memset(&s, 0, sizeof(s));
	snprintf(s.socket_path, sizeof(s.socket_path), "canned");
	s.dialer = &rp.base;
	err_clear(&e);
	CHECK_INT(incus_open(&ic, &s, &e), 0);
	CHECK_INT(incus_backup_index_get(&ic, "web", &ix, &e), 0);
	CHECK(strstr((char *)rp.out, "GET /1.0/instances/web") != NULL);
	CHECK(strstr((char *)rp.out, "GET /1.0/instances/web/snapshots?"
	    "recursion=1") != NULL);
	CHECK_STR(incus_kv_get(&ix.inst.config, "user.box"), "1");
	CHECK_INT((int)ix.nsnap, 1);
	CHECK_STR(ix.snap[0].name, "s0");
	CHECK(strstr(judged(&ix), "raw.idmap (snapshot s0)") != NULL);
	incus_backup_index_free(&ix);
	incus_close(&ic);
}
