# autoreduce: `make` builds, `make check` tests, `make check-asan` tests
# under AddressSanitizer and UBSan, `make lint` checks the man pages.
include config.mk

# Build outputs go to $(O); check-asan uses its own.
O = build

BIN = ar-init ar-queue ar-ledger ar-bench ar-curve ar-digest ar-sched ar-run
SCRIPTS = ar-loop ar-plan ar-agent
MAN1 = $(BIN:=.1) $(SCRIPTS:=.1)
MAN5 = ar-formats.5 ar-problem.5
MAN7 = autoreduce.7
TESTBIN = ar-sign-test unit http-stub

LIBSRC = $(wildcard lib/*.c)
LIBOBJ = $(LIBSRC:lib/%.c=$(O)/lib/%.o)
HDR = $(wildcard lib/*.h)
KERNELS = $(wildcard kernels/*.cu)
KOBJ = $(KERNELS:kernels/%.cu=$(O)/kernels/%.o)

all: $(BIN:%=$(O)/bin/%) $(TESTBIN:%=$(O)/tests/%) cuda

$(O)/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(O)/libar.a: $(LIBOBJ)
	$(AR) rcs $@ $(LIBOBJ)

$(O)/bin/%: cmd/%.c $(O)/libar.a $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib -o $@ $< $(O)/libar.a $(LDFLAGS) $(LDLIBS)

$(O)/bench/%: bench/%.c $(O)/libar.a $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib -o $@ $< $(O)/libar.a $(LDFLAGS) $(LDLIBS)

# Benchmarks are run by hand, not by make check.
bench: $(O)/bench/verdict-sim

$(O)/tests/%: tests/%.c $(O)/libar.a $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib -o $@ $< $(O)/libar.a $(LDFLAGS) $(LDLIBS)

# CUDA kernels: built where nvcc exists, skipped (and said so) elsewhere.
cuda:
	@if [ -z "$(KERNELS)" ]; then \
		echo "cuda: no kernels/*.cu in this tree; nothing to build"; \
	elif [ -x "$(NVCC)" ] || command -v "$(NVCC)" >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory cuda-build; \
	else \
		echo "cuda: $(NVCC) not found; skipping the CUDA kernels"; \
	fi

cuda-build: $(KOBJ)

$(O)/kernels/%.o: kernels/%.cu $(HDR)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_GENCODE) -O2 -Ilib -c -o $@ $<

check: all lint-man
	tests/run $(O)

check-asan:
	$(MAKE) O=build-asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" check

check-valgrind: all
	tests/valgrind-run $(O)

lint-man:
	mandoc -T lint -W warning $(MAN1:%=man/%) $(MAN5:%=man/%) $(MAN7:%=man/%)

lint: lint-man
	cppcheck --quiet --error-exitcode=1 --std=c11 \
		--suppress=missingIncludeSystem -Ilib lib cmd tests/*.c

demo: all
	scripts/demo

tour: all
	scripts/tour

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 \
		$(DESTDIR)$(MANPREFIX)/man5 $(DESTDIR)$(MANPREFIX)/man7
	cp -f $(BIN:%=$(O)/bin/%) $(DESTDIR)$(PREFIX)/bin/
	cp -f $(SCRIPTS:%=scripts/%) $(DESTDIR)$(PREFIX)/bin/
	mkdir -p $(DESTDIR)$(PREFIX)/share/autoreduce
	cp -f program.md $(DESTDIR)$(PREFIX)/share/autoreduce/
	for f in $(MAN1); do cp -f man/$$f $(DESTDIR)$(MANPREFIX)/man1/; done
	cp -f $(MAN5:%=man/%) $(DESTDIR)$(MANPREFIX)/man5/
	cp -f $(MAN7:%=man/%) $(DESTDIR)$(MANPREFIX)/man7/

uninstall:
	for f in $(BIN) $(SCRIPTS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$f; done
	for f in $(MAN1); do rm -f $(DESTDIR)$(MANPREFIX)/man1/$$f; done
	rm -f $(DESTDIR)$(PREFIX)/share/autoreduce/program.md
	rm -f $(MAN5:%=$(DESTDIR)$(MANPREFIX)/man5/%) $(MAN7:%=$(DESTDIR)$(MANPREFIX)/man7/%)

clean:
	rm -rf build build-asan

.PHONY: all bench cuda cuda-build check check-asan check-valgrind lint lint-man demo tour install uninstall clean
.PRECIOUS: $(O)/lib/%.o
