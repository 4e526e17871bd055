# judge.mk: the setup stage. Builds the judge programs gen and score in
# the judge dir (a writable copy of the problem): make -s -f judge.mk.
# model.c is compiled with the engine's flags (build.mk): the reference
# must be the same bits as the run, and -ffp-contract=off keeps any
# compiler from fusing a multiply and an add in one and not the other.
CFLAGS = -std=c11 -O2 -ffp-contract=off -Wall -Wextra

all: gen score

# With GPUs (ar-bench -G sets AR_GPUS), gen makes the reference on the
# GPU with the engine's kernels and checks a few requests on the CPU
# (gen.c): the "gpu" model size would take the CPU minutes a pair.
NVCC = /usr/local/cuda/bin/nvcc
GENCODE = -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

ifeq ($(AR_GPUS),)
gen: gen.c model.c model.h trace.h judge.h ar-stream.h
	$(CC) $(CFLAGS) -o $@ gen.c model.c -lm -pthread
else
gen: gen.c model.c model.h trace.h judge.h ar-stream.h cuda.cu sd-cuda.h
	$(NVCC) $(GENCODE) -O3 -std=c++17 -I. -c -o sd-cuda.o cuda.cu
	$(CC) $(CFLAGS) -DSD_CUDA -o $@ gen.c model.c sd-cuda.o \
	    -L/usr/local/cuda/lib64 -lcudart_static -lstdc++ -ldl -lrt -pthread -lm
endif

score: score.c trace.h judge.h
	$(CC) $(CFLAGS) -o $@ score.c -lm

.PHONY: all
