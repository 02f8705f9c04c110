/*
 * mint.c - decisions behind a new box (see mint.h).
 */
#include "box/life/mint.h"
#include "box/life/mint_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/secret/secret.h"
#include "model/names.h"

const char *
mint_pick(const char *flag, const char *env, const char *tpl,
    const char *def)
{
	if (flag != NULL && *flag != '\0')
		return flag;
	if (env != NULL && *env != '\0')
		return env;
	if (tpl != NULL && *tpl != '\0')
		return tpl;
	return def;
}

void
mint_host_read(const struct incus_server *s, struct mint_host *h)
{
	const char *drv = s->driver != NULL ? s->driver : "";

	snprintf(h->drivers, sizeof(h->drivers), "%s", drv[0] ? drv : "none");
	/*
	 * Newer daemons list the instance types they can run; 6.0 lists the
	 * operational drivers ("lxc | qemu").  A qemu that is installed but
	 * cannot run (no vhost_vsock) is left out of both.
	 */
	if (s->has_instance_types) {
		h->vm_driver = incus_server_runs(s, "virtual-machine");
		return;
	}
	h->vm_driver = strstr(drv, "qemu") != NULL;
}

static void
why_no_vm(const struct mint_host *h, char *buf, size_t cap)
{
	if (!h->kvm)
		snprintf(buf, cap, "no /dev/kvm");
	else
		snprintf(buf, cap, "the Incus daemon has no working VM driver; "
		    "it reports: %s", h->drivers);
}

int
mint_mode(int asked, int image_type, const struct template *t,
    const struct mint_host *h, int *vm, char *note, size_t cap,
    struct box_err *e)
{
	char why[128];
	int can = h->kvm && h->vm_driver;

	note[0] = '\0';
	why_no_vm(h, why, sizeof(why));
	if (asked == MINT_VM) {
		if (!can) {
			err_set(e, -ENOTSUP, "--vm: this host cannot run VMs "
			    "(%s)", why);
			err_fix(e, "drop --vm to mint a container (weaker "
			    "isolation), or mint on a host with KVM");
			return -ENOTSUP;
		}
		if (image_type == MINT_CT)
			return err_usage(e, "--vm asks for a VM, but the image "
			    "is a container image");
		*vm = 1;
		return 0;
	}
	if (asked == MINT_CT) {
		if (t->require_vm)
			return err_usage(e, "template '%s' requires VM mode — "
			    "it will not mint as a container (drop "
			    "--container)", t->name);
		if (image_type == MINT_VM)
			return err_usage(e, "--container asks for a container, "
			    "but the image is a VM image");
		*vm = 0;
		return 0;
	}
	if (can && image_type != MINT_CT) {
		*vm = 1;
		return 0;
	}
	if (t->require_vm) {
		if (can)
			snprintf(why, sizeof(why), "the image is a container "
			    "image");
		err_set(e, -ENOTSUP, "template '%s' requires VM mode and "
		    "this mint cannot make one (%s)", t->name, why);
		err_fix(e, "mint it on a KVM-capable host");
		return -ENOTSUP;
	}
	*vm = 0;
	if (can)
		snprintf(note, cap, "the image is a container image — minting "
		    "a container: weaker isolation (it shares the host's "
		    "kernel)");
	else
		snprintf(note, cap, "this host cannot run VMs (%s): boxes here "
		    "are containers, weaker isolation (they share the host's "
		    "kernel), fine for dev and test; --container asks for one "
		    "(said once per host)", why);
	return 0;
}

int
mint_image(const char *ref, int *remote, const char **alias,
    struct box_err *e)
{
	const char *colon = strchr(ref, ':');
	size_t i;

	if (strncmp(ref, "images:", 7) == 0) {
		*remote = 1;
		*alias = ref + 7;
	} else if (colon != NULL) {
		err_usage(e, "image '%s': box knows the public 'images:' "
		    "server and local aliases, nothing else", ref);
		err_fix(e, "import the image and give its local alias: "
		    "--image <alias>");
		return -EINVAL;
	} else {
		*remote = 0;
		*alias = ref;
	}
	if (**alias == '\0' || strlen(*alias) > 200)
		return err_usage(e, "image '%s': no alias", ref);
	for (i = 0; (*alias)[i] != '\0'; i++)
		if ((unsigned char)(*alias)[i] <= 0x20 ||
		    (*alias)[i] == 0x7f)
			return err_usage(e, "image '%s': spaces or control "
			    "characters in the alias", ref);
	return 0;
}

static int
charset_ok(const char *s, const char *extra)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr(extra, *s) != NULL))
			return 0;
	return 1;
}

static int
repo_ok(const char *r)
{
	const char *slash = strchr(r, '/');

	return slash != NULL && slash != r && slash[1] != '\0' &&
	    strchr(slash + 1, '/') == NULL && charset_ok(r, "._-/") &&
	    strlen(r) < 128;
}

int
mint_render(const char *ud, size_t n, const char *repo, const char *ref,
    char **out, int *uses_rig, struct box_err *e)
{
	static const char trepo[] = "@RIG_REPO@", tref[] = "@RIG_REF@";
	size_t cap, o = 0, i = 0, rl = strlen(repo), fl = strlen(ref);
	char *buf;

	*uses_rig = 0;
	for (i = 0; i + 9 <= n; i++)
		if (memcmp(ud + i, tref, 9) == 0 ||
		    (i + 10 <= n && memcmp(ud + i, trepo, 10) == 0))
			*uses_rig = 1;
	if (*uses_rig && !repo_ok(repo))
		return err_usage(e, "RIG_REPO must read owner/name (letters, "
		    "digits, '.', '_', '-'), not '%s'", repo);
	if (*uses_rig && (!charset_ok(ref, "._/-") || *ref == '\0' ||
	    fl >= 128))
		return err_usage(e, "RIG_REF must be letters, digits, '.', "
		    "'_', '/', '-', not '%s'", ref);
	/* Every token grows by at most max(rl, fl) bytes. */
	cap = n + 2 + (n / 9 + 1) * (rl > fl ? rl : fl);
	buf = malloc(cap);
	if (buf == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n;) {
		if (i + 10 <= n && memcmp(ud + i, trepo, 10) == 0) {
			memcpy(buf + o, repo, rl);
			o += rl;
			i += 10;
		} else if (i + 9 <= n && memcmp(ud + i, tref, 9) == 0) {
			memcpy(buf + o, ref, fl);
			o += fl;
			i += 9;
		} else {
			buf[o++] = ud[i++];
		}
	}
	if (o == 0 || buf[o - 1] != '\n')
		buf[o++] = '\n';
	buf[o] = '\0';
	*out = buf;
	return 0;
}

void
mint_spec_free(struct mint_spec *s)
{
	incus_kv_free(&s->config);
	incus_dev_free(&s->devices);
	memset(s, 0, sizeof(*s));
}

int
mint_spec(const struct mint_plan *p, struct mint_spec *s, struct box_err *e)
{
	struct incus_kvs *c = &s->config;
	struct incus_kvs root = { 0 };
	int rc = 0;

	memset(s, 0, sizeof(*s));
#define SET(k, v) do { if (rc == 0) rc = incus_kv_set(c, (k), (v)); } while (0)
	SET(BOX_TAG, BOX_TAG_VALUE);
	SET("user.box.template", p->template_);
	SET("user.box.user", p->user);
	SET("user.box.schema", MINT_SCHEMA);
	SET("user.box.version", BOX_VERSION);
	SET("user.box.image", p->image);
	if (p->fingerprint != NULL)
		SET("user.box.image.fingerprint", p->fingerprint);
	SET("user.box.mode", p->vm ? "vm" : "container");
	SET("user.box.mode.asked", p->mode_asked);
	SET("user.box.created", p->created);
	SET("user.box.origin", "mint");
	if (p->owner != NULL)
		SET("user.box.owner", p->owner);
	if (p->egress != NULL)
		SET("user.box.egress", p->egress);
	if (p->idle_stop != NULL)
		SET("user.box.idle-stop", p->idle_stop);
	if (p->role != NULL && *p->role != '\0')
		SET("user.box.role", p->role);
	if (p->rig_repo != NULL) {
		SET("user.box.rig.repo", p->rig_repo);
		SET("user.box.rig.ref", p->rig_ref);
	}
	SET("limits.cpu", p->cpu);
	SET("limits.memory", p->memory);
	SET("cloud-init.user-data", p->user_data);
	if (p->vm)
		SET("security.secureboot", "false");
	else
		SET("security.nesting", "true");
	if (p->autostart)
		SET("boot.autostart", "true");
	if (p->vm || p->quota) {
		/* A VM's disk is a block device: its size is set here; a
		 * container's is a limit where the pool enforces one. */
		c = &root;
		SET("type", "disk");
		SET("path", "/");
		SET("pool", p->pool);
		SET("size", p->disk);
		if (rc == 0)
			rc = incus_dev_set(&s->devices, "root", &root);
		incus_kv_free(&root);
	}
#undef SET
	if (rc < 0) {
		mint_spec_free(s);
		return err_set(e, -E2BIG, "the mint request is too big");
	}
	s->profiles[0] = CONTRACT_PROFILE;
	s->n.name = p->name;
	s->n.target = p->target;
	s->n.type = p->vm ? "virtual-machine" : "container";
	s->n.profiles = s->profiles;
	s->n.config = &s->config;
	s->n.devices = &s->devices;
	s->n.source = INCUS_SRC_IMAGE;
	if (strncmp(p->image, "images:", 7) == 0) {
		s->n.server = MINT_IMAGES_URL;
		s->n.protocol = "simplestreams";
		s->n.alias = p->image + 7;
	} else {
		s->n.alias = p->image;
		s->n.fingerprint = p->fingerprint;
	}
	return 0;
}

int
mint_body(const struct mint_plan *p, char **body, struct box_err *e)
{
	struct mint_spec s;
	int rc;

	if ((rc = mint_spec(p, &s, e)) < 0)
		return rc;
	rc = incus_instance_new_body(&s.n, body, e);
	mint_spec_free(&s);
	return rc < 0 ? err_set(e, -E2BIG, "the mint request is too big") : 0;
}

void
mint_kv_init(struct mint_kv *kv_)
{
	memset(kv_, 0, sizeof(*kv_));
}

int
mint_kv_add(struct mint_kv *m, const char *k, const char *v)
{
	if (m->n == MINT_KV_MAX || strlen(k) >= sizeof(m->k[0]) ||
	    strlen(v) >= sizeof(m->v[0]))
		return -E2BIG;
	snprintf(m->k[m->n], sizeof(m->k[0]), "%s", k);
	snprintf(m->v[m->n], sizeof(m->v[0]), "%s", v);
	m->n++;
	return 0;
}

const char *const *
mint_kv_list(struct mint_kv *m)
{
	int i;

	for (i = 0; i < m->n; i++) {
		m->set[2 * i] = m->k[i];
		m->set[2 * i + 1] = m->v[i];
	}
	m->set[2 * m->n] = NULL;
	return m->set;
}

int
mint_clone_stamps(struct mint_kv *m, const char *now, const char *from)
{
	char owner[16];

	/* who made it: a non-root admin's `all` is their own boxes */
	snprintf(owner, sizeof(owner), "%u", (unsigned)getuid());
	mint_kv_init(m);
	if (mint_kv_add(m, "user.box.schema", MINT_SCHEMA) < 0 ||
	    mint_kv_add(m, "user.box.version", BOX_VERSION) < 0 ||
	    mint_kv_add(m, "user.box.created", now) < 0 ||
	    mint_kv_add(m, "user.box.origin", "clone") < 0 ||
	    mint_kv_add(m, "user.box.origin.from", from) < 0 ||
	    mint_kv_add(m, "user.box.mode.asked", "") < 0 ||
	    mint_kv_add(m, "user.box.owner", owner) < 0 ||
	    /* the source's secrets are its own: the copy is granted none */
	    mint_kv_add(m, SECRET_GRANT_KEY, "") < 0)
		return -E2BIG;
	return 0;
}

int
mint_import_stamps_of(struct mint_kv *m, const struct incus_kvs *cfg,
    const char *now)
{
	const char *tag = incus_kv_or(cfg, BOX_TAG, "");
	const char *old = incus_kv_or(cfg, CONTRACT_LEGACY_TAG, "");
	const char *count = incus_kv_or(cfg, "user.box.imported.count", "");
	char next[32];
	unsigned long long n = 0;
	size_t i;

	mint_kv_init(m);
	if (strcmp(tag, BOX_TAG_VALUE) != 0 &&
	    strcmp(old, BOX_TAG_VALUE) != 0 &&
	    mint_kv_add(m, BOX_TAG, BOX_TAG_VALUE) < 0)
		return -E2BIG;
	if (incus_kv_get(cfg, "user.box.imported") == NULL &&
	    (mint_kv_add(m, "user.box.imported", now) < 0 ||
	    mint_kv_add(m, "user.box.imported.by", BOX_VERSION) < 0))
		return -E2BIG;
	/* base 10, leading zeros fine; anything else counts as none */
	if (count[0] != '\0' && strspn(count, "0123456789") == strlen(count) &&
	    strlen(count) < 19)
		for (i = 0; count[i] != '\0'; i++)
			n = n * 10 + (unsigned)(count[i] - '0');
	snprintf(next, sizeof(next), "%llu", n + 1);
	if (mint_kv_add(m, "user.box.imported.last", now) < 0 ||
	    mint_kv_add(m, "user.box.imported.last.by", BOX_VERSION) < 0 ||
	    mint_kv_add(m, "user.box.imported.count", next) < 0)
		return -E2BIG;
	return 0;
}

void
mint_ready(const char *name, const char *t, char *buf, size_t cap)
{
	if (strcmp(t, "claude-box") == 0 || strcmp(t, "claude") == 0)
		snprintf(buf, cap, "ready — 'box shell %s'.  Log into Claude "
		    "inside: run 'claude', then /login.", name);
	else if (strcmp(t, "staging-box") == 0 || strcmp(t, "staging") == 0)
		snprintf(buf, cap, "ready — 'box shell %s'.\nbox: the tailnet "
		    "join stays operator-run (it needs a key box must never "
		    "see):\n  box shell %s    # then: sudo rig bootstrap "
		    "workload-server --hostname %s", name, name, name);
	else
		snprintf(buf, cap, "ready — 'box shell %s'.", name);
}
