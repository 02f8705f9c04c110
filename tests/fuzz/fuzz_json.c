/*
 * fuzz_json - the JSON parser and every accessor on arbitrary bytes.  A
 * parsed document is walked whole (children, lookups, string decoding,
 * integers) and re-emitted through the writer, which must accept what the
 * parser accepted, and the result must parse again.  The top value is
 * also read as a config map and as a device map (src/incus/kv.c), as
 * an instance, an instance list and an instance state (incus/instance.c),
 * and through the guest API's decoders (src/incus/guest.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "incus/guest.h"
#include "incus/instance.h"
#include "incus/json.h"
#include "incus/kv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
emit(const struct json_doc *d, int i, struct json_w *w, int depth)
{
	char buf[256];
	long long v;
	int k;

	switch (json_type(d, i)) {
	case JSON_OBJECT:
		json_w_obj(w);
		for (k = json_child(d, i); k >= 0; k = json_next(d, json_next(d, k))) {
			if (json_str(d, k, buf, sizeof(buf)) < 0)
				strcpy(buf, "long");
			json_w_key(w, buf);
			json_get(d, i, buf);
			emit(d, json_next(d, k), w, depth + 1);
		}
		json_w_end(w, '}');
		break;
	case JSON_ARRAY:
		json_w_arr(w);
		for (k = json_child(d, i); k >= 0; k = json_next(d, k))
			emit(d, k, w, depth + 1);
		json_w_end(w, ']');
		break;
	case JSON_STRING:
		k = json_str(d, i, buf, sizeof(buf));
		if (k >= 0) {
			/* Decoding and comparing must agree (a \u0000 ends buf). */
			if ((size_t)k == strlen(buf) && !json_streq(d, i, buf))
				__builtin_trap();
			json_w_str(w, buf);
		} else {
			json_w_str(w, "long");
		}
		break;
	case JSON_NUMBER:
		if (json_int(d, i, &v) == 0)
			json_w_int(w, v);
		else
			json_w_int(w, 0);
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		json_w_bool(w, json_type(d, i) == JSON_TRUE);
		break;
	default:
		json_w_null(w);
	}
}

/* What kv.c accepts it must find again and write back. */
static void
read_maps(const struct json_doc *d)
{
	struct incus_kvs m = { 0 };
	struct incus_devices dv = { 0 };
	size_t i;

	if (incus_kv_from_json(&m, d, 0) == 0)
		for (i = 0; i < m.n; i++)
			if (incus_kv_get(&m, m.v[i].key) != m.v[i].value)
				__builtin_trap();
	if (incus_dev_from_json(&dv, d, 0) == 0)
		for (i = 0; i < dv.n; i++)
			if (incus_dev_get(&dv, dv.v[i].name) != &dv.v[i].kv)
				__builtin_trap();
	incus_kv_free(&m);
	incus_dev_free(&dv);
}

/* What instance.c accepts is whole; what it refuses leaves nothing. */
static void
read_instances(const struct json_doc *d)
{
	struct incus_instance in;
	struct incus_instance_list l;
	struct incus_inst_state st;
	struct box_err e;
	size_t i, k;

	err_clear(&e);
	if (incus_instance_from_json(d, 0, INCUS_INST_RAW, &in, &e) == 0) {
		if (in.description == NULL || in.raw == NULL)
			__builtin_trap();
		for (i = 0; i < in.state.nnic; i++)
			for (k = 0; k < in.state.nic[i].naddr; k++)
				if (strlen(in.state.nic[i].addr[k].address) >=
				    sizeof(in.state.nic[i].addr[k].address))
					__builtin_trap();
		incus_instance_free(&in);
	} else if (in.description != NULL || in.raw != NULL) {
		__builtin_trap();
	}
	if (incus_instance_list_from_json(d, 0, 0, &l, &e) == 0) {
		for (i = 0; i < l.n; i++)
			if (l.v[i].description == NULL)
				__builtin_trap();
		incus_instance_list_free(&l);
	} else if (l.v != NULL) {
		__builtin_trap();
	}
	{
		struct incus_snapshot_list sl;

		if (incus_snapshot_list_from_json(d, 0, &sl, &e) == 0)
			for (i = 0; i < sl.n; i++)
				if (strlen(sl.v[i].name) >= sizeof(sl.v[i].name))
					__builtin_trap();
		incus_snapshot_list_free(&sl);
	}
	if (incus_state_from_json(d, 0, &st, &e) == 0)
		for (i = 0; i < st.nnic; i++)
			if (incus_state_nic(&st, st.nic[i].name) == NULL)
				__builtin_trap();
	incus_state_free(&st);
}

/* The guest API's typed reads: bounded, and what they store ends. */
static void
guest_decode(const uint8_t *data, size_t size)
{
	struct incus_guest_info info;
	struct incus_guest_nic nic[4];
	struct box_err e;
	int n, i;

	err_clear(&e);
	if (incus_guest_parse_info((const char *)data, size, &info) == 1 &&
	    (strnlen(info.instance_type, sizeof(info.instance_type)) ==
	    sizeof(info.instance_type) ||
	    strnlen(info.location, sizeof(info.location)) ==
	    sizeof(info.location)))
		abort();
	n = incus_guest_parse_nics((const char *)data, size, nic, 4, &e);
	if (n > 4)
		abort();
	for (i = 0; i < n; i++)
		if (strnlen(nic[i].name, sizeof(nic[i].name)) ==
		    sizeof(nic[i].name) || strnlen(nic[i].network,
		    sizeof(nic[i].network)) == sizeof(nic[i].network))
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc d, d2;
	struct json_w w;
	struct box_err e;
	char *out;
	size_t n;

	guest_decode(data, size);
	err_clear(&e);
	if (json_parse(&d, (const char *)data, size, &e) < 0)
		return 0;
	read_maps(&d);
	read_instances(&d);
	json_w_init(&w, 1 << 22);
	emit(&d, 0, &w, 0);
	/* A decoded string may hold a NUL or be truncated mid-character. */
	if (json_w_finish(&w, &out, &n) == 0) {
		err_clear(&e);
		if (json_parse(&d2, out, n, &e) != 0)
			__builtin_trap();
		json_free(&d2);
		free(out);
	}
	json_free(&d);
	return 0;
}
