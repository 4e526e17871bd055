/* booking.h: bookings of GPUs (or CPUs) by ar-run, read by ar-sched: one
 * file run/gpus/NODE@SLOT per slot taken, made with link(2) so that two
 * runners never take one slot, holding one line "EXPERIMENT HOLDER PID
 * EXPIRES" (tab-separated; EXPIRES in seconds since the epoch). ar-run
 * names its own node "local". ar-spool(5) is the format. */
#ifndef AR_BOOKING_H
#define AR_BOOKING_H

#include <stddef.h>

#include "id.h"

struct ar_booking {
	char exp[AR_ID_MAX + 1], holder[AR_ID_MAX + 1];
	long pid;
	long long expires;
};

/* The directory of a campaign's bookings, malloc'd. */
char *ar_booking_dir(const char *camp);
/* The file of one slot's booking, malloc'd. */
char *ar_booking_path(const char *camp, const char *node, int slot);
/* Splits a booking's file name NODE@SLOT; -1 when it is not one. */
int ar_booking_name(const char *name, char *node, size_t n, int *slot);
/* Reads one booking; -1 when it is gone or malformed. */
int ar_booking_read(const char *path, struct ar_booking *b);
/* Books every slot or none: 0 booked; 1 when one was booked already (the
 * ones made are taken back); -1 with errno when one cannot be written. */
int ar_booking_make(const char *camp, const char *node, const int *slot,
	size_t n, const struct ar_booking *b);
/* Rewrites a booking with b's expiry, only while b's experiment and pid
 * hold it; 0, or -1 with errno. */
int ar_booking_renew(const char *camp, const char *node, int slot,
	const struct ar_booking *b);
/* Removes a booking only while exp and pid hold it. */
void ar_booking_drop(const char *camp, const char *node, int slot,
	const char *exp, long pid);
/* Calls fn for each booking of the campaign (its node, slot and content;
 * b NULL when unreadable); -1 with errno when the directory cannot be
 * read (ENOENT: none made yet). */
int ar_booking_each(const char *camp, void (*fn)(const char *node,
	int slot, const struct ar_booking *b, const char *path, void *arg),
	void *arg);

#endif
