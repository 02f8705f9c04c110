/*
 * cp.h - box cp: files between this host and a box, as a tar stream
 * through exec (the box's tar on its side, box's own on this side).
 *
 *   into a box   this side's tree is written as ustar by box (lstat: a
 *                symlink is stored as one, never followed), the box's
 *                tar unpacks it as root into a fresh directory beside the
 *                target, chown -R -h makes it the box's user's, and it is
 *                moved into place: modes kept, owned by the box's user.
 *   out of one   the box's tar (as root, symlinks not followed) is read by
 *                box's own strict reader, which trusts nothing it says:
 *                no absolute name, no "..", every directory walked with
 *                O_NOFOLLOW from the target (a symlink the box sent is
 *                made, never written through), one top-level name only,
 *                set-id bits dropped, devices and hard links skipped (said).
 *   "-"          stdin is a tar to unpack in the box; stdout gets the
 *                box's tar as it is (not onto a terminal).
 */
#ifndef BOX_CP_H
#define BOX_CP_H

#include "util/err.h"

struct box_cp_req {
	const char *src, *dst;	/* one of them <box>:<path>, the other a
				   local path or "-" */
};

struct box_cp_out {
	char box[64];
	int into;		/* 1: this host -> box */
	long long files, bytes;
};

int box_cp(const struct box_cp_req *q, struct box_cp_out *o,
    struct box_err *e);

/*
 * A name from a tar as box's reader takes it: relative, no "." or ".."
 * or empty component, at most 4095 bytes, no control characters.  0, or
 * -EINVAL (exposed for the tests and the fuzzer).
 */
int cp_name_ok(const char *name);

#endif
