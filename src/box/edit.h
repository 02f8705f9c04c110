/*
 * edit.h - rewriting an instance whole (the only way to drop a device).
 */
#ifndef BOX_EDIT_H
#define BOX_EDIT_H

#include "incus/api.h"
#include "incus/instance.h"
#include "incus/kv.h"
#include "util/err.h"

#define LIFE_OP_S	600		/* bound on one daemon operation */

/*
 * Rewrite an instance whole (GET, change, PUT, wait): the only way to drop
 * a device.  Everything not mentioned is sent back as it was, volatile
 * keys included (the daemon refuses a PUT without its idmap keys).
 */
struct life_edit {
	/* config key, value, ...; NULL ends; a value "" removes the key */
	const char *const *set;
	int (*drop_cfg)(const char *key);	/* or NULL */
	/* drop a device the callback names (either, or NULL) */
	int (*drop_device)(const char *name, const struct incus_kvs *dev);
	const char *drop_dev_name;	/* one device to drop, or NULL */
	const char *add_dev;		/* device name, or NULL */
	const struct incus_kvs *add_dev_kv;	/* its keys */
	const char *const *profiles;	/* replace the list, or NULL */
	int dropped;			/* out: devices dropped */
};

int life_edit(struct incus *c, const char *name, struct life_edit *ed,
    struct box_err *e);

#endif
