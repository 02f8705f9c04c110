/*
 * import.c - the pipeline behind `box import <file> [--name <box>]`:
 * an export back into a box, on this host's terms:
 *   1. the file is checked against <file>.sha256 while it uploads (the
 *      hash rides along with the daemon's own write of the upload); a
 *      mismatch withholds the last bytes, so the daemon, which stores the
 *      whole body before it reads it, creates nothing.  A file the vet
 *      below cannot read is hashed first, on its own, so that a truncated
 *      file is called truncated.  A file without one (an `incus export`)
 *      is imported with a warning
 *   2. the whole file is read the way the daemon will read it and every
 *      instance and snapshot config inside is held against box's allowlist
 *      (box/life/vet.h, box/import/vet_export.h): anything a box may not have -
 *      privileges, raw.*, host paths, NICs, devices, a saved state - is
 *      named, each one, and refused before anything is created.  Once
 *      the name is known (--name, or a read of the file's head finds the
 *      one recorded; the whole read must find the same) this runs in a
 *      child beside the upload (box/import/vet_bg.h) and a refusal withholds the
 *      last bytes, as a mismatched sum does; else it runs before
 *   3. the name: --name, else the one recorded inside (backup/index.yaml);
 *      any instance of that name already there is a refusal
 *   4. the upload, streamed: POST /1.0/instances (application/octet-stream,
 *      X-Incus-name, X-Incus-pool of the box-net profile's root disk)
 *   5. this host's truth: the tag if missing, the import stamps (never the
 *      mint stamp), the box-net profile alone, no volatile MAC addresses
 *      (a second import beside the first would otherwise share them and
 *      fail to start), no doors or pinned address of the source's, a
 *      machine identity of its own, and an address nobody else holds
 *   6. before it is ever started: the instance and every snapshot read
 *      back from the daemon and held against the same allowlist (a YAML
 *      reader that disagreed with the daemon's cannot let anything by)
 *   7. a container's new machine identity as a first-start template
 *      (box/import/import_id.h) when nothing in the file is planted on the paths
 *      the daemon writes through; else through the files API
 * Any failure after the upload removes what was imported.
 *
 * --force replaces a box of that name, but only after a yes on a terminal
 * (no terminal: refused, exit 2; BOX_YES is not read, as for rm and
 * restore).  The new one goes through every step above under a temporary
 * name first, booted and checked; only then is the old box deleted and
 * the new one renamed into its place and started again.  So a file that
 * turns out bad, a vet that refuses it or a box that will not come up
 * costs nothing: the old box is still there, untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "box/import/backup.h"
#include "box/box.h"
#include "box/life/discard.h"
#include "box/door.h"
#include "box/each.h"
#include "box/egress/egress_sync.h"
#include "box/import/import.h"
#include "box/secret/secret.h"
#include "box/import/import_id.h"
#include "box/import/import_mark.h"
#include "box/life/life.h"
#include "box/life/up.h"
#include "box/edit.h"
#include "box/narrate.h"
#include "box/life/waits.h"
#include "box/life/mint.h"
#include "box/import/reframe.h"
#include "box/remote/tier.h"
#include "box/life/vet.h"
#include "box/import/vet_bg.h"
#include "box/import/vet_export.h"
#include "incus/api.h"
#include "incus/backup.h"
#include "incus/image.h"
#include "incus/instance.h"
#include "incus/kv.h"
#include "incus/storage.h"
#include "incus/stream.h"
#include "util/clock.h"
#include "util/gzstream.h"
#include "util/progress.h"
#include "util/prompt.h"
#include "util/sha256.h"
#include "util/text.h"

struct src {
	int fd;
	long long done, total;
	struct progress p;
	const char *want;	/* the recorded SHA-256 to hash against, or NULL */
	struct sha256 sha;
	int bad;		/* the bytes did not match it */
	struct vet_bg *bg;	/* the vet running beside, or NULL */
	struct vet_verdict *vd;	/* its verdict, once asked */
	const char *recorded;	/* the name the head read found, or NULL */
	int vetbad;		/* it refused (or gave none: vd->e says) */
};

static int
verdict_bad(const struct vet_verdict *vd)
{
	return vd->rc < 0 || vd->v.n > 0 || vd->v.more > 0;
}

static int
sums_match(struct sha256 *sha, const char *want)
{
	unsigned char d[32];
	char got[65];

	sha256_out(sha, d);
	backup_hex(d, got);
	return strcmp(got, want) == 0;
}

static ssize_t
from_file(void *ctx, void *buf, size_t n)
{
	struct src *s = ctx;
	char a[32], b[32], line[96];
	ssize_t r;

	do
		r = read(s->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	s->done += r;
	if (s->bg != NULL && r > 0)
		vet_bg_feed(s->bg, buf, (size_t)r);	/* the bytes it sends */
	if (s->want != NULL && r > 0) {
		sha256_update(&s->sha, buf, (size_t)r);
		if (s->done >= s->total && !sums_match(&s->sha, s->want)) {
			/* Withhold the last bytes: the daemon, which stores
			 * the whole upload before it reads any of it, gets a
			 * short body and creates nothing. */
			s->bad = 1;
			return -EBADMSG;
		}
	}
	if (s->bg != NULL && r > 0 && s->done >= s->total) {
		/* the vet's verdict before the last bytes, withheld the same
		 * way when it refuses */
		struct box_err we;

		err_clear(&we);
		if (vet_bg_wait(s->bg, s->vd, &we) < 0) {
			memset(s->vd, 0, sizeof(*s->vd));
			s->vd->rc = we.code;
			s->vd->e = we;
			s->vetbad = 1;
		} else if (verdict_bad(s->vd)) {
			s->vetbad = 1;
		} else if (s->recorded != NULL &&
		    strcmp(s->vd->name, s->recorded) != 0) {
			/* the whole read must agree with the head read */
			s->vd->rc = -EBOX_PROTO;
			err_clear(&s->vd->e);
			err_set(&s->vd->e, -EBOX_PROTO, "the export records "
			    "two names for its instance; nothing was "
			    "imported");
			s->vetbad = 1;
		}
		if (s->vetbad)
			return -EPERM;
	}
	progress_bytes(a, sizeof(a), s->done);
	progress_bytes(b, sizeof(b), s->total);
	snprintf(line, sizeof(line), "%s of %s (%lld%%)", a, b,
	    s->total > 0 ? s->done * 100 / s->total : 100);
	progress_note(&s->p, line);
	return r;
}

static int
sum_refusal(const char *file, struct box_err *e)
{
	err_clear(e);
	err_set(e, -EBADMSG, "%s does not match its recorded SHA-256 — it is "
	    "truncated or corrupted; nothing was imported", file);
	err_fix(e, "export the box again, or find the intact copy");
	return -EBADMSG;
}

/*
 * The recorded SHA-256 (<file>.sha256) into want; 0, or 1 when there is
 * none (said: an `incus export` has none).  The file is hashed as it
 * uploads (from_file); only a file the vet could not read is hashed on
 * its own first, so that a truncated file is called truncated.
 */
static int
read_sum(const char *file, char want[65], struct box_err *e)
{
	int rc = backup_sidecar_read(file, want, e);

	if (rc == -ENOENT) {
		life_say("warning: no %s.sha256 beside it, so box cannot tell "
		    "whether the file is whole; importing anyway", file);
		return 1;
	}
	return rc;
}

static int
check_sum(const char *file, int fd, long long size, const char *want,
    struct box_err *e)
{
	unsigned char buf[1 << 16];
	struct src s;
	ssize_t n;

	memset(&s, 0, sizeof(s));
	s.fd = fd;
	s.total = size;
	progress_start(&s.p, "checking the file against its SHA-256");
	sha256_init(&s.sha, -1);
	while ((n = from_file(&s, buf, sizeof(buf))) > 0)
		sha256_update(&s.sha, buf, (size_t)n);
	progress_clear(&s.p);
	if (n < 0)
		return err_set(e, (int)n, "reading %s: %s", file,
		    err_str((int)n));
	if (!sums_match(&s.sha, want))
		return sum_refusal(file, e);
	if (lseek(fd, 0, SEEK_SET) < 0)
		return err_set(e, -errno, "rewinding %s", file);
	return 0;
}

/*
 * A restricted project's upload (box/import/reframe.h): the file read, hashed and
 * vetted exactly as from_file does for any upload, unpacked here,
 * re-framed as an image of the container's root filesystem and pushed
 * chunked to /1.0/images.  The last chunk goes only after the hash and the
 * vet said yes (from_file's last read); until then the daemon has no whole
 * body.
 */
struct rf {
	struct src *s;
	struct stream_push k;
	struct reframe *r;
	struct box_err *e;
};

static int
rf_out(void *ctx, const void *p, size_t n)
{
	struct rf *f = ctx;

	return stream_push_write(&f->k, p, n, f->e);
}

static ssize_t
rf_src(void *ctx, unsigned char *buf, size_t cap)
{
	return from_file(((struct rf *)ctx)->s, buf, cap);
}

static int
rf_sink(void *ctx, const unsigned char *p, size_t n)
{
	return reframe_feed(((struct rf *)ctx)->r, p, n);
}

#define IMPORT_CHUNK	(64u << 10)	/* a plain tar's read size */

static int
push_image(struct incus *c, struct src *s, struct reframe *r, char *op,
    size_t opcap, struct box_err *e)
{
	unsigned char magic[2] = { 0, 0 }, *buf;
	struct utsname u;
	char mark[IMPORT_MARK_MAX];
	struct rf f;
	ssize_t n;
	int rc;

	memset(&f, 0, sizeof(f));
	f.s = s;
	f.r = r;
	f.e = e;
	if (pread(s->fd, magic, 2, 0) != 2)
		return err_set(e, -EIO, "reading the file's first bytes");
	if (uname(&u) < 0)
		return err_set(e, -errno, "uname: %s", strerror(errno));
	if ((rc = incus_image_push_begin(c, &f.k, e)) < 0)
		return rc;
	reframe_init(r, rf_out, &f, u.machine, (long long)time(NULL));
	if (import_mark_own(mark, sizeof(mark)) == 0)
		r->mark = mark;	/* swept if this process dies holding it */
	if (magic[0] == 0x1f && magic[1] == 0x8b)
		rc = gz_stream(rf_src, &f, rf_sink, &f);
	else if ((buf = malloc(IMPORT_CHUNK)) == NULL)
		rc = err_set(e, -ENOMEM, "out of memory");
	else {
		while ((n = from_file(s, buf, IMPORT_CHUNK)) > 0 &&
		    (rc = reframe_feed(r, buf, (size_t)n)) == 0)
			;
		if (n < 0)
			rc = (int)n;
		free(buf);
	}
	if (rc == 0)
		rc = reframe_end(r);
	if (rc == 0 && r->members == 0)
		rc = err_set(e, -EPROTONOSUPPORT, "a granted user imports "
		    "container exports only (this one has no "
		    "backup/container/rootfs)");
	if (rc == 0)
		rc = incus_backup_import_end(&f.k, op, opcap, e);
	else {
		stream_push_abort(&f.k);
		/* a withheld body (the hash, the vet) is worded by the
		 * caller */
		if (e->code == 0 && !s->bad && !s->vetbad)
			err_set(e, rc, "re-framing the export as an image: %s",
			    err_str(rc));
	}
	/* u and mark were this frame's: the reframe holds neither after */
	r->arch = "";
	r->mark = NULL;
	return rc;
}

/*
 * The box from the uploaded image (fp), under target: the box-net
 * profile, the container's own config from the file but its volatile.*
 * keys, its root disk's size.  Then the image goes; the box made from it
 * is re-homed and vetted as any import.
 */
static int
from_image(struct incus *c, struct reframe *r, const char *target,
    const char *pool, const char *fp, struct box_err *e)
{
	static const char *const profiles[] = { CONTRACT_PROFILE, NULL };
	struct incus_instance_new spec;
	struct incus_kvs cfg, root;
	struct incus_devices dev;
	struct incus_reply rep;
	struct incus_op iop;
	struct box_err le;
	char size[64];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	memset(&root, 0, sizeof(root));
	memset(&dev, 0, sizeof(dev));
	rc = r->ct == NULL ? -EBOX_PROTO : vet_export_ct_config(r->ct, r->ctn,
	    &cfg, size, sizeof(size));
	if (rc < 0) {
		err_set(e, rc, "the export's backup/container/backup.yaml "
		    "could not be read");
		goto out;
	}
	if (size[0] != '\0' && ((rc = incus_kv_set(&root, "type", "disk")) < 0 ||
	    (rc = incus_kv_set(&root, "path", "/")) < 0 ||
	    (rc = incus_kv_set(&root, "pool", pool)) < 0 ||
	    (rc = incus_kv_set(&root, "size", size)) < 0 ||
	    (rc = incus_dev_set(&dev, "root", &root)) < 0)) {
		err_set(e, rc, "out of memory");
		goto out;
	}
	memset(&spec, 0, sizeof(spec));
	spec.name = target;
	spec.type = "container";
	spec.profiles = profiles;
	spec.config = &cfg;
	spec.devices = &dev;
	spec.source = INCUS_SRC_IMAGE;
	spec.fingerprint = fp;
	if ((rc = incus_instance_create_begin(c, &spec, &iop, e)) == 0) {
		rc = life_wait_op(c, iop.url, clock_ms() + IMPORT_RESTORE_S *
		    1000LL, NULL, &rep, e);
		incus_reply_free(&rep);
	}
	if (rc == 0 && r->snaps > 0)
		life_say("left behind %u snapshot%s: a granted user's import "
		    "makes the box from an image of its current disk (Incus "
		    "refuses a backup restore in a restricted project)",
		    r->snaps, r->snaps == 1 ? "" : "s");
out:
	err_clear(&le);
	incus_image_delete(c, fp, LIFE_OP_S, &le);
	incus_kv_free(&cfg);
	incus_kv_free(&root);
	incus_dev_free(&dev);
	return rc;
}

static int
upload(struct incus *c, const char *file, int fd, long long size,
    const char *want, struct vet_bg *bg, struct vet_verdict *vd,
    const char *recorded, int *vetbad, const char *name, const char *pool,
    struct reframe *img, char *op, size_t opcap, struct box_err *e)
{
	struct src s;
	int rc;

	memset(&s, 0, sizeof(s));
	s.fd = fd;
	s.total = size;
	s.want = want;
	s.bg = bg;
	s.vd = vd;
	s.recorded = recorded;
	sha256_init(&s.sha, -1);
	progress_start(&s.p, "uploading");
	if (img != NULL)
		rc = push_image(c, &s, img, op, opcap, e);
	else
		rc = incus_backup_import(c, name, pool, size, from_file, &s,
		    op, opcap, e);
	progress_clear(&s.p);
	*vetbad = s.vetbad;
	if (s.bad)
		return sum_refusal(file, e);
	if (s.vetbad)
		return -EPERM;	/* the caller words the vet's refusal */
	if (rc < 0)
		err_context(e, "uploading %s", file);
	return rc;
}

/*
 * Provenance is this host's word: when and by what a box was made and
 * imported.  A file's own stamps are claims (it can say anything its
 * grammar allows: box/life/vet.c), kept as user.box.claimed.<stamp> and shown
 * as such; the stamps themselves are written here.
 */
#define CLAIMED	"user.box.claimed."

static const char *const provenance[] = { "created", "version", "origin",
    "origin.from", "imported", "imported.by", "imported.last",
    "imported.last.by", "imported.count", NULL };

struct stamps {
	struct mint_kv host;
	char k[10][48], v[10][192];
	const char *set[2 * (MINT_KV_MAX + 10 + 4) + 1];
};

static int
provenance_of(struct stamps *st, const struct incus_kvs *cfg, const char *now)
{
	static const struct incus_kvs none = { 0 };
	const char *const *h;
	size_t n = 0, i, c = 0;
	int rc;

	if ((rc = mint_import_stamps_of(&st->host, &none, now)) < 0)
		return rc;
	for (h = mint_kv_list(&st->host); *h != NULL; h += 2) {
		st->set[n++] = h[0];
		st->set[n++] = h[1];
	}
	st->set[n++] = "user.box.created";
	st->set[n++] = now;
	st->set[n++] = "user.box.version";
	st->set[n++] = BOX_VERSION;
	st->set[n++] = "user.box.origin";
	st->set[n++] = "import";
	st->set[n++] = "user.box.origin.from";
	st->set[n++] = "";
	for (i = 0; provenance[i] != NULL; i++) {
		char key[64];
		const char *was;

		snprintf(key, sizeof(key), "user.box.%s", provenance[i]);
		if ((was = incus_kv_get(cfg, key)) == NULL || *was == '\0')
			continue;
		snprintf(st->k[c], sizeof(st->k[c]), CLAIMED "%s",
		    provenance[i]);
		snprintf(st->v[c], sizeof(st->v[c]), "%s", was);
		st->set[n++] = st->k[c];
		st->set[n++] = st->v[c];
		c++;
	}
	st->set[n] = NULL;
	return 0;
}

/*
 * Incus's own MAC addresses and host-side interface names (a restored
 * box carries its snapshot's), our pin key and the secret grants (the
 * file must not grant itself: an import is granted nothing) stay behind;
 * so does the "create" trigger the daemon arms on a box made from an
 * image (a granted user's import: the image has no templates, and the
 * vet refuses the key; without it nothing is rendered), and that image's
 * mark.
 */
static int
drop_key(const char *key)
{
	size_t n = strlen(key);

	if (door_source_key(key) || secret_source_key(key) ||
	    strncmp(key, CLAIMED, sizeof(CLAIMED) - 1)
	    == 0 || strcmp(key, "volatile.apply_template") == 0 ||
	    strcmp(key, "image." IMPORT_MARK_PROP) == 0)
		return 1;
	return strncmp(key, "volatile.", 9) == 0 && n > 16 &&
	    (strcmp(key + n - 7, ".hwaddr") == 0 ||
	    strcmp(key + n - 10, ".host_name") == 0);
}

/* The refusal: one message naming every item (listed above it too when
 * the list is longer than a message holds). */
static int
refuse_items(const struct vet *v, int after_upload, struct box_err *e)
{
	char list[VET_MAX_ITEMS * (VET_ITEM + 2) + 32];
	size_t need = vet_list(v, list, sizeof(list));
	int i;

	if (need + 64 > sizeof(e->msg)) {
		for (i = 0; i < v->n; i++)
			life_say("refused: %s", v->item[i]);
		err_set(e, -EPERM, "the export asks for what a box may not "
		    "have: %d things, listed above", v->n + v->more);
	} else {
		err_set(e, -EPERM, "the export asks for what a box may not "
		    "have: %s", list);
	}
	err_fix(e, "%s; import only exports of boxes (box export), or "
	    "remove those keys and devices from the instance it came from",
	    after_upload ? "what was imported has been removed" :
	    "nothing was imported");
	return -EPERM;
}

/*
 * What the daemon holds, before the box is ever started: the instance as
 * re-homed and every snapshot (a restore brings a snapshot's config
 * back).  Parsed by the daemon, so a file our reader saw differently
 * cannot get past this.
 */
static int
vet_held(struct incus *c, const char *name, struct box_err *e)
{
	struct incus_backup_index ix;
	struct vet v;
	int rc;

	/* the vet reads the daemon's own bytes, as the daemon sent them */
	rc = incus_backup_index_get(c, name, &ix, e);
	if (rc < 0) {
		err_context(e, "the daemon's record of %s", name);
		return rc;
	}
	vet_init(&v);
	rc = vet_daemon_index(&ix, &v);
	if (rc < 0)
		err_set(e, rc, "the daemon's record of %s could not be "
		    "judged", name);
	else if (v.n > 0 || v.more > 0)
		rc = refuse_items(&v, 1, e);
	incus_backup_index_free(&ix);
	return rc;
}

static int
rehome(struct incus *c, const char *name, int *vm, struct box_err *e)
{
	static const char *const profiles[] = { CONTRACT_PROFILE, NULL };
	struct incus_instance in;
	struct life_edit ed;
	struct stamps kv;
	char now[32], had[256] = "";
	size_t k;
	int rc;

	if ((rc = incus_instance_get(c, name, 0, &in, e)) < 0)
		return rc;
	text_utc(now, sizeof(now), time(NULL));
	*vm = strcmp(in.type, "virtual-machine") == 0;
	for (k = 0; k < in.nprofiles; k++)
		if (strlen(had) + strlen(in.profiles[k]) + 2 < sizeof(had))
			snprintf(had + strlen(had), sizeof(had) - strlen(had),
			    "%s%s", had[0] ? "," : "", in.profiles[k]);
	rc = provenance_of(&kv, &in.config, now);
	incus_instance_free(&in);
	if (rc < 0)
		return err_set(e, rc, "import stamps too long");
	memset(&ed, 0, sizeof(ed));
	ed.set = kv.set;
	ed.drop_cfg = drop_key;
	ed.drop_device = door_source_only;
	ed.profiles = profiles;
	rc = life_edit(c, name, &ed, e);
	if (rc < 0)
		return rc;
	if (strcmp(had, CONTRACT_PROFILE) != 0)
		life_say("re-homed onto the %s profile (the file said '%s')",
		    CONTRACT_PROFILE, had[0] ? had : "none");
	if (ed.dropped > 0)
		life_say("left behind %d device%s that were its source's alone "
		    "(doors, a pinned address); open doors again with box "
		    "expose", ed.dropped, ed.dropped == 1 ? "" : "s");
	return 0;
}

/* The temporary name a replacement is imported under. */
static int
temp_name(struct incus *c, const char *name, char *tmp, size_t cap,
    struct box_err *e)
{
	int rc;

	snprintf(tmp, cap, "%.40s-import-%u", name,
	    (unsigned)getpid() % 100000);
	if ((rc = life_exists(c, tmp, e)) > 0)
		return err_set(e, -EEXIST, "the temporary name %s is taken",
		    tmp);
	return rc;
}

/*
 * The new box (booted under tmp) takes the old one's place: stopped,
 * the old box deleted (its doors' ACL rules with it), renamed, started
 * and waited for again.  *stage names the step that failed.
 */
static int
replace(struct incus *c, const char *tmp, const char *name,
    const char **stage, char *addr, size_t cap, struct box_err *e)
{
	struct progress p;
	long long deadline;
	int rc, forced;

	*stage = "stop the new copy";
	if ((rc = life_stop(c, tmp, LIFE_GRACE_S, &forced, e)) < 0)
		return rc;
	*stage = "remove the old box";
	if ((rc = box_remove(c, name, 0, e)) < 0)
		return rc;
	life_say("removed the old %s (the new one had imported cleanly)", name);
	*stage = "rename";
	if ((rc = incus_instance_rename(c, tmp, name, LIFE_OP_S, e)) < 0)
		return rc;
	*stage = "egress";
	if ((rc = egress_sync_box(c, name, e)) < 0)
		return rc;
	*stage = "start";
	if ((rc = life_state(c, name, "start", 0, 0, e)) < 0)
		return rc;
	deadline = clock_ms() + LIFE_OP_S * 1000LL;
	progress_start(&p, "waiting for it to answer");
	*stage = "agent";
	rc = life_wait_agent(c, name, deadline, &p, e);
	if (rc == 0) {
		*stage = "address";
		rc = life_wait_address(c, name, deadline, &p, addr, cap, e);
	}
	progress_clear(&p);
	return rc;
}

/*
 * The most an import may unpack onto the pool (a 2.2 MiB export put a
 * 256 MiB file there): BOX_IMPORT_MAX_MB when set, else the pool's free
 * space when the daemon says, else IMPORT_MAX_MB.
 */
#define IMPORT_MAX_MB	(64LL << 10)	/* 64 GiB */

static unsigned long long
unpack_bound(struct incus *c, const char *pool)
{
	const char *s = getenv("BOX_IMPORT_MAX_MB");
	struct box_err le;
	long long avail;
	long mb;

	if (s != NULL && text_uint(s, 1, 1L << 30, &mb) == 0)
		return (unsigned long long)mb << 20;
	err_clear(&le);
	if (c != NULL && pool != NULL &&
	    incus_pool_space(c, pool, &avail, &le) == 0 && avail >= 0)
		return (unsigned long long)avail;
	return (unsigned long long)IMPORT_MAX_MB << 20;
}

/* The vet, here and now, from the one descriptor (its name is needed
 * first, or a verdict before the question). */
static void
vet_now(int fd, unsigned long long bound, struct vet_verdict *vd)
{
	memset(vd, 0, sizeof(*vd));
	err_clear(&vd->e);
	vet_init(&vd->v);
	vd->v.bound = bound;
	vd->rc = vet_export_fd(fd, 0, &vd->v, vd->name, sizeof(vd->name),
	    &vd->e);
}

/*
 * The file, opened once: never through a symlink, never blocking on a
 * FIFO or a device, a regular file, and everything read from this one
 * descriptor (the vet, the hash and the upload: box/import/vet_bg.h), so a
 * file swapped under box after this cannot reach the daemon.
 */
static int
open_export(const char *file, struct stat *st, struct box_err *e)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK),
	    fl;

	if (fd < 0) {
		if (errno == ELOOP)
			return err_set(e, -ELOOP, "%s is a symbolic link; box "
			    "imports only the file itself (name the file it "
			    "points to)", file);
		if (errno == ENOENT)
			return err_set(e, -ENOENT, "no such file: %s", file);
		return err_set(e, -errno, "%s: %s", file, strerror(errno));
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return err_set(e, -EINVAL, "%s is not a regular file; box "
		    "imports an export file", file);
	}
	if ((fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		return err_set(e, -errno, "%s: %s", file, strerror(errno));
	}
	return fd;
}

/*
 * The vet's verdict as the refusal it is, or 0.  An unreadable file is
 * hashed on its own first (fd >= 0 and a recorded sum), so that a
 * truncated file is called truncated; beside the upload the hash already
 * said the file is whole.
 */
static int
verdict_refuse(struct vet_verdict *vd, const char *file, int fd,
    long long size, const char *want, struct box_err *e)
{
	if (vd->rc < 0) {
		struct box_err se;

		*e = vd->e;
		err_clear(&se);
		if (fd >= 0 && want != NULL &&
		    check_sum(file, fd, size, want, &se) == -EBADMSG)
			*e = se;
		return e->code < 0 ? e->code : -EBOX_PROTO;
	}
	if (vd->v.n > 0 || vd->v.more > 0)
		return refuse_items(&vd->v, 0, e);
	return 0;
}

/* A withheld upload should have created nothing: make sure. */
static void
remove_half(struct incus *c, const char *target)
{
	box_discard(c, target, NULL, NULL);
}

/* What an import's stages share (on the heap: the verdict and the
 * re-framer are large). */
struct imp {
	const struct box_import_req *qr;
	const char *file, *as_name, *target, *stage;
	char name[BOX_NAME_MAX + 64], recorded[BOX_NAME_MAX + 64], pool[64],
	    op[160], addr[64], tmp[BOX_NAME_MAX], want[65];
	char fp[INCUS_IMAGE_FP];
	struct incus c;
	struct stat st;
	struct vet_verdict vd;
	struct reframe rf;
	struct reframe *img;	/* &rf for a granted user, else NULL */
	struct vet_bg bg;
	int fd, sum, overlap, replacing, posted, vetbad, vm, swapped;
};

/* The file opened, its sum read, and the name it imports under: --name,
 * else the one the file records (read from its head, or from a vet run
 * first when the head does not say). */
static int
imp_name(struct imp *ip, struct box_err *e)
{
	const char *file = ip->file;
	int rc;

	if ((ip->fd = open_export(file, &ip->st, e)) < 0)
		return ip->fd;
	if ((ip->sum = read_sum(file, ip->want, e)) < 0)
		return ip->sum;
	/* The vet runs over the upload's own bytes (box/import/vet_bg.h).
	 * When the name is not known first (--name, or the one a read of
	 * the file's head finds; the whole vet must find the same) it also
	 * runs once before, for the name. */
	ip->overlap = ip->st.st_size > 0;
	if (!ip->overlap || (ip->as_name == NULL && vet_export_name(ip->fd,
	    ip->recorded, sizeof(ip->recorded)) < 0)) {
		vet_now(ip->fd, unpack_bound(NULL, NULL), &ip->vd);
		if ((rc = verdict_refuse(&ip->vd, file, ip->fd,
		    (long long)ip->st.st_size, ip->sum == 0 ? ip->want : NULL,
		    e)) < 0)
			return rc;
		snprintf(ip->recorded, sizeof(ip->recorded), "%s",
		    ip->vd.name);
	}
	if (ip->as_name != NULL)
		snprintf(ip->name, sizeof(ip->name), "%s", ip->as_name);
	else if (ip->recorded[0] != '\0')
		snprintf(ip->name, sizeof(ip->name), "%s", ip->recorded);
	else {
		rc = err_set(e, -ENOENT, "%s names no instance (no name in "
		    "backup/index.yaml)", file);
		err_fix(e, "name the box: box import %s --name <box>", file);
		return rc;
	}
	return box_new_name_ok(ip->name, ip->as_name != NULL ? "" : " (it "
	    "is the one recorded in the file; pick one with --name)", e);
}

/* An existing box of that name is replaced only with --force and a yes,
 * after the file's verdict: the new one goes in under a temporary name. */
static int
imp_replace_ask(struct imp *ip, struct box_err *e)
{
	const char *file = ip->file, *name = ip->name;
	struct box_info old;
	char q[400];
	int rc;

	if (ip->overlap) {
		/* the verdict before the question (the upload's own bytes
		 * are vetted again as they go) */
		vet_now(ip->fd, unpack_bound(&ip->c, ip->pool), &ip->vd);
		if ((rc = verdict_refuse(&ip->vd, file, ip->fd,
		    (long long)ip->st.st_size, ip->sum == 0 ? ip->want : NULL,
		    e)) < 0)
			return rc;
		if (ip->as_name == NULL && strcmp(ip->vd.name,
		    ip->recorded) != 0)
			return err_set(e, -EBOX_PROTO, "the export records two "
			    "names for its instance; nothing was imported");
	}
	/* only a box is ever replaced, and only on a yes */
	if ((rc = box_resolve(&ip->c, name, &old, e)) < 0)
		return rc;
	snprintf(q, sizeof(q), "replace box %s (%s) with the one in %s — %s "
	    "and all its snapshots are deleted once the new one has imported "
	    "and booted", name, old.status, file, name);
	if ((rc = consent_ask(q, NULL, e)) < 0) {
		if (rc == -ENOTTY)
			err_fix(e, "run it on a terminal, or remove the old one "
			    "first: box rm %s --force", name);
		return rc;
	}
	if ((rc = temp_name(&ip->c, name, ip->tmp, sizeof(ip->tmp), e)) < 0)
		return rc;
	ip->target = ip->tmp;
	return 0;
}

/* Before anything is sent: the tier's gate, the stack, what killed
 * imports left, the vet started beside the upload, the name free (or
 * replaced on a yes). */
static int
imp_gate(struct imp *ip, struct box_err *e)
{
	int rc;

	if ((rc = tier_mint_gate(&ip->c, e)) < 0 ||
	    (rc = life_require_stack(&ip->c, ip->pool, sizeof(ip->pool),
	    e)) < 0)
		return rc;
	if (ip->img != NULL)
		import_sweep(&ip->c);	/* what killed imports left */
	if (ip->overlap && (rc = vet_bg_start(&ip->bg, unpack_bound(&ip->c,
	    ip->pool), e)) < 0)
		return rc;
	if ((rc = life_exists(&ip->c, ip->name, e)) < 0)
		return rc;
	if (rc > 0 && !ip->qr->force) {
		rc = err_set(e, -EEXIST, "an instance named %s already exists",
		    ip->name);
		err_fix(e, "import under another name: box import %s --name "
		    "<new>; or replace it (asks first): box import %s --force",
		    ip->file, ip->file);
		return rc;
	}
	ip->replacing = rc > 0;
	ip->target = ip->name;
	if (ip->replacing && (rc = imp_replace_ask(ip, e)) < 0)
		return rc;
	if (strpbrk(ip->pool, "\r\n") != NULL)
		return err_set(e, -EINVAL, "odd pool name");
	return 0;
}

/* The upload, vetted as it goes: a bad verdict withholds its end
 * (ip->vetbad), and then the daemon holds nothing. */
static int
imp_upload(struct imp *ip, struct box_err *e)
{
	int rc;

	life_catch_signals();
	if (ip->replacing)
		life_say("importing %s as %s first (%s stays as it is until "
		    "the new one is up) ...", ip->file, ip->target, ip->name);
	else
		life_say("importing %s as %s ...", ip->file, ip->name);
	ip->stage = "upload";
	rc = upload(&ip->c, ip->file, ip->fd, (long long)ip->st.st_size,
	    ip->sum == 0 ? ip->want : NULL, ip->overlap ? &ip->bg : NULL,
	    &ip->vd, ip->as_name != NULL ? NULL : ip->recorded, &ip->vetbad,
	    ip->target, ip->pool, ip->img, ip->op, sizeof(ip->op), e);
	if (ip->vetbad)
		return rc;
	/* -EBADMSG too: the daemon should hold nothing: make sure */
	if (rc < 0 && rc != -EBADMSG)
		return rc;
	ip->posted = 1;
	if (rc < 0)
		return rc;
	if (ip->overlap && ip->bg.pid > 0)
		/* every byte went without the verdict: cannot be, but never
		 * let it by */
		return err_set(e, -EIO, "the upload ended before the vet's "
		    "verdict was read");
	return 0;
}

/* What the daemon unpacked, made a box of this host: waited for, created
 * from the image (granted), re-stamped, vetted as held, its identity and
 * egress, up with an address of its own, and swapped in when replacing. */
static int
imp_settle(struct imp *ip, struct box_err *e)
{
	struct incus_reply r;
	struct progress p;
	int rc;

	ip->stage = "restore";
	progress_start(&p, "unpacking on the daemon");
	rc = life_wait_op(&ip->c, ip->op, clock_ms() + IMPORT_RESTORE_S *
	    1000LL, &p, &r, e);
	progress_clear(&p);
	if (rc == 0 && ip->img != NULL)
		rc = incus_image_op_fp(&r, ip->fp, e);
	incus_reply_free(&r);
	if (rc < 0)
		return rc;
	ip->stage = "create";
	if (ip->img != NULL && (rc = from_image(&ip->c, &ip->rf, ip->target,
	    ip->pool, ip->fp, e)) < 0)
		return rc;
	ip->stage = "re-stamp";
	if ((rc = rehome(&ip->c, ip->target, &ip->vm, e)) < 0)
		return rc;
	ip->stage = "vet";
	if ((rc = vet_held(&ip->c, ip->target, e)) < 0)
		return rc;
	if (!ip->vm && ip->vd.v.id_template) {
		ip->stage = "identity";
		if ((rc = import_id_template(&ip->c, ip->target, e)) < 0)
			return rc;
	}
	ip->stage = "egress";
	if ((rc = egress_sync_box(&ip->c, ip->target, e)) < 0)
		return rc;
	progress_start(&p, "");
	rc = life_copy_up(&ip->c, ip->target, ip->vm, ip->vd.v.id_template !=
	    0, clock_ms() + LIFE_OP_S * 1000LL, &p, &ip->stage, ip->addr,
	    sizeof(ip->addr), e);
	progress_clear(&p);
	if (rc < 0)
		return rc;
	if (ip->replacing) {
		ip->swapped = 1;
		return replace(&ip->c, ip->tmp, ip->name, &ip->stage, ip->addr,
		    sizeof(ip->addr), e);
	}
	return 0;
}

/* A failed stage names itself, and says where the boxes stand. */
static void
imp_failed(struct imp *ip, struct box_err *e)
{
	const char *name = ip->name, *tmp = ip->tmp;

	err_context(e, "importing %s: stage '%s' failed", name, ip->stage);
	if (ip->swapped) {
		struct box_err le;
		int old_there, tmp_there;

		err_clear(&le);
		old_there = life_exists(&ip->c, name, &le) == 1 &&
		    life_exists(&ip->c, tmp, &le) == 1;
		tmp_there = life_exists(&ip->c, tmp, &le) == 1;
		if (old_there)
			err_fix(e, "the old %s is untouched; the new copy is "
			    "%s (box rm %s --force)", name, tmp, tmp);
		else
			err_fix(e, "the old %s is gone (the new one had "
			    "imported cleanly); the new one is %s: box start "
			    "%s", name, tmp_there ? tmp : name, tmp_there ?
			    tmp : name);
	} else if (ip->posted) {
		box_discard(&ip->c, ip->target, "half-imported", NULL);
		if (ip->replacing)
			life_say("%s is untouched", name);
	}
}

int
box_import(const struct box_import_req *qr, struct box_import_out *res,
    struct box_err *e)
{
	struct imp *ip = calloc(1, sizeof(*ip));
	int rc, connected = 0;

	memset(res, 0, sizeof(*res));
	if (ip == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	ip->qr = qr;
	ip->file = qr->file;
	ip->as_name = qr->name;
	ip->stage = "checks";
	ip->fd = -1;
	ip->bg.pid = 0;
	ip->bg.fd = -1;
	ip->bg.feed = -1;
	ip->img = tier_get() == TIER_RESTRICTED ? &ip->rf : NULL;
	if ((rc = imp_name(ip, e)) < 0 || (rc = incus_init(&ip->c, e)) < 0)
		goto out;
	connected = 1;
	if ((rc = imp_gate(ip, e)) < 0)
		goto out;
	rc = imp_upload(ip, e);
	if (ip->vetbad) {
		/* withheld: the daemon should hold nothing; make sure */
		rc = verdict_refuse(&ip->vd, ip->file, -1, 0, NULL, e);
		remove_half(&ip->c, ip->target);
		goto out;
	}
	if (rc == 0)
		rc = imp_settle(ip, e);
	if (rc < 0) {
		imp_failed(ip, e);
		goto out;
	}
	life_say("imported %s at %s — auth state (agent logins, git "
	    "credentials) came back with it, by design", ip->name, ip->addr);
	snprintf(res->name, sizeof(res->name), "%s", ip->name);
out:
	if (connected) {
		reframe_free(&ip->rf);
		vet_bg_cancel(&ip->bg);
		incus_close(&ip->c);
	}
	if (ip->fd >= 0)
		close(ip->fd);
	free(ip);
	return rc;
}
