/*
 * fuzz_project - the project, trust store and image parsers (src/incus/
 * project.c, certificate.c, image.c, profile.c's name list) on arbitrary bytes.  Every parser
 * reads the same document; what one accepts must hold its own promises:
 * names never empty, fingerprints hex (they go into URLs), every config
 * key found again, and all of it freed without a leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "incus/certificate.h"
#include "incus/image.h"
#include "incus/image_test.h"
#include "incus/profile.h"
#include "incus/project.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
hex_or_trap(const char *fp)
{
	size_t n = strlen(fp);

	if (n == 0 || strspn(fp, "0123456789abcdefABCDEF") != n)
		__builtin_trap();
}

static void
projects(const struct json_doc *d)
{
	struct incus_projects l;
	struct incus_project p;
	size_t i, k;

	if (incus_project_parse(&p, d, 0) == 0) {
		if (p.name[0] == '\0' || p.description == NULL)
			__builtin_trap();
		for (k = 0; k < p.config.n; k++)
			if (incus_kv_get(&p.config, p.config.v[k].key) !=
			    p.config.v[k].value)
				__builtin_trap();
		incus_project_free(&p);
	}
	if (incus_projects_parse(&l, d, 0) == 0) {
		for (i = 0; i < l.n; i++)
			if (l.v[i].name[0] == '\0')
				__builtin_trap();
		incus_projects_free(&l);
	}
}

static void
certificates(const struct json_doc *d)
{
	struct incus_certificates l;
	size_t i, k;

	if (incus_certificates_parse(&l, d, 0) != 0)
		return;
	for (i = 0; i < l.n; i++) {
		hex_or_trap(l.v[i].fingerprint);
		if (l.v[i].name == NULL)
			__builtin_trap();
		for (k = 0; k < l.v[i].nprojects; k++)
			if (l.v[i].projects[k] == NULL)
				__builtin_trap();
	}
	incus_certificates_free(&l);
}

static void
images(const struct json_doc *d)
{
	struct incus_image_alias a;
	struct incus_images l;
	size_t i;

	if (incus_images_parse(&l, d, 0) == 0) {
		for (i = 0; i < l.n; i++)
			hex_or_trap(l.v[i].fingerprint);
		incus_images_free(&l);
	}
	if (incus_image_alias_parse(&a, d, 0) == 0) {
		hex_or_trap(a.target);
		incus_image_alias_free(&a);
	}
}

static void
profile_names(const struct json_doc *d)
{
	struct incus_profile_names l;
	size_t i;

	if (incus_profile_names_parse(&l, d, 0) != 0)
		return;
	for (i = 0; i < l.n; i++)
		if (l.v[i] == NULL)
			__builtin_trap();
	incus_profile_names_free(&l);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc d;
	struct box_err e;

	err_clear(&e);
	if (json_parse(&d, (const char *)data, size, &e) < 0)
		return 0;
	projects(&d);
	certificates(&d);
	images(&d);
	profile_names(&d);
	json_free(&d);
	return 0;
}
