/*
 * The typed resource layer's parsers (src/incus/network.c, acl.c, profile.c,
 * storage.c, server.c) on replies recorded from a real daemon (the files in
 * tests/fuzz/corpus/fuzz_resource/, the fuzzer's seeds) and on hostile ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/acl.h"
#include "incus/cluster.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "incus/server.h"
#include "incus/server_test.h"
#include "incus/storage.h"
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

TEST(resource_acl_recorded)
{
	struct incus_acl a;
	struct json_doc d;

	CHECK(load("acl_isolate.json", NULL, &d) == 0);
	CHECK(incus_acl_from_json(&a, &d, 0) == 0);
	CHECK_STR(a.name, "box-isolate");
	CHECK_INT(a.egress.n, 6);
	CHECK_INT(a.ingress.n, 0);
	CHECK_STR(a.egress.v[0].action, "allow");
	CHECK_STR(a.egress.v[0].destination, "10.88.0.1/32");
	CHECK_STR(a.egress.v[0].description, "the gateway: DNS and DHCP");
	CHECK_STR(a.egress.v[5].destination, "100.64.0.0/10");
	/* Left out by the daemon: absent, not "". */
	CHECK(a.egress.v[1].protocol == NULL && a.egress.v[1].source == NULL);
	incus_acl_free(&a);
	json_free(&d);
}

TEST(resource_acl_rules_edit_and_refusals)
{
	struct incus_acl_rule r = { .action = "allow", .destination =
	    "10.88.0.5/32", .destination_port = "8080", .protocol = "tcp" };
	struct incus_acl_rules l = { 0 };
	struct incus_acl a;
	struct json_doc d;

	CHECK(incus_acl_rule_add(&l, &r) == 0);
	r.destination_port = "9090";
	CHECK(incus_acl_rule_add(&l, &r) == 0);
	CHECK_INT(l.n, 2);
	CHECK(l.v[0].destination_port != r.destination_port);
	CHECK(l.v[0].state == NULL);
	incus_acl_rule_del(&l, 0);
	CHECK_INT(l.n, 1);
	CHECK_STR(l.v[0].destination_port, "9090");
	incus_acl_rule_del(&l, 7);	/* out of range: nothing */
	CHECK_INT(l.n, 1);
	incus_acl_rules_free(&l);

	CHECK(load(NULL, "{\"ingress\":[{\"protocol\":6}]}", &d) == 0);
	CHECK_INT(incus_acl_from_json(&a, &d, 0), -EBADMSG);
	CHECK(a.ingress.n == 0 && a.ingress.v == NULL);
	json_free(&d);
	CHECK(load(NULL, "{\"egress\":[\"drop\"]}", &d) == 0);
	CHECK_INT(incus_acl_from_json(&a, &d, 0), -EBADMSG);
	json_free(&d);
	CHECK(load(NULL, "{\"egress\":{}}", &d) == 0);
	CHECK_INT(incus_acl_from_json(&a, &d, 0), -EBADMSG);
	json_free(&d);
	CHECK(load(NULL, "{\"egress\":null,\"ingress\":[{}]}", &d) == 0);
	CHECK(incus_acl_from_json(&a, &d, 0) == 0);
	CHECK(a.egress.n == 0 && a.ingress.n == 1 &&
	    a.ingress.v[0].action == NULL);
	incus_acl_free(&a);
	json_free(&d);
}

TEST(resource_pool_and_volumes)
{
	struct incus_volume_refs v;
	struct incus_pool p;
	struct json_doc d;
	char **names;
	size_t n;

	CHECK(load("pool_default.json", NULL, &d) == 0);
	CHECK(incus_pool_from_json(&p, &d, 0) == 0);
	CHECK_STR(p.name, "default");
	CHECK_STR(p.driver, "dir");
	CHECK_STR(incus_kv_get(&p.config, "source"),
	    "/var/lib/incus/storage-pools/default");
	incus_pool_free(&p);
	json_free(&d);

	CHECK(load(NULL, "[\"/1.0/storage-pools/p/volumes/container/a\","
	    "\"/1.0/storage-pools/p/volumes/custom/d%20x?project=q\","
	    "\"/1.0/storage-pools/p/volumes/container/a/snapshots/s1\"]",
	    &d) == 0);
	CHECK(incus_volume_refs_from_json(&v, &d, 0,
	    "/1.0/storage-pools/p/volumes/") == 0);
	CHECK_INT(v.n, 3);
	CHECK_STR(v.v[0].type, "container");
	CHECK_STR(v.v[1].name, "d x");
	CHECK(v.v[1].snapshot == NULL);
	CHECK_STR(v.v[2].name, "a");
	CHECK_STR(v.v[2].snapshot, "s1");
	incus_volume_refs_free(&v);
	/* Another pool's URL, a bad escape, a missing name: refused. */
	CHECK_INT(incus_volume_refs_from_json(&v, &d, 0,
	    "/1.0/storage-pools/q/volumes/"), -EBADMSG);
	CHECK(v.n == 0 && v.v == NULL);
	json_free(&d);
	CHECK(load(NULL, "[\"/1.0/storage-pools/p/volumes/custom/a%0\"]",
	    &d) == 0);
	CHECK_INT(incus_volume_refs_from_json(&v, &d, 0,
	    "/1.0/storage-pools/p/volumes/"), -EBADMSG);
	json_free(&d);
	CHECK(load(NULL, "[\"/1.0/storage-pools/p/volumes/custom/a%00\"]",
	    &d) == 0);
	CHECK_INT(incus_volume_refs_from_json(&v, &d, 0,
	    "/1.0/storage-pools/p/volumes/"), -EBADMSG);
	json_free(&d);
	CHECK(load(NULL, "[\"/1.0/storage-pools/p/volumes/custom\"]",
	    &d) == 0);
	CHECK_INT(incus_volume_refs_from_json(&v, &d, 0,
	    "/1.0/storage-pools/p/volumes/"), -EBADMSG);
	json_free(&d);
	/*
	 * A slash inside a segment, escaped or not, and a third segment that
	 * is not a snapshot's: each refused, so no name read here can alias
	 * another when it is written back into a path.
	 */
	{
		static const char *const odd[] = {
			"custom/a%2Fb", "custom/a%2fb", "custom/a/b",
			"custom/a/snapshots/", "custom/a/snapshots/s%2F1",
			"custom/a/snapshots/s/t", "custom//x", "%2F/a",
			"custom/a/snapshot/s",
		};
		char js[200];
		size_t k;

		for (k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
			snprintf(js, sizeof(js), "[\"/1.0/storage-pools/p/"
			    "volumes/%s\"]", odd[k]);
			CHECK(load(NULL, js, &d) == 0);
			CHECK_INT(incus_volume_refs_from_json(&v, &d, 0,
			    "/1.0/storage-pools/p/volumes/"), -EBADMSG);
			CHECK(v.n == 0 && v.v == NULL);
			json_free(&d);
		}
	}

	CHECK(load(NULL, "[\"/1.0/storage-pools/default\","
	    "\"/1.0/storage-pools/fast%2Dssd\"]", &d) == 0);
	CHECK(incus_names_from_json(&names, &n, &d, 0,
	    "/1.0/storage-pools/") == 0);
	CHECK_INT(n, 2);
	CHECK_STR(names[1], "fast-ssd");
	incus_names_free(names, n);
	json_free(&d);
	CHECK(load(NULL, "[\"/1.0/storage-pools/a/b\"]", &d) == 0);
	CHECK_INT(incus_names_from_json(&names, &n, &d, 0,
	    "/1.0/storage-pools/"), -EBADMSG);
	CHECK(names == NULL && n == 0);
	json_free(&d);
	/* The fuzzer's find: an escaped slash decoded into a pool's name. */
	CHECK(load(NULL, "[\"/1.0/storage-pools/ok\","
	    "\"/1.0/storage-pools/---%2fe%2devices01\"]", &d) == 0);
	CHECK_INT(incus_names_from_json(&names, &n, &d, 0,
	    "/1.0/storage-pools/"), -EBADMSG);
	CHECK(names == NULL && n == 0);
	json_free(&d);
}

TEST(resource_server_recorded)
{
	struct incus_server s;
	struct json_doc d;

	CHECK(load("server.json", NULL, &d) == 0);
	CHECK(incus_server_from_json(&s, &d, 0) == 0);
	CHECK_STR(s.auth, "trusted");
	CHECK_STR(s.api_version, "1.0");
	CHECK_STR(s.driver, "lxc");
	CHECK(incus_server_has_ext(&s, "network_acl"));
	CHECK(!incus_server_has_ext(&s, "no_such_extension"));
	CHECK(!s.has_instance_types && !incus_server_runs(&s,
	    "virtual-machine"));
	incus_server_free(&s);
	json_free(&d);
	CHECK(load(NULL, "{\"environment\":{\"driver\":\"lxc | qemu\","
	    "\"instance_types\":[\"container\",\"virtual-machine\"]}}",
	    &d) == 0);
	CHECK(incus_server_from_json(&s, &d, 0) == 0);
	CHECK(s.has_instance_types && incus_server_runs(&s,
	    "virtual-machine"));
	incus_server_free(&s);
	json_free(&d);
	CHECK(load(NULL, "{\"api_extensions\":[\"a\",1]}", &d) == 0);
	CHECK_INT(incus_server_from_json(&s, &d, 0), -EBADMSG);
	CHECK(s.extensions == NULL && s.nextensions == 0);
	json_free(&d);
	CHECK(load(NULL, "{\"environment\":[]}", &d) == 0);
	CHECK_INT(incus_server_from_json(&s, &d, 0), -EBADMSG);
	json_free(&d);
}

TEST(resource_cluster_members_recorded)
{
	static struct incus_cluster k;
	struct json_doc d;
	char op[128];

	/* recorded from ci/cluster.sh's cluster: m1..m3, all in group box */
	CHECK_INT(load("cluster_members.json", NULL, &d), 0);
	CHECK_INT(incus_members_from_json(&k, &d, 0, "box"), 0);
	CHECK_INT((int)k.n, 3);
	CHECK_STR(k.m[1].name, "m2");
	CHECK_STR(k.m[1].status, "Online");
	CHECK_INT(k.m[2].in_group, 1);
	CHECK(incus_cluster_member(&k, "m3") == &k.m[2]);
	CHECK(incus_cluster_member(&k, "m4") == NULL);
	json_free(&d);
	/* a member without a name, or a non-array, is refused */
	CHECK_INT(load(NULL, "[{\"status\":\"Online\"}]", &d), 0);
	CHECK_INT(incus_members_from_json(&k, &d, 0, "box"), -EBADMSG);
	json_free(&d);
	CHECK_INT(load(NULL, "{\"server_name\":\"m1\"}", &d), 0);
	CHECK_INT(incus_members_from_json(&k, &d, 0, "box"), -EBADMSG);
	json_free(&d);
	/* where an instance is */
	CHECK_INT(incus_cluster_local("", "m2"), 1);
	CHECK_INT(incus_cluster_local("m1", "m1"), 1);
	CHECK_INT(incus_cluster_local("m1", "m2"), 0);
	/* a forwarded operation's URL loses its project query only */
	snprintf(op, sizeof(op), "/1.0/operations/ab?project=default");
	incus_op_trim(op);
	CHECK_STR(op, "/1.0/operations/ab");
	snprintf(op, sizeof(op), "/1.0/operations/ab?project=x&target=y");
	incus_op_trim(op);
	CHECK_STR(op, "/1.0/operations/ab?project=x&target=y");
}
