/* kv maps read from the daemon's JSON: values, refusals, round trip. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "incus/kv.h"
#include "t.h"

static int
doc(const char *s, struct json_doc *d)
{
	struct box_err e;

	err_clear(&e);
	return json_parse(d, s, strlen(s), &e);
}

TEST(kv_reads_strings_and_refuses_the_rest)
{
	struct json_doc d;
	struct incus_kvs m = { 0 };

	CHECK(doc("{\"a\":\"1\",\"b.c\":\"x\\ny\"}", &d) == 0);
	CHECK(incus_kv_from_json(&m, &d, 0) == 0);
	CHECK(m.n == 2);
	CHECK(strcmp(incus_kv_get(&m, "b.c"), "x\ny") == 0);
	CHECK(incus_kv_get(&m, "z") == NULL);
	CHECK(strcmp(incus_kv_or(&m, "z", "d"), "d") == 0);
	json_free(&d);

	CHECK(doc("{\"a\":1}", &d) == 0);
	CHECK(incus_kv_from_json(&m, &d, 0) == -EBADMSG && m.n == 0);
	json_free(&d);
	CHECK(doc("{\"a\":\"1\",\"a\":\"2\"}", &d) == 0);
	CHECK(incus_kv_from_json(&m, &d, 0) == -EBADMSG);
	json_free(&d);
	CHECK(doc("[\"a\"]", &d) == 0);
	CHECK(incus_kv_from_json(&m, &d, 0) == -EBADMSG);
	CHECK(incus_kv_from_json(&m, &d, JSON_NONE) == 0 && m.n == 0);
	json_free(&d);
	incus_kv_free(&m);
}

TEST(kv_set_del_and_write_back)
{
	struct incus_kvs m = { 0 };
	struct json_w w;
	char *out;
	size_t n;

	CHECK(incus_kv_set(&m, "a", "1") == 0);
	CHECK(incus_kv_set(&m, "b", "2") == 0);
	CHECK(incus_kv_set(&m, "a", "3") == 0);
	CHECK(m.n == 2 && strcmp(incus_kv_get(&m, "a"), "3") == 0);
	CHECK(incus_kv_del(&m, "a") == 1 && incus_kv_del(&m, "a") == 0);
	CHECK(incus_kv_set(&m, "q\"", "\\") == 0);
	json_w_init(&w, 1024);
	incus_kv_to_json(&w, &m);
	CHECK(json_w_finish(&w, &out, &n) == 0);
	CHECK(strcmp(out, "{\"b\":\"2\",\"q\\\"\":\"\\\\\"}") == 0);
	free(out);
	incus_kv_free(&m);
}

TEST(devices_read_by_name_and_refuse_duplicates)
{
	struct json_doc d;
	struct incus_devices dv = { 0 }, cp = { 0 };

	CHECK(doc("{\"eth0\":{\"type\":\"nic\",\"network\":\"boxnet\"},"
	    "\"root\":{\"type\":\"disk\",\"path\":\"/\"}}", &d) == 0);
	CHECK(incus_dev_from_json(&dv, &d, 0) == 0 && dv.n == 2);
	CHECK(strcmp(incus_dev_key(&dv, "eth0", "network"), "boxnet") == 0);
	CHECK(incus_dev_key(&dv, "eth1", "type") == NULL);
	CHECK(incus_dev_copy(&cp, &dv) == 0 && cp.n == 2);
	CHECK(incus_dev_del(&cp, "root") == 1 && cp.n == 1);
	json_free(&d);
	CHECK(doc("{\"e\":{\"type\":\"nic\"},\"e\":{}}", &d) == 0);
	CHECK(incus_dev_from_json(&dv, &d, 0) == -EBADMSG && dv.n == 0);
	json_free(&d);
	CHECK(doc("{\"e\":\"nic\"}", &d) == 0);
	CHECK(incus_dev_from_json(&dv, &d, 0) == -EBADMSG);
	json_free(&d);
	incus_dev_free(&cp);
}
