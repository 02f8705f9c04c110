/* The unit-test runner: see t.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

#define MAX_TESTS 1024

struct test {
	const char *name;
	void (*fn)(void);
	const char *file;
};

static struct test tests[MAX_TESTS];
static int ntests;
static int cur_failed;

void
t_register(const char *name, void (*fn)(void), const char *file)
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "t: more than %d tests\n", MAX_TESTS);
		abort();
	}
	tests[ntests++] = (struct test){ name, fn, file };
}

void
t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	cur_failed++;
	fprintf(stderr, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
hexdump(const char *label, const unsigned char *p, size_t n)
{
	size_t i;

	fprintf(stderr, "      %s (%zu bytes):", label, n);
	for (i = 0; i < n && i < 256; i++) {
		if (i % 16 == 0)
			fprintf(stderr, "\n        %04zx ", i);
		fprintf(stderr, " %02x", p[i]);
	}
	if (n > 256)
		fprintf(stderr, "\n        ...");
	fputc('\n', stderr);
}

void
t_fail_mem(const char *file, int line, const char *what, const void *got,
    size_t gn, const void *want, size_t wn)
{
	t_fail(file, line, "%s differs", what);
	hexdump("got", got, gn);
	hexdump("want", want, wn);
}

const char *
t_datadir(void)
{
	const char *d = getenv("BOX_TEST_DATA");

	return d != NULL ? d : "tests";
}

static int
cmp_test(const void *a, const void *b)
{
	const struct test *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c != 0 ? c : strcmp(x->name, y->name);
}

int
main(int argc, char **argv)
{
	int passed = 0, failed = 0, i;

	qsort(tests, (size_t)ntests, sizeof(tests[0]), cmp_test);
	for (i = 0; i < ntests; i++) {
		if (argc > 1 && strstr(tests[i].name, argv[1]) == NULL)
			continue;
		cur_failed = 0;
		tests[i].fn();
		if (cur_failed == 0) {
			passed++;
			printf("ok   %s\n", tests[i].name);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
