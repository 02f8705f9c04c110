/*
 * fuzz_resource - the typed resource parsers (src/incus/network.c, acl.c,
 * profile.c, storage.c, server.c, cluster.c) on arbitrary JSON.  Every parser reads the
 * top value; what one accepts must be whole (no NULL where a count says
 * there is an element), copy cleanly, and write back as JSON that parses.
 * A refusal must leave nothing to free (ASan's leak check sees it).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "incus/acl.h"
#include "incus/cluster.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "incus/server.h"
#include "incus/server_test.h"
#include "incus/storage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* m written out must parse again into the same map. */
static void
kv_round_trip(const struct incus_kvs *m)
{
	struct incus_kvs back = { 0 };
	struct json_doc d;
	struct json_w w;
	struct box_err e;
	char *out;
	size_t n, i;

	json_w_init(&w, 1 << 24);
	incus_kv_to_json(&w, m);
	if (json_w_finish(&w, &out, &n) < 0)
		return;
	err_clear(&e);
	if (json_parse(&d, out, n, &e) != 0)
		__builtin_trap();
	/* A value holding a NUL decodes shorter: compare only the rest. */
	if (incus_kv_from_json(&back, &d, 0) == 0 && back.n != m->n)
		__builtin_trap();
	for (i = 0; i < back.n; i++)
		if (strlen(m->v[i].value) == strlen(back.v[i].value) &&
		    strcmp(m->v[i].value, back.v[i].value) != 0)
			__builtin_trap();
	incus_kv_free(&back);
	json_free(&d);
	free(out);
}

static void
acl(const struct json_doc *d)
{
	struct incus_acl_rules copy = { 0 };
	struct incus_acl a;
	size_t i;

	if (incus_acl_from_json(&a, d, 0) < 0)
		return;
	for (i = 0; i < a.ingress.n; i++)
		if (incus_acl_rule_add(&copy, &a.ingress.v[i]) == 0 &&
		    (a.ingress.v[i].action == NULL) !=
		    (copy.v[copy.n - 1].action == NULL))
			__builtin_trap();
	while (copy.n > 0)
		incus_acl_rule_del(&copy, copy.n / 2);
	incus_acl_rules_free(&copy);
	kv_round_trip(&a.config);
	incus_acl_free(&a);
}

static void
others(const struct json_doc *d)
{
	struct incus_network n;
	struct incus_leases l;
	struct incus_profile p;
	struct incus_pool pool;
	struct incus_server s;
	struct incus_volume_refs v;
	char **names;
	size_t cnt, i;

	if (incus_network_from_json(&n, d, 0) == 0) {
		kv_round_trip(&n.config);
		incus_network_free(&n);
	}
	if (incus_leases_from_json(&l, d, 0) == 0) {
		for (i = 0; i < l.n; i++)
			if (l.v[i].address != NULL && l.v[i].address[0] == 1)
				break;
		incus_leases_free(&l);
	}
	if (incus_profile_from_json(&p, d, 0) == 0) {
		for (i = 0; i < p.devices.n; i++)
			if (incus_dev_get(&p.devices, p.devices.v[i].name) ==
			    NULL)
				__builtin_trap();
		incus_profile_free(&p);
	}
	{
		static struct incus_cluster k;

		/* every member accepted has a name, NUL-terminated, and is
		 * found again by it */
		if (incus_members_from_json(&k, d, 0, "box") == 0)
			for (i = 0; i < k.n; i++)
				if (k.m[i].name[0] == '\0' ||
				    incus_cluster_member(&k, k.m[i].name) ==
				    NULL)
					__builtin_trap();
	}
	if (incus_pool_from_json(&pool, d, 0) == 0)
		incus_pool_free(&pool);
	if (incus_server_from_json(&s, d, 0) == 0) {
		for (i = 0; i < s.nextensions; i++)
			if (!incus_server_has_ext(&s, s.extensions[i]))
				__builtin_trap();
		incus_server_free(&s);
	}
	if (incus_volume_refs_from_json(&v, d, 0,
	    "/1.0/storage-pools/default/volumes/") == 0) {
		for (i = 0; i < v.n; i++)
			if (v.v[i].type == NULL || v.v[i].name == NULL ||
			    strchr(v.v[i].type, '/') != NULL ||
			    strchr(v.v[i].name, '/') != NULL ||
			    (v.v[i].snapshot != NULL &&
			    strchr(v.v[i].snapshot, '/') != NULL))
				__builtin_trap();
		incus_volume_refs_free(&v);
	}
	if (incus_names_from_json(&names, &cnt, d, 0,
	    "/1.0/storage-pools/") == 0) {
		for (i = 0; i < cnt; i++)
			if (names[i] == NULL || strchr(names[i], '/') != NULL)
				__builtin_trap();
		incus_names_free(names, cnt);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc d;
	struct box_err e;

	err_clear(&e);
	if (json_parse(&d, (const char *)data, size, &e) < 0)
		return 0;
	acl(&d);
	others(&d);
	json_free(&d);
	return 0;
}
