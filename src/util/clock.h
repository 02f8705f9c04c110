/* clock.h - milliseconds on CLOCK_MONOTONIC, for deadlines and timing. */
#ifndef BOX_CLOCK_H
#define BOX_CLOCK_H

long long clock_ms(void);

#endif
