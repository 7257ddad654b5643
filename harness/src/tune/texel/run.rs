//! One Texel tuning run and its folder: fit K, run the epochs with
//! checkpoints, and write `config.yaml`, `loss.csv`, `loss.svg`,
//! `checkpoint.json`, `tuned.yaml` (loadable by `karsinta-engine --params`
//! and in-process players), `report.md` and `summary.json`; optionally the
//! `verify/` match folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use karsinta_engine::eval::weights::{EvalWeights, S};
use karsinta_engine::eval::{flat_f64, MAX_PHASE};
use karsinta_engine::params::SearchParams;
use karsinta_engine::Params;
use serde::Serialize;
use thiserror::Error;

use super::config::TexelConfig;
use super::dataset::{view_of, Dataset, DatasetError, Positions};
use super::plot::write_loss_svg;
use super::tuner::{fit_k, loss, loss_and_gradient, Bounds, TunerState};
use crate::config::{ConfigError, MatchConfig, Overrides, RawConfig, RawEngine, RawKind};
use crate::report::summary::Summary;
use crate::run::{run_match, MatchError};

/// How to run.
#[derive(Clone, Default)]
pub struct TexelRunOptions {
    /// The run folder (missing or empty, or the one to resume).
    pub out_dir: PathBuf,
    /// Continue from the folder's checkpoint.
    pub resume: bool,
    /// No progress bar.
    pub quiet: bool,
    /// Stop after this many epochs in total (tests simulate an interruption).
    pub stop_at_epoch: Option<usize>,
    /// Set (from a signal handler) to checkpoint and stop.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Run the SPRT match of the config's `verify:` block afterwards.
    pub verify: bool,
}

/// Why a Texel run cannot start or go on.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum TexelError {
    /// The config is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The dataset cannot be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Usage(String),
    #[error("verify match: {0}")]
    Verify(#[from] MatchError),
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TexelError + '_ {
    move |source| TexelError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What the run folder's `summary.json` holds.
#[derive(Clone, Debug, Serialize)]
pub struct TexelSummary {
    /// Run name (the config's `name`).
    pub name: String,
    /// `finished` or `interrupted` (continue with `--resume`).
    pub status: String,
    /// Epochs done.
    pub epochs: usize,
    /// The sigmoid scale K used (fitted or the config's `k`).
    pub k: f64,
    /// Positions the weights were fitted on.
    pub train_positions: usize,
    /// Held-out positions of the validation loss.
    pub valid_positions: usize,
    /// Dataset file size over positions.
    pub bytes_per_position: f64,
    /// Scalars tuned (selected by `tune`/`exclude`, minus the rare ones).
    pub tuned_scalars: usize,
    /// Selected scalars kept fixed because their terms occur in fewer than
    /// `min_positions` training positions.
    #[serde(default)]
    pub rare_scalars: usize,
    /// The threshold behind `rare_scalars` (the config's or 0.1% of the training positions).
    #[serde(default)]
    pub min_positions: usize,
    /// Mean squared error of the training positions under the starting weights.
    pub start_train_loss: f64,
    /// Mean squared error of the validation positions under the starting weights.
    pub start_valid_loss: f64,
    /// Losses of the float weights after the last epoch.
    pub final_train_loss: f64,
    /// Validation loss of the float weights after the last epoch.
    pub final_valid_loss: f64,
    /// Losses of the rounded weights in `tuned.yaml` (what the engine plays).
    pub rounded_train_loss: f64,
    /// Validation loss of the rounded weights in `tuned.yaml`.
    pub rounded_valid_loss: f64,
    /// Training positions per second per epoch (gradient passes).
    pub positions_per_second: f64,
    /// The tuned parameter file, `tuned.yaml` in the run folder.
    pub tuned_params: PathBuf,
    /// The `--verify` match's summary (tuned against starting weights), when run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<Summary>,
}

/// The engine's integer weights for flat float scalars: rounded to the
/// nearest integer and clamped to each scalar's range.
pub fn round_weights(w: &[f64]) -> EvalWeights {
    let specs = EvalWeights::specs();
    let pairs: Vec<S> = (0..w.len() / 2)
        .map(|i| {
            let r = |j: usize| {
                (w[j].round() as i64).clamp(specs[j].min as i64, specs[j].max as i64) as i32
            };
            S(r(2 * i), r(2 * i + 1))
        })
        .collect();
    EvalWeights::from_flat(&pairs).expect("one pair per weight")
}

/// The tuned parameter file: every evaluation weight, and the starting
/// set's search parameters where they differ from the defaults.
pub fn tuned_yaml(start: &Params, tuned: &EvalWeights, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    let search_only = Params {
        search: start.search.clone(),
        eval: EvalWeights::default(),
    };
    out.push_str(&search_only.diff_yaml(&Params::default()));
    let n = SearchParams::specs().len();
    let p = Params {
        search: start.search.clone(),
        eval: tuned.clone(),
    };
    for (i, s) in EvalWeights::specs().iter().enumerate() {
        let _ = writeln!(out, "{}: {}", s.name, p.get(n + i));
    }
    out
}

fn write_atomic(path: &Path, data: &[u8]) -> Result<(), TexelError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, data).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

struct LossRow {
    epoch: usize,
    train: f64,
    valid: f64,
    seconds: f64,
}

fn read_rows(path: &Path, below: usize) -> Result<Vec<LossRow>, TexelError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let mut rows = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let parse = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok());
        let (Some(e), Some(t), Some(v), Some(s)) = (parse(0), parse(1), parse(2), parse(3)) else {
            return Err(TexelError::Usage(format!(
                "{}: bad line '{line}'",
                path.display()
            )));
        };
        if (e as usize) < below {
            rows.push(LossRow {
                epoch: e as usize,
                train: t,
                valid: v,
                seconds: s,
            });
        }
    }
    Ok(rows)
}

fn write_rows(path: &Path, rows: &[LossRow]) -> Result<(), TexelError> {
    let mut s = String::from("epoch,train_loss,valid_loss,seconds\n");
    for r in rows {
        let _ = writeln!(s, "{},{},{},{:.3}", r.epoch, r.train, r.valid, r.seconds);
    }
    write_atomic(path, s.as_bytes())
}

/// Per flat scalar (middlegame, endgame of each pair), in how many positions
/// of `p` it counts: a position whose trace has the pair's term (linear,
/// inside a king danger sum or in the winnability sum) counts by its share
/// of the taper, `phase / 24` for the middlegame scalar and the rest for the
/// endgame one. An endgame
/// weight seen only in full middlegames moves no score, so it is as rare as
/// a term seen nowhere.
pub fn occurrences(p: &Positions, scalars: usize) -> Vec<f64> {
    let pairs = scalars.div_ceil(2);
    let mut share = vec![0.0f64; scalars];
    let mut seen = vec![usize::MAX; pairs];
    for (i, m) in p.meta.iter().enumerate() {
        let v = view_of(m, &p.coefs);
        let mg = f64::from(v.phase.clamp(0, MAX_PHASE)) / f64::from(MAX_PHASE);
        let all = v.linear.iter().chain(v.danger[0]).chain(v.danger[1]);
        for &(idx, c) in all.chain(v.winnable) {
            let idx = idx as usize;
            if c != 0 && idx < pairs && seen[idx] != i {
                seen[idx] = i;
                share[2 * idx] += mg;
                if 2 * idx + 1 < scalars {
                    share[2 * idx + 1] += 1.0 - mg;
                }
            }
        }
    }
    share
}

/// Run (or resume) the tune described by `cfg` in `opts.out_dir`.
pub fn run_texel(cfg: &TexelConfig, opts: &TexelRunOptions) -> Result<TexelSummary, TexelError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| TexelError::Usage(format!("cannot start {} threads: {e}", cfg.threads)))?;
    pool.install(|| run_in_pool(cfg, opts))
}

/// The scalars a run tunes and why some selected ones stay fixed.
struct Selection {
    bounds: Bounds,
    /// Selected scalars kept fixed as too rare in the training data.
    rare: usize,
    min_positions: usize,
}

/// Epoch timing: gradient passes and the seconds they took.
struct Epochs {
    finished: bool,
    grad_time: f64,
    grad_passes: usize,
}

/// One run's steps in the order [`run_in_pool`] takes them; each reads the
/// config, the options and the run folder from here.
struct TexelRun<'a> {
    cfg: &'a TexelConfig,
    opts: &'a TexelRunOptions,
    dir: &'a Path,
    checkpoint: PathBuf,
    csv: PathBuf,
}

fn run_in_pool(cfg: &TexelConfig, opts: &TexelRunOptions) -> Result<TexelSummary, TexelError> {
    let dir = opts.out_dir.as_path();
    let run = TexelRun {
        cfg,
        opts,
        dir,
        checkpoint: dir.join("checkpoint.json"),
        csv: dir.join("loss.csv"),
    };
    run.prepare_folder()?;
    let data = run.load_dataset()?;
    let w0 = flat_f64(&cfg.start_params.eval);
    let selection = run.select_scalars(&data, w0.len())?;
    let (mut state, mut rows) = run.start_or_resume(&data, &w0)?;
    run.save(&state, &rows)?;
    let epochs = run.run_epochs(&data, &w0, &selection.bounds, &mut state, &mut rows)?;
    run.finish(&data, &w0, &selection, &state, &rows, &epochs)
}

impl TexelRun<'_> {
    fn say(&self, s: &str) {
        if !self.opts.quiet {
            eprintln!("{s}");
        }
    }

    /// Step 1: the run folder, refusing one that holds a run unless resuming.
    fn prepare_folder(&self) -> Result<(), TexelError> {
        let dir = self.dir;
        if !self.opts.resume && self.checkpoint.exists() {
            return Err(TexelError::Usage(format!(
                "{} already holds a tuning run; continue it with --resume or choose another --out",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        if !self.opts.resume {
            write_atomic(
                &dir.join("config.yaml"),
                self.cfg.resolved_yaml().as_bytes(),
            )?;
        }
        Ok(())
    }

    /// Step 2: the dataset, split into training and validation positions.
    fn load_dataset(&self) -> Result<Dataset, TexelError> {
        let cfg = self.cfg;
        let data = Dataset::load(&cfg.dataset, cfg.validation_fraction, cfg.seed)?;
        self.say(&format!(
            "dataset {}: {} training + {} validation positions, {:.1} bytes/position",
            cfg.dataset.display(),
            data.train.len(),
            data.valid.len(),
            data.bytes_per_position
        ));
        if data.train.is_empty() {
            return Err(TexelError::Usage(
                "no training positions (validation_fraction too high?)".into(),
            ));
        }
        Ok(data)
    }

    /// Step 3: the tuned scalars (selected and seen in `min_positions`
    /// training positions) and every scalar's range.
    fn select_scalars(&self, data: &Dataset, scalars: usize) -> Result<Selection, TexelError> {
        let cfg = self.cfg;
        let specs = EvalWeights::specs();
        let min_positions = cfg.min_positions.unwrap_or(data.train.len().div_ceil(1000));
        let occurrences = occurrences(&data.train, scalars);
        let tuned: Vec<bool> = cfg
            .tuned
            .iter()
            .zip(&occurrences)
            .map(|(&t, &n)| t && n >= min_positions as f64)
            .collect();
        let rare = cfg.tuned.iter().filter(|&&t| t).count() - tuned.iter().filter(|&&t| t).count();
        if rare > 0 {
            self.say(&format!(
                "{rare} selected scalars stay fixed: their terms occur in fewer than {min_positions} training positions"
            ));
        }
        if !tuned.iter().any(|&t| t) {
            return Err(TexelError::Usage(format!(
                "no selected weight occurs in {min_positions} training positions (min_positions)"
            )));
        }
        let bounds = Bounds {
            tuned,
            min: specs.iter().map(|s| f64::from(s.min)).collect(),
            max: specs.iter().map(|s| f64::from(s.max)).collect(),
        };
        Ok(Selection {
            bounds,
            rare,
            min_positions,
        })
    }

    /// Step 4: the tuner's state and loss rows, from the checkpoint when
    /// resuming, else the starting weights and K (fitted unless given).
    fn start_or_resume(
        &self,
        data: &Dataset,
        w0: &[f64],
    ) -> Result<(TunerState, Vec<LossRow>), TexelError> {
        let checkpoint = &self.checkpoint;
        if self.opts.resume {
            let text = std::fs::read_to_string(checkpoint).map_err(io(checkpoint))?;
            let state: TunerState = serde_json::from_str(&text)
                .map_err(|e| TexelError::Usage(format!("{}: {e}", checkpoint.display())))?;
            if state.weights.len() != w0.len() {
                return Err(TexelError::Usage(format!(
                    "{}: checkpoint has {} scalars, the engine {}",
                    checkpoint.display(),
                    state.weights.len(),
                    w0.len()
                )));
            }
            let rows = read_rows(&self.csv, state.epoch)?;
            self.say(&format!(
                "resuming at epoch {} (K = {})",
                state.epoch, state.k
            ));
            return Ok((state, rows));
        }
        let k = match self.cfg.k {
            Some(k) => k,
            None => {
                self.say("fitting K on the starting weights ...");
                fit_k(&data.train, w0)
            }
        };
        self.say(&format!("K = {k:.6}"));
        Ok((TunerState::new(w0.to_vec(), k), Vec::new()))
    }

    /// The checkpoint and `loss.csv`, written together.
    fn save(&self, state: &TunerState, rows: &[LossRow]) -> Result<(), TexelError> {
        let json = serde_json::to_string(state).expect("state serialises");
        write_atomic(&self.checkpoint, json.as_bytes())?;
        write_rows(&self.csv, rows)
    }

    /// Step 5: the epochs, to the last one, `stop_at_epoch` or an
    /// interrupt, with checkpoints; then the final loss row and checkpoint.
    fn run_epochs(
        &self,
        data: &Dataset,
        w0: &[f64],
        bounds: &Bounds,
        state: &mut TunerState,
        rows: &mut Vec<LossRow>,
    ) -> Result<Epochs, TexelError> {
        let (cfg, opts) = (self.cfg, self.opts);
        let k = state.k;
        let last = opts.stop_at_epoch.map_or(cfg.epochs, |s| s.min(cfg.epochs));
        let bar = if opts.quiet {
            ProgressBar::hidden()
        } else {
            let b = ProgressBar::new(cfg.epochs as u64);
            b.set_style(
                ProgressStyle::with_template(
                    "{bar:30} epoch {pos}/{len} {msg} [{elapsed} < {eta}]",
                )
                .expect("valid template"),
            );
            b.set_position(state.epoch as u64);
            b
        };
        let seconds_before = rows.last().map_or(0.0, |r| r.seconds);
        let started = Instant::now();
        let mut grad_time = 0.0;
        let mut grad_passes = 0usize;
        while state.epoch < last {
            if opts
                .interrupt
                .as_ref()
                .is_some_and(|f| f.load(Ordering::SeqCst))
            {
                break;
            }
            let t = Instant::now();
            let (train, mut grad) = loss_and_gradient(&data.train, &state.weights, k);
            // L2 pull toward the starting weights: it holds weights the data
            // barely constrains (and directions along which mg and eg trade
            // off) where they started. Reported losses stay the plain MSE.
            if cfg.regularization > 0.0 {
                for ((g, w), s) in grad.iter_mut().zip(&state.weights).zip(w0) {
                    *g += 2.0 * cfg.regularization * (w - s);
                }
            }
            grad_time += t.elapsed().as_secs_f64();
            grad_passes += 1;
            let valid = loss(&data.valid, &state.weights, k);
            rows.push(LossRow {
                epoch: state.epoch,
                train,
                valid,
                seconds: seconds_before + started.elapsed().as_secs_f64(),
            });
            state.step(&grad, cfg.optimizer, cfg.learning_rate, bounds);
            let pps = data.train.len() as f64 * grad_passes as f64 / grad_time.max(1e-9);
            bar.set_position(state.epoch as u64);
            bar.set_message(format!(
                "train {train:.6} valid {valid:.6} {:.2}M pos/s",
                pps / 1e6
            ));
            if state.epoch.is_multiple_of(cfg.checkpoint_every) {
                self.save(state, rows)?;
            }
        }
        bar.finish_and_clear();
        let finished = state.epoch >= cfg.epochs;
        if finished && rows.last().is_none_or(|r| r.epoch < state.epoch) {
            rows.push(LossRow {
                epoch: state.epoch,
                train: loss(&data.train, &state.weights, k),
                valid: loss(&data.valid, &state.weights, k),
                seconds: seconds_before + started.elapsed().as_secs_f64(),
            });
        }
        self.save(state, rows)?;
        Ok(Epochs {
            finished,
            grad_time,
            grad_passes,
        })
    }

    /// Step 6: `tuned.yaml`, `loss.svg`, `report.md`, the verify match if
    /// asked, and `summary.json`.
    fn finish(
        &self,
        data: &Dataset,
        w0: &[f64],
        selection: &Selection,
        state: &TunerState,
        rows: &[LossRow],
        epochs: &Epochs,
    ) -> Result<TexelSummary, TexelError> {
        let (cfg, dir, k) = (self.cfg, self.dir, state.k);
        let rounded = round_weights(&state.weights);
        let rounded_flat = flat_f64(&rounded);
        let header = format!(
            "karsinta tune texel: run {} ({} epochs, K = {k:.6})\nevaluation weights tuned from {}",
            cfg.name,
            state.epoch,
            cfg.dataset.display()
        );
        let tuned_path = dir.join("tuned.yaml");
        write_atomic(
            &tuned_path,
            tuned_yaml(&cfg.start_params, &rounded, &header).as_bytes(),
        )?;
        let first = rows.first();
        let mut summary = TexelSummary {
            name: cfg.name.clone(),
            status: if epochs.finished {
                "finished"
            } else {
                "interrupted"
            }
            .into(),
            epochs: state.epoch,
            k,
            train_positions: data.train.len(),
            valid_positions: data.valid.len(),
            bytes_per_position: data.bytes_per_position,
            tuned_scalars: selection.bounds.tuned.iter().filter(|&&t| t).count(),
            rare_scalars: selection.rare,
            min_positions: selection.min_positions,
            start_train_loss: first.map_or(f64::NAN, |r| r.train),
            start_valid_loss: first.map_or(f64::NAN, |r| r.valid),
            final_train_loss: loss(&data.train, &state.weights, k),
            final_valid_loss: loss(&data.valid, &state.weights, k),
            rounded_train_loss: loss(&data.train, &rounded_flat, k),
            rounded_valid_loss: loss(&data.valid, &rounded_flat, k),
            positions_per_second: if epochs.grad_passes > 0 {
                data.train.len() as f64 * epochs.grad_passes as f64 / epochs.grad_time
            } else {
                // A resume with no epoch left (say, to add `--verify`) times
                // nothing: keep the figure of the invocation that did.
                std::fs::read_to_string(dir.join("summary.json"))
                    .ok()
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                    .and_then(|v| v["positions_per_second"].as_f64())
                    .unwrap_or(0.0)
            },
            tuned_params: tuned_path.clone(),
            verify: None,
        };
        let losses: Vec<(usize, f64, f64)> =
            rows.iter().map(|r| (r.epoch, r.train, r.valid)).collect();
        write_loss_svg(&dir.join("loss.svg"), &cfg.name, &losses)
            .map_err(|e| TexelError::Usage(format!("{}: {e}", dir.join("loss.svg").display())))?;
        write_atomic(
            &dir.join("report.md"),
            report(cfg, &summary, w0, &state.weights, &rounded).as_bytes(),
        )?;
        if epochs.finished && self.opts.verify {
            let Some(v) = &cfg.verify else {
                return Err(TexelError::Usage(format!(
                    "{}: --verify needs a `verify:` block",
                    cfg.path.display()
                )));
            };
            summary.verify = Some(verify_match(cfg, v, &tuned_path, dir, self.opts)?);
        }
        let json = serde_json::to_string_pretty(&summary).expect("summary serialises");
        write_atomic(&dir.join("summary.json"), json.as_bytes())?;
        Ok(summary)
    }
}

/// The match config of the `verify:` block: the tuned parameter file
/// `tuned` (first engine) against the starting weights, in-process.
pub fn verify_match_config(
    cfg: &TexelConfig,
    v: &super::config::RawVerify,
    tuned: &Path,
) -> Result<MatchConfig, ConfigError> {
    let engine = |name: &str, params_file: Option<&Path>| RawEngine {
        name: name.into(),
        kind: Some(RawKind::Inprocess),
        cmd: None,
        args: Vec::new(),
        dir: None,
        options: Default::default(),
        init_timeout_ms: None,
        params_file: params_file.map(|p| p.display().to_string()),
        params: None,
        time_control: None,
        restart: None,
    };
    let raw = RawConfig {
        name: Some(format!("{}-verify", cfg.name)),
        engines: vec![
            engine("tuned", Some(tuned)),
            engine("start", cfg.start.as_deref()),
        ],
        concurrency: v.concurrency,
        seed: Some(v.seed.unwrap_or(1)),
        time_control: v.time_control.clone(),
        openings: v.openings.clone(),
        adjudication: v.adjudication.clone(),
        sprt: Some(v.sprt.clone()),
        ..RawConfig::default()
    };
    MatchConfig::resolve(raw, &cfg.path, &Overrides::default())
}

/// The `verify:` SPRT match, written to `<run>/verify` (resumed if a
/// ledger is there). Kept in one function so it can move to the match
/// library API.
fn verify_match(
    cfg: &TexelConfig,
    v: &super::config::RawVerify,
    tuned: &Path,
    dir: &Path,
    opts: &TexelRunOptions,
) -> Result<Summary, TexelError> {
    let mc = verify_match_config(cfg, v, tuned)?;
    let out_dir = dir.join("verify");
    let resume = std::fs::metadata(out_dir.join("ledger.jsonl")).is_ok_and(|m| m.len() > 0);
    let ro = crate::run::RunOptions {
        out_dir,
        resume,
        quiet: opts.quiet,
        interrupt: opts.interrupt.clone(),
        ..Default::default()
    };
    Ok(run_match(&mc, &ro)?)
}

/// `report.md`: settings, losses and the largest weight changes.
fn report(
    cfg: &TexelConfig,
    s: &TexelSummary,
    start: &[f64],
    tuned: &[f64],
    rounded: &EvalWeights,
) -> String {
    let mut r = String::new();
    let _ = writeln!(r, "# Texel tuning run `{}`\n", cfg.name);
    let _ = writeln!(r, "| | |\n|---|---|");
    let _ = writeln!(r, "| dataset | `{}` |", cfg.dataset.display());
    let _ = writeln!(
        r,
        "| positions | {} training, {} validation ({:.1} bytes each) |",
        s.train_positions, s.valid_positions, s.bytes_per_position
    );
    let _ = writeln!(
        r,
        "| tuned scalars | {} of {} ({} selected ones fixed: in fewer than {} training positions) |",
        s.tuned_scalars,
        start.len(),
        s.rare_scalars,
        s.min_positions
    );
    let _ = writeln!(
        r,
        "| optimizer | {:?}, learning rate {}, L2 toward the start {} |",
        cfg.optimizer, cfg.learning_rate, cfg.regularization
    );
    let _ = writeln!(r, "| epochs | {} ({}) |", s.epochs, s.status);
    let _ = writeln!(r, "| K | {:.6} |", s.k);
    let _ = writeln!(
        r,
        "| train loss | {:.6} -> {:.6} (rounded weights {:.6}) |",
        s.start_train_loss, s.final_train_loss, s.rounded_train_loss
    );
    let _ = writeln!(
        r,
        "| validation loss | {:.6} -> {:.6} (rounded weights {:.6}) |",
        s.start_valid_loss, s.final_valid_loss, s.rounded_valid_loss
    );
    let _ = writeln!(
        r,
        "| speed | {:.2}M positions/s per epoch |\n",
        s.positions_per_second / 1e6
    );
    let specs = EvalWeights::specs();
    let flat = flat_f64(rounded);
    let mut changes: Vec<(usize, f64)> = (0..start.len())
        .map(|i| (i, flat[i] - start[i]))
        .filter(|&(_, d)| d != 0.0)
        .collect();
    changes.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
    let _ = writeln!(
        r,
        "## Largest changes ({} scalars changed)\n\n| weight | start | tuned | change |\n|---|---:|---:|---:|",
        changes.len()
    );
    for &(i, d) in changes.iter().take(40) {
        let _ = writeln!(
            r,
            "| `{}` | {} | {} ({:.2}) | {:+} |",
            specs[i].name, start[i], flat[i], tuned[i], d
        );
    }
    r
}

/// CPU seconds (user + system) this process has used, from
/// `/proc/self/stat` (Linux; `None` elsewhere). Lets a benchmark on a busy
/// machine report throughput per CPU second besides wall-clock throughput.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields of the whole line, in clock ticks (100 Hz).
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// What `karsinta tune texel --bench` measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    /// Positions in the timed epochs.
    pub positions: usize,
    /// Epochs timed.
    pub epochs: usize,
    /// Worker threads.
    pub threads: usize,
    /// Positions per wall-clock second per epoch.
    pub positions_per_second: f64,
    /// Positions per CPU second (all threads), when measurable.
    pub positions_per_cpu_second: Option<f64>,
    /// Dataset file size over positions.
    pub bytes_per_position: f64,
}

/// `karsinta tune texel --bench`: timed gradient epochs over exactly
/// `min_positions` positions of the dataset (replicated if it holds fewer).
pub fn bench(
    dataset: &Path,
    min_positions: usize,
    epochs: usize,
    threads: usize,
) -> Result<BenchResult, TexelError> {
    let data = Dataset::load(dataset, 0.0, 1)?;
    let mut p = data.train;
    let base = p.clone();
    while p.len() < min_positions {
        let offset = p.coefs.len() as u64;
        p.coefs.extend_from_slice(&base.coefs);
        p.meta.extend(base.meta.iter().map(|m| {
            let mut m = *m;
            m.start += offset;
            m
        }));
    }
    p.meta.truncate(min_positions);
    let w = flat_f64(&EvalWeights::default());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TexelError::Usage(e.to_string()))?;
    let (secs, cpu) = pool.install(|| {
        let _ = loss_and_gradient(&p, &w, 0.005); // warm-up
        let cpu0 = process_cpu_seconds();
        let t = Instant::now();
        for _ in 0..epochs {
            std::hint::black_box(loss_and_gradient(&p, &w, 0.005));
        }
        let cpu = cpu0.zip(process_cpu_seconds()).map(|(a, b)| b - a);
        (t.elapsed().as_secs_f64(), cpu)
    });
    let work = p.len() as f64 * epochs as f64;
    Ok(BenchResult {
        positions: p.len(),
        epochs,
        threads,
        positions_per_second: work / secs,
        positions_per_cpu_second: cpu.filter(|&c| c > 0.0).map(|c| work / c),
        bytes_per_position: data.bytes_per_position,
    })
}

/// Positions of a dataset, for tests and tools.
pub fn load_all(dataset: &Path) -> Result<Positions, TexelError> {
    Ok(Dataset::load(dataset, 0.0, 1)?.train)
}
