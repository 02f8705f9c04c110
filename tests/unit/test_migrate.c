/* test_migrate.c - the pure parts of migrate-host (host/stack/migrate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/stack/migrate.h"
#include "incus/instance.h"
#include "incus/json.h"
#include "t.h"

static void
parse(struct json_doc *d, const char *s)
{
	struct box_err e;

	err_clear(&e);
	memset(d, 0, sizeof(*d));
	if (json_parse(d, s, strlen(s), &e) < 0)
		t_fail(__FILE__, __LINE__, "bad test JSON: %s", e.msg);
}

/* A typed instance from test JSON, as the daemon's reply would give it. */
static void
inst(struct incus_instance *in, const char *s)
{
	struct json_doc d;
	struct box_err e;

	parse(&d, s);
	err_clear(&e);
	if (incus_instance_from_json(&d, 0, 0, in, &e) < 0)
		t_fail(__FILE__, __LINE__, "test JSON is no instance: %s",
		    e.msg);
	json_free(&d);
}

static const char legacy_box[] = "{\"name\":\"old\",\"type\":\"container\","
    "\"status\":\"Running\",\"architecture\":\"x86_64\","
    "\"description\":\"d\",\"ephemeral\":false,\"stateful\":false,"
    "\"profiles\":[\"claude-dev\"],"
    "\"config\":{\"user.claudebox\":\"1\",\"volatile.eth0.hwaddr\":"
    "\"10:66:6a:00:00:01\",\"volatile.base_image\":\"abc123\","
    "\"volatile.idmap.next\":\"[]\"},"
    "\"expanded_config\":{\"user.claudebox\":\"1\",\"limits.cpu\":\"4\","
    "\"limits.memory\":\"8GiB\",\"security.nesting\":\"true\"},"
    "\"devices\":{\"eth0\":{\"type\":\"nic\",\"network\":\"claudenet\","
    "\"ipv4.address\":\"10.87.0.5\"},\"expose-80\":{\"type\":\"proxy\","
    "\"listen\":\"tcp:127.0.0.1:80\",\"connect\":\"tcp:0.0.0.0:80\"},"
    "\"root\":{\"type\":\"disk\",\"path\":\"/\",\"pool\":\"default\"}},"
    "\"expanded_devices\":{\"eth0\":{\"type\":\"nic\",\"network\":"
    "\"claudenet\"}}}";

TEST(migrate_kind_tags)
{
	static const struct { const char *cfg; int kind; } t[] = {
		{ "{}", MIG_NOT_BOX },
		{ "{\"user.claudebox\":\"1\"}", MIG_LEGACY },
		{ "{\"user.claudebox\":\"1\",\"user.box\":\"1\"}", MIG_HALFWAY },
		/* the re-homed box: the legacy tag dropped, not counted
		 * (seed 002: the original counted it forever) */
		{ "{\"user.box\":\"1\"}", MIG_DONE },
		{ "{\"user.claudebox\":\"0\"}", MIG_NOT_BOX },
		{ "{\"user.claudebox\":\"true\",\"user.box\":\"1\"}", MIG_DONE },
	};
	struct incus_instance in;
	char buf[200];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(buf, sizeof(buf), "{\"config\":%s}", t[i].cfg);
		inst(&in, buf);
		CHECK_INT(migrate_kind_of(&in), t[i].kind);
		incus_instance_free(&in);
	}
}

TEST(migrate_uses_legacy_stack)
{
	struct incus_instance in;

	inst(&in, legacy_box);
	CHECK_INT(migrate_uses_legacy_of(&in), 1);
	incus_instance_free(&in);
	inst(&in, "{\"profiles\":[\"box-net\"],\"expanded_devices\":{\"eth0\":"
	    "{\"type\":\"nic\",\"network\":\"boxnet\"}}}");
	CHECK_INT(migrate_uses_legacy_of(&in), 0);
	incus_instance_free(&in);
	/* no legacy profile, but a NIC of its own on claudenet */
	inst(&in, "{\"profiles\":[\"default\"],\"expanded_devices\":{\"x\":"
	    "{\"type\":\"nic\",\"nictype\":\"bridged\",\"parent\":"
	    "\"claudenet\"}}}");
	CHECK_INT(migrate_uses_legacy_of(&in), 1);
	incus_instance_free(&in);
}

TEST(migrate_devices)
{
	struct incus_instance in;
	char buf[128];

	inst(&in, legacy_box);
	/* its own NIC and door are dropped, the root disk stays: none foreign */
	CHECK_INT(migrate_foreign_devices_of(&in, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	CHECK_INT(migrate_drop_device("eth0", incus_dev_get(&in.devices,
	    "eth0")), 1);
	CHECK_INT(migrate_drop_device("root", incus_dev_get(&in.devices,
	    "root")), 0);
	incus_instance_free(&in);
	inst(&in, "{\"devices\":{\"data\":{\"type\":\"disk\",\"path\":"
	    "\"/data\",\"source\":\"/srv\"},\"gpu\":{\"type\":\"gpu\"},"
	    "\"root\":{\"type\":\"disk\",\"path\":\"/\"}}}");
	CHECK_INT(migrate_foreign_devices_of(&in, buf, sizeof(buf)), 2);
	CHECK_STR(buf, "data, gpu");
	incus_instance_free(&in);
}

static const char *
kv_get(const struct mint_kv *kv, const char *k)
{
	int i;

	for (i = 0; i < kv->n; i++)
		if (strcmp(kv->k[i], k) == 0)
			return kv->v[i];
	return NULL;
}

TEST(migrate_stamps_and_carry)
{
	struct mint_kv kv;
	struct incus_instance in;

	inst(&in, legacy_box);
	CHECK_INT(migrate_stamps_of(&in, "2026-12-01T10:00:00Z", &kv), 0);
	CHECK_STR(kv_get(&kv, "user.box"), "1");
	CHECK_STR(kv_get(&kv, "user.box.template"), "claude-box");
	CHECK_STR(kv_get(&kv, "user.box.user"), "claude");
	CHECK_STR(kv_get(&kv, "user.box.mode"), "container");
	CHECK_STR(kv_get(&kv, "user.box.origin"), "migrate");
	CHECK_STR(kv_get(&kv, "user.box.migrated"), "2026-12-01T10:00:00Z");
	CHECK_STR(kv_get(&kv, "user.box.image.fingerprint"), "abc123");
	/* box did not mint it: no mint time, no minting version */
	CHECK(kv_get(&kv, "user.box.created") == NULL);
	CHECK(kv_get(&kv, "user.box.version") == NULL);
	/* the legacy tag is not touched by the stamp */
	CHECK(kv_get(&kv, "user.claudebox") == NULL);
	CHECK_INT(migrate_carry_of(&in, &kv), 0);
	CHECK_INT(kv.n, 3);
	CHECK_STR(kv_get(&kv, "limits.cpu"), "4");
	CHECK_STR(kv_get(&kv, "limits.memory"), "8GiB");
	CHECK_STR(kv_get(&kv, "security.nesting"), "true");
	incus_instance_free(&in);
	/* a resumed re-homing keeps what is stamped; its own keys win */
	inst(&in, "{\"type\":\"virtual-machine\",\"config\":{\"user.box\":"
	    "\"1\",\"user.box.user\":\"dev\",\"limits.cpu\":\"1\"},"
	    "\"expanded_config\":{\"limits.cpu\":\"1\",\"security.nesting\":"
	    "\"true\"}}");
	CHECK_INT(migrate_stamps_of(&in, "t", &kv), 0);
	CHECK(kv_get(&kv, "user.box.user") == NULL);
	CHECK_STR(kv_get(&kv, "user.box.mode"), "vm");
	CHECK_INT(migrate_carry_of(&in, &kv), 0);
	CHECK_INT(kv.n, 0);	/* nothing: a VM gets no nesting */
	incus_instance_free(&in);
}

TEST(migrate_rollback_puts_back)
{
	static const char cur[] = "{\"architecture\":\"x86_64\","
	    "\"description\":\"d\",\"name\":\"old\",\"profiles\":[\"box-net\"],"
	    "\"config\":{\"user.claudebox\":\"1\",\"user.box\":\"1\","
	    "\"limits.cpu\":\"4\",\"volatile.eth0.host_name\":\"vethNEW\","
	    "\"volatile.idmap.next\":\"[]\"},\"devices\":{}}";
	struct incus_instance o, c, out;
	struct json_doc b;
	struct mint_kv kv;
	struct box_err e;
	char *body = NULL;
	int cfg;

	err_clear(&e);
	inst(&o, legacy_box);
	inst(&c, cur);
	mint_kv_init(&kv);
	mint_kv_add(&kv, "limits.cpu", "4");
	CHECK_INT(migrate_rollback_of(&c, &o, &kv, &out), 0);
	CHECK_INT(incus_instance_put_body(&out, &body, &e), 0);
	incus_instance_free(&out);
	parse(&b, body);
	cfg = json_get(&b, 0, "config");
	/* both tags, fresh volatile keys, the carried key gone */
	CHECK(json_streq(&b, json_get(&b, cfg, "user.claudebox"), "1"));
	CHECK(json_streq(&b, json_get(&b, cfg, "user.box"), "1"));
	CHECK(json_streq(&b, json_get(&b, cfg, "volatile.eth0.host_name"),
	    "vethNEW"));
	CHECK(json_get(&b, cfg, "limits.cpu") == JSON_NONE);
	/* the original's devices and profiles */
	CHECK_INT(json_count(&b, json_get(&b, 0, "devices")), 3);
	CHECK(json_streq(&b, json_path(&b, 0, "devices.eth0.network"),
	    "claudenet"));
	CHECK_INT(json_count(&b, json_get(&b, 0, "profiles")), 1);
	CHECK(json_streq(&b, json_child(&b, json_get(&b, 0, "profiles")),
	    "claude-dev"));
	CHECK(json_get(&b, 0, "name") == JSON_NONE);
	json_free(&b);
	incus_instance_free(&c);
	incus_instance_free(&o);
	free(body);
}

TEST(migrate_probe_round_trip)
{
	struct migrate_probe p, q;
	struct box_err e;
	char *out = NULL;

	memset(&p, 0, sizeof(p));
	p.naddr = 2;
	p.addr[0] = 0xac110002;	/* 172.17.0.2: docker0, the decoy */
	p.plen[0] = 16;
	snprintf(p.dev[0], sizeof(p.dev[0]), "docker0");
	p.addr[1] = 0x0a580007;	/* 10.88.0.7 */
	p.plen[1] = 24;
	snprintf(p.dev[1], sizeof(p.dev[1]), "enp5s0");
	p.gw = 1;
	snprintf(p.gw_why, sizeof(p.gw_why), "NXDOMAIN");
	p.name = 0;
	p.user = 1;
	err_clear(&e);
	CHECK_INT(migrate_probe_print(&p, &out), 0);
	CHECK(strncmp(out, "migrate-probe 1\naddr 172.17.0.2/16 docker0\n", 41) == 0);
	CHECK_INT(migrate_probe_parse(out, strlen(out), &q, &e), 0);
	CHECK_INT(q.naddr, 2);
	CHECK_STR(q.dev[1], "enp5s0");
	CHECK_INT(q.gw, 1);
	CHECK_INT(q.user, 1);
	CHECK_STR(q.gw_why, "NXDOMAIN");
	/* chosen by subnet, not by interface name */
	CHECK_INT(migrate_probe_lease(&q, 0x0a580000), 0x0a580007);
	CHECK_INT(migrate_probe_lease(&q, 0x0a570000), 0);
	free(out);
}

#define S_(x) x, sizeof(x) - 1

TEST(migrate_probe_hostile)
{
	static const char *const bad[] = {
		"", "[]", "{}", "gw 1\nname 1\nuser 0\nname_a 0.0.0.0\n",
		"migrate-probe 2\ngw 1\nname 1\nuser 0\nname_a 0.0.0.0\n",
		"migrate-probe 1\naddr 10.88.0.300/24 eth0\ngw 1\nname 1\n"
		"user 0\nname_a 0.0.0.0\n",
		"migrate-probe 1\naddr 10.88.0.3/33 eth0\ngw 1\nname 1\n"
		"user 0\nname_a 0.0.0.0\n",
		"migrate-probe 1\naddr 10.88.0.3 eth0\ngw 1\nname 1\n"
		"user 0\nname_a 0.0.0.0\n",
		"migrate-probe 1\ngw 2\nname 1\nuser 0\nname_a 0.0.0.0\n",
		"migrate-probe 1\ngw x\nname 1\nuser 0\nname_a 0.0.0.0\n",
		"migrate-probe 1\ngw 1\nname 1\nuser 0\n",
		/* a member twice: which one would be the truth? */
		"migrate-probe 1\ngw 0\ngw 1\nname 1\nuser 0\n"
		"name_a 0.0.0.0\n",
		/* a NUL byte, a key that is not one */
		"migrate-probe 1\ngw 1\nname 1\nuser 0\nname_a 0.0.0.0\n"
		"x\001y 1\n",
	};
	struct migrate_probe p;
	struct box_err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err_clear(&e);
		CHECK(migrate_probe_parse(bad[i], strlen(bad[i]), &p, &e) < 0);
		CHECK_INT(p.gw, 0);
		CHECK_INT(p.naddr, 0);
	}
	/* the smallest good report; unknown members are a later box's */
	err_clear(&e);
	CHECK_INT(migrate_probe_parse(S_("migrate-probe 1\r\nname -1\n"
	    "later 7\ngw 0\nuser 1\nname_a 10.0.0.1\nname_why no answer in "
	    "2000 ms\n"), &p, &e), 0);
	CHECK_INT(p.name, -1);
	CHECK_INT(p.user, 1);
	CHECK_INT((int)p.name_a, 0x0a000001);
	CHECK_STR(p.name_why, "no answer in 2000 ms");
	/* a network address or broadcast is no lease */
	memset(&p, 0, sizeof(p));
	p.naddr = 2;
	p.addr[0] = 0x0a580000;
	p.addr[1] = 0x0a5800ff;
	CHECK_INT(migrate_probe_lease(&p, 0x0a580000), 0);
}

TEST(migrate_has_user)
{
	/* a whole line's name, not a prefix or a later field; no NUL needed */
	CHECK_INT(migrate_has_user(S_("root:x:0:0::/root:/bin/sh\n"
	    "claude:x:1000:1000::/home/claude:/bin/sh\n"), "claude"), 1);
	CHECK_INT(migrate_has_user(S_("claudex:x:1:1::/:/bin/sh\n"
	    "u:x:2:2:claude:/:/bin/sh\n"), "claude"), 0);
	CHECK_INT(migrate_has_user(S_("claude"), "claude"), 0);
	CHECK_INT(migrate_has_user(S_("claude:"), "claude"), 1);
	CHECK_INT(migrate_has_user("claude:x", 6, "claude"), 0);
	CHECK_INT(migrate_has_user(S_(""), "claude"), 0);
}
