/* id.h: ids of records and results, and the fresh ids made for them. */
#ifndef AR_ID_H
#define AR_ID_H

/* Ids: [A-Za-z0-9._-], this long at most. */
#define AR_ID_MAX 100

/* id.c: "20261126T015812.123456Z-3f9a2c1b7d4e5f60": UTC time to the
 * microsecond, then 64 random bits. Sorts by time; never collides. */
#define AR_IDLEN 41
void ar_id_new(char out[AR_IDLEN]);
int ar_id_valid(const char *s);
/* The time at the start of such an id (or of any string that starts like
 * one, as a spool record's ORDER); 0, or -1 when it does not. */
struct timespec;
int ar_id_time(const char *id, struct timespec *ts);

#endif
