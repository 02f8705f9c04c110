/*
 * input.h - what a user types for a box, checked and normalised before
 * anything is created: sizes (2G, 2GiB, 512M), CPU counts and sets, and
 * a readable name for a box minted without one.
 */
#ifndef BOX_INPUT_H
#define BOX_INPUT_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

#define INPUT_SIZE_FORMS "a number and a unit: 512M, 2G, 2GiB, 1.5G, 4GB"

/* What a size is for: memory may also be a share of the host ("50%"). */
enum input_size {
	IS_MEMORY,
	IS_DISK,
};

/*
 * A size as Incus reads it, from what a user typed: K/M/G/T (any case)
 * and KiB..TiB are binary (2G -> 2GiB, 1.5G -> 1536MiB, 2048M -> 2GiB),
 * kB/MB/GB/TB decimal (kept so); a memory size may be N% (1..100).  A bare
 * number, a unit of its own making, zero, or less than the minimum (32MiB
 * of memory, 1GiB of disk) is refused: -EINVAL and why says so.
 */
int input_size(const char *s, enum input_size kind, char *out, size_t cap,
    char *why, size_t wcap);

/*
 * A CPU count (1..1024) or a CPU set as Incus pins one (0-3,6): 0, or
 * -EINVAL with why.
 */
int input_cpu(const char *s, char *why, size_t wcap);

/*
 * A readable name for a new box: adjective-noun from seed (the first of
 * the word pairs at and after it that taken() refuses not), or, once all
 * are tried, adjective-noun-N.  taken(name, arg) is 1 when the name is in
 * use.  0, or -EEXIST when nothing was free.
 */
int input_name_pick(unsigned seed, int (*taken)(const char *, void *),
    void *arg, char *out, size_t cap);

/* input_name_pick() against the daemon's instances, seeded at random. */
int input_name_new(struct incus *c, char *out, size_t cap,
    struct box_err *e);

#endif
