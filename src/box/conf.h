/*
 * conf.h - the defaults a user or a host sets once: ~/.config/box/config
 * and /etc/box/config, "key = value" lines, for what are environment
 * variables otherwise (template, image, cpu, memory, disk, egress,
 * idle-stop).
 *
 * What wins: a verb's flag, then the environment (BOX_CPU, ...), then the
 * user's file, then the host's, then the template, then box's own
 * default.  The files are read, never executed: '#' comments, blank
 * lines, one known key per line (unknown or repeated: refused, with the
 * file and line), a value of printable text (one pair of double quotes
 * around it is dropped).  Bounded: CONF_FILE_MAX bytes a file,
 * CONF_VALUE_MAX a value; a file that is not a regular file is refused
 * (a FIFO cannot hang box).
 */
#ifndef BOX_CONF_H
#define BOX_CONF_H

#include <stddef.h>

#include "util/err.h"

#define CONF_FILE_MAX	(16u << 10)
#define CONF_VALUE_MAX	4096
#define CONF_SYSTEM	"/etc/box/config"
#define CONF_USER	".config/box/config"	/* under $HOME */

enum conf_key {
	CONF_TEMPLATE, CONF_IMAGE, CONF_CPU, CONF_MEMORY, CONF_DISK,
	CONF_EGRESS, CONF_IDLE_STOP, CONF_N
};

/* One file's values: NULL where it sets none; line numbers beside. */
struct conf_file {
	char *v[CONF_N];
	int line[CONF_N];
};

/*
 * Parse text[0..n) (label names it in errors: "/etc/box/config").
 * 0, or -EINVAL with "<label>:<line>: ..." in e; free with conf_free().
 */
int conf_parse(const char *label, const char *text, size_t n,
    struct conf_file *f, struct box_err *e);
void conf_free(struct conf_file *f);

/* The key's name in the files ("idle-stop") and its variable. */
const char *conf_name(int k);
const char *conf_env(int k);

/*
 * Read both files and the environment, once per run: 0, or the first
 * file's refusal.  conf_get() and conf_from() need it done (else NULL).
 */
int conf_load(struct box_err *e);
/* The value in force below the flags, or NULL: none set. */
const char *conf_get(int k);
/* Where it came from: "BOX_CPU", "<file>:<line>", or NULL. */
const char *conf_from(int k);
/*
 * Why the user's config file was not read, or "": as root, one root does
 * not own (another user's HOME) is left out.
 */
const char *conf_skipped(void);

#endif
