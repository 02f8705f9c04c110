/* fwdata.c - the firewall's persisted data (see fwdata.h). */
#include "host/stack/fwdata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *
fwdata_path(void)
{
	const char *p = getenv("BOX_FIREWALL_DATA");

	return p != NULL && p[0] == '/' ? p : FWDATA_PATH_DEFAULT;
}

/* A decimal number of at most 10 digits, all of s[0..n). */
static int
num(const char *s, size_t n, unsigned long *v)
{
	size_t i;

	if (n == 0 || n > 10)
		return -EINVAL;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		*v = *v * 10 + (unsigned long)(s[i] - '0');
	}
	return 0;
}

static int
prefix_n(const char *s, size_t n, uint32_t *addr, uint8_t *plen)
{
	unsigned long part, p = 32;
	uint32_t a = 0;
	size_t i = 0, j;
	int k;

	for (k = 0; k < 4; k++) {
		for (j = i; j < n && s[j] >= '0' && s[j] <= '9'; j++)
			;
		if (num(s + i, j - i, &part) < 0 || part > 255 || j - i > 3)
			return -EINVAL;
		a = a << 8 | (uint32_t)part;
		if (k < 3) {
			if (j >= n || s[j] != '.')
				return -EINVAL;
			j++;
		}
		i = j;
	}
	if (i < n) {
		if (s[i] != '/' || num(s + i + 1, n - i - 1, &p) < 0 || p > 32)
			return -EINVAL;
	}
	*plen = (uint8_t)p;
	*addr = p == 0 ? 0 : a & (0xffffffffu << (32 - p));
	return 0;
}

int
fwdata_prefix_parse(const char *s, uint32_t *addr, uint8_t *plen)
{
	if (s == NULL)
		return -EINVAL;
	return prefix_n(s, strlen(s), addr, plen);
}

int
fwdata_block_add(struct fwdata *d, uint32_t addr, uint8_t plen)
{
	size_t i;

	for (i = 0; i < d->nblock; i++)
		if (d->block[i].addr == addr && d->block[i].plen == plen)
			return 0;
	if (d->nblock >= FWDATA_MAXBLOCK)
		return -ENOSPC;
	d->block[d->nblock].addr = addr;
	d->block[d->nblock].plen = plen;
	d->nblock++;
	return 0;
}

int
fwdata_block_rm(struct fwdata *d, uint32_t addr, uint8_t plen)
{
	size_t i;

	for (i = 0; i < d->nblock; i++)
		if (d->block[i].addr == addr && d->block[i].plen == plen) {
			memmove(&d->block[i], &d->block[i + 1],
			    (d->nblock - i - 1) * sizeof(d->block[0]));
			d->nblock--;
			return 0;
		}
	return -ENOENT;
}

int
fwdata_parse(const char *text, size_t n, struct fwdata *d)
{
	size_t o = 0, l;
	unsigned long v;
	uint32_t a;
	uint8_t p;

	memset(d, 0, sizeof(*d));
	if (n > FWDATA_TEXTMAX)
		return -EINVAL;
	while (o < n) {
		const char *s = text + o, *nl = memchr(s, '\n', n - o);

		l = nl != NULL ? (size_t)(nl - s) : n - o;
		o += l + (nl != NULL);
		if (l == 0 || s[0] == '#' || (l == 2 && memcmp(s, "v1", 2) == 0))
			continue;
		if (l > 9 && memcmp(s, "conn-max ", 9) == 0) {
			if (num(s + 9, l - 9, &v) < 0 || v == 0 ||
			    v > CONTRACT_CONN_MAX_LIMIT)
				return -EINVAL;
			d->conn_max = (uint32_t)v;
		} else if (l > 6 && memcmp(s, "block ", 6) == 0) {
			if (prefix_n(s + 6, l - 6, &a, &p) < 0 ||
			    fwdata_block_add(d, a, p) < 0)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

int
fwdata_format(const struct fwdata *d, char *buf, size_t cap)
{
	size_t o = 0, i;
	int w;

	w = snprintf(buf, cap, "# box firewall data: written by box, read by "
	    "every firewall apply and show\nv1\n");
	if (w < 0 || (size_t)w >= cap)
		return -ENOSPC;
	o = (size_t)w;
	if (d->conn_max != 0) {
		w = snprintf(buf + o, cap - o, "conn-max %u\n", d->conn_max);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	for (i = 0; i < d->nblock; i++) {
		uint32_t a = d->block[i].addr;

		w = snprintf(buf + o, cap - o, "block %u.%u.%u.%u/%u\n",
		    a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255,
		    d->block[i].plen);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	return 0;
}

int
fwdata_load(struct fwdata *d, struct box_err *e)
{
	const char *path = fwdata_path();
	char *buf;
	struct stat st;
	ssize_t r;
	size_t n = 0;
	int fd, rc;

	memset(d, 0, sizeof(*d));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return err_set(e, -errno, "reading %s: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > FWDATA_TEXTMAX) {
		close(fd);
		return err_set(e, -EINVAL, "%s is not a regular file of at "
		    "most %d bytes", path, FWDATA_TEXTMAX);
	}
	if ((buf = malloc(FWDATA_TEXTMAX + 1)) == NULL) {
		close(fd);
		return err_set(e, -ENOMEM, "out of memory");
	}
	while (n < FWDATA_TEXTMAX &&
	    (r = read(fd, buf + n, FWDATA_TEXTMAX - n)) > 0)
		n += (size_t)r;
	close(fd);
	rc = fwdata_parse(buf, n, d);
	free(buf);
	if (rc < 0)
		return err_set(e, rc, "%s does not read as box's firewall data "
		    "(v1, conn-max N, block A.B.C.D/L)", path);
	return 0;
}

int
fwdata_save(const struct fwdata *d, struct box_err *e)
{
	const char *path = fwdata_path();
	char tmp[512], dir[512], *slash, *buf = malloc(FWDATA_TEXTMAX);
	size_t len;
	int fd, ok;

	if (buf == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (fwdata_format(d, buf, FWDATA_TEXTMAX) < 0) {
		free(buf);
		return err_set(e, -ENOSPC, "the firewall data is too long");
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0) {
		free(buf);
		return err_set(e, -errno, "writing %s: %s", tmp,
		    strerror(errno));
	}
	len = strlen(buf);
	ok = write(fd, buf, len) == (ssize_t)len && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	free(buf);
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return err_set(e, -EIO, "writing %s failed", path);
	}
	return 0;
}

int
fwdata_from_env(struct box_err *e)
{
	const char *bl = getenv("BOX_BLOCK"), *cm = getenv("BOX_CONN_MAX");
	struct fwdata d;
	unsigned long v;
	int rc;

	if (bl == NULL && cm == NULL)
		return 0;
	if ((rc = fwdata_load(&d, e)) < 0)
		return rc;
	if (cm != NULL) {
		if (num(cm, strlen(cm), &v) < 0 || v == 0 ||
		    v > CONTRACT_CONN_MAX_LIMIT)
			return err_usage(e, "BOX_CONN_MAX takes a number of "
			    "connections from 1 to %u, not '%s'",
			    CONTRACT_CONN_MAX_LIMIT, cm);
		d.conn_max = (uint32_t)v;
	}
	if (bl != NULL) {
		const char *p = bl;

		d.nblock = 0;
		while (*p != '\0') {
			char one[32];
			size_t l = strcspn(p, ", ");
			uint32_t a;
			uint8_t pl;

			if (l == 0) {
				p++;
				continue;
			}
			if (l >= sizeof(one))
				return err_usage(e, "BOX_BLOCK: '%.*s' is not "
				    "an IPv4 prefix", (int)(l > 40 ? 40 : l), p);
			memcpy(one, p, l);
			one[l] = '\0';
			if (fwdata_prefix_parse(one, &a, &pl) < 0)
				return err_usage(e, "BOX_BLOCK: '%s' is not an "
				    "IPv4 prefix (A.B.C.D/L)", one);
			if (fwdata_block_add(&d, a, pl) < 0)
				return err_usage(e, "BOX_BLOCK names more than "
				    "%d prefixes", FWDATA_MAXBLOCK);
			p += l;
		}
	}
	return fwdata_save(&d, e);
}
