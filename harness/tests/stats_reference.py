#!/usr/bin/env python3
"""Reference numbers for Karsinta's statistics tests (harness/src/stats/tests.rs,
calculator.rs, harness/tests/stats_cli.rs).

An independent transcription of the formulas fishtest publishes
(server/fishtest/stats/stat_util.py get_elo, LLRcalc.py LLR_logistic /
LLR_normalized, the nElo delta method of its test pages, static/js/sprt.js),
evaluated with scipy. Needs numpy + scipy; run: python3 stats_reference.py
It prints the `CASES` table of tests.rs and the calculator rows; `python3
stats_reference.py mue` prints the median-unbiased Elo cases (unbiased.rs);
`python3 stats_reference.py bayes` the BayesElo LLRs (sprt.rs), transcribed
from fastchess's SPRT::getLLR with model "bayesian" but solved to convergence.

Without scipy it falls back to plain-Python root finding and normal
functions (agreeing with scipy to ~1e-12); `python3 stats_reference.py
published` needs no scipy and prints the published-example LLRs and the gap
between fishtest's 10-round cap and a converged t-value MLE.
"""
import math
import sys
try:
    from scipy.optimize import brentq
    from scipy.stats import norm
except ImportError:  # plain-Python stand-ins, accurate to ~1e-13
    def brentq(f, lo, hi):
        flo = f(lo)
        for _ in range(300):
            mid = (lo + hi) / 2
            fm = f(mid)
            if fm == 0 or hi - lo < 1e-16 * max(1.0, abs(mid)):
                return mid
            if (fm > 0) == (flo > 0):
                lo, flo = mid, fm
            else:
                hi = mid
        return (lo + hi) / 2

    class norm:
        @staticmethod
        def cdf(x): return 0.5 * math.erfc(-x / math.sqrt(2))

        @staticmethod
        def ppf(p):
            lo, hi = -40.0, 40.0
            for _ in range(200):
                mid = (lo + hi) / 2
                if norm.cdf(mid) < p: lo = mid
                else: hi = mid
            return (lo + hi) / 2

NT = 800 / math.log(10)

def regularize(r): return [x if x != 0 else 1e-3 for x in r]

def pdf_of(r):
    r = regularize(r); n = sum(r); k = len(r)
    return n, [(i / (k - 1), c / n) for i, c in enumerate(r)]

def mean_var(pdf):
    m = sum(p * a for a, p in pdf)
    return m, sum(p * (a - m) ** 2 for a, p in pdf)

def secular(vals, probs):
    lo, hi = -1 / max(vals), -1 / min(vals)
    f = lambda x: sum(p * a / (1 + x * a) for a, p in zip(vals, probs))
    return brentq(f, lo + 1e-9, hi - 1e-9)

def mle_mean(pdf, s):
    vals = [a - s for a, _ in pdf]; probs = [p for _, p in pdf]
    x = secular(vals, probs)
    return [p / (1 + x * v) for v, p in zip(vals, probs)]

def mle_t(pdf, t, max_iter):
    n = len(pdf); q = [1 / n] * n
    for _ in range(max_iter):
        prev = q
        m, v = mean_var(list(zip([a for a, _ in pdf], q))); sd = v ** 0.5
        vals = [a - 0.5 - t * sd * (1 + ((m - a) / sd) ** 2) / 2 for a, _ in pdf]
        x = secular(vals, [p for _, p in pdf])
        q = [p / (1 + x * v_) for (a, p), v_ in zip(pdf, vals)]
        if max(abs(a - b) for a, b in zip(prev, q)) < 1e-9: break
    return q

def L(e): return 1 / (1 + 10 ** (-e / 400))

def llr(r, e0, e1, model, max_iter=10):
    n, pdf = pdf_of(r)
    if model == 'logistic':
        q0, q1 = mle_mean(pdf, L(e0)), mle_mean(pdf, L(e1))
    else:
        f = 2 ** 0.5 if len(r) == 5 else 1.0
        q0, q1 = mle_t(pdf, e0 / NT * f, max_iter), mle_t(pdf, e1 / NT * f, max_iter)
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, q0, q1))

def elo(x):
    x = min(max(x, 1e-3), 1 - 1e-3); return -400 * math.log10(1 / x - 1)

def estimate(r):
    rr = regularize(r); k = len(rr); N = sum(rr); games = N * (k - 1) / 2
    mu = sum(c * i / 2 for i, c in enumerate(rr)) / games
    mu_ = (k - 1) / 2 * mu
    var = sum(c * (i / 2 - mu_) ** 2 for i, c in enumerate(rr)) / games
    se = math.sqrt(var) / math.sqrt(games)
    lo, hi = mu + norm.ppf(0.025) * se, mu + norm.ppf(0.975) * se
    # nElo as fishtest's statistics page: delta method on the t-value of the pdf.
    n, pdf = pdf_of(r); m, v = mean_var(pdf)
    m3 = sum(p * (a - m) ** 3 for a, p in pdf); m4 = sum(p * (a - m) ** 4 for a, p in pdf)
    skew = m3 / v ** 1.5; exk = m4 / v ** 2 - 3
    t = (m - 0.5) / v ** 0.5
    var_t = max(1 - t * skew + 0.25 * t * t * (exk + 2), 0)
    coeff = NT / (2 ** 0.5 if k == 5 else 1)
    return dict(elo=elo(mu), elo_error=(elo(hi) - elo(lo)) / 2, elo_low=elo(lo), elo_high=elo(hi),
                los=norm.cdf((mu - 0.5) / se), nelo=coeff * t,
                nelo_error=coeff * norm.ppf(0.975) * (var_t / n) ** 0.5)

def expected(alpha, beta, e0, e1, model, elo_, dr, bias):
    var = (1 - dr) / 4 - (L(bias) - 0.5) ** 2
    if model == 'logistic': s0, s1 = L(e0), L(e1)
    else:
        sd = var ** 0.5; s0, s1 = e0 / NT * sd + 0.5, e1 / NT * sd + 0.5
    w2 = (s1 - s0) ** 2 / var
    A, B = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    h = (2 * L(elo_) - s0 - s1) / (s1 - s0)
    if abs(h * (A - B)) < 1e-6: P, T = -A / (B - A), -A * B
    else:
        ea, eb = math.exp(-h * A), math.exp(-h * B)
        P = (1 - ea) / (eb - ea); T = 2 / h * (B * P + A * (1 - P))
    return P, T / w2

# fastchess's tests/sprt_test.cpp: LLRs of real runs, published to two
# decimals. (W, L, D) or pentanomial [LL, LD, DD+WL, DW, WW]; model, bounds.
PUBLISHED = [
    ([36027, 68692, 36433], 'normalized', 0, 2, 0.92),
    ([10650, 20431, 10871], 'normalized', -1.75, 0.25, 2.30),
    ([21184, 40708, 21404], 'logistic', 0.5, 2.5, -1.57),
    ([57030, 106593, 57433], 'logistic', 0, 2, -2.59),
    ([365, 16618, 36229, 16974, 390], 'normalized', 0, 2, 2.25),
    ([127, 4883, 10712, 5150, 104], 'normalized', -1.75, 0.25, 3.01),
    ([223, 9863, 21279, 10037, 246], 'logistic', 0.5, 2.5, -3.07),
    ([871, 26175, 55983, 26678, 821], 'logistic', 0, 2, -4.98),
]

def published():
    for r, m, e0, e1, shown in PUBLISHED:
        capped, converged = llr(r, e0, e1, m), llr(r, e0, e1, m, max_iter=10000)
        print(r, m, e0, e1, shown, repr(capped), repr(converged))
    # Largest |LLR(10 rounds) - LLR(converged)| over extreme data and bounds.
    worst = (0, None)
    data = [[0, 0, 0, 0, 10], [10, 0, 0, 0, 0], [0, 0, 100, 0, 0], [1, 3, 5, 2, 1],
            [0, 2, 10, 40, 48], [10789, 19328, 33806, 19402, 10543], [120, 10, 2], [2, 10, 120]]
    for r in data:
        for e0, e1 in [(-200, 200), (0, 200), (-200, 0), (-50, 50), (0, 50), (-5, 0), (0, 2)]:
            d = abs(llr(r, e0, e1, 'normalized') - llr(r, e0, e1, 'normalized', 10000))
            if d > worst[0]: worst = (d, (r, e0, e1))
    print('largest cap gap', worst)
    small = max(abs(llr(r, e0, e1, 'normalized') - llr(r, e0, e1, 'normalized', 10000))
                for r in data for e0, e1 in [(-50, 50), (0, 50), (-5, 0), (0, 2), (-20, 0)])
    print('largest cap gap for |nElo| <= 50', small)

# Median-unbiased Elo of an SPRT-stopped test: fishtest's sprt.py with the
# Brownian outcome probability of brownian.py, transcribed.
def mue_U(n, g, A, y):
    return (2*A*g*math.sin(math.pi*n*y/A) - 2*math.pi*n*math.cos(math.pi*n*y/A)) / (A**2*g**2 + math.pi**2*n**2)

def mue_cdf(a, b, mu, s2, T, y):
    g = mu / s2; A = b - a
    if s2 * T / A**2 < 1e-2 or abs(g * A) > 15:
        den = math.sqrt(T * s2); off = mu * T
        z = (y - off) / den; za = (-y + off + 2*a) / den; zb = (y - off - 2*b) / den
        def tail(zc, c):
            if g * c >= 5:
                return -math.exp(-zc**2/2 + 2*g*c) / math.sqrt(2*math.pi) * (1/zc - 1/zc**3)
            return math.exp(2*g*c) * norm.cdf(zc)
        return norm.cdf(z) + tail(za, a) - tail(zb, b)
    x = -a; y = y - a; n = 1; s = 0.0
    lam = lambda n: ((n*math.pi/A)**2)*s2/2 + (mu**2/s2)/2
    t0 = math.exp(-lam(1)*T - x*g + y*g)
    while True:
        t1 = math.exp(-(lam(n) - lam(1))*T); t3 = mue_U(n, g, A, y)
        s += t1 * t3 * math.sin(n*math.pi*x/A)
        if abs(t0*t1*t3) <= 1e-9: break
        n += 1
    if g*A > 30: pre = math.exp(-2*g*x)
    elif abs(g*A) < 1e-8: pre = (A - x)/A
    else: pre = (1 - math.exp(2*g*(A - x)))/(1 - math.exp(2*g*A))
    return pre + t0*s

def mue(r, e0, e1, model, alpha=0.05, beta=0.05, level=0.95):
    a = math.log(beta/(1-alpha)); b = math.log((1-beta)/alpha)
    N, pdf = pdf_of(r); m, v = mean_var(pdf)
    sig = math.sqrt(2*v) if len(r) == 5 else math.sqrt(v)
    sc = (lambda e: L(e)) if model == 'logistic' else (lambda e: e/NT*sig + 0.5)
    s0, s1 = sc(e0), sc(e1)
    slope = (m - (s0+s1)/2)*(s1-s0)/v; llr_ = N*slope; T = N
    clamped = llr_ > 1.03*b or llr_ < 1.03*a
    if llr_ < a: T = a/slope; llr_ = a
    elif llr_ > b: T = b/slope; llr_ = b
    def prob(e):
        s = L(e); mu = (s - (s0+s1)/2)*(s1-s0)/v
        return mue_cdf(a, b, mu, (s1-s0)**2/v, T, llr_)
    def lcb(p):
        avg = (e0+e1)/2; d = e1 - e0; k = 30
        while True:
            lo = max(avg - k*d, -1000); hi = min(avg + k*d, 1000)
            try:
                return brentq(lambda e: prob(e) - (1 - p), lo, hi)
            except ValueError:
                if lo > -1000 or hi < 1000: k *= 2; continue
                return hi if prob(lo) - (1 - p) > 0 else lo
    p = 1 - level
    return dict(elo=lcb(0.5), low=lcb(p/2), high=lcb(1-p/2), los=prob(0), clamped=clamped, llr=llr_)

def mue_cases():
    rows = [([120,1100,2300,1250,168], 'normalized', 0, 2), ([40,900,2100,1000,60], 'normalized', 0, 2),
            ([60,1000,2100,900,40], 'logistic', 0, 5), ([10789,19328,33806,19402,10543], 'normalized', 0.5, 2.5),
            ([1,20,80,30,5], 'normalized', 0, 2), ([3000,4000,3200], 'logistic', 0, 5), ([310,700,360], 'normalized', -5, 0)]
    for r, m, e0, e1 in rows:
        print(r, m, e0, e1, {k: (repr(x) if isinstance(x, float) else x) for k, x in mue(r, e0, e1, m).items()})

def bayes_score(e, drawelo):
    w = 1 / (1 + 10 ** ((drawelo - e) / 400)); l = 1 / (1 + 10 ** ((drawelo + e) / 400))
    return w + (1 - w - l) / 2

def llr_bayes(w, d, l, e0, e1):
    if w == 0 or l == 0: return 0.0
    n, pdf = pdf_of([l, d, w]); pl, pw = pdf[0][1], pdf[2][1]
    drawelo = 200 * math.log10((1 - pl) / pl * (1 - pw) / pw)
    q0, q1 = mle_mean(pdf, bayes_score(e0, drawelo)), mle_mean(pdf, bayes_score(e1, drawelo))
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, q0, q1))

BAYES = [(120, 200, 100, 0, 5), (1500, 3000, 1400, 0, 5), (65388, 56553, 65804, -3, 1),
         (10, 80, 5, -1.5, 4.5), (300, 100, 350, 0, 10), (5, 0, 3, 0, 5), (0, 10, 3, 0, 5),
         (40, 400, 20, 0, 5)]

if __name__ == "__main__" and sys.argv[1:] == ["bayes"]:
    for c in BAYES: print(c, repr(llr_bayes(*c)))
elif __name__ == "__main__" and sys.argv[1:] == ["mue"]:
    mue_cases()
elif __name__ == "__main__" and sys.argv[1:] == ["published"]:
    published()
elif __name__ == "__main__":
    P = [[10789,19328,33806,19402,10543],[39,2226,31451,2412,40],[1,3,5,2,1],[0,2,10,40,48],[0,5,20,5,0],[0,0,100,0,0],[120,1100,2300,1250,168],[0,0,0,0,10],[0,0,0,0,0]]
    T = [[65804,56553,65388],[2,10,120],[0,100,0],[1,4,3],[0,20,10],[120,10,2]]   # L,D,W
    B = [('logistic',0,5),('logistic',-3,1),('normalized',0,2),('normalized',-5,0),('normalized',0.764,3.439)]
    def f(x): return repr(float(x))
    out=[]
    for r in P+T:
        e=estimate(r)
        counts = ('Counts::Penta([%s])' % ', '.join(map(str,r))) if len(r)==5 else ('Counts::Wdl { w: %d, d: %d, l: %d }' % (r[2],r[1],r[0]))
        llrs = ', '.join(f(llr(r,e0,e1,m)) for m,e0,e1 in B)
        out.append('''    Case {
        counts: %s,
        elo: [%s, %s, %s, %s],
        los: %s,
        nelo: [%s, %s],
        llr: [%s],
    },''' % (counts, f(e['elo']), f(e['elo_error']), f(e['elo_low']), f(e['elo_high']), f(e['los']), f(e['nelo']), f(e['nelo_error']), llrs))
    print('\n'.join(out))
    for c in [(0, 2, 'normalized', 0, 0.49, 191), (0, 2, 'normalized', 1, 0.49, 191),
              (0, 2, 'normalized', 2.5, 0.49, 191), (0, 5, 'logistic', 5, 0.6, 0),
              (0, 5, 'logistic', 0, 0.6, 0), (0, 5, 'logistic', 2.5, 0.6, 0),
              (-5, 0, 'normalized', -10, 0.3, 50)]:
        print(c, [repr(x) for x in expected(0.05, 0.05, *c)])
