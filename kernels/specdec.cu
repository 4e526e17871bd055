/*
 * specdec.cu: the CUDA kernels of problems/specdec (RMSNorm, rotary,
 * GQA attention over the KV cache, SwiGLU, the bf16 GEMMs, the target's
 * logits and argmax), built into libardev.a where nvcc exists so that
 * `make` compiles them and tests/specdec-cuda-test can compare each
 * with its CPU reference (problems/specdec/model.c). The source lives in
 * the problem, which is sealed with it and which the engine's GPU build
 * compiles on the node; this file only includes it.
 */
#include "../problems/specdec/cuda.cu"
