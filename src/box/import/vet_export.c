/*
 * vet_export.c - the whole export, read as the daemon reads it (see
 * vet_export.h).
 */
#include "box/import/vet_export.h"
#include "box/import/vet_export_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "box/import/tar.h"
#include "box/import/yaml.h"
#include "util/gzstream.h"

enum doc_kind { DOC_INDEX, DOC_CT, DOC_VM, DOC_SNAP };

struct doc {
	enum doc_kind kind;
	char *path;
	char *text;
	size_t len;
};

enum { W_HDR, W_DATA, W_PAD, W_ZEROS };

/*
 * The names of the symbolic links the archive has made so far (a hard
 * link to one is one too): a later member whose path runs through one of
 * them - rootfs/a -> /etc, then rootfs/a/passwd - would be written
 * wherever the link points when the daemon unpacks it, the host's /etc
 * for an absolute target.  No archive tar made holds such a member (tar
 * never descends into a link it stores), so each is refused.  An open
 * hash of the names; bounded by the archive's own member count.
 */
struct links {
	char **v;
	size_t cap, n;
};

static uint32_t
name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n-- > 0)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int
links_has(const struct links *l, const char *s, size_t n)
{
	size_t i;

	if (l->cap == 0)
		return 0;
	for (i = name_hash(s, n) & (l->cap - 1); l->v[i] != NULL;
	    i = (i + 1) & (l->cap - 1))
		if (strlen(l->v[i]) == n && memcmp(l->v[i], s, n) == 0)
			return 1;
	return 0;
}

static int
links_add(struct links *l, const char *s)
{
	size_t i, n = strlen(s);

	if (links_has(l, s, n))
		return 0;
	if ((l->n + 1) * 2 > l->cap) {
		struct links g = { NULL, l->cap ? l->cap * 2 : 256, 0 };

		if ((g.v = calloc(g.cap, sizeof(*g.v))) == NULL)
			return -ENOMEM;
		for (i = 0; i < l->cap; i++)
			if (l->v[i] != NULL) {
				size_t j = name_hash(l->v[i], strlen(l->v[i])) &
				    (g.cap - 1);

				while (g.v[j] != NULL)
					j = (j + 1) & (g.cap - 1);
				g.v[j] = l->v[i];
			}
		g.n = l->n;
		free(l->v);
		*l = g;
	}
	for (i = name_hash(s, n) & (l->cap - 1); l->v[i] != NULL;
	    i = (i + 1) & (l->cap - 1))
		;
	if ((l->v[i] = strdup(s)) == NULL)
		return -ENOMEM;
	l->n++;
	return 0;
}

static void
links_free(struct links *l)
{
	size_t i;

	for (i = 0; i < l->cap; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Does a proper leading part of name (whole components) name a link? */
static int
links_beneath(const struct links *l, const char *name)
{
	const char *p;

	for (p = strchr(name, '/'); p != NULL; p = strchr(p + 1, '/'))
		if (links_has(l, name, (size_t)(p - name)))
			return 1;
	return 0;
}
enum { D_SKIP, D_PAX, D_LONG, D_DOC, D_LONGLINK };

struct walk {
	int state;
	unsigned char hdr[512];
	size_t hlen;
	unsigned long long left;	/* data bytes left in this member */
	size_t pad;
	int dkind;			/* what the data is */
	char *buf;			/* D_PAX, D_LONG, D_DOC: captured */
	size_t blen, bcap;
	char pax_path[VET_NAME_MAX];
	int pax_has_path, pax_has_size, after_ext;
	unsigned long long pax_size;
	char longname[VET_NAME_MAX];
	int has_long;
	char pax_link[VET_NAME_MAX];	/* PAX linkpath / GNU 'K' */
	int has_link;
	unsigned long long unpacked;	/* what the members unpack to */
	unsigned long long fed;		/* archive bytes read */
	unsigned long long bound;	/* refused above it; 0: none */
	struct doc doc[2 * VET_MAX_SNAPS + 4];
	int ndoc;
	size_t captured;
	int stop_index;			/* vet_export_name: stop once index.yaml
					 * is read */
	int id_seen[8];			/* id_paths: members of each */
	int id_unsafe;			/* see vet_export.h: id_template */
	vet_member_fn on_member;	/* vet_tar_members: each member */
	void *mctx;
	const char *why;		/* the refusal */
	char what[160];			/* the member it concerns */
	struct links links;		/* the symlinks it made so far */
};

static int
refuse(struct walk *w, const char *why, const char *member)
{
	if (w->why == NULL) {
		w->why = why;
		snprintf(w->what, sizeof(w->what), "%.150s", member ?
		    member : "");
	}
	return -EBOX_PROTO;
}

static int
all_zero(const unsigned char *p, size_t n)
{
	while (n-- > 0)
		if (*p++ != 0)
			return 0;
	return 1;
}

/* A field of up to n bytes, NUL-terminated or full. */
static size_t
field(const unsigned char *p, size_t n)
{
	const unsigned char *z = memchr(p, 0, n);

	return z ? (size_t)(z - p) : n;
}

/*
 * Names both tar readers take byte for byte: relative, no empty, "." or
 * ".." part, at most one trailing '/'.
 */
static int
clean_name(const char *s)
{
	const char *p = s;

	if (*s == '\0' || *s == '/')
		return 0;
	while (*p != '\0') {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (e == NULL)
			break;
		p = e + 1;
		if (*p == '\0')
			break;		/* the trailing '/' */
	}
	return 1;
}

static const char *const snapdirs[] = { "backup/snapshots/",
    "backup/virtual-machine-snapshots/", NULL };

/* Which config document a (slash-stripped) name is, or -1. */
int
vet_export_doc_kind(const char *s)
{
	int i;

	if (strcmp(s, "backup/index.yaml") == 0)
		return DOC_INDEX;
	if (strcmp(s, "backup/container/backup.yaml") == 0)
		return DOC_CT;
	if (strcmp(s, "backup/virtual-machine/backup.yaml") == 0)
		return DOC_VM;
	for (i = 0; snapdirs[i] != NULL; i++) {
		size_t n = strlen(snapdirs[i]);
		const char *rest = s + n, *sl;

		if (strncmp(s, snapdirs[i], n) != 0)
			continue;
		sl = strchr(rest, '/');
		if (sl != NULL && sl > rest && strcmp(sl, "/backup.yaml") == 0)
			return DOC_SNAP;
	}
	return -1;
}

/* A directory on the way to a config document (it must be one). */
static int
doc_ancestor(const char *s)
{
	int i;

	if (strcmp(s, "backup") == 0 || strcmp(s, "backup/container") == 0 ||
	    strcmp(s, "backup/virtual-machine") == 0)
		return 1;
	for (i = 0; snapdirs[i] != NULL; i++) {
		size_t n = strlen(snapdirs[i]);

		if (strncmp(s, snapdirs[i], n - 1) == 0 && s[n - 1] == '\0')
			return 1;
		if (strncmp(s, snapdirs[i], n) == 0 && s[n] != '\0' &&
		    strchr(s + n, '/') == NULL)
			return 1;
	}
	return 0;
}

/*
 * The members the daemon writes through when it templates the identity
 * (vet_export.h), and what each may be: 'd' a directory, 'f' a regular
 * file, 'l' the one symlink "/etc/machine-id".
 */
static const struct {
	const char *path;
	char kind;
} id_paths[] = {
	{ "backup/container/rootfs", 'd' },
	{ "backup/container/rootfs/etc", 'd' },
	{ "backup/container/templates", 'd' },
	{ "backup/container/rootfs/etc/machine-id", 'f' },
	{ "backup/container/metadata.yaml", 'f' },
	{ "backup/container/templates/box-identity.tpl", 'f' },
	{ "backup/container/rootfs/var/lib/dbus/machine-id", 'l' },
};

#define ID_MID "backup/container/rootfs/etc/machine-id/"

/* One member against id_paths; ext: an extended header came before it
 * (a long link name box does not read may then stand for its target). */
static void
id_watch(struct walk *w, const char *name, char type,
    const unsigned char *h, int ext)
{
	size_t i;
	int ok;

	if (strncmp(name, ID_MID, sizeof(ID_MID) - 1) == 0) {
		w->id_unsafe = 1;	/* machine-id made a directory */
		return;
	}
	for (i = 0; i < sizeof(id_paths) / sizeof(id_paths[0]); i++) {
		if (strcmp(name, id_paths[i].path) != 0)
			continue;
		if (id_paths[i].kind == 'd')
			ok = type == '5';
		else if (id_paths[i].kind == 'f')
			ok = type == '0' || type == '\0' || type == '7';
		else
			ok = type == '2' && !ext && field(h + 157, 100) ==
			    sizeof("/etc/machine-id") - 1 &&
			    memcmp(h + 157, "/etc/machine-id", 15) == 0;
		if (!ok || ++w->id_seen[i] > 1)
			w->id_unsafe = 1;
		return;
	}
}

/*
 * The PAX header's path, linkpath and size, read by tar_pax_read (the
 * re-framer's reader too); a repeated key, a sparse member refused.
 */
_Static_assert(VET_NAME_MAX == TAR_PAX_NAME, "one bound on a PAX name");

static int
pax(struct walk *w)
{
	struct tar_pax f;
	const char *bad = tar_pax_read(w->buf, w->blen, &f);

	if (bad != NULL)
		return refuse(w, bad, NULL);
	if (f.has_path) {
		memcpy(w->pax_path, f.path, sizeof(w->pax_path));
		w->pax_has_path = 1;
	}
	if (f.has_link) {
		memcpy(w->pax_link, f.link, sizeof(w->pax_link));
		w->has_link = 1;
	}
	if (f.has_size) {
		w->pax_size = f.size;
		w->pax_has_size = 1;
	}
	return 0;
}

static int
capture(struct walk *w, unsigned long long size, size_t max)
{
	if (size > max)
		return -1;
	w->buf = malloc((size_t)size + 1);
	if (w->buf == NULL)
		return -ENOMEM;
	w->blen = 0;
	w->bcap = (size_t)size;
	return 0;
}

/*
 * The part of name inside a box's root filesystem - the instance's
 * (backup/container/rootfs/...) or a snapshot's (backup/snapshots/<s>/
 * rootfs/...) - or NULL when name is outside every one (the rootfs
 * directory itself is outside: it must be a directory).
 */
static const char *
in_rootfs(const char *name)
{
	static const char ct[] = "backup/container/rootfs/",
	    sn[] = "backup/snapshots/";
	const char *p;

	if (strncmp(name, ct, sizeof(ct) - 1) == 0)
		return name[sizeof(ct) - 1] ? name + sizeof(ct) - 1 : NULL;
	if (strncmp(name, sn, sizeof(sn) - 1) != 0)
		return NULL;
	p = strchr(name + sizeof(sn) - 1, '/');
	if (p == NULL || p == name + sizeof(sn) - 1 ||
	    strncmp(p, "/rootfs/", 8) != 0 || p[8] == '\0')
		return NULL;
	return p + 8;
}

/*
 * A symlink's target, read inside the root filesystem it sits in: an
 * absolute target is the box's own path; a relative one, walked from the
 * link's directory (rel: the link's path inside that rootfs), must not
 * climb out of it.
 */
static int
target_within(const char *rel, const char *target)
{
	int depth = 0;
	const char *p;

	if (target[0] == '/')
		return 1;
	for (p = rel; (p = strchr(p, '/')) != NULL; p++)
		depth++;		/* directories the link sits under */
	for (p = target; *p != '\0';) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return 0;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		if (e == NULL)
			break;
		p = e + 1;
	}
	return 1;
}

/*
 * Every member's type and target (issue 22: a rootfs hardlink naming
 * backup/container/backup.yaml left the box's root sharing an inode with
 * the host's root-only record): no device node anywhere; links and FIFOs
 * only inside a rootfs - a symlink resolved within it, a hardlink naming
 * a clean member of a rootfs.  NULL, or why not.
 */
static const char *
member_bad(const char *name, char type, const char *link)
{
	const char *rel = in_rootfs(name);

	if (type == '3' || type == '4')
		return "a device node";
	if (type != '1' && type != '2' && type != '6')
		return NULL;
	if (rel == NULL)
		return "a link or FIFO outside the box's root filesystem";
	if (type == '6')
		return NULL;
	if (link[0] == '\0')
		return "a link with no target";
	if (type == '1') {
		char t[VET_NAME_MAX + 1];
		size_t n;

		snprintf(t, sizeof(t), "%s", link);
		if (!clean_name(t))
			return "a hard link to a name that is not clean";
		n = strlen(t);
		if (t[n - 1] == '/')
			t[n - 1] = '\0';
		if (in_rootfs(t) == NULL)
			return "a hard link out of the box's root filesystem";
		return NULL;
	}
	return target_within(rel, link) ? NULL :
	    "a symbolic link out of the box's root filesystem";
}

/*
 * A header's checks before its type is read: the end (zeros), the
 * checksum and magic, every number field, an old GNU sparse map.  1 at
 * the end of the archive, 0 to go on, or the refusal.
 */
static int
header_sane(struct walk *w, const unsigned char *h)
{
	const char *bad;

	if (all_zero(h, 512)) {
		if (w->after_ext)
			return refuse(w, "an extended header with no member",
			    NULL);
		w->state = W_ZEROS;	/* the end: only zeros may follow */
		return 1;
	}
	if ((bad = tar_header_bad(h)) != NULL)
		return refuse(w, bad, NULL);
	if (tar_num(h + 124, 12) < 0)
		return refuse(w, "a tar size box cannot read", NULL);
	/* mode, uid, gid, mtime, device numbers: box does not use them,
	 * but a field one reader takes and another calls garbage is refused
	 * all the same (fuzz_tar found both against libarchive) */
	if (tar_num(h + 100, 8) < 0 || tar_num(h + 108, 8) < 0 ||
	    tar_num(h + 116, 8) < 0 || tar_num(h + 136, 12) < 0 ||
	    tar_num(h + 329, 8) < 0 || tar_num(h + 337, 8) < 0)
		return refuse(w, "a tar number field box cannot read", NULL);
	/* a GNU header's old sparse map (offset 386: four offset/size
	 * pairs, the "extension follows" flag at 482, the real size at
	 * 483): libarchive reads the map after any type as soon as its
	 * first offset is non-zero, GNU tar only after 'S' (which box
	 * refuses), so anything but zeros there is refused (fuzz_tar) */
	if (memcmp(h + 257, "ustar  \0", 8) == 0 && !all_zero(h + 386, 495 - 386))
		return refuse(w, "a sparse member", NULL);
	return 0;
}

/* An extended header ('x' PAX, 'L' long name, 'K' long link): captured. */
static int
header_ext(struct walk *w, char type, long long size)
{
	int rc;

	if (w->after_ext && type == 'x')
		return refuse(w, "two PAX headers in a row", NULL);
	if (w->after_ext && (w->pax_has_path || w->has_long) && type == 'L')
		return refuse(w, "two long names for one member", NULL);
	if (w->after_ext && w->has_link && type == 'K')
		return refuse(w, "two link targets for one member", NULL);
	w->after_ext = 1;
	w->left = (unsigned long long)size;
	w->pad = (size_t)((512 - (size % 512)) % 512);
	w->dkind = type == 'x' ? D_PAX : type == 'L' ? D_LONG : D_LONGLINK;
	if ((rc = capture(w, w->left, type == 'x' ? VET_PAX_MAX :
	    VET_NAME_MAX - 1)) < 0)
		return rc == -ENOMEM ? rc : refuse(w, "an extended header too "
		    "big", NULL);
	w->state = W_DATA;	/* an empty one ends at once */
	return 0;
}

/*
 * The member's name (GNU long name, PAX path, or prefix/name), link
 * target and size, the extended headers before it consumed.
 */
static void
member_names(struct walk *w, const unsigned char *h, char *name,
    char *link, size_t cap, long long *size)
{
	if (w->has_long) {
		snprintf(name, cap, "%s", w->longname);
	} else if (w->pax_has_path) {
		snprintf(name, cap, "%s", w->pax_path);
	} else {
		size_t pn = memcmp(h + 257, "ustar\0", 6) == 0 ?
		    field(h + 345, 155) : 0, n = field(h, 100);

		if (pn > 0)
			snprintf(name, cap, "%.*s/%.*s", (int)pn,
			    (const char *)h + 345, (int)n, (const char *)h);
		else
			snprintf(name, cap, "%.*s", (int)n, (const char *)h);
	}
	if (w->pax_has_size)
		*size = (long long)w->pax_size;
	if (w->has_link)
		snprintf(link, cap, "%s", w->pax_link);
	else
		snprintf(link, cap, "%.*s", (int)field(h + 157, 100),
		    (const char *)h + 157);
	w->has_long = w->pax_has_path = w->pax_has_size = w->after_ext = 0;
	w->has_link = 0;
}

/* A hard link's target through the archive's own symbolic links. */
static int
hardlink_ok(struct walk *w, const char *name, const char *link)
{
	char t[VET_NAME_MAX + 1];
	size_t tn;

	snprintf(t, sizeof(t), "%s", link);
	tn = strlen(t);
	if (tn > 0 && t[tn - 1] == '/')
		t[--tn] = '\0';
	if (links_beneath(&w->links, t))
		return refuse(w, "a hard link through a symbolic link the "
		    "archive made", name);
	if (links_has(&w->links, t, tn))
		return links_add(&w->links, name); /* a link to a link is one */
	return 0;
}

/*
 * The member judged by name, type and link: a clean relative name, a type
 * box reads, no data on what has none, nothing beneath a link the archive
 * made, the bound on what it unpacks to.  name loses a trailing '/'.
 */
static int
member_judge(struct walk *w, char *name, char type, const char *link,
    long long size)
{
	const char *bad;
	size_t n;
	int rc;

	if (!clean_name(name))
		return refuse(w, "a member name that is not a clean relative "
		    "path", name);
	n = strlen(name);
	if (name[n - 1] == '/') {
		/* old tars mean a directory by it, whatever the type says
		 * (GNU tar and libarchive do; fuzz_tar found box did not) */
		if (type != '5')
			return refuse(w, "a member named as a directory that "
			    "is not one", name);
		name[n - 1] = '\0';
	}
	if (!(type == '\0' || (type >= '0' && type <= '7')))
		return refuse(w, "a tar member of a type box does not read",
		    name);
	if (type >= '1' && type <= '6' && size != 0)
		return refuse(w, "a link, device or directory with data",
		    name);
	if (doc_ancestor(name) && type != '5')
		return refuse(w, "a config directory that is not a directory",
		    name);
	if ((bad = member_bad(name, type, link)) != NULL)
		return refuse(w, bad, name);
	if (links_beneath(&w->links, name))
		return refuse(w, "a member beneath a symbolic link the archive "
		    "made", name);
	if (type == '1' && (rc = hardlink_ok(w, name, link)) < 0)
		return rc;
	if (type == '2' && (rc = links_add(&w->links, name)) < 0)
		return rc;
	if (type == '0' || type == '\0' || type == '7') {
		/* what it unpacks to, bounded before the daemon is asked */
		w->unpacked += (unsigned long long)size;
		if (w->bound > 0 && w->unpacked > w->bound)
			return refuse(w, "more than the bound on what an "
			    "import may unpack to", name);
	}
	return 0;
}

/* A config document (index.yaml, backup.yaml): its data captured. */
static int
member_doc(struct walk *w, const char *name, char type, int kind)
{
	int i, rc;

	if (type != '0' && type != '\0')
		return refuse(w, "a config member that is not a plain file",
		    name);
	for (i = 0; i < w->ndoc; i++)
		if (strcmp(w->doc[i].path, name) == 0)
			return refuse(w, "a config member that appears twice",
			    name);
	if (w->ndoc == (int)(sizeof(w->doc) / sizeof(w->doc[0])))
		return refuse(w, "too many snapshots", name);
	if (w->left > VET_DOC_MAX || w->captured + w->left > VET_DOCS_MAX)
		return refuse(w, "a config member too big", name);
	if ((rc = capture(w, w->left, VET_DOC_MAX)) < 0)
		return rc;
	w->captured += (size_t)w->left;
	w->doc[w->ndoc].kind = (enum doc_kind)kind;
	w->doc[w->ndoc].path = strdup(name);
	if (w->doc[w->ndoc].path == NULL)
		return -ENOMEM;
	w->dkind = D_DOC;
	return 0;
}

/* One 512-byte header in w->hdr: sane, extended, or a member. */
static int
header(struct walk *w)
{
	const unsigned char *h = w->hdr;
	char name[VET_NAME_MAX + 1], link[VET_NAME_MAX + 1],
	    type = (char)h[156];
	long long size;
	int rc, ext;

	if ((rc = header_sane(w, h)) != 0)
		return rc < 0 ? rc : 0;
	size = tar_num(h + 124, 12);
	if (type == 'x' || type == 'L' || type == 'K')
		return header_ext(w, type, size);
	ext = w->after_ext;
	member_names(w, h, name, link, sizeof(name), &size);
	if ((rc = member_judge(w, name, type, link, size)) < 0)
		return rc;
	id_watch(w, name, type, h, ext);
	if (w->on_member != NULL)
		w->on_member(w->mctx, name, type, size, link);
	w->left = (unsigned long long)size;
	w->pad = (size_t)((512 - (size % 512)) % 512);
	w->dkind = D_SKIP;
	if ((rc = vet_export_doc_kind(name)) >= 0 &&
	    (rc = member_doc(w, name, type, rc)) < 0)
		return rc;
	w->state = w->left > 0 ? W_DATA : W_PAD;
	if (w->state == W_PAD && w->dkind != D_SKIP)
		w->state = W_DATA;	/* an empty capture ends at once */
	return 0;
}

/* A captured member is complete. */
static int
member_done(struct walk *w)
{
	int rc = 0;

	if (w->dkind == D_PAX) {
		rc = pax(w);
		free(w->buf);
	} else if (w->dkind == D_LONG || w->dkind == D_LONGLINK) {
		size_t n = field((const unsigned char *)w->buf, w->blen);
		char *to = w->dkind == D_LONG ? w->longname : w->pax_link;

		if (n == 0)
			rc = refuse(w, "an empty long name", NULL);
		memcpy(to, w->buf, n);
		to[n] = '\0';
		*(w->dkind == D_LONG ? &w->has_long : &w->has_link) = 1;
		free(w->buf);
	} else if (w->dkind == D_DOC) {
		w->buf[w->blen] = '\0';
		w->doc[w->ndoc].text = w->buf;
		w->doc[w->ndoc].len = w->blen;
		w->ndoc++;
		if (w->stop_index && w->doc[w->ndoc - 1].kind == DOC_INDEX) {
			w->buf = NULL;
			return -ECANCELED;	/* vet_export_name has it */
		}
	}
	w->buf = NULL;
	w->dkind = D_SKIP;
	return rc;
}

static int
feed(void *ctx, const unsigned char *p, size_t n)
{
	struct walk *w = ctx;
	int rc;

	w->fed += n;
	while (n > 0) {
		size_t k;

		switch (w->state) {
		case W_ZEROS:
			if (!all_zero(p, n))
				return refuse(w, "data after the end of the "
				    "archive", NULL);
			return 0;
		case W_HDR:
			k = 512 - w->hlen < n ? 512 - w->hlen : n;
			memcpy(w->hdr + w->hlen, p, k);
			w->hlen += k;
			p += k;
			n -= k;
			if (w->hlen == 512) {
				w->hlen = 0;
				if ((rc = header(w)) < 0)
					return rc;
				if (w->state == W_DATA && w->left == 0 &&
				    (rc = member_done(w)) < 0)
					return rc;
				if (w->state == W_DATA && w->left == 0)
					w->state = W_PAD;
			}
			break;
		case W_DATA:
			k = w->left < n ? (size_t)w->left : n;
			if (w->dkind != D_SKIP) {
				memcpy(w->buf + w->blen, p, k);
				w->blen += k;
			}
			w->left -= k;
			p += k;
			n -= k;
			if (w->left == 0) {
				if ((rc = member_done(w)) < 0)
					return rc;
				w->state = W_PAD;
			}
			break;
		case W_PAD:
			k = w->pad < n ? w->pad : n;
			w->pad -= k;
			p += k;
			n -= k;
			if (w->pad == 0)
				w->state = W_HDR;
			break;
		}
		if (w->state == W_PAD && w->pad == 0)
			w->state = W_HDR;
	}
	return 0;
}

/* The input ended: cleanly only between members. */
static int
walk_end(struct walk *w)
{
	/* a tar is whole blocks: a cut one is read as zeros here and
	 * refused by other readers (fuzz_tar found it against libarchive) */
	if (w->fed % TAR_BLOCK != 0)
		return refuse(w, "an archive that ends inside a block", NULL);
	if (w->state == W_ZEROS)
		return 0;
	if (w->state == W_HDR && w->hlen == 0 && !w->after_ext)
		return 0;
	return refuse(w, "the archive ends inside a member", NULL);
}

static void
walk_free(struct walk *w)
{
	int i;

	free(w->buf);
	links_free(&w->links);
	/* and the one still being captured, if the input stopped inside it */
	for (i = 0; i <= w->ndoc && i < (int)(sizeof(w->doc) /
	    sizeof(w->doc[0])); i++) {
		free(w->doc[i].path);
		free(w->doc[i].text);
	}
}

/* --- the YAML documents ---------------------------------------------------- */

struct view {
	struct vet_kv *cfg;
	int ncfg;
	struct vet_dev *dev;
	int ndev;
	struct vet_kv *dkv;		/* every device's keys, one array */
	const char **prof;
	int nprof;
};

static void
view_free(struct view *x)
{
	free(x->cfg);
	free(x->dev);
	free(x->dkv);
	free(x->prof);
	memset(x, 0, sizeof(*x));
}

static int
count(const struct yaml_doc *d, int n)
{
	int c = 0, k;

	for (k = yaml_child(d, n); k >= 0; k = yaml_next(d, k))
		c++;
	return c;
}

/* A string map (config:) into kvs; -1 when it is not one. */
static int
y_kvs(const struct yaml_doc *d, int m, struct vet_kv **out, int *n)
{
	int k, i = 0;

	*out = NULL;
	*n = 0;
	if (m < 0 || yaml_is_null(d, m))
		return 0;
	if (yaml_type(d, m) != YAML_MAP)
		return -1;
	*out = calloc((size_t)count(d, m) / 2 + 1, sizeof(**out));
	if (*out == NULL)
		return -1;
	for (k = yaml_child(d, m); k >= 0; k = yaml_next(d, yaml_next(d, k))) {
		const char *v = yaml_str(d, yaml_next(d, k), NULL);

		if (v == NULL)
			return -1;
		(*out)[i].k = yaml_str(d, k, NULL);
		(*out)[i].v = v;
		i++;
	}
	*n = i;
	return 0;
}

/* config:, devices:, profiles: of one instance or snapshot map. */
static int
y_view(const struct yaml_doc *d, int obj, struct view *x)
{
	int devs = yaml_get(d, obj, "devices"), pr = yaml_get(d, obj,
	    "profiles"), k, i = 0, used = 0, total = 0;

	memset(x, 0, sizeof(*x));
	if (y_kvs(d, yaml_get(d, obj, "config"), &x->cfg, &x->ncfg) < 0)
		return -1;
	if (devs >= 0 && !yaml_is_null(d, devs)) {
		if (yaml_type(d, devs) != YAML_MAP)
			return -1;
		for (k = yaml_child(d, devs); k >= 0;
		    k = yaml_next(d, yaml_next(d, k)))
			total += count(d, yaml_next(d, k)) / 2;
		x->dev = calloc((size_t)count(d, devs) / 2 + 1,
		    sizeof(*x->dev));
		x->dkv = calloc((size_t)total + 1, sizeof(*x->dkv));
		if (x->dev == NULL || x->dkv == NULL)
			return -1;
		for (k = yaml_child(d, devs); k >= 0;
		    k = yaml_next(d, yaml_next(d, k))) {
			struct vet_kv *kv;
			int nkv;

			if (y_kvs(d, yaml_next(d, k), &kv, &nkv) < 0) {
				free(kv);
				return -1;
			}
			if (nkv > 0)
				memcpy(x->dkv + used, kv, (size_t)nkv *
				    sizeof(*kv));
			free(kv);
			x->dev[i].name = yaml_str(d, k, NULL);
			x->dev[i].kv = x->dkv + used;
			x->dev[i].n = nkv;
			used += nkv;
			i++;
		}
		x->ndev = i;
	}
	if (pr >= 0 && !yaml_is_null(d, pr)) {
		if (yaml_type(d, pr) != YAML_SEQ)
			return -1;
		x->prof = calloc((size_t)count(d, pr) + 1, sizeof(*x->prof));
		if (x->prof == NULL)
			return -1;
		for (k = yaml_child(d, pr); k >= 0; k = yaml_next(d, k)) {
			const char *s = yaml_str(d, k, NULL);

			if (s == NULL)
				return -1;
			x->prof[x->nprof++] = s;
		}
	}
	return 0;
}

/* yaml.v2 into a Go bool: absent or a YAML 1.1 boolean, else unreadable. */
static int
y_flag(const struct yaml_doc *d, int obj, const char *key)
{
	int n = yaml_get(d, obj, key);

	if (n < 0 || yaml_is_null(d, n))
		return 0;
	return yaml_bool(d, n);
}

static void
y_inst(struct vet *v, const struct yaml_doc *d, int obj, const char *snap,
    const char *where, int stale_copy)
{
	struct vet_inst in;
	struct view x;

	if (yaml_type(d, obj) != YAML_MAP) {
		vet_add(v, "an unreadable %s (%s)", snap ? "snapshot" :
		    "instance", where);
		return;
	}
	if (y_view(d, obj, &x) < 0) {
		vet_add(v, "an unreadable config, device or profile list (%s)",
		    where);
		view_free(&x);
		return;
	}
	memset(&in, 0, sizeof(in));
	in.snapshot = snap;
	in.cfg = x.cfg;
	in.ncfg = x.ncfg;
	in.dev = x.dev;
	in.ndev = x.ndev;
	in.stateful = y_flag(d, obj, "stateful");
	in.profiles = x.prof;
	in.nprof = x.nprof;
	in.prof_rule = snap ? VET_PROFILES_SUBSET : VET_PROFILES_IGNORE;
	in.where = where;
	in.stale_copy = stale_copy;
	vet_inst(v, &in);
	view_free(&x);
}

/*
 * The storage volume's own config (index.yaml config.volume, the record
 * the daemon creates the volume from): its size, and the per-driver
 * layout keys an export from another pool type carries.  Mount options,
 * security.* and the rest are refused.
 */
static int
volume_key_ok(const char *k, const char *v)
{
	static const char *const ok[] = { "size", "block.filesystem",
	    "zfs.blocksize", "zfs.use_refquota", "zfs.reserve_space",
	    "zfs.remove_snapshots", "volatile.uuid", NULL };
	int i;

	for (i = 0; ok[i] != NULL; i++)
		if (strcmp(k, ok[i]) == 0)
			return strlen(v) < 64 && strspn(v, "abcdefghijklmnopqrstu"
			    "vwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") ==
			    strlen(v);
	return 0;
}

static void
y_volume_cfg(struct vet *v, const struct yaml_doc *d, int vol,
    const char *where)
{
	struct vet_kv *kv;
	int n, i;

	if (vol < 0 || yaml_is_null(d, vol))
		return;
	if (yaml_type(d, vol) != YAML_MAP ||
	    y_kvs(d, yaml_get(d, vol, "config"), &kv, &n) < 0) {
		vet_add(v, "an unreadable volume (%s)", where);
		return;
	}
	for (i = 0; i < n; i++)
		if (!volume_key_ok(kv[i].k, kv[i].v))
			vet_add(v, "volume config %.60s (%s)", kv[i].k, where);
	free(kv);
}

/* A backup.yaml (or index.yaml's config:): the instance and snapshots. */
static void
y_config(struct vet *v, const struct yaml_doc *d, int cfg, const char *in_doc)
{
	char here[160];
	int ct, sn, vs, k;

	if (yaml_is_null(d, cfg))
		return;
	if (yaml_type(d, cfg) != YAML_MAP) {
		vet_add(v, "an unreadable backup config");
		return;
	}
	ct = yaml_get(d, cfg, "container");
	snprintf(here, sizeof(here), "instance%s%.100s", in_doc ? " in " : "",
	    in_doc ? in_doc : "");
	if (ct >= 0 && !yaml_is_null(d, ct))
		y_inst(v, d, ct, NULL, here, in_doc != NULL);
	sn = yaml_get(d, cfg, "snapshots");
	if (sn >= 0 && !yaml_is_null(d, sn) && yaml_type(d, sn) != YAML_SEQ)
		vet_add(v, "an unreadable snapshot list");
	else if (sn >= 0)
		for (k = yaml_child(d, sn); k >= 0; k = yaml_next(d, k)) {
			const char *name = yaml_str(d, yaml_get(d, k, "name"),
			    NULL);
			char where[192];

			if (name == NULL)
				name = "";
			snprintf(where, sizeof(where), "snapshot %.60s%s%.100s",
			    name, in_doc ? " in " : "", in_doc ? in_doc : "");
			y_inst(v, d, k, name, where, in_doc != NULL);
		}
	y_volume_cfg(v, d, yaml_get(d, cfg, "volume"), "volume");
	vs = yaml_get(d, cfg, "volume_snapshots");
	if (vs >= 0 && !yaml_is_null(d, vs) && yaml_type(d, vs) != YAML_SEQ)
		vet_add(v, "an unreadable volume snapshot list");
	else if (vs >= 0)
		for (k = yaml_child(d, vs); k >= 0; k = yaml_next(d, k))
			y_volume_cfg(v, d, k, "volume snapshot");
}

/* index.yaml: the name, the type, the snapshot list, optimized, config. */
static void
y_index(struct vet *v, const struct yaml_doc *d, char *name, size_t cap,
    int *vm)
{
	int root = 0, n, k;
	const char *s;

	if (yaml_type(d, root) != YAML_MAP) {
		vet_add(v, "an unreadable backup/index.yaml");
		return;
	}
	s = yaml_str(d, yaml_get(d, root, "name"), NULL);
	if (s != NULL && strlen(s) < cap && strpbrk(s, "\n\t") == NULL)
		snprintf(name, cap, "%s", s);
	n = yaml_get(d, root, "type");
	s = n < 0 ? "" : yaml_str(d, n, NULL);
	if (s == NULL || !(strcmp(s, "") == 0 || strcmp(s, "container") == 0 ||
	    strcmp(s, "virtual-machine") == 0))
		vet_add(v, "a backup type box does not import");
	*vm = s != NULL && strcmp(s, "virtual-machine") == 0;
	n = yaml_get(d, root, "optimized");
	if (n >= 0 && y_flag(d, root, "optimized") != 0)
		vet_add(v, "an optimized (storage driver) export, which box "
		    "cannot look inside");
	n = yaml_get(d, root, "snapshots");
	if (n >= 0 && !yaml_is_null(d, n) && yaml_type(d, n) != YAML_SEQ)
		vet_add(v, "an unreadable snapshot list");
	else if (n >= 0)
		for (k = yaml_child(d, n); k >= 0; k = yaml_next(d, k)) {
			s = yaml_str(d, k, NULL);
			if (s == NULL || !vet_snapshot_name_ok(s))
				vet_add(v, "a snapshot name box does not "
				    "accept (index)");
		}
	n = yaml_get(d, root, "config");
	if (n >= 0)
		y_config(v, d, n, NULL);
}

static int
vet_docs(struct walk *w, struct vet *v, char *name, size_t cap,
    struct box_err *e)
{
	int i, vm = 0, have_index = 0, have_ct = 0, have_vm = 0;

	for (i = 0; i < w->ndoc; i++) {
		struct yaml_doc d;
		int rc = yaml_parse(&d, w->doc[i].text, w->doc[i].len);

		if (rc < 0) {
			if (rc == -EBOX_PROTO)
				err_set(e, rc, "%s in the export is YAML box "
				    "will not guess at (line %d: %s); "
				    "nothing was imported", w->doc[i].path,
				    d.line, d.why ? d.why : "?");
			else
				err_set(e, rc, "out of memory");
			yaml_free(&d);
			return rc;
		}
		switch (w->doc[i].kind) {
		case DOC_INDEX:
			have_index = 1;
			y_index(v, &d, name, cap, &vm);
			break;
		case DOC_CT:
			have_ct = 1;
			y_config(v, &d, 0, NULL);
			break;
		case DOC_VM:
			have_vm = 1;
			y_config(v, &d, 0, NULL);
			break;
		case DOC_SNAP:
			y_config(v, &d, 0, w->doc[i].path);
			break;
		}
		yaml_free(&d);
	}
	if (!have_index)
		return err_set(e, -EBOX_PROTO, "the file is not an Incus/box "
		    "export (no backup/index.yaml)");
	if (!(vm ? have_vm : have_ct))
		return err_set(e, -EBOX_PROTO, "the export has no %s, the "
		    "file the daemon would create the box from",
		    vm ? "backup/virtual-machine/backup.yaml" :
		    "backup/container/backup.yaml");
	return 0;
}

static int
walk_error(struct walk *w, int rc, struct box_err *e)
{
	if (rc == -ENOMEM)
		return err_set(e, rc, "out of memory");
	if (w->bound > 0 && w->unpacked > w->bound) {
		err_set(e, -EFBIG, "the export unpacks to more than %llu MiB, "
		    "the most this import may put on the pool; nothing was "
		    "imported", w->bound >> 20);
		err_fix(e, "free space on the pool, or raise the cap: "
		    "BOX_IMPORT_MAX_MB=<MiB> box import ...");
		return -EFBIG;
	}
	if (w->why != NULL)
		return err_set(e, -EBOX_PROTO, "the export holds %s%s%s%s; "
		    "box reads an export only when it can be sure what the "
		    "daemon will read, so nothing was imported", w->why,
		    w->what[0] ? " (" : "", w->what, w->what[0] ? ")" : "");
	if (rc == -ENODATA)
		return err_set(e, -EBOX_PROTO, "the export is truncated "
		    "(its gzip stream ends early); nothing was imported");
	if (rc == -EBOX_PROTO)
		return err_set(e, rc, "the export is not a readable gzip "
		    "stream (bad data, a bad checksum or bytes after its "
		    "end); nothing was imported");
	return err_set(e, rc, "reading the export: %s", err_str(rc));
}

/*
 * The file's bytes: from one descriptor, never its path.  pread from 0
 * (off >= 0: the descriptor's own offset stays where the upload wants
 * it), or a stream read to its end (off < 0: the upload's own bytes, fed
 * through a pipe, box/import/vet_bg.h); the first bytes, read to tell gzip from
 * tar, are served again from pre.
 */
struct fsrc {
	int fd;
	long long off;
	unsigned char pre[262];
	size_t npre, ipre;
};

static ssize_t
fd_read(void *ctx, unsigned char *buf, size_t cap)
{
	struct fsrc *s = ctx;
	ssize_t r;

	if (s->ipre < s->npre) {
		size_t k = s->npre - s->ipre < cap ? s->npre - s->ipre : cap;

		memcpy(buf, s->pre + s->ipre, k);
		s->ipre += k;
		return (ssize_t)k;
	}
	do
		r = s->off >= 0 ? pread(s->fd, buf, cap, (off_t)s->off) :
		    read(s->fd, buf, cap);
	while (r < 0 && errno == EINTR);
	if (r > 0 && s->off >= 0)
		s->off += r;
	return r < 0 ? -errno : r;
}

static int
has_ct(const struct walk *w)
{
	int i;

	for (i = 0; i < w->ndoc; i++)
		if (w->doc[i].kind == DOC_CT)
			return 1;
	return 0;
}

static int
finish(struct walk *w, int rc, struct vet *v, char *name, size_t cap,
    struct box_err *e)
{
	if (rc >= 0)
		rc = walk_end(w);
	if (rc < 0)
		rc = walk_error(w, rc, e);
	else
		rc = vet_docs(w, v, name, cap, e);
	v->id_template = rc == 0 && !w->id_unsafe && has_ct(w);
	v->unpacked = w->unpacked;
	walk_free(w);
	free(w);
	return rc;
}

/* The file through w: gzip streamed or plain tar.  rc as feed()'s; *said
 * when e already says why (out of memory, neither gzip nor tar: w
 * untouched). */
static int
walk_fd(int fd, int stream, struct walk *w, int *said, struct box_err *e)
{
	struct fsrc s;
	ssize_t r;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.fd = fd;
	s.off = stream ? -1 : 0;
	*said = 0;
	while (s.npre < sizeof(s.pre)) {
		r = fd_read(&s, s.pre + s.npre, sizeof(s.pre) - s.npre);
		if (r <= 0)
			break;
		s.npre += (size_t)r;
	}
	if (s.npre >= 2 && s.pre[0] == 0x1f && s.pre[1] == 0x8b) {
		rc = gz_stream(fd_read, &s, feed, w);
	} else if (s.npre == 262 && memcmp(s.pre + 257, "ustar", 5) == 0) {
		unsigned char *buf = malloc(1 << 16);

		if (buf == NULL) {
			*said = 1;
			return err_set(e, -ENOMEM, "out of memory");
		}
		r = 0;
		while (rc >= 0 && (r = fd_read(&s, buf, 1 << 16)) > 0)
			rc = feed(w, buf, (size_t)r);
		if (rc >= 0 && r < 0)
			rc = (int)r;
		free(buf);
	} else {
		err_set(e, -EBOX_PROTO, "the file is not an export box can "
		    "read (box reads gzip or plain tar, and reads all of it "
		    "before it sends anything)");
		err_fix(e, "recompress it: zcat/xzcat/zstdcat it | gzip > "
		    "export.tar.gz, then import that");
		*said = 1;
		rc = -EBOX_PROTO;
	}
	if (stream)
		while (fd_read(&s, s.pre, sizeof(s.pre)) > 0)
			;	/* drain: the writer never blocks on a vet done */
	return rc;
}

int
vet_export_fd(int fd, int stream, struct vet *v, char *name, size_t cap,
    struct box_err *e)
{
	struct walk *w;
	int rc, said;

	if (cap > 0)
		name[0] = '\0';
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	w->bound = v->bound;
	rc = walk_fd(fd, stream, w, &said, e);
	if (said) {
		walk_free(w);
		free(w);
		return rc;
	}
	return finish(w, rc, v, name, cap, e);
}

int
vet_export_name(int fd, char *name, size_t cap)
{
	struct box_err e;
	struct yaml_doc d;
	struct walk *w;
	struct vet v;
	int rc, vm = 0, said;

	if (cap > 0)
		name[0] = '\0';
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	w->stop_index = 1;
	err_clear(&e);
	rc = walk_fd(fd, 0, w, &said, &e);
	if (rc == -ECANCELED && w->ndoc == 1) {
		rc = yaml_parse(&d, w->doc[0].text, w->doc[0].len);
		if (rc == 0) {
			vet_init(&v);
			y_index(&v, &d, name, cap, &vm);
		}
		yaml_free(&d);
	}
	walk_free(w);
	free(w);
	return rc == 0 && name[0] != '\0' ? 0 : -ENOENT;
}

int
vet_export_mem(const unsigned char *in, size_t n, struct vet *v, char *name,
    size_t cap, struct box_err *e)
{
	struct walk *w = calloc(1, sizeof(*w));
	int rc;

	if (cap > 0)
		name[0] = '\0';
	if (w == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	w->bound = v->bound;
	if (n >= 2 && in[0] == 0x1f && in[1] == 0x8b)
		rc = gz_stream_mem(in, n, feed, w);
	else if (n >= 262 && memcmp(in + 257, "ustar", 5) == 0)
		rc = feed(w, in, n);
	else {
		free(w);
		return err_set(e, -EBOX_PROTO, "not gzip or tar");
	}
	return finish(w, rc, v, name, cap, e);
}

int
vet_tar_members(const unsigned char *in, size_t n, vet_member_fn fn,
    void *ctx)
{
	struct walk *w = calloc(1, sizeof(*w));
	int rc;

	if (w == NULL)
		return -ENOMEM;
	w->on_member = fn;
	w->mctx = ctx;
	rc = feed(w, in, n);
	if (rc >= 0)
		rc = walk_end(w);
	walk_free(w);
	free(w);
	return rc < 0 ? rc : 0;
}

/* --- the daemon's view ------------------------------------------------------ */

/* kv.h's map as the vet's pairs (pointing into it): NULL on no memory. */
static struct vet_kv *
as_pairs(const struct incus_kvs *m)
{
	struct vet_kv *kv = calloc(m->n + 1, sizeof(*kv));
	size_t i;

	for (i = 0; kv != NULL && i < m->n; i++) {
		kv[i].k = m->v[i].key;
		kv[i].v = m->v[i].value;
	}
	return kv;
}

/* One record the daemon holds, judged: 0, or -ENOMEM. */
static int
judge_held(struct vet *v, const struct incus_held *h)
{
	const struct incus_devices *ds = &h->devices;
	struct vet_kv *cfg = as_pairs(&h->config), **dkv;
	struct vet_dev *dev = calloc(ds->n + 1, sizeof(*dev));
	struct vet_inst in;
	size_t i;
	int rc = -ENOMEM;

	dkv = calloc(ds->n + 1, sizeof(*dkv));
	if (cfg == NULL || dev == NULL || dkv == NULL)
		goto out;
	for (i = 0; i < ds->n; i++) {
		if ((dkv[i] = as_pairs(&ds->v[i].kv)) == NULL)
			goto out;
		dev[i].name = ds->v[i].name;
		dev[i].kv = dkv[i];
		dev[i].n = (int)ds->v[i].kv.n;
	}
	memset(&in, 0, sizeof(in));
	in.snapshot = h->name;
	in.cfg = cfg;
	in.ncfg = (int)h->config.n;
	in.dev = dev;
	in.ndev = (int)ds->n;
	in.stateful = h->stateful;
	in.profiles = (const char *const *)h->profiles;
	in.nprof = (int)h->nprofiles;
	in.prof_rule = h->name != NULL ? VET_PROFILES_SUBSET :
	    VET_PROFILES_BOXNET;
	vet_inst(v, &in);
	rc = 0;
out:
	for (i = 0; dkv != NULL && i < ds->n; i++)
		free(dkv[i]);
	free(dkv);
	free(dev);
	free(cfg);
	return rc;
}

int
vet_daemon_index(const struct incus_backup_index *ix, struct vet *v)
{
	size_t k;
	int rc;

	if ((rc = judge_held(v, &ix->inst)) < 0)
		return rc;
	for (k = 0; k < ix->nsnap; k++)
		if ((rc = judge_held(v, &ix->snap[k])) < 0)
			return rc;
	return 0;
}

int
vet_export_ct_config(const char *text, size_t n, struct incus_kvs *cfg,
    char *size, size_t cap)
{
	struct yaml_doc d;
	struct view x;
	int rc, ct, i, j;

	size[0] = '\0';
	memset(&x, 0, sizeof(x));
	if ((rc = yaml_parse(&d, text, n)) < 0)
		goto out;
	ct = yaml_get(&d, 0, "container");
	rc = -EBOX_PROTO;
	if (ct < 0 || yaml_type(&d, ct) != YAML_MAP || y_view(&d, ct, &x) < 0)
		goto out;
	rc = 0;
	for (i = 0; i < x.ncfg && rc == 0; i++)
		if (strncmp(x.cfg[i].k, "volatile.", 9) != 0)
			rc = incus_kv_set(cfg, x.cfg[i].k, x.cfg[i].v);
	for (i = 0; i < x.ndev; i++) {
		const char *t = NULL, *p = NULL, *s = NULL;

		for (j = 0; j < x.dev[i].n; j++) {
			const struct vet_kv *kv = &x.dev[i].kv[j];

			if (strcmp(kv->k, "type") == 0)
				t = kv->v;
			else if (strcmp(kv->k, "path") == 0)
				p = kv->v;
			else if (strcmp(kv->k, "size") == 0)
				s = kv->v;
		}
		if (t != NULL && p != NULL && s != NULL &&
		    strcmp(t, "disk") == 0 && strcmp(p, "/") == 0)
			snprintf(size, cap, "%s", s);
	}
out:
	view_free(&x);
	yaml_free(&d);
	return rc;
}
