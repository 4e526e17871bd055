/* host.h: the one way to name this machine. Results, machine profiles
 * and lock files record the full host name; inventories, bookings and
 * lease holders use the short one (up to the first dot), as hostname -s
 * prints it. ar_host_same tells whether two names are one host. */
#ifndef AR_HOST_H
#define AR_HOST_H

/* This host's full name; "localhost" when the system has none. */
const char *ar_host(void);
/* The same up to its first dot. */
const char *ar_host_short(void);
/* 1 when a and b name one host: equal, or one is the other up to a dot. */
int ar_host_same(const char *a, const char *b);

#endif
