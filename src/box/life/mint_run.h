/*
 * mint_run.h - the pipeline behind `box new`: a fresh mint from a
 * template, or a clone of a box (--from box[/snap]), with its stages
 * narrated on stderr and a half-made box removed (box/life/discard.h).
 */
#ifndef BOX_MINT_RUN_H
#define BOX_MINT_RUN_H

#include "util/err.h"

/* What was asked; NULL fields take their defaults (flag > env > template). */
struct box_mint_req {
	const char *name;
	const char *from;	/* clone this box[/snap], or NULL: fresh */
	const char *template_;	/* NULL: "blank" */
	const char *cpu, *memory, *disk, *image;
	const char *egress;	/* --egress, or NULL */
	const char *target;	/* --target: a cluster member, or NULL */
	const char *idle_stop;	/* seconds (user.box.idle-stop), or NULL */
	int mode;		/* MINT_AUTO / MINT_VM / MINT_CT */
	int fork;		/* from a running box: snapshot, then copy */
	int slow;		/* fork on a pool without copy-on-write: a
				   full copy of the running box, said */
};

/* The verb's result, for stdout. */
struct box_mint_out {
	char name[64];		/* the box's name (made up when none was given) */
	char ready[512];	/* "ready — 'box shell <name>'." ... */
	char note[160];		/* a line after it, or "" */
};

int box_mint(const struct box_mint_req *q, struct box_mint_out *out,
    struct box_err *e);

#endif
