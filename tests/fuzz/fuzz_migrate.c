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
#include "incus/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct migrate_probe p;
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
		(void)migrate_kind(&d, 0);
		(void)migrate_uses_legacy(&d, 0);
		(void)migrate_foreign_devices(&d, 0, buf, sizeof(buf));
		(void)migrate_stamps(&d, 0, "t", &kv);
		(void)migrate_carry(&d, 0, &kv);
		if (migrate_rollback_body(&d, 0, &d, 0, &kv, &body, &e) == 0)
			free(body);
		json_free(&d);
	}
	free(copy);
	return 0;
}
