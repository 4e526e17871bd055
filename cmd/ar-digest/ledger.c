/* ledger.c: one pass over the ledger export (-l): every row checked,
 * the signed and verified ones aggregated into struct results; the
 * goal and the baseline's figures of a campaign (-C). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "hmap.h"
#include "io.h"
#include "json.h"
#include "timefmt.h"
#include "tsv.h"
#include "digest.h"

const char *const vname[V_N] = { "keep", "discard", "equivalent",
	"inconclusive", "crash", "timeout", "invalid", "other" };

/* A column that may be missing, or (need) one that must be there. */
static int
col(const struct ar_tsv *t, const char *name, int need)
{
	return need ? ar_tsv_need(t, name) : ar_tsv_col(t, name);
}

/* Copies a field into a fixed cell; control characters become spaces so
 * one reason never breaks a table row. */
void
cpy(char *dst, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < n && s[i]; i++)
		dst[i] = (unsigned char)s[i] < 32 ? ' ' : s[i];
	dst[i] = 0;
}

static const char *
fld(const struct ar_tsv *t, int c)
{
	return c >= 0 ? t->field[c] : "";
}

static int
verdict_of(const char *s)
{
	int i;

	for (i = 0; i < V_OTHER; i++)
		if (strcmp(s, vname[i]) == 0)
			return i;
	return V_OTHER;
}

/* A method on a workload: the hash and the workload, a tab between,
 * are its key, so that workloads are never pooled or ranked together. */
static struct method *
method_get(struct results *D, const char *hash, const char *wl,
    const char *label)
{
	char key[256 + 1 + TXT];
	size_t i, hl = strnlen(hash, 255), wn = strnlen(wl, TXT - 1);

	/* No allocation nor formatting per row: the key is copied into the
	 * table only when it is new. */
	memcpy(key, hash, hl);
	key[hl] = '\t';
	memcpy(key + hl + 1, wl, wn);
	key[hl + 1 + wn] = 0;
	if (2 * (D->mn + 1) > D->mcap) {
		/* Grow at half full: lookups stay short. */
		struct method *old = D->m;
		size_t oc = D->mcap, j;

		D->mcap = oc ? 2 * oc : 256;
		D->m = ar_xcalloc(D->mcap, sizeof *D->m);
		for (j = 0; j < oc; j++) {
			if (!old[j].hash)
				continue;
			for (i = ar_hash_str(old[j].hash) & (D->mcap - 1); D->m[i].hash;
			    i = (i + 1) & (D->mcap - 1))
				;
			D->m[i] = old[j];
		}
		free(old);
	}
	for (i = ar_hash_str(key) & (D->mcap - 1); D->m[i].hash; i = (i + 1) &
	    (D->mcap - 1))
		if (strcmp(D->m[i].hash, key) == 0)
			return &D->m[i];
	D->m[i].hash = ar_xstrdup(key);
	D->m[i].label = ar_xstrdup(label);
	D->m[i].wl = ar_xstrdup(wl);
	D->m[i].kmin = D->m[i].kmax = 0;
	D->mn++;
	return &D->m[i];
}

/* Higher ratio first; the smaller id breaks ties, so the order of the
 * input never changes the digest. */
int
better(const struct item *a, const struct item *b)
{
	if (a->r != b->r)
		return a->r > b->r;
	return strcmp(a->id, b->id) < 0;
}

/* Keeps the KEEP items that cmp puts first; *w is the last of them
 * once there are KEEP, found again only when it is replaced: most rows
 * are compared once, not KEEP times. */
static void
keep_top(struct item *a, size_t *n, size_t *w, const struct item *x,
    int (*first)(const struct item *, const struct item *))
{
	size_t i;

	if (*n < KEEP) {
		a[(*n)++] = *x;
		if (*n < KEEP)
			return;
	} else if (first(x, &a[*w])) {
		a[*w] = *x;
	} else {
		return;
	}
	for (*w = 0, i = 1; i < KEEP; i++)
		if (first(&a[*w], &a[i]))
			*w = i;
}

static int
later(const struct item *a, const struct item *b)
{
	return strcmp(a->id, b->id) > 0;
}

/* A result's interval when its ratio.ci_lo and ci_hi are empty but its
 * why gives one, as a session stopped by --stop-at does ("its 95%
 * interval 1.2 to 1.4") and equivalent verdicts do ("CI 0.98 to 1.02").
 * 1 when found. */
static int
why_interval(const char *why, double *lo, double *hi, double *conf)
{
	static const char *const at[] = { "% interval ", "CI " };
	size_t i;

	for (i = 0; i < 2; i++) {
		const char *p = strstr(why, at[i]);
		double a, b, c = 95;

		if (!p)
			continue;
		if (i == 0) {
			const char *q = p;

			while (q > why && (isdigit((unsigned char)q[-1]) ||
			    q[-1] == '.'))
				q--;
			if (sscanf(q, "%lf", &c) != 1)
				c = 95;
		}
		if (sscanf(p + strlen(at[i]), "%lf to %lf", &a, &b) == 2 &&
		    a > 0 && b >= a && isfinite(b)) {
			*lo = a;
			*hi = b;
			*conf = c > 50 && c < 100 ? c / 100 : 0.95;
			return 1;
		}
	}
	return 0;
}

/* Pools a scored result into its method's k. */
static void
pool_item(struct method *m, const struct item *it)
{
	struct kpool *kp;
	size_t i;

	for (i = 0; i < m->nkp && m->kp[i].k != it->k; i++)
		;
	if (i == m->nkp) {
		m->kp = ar_xrealloc(m->kp, (m->nkp + 1) * sizeof *m->kp);
		kp = &m->kp[m->nkp++];
		memset(kp, 0, sizeof *kp);
		kp->k = it->k;
	}
	kp = &m->kp[i];
	ar_pool_add(&kp->p, it->r, it->lo, it->hi, it->conf);
	kp->n++;
	if (it->v == V_KEEP)
		kp->nkeep++;
	if (it->v == V_KEEP || it->v == V_EQUIV || it->v == V_INCONC)
		kp->nuse++;
	if (kp->n == 1 || later(it, &kp->last))
		kp->last = *it;
}

static void
label_of(char *out, size_t n, const struct ar_tsv *t, int c_commit,
    int c_dir, const char *hash)
{
	const char *c = fld(t, c_commit), *d = fld(t, c_dir);

	if (c[0]) {
		snprintf(out, n, "%.7s", c);
	} else if (d[0]) {
		/* The directory's last name, trailing slashes aside. */
		size_t len = strlen(d), e;

		while (len > 1 && d[len - 1] == '/')
			len--;
		e = len;
		while (len > 0 && d[len - 1] != '/')
			len--;
		snprintf(out, n, "%.*s", (int)(e - len), d + len);
	} else {
		snprintf(out, n, "%.7s", hash);
	}
}

void
read_goal(struct digest *dg, const char *dir)
{
	struct goal *GL = &dg->GL;
	char err[512], *p;

	ar_campaign_open(&GL->c, dir);
	p = ar_path(GL->c.dir, "problem");
	if (ar_manifest_read(&GL->m, p, err, sizeof err) < 0)
		ar_die(AR_EX_DATA, "%s: %s", dir, err);
	free(p);
	snprintf(GL->col, sizeof GL->col, "baseline.%s.median",
	    GL->m.metric.name);
	GL->on = 1;
}

static double
rfc3339_s(const char *v)
{
	struct timespec ts;

	if (!v || !v[0] || ar_time_parse(v, &ts) < 0)
		return NAN;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
read_ledger(struct digest *dg, FILE *f, const char *name)
{
	struct results *D = &dg->D;
	struct goal *GL = &dg->GL;
	struct stale_in *sl = &dg->st;
	struct ar_tsv t;
	int c_id, c_signed, c_ver, c_verdict, c_why, c_wl, c_dev, c_k, c_hash;
	int c_commit, c_dir, c_r, c_lo, c_hi, c_metric, c_aa, c_rsd, c_stage;
	int c_sig, c_exit, c_started, c_finished, c_idea, c_base;
	int c_rf, c_rfb, c_rb, c_conf;

	if (ar_tsv_open(&t, f, name) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	/* An empty ledger exports a bare header: the columns a row needs
	 * are needed once there is one. */
	c_id = col(&t, "id", 1);
	c_signed = col(&t, "signed", 1);
	c_verdict = col(&t, "verdict", 0);
	c_hash = col(&t, "method.hash", 0);
	c_k = col(&t, "shape.k", 0);
	c_r = col(&t, "ratio.median", 0);
	c_ver = col(&t, "verified", 0);
	c_why = col(&t, "why", 0);
	c_wl = col(&t, "workload", 0);
	c_dev = col(&t, "device", 0);
	c_commit = col(&t, "method.commit", 0);
	c_dir = col(&t, "method.dir", 0);
	c_lo = col(&t, "ratio.ci_lo", 0);
	c_hi = col(&t, "ratio.ci_hi", 0);
	c_conf = col(&t, "ratio.conf", 0);
	c_metric = col(&t, "metric", 0);
	c_aa = col(&t, "aa", 0);
	c_rsd = col(&t, "noise_floor.rsd", 0);
	c_stage = col(&t, "failure.stage", 0);
	c_sig = col(&t, "failure.signal", 0);
	c_exit = col(&t, "failure.exit", 0);
	c_started = col(&t, "started", 0);
	c_finished = col(&t, "finished", 0);
	c_base = GL->on ? col(&t, GL->col, 0) : -1;
	c_idea = col(&t, "idea", 0);
	c_rf = col(&t, "roofline.method.frac", 0);
	c_rfb = col(&t, "roofline.baseline.frac", 0);
	c_rb = col(&t, "roofline.method.bound", 0);
	for (;;) {
		int st = ar_tsv_next(&t), has_r = 0, has_ci = 0;
		struct item it;
		struct method *m;
		const char *s;
		long long k = 1;

		if (st < 0)
			ar_die(AR_EX_DATA, "%s", t.err);
		if (st == 0)
			break;
		if (!D->rows) {
			ar_tsv_need(&t, "verdict");
			ar_tsv_need(&t, "method.hash");
			ar_tsv_need(&t, "shape.k");
			ar_tsv_need(&t, "ratio.median");
		}
		D->rows++;
		/* Every row is checked, taken or not: a bad value is a bad
		 * export either way. */
		s = t.field[c_r];
		it.r = it.lo = it.hi = NAN;
		if (s[0]) {
			if (ar_parse_double(s, &it.r) < 0 || it.r < 0)
				ar_die(AR_EX_DATA, "%s: line %zu: ratio.median: "
				    "\"%s\" is not a number of 0 or more", t.name,
				    t.lineno, s);
			has_r = 1;
			it.lo = it.hi = it.r;
			s = fld(&t, c_lo);
			has_ci = s[0] && fld(&t, c_hi)[0];
			if (s[0] && (ar_parse_double(s, &it.lo) < 0 || it.lo < 0))
				ar_die(AR_EX_DATA, "%s: line %zu: ratio.ci_lo: "
				    "\"%s\" is not a number of 0 or more", t.name,
				    t.lineno, s);
			s = fld(&t, c_hi);
			if (s[0] && (ar_parse_double(s, &it.hi) < 0 || it.hi < 0))
				ar_die(AR_EX_DATA, "%s: line %zu: ratio.ci_hi: "
				    "\"%s\" is not a number of 0 or more", t.name,
				    t.lineno, s);
		}
		s = t.field[c_k];
		if (s[0] && (ar_parse_long(s, &k) < 0 || k < 1 || k > 65536))
			ar_die(AR_EX_DATA, "%s: line %zu: shape.k: \"%s\" is not "
			    "a whole number from 1 to 65536", t.name, t.lineno, s);
		it.k = (long)k;
		if (strcmp(t.field[c_signed], "yes") != 0) {
			D->unsigned_++;
			continue;
		}
		if (c_ver < 0 || strcmp(t.field[c_ver], "yes") != 0) {
			D->unverified++;
			continue;
		}
		D->taken++;
		if (c_base >= 0 && t.field[c_base][0]) {
			double bv;

			if (ar_parse_double(t.field[c_base], &bv) == 0) {
				if (GL->nb == GL->cap) {
					GL->cap = GL->cap ? 2 * GL->cap : 256;
					GL->bv = ar_xrealloc(GL->bv, GL->cap *
					    sizeof *GL->bv);
				}
				GL->bv[GL->nb++] = bv;
			}
		}
		{
			double fd = rfc3339_s(fld(&t, c_finished));
			double sd = rfc3339_s(fld(&t, c_started));

			if (!isnan(fd) && !isnan(sd) && fd >= sd) {
				if (sl->nbusy == sl->capbusy) {
					sl->capbusy = sl->capbusy ?
					    2 * sl->capbusy : 1024;
					sl->busy = ar_xrealloc(sl->busy,
					    sl->capbusy * sizeof *sl->busy);
				}
				sl->busy[sl->nbusy][0] = sd;
				sl->busy[sl->nbusy++][1] = fd;
			}

			if (!isnan(fd)) {
				if (sl->nfin == sl->capfin) {
					sl->capfin = sl->capfin ?
					    2 * sl->capfin : 1024;
					sl->fin = ar_xrealloc(sl->fin,
					    sl->capfin * sizeof *sl->fin);
				}
				sl->fin[sl->nfin++] = fd;
			}
			s = fld(&t, c_idea);
			if (s[0] && !isnan(sd) && strlen(s) <= AR_ID_MAX) {
				struct ideastart *is;

				if (sl->nist == sl->capist) {
					sl->capist = sl->capist ?
					    2 * sl->capist : 256;
					sl->ist = ar_xrealloc(sl->ist,
					    sl->capist * sizeof *sl->ist);
				}
				is = &sl->ist[sl->nist++];
				cpy(is->idea, sizeof is->idea, s);
				is->started = sd;
			}
		}
		if (!D->metric[0] || D->mixed_metric == 0) {
			s = fld(&t, c_metric);
			if (!D->metric[0])
				cpy(D->metric, sizeof D->metric, s);
			else if (s[0] && strncmp(D->metric, s, TXT - 1) != 0)
				D->mixed_metric = 1;
		}
		if (!D->workload[0])
			cpy(D->workload, sizeof D->workload, fld(&t, c_wl));
		else if (strncmp(D->workload, fld(&t, c_wl), TXT - 1) != 0)
			D->mixed_wl = 1;
		if (!D->device[0])
			cpy(D->device, sizeof D->device, fld(&t, c_dev));
		s = fld(&t, c_started);
		if (s[0] && (!D->first[0] || strcmp(s, D->first) < 0))
			cpy(D->first, sizeof D->first, s);
		if (s[0] && strcmp(s, D->last) > 0)
			cpy(D->last, sizeof D->last, s);
		if (c_aa >= 0 && strcmp(t.field[c_aa], "true") == 0) {
			/* A/A runs measure the noise, not a method. */
			double v;

			D->aa++;
			s = fld(&t, c_rsd);
			if (s[0] && ar_parse_double(s, &v) == 0 && v >= 0) {
				if (D->nrsd == D->caprsd) {
					D->caprsd = D->caprsd ? 2 * D->caprsd : 64;
					D->rsd = ar_xrealloc(D->rsd, D->caprsd *
					    sizeof *D->rsd);
				}
				D->rsd[D->nrsd++] = v;
			}
			continue;
		}
		it.v = verdict_of(t.field[c_verdict]);
		cpy(it.wl, sizeof it.wl, fld(&t, c_wl));
		cpy(it.idea, sizeof it.idea, fld(&t, c_idea));
		it.conf = 0.95;
		s = fld(&t, c_conf);
		if (s[0] && (ar_parse_double(s, &it.conf) < 0 ||
		    !(it.conf > 0.5 && it.conf < 1)))
			it.conf = 0.95;
		D->nv[it.v]++;
		cpy(it.id, sizeof it.id, t.field[c_id]);
		label_of(it.label, sizeof it.label, &t, c_commit, c_dir,
		    t.field[c_hash]);
		s = fld(&t, c_why);
		if (s[0])
			cpy(it.why, sizeof it.why, s);
		else if (fld(&t, c_stage)[0])
			snprintf(it.why, sizeof it.why, "stage %.40s signal %.20s "
			    "exit %.20s", fld(&t, c_stage), fld(&t, c_sig)[0] ?
			    fld(&t, c_sig) : "-", fld(&t, c_exit)[0] ?
			    fld(&t, c_exit) : "-");
		else
			it.why[0] = 0;
		/* Every result has its interval: a stopped session's is in
		 * its why (ar-bench --stop-at). The whole why is read, not
		 * the truncated copy. */
		if (has_r && !has_ci)
			why_interval(fld(&t, c_why), &it.lo, &it.hi, &it.conf);
		/* The roofline share, where the workload declared its bytes or
		 * flops and a machine profile existed. */
		it.rf = it.rfb = NAN;
		if (ar_parse_double(fld(&t, c_rf), &it.rf) < 0 || !(it.rf >= 0))
			it.rf = NAN;
		if (ar_parse_double(fld(&t, c_rfb), &it.rfb) < 0 ||
		    !(it.rfb >= 0))
			it.rfb = NAN;
		cpy(it.bound, sizeof it.bound, fld(&t, c_rb));
		m = method_get(D, t.field[c_hash], it.wl, it.label);
		m->n++;
		m->nv[it.v]++;
		if (!m->kmin || it.k < m->kmin)
			m->kmin = it.k;
		if (it.k > m->kmax)
			m->kmax = it.k;
		/* Scored results, whatever their verdict, are pooled: a
		 * discard at the same k pulls the estimate down as it
		 * should. */
		if (has_r && it.v != V_CRASH && it.v != V_TIMEOUT &&
		    it.v != V_INVALID && it.v != V_OTHER)
			pool_item(m, &it);
		if (has_r && it.v == V_INCONC) {
			D->tnear++;
			keep_top(D->near, &D->nnear, &D->wnear, &it, better);
		}
		if (it.v == V_CRASH || it.v == V_TIMEOUT) {
			D->tcrash++;
			keep_top(D->crash, &D->ncrash, &D->wcrash, &it, later);
		}
		if (it.v == V_INVALID) {
			D->tinval++;
			keep_top(D->inval, &D->ninval, &D->winval, &it, later);
		}
		if (D->want_points) {
			struct point *p;

			if (D->npt == D->cappt) {
				D->cappt = D->cappt ? 2 * D->cappt : 1024;
				D->pt = ar_xrealloc(D->pt, D->cappt *
				    sizeof *D->pt);
			}
			p = &D->pt[D->npt++];
			p->id = D->ids.len;
			ar_buf_add(&D->ids, it.id, strlen(it.id) + 1);
			/* A keep's description follows its id: the picture
			 * labels kept steps with it: the idea's title, else
			 * its id, else the method's label. */
			if (it.v == V_KEEP) {
				const char *d = idea_title(dg, it.idea);

				d = d ? d : it.idea[0] ? it.idea : it.label;
				ar_buf_add(&D->ids, d, strlen(d));
			}
			ar_buf_addc(&D->ids, 0);
			p->r = has_r ? (float)it.r : NAN;
			p->cls = it.v == V_KEEP ? 0 : it.v == V_CRASH ||
			    it.v == V_TIMEOUT || it.v == V_INVALID || !has_r ? 2 : 1;
		}
	}
	ar_tsv_close(&t);
}
