/*
 * instance_host.c - instance actions for src/host/.  See instance_host.h.
 */
#include "incus/instance_host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance.h"

static int
act(struct incus *c, const char *method, const char *name,
    const char *suffix, const char *body, int timeout_s, struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	if (incus_inst_path(path, sizeof(path), name, suffix) < 0)
		return err_set(e, -EINVAL, "odd instance name '%.80s'", name);
	rc = incus_do(c, method, path, body, timeout_s, &r, e);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

int
incus_instance_host_stop(struct incus *c, const char *name, int force,
    int timeout_s, struct box_err *e)
{
	return act(c, "PUT", name, "/state", force ?
	    "{\"action\":\"stop\",\"force\":true}" :
	    "{\"action\":\"stop\",\"force\":false}", timeout_s, e);
}

int
incus_instance_host_delete(struct incus *c, const char *name, int timeout_s,
    struct box_err *e)
{
	return act(c, "DELETE", name, "", NULL, timeout_s, e);
}

int
incus_instance_host_list_all(struct incus *c, const char *filter,
    unsigned flags, struct incus_instance_list *list, struct box_err *e)
{
	struct incus_reply r;
	char path[512];
	int n, rc;

	memset(list, 0, sizeof(*list));
	n = snprintf(path, sizeof(path), "/1.0/instances?recursion=%d&"
	    "all-projects=true%s%s", (flags & INCUS_INST_STATE) ? 2 : 1,
	    filter ? "&filter=" : "", filter ? filter : "");
	if (n < 0 || (size_t)n >= sizeof(path))
		return err_set(e, -ENAMETOOLONG, "the instance filter is too "
		    "long");
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc < 0)
		return rc;
	rc = incus_instance_list_from_json(&r.doc, r.metadata, flags, list, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_instance_host_patch_config(struct incus *c, const char *name,
    const struct incus_kvs *cfg, struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	char path[256], *body;
	int rc;

	if (incus_inst_path(path, sizeof(path), name, "") < 0)
		return err_set(e, -EINVAL, "odd instance name '%.80s'", name);
	json_w_init(&w, INCUS_MAX_BODY);
	json_w_obj(&w);
	json_w_key(&w, "config");
	incus_kv_to_json(&w, cfg);
	json_w_end(&w, '}');
	if ((rc = json_w_finish(&w, &body, NULL)) < 0)
		return err_set(e, rc, "building the request for %s", path);
	rc = incus_call(c, "PATCH", path, body, &r, e);
	free(body);
	incus_reply_free(&r);
	return rc;
}

int
incus_instance_host_put_body(const struct incus_instance *in, char **body)
{
	struct json_w w;
	size_t i;

	json_w_init(&w, INCUS_MAX_BODY);
	json_w_obj(&w);
	if (in->architecture[0] != '\0') {
		json_w_key(&w, "architecture");
		json_w_str(&w, in->architecture);
	}
	json_w_key(&w, "description");
	json_w_str(&w, in->description != NULL ? in->description : "");
	json_w_key(&w, "ephemeral");
	json_w_bool(&w, in->ephemeral);
	json_w_key(&w, "stateful");
	json_w_bool(&w, in->stateful);
	json_w_key(&w, "config");
	incus_kv_to_json(&w, &in->config);
	json_w_key(&w, "devices");
	incus_dev_to_json(&w, &in->devices);
	json_w_key(&w, "profiles");
	json_w_arr(&w);
	for (i = 0; i < in->nprofiles; i++)
		json_w_str(&w, in->profiles[i]);
	json_w_end(&w, ']');
	json_w_end(&w, '}');
	return json_w_finish(&w, body, NULL);
}

int
incus_instance_host_put(struct incus *c, const struct incus_instance *in,
    int timeout_s, struct box_err *e)
{
	char *body;
	int rc;

	if ((rc = incus_instance_host_put_body(in, &body)) < 0)
		return err_set(e, rc, "building the record of %s", in->name);
	rc = act(c, "PUT", in->name, "", body, timeout_s, e);
	free(body);
	return rc;
}
