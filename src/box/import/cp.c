/*
 * cp.c - box cp (see cp.h).
 */
#include "box/import/cp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/box.h"
#include "box/import/tar.h"
#include "incus/api.h"
#include "incus/exec.h"
#include "util/fdio.h"
#include "util/progress.h"

#define CP_NAME_MAX 4096
#define CP_DIRS_MAX 8192

int
cp_name_ok(const char *n)
{
	const char *p = n, *c;
	size_t len = strlen(n);

	if (len == 0 || len >= CP_NAME_MAX || n[0] == '/')
		return -EINVAL;
	for (c = n; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -EINVAL;
	while (*p != '\0') {
		size_t k = strcspn(p, "/");

		if (k == 0 || (k == 1 && p[0] == '.') ||
		    (k == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		p += k;
		if (*p == '/')
			p++;
	}
	return 0;
}

/* --- the pump: a thread on one end of a pipe, exec on the other ------- */

struct pump {
	int fd;			/* the pipe end the thread owns */
	const char *local;	/* path, or "-" */
	const char *rename;	/* out: the top-level name becomes this */
	int rootfd;		/* out: where it lands */
	long long files, bytes;
	char err[300];
	struct progress p;
	int show;
	char buf[65536];	/* the file data's (threads' stacks are small) */
};
#define CP_BUF sizeof(((struct pump *)0)->buf)

static void
octal(char *f, size_t n, unsigned long long v)
{
	snprintf(f, n, "%0*llo", (int)n - 1, v);
}

/* One ustar header for name (split into prefix/name when long). */
static int
put_header(struct pump *pu, const char *name, const struct stat *st,
    char type, const char *link, unsigned long long size)
{
	unsigned char h[TAR_BLOCK];
	size_t len = strlen(name), cut = 0;
	unsigned sum = 0;
	int i;

	memset(h, 0, sizeof(h));
	if (len > 100) {
		for (cut = len - 1; cut > 0; cut--)
			if (name[cut] == '/' && cut <= 155 && len - cut - 1 <= 100)
				break;
		if (cut == 0) {
			snprintf(pu->err, sizeof(pu->err), "%.200s: a name "
			    "too long for a tar header (skipped)", name);
			fprintf(stderr, "box: %s\n", pu->err);
			pu->err[0] = '\0';
			return 1;
		}
		memcpy(h + 345, name, cut);
		memcpy(h, name + cut + 1, len - cut - 1);
	} else
		memcpy(h, name, len);
	octal((char *)h + 100, 8, st->st_mode & 07777);
	octal((char *)h + 108, 8, 0);
	octal((char *)h + 116, 8, 0);
	octal((char *)h + 124, 12, size);
	octal((char *)h + 136, 12, (unsigned long long)st->st_mtime);
	h[156] = (unsigned char)type;
	if (link != NULL)
		snprintf((char *)h + 157, 100, "%s", link);
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	return fd_write_all(pu->fd, h, sizeof(h)) < 0 ? -1 : 0;
}

static int pack(struct pump *, int, const char *, const char *);

static int
pack_link(struct pump *pu, int dfd, const char *base, const char *name,
    const struct stat *st)
{
	char link[101];
	ssize_t n;

	n = readlinkat(dfd, base, link, sizeof(link));
	if (n < 0 || n >= (ssize_t)sizeof(link)) {
		fprintf(stderr, "box: %s: a link target over 100 bytes "
		    "(skipped)\n", name);
		return 0;
	}
	link[n] = '\0';
	pu->files++;
	return put_header(pu, name, st, '2', link, 0) < 0 ? -1 : 0;
}

static int
pack_dir(struct pump *pu, int dfd, const char *base, const char *name,
    const struct stat *st)
{
	char sub[CP_NAME_MAX];
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	snprintf(sub, sizeof(sub), "%s/", name);
	if (put_header(pu, sub, st, '5', NULL, 0) < 0)
		return -1;
	fd = openat(dfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		snprintf(pu->err, sizeof(pu->err), "%.200s: %s", name,
		    strerror(errno));
		return -1;
	}
	pu->files++;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (strlen(name) + strlen(de->d_name) + 2 > sizeof(sub))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", name, de->d_name);
		rc = pack(pu, dirfd(d), de->d_name, sub);
	}
	closedir(d);
	return rc;
}

/* A regular file's data after its header, padded to a block. */
static int
pack_data(struct pump *pu, int fd, long long size)
{
	char *buf = pu->buf;
	long long left = size;
	ssize_t n;

	while (left > 0 && (n = read(fd, buf, CP_BUF)) > 0) {
		if (n > left)
			n = (ssize_t)left;
		if (fd_write_all(pu->fd, buf, (size_t)n) < 0)
			break;
		left -= n;
		pu->bytes += n;
		if (pu->show)
			progress_note(&pu->p, "");
	}
	/* a file that shrank meanwhile: padded, as tar does */
	memset(buf, 0, CP_BUF);
	while (left > 0) {
		n = left > (long long)CP_BUF ? (ssize_t)CP_BUF : (ssize_t)left;
		if (fd_write_all(pu->fd, buf, (size_t)n) < 0)
			break;
		left -= n;
	}
	if (left > 0) {
		snprintf(pu->err, sizeof(pu->err), "writing the stream: %s",
		    strerror(errno));
		return -1;
	}
	n = (ssize_t)((TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK);
	pu->files++;
	return fd_write_all(pu->fd, buf, (size_t)n) < 0 ? -1 : 0;
}

static int
pack_file(struct pump *pu, int dfd, const char *base, const char *name,
    const struct stat *st)
{
	int fd, rc;

	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(pu->err, sizeof(pu->err), "%.200s: %s", name,
		    strerror(errno));
		return -1;
	}
	if ((rc = put_header(pu, name, st, '0', NULL,
	    (unsigned long long)st->st_size)) != 0) {
		close(fd);
		return rc < 0 ? -1 : 0;
	}
	rc = pack_data(pu, fd, (long long)st->st_size);
	close(fd);
	return rc;
}

static int
pack(struct pump *pu, int dfd, const char *base, const char *name)
{
	struct stat st;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		snprintf(pu->err, sizeof(pu->err), "%.200s: %s", name,
		    strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		return pack_link(pu, dfd, base, name, &st);
	if (S_ISDIR(st.st_mode))
		return pack_dir(pu, dfd, base, name, &st);
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "box: %s: not a file, directory or symlink "
		    "(skipped)\n", name);
		return 0;
	}
	return pack_file(pu, dfd, base, name, &st);
}

static void *
packer(void *arg)
{
	struct pump *pu = arg;
	static const unsigned char zero[2 * TAR_BLOCK];
	char *dup = strdup(pu->local);

	if (dup != NULL) {
		while (strlen(dup) > 1 && dup[strlen(dup) - 1] == '/')
			dup[strlen(dup) - 1] = '\0';
		if (pack(pu, AT_FDCWD, dup, pu->rename) == 0)
			fd_write_all(pu->fd, zero, sizeof(zero));
	}
	free(dup);
	close(pu->fd);
	return NULL;
}

/* --- out of a box: the strict reader ------------------------------------ */

static int
read_full(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n > 0) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/*
 * Walk name's directories from root with O_NOFOLLOW (making them, 0700,
 * when missing): the descriptor of the last one, and *last its base name.
 */
static int
walk(int root, char *name, char **last, int make)
{
	int fd = dup(root), next;
	char *p = name, *slash;

	while ((slash = strchr(p, '/')) != NULL && slash[1] != '\0') {
		*slash = '\0';
		if (make && mkdirat(fd, p, 0700) < 0 && errno != EEXIST) {
			close(fd);
			return -1;
		}
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		*slash = '/';
		close(fd);
		if (next < 0)
			return -1;
		fd = next;
		p = slash + 1;
	}
	*last = p;
	if ((slash = strchr(p, '/')) != NULL)
		*slash = '\0';	/* a directory's trailing slash */
	return fd;
}

struct dmode {
	char *name;
	mode_t mode;
};

/* The reader's state between headers (on the heap: threads' stacks). */
struct unpack {
	unsigned char h[TAR_BLOCK];
	char name[CP_NAME_MAX + 160], link[CP_NAME_MAX];
	char longname[CP_NAME_MAX], longlink[CP_NAME_MAX];
	char top[256];		/* the one top-level name the box may send */
	int have_long, have_link;
	struct dmode *dirs;	/* modes set last, once nothing goes in */
	int nd;
};

/*
 * The next header, checked, and its size: 1, or 0 at the end or on an
 * error (then in pu->err).  Two zero blocks end a tar; one zero block and
 * then the end of the stream is taken as the end too.
 */
static int
next_header(struct pump *pu, struct unpack *u, long long *size)
{
	const char *bad;
	size_t k;
	int zeros = 0;

	for (;;) {
		if (read_full(pu->fd, u->h, sizeof(u->h)) < 0) {
			if (zeros == 0)
				snprintf(pu->err, sizeof(pu->err), "the box's "
				    "tar stream ended early");
			return 0;
		}
		for (k = 0; k < sizeof(u->h) && u->h[k] == 0; k++)
			;
		if (k < sizeof(u->h))
			break;
		if (++zeros == 2)
			return 0;
	}
	if ((bad = tar_header_bad(u->h)) != NULL) {
		snprintf(pu->err, sizeof(pu->err), "the box sent %s", bad);
		return 0;
	}
	if ((*size = tar_num(u->h + 124, 12)) < 0) {
		snprintf(pu->err, sizeof(pu->err), "the box sent a bad size");
		return 0;
	}
	return 1;
}

/* A GNU long name ('L') or link ('K'), kept for the next header. */
static int
read_long(struct pump *pu, struct unpack *u, char type, long long size)
{
	char *to = type == 'L' ? u->longname : u->longlink;

	if (size >= CP_NAME_MAX || read_full(pu->fd, to,
	    (size_t)((size + 511) / 512 * 512)) < 0) {
		snprintf(pu->err, sizeof(pu->err), "the box sent a long name "
		    "over %d bytes", CP_NAME_MAX);
		return -1;
	}
	to[size] = '\0';
	if (type == 'L')
		u->have_long = 1;
	else
		u->have_link = 1;
	return 0;
}

static void
header_names(struct unpack *u)
{
	if (u->have_long)
		snprintf(u->name, sizeof(u->name), "%s", u->longname);
	else if (u->h[345] != '\0')
		snprintf(u->name, sizeof(u->name), "%.155s/%.100s",
		    (char *)u->h + 345, (char *)u->h);
	else
		snprintf(u->name, sizeof(u->name), "%.100s", (char *)u->h);
	if (u->have_link)
		snprintf(u->link, sizeof(u->link), "%s", u->longlink);
	else
		snprintf(u->link, sizeof(u->link), "%.100s",
		    (char *)u->h + 157);
	u->have_long = u->have_link = 0;
}

/*
 * The entry's name checked, and renamed under the target (one top-level
 * name, which becomes the target's): the descriptor of the directory it
 * goes in and *last its base name, or -1 (in pu->err).
 */
static int
place_entry(struct pump *pu, struct unpack *u, char **last)
{
	char tmp[sizeof(u->name)];
	size_t k;
	int d;

	if (cp_name_ok(u->name) < 0) {
		snprintf(pu->err, sizeof(pu->err), "the box sent an unsafe "
		    "name: %.200s", u->name);
		return -1;
	}
	k = strcspn(u->name, "/");
	if (u->top[0] == '\0')
		snprintf(u->top, sizeof(u->top), "%.*s", (int)k, u->name);
	if (strlen(u->top) != k || strncmp(u->top, u->name, k) != 0) {
		snprintf(pu->err, sizeof(pu->err), "the box sent a second "
		    "top-level name: %.200s", u->name);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s%s", pu->rename, u->name + k);
	snprintf(u->name, sizeof(u->name), "%s", tmp);
	if ((d = walk(pu->rootfd, u->name, last, 1)) < 0)
		snprintf(pu->err, sizeof(pu->err), "%.200s: a directory on "
		    "its way is missing or a symlink (not followed)", u->name);
	return d;
}

static int
unpack_dir(struct pump *pu, struct unpack *u, int d, const char *last,
    mode_t mode)
{
	if (mkdirat(d, last, 0700) < 0 && errno != EEXIST) {
		snprintf(pu->err, sizeof(pu->err), "%.200s: %s", u->name,
		    strerror(errno));
		close(d);
		return -1;
	}
	close(d);
	if (u->nd < CP_DIRS_MAX) {
		u->dirs[u->nd].name = strdup(u->name);
		u->dirs[u->nd++].mode = mode;
	}
	return 0;
}

/* A file's data into fd, then the block's padding: 0, or -1. */
static int
unpack_data(struct pump *pu, struct unpack *u, int fd, mode_t mode,
    long long size)
{
	long long left = size, pad;
	char *buf = pu->buf;

	while (left > 0) {
		size_t n = left > (long long)CP_BUF ? CP_BUF : (size_t)left;

		if (read_full(pu->fd, buf, n) < 0 ||
		    fd_write_all(fd, buf, n) < 0)
			break;
		left -= (long long)n;
		pu->bytes += (long long)n;
		if (pu->show)
			progress_note(&pu->p, "");
	}
	fchmod(fd, mode);
	close(fd);
	if (left > 0) {
		snprintf(pu->err, sizeof(pu->err), "%.200s: the stream ended "
		    "inside it", u->name);
		return -1;
	}
	pad = (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK;
	if (pad > 0 && read_full(pu->fd, buf, (size_t)pad) < 0)
		return -1;
	return 0;
}

/* A symlink ('2') or a regular file, replacing what was there. */
static int
unpack_file(struct pump *pu, struct unpack *u, int d, const char *last,
    char type, mode_t mode, long long size)
{
	int fd;

	if (unlinkat(d, last, 0) < 0 && errno != ENOENT)
		fd = -1;
	else if (type == '2')
		fd = symlinkat(u->link, d, last) < 0 ? -1 : -2;
	else
		fd = openat(d, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd == -1)
		snprintf(pu->err, sizeof(pu->err), "%.200s: %s", u->name,
		    strerror(errno));
	close(d);
	if (fd < 0)
		return fd == -2 ? 0 : -1;
	return unpack_data(pu, u, fd, mode, size);
}

static void
skip_data(struct pump *pu, long long size)
{
	size = (size + 511) / 512 * 512;
	while (size > 0) {
		size_t n = size > (long long)CP_BUF ? CP_BUF : (size_t)size;

		if (read_full(pu->fd, pu->buf, n) < 0)
			break;
		size -= (long long)n;
	}
}

static void
unpack_all(struct pump *pu, struct unpack *u)
{
	long long size;
	char type, *last;
	mode_t mode;
	int d, rc;

	while (next_header(pu, u, &size)) {
		type = (char)u->h[156];
		if (type == 'L' || type == 'K') {
			if (read_long(pu, u, type, size) < 0)
				return;
			continue;
		}
		header_names(u);
		mode = (mode_t)(tar_num(u->h + 100, 8) & 0777);
		if (type != '0' && type != '\0' && type != '5' && type != '2') {
			if (type != 'x' && type != 'g')
				fprintf(stderr, "box: %.200s: not a file, "
				    "directory or symlink (skipped)\n",
				    u->name);
			skip_data(pu, size);
			continue;
		}
		if ((d = place_entry(pu, u, &last)) < 0)
			return;
		pu->files++;
		rc = type == '5' ? unpack_dir(pu, u, d, last, mode) :
		    unpack_file(pu, u, d, last, type, mode, size);
		if (rc < 0)
			return;
	}
}

/* The directories' own modes, deepest (last written) first. */
static void
restore_dirs(struct pump *pu, struct unpack *u)
{
	char *last;
	int i, d, fd;

	for (i = u->nd - 1; i >= 0; i--) {
		if ((d = walk(pu->rootfd, u->dirs[i].name, &last, 0)) >= 0) {
			fd = openat(d, last, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				fchmod(fd, u->dirs[i].mode);
				close(fd);
			}
			close(d);
		}
		free(u->dirs[i].name);
	}
}

static void *
unpacker(void *arg)
{
	struct pump *pu = arg;
	struct unpack *u = calloc(1, sizeof(*u));

	if (u != NULL)
		u->dirs = calloc(CP_DIRS_MAX, sizeof(*u->dirs));
	if (u == NULL || u->dirs == NULL)
		snprintf(pu->err, sizeof(pu->err), "out of memory");
	else {
		unpack_all(pu, u);
		restore_dirs(pu, u);
	}
	if (u != NULL)
		free(u->dirs);
	free(u);
	/* drain, so the box's tar never blocks on a full pipe */
	while (read(pu->fd, pu->buf, CP_BUF) > 0)
		;
	close(pu->fd);
	return NULL;
}

/* --- the verb's pipeline ------------------------------------------------ */

/* "<box>:<path>": 1 with box and path split; 0 for a local path. */
static int
box_side(const char *s, char *box, size_t cap, const char **path)
{
	const char *colon = strchr(s, ':');

	if (colon == NULL || colon == s || (size_t)(colon - s) >= cap ||
	    memchr(s, '/', (size_t)(colon - s)) != NULL)
		return 0;
	snprintf(box, cap, "%.*s", (int)(colon - s), s);
	*path = colon + 1;
	return 1;
}

static const char out_sh[] =
	"p=$1\n"
	"[ -e \"$p\" ] || [ -L \"$p\" ] || { echo \"box: no $p in the box\" >&2; "
	"exit 66; }\n"
	"cd \"$(dirname -- \"$p\")\" && exec tar -cf - -- \"$(basename -- \"$p\")\"\n";

static const char in_sh[] =
	"d=$1 n=$2 u=$3\n"
	"if [ -z \"$n\" ]; then mkdir -p -- \"$d\" || exit 1; t=$d\n"
	"elif [ -d \"$d\" ]; then t=$d/$n\n"
	"else t=$d; fi\n"
	"[ -n \"$n\" ] && [ -d \"$t\" ] && { echo \"box: $t is a directory "
	"already\" >&2; exit 65; }\n"
	"tmp=$(mktemp -d \"$(dirname -- \"$t\")/.box-cp.XXXXXX\") || exit 1\n"
	"tar -C \"$tmp\" -xpf - || { rm -rf -- \"$tmp\"; exit 1; }\n"
	"chown -R -h \"$u:\" \"$tmp\" 2>/dev/null || chown -R -h \"$u\" \"$tmp\"\n"
	"if [ -n \"$n\" ]; then mv -f -- \"$tmp/$n\" \"$t\"; rc=$?\n"
	"else cp -a \"$tmp/.\" \"$t/\"; rc=$?; fi\n"
	"rm -rf -- \"$tmp\"\n"
	"exit $rc\n";

/*
 * The two sides of a copy: 1 into the box, 0 out of it, with the box's
 * name, its path and the local side; or a usage error.
 */
static int
cp_sides(const struct box_cp_req *q, char *box, size_t cap,
    const char **bpath, const char **local, struct box_err *e)
{
	char other[64];
	int into;

	into = box_side(q->dst, box, cap, bpath);
	if (box_side(q->src, into ? other : box, into ? sizeof(other) : cap,
	    into ? local : bpath)) {
		if (into)
			return err_usage(e, "both sides are boxes: copy through "
			    "this host (box cp %s /tmp/x, then box cp /tmp/x "
			    "%s)", q->src, q->dst);
	} else if (!into)
		return err_usage(e, "one side is <box>:<path> (box cp "
		    "<box>:<path> <local>, or box cp <local> <box>:<path>)");
	*local = into ? q->src : q->dst;
	if ((*bpath)[0] != '/')
		return err_usage(e, "the box's path is absolute: %s:/%s", box,
		    *bpath);
	if (!into && strcmp(*local, "-") == 0 && isatty(1))
		return err_usage(e, "stdout is a terminal: a tar stream is no "
		    "use there (redirect it, or name a local path)");
	return into;
}

/* One copy's moving parts: the pump (64 KiB, on the heap), its thread. */
struct cp_run {
	struct pump *pu;
	struct exec_stdio io;
	pthread_attr_t ta;
	pthread_t th;
	int pipefd[2];
	int threaded;
};

static int
cp_thread(struct cp_run *r, void *(*fn)(void *), struct box_err *e)
{
	if (pthread_create(&r->th, &r->ta, fn, r->pu) != 0) {
		close(r->pipefd[0]);
		close(r->pipefd[1]);
		return err_set(e, -EAGAIN, "no thread");
	}
	r->threaded = 1;
	return 0;
}

/* Into the box: a packer thread writes the tar the box's shell reads. */
static int
start_in(struct cp_run *r, const char *local, const char *base,
    struct box_err *e)
{
	struct stat sb;

	if (strcmp(local, "-") == 0) {
		r->io.in = 0;
		return 0;
	}
	if (lstat(local, &sb) < 0)
		return err_set(e, -errno, "%s: %s", local, strerror(errno));
	if (pipe(r->pipefd) < 0)
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	r->pu->fd = r->pipefd[1];
	r->pu->local = local;
	r->pu->rename = base;
	r->io.in = r->pipefd[0];
	return cp_thread(r, packer, e);
}

/* Out of the box: into an existing directory, or as the name given. */
static int
out_target(const char *local, const char *bpath, char *dir, size_t cap,
    const char **rn, struct box_err *e)
{
	struct stat sb;
	char *slash;

	snprintf(dir, cap, "%s", local);
	if (stat(local, &sb) == 0 && S_ISDIR(sb.st_mode))
		*rn = strrchr(bpath, '/') + 1;
	else if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		*rn = local + (slash - dir) + 1;
		if (dir[0] == '\0')
			snprintf(dir, cap, "/");
	} else {
		snprintf(dir, cap, ".");
		*rn = local;
	}
	if ((*rn)[0] == '\0' || cp_name_ok(*rn) < 0 || strchr(*rn, '/') != NULL)
		return err_usage(e, "cannot copy to '%s': name the file or "
		    "directory it becomes", local);
	return 0;
}

/* Out of the box: an unpacker thread reads the tar the box's shell writes. */
static int
start_out(struct cp_run *r, const char *local, const char *bpath,
    struct box_err *e)
{
	char dir[4096];
	const char *rn;
	int rc;

	if (strcmp(local, "-") == 0)
		return 0;
	if ((rc = out_target(local, bpath, dir, sizeof(dir), &rn, e)) < 0)
		return rc;
	if ((r->pu->rootfd = open(dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return err_set(e, -errno, "%s: %s", dir, strerror(errno));
	if (pipe(r->pipefd) < 0) {
		rc = err_set(e, -errno, "pipe: %s", strerror(errno));
		close(r->pu->rootfd);
		return rc;
	}
	r->pu->fd = r->pipefd[0];
	r->pu->rename = rn;
	r->io.out = r->pipefd[1];
	if ((rc = cp_thread(r, unpacker, e)) < 0)
		close(r->pu->rootfd);
	return rc;
}

/* The exec, the thread joined, and the verdict: the pump's, then the box's. */
static int
cp_exec(struct incus *c, const char *box, const struct exec_req *req,
    struct cp_run *r, int into, struct box_err *e)
{
	struct exec_status st;
	int rc;

	rc = exec_run(c, box, req, &r->io, &st, e);
	if (r->threaded) {
		close(into ? r->pipefd[0] : r->pipefd[1]);
		pthread_join(r->th, NULL);
		if (!into)
			close(r->pu->rootfd);
	}
	if (rc == 0 && r->pu->err[0] != '\0')
		rc = err_set(e, -EIO, "%s", r->pu->err);
	else if (rc == 0 && st.code != 0)
		rc = err_set(e, -EIO, "the box's side of the copy failed "
		    "(exit %d)", st.code);
	return rc;
}

static int
cp_start(struct cp_run *r, const struct box_info *bi, const char *local,
    const char *bpath, int into, const char **argv, char *base, size_t cap,
    struct box_err *e)
{
	const char *b = strrchr(local, '/');

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = into ? in_sh : out_sh;
	argv[3] = "box-cp";
	argv[4] = bpath;
	if (!into) {
		argv[5] = NULL;
		return start_out(r, local, bpath, e);
	}
	snprintf(base, cap, "%s", strcmp(local, "-") == 0 ? "" :
	    b != NULL && b[1] != '\0' ? b + 1 : local);
	argv[5] = base;
	argv[6] = bi->user;
	argv[7] = NULL;
	return start_in(r, local, base, e);
}

int
box_cp(const struct box_cp_req *q, struct box_cp_out *o, struct box_err *e)
{
	const char *bpath = NULL, *local = NULL, *argv[8];
	char box[64], base[256];
	struct box_info bi;
	struct exec_req req;
	struct cp_run r;
	struct incus c;
	int into, rc;

	memset(o, 0, sizeof(*o));
	if ((into = cp_sides(q, box, sizeof(box), &bpath, &local, e)) < 0)
		return into;
	snprintf(o->box, sizeof(o->box), "%s", box);
	o->into = into;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_resolve(&c, box, &bi, e)) < 0)
		goto done;
	if (!bi.running) {
		rc = err_set(e, -EINVAL, "box '%s' is %s — it must be running",
		    box, bi.status);
		err_fix(e, "box start %s", box);
		goto done;
	}
	memset(&r, 0, sizeof(r));
	if ((r.pu = calloc(1, sizeof(*r.pu))) == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto done;
	}
	/* a tree is walked recursively: a stack of its own, not musl's 128K */
	pthread_attr_init(&r.ta);
	pthread_attr_setstacksize(&r.ta, 4u << 20);
	r.io.in = -1;
	r.io.out = 1;
	r.io.err = 2;
	r.io.tty = -1;
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.uid = req.gid = -1;
	if ((r.pu->show = isatty(2)) != 0)
		progress_start(&r.pu->p, into ? "copying in" : "copying out");
	rc = cp_start(&r, &bi, local, bpath, into, argv, base, sizeof(base), e);
	if (rc == 0)
		rc = cp_exec(&c, box, &req, &r, into, e);
	if (r.pu->show)
		progress_clear(&r.pu->p);
	o->files = r.pu->files;
	o->bytes = r.pu->bytes;
	pthread_attr_destroy(&r.ta);
	free(r.pu);
done:
	incus_close(&c);
	return rc;
}
