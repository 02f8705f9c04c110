/*
 * mint.h - the decisions behind a new box, kept free of I/O so they can be
 * tested: which resources, which mode, which image source, what the
 * user-data says, and the provenance stamps written at mint, clone and
 * import (checklist §5).
 */
#ifndef BOX_MINT_H
#define BOX_MINT_H

#include <stddef.h>

#include "box/life/template.h"
#include "incus/instance.h"
#include "incus/server.h"
#include "util/err.h"

#define MINT_SCHEMA	"1"	/* stamp shape; bumped only on removal */
#define MINT_CPU	"4"
#define MINT_MEMORY	"8GiB"
#define MINT_DISK	"60GiB"
#define MINT_RIG_REPO	"heavy-duty/rig"
#define MINT_RIG_REF	"main"
/* The public image server an "images:" reference names. */
#define MINT_IMAGES_URL	"https://images.linuxcontainers.org"

/* flag > environment > template > default (first non-empty wins). */
const char *mint_pick(const char *flag, const char *env, const char *tpl,
    const char *def);

/* What the host can run. */
struct mint_host {
	int kvm;		/* /dev/kvm exists */
	int vm_driver;		/* the daemon reports a VM driver (qemu) */
	char drivers[64];	/* as the daemon reports them: "lxc | qemu" */
};

/* Fill vm_driver and drivers from the daemon's environment. */
void mint_host_read(const struct incus_server *s, struct mint_host *h);

enum { MINT_AUTO = 0, MINT_VM, MINT_CT };

/*
 * The effective mode.  asked is MINT_AUTO/VM/CT; image_type the type of a
 * local image (0 when unknown: a remote one).  Auto picks a VM where the
 * host can run one.  An impossible ask fails with the reason; note gets
 * the sentence to print when a container is chosen on its own.
 */
int mint_mode(int asked, int image_type, const struct template *t,
    const struct mint_host *h, int *vm, char *note, size_t cap,
    struct box_err *e);

/*
 * An image reference: "images:<alias>" (the public server) or a local
 * alias.  Anything else with a remote prefix is refused.  *alias points
 * into ref.
 */
int mint_image(const char *ref, int *remote, const char **alias,
    struct box_err *e);

/*
 * user-data.yaml rendered: @RIG_REPO@ and @RIG_REF@ replaced (the values
 * validated first), a trailing newline ensured.  *uses_rig says whether a
 * token was present.  *out is malloc'd.
 */
int mint_render(const char *ud, size_t n, const char *repo, const char *ref,
    char **out, int *uses_rig, struct box_err *e);

struct mint_plan {
	const char *name, *template_, *user, *image, *mode_asked;
	const char *cpu, *memory, *disk, *pool, *role;
	const char *rig_repo, *rig_ref;	/* NULL: the user-data uses none */
	const char *created, *user_data;
	const char *owner;		/* the minting uid (user.box.owner) */
	const char *egress;		/* user.box.egress, or NULL: open */
	/* a local image: the fingerprint its alias named, created from and
	 * stamped (user.box.image.fingerprint); NULL: by alias */
	const char *fingerprint;
	const char *target;		/* cluster placement, or NULL */
	const char *idle_stop;		/* user.box.idle-stop (s), or NULL */
	int vm, autostart;
	int quota;		/* the pool enforces a container's disk size */
};

/* A fresh mint's instance (not started), and the maps it points at. */
struct mint_spec {
	struct incus_instance_new n;
	struct incus_kvs config;
	struct incus_devices devices;
	const char *profiles[2];
};

int mint_spec(const struct mint_plan *p, struct mint_spec *s,
    struct box_err *e);
void mint_spec_free(struct mint_spec *s);

/* Config key/value pairs for an update (life_edit's set list). */
#define MINT_KV_MAX 16
struct mint_kv {
	int n;
	char k[MINT_KV_MAX][48];
	char v[MINT_KV_MAX][192];
	const char *set[2 * MINT_KV_MAX + 1];	/* built by mint_kv_list() */
};

void mint_kv_init(struct mint_kv *kv);
int mint_kv_add(struct mint_kv *kv, const char *k, const char *v);
const char *const *mint_kv_list(struct mint_kv *kv);

/*
 * A clone's stamps: it was not present at its source's mint, so schema,
 * version, created and origin are its own, origin.from names the source
 * ("box" or "box/snap"), and mode.asked (a mint-time fact) is removed.
 */
int mint_clone_stamps(struct mint_kv *kv, const char *now, const char *from);

/*
 * An import's stamps, read against the instance's config as imported: the tag when
 * it carries neither, the first trip (only if none is recorded), the last
 * trip, and the count (a missing or non-numeric count counts as 0).  The
 * mint stamp is never rewritten.
 */
int mint_import_stamps_of(struct mint_kv *kv, const struct incus_kvs *cfg,
    const char *now);

/* The last line of a finished mint, by the box's template. */
void mint_ready(const char *name, const char *template_, char *buf,
    size_t cap);

#endif
