/*
 * t.h - the unit-test harness.  A test is a function declared with TEST();
 * a constructor registers it, tests/unit/main.c runs them all (or those
 * whose names contain argv[1]) and ends with the line "N passed, N failed".
 * A failed check reports file:line and, for memory, a hex dump of both sides.
 */
#ifndef BOX_T_H
#define BOX_T_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

void t_register(const char *name, void (*fn)(void), const char *file);
void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void t_fail_mem(const char *file, int line, const char *what,
    const void *got, size_t gn, const void *want, size_t wn);
/* box expose's door device (door_device_kv()) as JSON text, in
 * test_lifecycle.c: 0, or < 0. */
int t_door_text(int vm, const char *ip, int port, int hport, char *buf,
    size_t cap);
/* Directory of checked-in test data (tests/), for tests that read files. */
const char *t_datadir(void);

#define TEST(name)							\
	static void test_##name(void);					\
	__attribute__((constructor)) static void reg_##name(void)	\
	{ t_register(#name, test_##name, __FILE__); }			\
	static void test_##name(void)

#define CHECK(cond) do {						\
	if (!(cond))							\
		t_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);		\
} while (0)

#define CHECK_INT(got, want) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (g_ != w_)							\
		t_fail(__FILE__, __LINE__, "%s == %lld, want %lld",	\
		    #got, g_, w_);					\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (g_ == NULL || strcmp(g_, w_) != 0)				\
		t_fail(__FILE__, __LINE__, "%s == \"%s\", want \"%s\"",	\
		    #got, g_ ? g_ : "(null)", w_);			\
} while (0)

#define CHECK_MEM(got, gn, want, wn) do {				\
	if ((size_t)(gn) != (size_t)(wn) ||				\
	    memcmp((got), (want), (wn)) != 0)				\
		t_fail_mem(__FILE__, __LINE__, #got, (got), (gn),	\
		    (want), (wn));					\
} while (0)

#endif
