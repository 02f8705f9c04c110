/*
 * template.h - the templates a box is minted from.
 *
 * A template is a directory with box.env (KEY="value" lines, parsed
 * against an allowlist and never executed) and user-data.yaml (cloud-init,
 * passed on verbatim but for documented tokens).  The set is compiled into
 * the binary from templates/; BOX_TEMPLATES=<dir> replaces it.
 *
 * There is deliberately no key for a network, a profile or a security.*
 * setting: a template cannot weaken a box's isolation.
 */
#ifndef BOX_TEMPLATE_H
#define BOX_TEMPLATE_H

#include <stddef.h>

#include "util/err.h"

#define TPL_MAX_ENV	(16u << 10)	/* box.env */
#define TPL_MAX_USERDATA (256u << 10)	/* user-data.yaml */
#define TPL_MAX		64		/* templates in a set */
#define TPL_NAME_MAX	64

struct template {
	char name[TPL_NAME_MAX];
	char description[256];
	char image[256];
	char user[64];
	char cpu[32], memory[32], disk[32];
	char role[64];
	char egress[4096];	/* BOX_EGRESS: a policy (box/egress/egress.h), "" */
	char idle_stop[24];	/* BOX_IDLE_STOP, as seconds, or "" */
	int require_vm, autostart;
	char *user_data;	/* heap, NUL-terminated */
	size_t user_data_len;
};

/* Names of the templates in the active set, sorted; returns the count. */
int template_names(char names[][TPL_NAME_MAX], int max, struct box_err *e);

/* Load and validate one template. Free with template_free(). */
int template_load(const char *name, struct template *t, struct box_err *e);
void template_free(struct template *t);

/* Parse box.env text (exposed for tests and the fuzzer). */
int template_parse_env(const char *name, const char *text, size_t n,
    struct template *t, struct box_err *e);

#endif
