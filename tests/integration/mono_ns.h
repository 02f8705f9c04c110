/*
 * mono_ns.h - CLOCK_MONOTONIC in nanoseconds, for the integration tests'
 * own tools (nltool.c, gdprobe.c): a box shares this clock with its host,
 * so a time taken in a box and one taken on the host compare.
 */
#ifndef BOX_TEST_MONO_NS_H
#define BOX_TEST_MONO_NS_H

#include <time.h>

static inline long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
