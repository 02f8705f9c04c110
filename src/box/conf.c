/*
 * conf.c - the config files (conf.h): a bounded line parser, then the
 * environment laid over the user's file over the host's.
 */
#include "box/conf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const conf_names[CONF_N] = {
	"template", "image", "cpu", "memory", "disk", "egress", "idle-stop",
};
static const char *const conf_envs[CONF_N] = {
	"BOX_TEMPLATE", "BOX_IMAGE", "BOX_CPU", "BOX_MEMORY", "BOX_DISK",
	"BOX_EGRESS", "BOX_IDLE_STOP",
};

const char *
conf_name(int k)
{
	return k >= 0 && k < CONF_N ? conf_names[k] : NULL;
}

const char *
conf_env(int k)
{
	return k >= 0 && k < CONF_N ? conf_envs[k] : NULL;
}

void
conf_free(struct conf_file *f)
{
	int k;

	for (k = 0; k < CONF_N; k++) {
		free(f->v[k]);
		f->v[k] = NULL;
	}
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* One line s[0..n) (no newline): 0, or a refusal naming the line. */
static int
conf_line(const char *label, int line, const char *s, size_t n,
    struct conf_file *f, struct box_err *e)
{
	size_t i = 0, ks, kn, vs, ve;
	int k;

	while (i < n && is_space(s[i]))
		i++;
	if (i == n || s[i] == '#')
		return 0;
	ks = i;
	while (i < n && s[i] != '=' && !is_space(s[i]))
		i++;
	kn = i - ks;
	while (i < n && is_space(s[i]))
		i++;
	if (i == n || s[i] != '=')
		return err_usage(e, "%s:%d: not 'key = value'", label, line);
	i++;
	while (i < n && is_space(s[i]))
		i++;
	vs = i;
	ve = n;
	while (ve > vs && is_space(s[ve - 1]))
		ve--;
	if (ve - vs >= 2 && s[vs] == '"' && s[ve - 1] == '"')
		vs++, ve--;
	for (k = 0; k < CONF_N; k++)
		if (strlen(conf_names[k]) == kn &&
		    memcmp(conf_names[k], s + ks, kn) == 0)
			break;
	if (k == CONF_N)
		return err_usage(e, "%s:%d: unknown key '%.*s' (the keys: "
		    "template, image, cpu, memory, disk, egress, idle-stop)",
		    label, line, (int)(kn > 40 ? 40 : kn), s + ks);
	if (f->v[k] != NULL)
		return err_usage(e, "%s:%d: %s set twice (first on line %d)",
		    label, line, conf_names[k], f->line[k]);
	if (ve - vs >= CONF_VALUE_MAX)
		return err_usage(e, "%s:%d: %s's value is over %d bytes",
		    label, line, conf_names[k], CONF_VALUE_MAX - 1);
	for (i = vs; i < ve; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return err_usage(e, "%s:%d: a control character in "
			    "%s's value", label, line, conf_names[k]);
	if (ve == vs)
		return err_usage(e, "%s:%d: %s has no value", label, line,
		    conf_names[k]);
	if ((f->v[k] = strndup(s + vs, ve - vs)) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	f->line[k] = line;
	return 0;
}

int
conf_parse(const char *label, const char *text, size_t n,
    struct conf_file *f, struct box_err *e)
{
	size_t at = 0, len;
	const char *nl;
	int line = 0, rc;

	memset(f, 0, sizeof(*f));
	if (n > CONF_FILE_MAX)
		return err_usage(e, "%s: over %u bytes", label, CONF_FILE_MAX);
	if (memchr(text, '\0', n) != NULL)
		return err_usage(e, "%s: a NUL byte (not a text file)", label);
	while (at < n) {
		nl = memchr(text + at, '\n', n - at);
		len = nl != NULL ? (size_t)(nl - (text + at)) : n - at;
		if (len > 0 && text[at + len - 1] == '\r')
			len--;
		if ((rc = conf_line(label, ++line, text + at, len, f, e)) < 0) {
			err_fix(e, "edit that line of %s (box help config "
			    "names the keys)", label);
			conf_free(f);
			return rc;
		}
		at = nl != NULL ? (size_t)(nl - text) + 1 : n;
	}
	return 0;
}

/* Why the user's file was not read, or "" (conf_skipped). */
static char skipped[640];

/*
 * path's text, bounded, into buf: its length, 0 when absent, or < 0.
 * root_only: a file root does not own is not read (as if absent, said in
 * skipped): root with another user's HOME (su without -, sudo -E) would
 * take that user's defaults.
 */
static long
conf_read(const char *path, int root_only, char *buf, size_t cap,
    struct box_err *e)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 :
		    err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_usage(e, "%s is not a regular file", path);
	}
	if (root_only && st.st_uid != 0) {
		close(fd);
		snprintf(skipped, sizeof(skipped), "%s is owned by uid %u, "
		    "not root: root does not take its defaults", path,
		    (unsigned)st.st_uid);
		return 0;
	}
	while (got < cap) {
		r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return (long)got;
}

static struct {
	int loaded;
	struct conf_file user, sys;
	char upath[512];
	char from[CONF_N][600];
	const char *v[CONF_N];
} conf;

static int
conf_file_load(const char *path, int root_only, struct conf_file *f,
    struct box_err *e)
{
	char *buf = malloc(CONF_FILE_MAX + 1);
	long n;
	int rc;

	memset(f, 0, sizeof(*f));
	if (buf == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((n = conf_read(path, root_only, buf, CONF_FILE_MAX + 1, e)) < 0)
		rc = (int)n;
	else
		rc = conf_parse(path, buf, (size_t)n, f, e);
	free(buf);
	return rc;
}

int
conf_load(struct box_err *e)
{
	const char *home = getenv("HOME"), *env;
	int rc, k;

	if (conf.loaded)
		return 0;
	if ((rc = conf_file_load(CONF_SYSTEM, 0, &conf.sys, e)) < 0)
		return rc;
	conf.upath[0] = '\0';
	if (home != NULL && home[0] == '/' && strlen(home) < 400) {
		snprintf(conf.upath, sizeof(conf.upath), "%s/%s", home,
		    CONF_USER);
		if ((rc = conf_file_load(conf.upath, geteuid() == 0,
		    &conf.user, e)) < 0) {
			conf_free(&conf.sys);
			return rc;
		}
	}
	for (k = 0; k < CONF_N; k++) {
		env = getenv(conf_envs[k]);
		if (env != NULL && env[0] != '\0') {
			conf.v[k] = env;
			snprintf(conf.from[k], sizeof(conf.from[k]), "%s",
			    conf_envs[k]);
		} else if (conf.user.v[k] != NULL) {
			conf.v[k] = conf.user.v[k];
			snprintf(conf.from[k], sizeof(conf.from[k]), "%s:%d",
			    conf.upath, conf.user.line[k]);
		} else if (conf.sys.v[k] != NULL) {
			conf.v[k] = conf.sys.v[k];
			snprintf(conf.from[k], sizeof(conf.from[k]), "%s:%d",
			    CONF_SYSTEM, conf.sys.line[k]);
		}
	}
	conf.loaded = 1;
	return 0;
}

const char *
conf_get(int k)
{
	return conf.loaded && k >= 0 && k < CONF_N ? conf.v[k] : NULL;
}

const char *
conf_from(int k)
{
	return conf_get(k) != NULL ? conf.from[k] : NULL;
}

const char *
conf_skipped(void)
{
	return skipped;
}
