//! The SPSA mathematics, free of games and files: OpenBench's gain
//! schedule, the perturbation of an iteration and the update it leads to.
//!
//! With N iterations and per parameter `c_end`, `r_end`:
//! `c = c_end * N^gamma`, `a = r_end * c_end^2 * (A + N)^alpha`; at
//! iteration k (1-based) `c_k = max(c / k^gamma, 0.5 for integers)` and
//! `r_k = a / (A + k)^alpha / c_k^2`. The plus side ("dev") plays
//! `theta + flip * c_k`, the minus side ("base") `theta - flip * c_k`;
//! integers are rounded `floor(x + u)` with the same `u` for both sides (so
//! they always differ), then clipped. After W wins and L losses of dev:
//! `theta += r_k * c_k * (W - L) * flip`, clipped.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Smallest perturbation of an integer parameter (OpenBench's floor).
pub const MIN_INT_C: f64 = 0.5;
/// Defaults of the schedule (Spall's, as fishtest and OpenBench use them).
pub const DEFAULT_ALPHA: f64 = 0.602;
/// Default `gamma`, the decay exponent of `c_k` (Spall's).
pub const DEFAULT_GAMMA: f64 = 0.101;
/// `A` as a fraction of the iteration count when not given.
pub const DEFAULT_A_RATIO: f64 = 0.1;
/// `r_end` when neither the config nor the engine's table gives one.
pub const DEFAULT_R_END: f64 = 0.002;

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamDef {
    /// The engine option's name (UCI `setoption`, the parameter file's key).
    pub name: String,
    /// The value theta starts from.
    pub start: f64,
    /// Lowest value played (theta and both sides are clipped to it).
    pub min: f64,
    /// Highest value played.
    pub max: f64,
    /// The perturbation `c_k` reached at the last iteration.
    pub c_end: f64,
    /// The learning rate `r_k` reached at the last iteration.
    pub r_end: f64,
    /// Integer parameters are played rounded and get `c_k >= 0.5`.
    pub integer: bool,
}

/// The global constants of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gains {
    /// N: planned iterations.
    pub iterations: u64,
    /// Decay exponent of the step (`r_k = a / (A + k)^alpha / c_k^2`).
    pub alpha: f64,
    /// Decay exponent of the perturbation (`c_k = c / k^gamma`).
    pub gamma: f64,
    /// Stability constant `A`.
    pub big_a: f64,
}

impl Gains {
    /// Defaults for `iterations` (A = 10% of them).
    pub fn new(iterations: u64) -> Gains {
        Gains {
            iterations,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
            big_a: DEFAULT_A_RATIO * iterations as f64,
        }
    }
}

/// The per-parameter constants `c` and `a`, fixed for a run of N iterations.
#[derive(Clone, Debug)]
pub struct Schedule {
    gains: Gains,
    c: Vec<f64>,
    a: Vec<f64>,
    integer: Vec<bool>,
}

impl Schedule {
    /// The per-parameter `c` and `a` of `params` over `gains`'s N iterations.
    pub fn new(params: &[ParamDef], gains: Gains) -> Schedule {
        let n = gains.iterations as f64;
        Schedule {
            gains,
            c: params
                .iter()
                .map(|p| p.c_end * n.powf(gains.gamma))
                .collect(),
            a: params
                .iter()
                .map(|p| p.r_end * p.c_end * p.c_end * (gains.big_a + n).powf(gains.alpha))
                .collect(),
            integer: params.iter().map(|p| p.integer).collect(),
        }
    }

    /// The schedule's constants.
    pub fn gains(&self) -> Gains {
        self.gains
    }

    /// `c` of parameter `i`.
    pub fn c(&self, i: usize) -> f64 {
        self.c[i]
    }

    /// `a` of parameter `i`.
    pub fn a(&self, i: usize) -> f64 {
        self.a[i]
    }

    /// Perturbation size of parameter `i` at iteration `k` (1-based).
    pub fn c_k(&self, i: usize, k: u64) -> f64 {
        let c = self.c[i] / (k as f64).powf(self.gains.gamma);
        if self.integer[i] {
            c.max(MIN_INT_C)
        } else {
            c
        }
    }

    /// Learning rate of parameter `i` at iteration `k` (1-based).
    pub fn r_k(&self, i: usize, k: u64) -> f64 {
        let c_k = self.c_k(i, k);
        self.a[i] / (self.gains.big_a + k as f64).powf(self.gains.alpha) / (c_k * c_k)
    }
}

/// What iteration `k` plays: the two sides' values and what the update needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// The iteration (1-based).
    pub k: u64,
    /// +1 or -1 per parameter.
    pub flip: Vec<i8>,
    /// Per parameter: the perturbation `c_k`.
    pub c_k: Vec<f64>,
    /// Per parameter: the learning rate `r_k`.
    pub r_k: Vec<f64>,
    /// The plus side's values (rounded for integers, clipped).
    pub dev: Vec<f64>,
    /// The minus side's values.
    pub base: Vec<f64>,
}

/// The random stream of iteration `k`: ChaCha seeded by the run's seed,
/// stream `k`, so any iteration can be redrawn alone (resume, concurrency).
fn iteration_rng(seed: u64, k: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(k);
    rng
}

fn clip(x: f64, p: &ParamDef) -> f64 {
    x.clamp(p.min, p.max)
}

/// The perturbation of iteration `k` around `theta`. Per parameter, in
/// order, the stream gives the flip (a bool) then `u` (uniform in [0, 1)).
pub fn perturb(
    params: &[ParamDef],
    schedule: &Schedule,
    theta: &[f64],
    seed: u64,
    k: u64,
) -> Perturbation {
    let mut rng = iteration_rng(seed, k);
    let n = params.len();
    let mut out = Perturbation {
        k,
        flip: Vec::with_capacity(n),
        c_k: Vec::with_capacity(n),
        r_k: Vec::with_capacity(n),
        dev: Vec::with_capacity(n),
        base: Vec::with_capacity(n),
    };
    for (i, p) in params.iter().enumerate() {
        let flip: i8 = if rng.gen::<bool>() { 1 } else { -1 };
        let u: f64 = rng.gen();
        let c_k = schedule.c_k(i, k);
        let delta = f64::from(flip) * c_k;
        let (mut dev, mut base) = (theta[i] + delta, theta[i] - delta);
        if p.integer {
            dev = (dev + u).floor();
            base = (base + u).floor();
        }
        out.flip.push(flip);
        out.c_k.push(c_k);
        out.r_k.push(schedule.r_k(i, k));
        out.dev.push(clip(dev, p));
        out.base.push(clip(base, p));
    }
    out
}

/// Apply iteration `p`'s result (`wins`, `losses` of the plus side) to `theta`.
pub fn update(params: &[ParamDef], theta: &mut [f64], p: &Perturbation, wins: u64, losses: u64) {
    let score = wins as f64 - losses as f64;
    for (i, def) in params.iter().enumerate() {
        let step = p.r_k[i] * p.c_k[i] * score * f64::from(p.flip[i]);
        theta[i] = clip(theta[i] + step, def);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_param(start: f64, c_end: f64) -> ParamDef {
        ParamDef {
            name: "x".into(),
            start,
            min: 0.0,
            max: 1000.0,
            c_end,
            r_end: 0.002,
            integer: true,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    /// Hand-computed: N = 1000, A = 100, c_end = 10, r_end = 0.002.
    /// c = 10 * 1000^0.101 = 10 * e^(0.101 * 6.907755) = 10 * e^0.697683 = 20.0906
    /// a = 0.002 * 10^2 * 1100^0.602 = 0.2 * e^(0.602 * 7.003065) = 0.2 * 67.7514 = 13.5503
    #[test]
    fn schedule_matches_the_formulas() {
        let params = [int_param(100.0, 10.0)];
        let s = Schedule::new(&params, Gains::new(1000));
        assert!(close(s.gains().big_a, 100.0));
        let c = 10.0 * (0.101f64 * 1000f64.ln()).exp();
        assert!(close(s.c(0), c));
        assert!((s.c(0) - 20.0906).abs() < 1e-3, "{}", s.c(0));
        let a = 0.2 * (0.602 * 1100f64.ln()).exp();
        assert!(close(s.a(0), a));
        assert!((s.a(0) - 13.5503).abs() < 1e-3, "{}", s.a(0));
        // k = 1: c_1 = c, r_1 = a / 101^0.602 / c^2.
        assert!(close(s.c_k(0, 1), c));
        assert!(close(s.r_k(0, 1), a / 101f64.powf(0.602) / (c * c)));
        // k = N: c_N = c_end exactly; r_N = r_end (A + N cancels).
        assert!(close(s.c_k(0, 1000), 10.0));
        assert!(close(s.r_k(0, 1000), 0.002));
    }

    #[test]
    fn integer_perturbation_has_a_floor_of_one_half() {
        let params = [int_param(5.0, 0.1), {
            let mut p = int_param(5.0, 0.1);
            p.integer = false;
            p
        }];
        let s = Schedule::new(&params, Gains::new(100));
        assert_eq!(s.c_k(0, 100), MIN_INT_C);
        assert!(close(s.c_k(1, 100), 0.1));
        // r_k uses the floored c_k.
        let expect = s.a(0) / (10.0f64 + 100.0).powf(0.602) / 0.25;
        assert!(close(s.r_k(0, 100), expect));
    }

    #[test]
    fn both_sides_use_the_same_rounding_and_always_differ() {
        // c_k = 0.5 from the floor: with independent rounding both sides
        // would often land on the same integer; with the same u they never do.
        let params = [int_param(5.0, 0.01), int_param(7.3, 0.01)];
        let s = Schedule::new(&params, Gains::new(10));
        for k in 1..=500 {
            let p = perturb(&params, &s, &[5.0, 7.3], 42, k);
            for i in 0..2 {
                assert_eq!(p.c_k[i], 0.5);
                assert_eq!((p.dev[i] - p.base[i]).abs(), 1.0, "k {k} i {i}: {p:?}");
                assert_eq!(p.dev[i] > p.base[i], p.flip[i] > 0);
            }
        }
    }

    #[test]
    fn perturbation_depends_on_seed_and_iteration_only() {
        let params = [int_param(100.0, 10.0), int_param(200.0, 20.0)];
        let s = Schedule::new(&params, Gains::new(100));
        let a = perturb(&params, &s, &[100.0, 200.0], 7, 3);
        assert_eq!(a, perturb(&params, &s, &[100.0, 200.0], 7, 3));
        let flips: Vec<Vec<i8>> = (1..=20)
            .map(|k| perturb(&params, &s, &[100.0, 200.0], 7, k).flip)
            .collect();
        assert!(flips.iter().any(|f| f != &flips[0]), "flips never change");
        let other: Vec<Vec<i8>> = (1..=20)
            .map(|k| perturb(&params, &s, &[100.0, 200.0], 8, k).flip)
            .collect();
        assert_ne!(flips, other);
    }

    #[test]
    fn values_and_updates_are_clipped() {
        let mut p = int_param(1.0, 10.0);
        p.min = 0.0;
        p.max = 3.0;
        let params = [p];
        let s = Schedule::new(&params, Gains::new(10));
        for k in 1..=20 {
            let pert = perturb(&params, &s, &[1.0], 1, k);
            assert!((0.0..=3.0).contains(&pert.dev[0]) && (0.0..=3.0).contains(&pert.base[0]));
            let mut theta = [1.0];
            update(&params, &mut theta, &pert, 1000, 0);
            assert!(theta[0] == 0.0 || theta[0] == 3.0, "{theta:?}");
        }
    }

    #[test]
    fn update_follows_the_formula() {
        let params = [int_param(100.0, 10.0)];
        let s = Schedule::new(&params, Gains::new(1000));
        let pert = perturb(&params, &s, &[100.0], 3, 1);
        let mut theta = [100.0];
        update(&params, &mut theta, &pert, 5, 2);
        let expect = 100.0 + pert.r_k[0] * pert.c_k[0] * 3.0 * f64::from(pert.flip[0]);
        assert!(close(theta[0], expect));
    }

    /// A noisy game model with a known optimum: each parameter costs Elo
    /// quadratically in its distance from the optimum; games are drawn from
    /// the Elo difference of the two sides. SPSA must get close. (r_end is
    /// raised from the usual 0.002 so that 2000 iterations suffice.)
    #[test]
    fn converges_on_a_synthetic_objective() {
        let optimum = [150.0, 3.0, 40.0];
        let params = [
            ParamDef {
                name: "margin".into(),
                start: 400.0,
                min: 0.0,
                max: 1000.0,
                c_end: 20.0,
                r_end: 0.01,
                integer: true,
            },
            ParamDef {
                name: "r".into(),
                start: 6.0,
                min: 1.0,
                max: 8.0,
                c_end: 1.0,
                r_end: 0.01,
                integer: true,
            },
            ParamDef {
                name: "scale".into(),
                start: 10.0,
                min: 0.0,
                max: 100.0,
                c_end: 4.0,
                r_end: 0.01,
                integer: false,
            },
        ];
        // Elo lost per unit of distance, scaled to each parameter's range.
        let weight = [
            100.0 / 250.0f64.powi(2),
            100.0 / 3.0f64.powi(2),
            100.0 / 30.0f64.powi(2),
        ];
        let elo = |v: &[f64]| -> f64 {
            -(0..3)
                .map(|i| weight[i] * (v[i] - optimum[i]).powi(2))
                .sum::<f64>()
        };
        let gains = Gains::new(2000);
        let s = Schedule::new(&params, gains);
        let mut theta: Vec<f64> = params.iter().map(|p| p.start).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        let pairs = 8;
        for k in 1..=gains.iterations {
            let p = perturb(&params, &s, &theta, 5, k);
            let diff = elo(&p.dev) - elo(&p.base);
            let expected = 1.0 / (1.0 + 10f64.powf(-diff / 400.0));
            let draw = 0.4;
            let (mut w, mut l) = (0, 0);
            for _ in 0..2 * pairs {
                let x: f64 = rng.gen();
                if x < (1.0 - draw) * expected {
                    w += 1;
                } else if x < 1.0 - draw {
                    l += 1;
                }
            }
            update(&params, &mut theta, &p, w, l);
        }
        let start_loss = -elo(&[400.0, 6.0, 10.0]);
        let end_loss = -elo(&theta);
        assert!(
            end_loss < 0.1 * start_loss,
            "{theta:?}: {end_loss} vs {start_loss}"
        );
        assert!((theta[0] - optimum[0]).abs() < 60.0, "{theta:?}");
        assert!((theta[1] - optimum[1]).abs() < 1.0, "{theta:?}");
        assert!((theta[2] - optimum[2]).abs() < 10.0, "{theta:?}");
    }
}
