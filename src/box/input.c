/*
 * input.c - sizes, CPU counts and generated names (see input.h).
 */
#include "box/input.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "incus/instance.h"

struct unit {
	const char *name;	/* as typed, compared without case */
	int binary;		/* 1024-based */
	int power;		/* 0 B, 1 k, 2 M, 3 G, 4 T, 5 P */
};

static const struct unit units[] = {
	{ "b", 1, 0 },
	{ "k", 1, 1 }, { "kib", 1, 1 }, { "kb", 0, 1 },
	{ "m", 1, 2 }, { "mib", 1, 2 }, { "mb", 0, 2 },
	{ "g", 1, 3 }, { "gib", 1, 3 }, { "gb", 0, 3 },
	{ "t", 1, 4 }, { "tib", 1, 4 }, { "tb", 0, 4 },
	{ "p", 1, 5 }, { "pib", 1, 5 }, { "pb", 0, 5 },
	{ NULL, 0, 0 }
};

static const char *const bin_names[] = { "B", "KiB", "MiB", "GiB", "TiB",
    "PiB" };
static const char *const dec_names[] = { "B", "kB", "MB", "GB", "TB",
    "PB" };

static int
unit_find(const char *s, size_t n)
{
	int i;
	size_t k;

	for (i = 0; units[i].name != NULL; i++) {
		if (strlen(units[i].name) != n)
			continue;
		for (k = 0; k < n; k++)
			if (tolower((unsigned char)s[k]) != units[i].name[k])
				break;
		if (k == n)
			return i;
	}
	return -1;
}

int
input_size(const char *s, enum input_size kind, char *out, size_t cap,
    char *why, size_t wcap)
{
	const char *p = s, *what = kind == IS_MEMORY ? "memory" : "disk";
	uint64_t whole = 0, frac = 0, fscale = 1, base, mult = 1, bytes, min;
	int u, i, pw;

	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		goto bad;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > 1000000000ULL)
			goto big;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++)
			if (fscale < 1000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
			}
		if (fscale == 1)
			goto bad;
	}
	while (*p == ' ')
		p++;
	if (*p == '%' && p[1] == '\0') {
		if (kind != IS_MEMORY || frac != 0 || whole < 1 || whole > 100) {
			snprintf(why, wcap, "'%s' is not a %s size (a share "
			    "of the host's memory is 1%% to 100%%, and only "
			    "for memory)", s, what);
			return -EINVAL;
		}
		snprintf(out, cap, "%llu%%", (unsigned long long)whole);
		return 0;
	}
	if (*p == '\0') {
		snprintf(why, wcap, "'%s' has no unit: did you mean %sGiB "
		    "(accepted: " INPUT_SIZE_FORMS ")", s, s);
		return -EINVAL;
	}
	if ((u = unit_find(p, strlen(p))) < 0)
		goto bad;
	base = units[u].binary ? 1024 : 1000;
	for (i = 0; i < units[u].power; i++)
		mult *= base;
	if (whole > UINT64_MAX / mult / 2)
		goto big;
	bytes = whole * mult + frac * mult / fscale;
	min = kind == IS_MEMORY ? 32ULL << 20 : 1ULL << 30;
	if (bytes < min) {
		snprintf(why, wcap, "%s %s is too small (at least %s)", what,
		    s, kind == IS_MEMORY ? "32MiB" : "1GiB");
		return -EINVAL;
	}
	if (bytes > (1ULL << 50))
		goto big;
	/* the largest unit of the same kind that holds it whole */
	for (pw = 5; pw > 0; pw--) {
		uint64_t m = 1;

		for (i = 0; i < pw; i++)
			m *= base;
		if (bytes % m == 0)
			break;
	}
	{
		uint64_t m = 1;

		for (i = 0; i < pw; i++)
			m *= base;
		snprintf(out, cap, "%llu%s", (unsigned long long)(bytes / m),
		    units[u].binary ? bin_names[pw] : dec_names[pw]);
	}
	return 0;
big:
	snprintf(why, wcap, "%s %s is more than any host has (at most 1PiB)",
	    what, s);
	return -EINVAL;
bad:
	snprintf(why, wcap, "'%s' is not a %s size (accepted: "
	    INPUT_SIZE_FORMS "%s)", s, what, kind == IS_MEMORY ? ", 50%" : "");
	return -EINVAL;
}

int
input_cpu(const char *s, char *why, size_t wcap)
{
	const char *p = s;
	long n;
	char *end;

	if (*s == '\0')
		goto bad;
	if (strspn(s, "0123456789") == strlen(s)) {
		n = strtol(s, &end, 10);
		if (strlen(s) > 5 || n < 1 || n > 1024) {
			snprintf(why, wcap, "--cpu %s: a count is 1 to 1024",
			    s);
			return -EINVAL;
		}
		return 0;
	}
	/* a set: N or N-M, comma separated */
	while (*p != '\0') {
		long a, b;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		p = end;
		b = a;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				goto bad;
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		if (a > 4095 || b > 4095 || b < a)
			goto bad;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			goto bad;
		if (*p == '\0' && p[-1] == ',')
			goto bad;
	}
	return 0;
bad:
	snprintf(why, wcap, "'%s' is not a CPU count (accepted: a count, 2; "
	    "or a set of CPUs to pin, 0-3,6)", s);
	return -EINVAL;
}

/* Short, unambiguous words, none of them a verb's or "all". */
static const char *const adj[] = {
	"amber", "brisk", "calm", "deft", "eager", "fair", "glad", "hazel",
	"ivory", "jolly", "keen", "lucid", "merry", "noble", "olive", "plucky",
	"quiet", "rapid", "sunny", "tidy", "urban", "vivid", "witty", "young",
};
static const char *const noun[] = {
	"otter", "heron", "lynx", "finch", "badger", "cedar", "comet", "delta",
	"ember", "fjord", "grove", "harbor", "island", "juniper", "kestrel",
	"lagoon", "maple", "nebula", "orchid", "pebble", "quartz", "raven",
	"spruce", "tundra",
};
#define NADJ (sizeof(adj) / sizeof(adj[0]))
#define NNOUN (sizeof(noun) / sizeof(noun[0]))

int
input_name_pick(unsigned seed, int (*taken)(const char *, void *),
    void *arg, char *out, size_t cap)
{
	unsigned i, k, total = (unsigned)(NADJ * NNOUN);

	for (i = 0; i < total; i++) {
		k = (seed + i * 7919u) % total;	/* a prime stride: all pairs */
		snprintf(out, cap, "%s-%s", adj[k / NNOUN], noun[k % NNOUN]);
		if (!taken(out, arg))
			return 0;
	}
	for (i = 2; i < 1000; i++) {
		k = seed % total;
		snprintf(out, cap, "%s-%s-%u", adj[k / NNOUN], noun[k % NNOUN],
		    i);
		if (!taken(out, arg))
			return 0;
	}
	return -EEXIST;
}

static int
in_list(const char *name, void *arg)
{
	const struct incus_instance_list *l = arg;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return 1;
	return 0;
}

int
input_name_new(struct incus *c, char *out, size_t cap, struct box_err *e)
{
	struct incus_instance_list l;
	unsigned seed = 0;
	int fd, rc;

	if ((rc = incus_instance_list(c, NULL, 0, &l, e)) < 0)
		return rc;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &seed, sizeof(seed)) != (ssize_t)sizeof(seed))
		seed = (unsigned)time(NULL) ^ (unsigned)getpid() << 8;
	if (fd >= 0)
		close(fd);
	rc = input_name_pick(seed, in_list, &l, out, cap);
	incus_instance_list_free(&l);
	if (rc < 0)
		return err_set(e, rc, "no free name for a new box");
	return 0;
}
