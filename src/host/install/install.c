/* install.c - the versioned install tree (see install.h). */
#include "host/install/install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* dir of path into buf ("/a/b/c" -> "/a/b"). */
static void
dirname_of(const char *path, char *buf, size_t cap)
{
	const char *s = strrchr(path, '/');
	size_t n = s == NULL ? 0 : (size_t)(s - path);

	if (n >= cap)
		n = cap - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
}

static const char *
basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s == NULL ? path : s + 1;
}

int
inst_version_ok(const char *v)
{
	size_t i, n = strlen(v);

	if (n == 0 || n >= INST_VMAX || v[0] == '.' || v[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') ||
		    (v[i] >= 'A' && v[i] <= 'Z') ||
		    (v[i] >= '0' && v[i] <= '9') || v[i] == '.' ||
		    v[i] == '_' || v[i] == '+' || v[i] == '-'))
			return 0;
	return 1;
}

static int
isdig(char c)
{
	return c >= '0' && c <= '9';
}

int
inst_vercmp(const char *a, const char *b)
{
	while (*a != '\0' && *b != '\0') {
		if (isdig(*a) && isdig(*b)) {
			const char *x = a, *y = b;
			size_t nx, ny;

			while (*x == '0' && isdig(x[1]))
				x++;
			while (*y == '0' && isdig(y[1]))
				y++;
			for (a = x; isdig(*a); a++)
				;
			for (b = y; isdig(*b); b++)
				;
			nx = (size_t)(a - x);
			ny = (size_t)(b - y);
			if (nx != ny)
				return nx < ny ? -1 : 1;
			if (memcmp(x, y, nx) != 0)
				return memcmp(x, y, nx) < 0 ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a == *b ? 0 : *a == '\0' ? -1 : 1;
}

/* <root>/versions/<v>/box -> root and v, when path has that shape. */
static int
split_self(const char *self, char *root, size_t rcap, char *v, size_t vcap)
{
	char vdir[PATH_MAX], versions[PATH_MAX];

	if (strcmp(basename_of(self), "box") != 0)
		return 0;
	dirname_of(self, vdir, sizeof(vdir));
	dirname_of(vdir, versions, sizeof(versions));
	if (strcmp(basename_of(versions), "versions") != 0 ||
	    !inst_version_ok(basename_of(vdir)))
		return 0;
	dirname_of(versions, root, rcap);
	snprintf(v, vcap, "%s", basename_of(vdir));
	return root[0] != '\0';
}

static int
has_versions(const char *root)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s/versions", root);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void
default_root(char *buf, size_t cap)
{
	const char *home = getenv("HOME");

	if (geteuid() == 0)
		snprintf(buf, cap, "/opt/box");
	else
		snprintf(buf, cap, "%s/.local/share/box",
		    home != NULL ? home : "");
}

int
inst_locate(struct inst *in, int fallback, struct box_err *e)
{
	const char *home = getenv("BOX_HOME");
	ssize_t n;

	memset(in, 0, sizeof(*in));
	n = readlink("/proc/self/exe", in->self, sizeof(in->self) - 1);
	if (n > 0)
		in->self[n] = '\0';
	if (split_self(in->self, in->root, sizeof(in->root), in->self_version,
	    sizeof(in->self_version)))
		return 0;
	in->self_version[0] = '\0';
	if (home != NULL && *home != '\0') {
		snprintf(in->root, sizeof(in->root), "%s", home);
		if (has_versions(in->root))
			return 0;
		err_set(e, -ENOENT, "BOX_HOME=%s holds no versioned install "
		    "(no versions/ directory)", home);
		return -ENOENT;
	}
	if (fallback) {
		default_root(in->root, sizeof(in->root));
		if (has_versions(in->root))
			return 0;
	}
	err_set(e, -ENOENT, "this box runs from %s, not from a versioned "
	    "install", in->self[0] ? in->self : "an unknown path");
	err_fix(e, "install one with host/install.sh, or name it: "
	    "BOX_HOME=<root> box ...");
	return -ENOENT;
}

int
inst_has(const struct inst *in, const char *v)
{
	char p[PATH_MAX + 96];
	struct stat st;

	snprintf(p, sizeof(p), "%s/versions/%s/box", in->root, v);
	return inst_version_ok(v) && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int
inst_versions(const struct inst *in, char (*out)[INST_VMAX], int max,
    struct box_err *e)
{
	char p[PATH_MAX + 16], tmp[INST_VMAX];
	struct dirent *d;
	DIR *dir;
	int n = 0, i, j;

	snprintf(p, sizeof(p), "%s/versions", in->root);
	dir = opendir(p);
	if (dir == NULL)
		return err_set(e, -errno, "reading %s: %s", p, strerror(errno));
	while ((d = readdir(dir)) != NULL && n < max) {
		if (!inst_version_ok(d->d_name) || !inst_has(in, d->d_name))
			continue;
		/* inst_version_ok() bounds the name below INST_VMAX. */
		memcpy(out[n++], d->d_name, strlen(d->d_name) + 1);
	}
	closedir(dir);
	for (i = 1; i < n; i++)		/* insertion sort: a handful */
		for (j = i; j > 0 && inst_vercmp(out[j - 1], out[j]) > 0; j--) {
			memcpy(tmp, out[j], INST_VMAX);
			memcpy(out[j], out[j - 1], INST_VMAX);
			memcpy(out[j - 1], tmp, INST_VMAX);
		}
	return n;
}

int
inst_current(const struct inst *in, char *v, size_t cap)
{
	char p[PATH_MAX + 16], t[PATH_MAX];
	ssize_t n;

	v[0] = '\0';
	snprintf(p, sizeof(p), "%s/current", in->root);
	n = readlink(p, t, sizeof(t) - 1);
	if (n < 0)
		return errno == ENOENT ? -ENOENT : -ESTALE;
	t[n] = '\0';
	if (strncmp(t, "versions/", 9) == 0 && strchr(t + 9, '/') == NULL) {
		snprintf(v, cap, "%s", t + 9);
		if (inst_has(in, v))
			return 0;
	} else {
		snprintf(v, cap, "%s", t);
	}
	return -ESTALE;
}

/*
 * The new link is made in a directory of mkdtemp's beside link, never
 * under a name another user could guess and plant first, then renamed
 * over link.
 */
int
inst_relink(const char *link, const char *target)
{
	char dir[PATH_MAX], d[PATH_MAX + 16], l[PATH_MAX + 24];
	int rc = 0;

	dirname_of(link, dir, sizeof(dir));
	snprintf(d, sizeof(d), "%s/.box.XXXXXX",
	    dir[0] != '\0' || link[0] == '/' ? dir : ".");
	if (mkdtemp(d) == NULL)
		return -errno;
	snprintf(l, sizeof(l), "%s/l", d);
	if (symlink(target, l) < 0 || rename(l, link) < 0)
		rc = -errno;
	unlink(l);
	rmdir(d);
	return rc;
}

int
inst_flip(const struct inst *in, const char *v, struct box_err *e)
{
	char link[PATH_MAX + 16], target[INST_VMAX + 16];
	int rc;

	snprintf(link, sizeof(link), "%s/current", in->root);
	snprintf(target, sizeof(target), "versions/%s", v);
	rc = inst_relink(link, target);
	if (rc < 0)
		return err_set(e, rc, "pointing %s at %s: %s", link, target,
		    err_str(rc));
	return 0;
}

const char *
inst_manifest(const struct inst *in, const char *v, const char *key,
    char *buf, size_t cap, const char *def)
{
	char p[PATH_MAX + 96], line[1024];
	size_t k = strlen(key);
	FILE *f;

	snprintf(buf, cap, "%s", def);
	snprintf(p, sizeof(p), "%s/versions/%s/MANIFEST", in->root, v);
	f = fopen(p, "re");
	if (f == NULL)
		return buf;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, key, k) != 0 || line[k] != '=')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, cap, "%s", line + k + 1);
		break;
	}
	fclose(f);
	return buf;
}

int
inst_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Does the link at path point (or dangle) into root? */
static int
into_root(const char *path, const char *root)
{
	char t[PATH_MAX], abs[2 * PATH_MAX], dir[PATH_MAX];
	size_t n = strlen(root);
	ssize_t k;
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return 0;
	k = readlink(path, t, sizeof(t) - 1);
	if (k <= 0)
		return 0;
	t[k] = '\0';
	if (t[0] == '/') {
		snprintf(abs, sizeof(abs), "%s", t);
	} else {
		dirname_of(path, dir, sizeof(dir));
		snprintf(abs, sizeof(abs), "%s/%s", dir, t);
	}
	if (strncmp(abs, root, n) == 0 && (abs[n] == '/' || abs[n] == '\0'))
		return 1;
	/* The link may name the root through a symlinked directory. */
	if (realpath(abs, dir) == NULL)
		return 0;
	return strncmp(dir, root, n) == 0 && (dir[n] == '/' || dir[n] == '\0');
}

static int
add_link(char (*out)[PATH_MAX], int n, int max, const char *p,
    const char *root)
{
	int i;

	if (n >= max || !into_root(p, root))
		return n;
	for (i = 0; i < n; i++)
		if (strcmp(out[i], p) == 0)
			return n;
	snprintf(out[n], PATH_MAX, "%s", p);
	return n + 1;
}

int
inst_links(const struct inst *in, const char *argv0, char (*out)[PATH_MAX],
    int max)
{
	const char *bin = getenv("BOX_BIN"), *home = getenv("HOME");
	char p[PATH_MAX + 16];
	int n = 0;

	if (argv0 != NULL && strchr(argv0, '/') != NULL)
		n = add_link(out, n, max, argv0, in->root);
	if (bin != NULL && *bin != '\0') {
		snprintf(p, sizeof(p), "%s/box", bin);
		n = add_link(out, n, max, p, in->root);
	}
	if (geteuid() == 0)
		n = add_link(out, n, max, "/usr/local/bin/box", in->root);
	else if (home != NULL && *home != '\0') {
		snprintf(p, sizeof(p), "%s/.local/bin/box", home);
		n = add_link(out, n, max, p, in->root);
	}
	return n;
}

/* nftw() hands its callback no context: the first failure waits here. */
static int rm_err;

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && rm_err == 0 &&
	    errno != ENOENT)
		rm_err = -errno;
	return 0;
}

int
inst_rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 ? -errno : 0;
	rm_err = 0;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && rm_err == 0)
		rm_err = -errno;
	return rm_err;
}

/* Read a child's stdout into buf (NUL-terminated, truncated at cap-1). */
static void
drain(int fd, char *buf, size_t cap)
{
	char chunk[256];
	size_t got = 0, k;
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		k = (size_t)n < cap - 1 - got ? (size_t)n : cap - 1 - got;
		memcpy(buf + got, chunk, k);
		got += k;
	}
	buf[got] = '\0';
}

int
inst_check_binary(const char *bin, const char *v, struct box_err *e)
{
	char out[512], want[INST_VMAX + 8];
	int p[2], st;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(e, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execl(bin, bin, "--version", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	drain(p[0], out, sizeof(out));
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	out[strcspn(out, "\n")] = '\0';
	snprintf(want, sizeof(want), "box %s ", v);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	    strncmp(out, want, strlen(want)) == 0)
		return 0;
	return err_set(e, -EIO, "%s --version said '%s', not version %s", bin,
	    out, v);
}
