# build.mk: the build stage, sealed: make -s -f "$AR_PROBLEM/build.mk" in
# the method's directory. The method's Makefile makes only policy.o, with
# the flags it likes; check-object.sh makes sure that object holds the
# policy and nothing that runs beside the engine or reaches the clock,
# files or threads; then the sealed engine is linked here, with the
# flags judge.mk builds the reference with (the same bits).
ifndef AR_PROBLEM
$(error AR_PROBLEM is not set: it names the problem directory)
endif

SDFLAGS = -std=c11 -O2 -ffp-contract=off

all:
	rm -f specdec policy.o
	$(MAKE) -f Makefile policy.o
	sh "$(AR_PROBLEM)/check-object.sh" policy.o
	$(CC) $(SDFLAGS) -I"$(AR_PROBLEM)" -o specdec \
	    "$(AR_PROBLEM)/engine.c" "$(AR_PROBLEM)/model.c" policy.o -lm

.PHONY: all
