# autoreduce: `make` builds, `make check` tests, `make check-asan` tests
# under AddressSanitizer and UBSan, `make lint` checks the man pages.
include config.mk

# Build outputs go to $(O); check-asan uses its own.
O = build

# Before anything is built, scripts/deps makes sure what the goals need
# is here (as root on Debian it installs what is missing, saying so; else
# it names it and the command, and nothing is built). Once per make: not
# in sub-makes, not in a dry run (make -n), not for goals that need
# nothing (clean, gpu-check on a machine that has no packages to give).
deps_all = build
deps_bench = build
deps_install = build
deps_gpu-build = build
deps_demo = demo
deps_tour = demo
deps_check = check
deps_check-asan = check
deps_check-stress = check
deps_check-valgrind = check valgrind
deps_lint = lint
deps_lint-man = man
deps_fuzz = fuzz
deps_fuzz-build = fuzz
deps_clean = -
deps_uninstall = -
deps_gpu-check = -
deps_goals = $(sort $(foreach g,$(or $(MAKECMDGOALS),all),$(or $(deps_$(g)),build)))
ifeq ($(AR_DEPS_DONE)$(findstring n,$(firstword -$(MAKEFLAGS))),)
ifneq ($(filter-out -,$(deps_goals)),)
deps_status := $(shell NVCC='$(NVCC)' scripts/deps $(filter-out -,$(deps_goals)) >&2; echo $$?)
ifneq ($(deps_status),0)
$(error scripts/deps: what make $(or $(MAKECMDGOALS),all) needs is missing (above); nothing was built)
endif
export AR_DEPS_SAID = 1
endif
endif
export AR_DEPS_DONE = 1

BIN = ar-campaign ar-init ar-queue ar-ledger ar-bench ar-curve ar-digest ar-sched ar-run
SCRIPTS = ar-loop ar-plan ar-agent
MAN1 = $(BIN:=.1) $(SCRIPTS:=.1)
MAN5 = ar-campaign.5 ar-formats.5 ar-ledger.5 ar-problem.5 ar-result.5 ar-spool.5
MAN7 = ar-measure.7 ar-policy.7 ar-seal.7 autoreduce.7
TESTBIN = ar-sign-test unit http-stub cuda-test attack

# Two layers of libraries: lib/ is the base (formats, rules, files),
# built into libar.a; dev/ is the device layer above it (the cpu and cuda
# devices, the ranks, the roofline), built into libardev.a with the CUDA
# kernels where nvcc exists, else with dev/cuda-none.c in their place.
# lib/ never includes dev/; programs link libardev.a before libar.a.
LIBSRC = $(wildcard lib/*.c)
LIBOBJ = $(LIBSRC:%.c=$(O)/%.o)
DEVSRC = $(filter-out dev/cuda-none.c,$(wildcard dev/*.c))
HDR = $(wildcard lib/*.h dev/*.h cmd/*/*.h)
KERNELS = $(wildcard kernels/*.cu)
KOBJ = $(KERNELS:kernels/%.cu=$(O)/kernels/%.o)

# The CUDA objects: the kernels where nvcc exists, with the CUDA runtime
# linked statically (cuBLAS, cuBLASLt and NCCL are loaded at run time).
HAVE_NVCC := $(if $(KERNELS),$(shell command -v $(NVCC) >/dev/null 2>&1 && echo yes))
ifeq ($(HAVE_NVCC),yes)
DEVKIND = cuda
DEVOBJ = $(DEVSRC:%.c=$(O)/%.o) $(KOBJ)
DEVLIBS = $(CUDART_A) -ldl -lrt -lpthread
else
DEVKIND = none
DEVOBJ = $(DEVSRC:%.c=$(O)/%.o) $(O)/dev/cuda-none.o
DEVLIBS =
endif
LINKLIBS = $(O)/libardev.a $(O)/libar.a

# A program is cmd/NAME.c, or the files of cmd/NAME/ when it is several.
cmdobj = $(patsubst %.c,$(O)/%.o,$(or $(wildcard cmd/$(1)/*.c),cmd/$(1).c))

all: $(BIN:%=$(O)/bin/%) $(TESTBIN:%=$(O)/tests/%) cuda

$(O)/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(O)/dev/%.o: dev/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -iquote lib -c -o $@ $<

$(O)/cmd/%.o: cmd/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -iquote lib -iquote dev -c -o $@ $<

# Made afresh: ar would keep members whose sources are gone or excluded.
$(O)/libar.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

# Records which device objects $(O) was built with, so that switching
# between a build with nvcc and one without relinks everything.
FORCE:

$(O)/dev.kind: FORCE
	@mkdir -p $(@D)
	@echo '$(DEVKIND)' | cmp -s - $@ || echo '$(DEVKIND)' > $@

$(O)/libardev.a: $(DEVOBJ) $(O)/dev.kind
	rm -f $@
	$(AR) rcs $@ $(DEVOBJ)

define program
$(O)/bin/$(1): $(call cmdobj,$(1)) $(O)/libar.a $(O)/libardev.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -o $$@ $(call cmdobj,$(1)) $$(LINKLIBS) $$(LDFLAGS) $$(LDLIBS) $$(DEVLIBS)
endef
$(foreach p,$(BIN),$(eval $(call program,$(p))))

# The libFuzzer targets of tests/fuzz, one per group of parsers: built
# with clang against lib/ compiled for fuzzing; `make fuzz` runs each for
# FUZZ_TIME seconds from its seeds (tests/fuzz/seeds/NAME) and keeps what
# it learns in $(O)/fuzz/corpus-NAME. A finding stops it, saved as
# $(O)/fuzz/crash-*. Not part of make check.
# Targets of dev/ link its CPU side (dev/cuda-none.c for the kernels);
# the landscape target includes cmd/ar-sched/simulate.c and links the
# rest of ar-sched but its main; the summary target likewise includes
# cmd/ar-sched/summary.c.
FUZZ = assign batch canon change files imports inventory landscape ledger lines manifest profile ranks seal spool summary specdec-score
FUZZ_TIME = 60
FUZZ_CC = clang
FUZZ_FLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
FUZZLIBOBJ = $(LIBSRC:lib/%.c=$(O)/fuzz/lib/%.o)
FUZZDEVOBJ = $(patsubst %.c,$(O)/fuzz/%.o,$(DEVSRC) dev/cuda-none.c)
FUZZSCHEDOBJ = $(patsubst %.c,$(O)/fuzz/%.o,$(filter-out cmd/ar-sched/main.c cmd/ar-sched/simulate.c,$(wildcard cmd/ar-sched/*.c)))
FUZZSUMOBJ = $(patsubst %.c,$(O)/fuzz/%.o,$(filter-out cmd/ar-sched/main.c cmd/ar-sched/summary.c,$(wildcard cmd/ar-sched/*.c)))

$(O)/fuzz/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(O)/fuzz/dev/%.o $(O)/fuzz/cmd/%.o: $(HDR)
$(O)/fuzz/dev/%.o: dev/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -iquote lib -c -o $@ $<
$(O)/fuzz/cmd/%.o: cmd/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -iquote lib -iquote dev -c -o $@ $<

$(O)/fuzz/landscape: $(FUZZSCHEDOBJ) cmd/ar-sched/simulate.c
$(O)/fuzz/summary: $(FUZZSUMOBJ) cmd/ar-sched/summary.c
$(O)/fuzz/specdec-score: problems/specdec/score.c problems/specdec/judge.h problems/specdec/trace.h
$(O)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZDEVOBJ) $(FUZZLIBOBJ)
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 $(FUZZ_FLAGS) -fsanitize=fuzzer -iquote lib -iquote dev -iquote cmd/ar-sched -o $@ $< $(filter $(O)/fuzz/cmd/%.o,$^) $(FUZZDEVOBJ) $(FUZZLIBOBJ) $(LDFLAGS) $(LDLIBS)

fuzz-build: $(FUZZ:%=$(O)/fuzz/%)

fuzz: fuzz-build
	@for f in $(FUZZ); do \
		mkdir -p $(O)/fuzz/corpus-$$f; \
		echo "fuzz: $$f for $(FUZZ_TIME) s"; \
		if (cd $(O)/fuzz && ./$$f -max_total_time=$(FUZZ_TIME) \
		    -max_len=65536 -print_final_stats=1 corpus-$$f \
		    $(CURDIR)/tests/fuzz/seeds/$$f > $$f.log 2>&1); then \
			grep -E '^(Done|stat::number_of_executed_units)' \
			    $(O)/fuzz/$$f.log; \
		else \
			tail -n 40 $(O)/fuzz/$$f.log; \
			echo "fuzz: $$f: a finding, see $(O)/fuzz/$$f.log"; \
			exit 1; \
		fi; \
	done

# Benchmarks are run by hand, not by make check.
bench: $(O)/bench/verdict-sim

$(O)/bench/%: bench/%.c $(O)/libar.a $(O)/libardev.a $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -iquote lib -iquote dev -o $@ $< $(LINKLIBS) $(LDFLAGS) $(LDLIBS) $(DEVLIBS)

# The unit tests of lib/: tests/unit/*.c, one file per module and the
# harness, into one program that links libar.a alone.
UNITSRC = $(wildcard tests/unit/*.c)

$(O)/tests/unit: $(UNITSRC) tests/unit/unit.h $(O)/libar.a $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -iquote lib -iquote tests/unit -o $@ $(UNITSRC) $(O)/libar.a $(LDFLAGS) $(LDLIBS)

$(O)/tests/%: tests/%.c $(O)/libar.a $(O)/libardev.a $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -iquote lib -iquote dev -o $@ $< $(LINKLIBS) $(LDFLAGS) $(LDLIBS) $(DEVLIBS)

# CUDA kernels: built where nvcc exists (into libardev.a), skipped, and
# said so, elsewhere.
ifeq ($(HAVE_NVCC),yes)
cuda: $(KOBJ)
else
cuda:
	@if [ -z "$(KERNELS)" ]; then \
		echo "cuda: no kernels/*.cu in this tree; nothing to build"; \
	elif [ -z "$(AR_DEPS_SAID)" ]; then \
		echo "cuda: $(NVCC) not found; skipping the CUDA kernels (the cuda device says: built without CUDA)"; \
	fi
endif

cuda-build: $(KOBJ)

$(O)/kernels/%.o: kernels/%.cu $(HDR) config.mk
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Ilib -Idev -c -o $@ $<

# The GPU checks. gpu-build, here: everything, with the kernels, so that
# build/ can be carried to a GPU machine. gpu-check, there: runs the
# checks on the carried build/ and builds nothing (that machine lacks the
# static libraries the programs link).
gpu-build:
	@if [ "$(HAVE_NVCC)" != yes ]; then \
		echo "gpu-build: $(NVCC) not found: a GPU build needs nvcc" >&2; \
		exit 69; \
	fi
	$(MAKE) --no-print-directory all

gpu-check:
	tests/gpu-check

check: all lint-man
	tests/run $(O)

# The stress tests (tests/stress/): kill -9 at random instants, many
# processes at once, a real single-node Slurm (tests/slurm-up).
check-stress: all
	tests/run $(O) stress

check-asan:
	$(MAKE) O=build-asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" check

check-valgrind: all
	tests/valgrind-run $(O)

lint-man:
	mandoc -T lint -W warning $(MAN1:%=man/%) $(MAN5:%=man/%) $(MAN7:%=man/%)

lint: lint-man
	cppcheck --quiet --error-exitcode=1 --std=c11 \
		--suppress=missingIncludeSystem -Ilib -Idev -Itests/unit lib dev cmd problems tests/*.c tests/unit/*.c

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
	cp -f program.md scripts/common.sh problems/int8-matvec/ar-stream.h \
		$(DESTDIR)$(PREFIX)/share/autoreduce/
	# The problems and the example agents and methods the pages name.
	rm -rf $(DESTDIR)$(PREFIX)/share/autoreduce/examples $(DESTDIR)$(PREFIX)/share/autoreduce/problems
	cp -R examples problems $(DESTDIR)$(PREFIX)/share/autoreduce/
	for f in $(MAN1); do cp -f man/$$f $(DESTDIR)$(MANPREFIX)/man1/; done
	cp -f $(MAN5:%=man/%) $(DESTDIR)$(MANPREFIX)/man5/
	cp -f $(MAN7:%=man/%) $(DESTDIR)$(MANPREFIX)/man7/

uninstall:
	for f in $(BIN) $(SCRIPTS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$f; done
	for f in $(MAN1); do rm -f $(DESTDIR)$(MANPREFIX)/man1/$$f; done
	rm -f $(DESTDIR)$(PREFIX)/share/autoreduce/program.md $(DESTDIR)$(PREFIX)/share/autoreduce/common.sh \
		$(DESTDIR)$(PREFIX)/share/autoreduce/ar-stream.h
	rm -rf $(DESTDIR)$(PREFIX)/share/autoreduce/examples $(DESTDIR)$(PREFIX)/share/autoreduce/problems
	rm -f $(MAN5:%=$(DESTDIR)$(MANPREFIX)/man5/%) $(MAN7:%=$(DESTDIR)$(MANPREFIX)/man7/%)

clean:
	rm -rf build build-asan

.PHONY: FORCE all bench fuzz fuzz-build cuda cuda-build gpu-build gpu-check check check-stress check-asan check-valgrind lint lint-man demo tour install uninstall clean
.PRECIOUS: $(O)/lib/%.o $(O)/fuzz/lib/%.o $(O)/fuzz/dev/%.o $(O)/fuzz/cmd/%.o

# problems/specdec's CUDA kernels (kernels/specdec.cu) against their CPU
# references: a test program built with the kernels, where nvcc exists.
ifeq ($(HAVE_NVCC),yes)
all: $(O)/tests/specdec-cuda-test
endif
SDDIR = problems/specdec
$(O)/kernels/specdec.o: $(SDDIR)/cuda.cu $(SDDIR)/sd-cuda.h $(SDDIR)/model.h
$(O)/tests/specdec-cuda-test: tests/specdec-cuda-test.c $(SDDIR)/model.c $(SDDIR)/model.h $(SDDIR)/sd-cuda.h $(O)/libardev.a $(O)/libar.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -ffp-contract=off -I$(SDDIR) -o $@ tests/specdec-cuda-test.c $(SDDIR)/model.c $(LINKLIBS) $(LDFLAGS) $(LDLIBS) $(DEVLIBS)
