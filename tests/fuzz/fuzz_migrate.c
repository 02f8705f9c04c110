/*
 * fuzz_migrate.c - what migrate-host reads from inside a box it re-homes
 * (the probe's report, a util/lines.h record: the box is not trusted), and
 * the instance records it judges and rewrites.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/stack/migrate.h"
#include "incus/instance.h"
#include "incus/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct migrate_probe p;
	struct incus_instance in, out;
	struct json_doc d;
	struct mint_kv kv;
	struct box_err e;
	char buf[200], *body = NULL, *copy = malloc(size + 1);

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	err_clear(&e);
	if (migrate_probe_parse(copy, size, &p, &e) == 0)
		(void)migrate_probe_lease(&p, 0x0a580000);
	memset(&d, 0, sizeof(d));
	err_clear(&e);
	if (json_parse(&d, copy, size, &e) == 0) {
		if (incus_instance_from_json(&d, 0, 0, &in, &e) < 0)
			goto done;
		(void)migrate_kind_of(&in);
		(void)migrate_uses_legacy_of(&in);
		(void)migrate_foreign_devices_of(&in, buf, sizeof(buf));
		(void)migrate_stamps_of(&in, "t", &kv);
		(void)migrate_carry_of(&in, &kv);
		if (migrate_rollback_of(&in, &in, &kv, &out) == 0) {
			if (incus_instance_put_body(&out, &body, &e) == 0)
				free(body);
			incus_instance_free(&out);
		}
		incus_instance_free(&in);
done:
		json_free(&d);
	}
	free(copy);
	return 0;
}
