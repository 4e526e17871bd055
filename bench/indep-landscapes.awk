# indep-landscapes.awk: landscape files for ar-sched simulate from a
# recipe written apart from ar-sched landscape, after the policy was
# tuned, so that issue 16's figures are also read on curves that share
# neither its shapes nor its noise and cost model:
#   awk -v seed=S -v n=N -v prefix=P [-v wts=W] [-v nmul=X] [-v nflat=1] \
#       -f bench/indep-landscapes.awk > file.tsv
# Every method draws a kind (the family column), by the weights W (nine
# numbers, in the order of the kinds below; default 4 1 1 0.5 1 0.7 1.5
# 3 1):
#   quad    a random quadratic in log2 k: 1 +- 4% at k=1, slope and bend
#           free, so peaks, valleys and runaways come anywhere
#   late    0.85-0.99 at k=1, 2-12% more each doubling up to a peak at 2,
#           4 or 8, then 0-10% less each
#   step    flat (+-0.5%) but for one jump of 5-25% at k=2, 4 or 8
#   dup     the very curve of an earlier method: a true tie
#   guard   a quad whose guardrail breaks at k=2, 4 or 8
#   crashy  a quad that dies (0.05-0.3, guardrail 1.5-4x) at 2, 4 or 8
#   flateq  the same score at every k: ties across scales
#   dud     0.5-0.95 at k=1, falling by up to 10% a doubling
#   noisy   a quad with a noise of 4-10% a measurement
# The noise column (a measurement's rsd) is log-uniform from a floor of
# 0.3-1.2% (times X) to six times it, growing 0-30% a doubling, at most
# 12%; with nflat, uniform from 1 to 10% and the same at every k. Cost:
# H (0.05-1 GPU-hours) times an overhead 0.5-2 times k times the time of
# a run, which shrinks with the baseline's speedup (Amdahl, 0.7-0.98)
# for 60% of the methods and stays for the rest. One method in five
# has no guardrail. No pfrac, hint or base_pfrac.
# The random numbers are the script's own (two Lehmer generators
# combined, exact in doubles), so that every awk writes the same file.
function rnd() {
	s1 = (s1 * 16807) % 2147483647
	s2 = (s2 * 48271) % 2147483647
	r = s1 / 2147483647 + s2 / 2147483647
	return r >= 1 ? r - 1 : r
}
function U(a, b) { return a + (b - a) * rnd() }
function N01(   u, v) {
	u = rnd()
	if (u < 1e-12)
		u = 1e-12
	v = rnd()
	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v)
}
function pick(   x, c, i) {
	x = rnd() * wsum
	c = 0
	for (i = 1; i <= nk; i++) {
		c += w[i]
		if (x < c)
			return kind[i]
	}
	return kind[nk]
}
BEGIN {
	if (seed !~ /^[0-9]+$/ || n !~ /^[0-9]+$/ || prefix !~ /^[A-Za-z0-9._-]+$/) {
		print "indep-landscapes: usage: awk -v seed=S -v n=N -v prefix=P -f indep-landscapes.awk" > "/dev/stderr"
		exit 64
	}
	s1 = 1 + (seed * 7919) % 2147483646
	s2 = 1 + (seed * 104729 + 12345) % 2147483646
	for (i = 0; i < 20; i++)
		rnd()
	OFS = "\t"
	nk = split("quad late step dup guard crashy flateq dud noisy", kind, " ")
	if (split(wts == "" ? "4 1 1 0.5 1 0.7 1.5 3 1" : wts, w, " ") != nk) {
		print "indep-landscapes: wts: nine weights" > "/dev/stderr"
		exit 64
	}
	for (i = 1; i <= nk; i++)
		wsum += w[i]
	nm_ = nmul == "" ? 1 : nmul
	print "landscape", "method", "k", "score", "noise", "guard", "guard_max", "cost_h", "pfrac", "hint", "base_pfrac", "family"
	for (L = 0; L < n; L++) {
		name = sprintf("%s%04d", prefix, L)
		nm = 8 + int(rnd() * 73)
		nlo = U(0.003, 0.012) * nm_
		H = U(0.05, 1.0)
		bsp = U(0.7, 0.98)
		for (m = 0; m < nm; m++) {
			kd = pick()
			if (kd == "dup" && m == 0)
				kd = "quad"
			n1 = exp(U(log(nlo), log(nlo * 6)))
			if (kd == "noisy")
				n1 = U(0.04, 0.10)
			g = U(0, 0.3)
			if (nflat) {
				n1 = U(0.01, 0.10)
				g = 0
			}
			o = U(0.5, 2)
			strong = rnd() < 0.6
			hasg = rnd() < 0.8
			g0 = U(0.1, 0.8)
			gg = U(0, 0.15)
			if (kd == "dup") {
				src = int(rnd() * m)
				for (x = 0; x <= 3; x++)
					s[m, x] = s[src, x]
			} else if (kd == "quad" || kd == "guard" || kd == "noisy") {
				b1 = 1 + 0.04 * N01()
				a = 0.04 * N01()
				b = 0.015 * N01()
				for (x = 0; x <= 3; x++)
					s[m, x] = b1 * exp(a * x + b * x * x)
			} else if (kd == "late") {
				pk = 1 + int(rnd() * 3)
				s[m, 0] = U(0.85, 0.99)
				for (x = 1; x <= 3; x++)
					s[m, x] = s[m, x - 1] * (x <= pk ? 1 + U(0.02, 0.12) : 1 - U(0, 0.1))
			} else if (kd == "step") {
				b1 = 1 + 0.03 * N01()
				at = 1 + int(rnd() * 3)
				j = U(0.05, 0.25)
				for (x = 0; x <= 3; x++)
					s[m, x] = b1 * (x >= at ? 1 + j : 1) * (1 + U(-0.005, 0.005))
			} else if (kd == "crashy") {
				b1 = 1 + 0.05 * N01()
				a = 0.05 * N01()
				at = 1 + int(rnd() * 3)
				for (x = 0; x <= 3; x++)
					s[m, x] = x >= at ? U(0.05, 0.3) : b1 * exp(a * x)
			} else if (kd == "flateq") {
				b1 = 1 + 0.03 * N01()
				for (x = 0; x <= 3; x++)
					s[m, x] = b1
			} else {
				b1 = U(0.5, 0.95)
				a = U(-0.1, 0.01)
				for (x = 0; x <= 3; x++)
					s[m, x] = b1 * exp(a * x)
			}
			gat = kd == "guard" ? 1 + int(rnd() * 3) : 9
			cat = kd == "crashy" ? at : 9
			for (x = 0; x <= 3; x++) {
				k = 2 ^ x
				sc = s[m, x] < 0.01 ? 0.01 : s[m, x]
				nz = n1 * (1 + g) ^ x
				if (nz > 0.12)
					nz = 0.12
				gm = 1
				if (x >= cat)
					gv = U(1.5, 4)
				else if (x >= gat)
					gv = U(1.02, 1.3)
				else if (kd == "guard")
					gv = U(0.7, 0.97)
				else if (hasg)
					gv = g0 * (1 + gg) ^ x
				else
					gv = gm = ""
				sp = 1 / ((1 - bsp) + bsp / k)
				t = strong ? 1 / (sp * sc) : 1 / sc
				print name, sprintf("m%02d", m), k, sprintf("%.4f", sc), sprintf("%.4f", nz), gv == "" ? "" : sprintf("%.3f", gv), gm, sprintf("%.4f", H * o * k * t), "", "", "", kd
			}
		}
	}
}
