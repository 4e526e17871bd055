# build.mk: the build stage, sealed: make -s -f "$AR_PROBLEM/build.mk" in
# the method's directory. The method's own Makefile makes only its
# kernel's object, matvec.o, with whatever flags it likes; check-object.sh
# makes sure that object holds the kernel and nothing that replaces or
# runs beside the sealed driver; then the driver is linked here, so what
# is timed is always the sealed driver's main (ar-problem(5)).
ifndef AR_PROBLEM
$(error AR_PROBLEM is not set: it names the problem directory)
endif

all:
	rm -f matvec matvec.o
	$(MAKE) -f Makefile matvec.o
	sh "$(AR_PROBLEM)/check-object.sh" matvec.o
	$(CC) -std=c11 -O2 -I"$(AR_PROBLEM)" -o matvec \
	    "$(AR_PROBLEM)/driver.c" matvec.o -pthread -fopenmp -lm

.PHONY: all
