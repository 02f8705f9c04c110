/*
 * fuzz_template - the box.env parser (templates come from a directory the
 * user names with BOX_TEMPLATES: hostile input) on arbitrary bytes.  An
 * accepted template must satisfy what the parser promises: an image and a
 * user, NUL-terminated fields, a well-formed role.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "box/life/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct template t;
	struct box_err e;

	memset(&t, 0, sizeof(t));
	err_clear(&e);
	if (template_parse_env("fuzz", (const char *)data, size, &t, &e) != 0)
		return 0;
	if (t.image[0] == '\0' || t.user[0] == '\0' ||
	    strlen(t.image) >= sizeof(t.image) ||
	    strlen(t.description) >= sizeof(t.description))
		__builtin_trap();
	if (t.role[0] != '\0' && (t.role[0] < 'a' || t.role[0] > 'z'))
		__builtin_trap();
	return 0;
}
