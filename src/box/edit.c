/*
 * edit.c - rewriting an instance whole (see edit.h).
 */
#include "box/edit.h"
#include "box/edit_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance.h"

static int
in_set(const char *const *set, const char *key)
{
	for (; set != NULL && set[0] != NULL; set += 2)
		if (strcmp(set[0], key) == 0)
			return 1;
	return 0;
}

static int
set_profiles(struct incus_instance *in, const char *const *prof)
{
	size_t i, n;
	char **v;

	for (n = 0; prof[n] != NULL; n++)
		;
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if ((v[i] = strdup(prof[i])) == NULL) {
			while (i > 0)
				free(v[--i]);
			free(v);
			return -ENOMEM;
		}
	for (i = 0; i < in->nprofiles; i++)
		free(in->profiles[i]);
	free(in->profiles);
	in->profiles = v;
	in->nprofiles = n;
	return 0;
}

/* The edit applied to the instance as read. */
static int
edit_apply(struct incus_instance *in, struct life_edit *ed,
    struct box_err *e)
{
	const char *const *s;
	size_t i;
	int rc = 0;

	for (i = 0; i < in->config.n;)
		if (in_set(ed->set, in->config.v[i].key) ||
		    (ed->drop_cfg != NULL && ed->drop_cfg(in->config.v[i].key)))
			incus_kv_del(&in->config, in->config.v[i].key);
		else
			i++;
	for (s = ed->set; rc == 0 && s != NULL && s[0] != NULL; s += 2)
		if (s[1][0] != '\0')
			rc = incus_kv_set(&in->config, s[0], s[1]);
	ed->dropped = 0;
	for (i = 0; rc == 0 && i < in->devices.n;) {
		const struct incus_device *dev = &in->devices.v[i];

		if (ed->add_dev != NULL && strcmp(dev->name, ed->add_dev) == 0) {
			incus_dev_del(&in->devices, ed->add_dev);
		} else if ((ed->drop_device != NULL &&
		    ed->drop_device(dev->name, &dev->kv)) ||
		    (ed->drop_dev_name != NULL &&
		    strcmp(dev->name, ed->drop_dev_name) == 0)) {
			ed->dropped++;
			incus_dev_del(&in->devices, dev->name);
		} else {
			i++;
		}
	}
	if (rc == 0 && ed->add_dev != NULL && ed->add_dev_kv != NULL)
		rc = incus_dev_set(&in->devices, ed->add_dev, ed->add_dev_kv);
	if (rc == 0 && ed->profiles != NULL)
		rc = set_profiles(in, ed->profiles);
	if (rc < 0)
		return err_set(e, rc, "building the instance update failed");
	return 0;
}

int
life_edit_body(struct incus_instance *in, struct life_edit *ed, char **body,
    struct box_err *e)
{
	int rc = edit_apply(in, ed, e);

	return rc < 0 ? rc : incus_instance_put_body(in, body, e);
}

int
life_edit(struct incus *c, const char *name, struct life_edit *ed,
    struct box_err *e)
{
	struct incus_instance in;
	int rc;

	if ((rc = incus_instance_get(c, name, 0, &in, e)) < 0)
		return rc;
	rc = edit_apply(&in, ed, e);
	if (rc == 0)
		rc = incus_instance_put(c, &in, LIFE_OP_S, e);
	incus_instance_free(&in);
	return rc;
}
