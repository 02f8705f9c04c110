/*
 * import_id.c - the machine identity as a first-start template (see
 * import_id.h).
 */
#include "box/import_id.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/json.h"

#include "box/life.h"

static int
tpl_upload(struct incus *c, const char *name, const char *id,
    struct box_err *e)
{
	struct incus_reply r;
	char path[200];
	int rc;

	snprintf(path, sizeof(path), "/1.0/instances/%s/metadata/templates?"
	    "path=" IMPORT_ID_TPL, name);
	rc = incus_call_raw(c, "POST", path, "application/octet-stream", id,
	    strlen(id), &r, e);
	incus_reply_free(&r);
	return rc;
}

/* PATCH merges into the metadata: the image's own templates stay. */
static int
tpl_entry(struct incus *c, const char *name, const char *trigger,
    struct box_err *e)
{
	struct incus_reply r;
	char path[200], body[320];
	int rc;

	snprintf(path, sizeof(path), "/1.0/instances/%s/metadata", name);
	snprintf(body, sizeof(body), "{\"templates\":{\"/etc/machine-id\":"
	    "{\"when\":[\"%s\"],\"create_only\":false,\"template\":\""
	    IMPORT_ID_TPL "\",\"properties\":{}}}}", trigger);
	rc = incus_do(c, "PATCH", path, body, LIFE_OP_S, &r, e);
	incus_reply_free(&r);
	return rc;
}

/* Set after the daemon-side vet, which refuses the key from a file. */
static int
tpl_arm(struct incus *c, const char *name, const char *trigger,
    struct box_err *e)
{
	struct incus_reply r, s;
	struct json_w w;
	char path[160], desc[1024], *body;
	int rc;

	/* a PATCH without a description clears it: send it back */
	snprintf(path, sizeof(path), "/1.0/instances/%s", name);
	if ((rc = incus_call(c, "GET", path, NULL, &s, e)) < 0) {
		incus_reply_free(&s);
		return rc;
	}
	life_jstr(&s.doc, s.metadata, "description", desc, sizeof(desc), "");
	incus_reply_free(&s);
	json_w_init(&w, 4096);
	json_w_obj(&w);
	json_w_key(&w, "config");
	json_w_obj(&w);
	json_w_key(&w, "volatile.apply_template");
	json_w_str(&w, trigger);
	json_w_end(&w, '}');
	json_w_key(&w, "description");
	json_w_str(&w, desc);
	json_w_end(&w, '}');
	if (json_w_finish(&w, &body, NULL) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_do(c, "PATCH", path, body, LIFE_OP_S, &r, e);
	incus_reply_free(&r);
	free(body);
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
	if ((rc = tpl_upload(c, name, id, e)) < 0 ||
	    (rc = tpl_entry(c, name, trigger, e)) < 0 ||
	    (rc = tpl_arm(c, name, trigger, e)) < 0)
		err_context(e, "arranging a new /etc/machine-id");
	return rc;
}
