# judge.mk: the setup stage. Builds the judge programs gen and score in
# the judge dir (a writable copy of the problem): make -s -f judge.mk.
# model.c is compiled with the engine's flags (build.mk): the reference
# must be the same bits as the run, and -ffp-contract=off keeps any
# compiler from fusing a multiply and an add in one and not the other.
CFLAGS = -std=c11 -O2 -ffp-contract=off -Wall -Wextra

all: gen score

gen: gen.c model.c model.h trace.h judge.h ar-stream.h
	$(CC) $(CFLAGS) -o $@ gen.c model.c -lm

score: score.c trace.h judge.h
	$(CC) $(CFLAGS) -o $@ score.c -lm

.PHONY: all
