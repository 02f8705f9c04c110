/*
 * import_id.c - the machine identity as a first-start template (see
 * import_id.h).
 */
#include "box/import/import_id.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance.h"

#include "box/life/life.h"
#include "box/life/identity.h"

/* PATCH merges into the metadata: the image's own templates stay. */
static int
tpl_entry(struct incus *c, const char *name, const char *trigger,
    struct box_err *e)
{
	return incus_template_arm(c, name, "/etc/machine-id", trigger,
	    IMPORT_ID_TPL, LIFE_OP_S, e);
}

/* Set after the daemon-side vet, which refuses the key from a file. */
static int
tpl_arm(struct incus *c, const char *name, const char *trigger,
    struct box_err *e)
{
	struct incus_instance in;
	struct incus_kvs kv = { 0 };
	int rc;

	/* a PATCH without a description clears it: send it back */
	if ((rc = incus_instance_get(c, name, 0, &in, e)) < 0)
		return rc;
	if (incus_kv_set(&kv, "volatile.apply_template", trigger) < 0)
		rc = err_set(e, -ENOMEM, "out of memory");
	else
		rc = incus_instance_patch(c, name, &kv, NULL, in.description,
		    LIFE_OP_S, e);
	incus_kv_free(&kv);
	incus_instance_free(&in);
	return rc;
}

int
import_id_template(struct incus *c, const char *name, struct box_err *e)
{
	char id[34], trig[34], trigger[48];
	int rc;

	if ((rc = life_machine_id(id, e)) < 0 ||
	    (rc = life_machine_id(trig, e)) < 0)
		return rc;
	trig[16] = '\0';
	snprintf(trigger, sizeof(trigger), "box-identity-%s", trig);
	if ((rc = incus_template_push(c, name, IMPORT_ID_TPL, id, strlen(id),
	    e)) < 0 ||
	    (rc = tpl_entry(c, name, trigger, e)) < 0 ||
	    (rc = tpl_arm(c, name, trigger, e)) < 0)
		err_context(e, "arranging a new /etc/machine-id");
	return rc;
}
