# judge.mk: the setup stage. Builds the judge programs gen and score in the
# judge dir (a writable copy of the problem): make -s -f judge.mk
# -O3 -march=native so that the reference loop in gen vectorizes (3x faster
# than plain -O3 here); it stays exact: int32 sums, two float products.
CFLAGS = -std=c11 -O3 -march=native -Wall -Wextra

all: gen score

gen: gen.c judge.h ar-stream.h
	$(CC) $(CFLAGS) -o $@ gen.c

score: score.c judge.h
	$(CC) $(CFLAGS) -o $@ score.c -lm

.PHONY: all
