/*
 * lease.c - see lease.h.  The files are Incus's and dnsmasq's; they are
 * read, never written, and anything in them that does not parse counts as
 * absent (no address), never as a guess.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "box/lease.h"
#include "incus/api.h"
#include "model/ip4text.h"
#include "model/mac.h"

static int
parse_ipv4(const char *s, uint32_t *out)
{
	unsigned a, b, c, d;
	char back[16];
	int k = 0;

	if (sscanf(s, "%3u.%3u.%3u.%3u%n", &a, &b, &c, &d, &k) != 4 ||
	    s[k] != '\0' || a > 255 || b > 255 || c > 255 || d > 255)
		return -EINVAL;
	/* the form dnsmasq writes, and only it (no "018", no sign) */
	ip4_fmt(a << 24 | b << 16 | c << 8 | d, back, sizeof(back));
	if (strcmp(back, s) != 0)
		return -EINVAL;
	*out = a << 24 | b << 16 | c << 8 | d;
	return 0;
}

/* One line "<expiry> <mac> <ipv4> ..." into *le; -EINVAL when it is not. */
static int
parse_line(const char *line, size_t n, struct lease *le)
{
	char buf[256], exp[24], mac[24], ip[24];
	char *end;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, n);
	buf[n] = '\0';
	if (sscanf(buf, "%23s %23s %23s", exp, mac, ip) != 3 ||
	    strspn(exp, "0123456789") != strlen(exp) || strlen(exp) > 18)
		return -EINVAL;
	le->expiry = strtoll(exp, &end, 10);
	/* sscanf's %x and %u take a sign or "0x": only the plain forms
	 * dnsmasq writes (fuzz_lease found "+0:66:..." read as 00:66:...) */
	if (strlen(mac) != 17 || strspn(mac, "0123456789abcdefABCDEF:") != 17 ||
	    strspn(ip, "0123456789.") != strlen(ip))
		return -EINVAL;
	if (mac_parse(mac, le->mac) < 0 || parse_ipv4(ip, &le->addr) < 0)
		return -EINVAL;
	return 0;
}

int
lease_parse(const char *text, size_t n, struct leases *l)
{
	size_t i = 0, k, cap = 0;

	l->v = NULL;
	l->n = 0;
	while (i < n) {
		struct lease le;

		for (k = 0; i + k < n && text[i + k] != '\n'; k++)
			;
		if (parse_line(text + i, k, &le) == 0) {
			if ((size_t)l->n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct lease *v = realloc(l->v, nc * sizeof(*v));

				if (v == NULL) {
					lease_free(l);
					return -ENOMEM;
				}
				l->v = v;
				cap = nc;
			}
			l->v[l->n++] = le;
		}
		i += k + 1;
	}
	return 0;
}

void
lease_free(struct leases *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int
lease_duration(const char *s, long long *secs)
{
	long long v = 0, mul = 1;
	size_t i, len = strlen(s);

	if (strcmp(s, "infinite") == 0) {
		*secs = 0;
		return 0;
	}
	if (len == 0 || len > 12)
		return -EINVAL;
	switch (s[len - 1]) {
	case 's': mul = 1; len--; break;
	case 'm': mul = 60; len--; break;
	case 'h': mul = 3600; len--; break;
	case 'd': mul = 86400; len--; break;
	case 'w': mul = 604800; len--; break;
	default: break;
	}
	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (v == 0)
		return -EINVAL;
	*secs = v * mul;
	return 0;
}

int
lease_iso_time(const char *iso, long long *secs)
{
	struct tm tm;
	int k = 0;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
	    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &k) != 6 ||
	    tm.tm_year < 1970)
		return -EINVAL;
	/* Incus writes UTC: a fraction, then Z. */
	if (iso[k] == '.')
		k += (int)strspn(iso + k + 1, "0123456789") + 1;
	if (strcmp(iso + k, "Z") != 0)
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*secs = (long long)timegm(&tm);
	return 0;
}

int
lease_judge(const struct leases *l, const unsigned char mac[6],
    long long started, long long duration, const struct lease_pin *pin,
    uint32_t *addr, char *why, size_t cap)
{
	const struct lease *found = NULL;
	char a[16], b[16];
	int i, count = 0;

	if (pin->state < 0) {
		snprintf(why, cap, "the lease Incus pinned for it is another "
		    "MAC's (its NIC changed MAC)");
		return 0;
	}
	for (i = 0; i < l->n; i++)
		if (memcmp(l->v[i].mac, mac, 6) == 0) {
			found = &l->v[i];
			count++;
		}
	if (count == 0) {
		snprintf(why, cap, "its MAC holds no DHCP lease (it has not "
		    "asked for an address)");
		return 0;
	}
	if (count > 1) {
		snprintf(why, cap, "its MAC holds %d DHCP leases", count);
		return 0;
	}
	ip4_fmt(found->addr, a, sizeof(a));
	if (found->expiry == 0 || duration <= 0) {
		snprintf(why, cap, "its lease on %s never expires, so when it "
		    "was granted is unknown", a);
		return -ENOTSUP;
	}
	if (found->expiry - duration < started) {
		snprintf(why, cap, "its lease on %s is from before its last "
		    "start (it has not asked again yet)", a);
		return 0;
	}
	if (pin->state > 0 && pin->addr != found->addr) {
		ip4_fmt(pin->addr, b, sizeof(b));
		snprintf(why, cap, "its lease is on %s but Incus pinned %s", a,
		    b);
		return 0;
	}
	*addr = found->addr;
	return 1;
}

/* A path segment we put together ourselves: no '/', no "..", bounded. */
static int
segment_ok(const char *s)
{
	return s[0] != '\0' && s[0] != '.' && strlen(s) < 80 &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_.") == strlen(s);
}

int
lease_path(const char *net, const char *file, char *buf, size_t cap)
{
	const char *dir = incus_daemon_dir();
	int n;

	if (!segment_ok(net))
		return -EINVAL;
	n = snprintf(buf, cap, "%s/networks/%s/%s", dir, net, file);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* The whole file (heap, NUL-terminated) or -errno. */
static ssize_t
slurp_capped(const char *path, char **out, size_t max)
{
	struct stat st;
	ssize_t got = 0, r;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		close(fd);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return -ENOMEM;
	}
	while ((size_t)got < (size_t)st.st_size) {
		r = read(fd, buf + got, (size_t)st.st_size - (size_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	buf[got] = '\0';
	*out = buf;
	return got;
}

int
lease_read(const char *net, struct leases *l)
{
	char path[512], *text;
	ssize_t n;
	int rc;

	l->v = NULL;
	l->n = 0;
	rc = lease_path(net, "dnsmasq.leases", path, sizeof(path));
	if (rc < 0)
		return rc;
	n = slurp_capped(path, &text, LEASE_FILE_MAX);
	if (n < 0)
		return (int)n;
	rc = lease_parse(text, (size_t)n, l);
	free(text);
	return rc;
}

int
lease_read_pin(const char *net, const char *inst, const char *dev,
    const unsigned char mac[6], struct lease_pin *pin)
{
	char file[192], path[512], *text;
	ssize_t n;
	int rc;

	pin->state = 0;
	pin->addr = 0;
	if (!segment_ok(inst) || !segment_ok(dev))
		return -EINVAL;
	snprintf(file, sizeof(file), "dnsmasq.hosts/%s.%s", inst, dev);
	rc = lease_path(net, file, path, sizeof(path));
	if (rc < 0)
		return rc;
	n = slurp_capped(path, &text, 4096);
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return (int)n;
	rc = mac_static_parse(text, (size_t)n, mac, &pin->addr);
	free(text);
	if (rc == -ESRCH) {
		pin->state = -1;
		return 0;
	}
	if (rc < 0)
		return rc;
	pin->state = 1;
	return 0;
}

int
lease_read_pin_hw(const char *net, const char *inst, const char *dev,
    const char *hw, struct lease_pin *pin)
{
	unsigned char mac[6];

	pin->state = 0;
	pin->addr = 0;
	if (hw == NULL || strlen(hw) != 17 || mac_parse(hw, mac) < 0)
		return -EINVAL;
	return lease_read_pin(net, inst, dev, mac, pin);
}

int
lease_pin_holder(const char *net, const char *self, uint32_t addr,
    char *who, size_t cap)
{
	char dir[512], path[800], m[18], *text, *dot;
	unsigned char mac[6];
	struct dirent *d;
	uint32_t a;
	ssize_t n;
	DIR *dp;
	int seen = 0, rc;

	who[0] = '\0';
	if ((rc = lease_path(net, "dnsmasq.hosts", dir, sizeof(dir))) < 0)
		return rc;
	if ((dp = opendir(dir)) == NULL)
		return -errno;
	while ((d = readdir(dp)) != NULL && seen++ < LEASE_PINS_MAX) {
		if (!segment_ok(d->d_name) || strcmp(d->d_name, self) == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if ((n = slurp_capped(path, &text, 4096)) < 0)
			continue;
		/* "MAC,IP[,name]": the file's own MAC, then its address */
		a = 0;
		snprintf(m, sizeof(m), "%.17s", text);
		rc = mac_parse(m, mac) == 0 ?
		    mac_static_parse(text, (size_t)n, mac, &a) : -EINVAL;
		free(text);
		if (rc == 0 && a == addr) {
			snprintf(who, cap, "%s", d->d_name);
			if ((dot = strrchr(who, '.')) != NULL)
				*dot = '\0';
			break;
		}
	}
	closedir(dp);
	return 0;
}

/*
 * Incus records the dnsmasq it runs for a network in dnsmasq.pid (its
 * subprocess YAML: name, args, pid).  The IPv4 --dhcp-range argument ends
 * in the lease time; without one dnsmasq grants an hour.
 */
int
lease_time_from_record(const char *text, size_t n, long long *secs)
{
	const char *p = text, *end = text + n;
	static const char key[] = "--dhcp-range";

	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), key,
		    sizeof(key) - 1);
		char val[128], *last;
		size_t k = 0;
		char q = 0;

		if (hit == NULL)
			break;
		p = hit + sizeof(key) - 1;
		/* "--dhcp-range, 'a,b,1h'" or "--dhcp-range=a,b,1h" */
		if (p < end && *p == '=')
			p++;
		else
			while (p < end && (*p == ',' || *p == ' ' ||
			    *p == '\n'))
				p++;
		if (p < end && (*p == '\'' || *p == '"'))
			q = *p++;
		while (p + k < end && k < sizeof(val) - 1 && (q ? p[k] != q :
		    p[k] != ',' && p[k] != ']' && p[k] != '\n' && p[k] != ' '))
			k++;
		memcpy(val, p, k);
		val[k] = '\0';
		if (strchr(val, '.') == NULL || strchr(val, ':') != NULL)
			continue;	/* not the IPv4 range */
		last = strrchr(val, ',');
		if (last == NULL)
			return -EINVAL;
		if (lease_duration(last + 1, secs) == 0)
			return 0;
		if (strchr(last + 1, '.') == NULL)
			return -EINVAL;
		*secs = 3600;
		return 0;
	}
	return -ENOENT;
}

int
lease_read_time(const char *net, long long *secs)
{
	char path[512], *text;
	ssize_t n;
	int rc;

	rc = lease_path(net, "dnsmasq.pid", path, sizeof(path));
	if (rc < 0)
		return rc;
	n = slurp_capped(path, &text, 64 * 1024);
	if (n < 0)
		return (int)n;
	rc = lease_time_from_record(text, (size_t)n, secs);
	free(text);
	return rc;
}
