/* sd.h: the interface between the sealed engine and a method's policy
 * (policy.c, which defines policy_step and nothing else global but
 * policy_*). The engine owns the models, the KV cache and the clock;
 * before every step it shows the policy a copy of the arrived,
 * unfinished requests and asks for one action per request. The policy
 * runs in a process of its own, under a seccomp filter (cage.c): its
 * static variables last from step to step, it may call memory and math
 * functions, and any other system call kills it and fails the run.
 *
 * A request's sequence is its prompt, then its output. Its target KV
 * cache holds the first kv tokens; before it can decode, the engine
 * must feed it to_prefill more (its prompt at first; after a preemption,
 * everything but the last token again: preemption is by recompute).
 * The final prefill row gives the first output token when there is
 * none yet. Draft tokens wait in pending until verified.
 *
 * Actions (n is the action's count):
 *   SD_NONE      nothing this step
 *   SD_PREFILL   feed min(n, to_prefill) tokens to the target; admits a
 *                waiting request
 *   SD_DECODE    one target row: one output token
 *   SD_DRAFT     n more draft tokens with the draft model (pending)
 *   SD_VERIFY    one target pass over the pending drafts: keeps the
 *                longest prefix the target agrees with, plus the
 *                target's own next token (1 to pending + 1 tokens)
 *   SD_SPEC      SD_DRAFT n, then SD_VERIFY, in this step
 *   SD_PREEMPT   frees the request's KV blocks; it waits again
 *   SD_COMMIT_UNVERIFIED  takes the pending drafts as output unchecked:
 *                fast, and wrong wherever the draft differs from the
 *                target; the score finds every such token (invalid)
 *   SD_CAND      candidate-parallel drafting: with nothing pending,
 *                cands candidates of n draft tokens, started by the
 *                draft's cands best first tokens and continued
 *                greedily, drafted side by side (the ranks share those
 *                passes) and verified in one target pass of cands *
 *                (n + 1) rows; keeps the candidate the target agrees
 *                with longest. Fewer than 2 candidates: SD_SPEC n
 *
 * Drafts are cut so that no request outgrows its output length, and
 * pending never exceeds SD_MAXDRAFT. An action that does not fit the
 * request's state is ignored (counted). A step's target rows are at most
 * max_rows, and a request needs KV blocks for every token it feeds:
 * actions are taken in the order of the view, preemptions first, and
 * one that does not fit the rows or the free blocks is skipped (a
 * stall). A step that does nothing while arrivals are still to come
 * waits for the next one; one that does nothing when all have arrived
 * makes no progress: after 10000 such steps the engine fails the run. */
#ifndef SD_H
#define SD_H

#define SD_MAXDRAFT 16
#define SD_MAXCAND 8

enum sd_op {
	SD_NONE, SD_PREFILL, SD_DECODE, SD_DRAFT, SD_VERIFY, SD_SPEC,
	SD_PREEMPT, SD_COMMIT_UNVERIFIED, SD_CAND
};

/* Classes: their TTFT limits are 250, 1000 ms and none (README). */
enum sd_cls { SD_INTERACTIVE, SD_STANDARD, SD_BATCH };

struct sd_req {
	int id;             /* the request's index in the trace */
	int cls;            /* enum sd_cls */
	int running;        /* holds KV blocks (admitted, not preempted) */
	double arrival_ms;  /* on the engine's clock */
	int prompt_len, out_len;
	int generated;      /* output tokens so far */
	int kv;             /* tokens in its target KV cache */
	int to_prefill;     /* tokens to feed before it can decode */
	int pending;        /* draft tokens awaiting verification */
	int blocks;         /* KV blocks held */
	int drafted, accepted, verifies, preempts;  /* so far */
};

struct sd_view {
	double now_ms;      /* the engine's clock, from its start */
	int n;              /* requests shown, in arrival order */
	const struct sd_req *req;
	int blocks_total, blocks_free, block_tokens;
	int max_rows;       /* target rows per step */
	int waiting_future; /* requests not yet arrived */
	int ranks;          /* the CPUs (AR_CPUS) that share each pass; 1
	                       on a GPU */
};

struct sd_act {
	int op;             /* enum sd_op */
	int n;
	int cands;          /* SD_CAND: candidates, 2 to SD_MAXCAND */
};

/* Fills act[0 .. v->n - 1] (zeroed: SD_NONE) for one step. */
void policy_step(const struct sd_view *v, struct sd_act *act);

/* Blocks a request needs to hold tokens tokens. */
static inline int
sd_blocks_for(int tokens, int block_tokens)
{
	return (tokens + block_tokens - 1) / block_tokens;
}

#endif
