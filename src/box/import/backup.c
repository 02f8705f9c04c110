/*
 * backup.c - reading export files (see backup.h).
 */
#include "box/import/backup.h"
#include "box/import/backup_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/import/tar.h"
#include "util/gzstream.h"

/* The top-level "name:" of a YAML text (no nesting, optional quotes). */
static int
yaml_name(const char *y, size_t n, char *name, size_t cap)
{
	size_t pos = 0;

	while (pos < n) {
		const char *s = y + pos, *nl = memchr(s, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - s) : n - pos, v;

		pos += len + 1;
		if (len < 5 || memcmp(s, "name:", 5) != 0)
			continue;
		for (v = 5; v < len && (s[v] == ' ' || s[v] == '\t'); v++)
			;
		while (len > v && (s[len - 1] == ' ' || s[len - 1] == '\r'))
			len--;
		if (len - v >= 2 && (s[v] == '"' || s[v] == '\'') &&
		    s[len - 1] == s[v]) {
			v++;
			len--;
		}
		if (len == v || len - v >= cap)
			return -ENOENT;
		memcpy(name, s + v, len - v);
		name[len - v] = '\0';
		/* the file is not ours: a NUL would silently shorten the
		 * name, a control byte would reach the terminal in the
		 * "not a valid box name" message */
		for (; v < len; v++)
			if ((unsigned char)s[v] < 0x20 || s[v] == 0x7f)
				return -EBOX_PROTO;
		return 0;
	}
	return -ENOENT;
}

int
backup_tar_name(const unsigned char *tar, size_t n, char *name, size_t cap)
{
	size_t pos = 0;
	int entries = 0;

	while (pos <= n && n - pos >= 512 && entries++ < 64) {
		const unsigned char *h = tar + pos;
		long long size;
		char path[101];

		if (h[0] == '\0')
			return -ENOENT;		/* end of archive */
		if (tar_header_bad(h) != NULL)
			return -EBOX_PROTO;
		size = tar_num(h + 124, 12);
		if (size < 0)
			return -EBOX_PROTO;
		memcpy(path, h, 100);
		path[100] = '\0';
		pos += 512;
		if ((h[156] == '0' || h[156] == '\0') &&
		    (strcmp(path, "backup/index.yaml") == 0 ||
		    strcmp(path, "./backup/index.yaml") == 0)) {
			if ((unsigned long long)size > BACKUP_INDEX_MAX)
				return -EBOX_PROTO;
			if ((unsigned long long)size > n - pos)
				return -ENOENT;	/* cut off: not all read */
			return yaml_name((const char *)tar + pos, (size_t)size,
			    name, cap);
		}
		if ((unsigned long long)size > n - pos)
			return -ENOENT;
		pos += ((size_t)size + 511) & ~(size_t)511;
	}
	return -ENOENT;
}

int
backup_peek_name(const char *path, char *name, size_t cap,
    struct box_err *e)
{
	unsigned char *in, *out;
	size_t got = 0;
	ssize_t r;
	long n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	in = malloc(BACKUP_PEEK);
	if (in == NULL) {
		close(fd);
		return err_set(e, -ENOMEM, "out of memory");
	}
	while (got < BACKUP_PEEK &&
	    (r = read(fd, in + got, BACKUP_PEEK - got)) > 0)
		got += (size_t)r;
	close(fd);
	if (got >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
		out = malloc(BACKUP_PEEK);
		if (out == NULL) {
			free(in);
			return err_set(e, -ENOMEM, "out of memory");
		}
		/* index.yaml is the first member: the start is enough */
		n = gz_prefix(in, got, out, BACKUP_PEEK);
		free(in);
		if (n == -ENODATA)
			n = 0;		/* no byte came out: no name */
		if (n < 0) {
			free(out);
			if (n == -ENOMEM)
				return err_set(e, -ENOMEM, "out of memory");
			return err_set(e, -EBOX_PROTO, "%s is not a readable "
			    "gzip file", path);
		}
		rc = backup_tar_name(out, (size_t)n, name, cap);
		free(out);
		goto done;
	} else if (got >= 262 && memcmp(in + 257, "ustar", 5) == 0) {
		rc = backup_tar_name(in, got, name, cap);
		free(in);
		goto done;
	} else {
		free(in);
		err_set(e, -EBOX_PROTO, "%s is not a box export (box reads "
		    "gzip or plain tar)", path);
		err_fix(e, "if it is an Incus export in another compression, "
		    "name the box: box import %s --name <box>", path);
		return -EBOX_PROTO;
	}
done:
	if (rc < 0)
		return err_set(e, rc, "%s is not an Incus/box export (no "
		    "backup/index.yaml naming an instance at its start)", path);
	return 0;
}

int
backup_sidecar_path(const char *file, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s.sha256", file);

	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

void
backup_hex(const unsigned char d[32], char hex[65])
{
	static const char x[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 32; i++) {
		hex[2 * i] = x[d[i] >> 4];
		hex[2 * i + 1] = x[d[i] & 15];
	}
	hex[64] = '\0';
}

int
backup_sidecar_line(const unsigned char d[32], const char *file, char *buf,
    size_t cap)
{
	const char *base = strrchr(file, '/');
	char hex[65];
	int n;

	backup_hex(d, hex);
	n = snprintf(buf, cap, "%s  %s\n", hex, base ? base + 1 : file);
	return n > 0 && (size_t)n < cap ? n : -ENAMETOOLONG;
}

int
backup_sidecar_parse(const char *buf, size_t n, char hex[65])
{
	size_t i;

	if (n < 64)
		return -EBOX_PROTO;
	for (i = 0; i < 64; i++) {
		char ch = buf[i];

		if (ch >= 'A' && ch <= 'F')
			ch = (char)(ch - 'A' + 'a');
		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
			return -EBOX_PROTO;
		hex[i] = ch;
	}
	hex[64] = '\0';
	if (n > 64 && buf[64] != ' ' && buf[64] != '\n' && buf[64] != '\t')
		return -EBOX_PROTO;
	return 0;
}

int
backup_sidecar_read(const char *file, char hex[65], struct box_err *e)
{
	char path[4096], buf[BACKUP_SIDECAR_MAX];
	struct stat st;
	size_t got = 0;
	ssize_t r;
	int fd;

	if (backup_sidecar_path(file, path, sizeof(path)) < 0)
		return err_usage(e, "file name too long: %s", file);
	/* a FIFO, a device or a link planted there must not hang or steer
	 * the import: opened without blocking or following, a regular file
	 * of a sidecar's size, read without blocking */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		if (errno == ELOOP)
			return err_set(e, -ELOOP, "%s is a symbolic link; box "
			    "reads only a plain file there", path);
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	}
	memset(&st, 0, sizeof(st));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)sizeof(buf)) {
		close(fd);
		return err_set(e, -EBOX_PROTO, "%s is not a SHA-256 file (%s)",
		    path, S_ISREG(st.st_mode) ? "too big" :
		    "not a regular file");
	}
	while (got < sizeof(buf) && (r = read(fd, buf + got,
	    sizeof(buf) - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (backup_sidecar_parse(buf, got, hex) < 0)
		return err_set(e, -EBOX_PROTO, "%s is not a SHA-256 line",
		    path);
	return 0;
}
