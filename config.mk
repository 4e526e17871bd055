# autoreduce build configuration: edit here or override on the make line.
VERSION = 0.1.0

PREFIX = /usr/local
MANPREFIX = $(PREFIX)/share/man

CC = cc
AR = ar
CPPFLAGS = -D_GNU_SOURCE -DAR_VERSION=\"$(VERSION)\"
CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -pthread $(EXTRA_CFLAGS)
LDFLAGS = -pthread $(EXTRA_CFLAGS)

# libsodium and GSL are linked statically: the GPU machines lack them.
LIBDIR_A = /usr/lib/x86_64-linux-gnu
SODIUM_A = $(LIBDIR_A)/libsodium.a
GSL_A = $(LIBDIR_A)/libgsl.a $(LIBDIR_A)/libgslcblas.a
LDLIBS = $(SODIUM_A) $(GSL_A) -ljansson -lm

# CUDA parts are built only where nvcc exists.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
NVCC_GENCODE ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
# -lineinfo: compute-sanitizer and ncu name source lines. No exceptions
# and no thread-safe statics: nvcc's launch stubs then need nothing of the
# C++ runtime, and the C link needs no libstdc++.
NVCCFLAGS = $(NVCC_GENCODE) -O3 -std=c++17 -lineinfo \
	-Xcompiler -Wall,-Wextra,-fno-exceptions,-fno-threadsafe-statics \
	-Werror all-warnings
# The CUDA runtime, linked statically: nothing of CUDA is needed to start.
CUDART_A = $(CUDA_HOME)/lib64/libcudart_static.a
