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

static int
pack(struct pump *pu, int dfd, const char *base, const char *name)
{
	struct stat st;
	char link[101], sub[CP_NAME_MAX], *buf = pu->buf;
	ssize_t n;
	int fd, rc = 0;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		snprintf(pu->err, sizeof(pu->err), "%.200s: %s", name,
		    strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlinkat(dfd, base, link, sizeof(link));
		if (n < 0 || n >= (ssize_t)sizeof(link)) {
			fprintf(stderr, "box: %s: a link target over 100 bytes "
			    "(skipped)\n", name);
			return 0;
		}
		link[n] = '\0';
		pu->files++;
		return put_header(pu, name, &st, '2', link, 0) < 0 ? -1 : 0;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *de;

		snprintf(sub, sizeof(sub), "%s/", name);
		if (put_header(pu, sub, &st, '5', NULL, 0) < 0)
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
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "box: %s: not a file, directory or symlink "
		    "(skipped)\n", name);
		return 0;
	}
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(pu->err, sizeof(pu->err), "%.200s: %s", name,
		    strerror(errno));
		return -1;
	}
	if ((rc = put_header(pu, name, &st, '0', NULL,
	    (unsigned long long)st.st_size)) != 0) {
		close(fd);
		return rc < 0 ? -1 : 0;
	}
	{
		long long left = st.st_size;

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
			n = left > (long long)CP_BUF ? (ssize_t)CP_BUF :
			    (ssize_t)left;
			if (fd_write_all(pu->fd, buf, (size_t)n) < 0)
				break;
			left -= n;
		}
		if (left > 0) {
			close(fd);
			snprintf(pu->err, sizeof(pu->err), "writing the "
			    "stream: %s", strerror(errno));
			return -1;
		}
		n = (ssize_t)((TAR_BLOCK - st.st_size % TAR_BLOCK) % TAR_BLOCK);
		close(fd);
		pu->files++;
		return fd_write_all(pu->fd, buf, (size_t)n) < 0 ? -1 : 0;
	}
}

static void *
packer(void *arg)
{
	struct pump *pu = arg;
	static const unsigned char zero[2 * TAR_BLOCK];
	char *dup = strdup(pu->local), *slash;
	const char *base;

	if (dup == NULL)
		goto out;
	while (strlen(dup) > 1 && dup[strlen(dup) - 1] == '/')
		dup[strlen(dup) - 1] = '\0';
	slash = strrchr(dup, '/');
	base = slash != NULL ? slash + 1 : dup;
	if (pack(pu, AT_FDCWD, dup, pu->rename) == 0)
		fd_write_all(pu->fd, zero, sizeof(zero));
out:
	free(dup);
	(void)base;
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

static void *
unpacker(void *arg)
{
	struct pump *pu = arg;
	unsigned char h[TAR_BLOCK];
	char name[CP_NAME_MAX + 160], longname[CP_NAME_MAX], top[256] = "";
	char link[CP_NAME_MAX], longlink[CP_NAME_MAX], *buf = pu->buf, *last;
	struct dmode *dirs = calloc(CP_DIRS_MAX, sizeof(*dirs));
	int nd = 0, zeros = 0, i, fd, d, have_long = 0, have_link = 0;
	long long size;

	if (dirs == NULL) {
		snprintf(pu->err, sizeof(pu->err), "out of memory");
		goto out;
	}
	for (;;) {
		const char *bad;
		char type;
		mode_t mode;
		size_t k;

		if (read_full(pu->fd, h, sizeof(h)) < 0) {
			if (zeros == 0)
				snprintf(pu->err, sizeof(pu->err), "the box's "
				    "tar stream ended early");
			break;
		}
		for (k = 0; k < sizeof(h) && h[k] == 0; k++)
			;
		if (k == sizeof(h)) {
			if (++zeros == 2)
				break;
			continue;
		}
		zeros = 0;
		if ((bad = tar_header_bad(h)) != NULL) {
			snprintf(pu->err, sizeof(pu->err), "the box sent %s",
			    bad);
			break;
		}
		size = tar_num(h + 124, 12);
		type = (char)h[156];
		if (size < 0) {
			snprintf(pu->err, sizeof(pu->err), "the box sent a bad "
			    "size");
			break;
		}
		if (type == 'L' || type == 'K') {	/* GNU long name/link */
			char *to = type == 'L' ? longname : longlink;

			if (size >= CP_NAME_MAX || read_full(pu->fd, to,
			    (size_t)((size + 511) / 512 * 512)) < 0) {
				snprintf(pu->err, sizeof(pu->err), "the box "
				    "sent a long name over %d bytes",
				    CP_NAME_MAX);
				break;
			}
			to[size] = '\0';
			if (type == 'L')
				have_long = 1;
			else
				have_link = 1;
			continue;
		}
		if (have_long)
			snprintf(name, sizeof(name), "%s", longname);
		else if (h[345] != '\0')
			snprintf(name, sizeof(name), "%.155s/%.100s",
			    (char *)h + 345, (char *)h);
		else
			snprintf(name, sizeof(name), "%.100s", (char *)h);
		if (have_link)
			snprintf(link, sizeof(link), "%s", longlink);
		else
			snprintf(link, sizeof(link), "%.100s", (char *)h + 157);
		have_long = have_link = 0;
		mode = (mode_t)(tar_num(h + 100, 8) & 0777 & ~0);
		if (type == 'x' || type == 'g' || (type != '0' &&
		    type != '\0' && type != '5' && type != '2')) {
			if (type != 'x' && type != 'g')
				fprintf(stderr, "box: %.200s: not a file, "
				    "directory or symlink (skipped)\n", name);
			goto skip;
		}
		if (cp_name_ok(name) < 0) {
			snprintf(pu->err, sizeof(pu->err), "the box sent an "
			    "unsafe name: %.200s", name);
			break;
		}
		/* one top-level name, renamed to the target's */
		k = strcspn(name, "/");
		if (top[0] == '\0')
			snprintf(top, sizeof(top), "%.*s", (int)k, name);
		if (strlen(top) != k || strncmp(top, name, k) != 0) {
			snprintf(pu->err, sizeof(pu->err), "the box sent a "
			    "second top-level name: %.200s", name);
			break;
		}
		{
			char tmp[sizeof(name)];

			snprintf(tmp, sizeof(tmp), "%s%s", pu->rename,
			    name + k);
			snprintf(name, sizeof(name), "%s", tmp);
		}
		if ((d = walk(pu->rootfd, name, &last, 1)) < 0) {
			snprintf(pu->err, sizeof(pu->err), "%.200s: a "
			    "directory on its way is missing or a symlink "
			    "(not followed)", name);
			break;
		}
		pu->files++;
		if (type == '5') {
			if (mkdirat(d, last, 0700) < 0 && errno != EEXIST) {
				close(d);
				snprintf(pu->err, sizeof(pu->err), "%.200s: %s",
				    name, strerror(errno));
				break;
			}
			close(d);
			if (nd < CP_DIRS_MAX) {
				dirs[nd].name = strdup(name);
				dirs[nd++].mode = mode;
			}
			continue;
		}
		if (unlinkat(d, last, 0) < 0 && errno != ENOENT) {
			close(d);
			snprintf(pu->err, sizeof(pu->err), "%.200s: %s", name,
			    strerror(errno));
			break;
		}
		if (type == '2') {
			i = symlinkat(link, d, last);
			close(d);
			if (i < 0) {
				snprintf(pu->err, sizeof(pu->err), "%.200s: %s",
				    name, strerror(errno));
				break;
			}
			continue;
		}
		fd = openat(d, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		close(d);
		if (fd < 0) {
			snprintf(pu->err, sizeof(pu->err), "%.200s: %s", name,
			    strerror(errno));
			break;
		}
		while (size > 0) {
			size_t n = size > (long long)CP_BUF ? CP_BUF :
			    (size_t)size;

			if (read_full(pu->fd, buf, n) < 0 ||
			    fd_write_all(fd, buf, n) < 0)
				break;
			size -= (long long)n;
			pu->bytes += (long long)n;
			if (pu->show)
				progress_note(&pu->p, "");
		}
		fchmod(fd, mode);
		close(fd);
		if (size > 0) {
			snprintf(pu->err, sizeof(pu->err), "%.200s: the stream "
			    "ended inside it", name);
			break;
		}
		size = (TAR_BLOCK - (tar_num(h + 124, 12) % TAR_BLOCK)) %
		    TAR_BLOCK;
		if (size > 0 && read_full(pu->fd, buf, (size_t)size) < 0)
			break;
		continue;
skip:
		size = (size + 511) / 512 * 512;
		while (size > 0) {
			size_t n = size > (long long)CP_BUF ? CP_BUF :
			    (size_t)size;

			if (read_full(pu->fd, buf, n) < 0)
				break;
			size -= (long long)n;
		}
	}
	/* the directories' own modes, deepest last written first */
	for (i = nd - 1; i >= 0; i--) {
		if ((d = walk(pu->rootfd, dirs[i].name, &last, 0)) >= 0) {
			fd = openat(d, last, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				fchmod(fd, dirs[i].mode);
				close(fd);
			}
			close(d);
		}
		free(dirs[i].name);
	}
out:
	free(dirs);
	/* drain, so the box's tar never blocks on a full pipe */
	while (read(pu->fd, buf, CP_BUF) > 0)
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

int
box_cp(const struct box_cp_req *q, struct box_cp_out *o, struct box_err *e)
{
	const char *bpath = NULL, *local, *argv[8];
	char box[64], other[64], base[256];
	struct box_info bi;
	struct exec_req req;
	struct exec_stdio io;
	struct exec_status st;
	static struct pump pu;	/* 64 KiB: not on the stack either */
	struct incus c;
	pthread_attr_t ta;
	pthread_t th;
	int pipefd[2], into, rc, threaded = 0;

	memset(o, 0, sizeof(*o));
	memset(&pu, 0, sizeof(pu));
	/* a tree is walked recursively: a stack of its own, not musl's 128K */
	pthread_attr_init(&ta);
	pthread_attr_setstacksize(&ta, 4u << 20);
	into = box_side(q->dst, box, sizeof(box), &bpath);
	if (box_side(q->src, into ? other : box, sizeof(box), into ?
	    &local : &bpath)) {
		if (into)
			return err_usage(e, "both sides are boxes: copy through "
			    "this host (box cp %s /tmp/x, then box cp /tmp/x "
			    "%s)", q->src, q->dst);
	} else if (!into)
		return err_usage(e, "one side is <box>:<path> (box cp "
		    "<box>:<path> <local>, or box cp <local> <box>:<path>)");
	local = into ? q->src : q->dst;
	if (bpath[0] != '/')
		return err_usage(e, "the box's path is absolute: %s:/%s", box,
		    bpath);
	if (!into && strcmp(local, "-") == 0 && isatty(1))
		return err_usage(e, "stdout is a terminal: a tar stream is no "
		    "use there (redirect it, or name a local path)");
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
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.uid = req.gid = -1;
	io.in = -1;
	io.out = 1;
	io.err = 2;
	io.tty = -1;
	io.timeout_ms = 0;
	io.sig = NULL;
	pu.show = isatty(2);
	if (pu.show)
		progress_start(&pu.p, into ? "copying in" : "copying out");
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[3] = "box-cp";
	if (into) {
		const char *b = strrchr(local, '/');

		snprintf(base, sizeof(base), "%s", strcmp(local, "-") == 0 ?
		    "" : b != NULL && b[1] != '\0' ? b + 1 : local);
		argv[2] = in_sh;
		argv[4] = bpath;
		argv[5] = base;
		argv[6] = bi.user;
		argv[7] = NULL;
		if (strcmp(local, "-") == 0)
			io.in = 0;
		else {
			struct stat sb;

			if (lstat(local, &sb) < 0) {
				rc = err_set(e, -errno, "%s: %s", local,
				    strerror(errno));
				goto done;
			}
			if (pipe(pipefd) < 0) {
				rc = err_set(e, -errno, "pipe: %s",
				    strerror(errno));
				goto done;
			}
			pu.fd = pipefd[1];
			pu.local = local;
			pu.rename = base;
			io.in = pipefd[0];
			if (pthread_create(&th, &ta, packer, &pu) != 0) {
				close(pipefd[0]);
				close(pipefd[1]);
				rc = err_set(e, -EAGAIN, "no thread");
				goto done;
			}
			threaded = 1;
		}
	} else {
		argv[2] = out_sh;
		argv[4] = bpath;
		argv[5] = NULL;
		if (strcmp(local, "-") != 0) {
			struct stat sb;
			char dir[4096], *slash;
			const char *rn;

			/* into an existing directory, or as the name given */
			if (stat(local, &sb) == 0 && S_ISDIR(sb.st_mode)) {
				snprintf(dir, sizeof(dir), "%s", local);
				rn = strrchr(bpath, '/') + 1;
			} else {
				snprintf(dir, sizeof(dir), "%s", local);
				slash = strrchr(dir, '/');
				if (slash != NULL) {
					*slash = '\0';
					rn = local + (slash - dir) + 1;
					if (dir[0] == '\0')
						snprintf(dir, sizeof(dir), "/");
				} else {
					snprintf(dir, sizeof(dir), ".");
					rn = local;
				}
			}
			if (rn[0] == '\0' || cp_name_ok(rn) < 0 ||
			    strchr(rn, '/') != NULL) {
				rc = err_usage(e, "cannot copy to '%s': name the "
				    "file or directory it becomes", local);
				goto done;
			}
			pu.rootfd = open(dir, O_RDONLY | O_DIRECTORY |
			    O_CLOEXEC);
			if (pu.rootfd < 0) {
				rc = err_set(e, -errno, "%s: %s", dir,
				    strerror(errno));
				goto done;
			}
			if (pipe(pipefd) < 0) {
				close(pu.rootfd);
				rc = err_set(e, -errno, "pipe: %s",
				    strerror(errno));
				goto done;
			}
			pu.fd = pipefd[0];
			pu.rename = rn;
			io.out = pipefd[1];
			if (pthread_create(&th, &ta, unpacker, &pu) != 0) {
				close(pipefd[0]);
				close(pipefd[1]);
				close(pu.rootfd);
				rc = err_set(e, -EAGAIN, "no thread");
				goto done;
			}
			threaded = 1;
		}
	}
	rc = exec_run(&c, box, &req, &io, &st, e);
	if (threaded) {
		close(into ? pipefd[0] : pipefd[1]);
		pthread_join(th, NULL);
		if (!into)
			close(pu.rootfd);
	}
	if (pu.show)
		progress_clear(&pu.p);
	o->files = pu.files;
	o->bytes = pu.bytes;
	if (rc == 0 && pu.err[0] != '\0')
		rc = err_set(e, -EIO, "%s", pu.err);
	else if (rc == 0 && st.code != 0)
		rc = err_set(e, -EIO, "the box's side of the copy failed "
		    "(exit %d)", st.code);
done:
	incus_close(&c);
	return rc;
}
