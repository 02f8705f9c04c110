/*
 * fuzz_sidecar - the <file>.sha256 reader (box/import/backup.h): the parser over
 * any bytes, and the reader over the same bytes written to a real
 * sidecar (opened without following or blocking, a regular file of at
 * most BACKUP_SIDECAR_MAX bytes).  A digest it accepts is 64 lower-case
 * hex digits equal, byte for byte, to the line's first 64 (either case),
 * ended by the end, a space, a tab or a newline - checked here
 * independently; the reader and the parser agree on every input the
 * reader's bound lets through.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/import/backup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char file[64], side[80];

static int
want_ok(const uint8_t *d, size_t n, char hex[65])
{
	size_t i;

	if (n < 64)
		return 0;
	for (i = 0; i < 64; i++) {
		int c = d[i];

		if (c >= 'A' && c <= 'F')
			c += 'a' - 'A';
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
		hex[i] = (char)c;
	}
	hex[64] = '\0';
	return n == 64 || d[64] == ' ' || d[64] == '\t' || d[64] == '\n';
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char got[65], want[65], fromfile[65];
	struct box_err e;
	int ok, rc, fd;
	char *copy = malloc(size ? size : 1);

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);	/* exactly size: ASan sees overreads */
	ok = want_ok(data, size, want);
	rc = backup_sidecar_parse(copy, size, got);
	if ((rc == 0) != ok || (ok && strcmp(got, want) != 0))
		abort();
	free(copy);

	if (file[0] == '\0') {
		snprintf(file, sizeof(file), "/tmp/fuzz_sidecar.%d", getpid());
		snprintf(side, sizeof(side), "%s.sha256", file);
	}
	fd = open(side, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	err_clear(&e);
	rc = backup_sidecar_read(file, fromfile, &e);
	if (size > BACKUP_SIDECAR_MAX) {
		if (rc == 0)
			abort();	/* the bound did not hold */
	} else if ((rc == 0) != ok || (ok && strcmp(fromfile, want) != 0)) {
		abort();
	}
	unlink(side);
	return 0;
}
