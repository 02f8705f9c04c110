/*
 * template.c - loading templates (see template.h).
 */
#include "box/life/template.h"

#include "box/egress/egress.h"
#include "box/life/idle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/embedded.h"

static const char *
override_dir(void)
{
	const char *d = getenv("BOX_TEMPLATES");

	return d != NULL && *d != '\0' ? d : NULL;
}

static int
valid_name(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= TPL_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' ||
		    s[i] == '.'))
			return 0;
	return 1;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int
add_name(char names[][TPL_NAME_MAX], int n, int max, const char *s,
    size_t len, struct box_err *e)
{
	int i;

	if (len == 0 || len >= TPL_NAME_MAX)
		return n;
	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && strncmp(names[i], s, len) == 0)
			return n;
	if (n == max)
		return err_set(e, -E2BIG, "more than %d templates", max);
	memcpy(names[n], s, len);
	names[n][len] = '\0';
	return n + 1;
}

int
template_names(char names[][TPL_NAME_MAX], int max, struct box_err *e)
{
	const char *dir = override_dir();
	int n = 0;
	size_t i;

	if (dir == NULL) {
		for (i = 0; i < embedded_templates_count && n >= 0; i++) {
			const char *p = embedded_templates[i].path;
			const char *slash = strchr(p, '/');

			if (slash != NULL && strcmp(slash, "/box.env") == 0)
				n = add_name(names, n, max, p,
				    (size_t)(slash - p), e);
		}
	} else {
		DIR *d = opendir(dir);
		struct dirent *de;
		char path[4096];
		struct stat st;

		if (d == NULL)
			return err_set(e, -errno, "cannot read templates "
			    "from BOX_TEMPLATES=%s: %s", dir, strerror(errno));
		while (n >= 0 && (de = readdir(d)) != NULL) {
			if (!valid_name(de->d_name))
				continue;
			snprintf(path, sizeof(path), "%s/%s/box.env", dir,
			    de->d_name);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
				n = add_name(names, n, max, de->d_name,
				    strlen(de->d_name), e);
		}
		closedir(d);
	}
	if (n > 0)
		qsort(names, (size_t)n, TPL_NAME_MAX, cmp_names);
	return n;
}

/* Read a whole regular file of at most max bytes (heap, NUL-terminated). */
static int
read_file(const char *path, size_t max, char **out, size_t *len,
    struct box_err *e)
{
	struct stat st;
	ssize_t r;
	size_t got = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		close(fd);
		return err_set(e, -EFBIG, "%s: not a regular file of at most "
		    "%zu bytes", path, max);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return err_set(e, -ENOMEM, "out of memory");
	}
	while (got < (size_t)st.st_size &&
	    (r = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

/* One file of a template, embedded or from BOX_TEMPLATES. */
static int
template_file(const char *tpl, const char *file, size_t max, char **out,
    size_t *len, struct box_err *e)
{
	const char *dir = override_dir();
	char path[4096];
	size_t i;

	if (dir != NULL) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, tpl, file);
		return read_file(path, max, out, len, e);
	}
	snprintf(path, sizeof(path), "%s/%s", tpl, file);
	for (i = 0; i < embedded_templates_count; i++) {
		const struct embedded_file *f = &embedded_templates[i];

		if (strcmp(f->path, path) != 0)
			continue;
		*out = malloc(f->len + 1);
		if (*out == NULL)
			return err_set(e, -ENOMEM, "out of memory");
		memcpy(*out, f->data, f->len);
		(*out)[f->len] = '\0';
		*len = f->len;
		return 0;
	}
	return err_set(e, -ENOENT, "template '%s' has no %s", tpl, file);
}

static int
set_value(char *dst, size_t cap, const char *v, size_t n)
{
	if (n >= cap)
		return -1;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

static int
role_ok(const char *r)
{
	if (*r < 'a' || *r > 'z')
		return 0;
	for (r++; *r != '\0'; r++)
		if (!((*r >= 'a' && *r <= 'z') || (*r >= '0' && *r <= '9') ||
		    *r == '-'))
			return 0;
	return 1;
}

/* Apply one KEY=value; the allowlist is this switch. */
static int
apply_key(struct template *t, const char *k, size_t kn, const char *v,
    size_t vn, int line, struct box_err *e)
{
	char *dst = NULL;
	size_t cap = 0;
	int flag = -1;

#define KEY(s) (kn == sizeof(s) - 1 && memcmp(k, s, kn) == 0)
	if (KEY("BOX_DESCRIPTION"))
		dst = t->description, cap = sizeof(t->description);
	else if (KEY("BOX_IMAGE"))
		dst = t->image, cap = sizeof(t->image);
	else if (KEY("BOX_USER"))
		dst = t->user, cap = sizeof(t->user);
	else if (KEY("BOX_CPU"))
		dst = t->cpu, cap = sizeof(t->cpu);
	else if (KEY("BOX_MEMORY"))
		dst = t->memory, cap = sizeof(t->memory);
	else if (KEY("BOX_DISK"))
		dst = t->disk, cap = sizeof(t->disk);
	else if (KEY("BOX_EGRESS"))
		dst = t->egress, cap = sizeof(t->egress);
	else if (KEY("BOX_IDLE_STOP"))
		dst = t->idle_stop, cap = sizeof(t->idle_stop);
	else if (KEY("BOX_BOOTSTRAP_ROLE"))
		dst = t->role, cap = sizeof(t->role);
	else if (KEY("BOX_REQUIRE_VM"))
		flag = 0;
	else if (KEY("BOX_AUTOSTART"))
		flag = 1;
	else
		return err_set(e, -EINVAL, "template '%s', line %d: unknown "
		    "key '%.*s' — a template sets an image, a user, resources, "
		    "boot demands and a role, nothing else (there is no key "
		    "for a network, a profile or security, on purpose)",
		    t->name, line, (int)(kn > 64 ? 64 : kn), k);
#undef KEY
	if (flag >= 0) {
		if (vn != 1 || (v[0] != '0' && v[0] != '1'))
			return err_set(e, -EINVAL, "template '%s', line %d: "
			    "%.*s must be 0 or 1", t->name, line, (int)kn, k);
		*(flag == 0 ? &t->require_vm : &t->autostart) = v[0] == '1';
		return 0;
	}
	if (set_value(dst, cap, v, vn) < 0)
		return err_set(e, -EINVAL, "template '%s', line %d: value of "
		    "%.*s is too long", t->name, line, (int)kn, k);
	return 0;
}

int
template_parse_env(const char *name, const char *text, size_t n,
    struct template *t, struct box_err *e)
{
	size_t pos = 0;
	int line = 0, rc;

	snprintf(t->name, sizeof(t->name), "%s", name);
	while (pos < n) {
		const char *s = text + pos, *nl = memchr(s, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - s) : n - pos, i;
		const char *eq, *v;
		size_t vn;

		pos += len + (nl != NULL);
		line++;
		if (len > 0 && s[len - 1] == '\r')
			len--;
		if (len == 0 || s[0] == '#')
			continue;
		for (i = 0; i < len; i++)
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
				return err_set(e, -EINVAL, "template '%s', "
				    "line %d: control character", name, line);
		eq = memchr(s, '=', len);
		if (eq == NULL || eq == s)
			return err_set(e, -EINVAL, "template '%s', line %d: "
			    "not a KEY=\"value\" line", name, line);
		v = eq + 1;
		vn = len - (size_t)(v - s);
		if (vn > 0 && v[0] == '"') {
			v++;
			vn--;
		}
		if (vn > 0 && v[vn - 1] == '"')
			vn--;
		rc = apply_key(t, s, (size_t)(eq - s), v, vn, line, e);
		if (rc < 0)
			return rc;
	}
	if (t->image[0] == '\0' || t->user[0] == '\0')
		return err_set(e, -EINVAL, "template '%s': BOX_IMAGE and "
		    "BOX_USER are required", name);
	if (t->role[0] != '\0' && !role_ok(t->role))
		return err_set(e, -EINVAL, "template '%s': BOX_BOOTSTRAP_ROLE "
		    "'%s' is not a role name (a-z, 0-9, -)", name, t->role);
	if (t->idle_stop[0] != '\0') {
		char why[80];
		long secs;

		if (idle_duration(t->idle_stop, &secs, why, sizeof(why)) < 0)
			return err_set(e, -EINVAL, "template '%s': "
			    "BOX_IDLE_STOP: %s", name, why);
		snprintf(t->idle_stop, sizeof(t->idle_stop), "%ld", secs);
	}
	if (t->egress[0] != '\0') {
		struct egress *p = malloc(sizeof(*p));
		char why[200];

		rc = p == NULL ? -ENOMEM : egress_parse(t->egress, p, why,
		    sizeof(why));
		free(p);
		if (rc < 0)
			return err_set(e, -EINVAL, "template '%s': BOX_EGRESS: "
			    "%s", name, rc == -ENOMEM ? "out of memory" : why);
	}
	return 0;
}

int
template_load(const char *name, struct template *t, struct box_err *e)
{
	char *env = NULL;
	size_t n;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!valid_name(name))
		return err_usage(e, "'%s' is not a template name", name);
	rc = template_file(name, "box.env", TPL_MAX_ENV, &env, &n, e);
	if (rc == -ENOENT) {
		err_clear(e);
		err_set(e, -ENOENT, "no such template: %s", name);
		err_fix(e, "see: box templates");
		return -ENOENT;
	}
	if (rc < 0)
		return rc;
	rc = template_parse_env(name, env, n, t, e);
	free(env);
	if (rc < 0)
		return rc;
	rc = template_file(name, "user-data.yaml", TPL_MAX_USERDATA,
	    &t->user_data, &t->user_data_len, e);
	if (rc < 0)
		return rc;
	if (strncmp(t->user_data, "#cloud-config", 13) != 0) {
		template_free(t);
		return err_set(e, -EINVAL, "template '%s': user-data.yaml must "
		    "begin with #cloud-config", name);
	}
	return 0;
}

void
template_free(struct template *t)
{
	free(t->user_data);
	t->user_data = NULL;
}
