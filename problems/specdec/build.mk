# build.mk: the build stage, sealed: make -s -f "$AR_PROBLEM/build.mk" in
# the method's directory. The method's Makefile makes only policy.o, with
# the flags it likes; check-object.sh makes sure that object holds the
# policy and nothing that runs beside the engine or reaches the clock,
# files or threads; then the sealed engine is linked here, with the
# flags judge.mk builds the reference with (the same bits). With GPUs
# (ar-bench -G sets AR_GPUS), the engine runs its models on the GPU:
# cuda.cu is compiled here with the node's nvcc.
ifndef AR_PROBLEM
$(error AR_PROBLEM is not set: it names the problem directory)
endif

SDFLAGS = -std=c11 -O2 -ffp-contract=off
NVCC = /usr/local/cuda/bin/nvcc
GENCODE = -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

all:
	rm -f specdec policy.o sd-cuda.o
	$(MAKE) -f Makefile policy.o
	sh "$(AR_PROBLEM)/check-object.sh" policy.o
ifeq ($(AR_GPUS),)
	$(CC) $(SDFLAGS) -I"$(AR_PROBLEM)" -o specdec \
	    "$(AR_PROBLEM)/engine.c" "$(AR_PROBLEM)/cage.c" "$(AR_PROBLEM)/model.c" policy.o -lm -pthread
else
	$(NVCC) $(GENCODE) -O3 -std=c++17 -I"$(AR_PROBLEM)" -c -o sd-cuda.o \
	    "$(AR_PROBLEM)/cuda.cu"
	$(CC) $(SDFLAGS) -DSD_CUDA -I"$(AR_PROBLEM)" -o specdec \
	    "$(AR_PROBLEM)/engine.c" "$(AR_PROBLEM)/cage.c" "$(AR_PROBLEM)/model.c" policy.o sd-cuda.o \
	    -L/usr/local/cuda/lib64 -lcudart_static -lstdc++ -ldl -lrt -pthread -lm
endif

.PHONY: all
