/*
 * doctor_tier.h - doctor's checks for the restricted tier: the set a
 * restricted caller runs, and the host's view of every granted project.
 */
#ifndef BOX_DOCTOR_TIER_H
#define BOX_DOCTOR_TIER_H

#include "host/doctor/doctor.h"
#include "incus/api.h"
#include "util/err.h"

#define DR_TIER_MAX 64

/* The restricted check set (run instead of the host's). */
int dr_restricted(struct dr_report *r, const struct dr_opts *o,
    struct box_err *e);

/*
 * Host: one finding per user-* project (whose; contract by content), the
 * daemon's symlink verdict when there is one, and the shape of every
 * instance on boxnet in a project other than the default one.
 */
int dr_granted(struct incus *c, struct dr_report *r, struct box_err *e);

/* The names of the user-* projects: count (names holds up to max). */
int dr_user_projects(struct incus *c, char names[][64], int max,
    struct box_err *e);

#endif
