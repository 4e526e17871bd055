/* trace.h: the files of specdec, shared by gen, the engine and score.
 *
 * $AR_IN/trace.bin: struct sd_trace_hdr, nreq struct sd_treq (in
 *   arrival order), then the prompts' tokens, int32.
 * $AR_IN/d.bin, $AR_IN/e.bin: the draft's and the correction's weights,
 *   float32, in model.c's order.
 * $AR_REF/ref.bin: the target's greedy output of every request, int32,
 *   out_len each, in trace order (kept from the run).
 * $AR_OUT/tokens.bin: the engine's output, the same layout.
 * $AR_OUT/stats.bin: struct sd_stats_hdr, then nreq struct sd_rstat. */
#ifndef SD_TRACE_H
#define SD_TRACE_H

#include <stdint.h>

#define SD_MAGIC 0x31434453u       /* "SDC1" */
#define SD_STATS_MAGIC 0x31545353u /* "SST1" */
#define SD_MAXREQ 4096
#define SD_MAXOUT 512

enum { SD_CLS_INTERACTIVE, SD_CLS_STANDARD, SD_CLS_BATCH, SD_NCLS };

struct sd_trace_hdr {
	uint32_t magic, nreq, kv_blocks, block_tokens, max_rows, ntok;
	char model[16];
};

struct sd_treq {
	int32_t cls, prompt_len, out_len, dom, prompt_off, pad;
	double arrival_ms;
};

struct sd_stats_hdr {
	uint32_t magic, nreq;
	double run_ms;          /* the engine's clock at the end */
	double kv_occ;          /* mean share of the KV pool held, per step */
	double steps, rows_t, rows_d, stalls, ignored;
};

struct sd_rstat {
	double first_ms, finish_ms;   /* engine clock; -1: never */
	int32_t ntok, drafted, accepted, verifies, preempts, unverified;
};

#endif
