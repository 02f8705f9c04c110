/* incus/instance.c's parser on a recorded list reply, and its refusals. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance.h"
#include "t.h"

static char *
slurp(const char *name, size_t *n)
{
	char path[512];
	char *buf;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_json/%s",
	    t_datadir(), name);
	if ((f = fopen(path, "rb")) == NULL || (buf = malloc(1 << 16)) == NULL)
		return NULL;
	*n = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

static int
doc(const char *s, struct json_doc *d)
{
	struct box_err e;

	err_clear(&e);
	return json_parse(d, s, strlen(s), &e);
}

TEST(instance_list_from_recorded_reply)
{
	struct incus_instance_list l;
	struct json_doc d;
	struct box_err e;
	const struct incus_nic_state *nic;
	const struct incus_instance *a, *b;
	size_t n = 0;
	char *src = slurp("instance-list.json", &n);

	CHECK(src != NULL);
	if (src == NULL)
		return;
	err_clear(&e);
	CHECK(json_parse(&d, src, n, &e) == 0);
	CHECK(incus_instance_list_from_json(&d, 0, INCUS_INST_RAW, &l, &e) ==
	    0);
	CHECK_INT(l.n, 2);
	a = &l.v[0];
	b = &l.v[1];
	CHECK_STR(a->name, "boxit-a");
	CHECK_STR(a->status, "Running");
	CHECK_STR(a->type, "container");
	CHECK_STR(a->project, "default");
	CHECK_STR(a->created_at, "2026-12-01T14:02:11.123456789Z");
	CHECK_STR(a->last_used_at, "2026-12-01T14:02:12.5Z");
	CHECK_STR(a->description, "a box");
	CHECK_INT(a->nprofiles, 1);
	CHECK_STR(a->profiles[0], "box-net");
	CHECK_STR(incus_kv_get(&a->config, "user.box.template"), "base");
	CHECK_STR(incus_kv_get(&a->expanded_config, "user.box"), "1");
	CHECK_STR(incus_dev_key(&a->expanded_devices, "eth0", "network"),
	    "boxnet");
	CHECK_INT(a->devices.n, 0);
	CHECK_INT(a->nsnapshots, 2);
	CHECK(a->has_state);
	CHECK_STR(a->state.status, "Running");
	CHECK_INT(a->state.pid, 4242);
	CHECK_INT(a->state.nnic, 2);
	nic = incus_state_nic(&a->state, "eth0");
	CHECK(nic != NULL);
	if (nic != NULL) {
		CHECK_STR(nic->host_name, "veth8a1f0c2e");
		CHECK_INT(nic->naddr, 3);
		CHECK_STR(nic->addr[0].family, "inet");
		CHECK_STR(nic->addr[0].address, "10.88.0.17");
		CHECK_STR(nic->addr[0].scope, "global");
		CHECK_STR(nic->addr[2].scope, "link");
	}
	CHECK(a->raw != NULL && a->raw[0] == '{' && a->raw[a->raw_len - 1] ==
	    '}');
	CHECK_STR(b->name, "old-vm");
	CHECK_STR(b->type, "virtual-machine");
	CHECK_STR(b->description, "");
	CHECK_INT(b->nprofiles, 2);
	CHECK_INT(b->nsnapshots, 0);
	CHECK(b->has_state && b->state.nnic == 0 && b->state.pid == 0);
	CHECK_STR(incus_dev_key(&b->devices, "root", "pool"), "fast");
	incus_instance_list_free(&l);
	CHECK(l.v == NULL && l.n == 0);
	json_free(&d);
	free(src);
}

/* Each of these refuses the whole object, and leaves nothing to free. */
TEST(instance_parser_refuses_odd_replies)
{
	static const char *const bad[] = {
		"[]",
		"{\"name\":7}",
		"{\"name\":\"" "0123456789012345678901234567890123456789"
		    "0123456789012345678901234\"}",
		"{\"name\":\"a\",\"config\":{\"k\":1}}",
		"{\"name\":\"a\",\"config\":{\"k\":\"1\",\"k\":\"2\"}}",
		"{\"name\":\"a\",\"devices\":{\"d\":\"x\"}}",
		"{\"name\":\"a\",\"profiles\":\"default\"}",
		"{\"name\":\"a\",\"profiles\":[1]}",
		"{\"name\":\"a\",\"ephemeral\":\"no\"}",
		"{\"name\":\"a\",\"state\":[]}",
		"{\"name\":\"a\",\"state\":{\"pid\":\"1\"}}",
		"{\"name\":\"a\",\"state\":{\"network\":[]}}",
		"{\"name\":\"a\",\"state\":{\"network\":{\"eth0\":{"
		    "\"addresses\":{}}}}}",
		"{\"name\":\"a\",\"state\":{\"network\":{\"eth0\":{"
		    "\"addresses\":[{\"address\":5}]}}}}",
		"{\"name\":\"a\",\"state\":{\"network\":{\"eth0\":{},"
		    "\"eth0\":{}}}}",
		"{\"name\":\"a\",\"state\":{\"network\":{\"eth0\":{"
		    "\"host_name\":\"a-host-name-longer-than-ifnamsiz\"}}}}",
		NULL
	};
	struct incus_instance in;
	struct json_doc d;
	struct box_err e;
	int i;

	for (i = 0; bad[i] != NULL; i++) {
		CHECK(doc(bad[i], &d) == 0);
		err_clear(&e);
		if (incus_instance_from_json(&d, 0, 0, &in, &e) >= 0)
			t_fail(__FILE__, __LINE__, "accepted %s", bad[i]);
		CHECK(in.description == NULL && in.config.n == 0);
		CHECK(e.msg[0] != '\0');
		json_free(&d);
	}
	CHECK(doc("{\"name\":\"a\",\"description\":null,\"state\":null}",
	    &d) == 0);
	CHECK(incus_instance_from_json(&d, 0, 0, &in, &e) == 0);
	CHECK_STR(in.description, "");
	CHECK(!in.has_state);
	incus_instance_free(&in);
	json_free(&d);
}

TEST(instance_state_from_state_reply)
{
	struct incus_inst_state st;
	struct json_doc d;
	struct box_err e;

	CHECK(doc("{\"status\":\"Running\",\"pid\":9,\"network\":{\"eth0\":"
	    "{\"host_name\":\"veth0\",\"addresses\":[{\"family\":\"inet6\","
	    "\"address\":\"fd00::2\",\"netmask\":\"64\",\"scope\":\"global\"}"
	    "]}}}", &d) == 0);
	err_clear(&e);
	CHECK(incus_state_from_json(&d, 0, &st, &e) == 0);
	CHECK_STR(st.status, "Running");
	CHECK_INT(st.pid, 9);
	CHECK(incus_state_nic(&st, "eth1") == NULL);
	CHECK(incus_state_nic(&st, "eth0") != NULL &&
	    strcmp(incus_state_nic(&st, "eth0")->addr[0].address,
	    "fd00::2") == 0);
	incus_state_free(&st);
	json_free(&d);
}

TEST(instance_state_root_disk_use)
{
	struct incus_inst_state st;
	struct json_doc d;
	struct box_err e;

	CHECK(doc("{\"status\":\"Running\",\"disk\":{\"root\":{\"usage\":"
	    "17301504,\"total\":67108864}}}", &d) == 0);
	err_clear(&e);
	CHECK(incus_state_from_json(&d, 0, &st, &e) == 0);
	CHECK_INT(st.has_disk, 1);
	CHECK(st.disk_used == 17301504 && st.disk_total == 67108864);
	incus_state_free(&st);
	json_free(&d);
	/* a dir pool reports nothing: no figure, no error */
	CHECK(doc("{\"status\":\"Running\",\"disk\":{}}", &d) == 0);
	CHECK(incus_state_from_json(&d, 0, &st, &e) == 0);
	CHECK_INT(st.has_disk, 0);
	incus_state_free(&st);
	json_free(&d);
	/* a negative or non-integer figure is refused */
	CHECK(doc("{\"status\":\"Running\",\"disk\":{\"root\":{\"usage\":"
	    "-5}}}", &d) == 0);
	CHECK(incus_state_from_json(&d, 0, &st, &e) == -EBADMSG);
	incus_state_free(&st);
	json_free(&d);
	CHECK(doc("{\"status\":\"Running\",\"disk\":{\"root\":{\"usage\":"
	    "\"many\"}}}", &d) == 0);
	CHECK(incus_state_from_json(&d, 0, &st, &e) == -EBADMSG);
	incus_state_free(&st);
	json_free(&d);
}

TEST(instance_new_body_image_and_copy)
{
	static const char *const prof[] = { "box-net", NULL };
	struct incus_instance_new n;
	struct incus_kvs cfg = { 0 };
	struct json_doc d;
	struct box_err e;
	char *body;

	err_clear(&e);
	CHECK(incus_kv_set(&cfg, "user.box", "1") == 0);
	memset(&n, 0, sizeof(n));
	n.name = "w";
	n.type = "container";
	n.profiles = prof;
	n.config = &cfg;
	n.source = INCUS_SRC_IMAGE;
	n.alias = "debian/13";
	n.server = "https://images.example";
	CHECK(incus_instance_new_body(&n, &body, &e) == 0);
	CHECK(doc(body, &d) == 0);
	CHECK(json_streq(&d, json_path(&d, 0, "source.mode"), "pull"));
	CHECK(json_streq(&d, json_path(&d, 0, "source.protocol"),
	    "simplestreams"));
	CHECK(json_streq(&d, json_path(&d, 0, "config.user.box"), "1") ||
	    json_streq(&d, json_get(&d, json_get(&d, 0, "config"), "user.box"),
	    "1"));
	CHECK(json_get(&d, 0, "devices") == JSON_NONE);
	CHECK(json_type(&d, json_get(&d, 0, "start")) == JSON_FALSE);
	json_free(&d);
	free(body);
	/* a copy sends no maps: the source's are kept */
	memset(&n, 0, sizeof(n));
	n.name = "c";
	n.source = INCUS_SRC_COPY;
	n.copy_from = "a/snap";
	CHECK(incus_instance_new_body(&n, &body, &e) == 0);
	CHECK(doc(body, &d) == 0);
	CHECK(json_get(&d, 0, "config") == JSON_NONE);
	CHECK(json_get(&d, 0, "profiles") == JSON_NONE);
	CHECK(json_streq(&d, json_path(&d, 0, "source.type"), "copy"));
	CHECK(json_streq(&d, json_path(&d, 0, "source.source"), "a/snap"));
	CHECK(json_type(&d, json_path(&d, 0, "source.instance_only")) ==
	    JSON_FALSE);
	json_free(&d);
	free(body);
	incus_kv_free(&cfg);
}

TEST(snapshot_list_from_reply)
{
	struct incus_snapshot_list l;
	struct json_doc d;
	struct box_err e;

	err_clear(&e);
	CHECK(doc("[{\"name\":\"pristine\",\"created_at\":\"2026-12-01T10:00:00Z\","
	    "\"stateful\":false},{\"name\":\"s2\",\"created_at\":\"x\"}]", &d) ==
	    0);
	CHECK(incus_snapshot_list_from_json(&d, 0, &l, &e) == 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.v[0].name, "pristine");
	CHECK_STR(l.v[0].created_at, "2026-12-01T10:00:00Z");
	incus_snapshot_list_free(&l);
	json_free(&d);
	CHECK(doc("[{\"name\":3}]", &d) == 0);
	CHECK(incus_snapshot_list_from_json(&d, 0, &l, &e) < 0);
	CHECK(l.v == NULL);
	json_free(&d);
	CHECK(doc("{}", &d) == 0);
	CHECK(incus_snapshot_list_from_json(&d, 0, &l, &e) < 0);
	json_free(&d);
}
