# autoreduce build configuration: edit here or override on the make line.
VERSION = 0.1.0

PREFIX = /usr/local
MANPREFIX = $(PREFIX)/share/man

CC = cc
AR = ar
CPPFLAGS = -D_GNU_SOURCE -DAR_VERSION=\"$(VERSION)\"
CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -pthread $(EXTRA_CFLAGS)
LDFLAGS = -pthread $(EXTRA_CFLAGS)

# libsodium is linked statically: the GPU machines do not have it.
SODIUM_A = /usr/lib/x86_64-linux-gnu/libsodium.a
LDLIBS = $(SODIUM_A) -ljansson -lm

# CUDA parts are built only where nvcc exists.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
NVCC_GENCODE ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
