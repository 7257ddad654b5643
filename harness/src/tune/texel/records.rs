//! `karsinta tune texel-data --format F`: a Texel dataset from training
//! records (datagen's bulletformat, text or viriformat files) instead of
//! PGN. Each record's position is resolved to its quiet leaf and traced as
//! the PGN path does; the label is the game's result, blended with the
//! record's search score by `lambda`, or the tablebases' result where
//! `--syzygy` tables know the position. A bad or truncated file is refused
//! whole, at its byte offset.
//!
//! The resolve, trace, dedup and write steps are those of
//! [`super::extract`](mod@super::extract) (`resolve_leaf`, `keep`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use karsinta_engine::search::Searcher;
use rayon::prelude::*;

use super::dataset::DatasetWriter;
use super::extract::{
    keep, resolve_leaf, white_score, ExtractError, ExtractOptions, ExtractReport,
};
use crate::formats::records::{Record, RecordFormat, MATE_SCORE};
use crate::formats::training::read_records;

/// The label of a record: its result, blended with its score by `lambda`.
fn label(r: &Record, lambda: f64) -> f32 {
    let result = r.result.white_score();
    if lambda <= 0.0 || r.score_white.abs() >= MATE_SCORE {
        return result;
    }
    let p = 1.0 / (1.0 + 10f64.powf(-f64::from(r.score_white) / 400.0));
    ((1.0 - lambda) * f64::from(result) + lambda * p) as f32
}

/// Read the record files `files` (all in `format`), write the dataset to `out`.
pub fn extract_records(
    files: &[PathBuf],
    format: RecordFormat,
    out: &Path,
    opts: &ExtractOptions,
) -> Result<ExtractReport, RecordsError> {
    let mut report = ExtractReport::default();
    let mut writer = DatasetWriter::create(out).map_err(ExtractError::from)?;
    let mut seen = HashSet::new();
    for path in files {
        let records = read_records(path, format)?;
        report.positions_sampled += records.len() as u64;
        // The tables' result, where they know the position, replaces the game's.
        let labels: Vec<f32> = records
            .iter()
            .map(
                |r| match opts.tablebases.as_ref().and_then(|t| t.result(&r.pos)) {
                    Some(outcome) => {
                        report.tablebase_labels += 1;
                        white_score(outcome)
                    }
                    None => label(r, opts.lambda),
                },
            )
            .collect();
        let resolved: Vec<_> = records
            .par_iter()
            .zip(labels)
            .map_init(
                || Searcher::with_hash_mb(opts.params.clone(), 1),
                |s, (r, label)| resolve_leaf(s, &r.pos, label, opts),
            )
            .collect();
        if keep(resolved, opts, &mut seen, &mut writer, &mut report)? {
            break;
        }
    }
    if report.positions_kept == 0 {
        return Err(ExtractError::Empty(0).into());
    }
    report.file_bytes = writer.finish().map_err(ExtractError::from)?;
    report.bytes_per_position = report.file_bytes as f64 / report.positions_kept as f64;
    Ok(report)
}

/// Why a dataset from records was not written.
#[derive(Debug, thiserror::Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum RecordsError {
    /// A records file cannot be read or decoded.
    #[error(transparent)]
    Read(#[from] crate::formats::records::RecordError),
    /// The dataset cannot be written.
    #[error(transparent)]
    Write(#[from] ExtractError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::records::Wdl;

    #[test]
    fn records_become_a_dataset_and_bad_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let txt = tmp.path().join("d.txt");
        std::fs::write(
            &txt,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 30 | 1.0\n\
             r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2 | 25 | 0.5\n",
        )
        .unwrap();
        let out = tmp.path().join("d.bin");
        let opts = ExtractOptions::default();
        let rep =
            extract_records(std::slice::from_ref(&txt), RecordFormat::Text, &out, &opts).unwrap();
        assert_eq!((rep.positions_sampled, rep.positions_kept), (2, 2));
        let ds = super::super::Dataset::load(&out, 0.0, 1).unwrap();
        let labels: Vec<f32> = ds.train.meta.iter().map(|m| m.label).collect();
        assert_eq!(labels, vec![1.0, 0.5]);
        let one = Record {
            pos: shakmaty::Chess::default(),
            score_white: 10,
            result: Wdl::WhiteWins,
        };
        let mut bytes = crate::formats::bullet::encode(&one).to_vec();
        bytes.extend_from_slice(&[0; 8]);
        std::fs::write(&txt, bytes).unwrap();
        let err = extract_records(&[txt], RecordFormat::Bullet, &out, &opts).unwrap_err();
        assert!(err.to_string().contains("at byte 32"), "{err}");
        let r = Record {
            pos: shakmaty::Chess::default(),
            score_white: 400,
            result: Wdl::Draw,
        };
        assert!((label(&r, 0.5) - (0.25 + 0.5 * 10.0 / 11.0) as f32).abs() < 1e-6);
    }
}
