/*
 * The typed resource layer's parsers (src/incus/network.c, acl.c, profile.c,
 * storage.c, server.c) on replies recorded from a real daemon (the files in
 * tests/fuzz/corpus/fuzz_resource/, the fuzzer's seeds) and on hostile ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/network.h"
#include "incus/profile.h"
#include "t.h"

static char *
slurp(const char *name, size_t *n)
{
	char path[512], *buf;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_resource/%s",
	    t_datadir(), name);
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	buf = malloc(1 << 16);
	*n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	fclose(f);
	return buf;
}

/*
 * Parse a recorded file (or a literal when file is NULL) into d.  The doc
 * points into its source, so the file's bytes live until the next load.
 */
static int
load(const char *file, const char *lit, struct json_doc *d)
{
	static char *s;
	struct box_err e;
	size_t n;

	err_clear(&e);
	free(s);
	s = NULL;
	if (file != NULL && (s = slurp(file, &n)) == NULL)
		return -ENOENT;
	return file ? json_parse(d, s, n, &e) : json_parse(d, lit,
	    strlen(lit), &e);
}

TEST(resource_network_recorded)
{
	struct incus_network n;
	struct json_doc d;

	CHECK(load("network_boxnet.json", NULL, &d) == 0);
	CHECK(incus_network_from_json(&n, &d, 0) == 0);
	CHECK_STR(n.name, "boxnet");
	CHECK_STR(n.type, "bridge");
	CHECK_STR(n.status, "Created");
	CHECK(n.managed == 1);
	CHECK_STR(n.description, "");
	CHECK_STR(incus_kv_get(&n.config, "ipv4.address"), "10.88.0.1/24");
	CHECK_STR(incus_kv_get(&n.config, "security.acls"), "box-isolate");
	CHECK(strstr(incus_kv_get(&n.config, "raw.dnsmasq"),
	    "\nserver=127.0.0.1") != NULL);
	CHECK(incus_kv_get(&n.config, "bridge.mtu") == NULL);
	incus_network_free(&n);
	json_free(&d);
}

TEST(resource_network_refuses_foreign_shapes)
{
	static const char *bad[] = {
		"[]", "\"boxnet\"", "{\"name\":1}", "{\"managed\":\"yes\"}",
		"{\"config\":{\"a\":1}}", "{\"config\":[]}",
		"{\"name\":\"a\",\"name\":\"b\"}", "{\"type\":{}}",
	};
	struct incus_network n;
	struct json_doc d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(load(NULL, bad[i], &d) == 0);
		CHECK_INT(incus_network_from_json(&n, &d, 0), -EBADMSG);
		CHECK(n.name == NULL && n.config.n == 0);
		json_free(&d);
	}
	/* Absent members are absent, not empty; null counts as absent. */
	CHECK(load(NULL, "{\"name\":\"x\",\"description\":null}", &d) == 0);
	CHECK(incus_network_from_json(&n, &d, 0) == 0);
	CHECK(n.description == NULL && n.type == NULL && n.config.n == 0);
	incus_network_free(&n);
	json_free(&d);
}

TEST(resource_leases_recorded)
{
	struct incus_leases l;
	struct json_doc d;

	CHECK(load("leases_boxnet.json", NULL, &d) == 0);
	CHECK(incus_leases_from_json(&l, &d, 0) == 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.v[0].type, "gateway");
	CHECK_STR(l.v[1].hostname, "boxit-a");
	CHECK_STR(l.v[1].address, "10.88.0.17");
	CHECK_STR(l.v[1].hwaddr, "00:16:3e:aa:bb:cc");
	incus_leases_free(&l);
	json_free(&d);
	CHECK(load(NULL, "null", &d) == 0);
	CHECK(incus_leases_from_json(&l, &d, 0) == 0 && l.n == 0);
	json_free(&d);
	CHECK(load(NULL, "[{\"address\":\"a\"},7]", &d) == 0);
	CHECK_INT(incus_leases_from_json(&l, &d, 0), -EBADMSG);
	CHECK(l.n == 0 && l.v == NULL);
	json_free(&d);
	CHECK(load(NULL, "{}", &d) == 0);
	CHECK_INT(incus_leases_from_json(&l, &d, 0), -EBADMSG);
	json_free(&d);
}

TEST(resource_profile_recorded)
{
	struct incus_profile p;
	struct json_doc d;

	CHECK(load("profile_boxnet.json", NULL, &d) == 0);
	CHECK(incus_profile_from_json(&p, &d, 0) == 0);
	CHECK_STR(p.name, "box-net");
	CHECK(p.config.n == 0);
	CHECK_INT(p.devices.n, 2);
	CHECK_STR(incus_dev_key(&p.devices, "eth0", "network"), "boxnet");
	CHECK_STR(incus_dev_key(&p.devices, "eth0",
	    "security.port_isolation"), "true");
	CHECK_STR(incus_dev_key(&p.devices, "root", "path"), "/");
	CHECK(incus_dev_get(&p.devices, "eth1") == NULL);
	incus_profile_free(&p);
	json_free(&d);
	CHECK(load(NULL, "{\"devices\":{\"eth0\":{\"mtu\":1500}}}", &d) == 0);
	CHECK_INT(incus_profile_from_json(&p, &d, 0), -EBADMSG);
	CHECK(p.devices.n == 0);
	json_free(&d);
	CHECK(load(NULL, "{\"devices\":[]}", &d) == 0);
	CHECK_INT(incus_profile_from_json(&p, &d, 0), -EBADMSG);
	json_free(&d);
}
