//! Module-wide tests: agreement with fishtest's numbers on reference cases,
//! and the SPRT's error rates by simulation.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// `|actual - expected| <= rel * |expected| + 1e-12`.
#[track_caller]
pub(crate) fn assert_close(actual: f64, expected: f64, rel: f64) {
    let tol = rel * expected.abs() + 1e-12;
    assert!(
        (actual - expected).abs() <= tol,
        "{actual} differs from {expected} by {} (tolerance {tol})",
        (actual - expected).abs()
    );
}

enum Counts {
    Penta([u64; 5]),
    Wdl { w: u64, d: u64, l: u64 },
}

struct Case {
    counts: Counts,
    /// elo, elo_error (symmetric half-width), elo_low, elo_high
    elo: [f64; 4],
    los: f64,
    /// nelo, nelo_error
    nelo: [f64; 2],
    /// LLR for each of `BOUNDS`, in order.
    llr: [f64; 5],
}

/// The SPRT designs of every reference case (alpha = beta = 0.05). The last
/// one is fishtest's own example `[0.764, 3.439]` nElo.
const BOUNDS: [(EloModel, f64, f64); 5] = [
    (EloModel::Logistic, 0.0, 5.0),
    (EloModel::Logistic, -3.0, 1.0),
    (EloModel::Normalized, 0.0, 2.0),
    (EloModel::Normalized, -5.0, 0.0),
    (EloModel::Normalized, 0.764, 3.439),
];

/// Reference values, computed in Python 3.11 with scipy 1.17 by
/// `harness/tests/stats_reference.py`, our own transcription of fishtest's
/// published formulas (which prints this table):
/// - elo, elo_error, elo_low, elo_high, los: `stat_util.get_elo` (zero cells
///   regularised to 0.001, normal interval, `scipy.stats.norm`);
/// - nelo, nelo_error: the pentanomial/trinomial nElo of fishtest's test page
///   (`t_conf` delta method with skewness and excess kurtosis);
/// - llr: `LLRcalc.LLR_logistic` / `LLRcalc.LLR_normalized` with
///   `scipy.optimize.brentq` at its default tolerances and fishtest's 10-round
///   cap on the t-value iteration (which had converged in every case: running
///   it to 10000 rounds gave bit-identical LLRs).
///
/// Cases: fishtest's own examples (large runs), a tiny run, lopsided results,
/// zero cells, all draws, all wins, no games at all, and the extreme
/// trinomial [2, 10, 120] (both ways round).
const CASES: &[Case] = &[
    Case {
        counts: Counts::Penta([10789, 19328, 33806, 19402, 10543]),
        elo: [
            -0.7735773359165423,
            1.2775798957280218,
            -2.051167691664677,
            0.5039920997913666,
        ],
        los: 0.1176588580327751,
        nelo: [-0.9516290044726476, 1.5716226767743608],
        llr: [
            -38.51440847341944,
            2.1310678117940807,
            -6.070429067588585,
            12.039751536822004,
            -12.701291983697933,
        ],
    },
    Case {
        counts: Counts::Penta([39, 2226, 31451, 2412, 40]),
        elo: [
            0.902981048809024,
            0.6625314859816553,
            0.24045284636979794,
            1.5655158183331086,
        ],
        los: 0.9962220973354207,
        nelo: [3.450799606946096, 2.5312396032638778],
        llr: [
            -68.71870172599658,
            65.97358529713483,
            2.93690981720447,
            17.832223595824992,
            2.162940869584568,
        ],
    },
    Case {
        counts: Counts::Penta([1, 3, 5, 2, 1]),
        elo: [
            -14.484869061777882,
            105.27519305146541,
            -121.13012824337335,
            89.42025785955745,
        ],
        los: 0.39041278465562396,
        nelo: [-19.733015243611955, 140.11553578428934],
        llr: [
            -0.030695446567272203,
            -0.01959685946342292,
            -0.008175805667622986,
            -0.01697081257287325,
            -0.011519935838357753,
        ],
    },
    Case {
        counts: Counts::Penta([0, 2, 10, 40, 48]),
        elo: [
            281.67048447582977,
            46.21935941436554,
            239.56194440017575,
            332.00066322890683,
        ],
        los: 1.0,
        nelo: [446.12020717292864, 104.44633926128967],
        llr: [
            1.4287340812595202,
            1.1545852264387948,
            0.6631980055102883,
            1.685457002319516,
            0.8823780999519,
        ],
    },
    Case {
        counts: Counts::Penta([0, 5, 20, 5, 0]),
        elo: [
            -7.714619732426294e-14,
            36.03037724575324,
            -36.0303772457533,
            36.03037724575319,
        ],
        los: 0.49999999999999917,
        nelo: [-9.444978658640984e-14, 87.908787119591],
        llr: [
            -0.03720289463793613,
            0.0119147334625022,
            -0.0009941722509163144,
            0.006213579091107693,
            -0.002794376336776152,
        ],
    },
    Case {
        counts: Counts::Penta([0, 0, 100, 0, 0]),
        elo: [
            -7.714619732426294e-14,
            0.3404671075881768,
            -0.34046710758825166,
            0.34046710758810195,
        ],
        los: 0.4999999999999114,
        nelo: [0.0, 48.150267673370685],
        llr: [
            -1.4416479084497977,
            0.5778783135108175,
            -0.004706725759865187,
            0.03753988283646516,
            -0.01598335767051425,
        ],
    },
    Case {
        counts: Counts::Penta([120, 1100, 2300, 1250, 168]),
        elo: [
            8.6560183392937,
            4.075938732143268,
            4.581270725481923,
            12.733148189768459,
        ],
        los: 0.9999843820841495,
        nelo: [14.558680931636026, 6.8568200473070195],
        llr: [
            7.1138121345237995,
            8.910706985857578,
            2.2157803335404833,
            6.968792738584606,
            2.72288891227634,
        ],
    },
    Case {
        counts: Counts::Penta([0, 0, 0, 0, 10]),
        elo: [
            1199.8261952903777,
            188.8974870262287,
            822.0312212379202,
            1199.8261952903777,
        ],
        los: 1.0,
        nelo: [8969.552189144595, 174414.0410279526],
        llr: [
            0.1429044325441563,
            0.11548376718322503,
            0.08108038238875867,
            0.20558908341176266,
            0.10795343108102066,
        ],
    },
    Case {
        counts: Counts::Penta([0, 0, 0, 0, 0]),
        elo: [
            -0.0,
            1199.8261952903854,
            -1199.826195290393,
            1199.8261952903777,
        ],
        los: 0.5,
        nelo: [0.0, 6809.612345718847],
        llr: [
            -1.0354483502281707e-06,
            3.313585669921775e-07,
            -1.656807473997572e-07,
            1.0353876017317118e-06,
            -4.6566710841200414e-07,
        ],
    },
    Case {
        counts: Counts::Wdl {
            w: 65388,
            d: 56553,
            l: 65804,
        },
        elo: [
            -0.7698390908603271,
            1.313742840854298,
            -2.083592938828181,
            0.5438927428804149,
        ],
        los: 0.12537555271611706,
        nelo: [-0.9209398978461407, 1.571595431035819],
        llr: [
            -36.38752444915505,
            2.0490426179674808,
            -5.975287588955726,
            12.278344785319572,
            -12.574369492243658,
        ],
    },
    Case {
        counts: Counts::Wdl {
            w: 120,
            d: 10,
            l: 2,
        },
        elo: [
            500.7247891975196,
            117.74856383322751,
            416.85821769583464,
            652.3553453622897,
        ],
        los: 1.0,
        nelo: [878.0678152639944, 341.21736618456185],
        llr: [
            1.8236081256786543,
            1.4742766862051653,
            0.704401102127362,
            1.7797506709094988,
            0.9389582305393532,
        ],
    },
    Case {
        counts: Counts::Wdl { w: 0, d: 100, l: 0 },
        elo: [
            -7.714619732426294e-14,
            0.30452910951434237,
            -0.30452910951441264,
            0.3045291095142721,
        ],
        los: 0.49999999999990097,
        nelo: [-8.625293322772675e-12, 68.09544250616815],
        llr: [
            -1.4419061648166478,
            0.5778682713133739,
            -0.00220843647047605,
            0.018016199279981198,
            -0.007543375844371376,
        ],
    },
    Case {
        counts: Counts::Wdl { w: 3, d: 4, l: 1 },
        elo: [
            88.73949984654251,
            190.27202089759234,
            -73.46185357247379,
            307.0821882227109,
        ],
        los: 0.8574752962986936,
        nelo: [131.31830798670234, 259.99220749414235],
        llr: [
            0.05610595322872336,
            0.0465136150774883,
            0.016153292530271646,
            0.04150622179434893,
            0.021415720864675247,
        ],
    },
    Case {
        counts: Counts::Wdl { w: 10, d: 20, l: 0 },
        elo: [
            120.39462735484736,
            67.03258157407642,
            57.70763460792867,
            191.7727977560815,
        ],
        los: 0.9999460447010018,
        nelo: [245.61265200762202, 93.31120387273079],
        llr: [
            0.4285535671793062,
            0.34632509840000375,
            0.09927763078125607,
            0.2518228819466838,
            0.13217473658660453,
        ],
    },
    Case {
        counts: Counts::Wdl {
            w: 2,
            d: 10,
            l: 120,
        },
        elo: [
            -500.72478919751984,
            117.74856383322714,
            -652.3553453622887,
            -416.85821769583447,
        ],
        los: 1.1471515870545758e-185,
        nelo: [-878.0678152639944, 341.217366184562],
        llr: [
            -1.8510896378134951,
            -1.4654824238255169,
            -0.7086975991750026,
            -1.7528998594316387,
            -0.9510342230704406,
        ],
    },
];

#[test]
fn reference_values_match_fishtest() {
    for (k, case) in CASES.iter().enumerate() {
        let (est, llrs): (Estimate, Vec<f64>) = match case.counts {
            Counts::Penta(c) => {
                let p = Pentanomial(c);
                let llrs = BOUNDS
                    .iter()
                    .map(|&(model, elo0, elo1)| {
                        SprtParams::new(elo0, elo1, 0.05, 0.05, model)
                            .unwrap()
                            .llr_penta(&p)
                    })
                    .collect();
                (p.estimate(), llrs)
            }
            Counts::Wdl { w, d, l } => {
                let t = Trinomial::new(w, d, l);
                let llrs = BOUNDS
                    .iter()
                    .map(|&(model, elo0, elo1)| {
                        SprtParams::new(elo0, elo1, 0.05, 0.05, model)
                            .unwrap()
                            .llr_wdl(&t)
                    })
                    .collect();
                (t.estimate(), llrs)
            }
        };
        let rel = 1e-6;
        eprintln!("case {k}");
        // Where the counts cannot support a figure it is missing (fishtest's
        // regularised formulas print one anyway): only in degenerate cases.
        let figures = [
            (est.elo, case.elo[0]),
            (est.elo_error, case.elo[1]),
            (est.elo_low, case.elo[2]),
            (est.elo_high, case.elo[3]),
            (est.los, case.los),
            (est.nelo, case.nelo[0]),
            (est.nelo_error, case.nelo[1]),
        ];
        let degenerate = match &case.counts {
            Counts::Penta(c) => c.iter().filter(|&&n| n > 0).count() < 2,
            Counts::Wdl { w, d, l } => [w, d, l].iter().filter(|&&&n| n > 0).count() < 2,
        };
        for (got, want) in figures {
            match got {
                Some(got) => assert_close(got, want, rel),
                None => assert!(degenerate, "case {k}: a figure is missing"),
            }
        }
        for (got, want) in llrs.iter().zip(case.llr) {
            assert_close(*got, want, rel);
        }
    }
}

#[test]
fn fishtest_sprt_example_decisions() {
    // fishtest's stat_util self-test run: logistic [-3, 1] on
    // 65388 W / 56553 D / 65804 L, pentanomial [10789, 19328, 33806, 19402, 10543].
    let params = SprtParams::new(-3.0, 1.0, 0.05, 0.05, EloModel::Logistic).unwrap();
    let (lower, upper) = params.bounds();
    assert_close(lower, -2.94443897916644, 1e-12);
    assert_close(upper, 2.94443897916644, 1e-12);
    let r = params.test_penta(&Pentanomial([10789, 19328, 33806, 19402, 10543]));
    assert_eq!(r.decision, SprtDecision::Continue);
    let r = params.test_wdl(&Trinomial::new(65388, 56553, 65804));
    assert_eq!(r.decision, SprtDecision::Continue);
    // Far past either bound.
    let params = SprtParams::new(0.0, 5.0, 0.05, 0.05, EloModel::Logistic).unwrap();
    let r = params.test_penta(&Pentanomial([10789, 19328, 33806, 19402, 10543]));
    assert_eq!(r.decision, SprtDecision::H0);
    let r = params.test_penta(&Pentanomial([39, 2226, 31451, 2412, 40]));
    assert_eq!(r.decision, SprtDecision::H0);
    let params = SprtParams::new(-3.0, 1.0, 0.05, 0.05, EloModel::Logistic).unwrap();
    let r = params.test_penta(&Pentanomial([39, 2226, 31451, 2412, 40]));
    assert_eq!(r.decision, SprtDecision::H1);
}

/// Published LLRs of real runs: the cases of fastchess's
/// `tests/sprt_test.cpp` (fishtest's mathematics), shown there to two
/// decimals. The full values are from `stats_reference.py published`, an
/// independent transcription of fishtest's formulas.
#[test]
fn published_examples() {
    let wdl = |w, l, d| Counts::Wdl { w, d, l };
    let cases = [
        (
            wdl(36433, 36027, 68692),
            EloModel::Normalized,
            0.0,
            2.0,
            0.92,
            0.9232934509459172,
        ),
        (
            wdl(10871, 10650, 20431),
            EloModel::Normalized,
            -1.75,
            0.25,
            2.30,
            2.2975004071050735,
        ),
        (
            wdl(21404, 21184, 40708),
            EloModel::Logistic,
            0.5,
            2.5,
            -1.57,
            -1.5718887926942657,
        ),
        (
            wdl(57433, 57030, 106593),
            EloModel::Logistic,
            0.0,
            2.0,
            -2.59,
            -2.59302416354122,
        ),
        (
            Counts::Penta([365, 16618, 36229, 16974, 390]),
            EloModel::Normalized,
            0.0,
            2.0,
            2.25,
            2.250367703543613,
        ),
        (
            Counts::Penta([127, 4883, 10712, 5150, 104]),
            EloModel::Normalized,
            -1.75,
            0.25,
            3.01,
            3.0101541966056997,
        ),
        (
            Counts::Penta([223, 9863, 21279, 10037, 246]),
            EloModel::Logistic,
            0.5,
            2.5,
            -3.07,
            -3.0741264395889707,
        ),
        (
            Counts::Penta([871, 26175, 55983, 26678, 821]),
            EloModel::Logistic,
            0.0,
            2.0,
            -4.98,
            -4.97867286345693,
        ),
    ];
    for (counts, model, elo0, elo1, shown, full) in cases {
        let params = SprtParams::new(elo0, elo1, 0.05, 0.05, model).unwrap();
        let llr = match counts {
            Counts::Penta(c) => params.llr_penta(&Pentanomial(c)),
            Counts::Wdl { w, d, l } => params.llr_wdl(&Trinomial::new(w, d, l)),
        };
        assert!(
            (llr - shown).abs() <= 0.005,
            "{llr} is not {shown} to two decimals"
        );
        assert_close(llr, full, 1e-9);
    }
}

/// fishtest caps the normalized-bound fit at 10 rounds; with wide bounds on
/// lopsided data that is not converged. We give the converged value (pinned
/// from `stats_reference.py` at 10000 rounds), not fishtest's capped one.
#[test]
fn normalized_llr_is_the_converged_value() {
    let cases = [
        (
            [0, 56, 801, 139, 4],
            -50.0,
            0.0,
            61.20088616909034,
            61.203056875273006,
        ),
        (
            [0, 5, 82, 13, 0],
            -50.0,
            50.0,
            7.729189143760115,
            7.7293342595582555,
        ),
    ];
    for (counts, elo0, elo1, converged, fishtest_capped) in cases {
        let params = SprtParams::new(elo0, elo1, 0.05, 0.05, EloModel::Normalized).unwrap();
        let llr = params.llr_penta(&Pentanomial(counts));
        assert_close(llr, converged, 1e-9);
        assert!((llr - fishtest_capped).abs() > 1e-4, "{counts:?}");
    }
}

#[test]
fn llr_is_finite_over_the_supported_range() {
    // The fixed-point iteration for normalized bounds must converge for every
    // kind of data anywhere inside the range `validate` accepts.
    let data = [
        Pentanomial([0, 0, 0, 0, 10]),
        Pentanomial([10, 0, 0, 0, 0]),
        Pentanomial([0, 0, 100, 0, 0]),
        Pentanomial([0, 0, 0, 0, 0]),
        Pentanomial([1, 3, 5, 2, 1]),
        Pentanomial([10789, 19328, 33806, 19402, 10543]),
    ];
    for model in [EloModel::Normalized, EloModel::Logistic] {
        let limit = if model == EloModel::Normalized {
            200.0
        } else {
            1000.0
        };
        for (e0, e1) in [(-limit, limit), (0.0, limit), (-limit, 0.0), (-1.0, 1.0)] {
            let params = SprtParams::new(e0, e1, 0.05, 0.05, model).unwrap();
            for p in &data {
                let llr = params.llr_penta(p);
                assert!(llr.is_finite(), "{model:?} [{e0}, {e1}] {p:?}: {llr}");
            }
        }
    }
}

#[test]
fn validation_rejects_bad_designs() {
    let ok = SprtParams::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized);
    assert!(ok.is_ok());
    let bad = [
        (5.0, 0.0, 0.05, 0.05, EloModel::Normalized),
        (1.0, 1.0, 0.05, 0.05, EloModel::Normalized),
        (0.0, 5.0, 0.0, 0.05, EloModel::Logistic),
        (0.0, 5.0, 0.05, 1.0, EloModel::Logistic),
        (0.0, 5.0, 0.6, 0.5, EloModel::Logistic),
        (0.0, f64::NAN, 0.05, 0.05, EloModel::Logistic),
        (0.0, 250.0, 0.05, 0.05, EloModel::Normalized),
    ];
    for (e0, e1, a, b, m) in bad {
        assert!(
            SprtParams::new(e0, e1, a, b, m).is_err(),
            "{e0} {e1} {a} {b} {m:?}"
        );
    }
}

#[test]
fn serde_spellings() {
    let p: SprtParams = serde_json::from_str(r#"{"elo0": -5, "elo1": 0}"#).unwrap();
    assert_eq!(
        p,
        SprtParams::new(-5.0, 0.0, 0.05, 0.05, EloModel::Normalized).unwrap()
    );
    let p: SprtParams =
        serde_json::from_str(r#"{"elo0": 0, "elo1": 5, "alpha": 0.1, "model": "logistic"}"#)
            .unwrap();
    assert_eq!(p.model, EloModel::Logistic);
    assert_eq!(p.alpha, 0.1);
    assert!(serde_json::from_str::<SprtParams>(r#"{"elo0": 0, "elo1": 5, "x": 1}"#).is_err());
    let json = serde_json::to_string(&[SprtDecision::H0, SprtDecision::H1, SprtDecision::Continue])
        .unwrap();
    assert_eq!(json, r#"["H0","H1","continue"]"#);
    assert_eq!(
        serde_json::to_string(&Pentanomial([1, 2, 3, 4, 5])).unwrap(),
        "[1,2,3,4,5]"
    );
}

/// Simulated SPRTs on game pairs of independent games with a given per-game
/// score and draw ratio.
mod simulation {
    use super::*;

    /// Pentanomial probabilities for two independent games with expected
    /// score `s` and draw ratio `d` each.
    fn pair_probabilities(s: f64, d: f64) -> [f64; 5] {
        let game = [1.0 - s - d / 2.0, d, s - d / 2.0]; // L, D, W
        let mut pair = [0.0; 5];
        for (i, a) in game.iter().enumerate() {
            for (j, b) in game.iter().enumerate() {
                pair[i + j] += a * b;
            }
        }
        pair
    }

    /// The per-game score whose normalized Elo is `nelo` at draw ratio `d`.
    fn score_for_nelo(nelo: f64, d: f64) -> f64 {
        let t = nelo / NELO_PER_T;
        let t_of = |s: f64| (s - 0.5) / ((s - d / 2.0) + d / 4.0 - s * s).sqrt();
        let (mut lo, mut hi) = (d / 2.0 + 1e-9, 1.0 - d / 2.0 - 1e-9);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if t_of(mid) < t {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// Runs `runs` SPRTs to a decision and returns the fraction that
    /// accepted H1, plus the mean number of games.
    fn h1_rate(params: &SprtParams, probs: [f64; 5], runs: usize, seed: u64) -> (f64, f64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut h1 = 0;
        let mut games = 0u64;
        for _ in 0..runs {
            let mut p = Pentanomial::default();
            loop {
                let mut u: f64 = rng.gen();
                let mut idx = 4;
                for (i, &pi) in probs.iter().enumerate() {
                    if u < pi {
                        idx = i;
                        break;
                    }
                    u -= pi;
                }
                p.add(idx);
                match params.test_penta(&p).decision {
                    SprtDecision::Continue => assert!(p.pairs() < 1_000_000, "no decision"),
                    SprtDecision::H1 => {
                        h1 += 1;
                        break;
                    }
                    SprtDecision::H0 => break,
                }
            }
            games += p.games();
        }
        (h1 as f64 / runs as f64, games as f64 / runs as f64)
    }

    /// Checks both error rates: true Elo at elo0 (false positives, target
    /// alpha) and at elo1 (false negatives, target beta). The tolerance is
    /// four binomial standard deviations above the target (the GSPRT may
    /// exceed it slightly on small samples) and, below it, room for the
    /// overshoot that makes discrete SPRTs conservative.
    fn check(params: SprtParams, s0: f64, s1: f64, draw: f64, runs: usize, seed: u64) {
        let (fp, games0) = h1_rate(&params, pair_probabilities(s0, draw), runs, seed);
        let (pass1, games1) = h1_rate(&params, pair_probabilities(s1, draw), runs, seed + 1);
        let fneg = 1.0 - pass1;
        eprintln!(
            "{params:?}: false positives {fp:.4} (alpha {}), false negatives {fneg:.4} (beta {}), \
             mean games {games0:.0} / {games1:.0}",
            params.alpha, params.beta
        );
        for (rate, target) in [(fp, params.alpha), (fneg, params.beta)] {
            let sd = (target * (1.0 - target) / runs as f64).sqrt();
            assert!(
                rate <= target + 4.0 * sd,
                "error rate {rate} > target {target}"
            );
            assert!(
                rate >= 0.4 * target,
                "error rate {rate} far below target {target}"
            );
        }
    }

    fn logistic_design(runs: usize, seed: u64) {
        // Wide bounds keep each test short (a few hundred pairs).
        let params = SprtParams::new(0.0, 20.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        check(
            params,
            elo_to_score(0.0),
            elo_to_score(20.0),
            0.5,
            runs,
            seed,
        );
    }

    fn normalized_design(runs: usize, seed: u64) {
        let (elo0, elo1) = (-15.0, 45.0);
        let params = SprtParams::new(elo0, elo1, 0.1, 0.05, EloModel::Normalized).unwrap();
        let draw = 0.6;
        check(
            params,
            score_for_nelo(elo0, draw),
            score_for_nelo(elo1, draw),
            draw,
            runs,
            seed,
        );
    }

    #[test]
    fn helpers_produce_the_intended_distribution() {
        let probs = pair_probabilities(0.6, 0.3);
        assert_close(probs.iter().sum(), 1.0, 1e-12);
        let mean: f64 = probs
            .iter()
            .enumerate()
            .map(|(i, p)| p * i as f64 / 4.0)
            .sum();
        assert_close(mean, 0.6, 1e-12);
        let s = score_for_nelo(30.0, 0.6);
        let var = (s - 0.3) + 0.15 - s * s;
        assert_close((s - 0.5) / var.sqrt() * NELO_PER_T, 30.0, 1e-9);
    }

    #[test]
    fn sprt_error_rates_logistic() {
        logistic_design(1000, 1);
    }

    #[test]
    fn sprt_error_rates_normalized() {
        normalized_design(1000, 3);
    }

    #[test]
    #[ignore = "slow: 20000 simulated SPRTs"]
    fn sprt_error_rates_many_runs() {
        logistic_design(10_000, 11);
        normalized_design(10_000, 13);
    }
}

/// BayesElo LLRs (W, D, L, elo0, elo1, converged, fastchess): `converged`
/// from `python3 harness/tests/stats_reference.py bayes` (our transcription
/// of fastchess's `SPRT::getLLR` for model "bayesian", its root solved to
/// convergence); `fastchess` from fastchess 74deac2's own `SPRT::getLLR`,
/// compiled and run locally. fastchess stops its ITP root search at a
/// multiplier within 1e-3, which moves its LLRs by up to 0.3%.
const BAYES: [(u64, u64, u64, f64, f64, f64, f64); 8] = [
    (
        120,
        200,
        100,
        0.0,
        5.0,
        0.37483448958865556,
        0.3748348232525652,
    ),
    (
        1500,
        3000,
        1400,
        0.0,
        5.0,
        1.487538468677634,
        1.487715958049769,
    ),
    (
        65388,
        56553,
        65804,
        -3.0,
        1.0,
        1.1286469651922408,
        1.132244813720709,
    ),
    (
        10,
        80,
        5,
        -1.5,
        4.5,
        0.14824370849071175,
        0.1482435925224901,
    ),
    (
        300,
        100,
        350,
        0.0,
        10.0,
        -1.9760378158838452,
        -1.9760382534969088,
    ),
    (
        5,
        0,
        3,
        0.0,
        5.0,
        0.027957317111160056,
        0.027957318045535758,
    ),
    (0, 10, 3, 0.0, 5.0, 0.0, 0.0),
    (
        40,
        400,
        20,
        0.0,
        5.0,
        0.49343250127416255,
        0.49343736607644795,
    ),
];

#[test]
fn bayeselo_llr_matches_fastchess() {
    for (w, d, l, elo0, elo1, converged, fastchess) in BAYES {
        let p = SprtParams::new(elo0, elo1, 0.05, 0.05, EloModel::Bayesian).unwrap();
        let llr = p.llr_wdl(&Trinomial::new(w, d, l));
        assert_close(llr, converged, 1e-9);
        assert_close(llr, fastchess, 4e-3);
    }
    // No pentanomial form: NaN, never a silent number.
    let p = SprtParams::new(0.0, 5.0, 0.05, 0.05, EloModel::Bayesian).unwrap();
    assert!(p.llr_penta(&Pentanomial([1, 2, 3, 2, 1])).is_nan());
    assert!(p
        .unbiased_wdl(&Trinomial::new(300, 100, 350), 0.95)
        .is_none());
    // Equal players drawing 60% of their games have draw Elo 400 log10 4.
    let de = sprt::drawelo_of_draw_ratio(0.6);
    assert_close(de, 400.0 * 4f64.log10(), 1e-12);
    assert_close(sprt::bayeselo_to_score(0.0, de), 0.5, 1e-12);
}
