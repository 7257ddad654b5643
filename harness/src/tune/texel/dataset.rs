//! The Texel dataset: labelled positions as sparse evaluation traces, in
//! memory ([`Positions`]: one flat coefficient array, CSR-like, no
//! per-position allocation) and on disk (a compact little-endian binary
//! file, written by [`DatasetWriter`], read by [`Dataset::load`]).
//!
//! File layout: magic `KTXLDATA`, format version (u32), the engine's weight
//! layout id (u16 length + bytes, [`EvalWeights::layout_id`]), position
//! count and coefficient count (u64 each), then per position a 13-byte
//! record (phase u8, endgame scale if White / Black ahead u8 u8, flags u8
//! with bit 0 = White to move, label f32, linear count u16, White and Black
//! king-danger counts u8 u8, winnability count u8) followed by its
//! coefficients as (u16 pair index, i16 coefficient) pairs: linear terms,
//! then the White king's danger terms, then the Black king's, then the
//! winnability terms. A dataset written under another
//! weight layout is refused: its indices would name other weights.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use karsinta_engine::eval::weights::{EvalWeights, NUM_WEIGHTS};
use karsinta_engine::eval::{Trace, TraceView};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

const MAGIC: &[u8; 8] = b"KTXLDATA";
/// Version 2 added the winnability terms.
const FORMAT_VERSION: u32 = 2;
/// Bytes of a position record before its coefficients.
pub const RECORD_BYTES: usize = 13;
/// Bytes per stored coefficient.
pub const COEF_BYTES: usize = 4;

/// A dataset file that cannot be used; each names the file.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum DatasetError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a Karsinta Texel dataset (bad magic)")]
    NotADataset { path: PathBuf },
    #[error("{path}: dataset format version {found}, this build reads {FORMAT_VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error(
        "{path}: written for weight layout '{found}', this engine has '{expected}'; \
         regenerate it with `karsinta tune texel-data`"
    )]
    Layout {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("{path}: corrupt at position {index}: {reason}")]
    Corrupt {
        path: PathBuf,
        index: u64,
        reason: String,
    },
    #[error("{path}: holds no positions")]
    Empty { path: PathBuf },
}

/// Per-position data besides the coefficients (24 bytes in memory).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PosMeta {
    /// First coefficient in [`Positions::coefs`].
    pub start: u64,
    /// Linear coefficients, first in the position's run.
    pub n_linear: u16,
    /// King-danger coefficients of the White, resp. Black, king, after the linear ones.
    pub n_danger: [u8; 2],
    /// Winnability coefficients, last.
    pub n_winnable: u8,
    /// Game phase, 0 (pawn endgame) ..= 24 (all pieces on).
    pub phase: u8,
    /// Endgame scale out of 128 when White, resp. Black, is ahead.
    pub eg_scale: [u8; 2],
    /// The side to move (bit 0 of the record's flags).
    pub white_to_move: bool,
    /// Target in [0, 1] from White's view.
    pub label: f32,
}

/// Positions in CSR form: [`PosMeta`] per position, coefficients flat.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Positions {
    /// One entry per position, in file order.
    pub meta: Vec<PosMeta>,
    /// Every position's (weight pair index, coefficient) pairs, back to back.
    pub coefs: Vec<(u16, i16)>,
}

impl Positions {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.meta.len()
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// Append a traced position with its label.
    pub fn push_trace(&mut self, t: &Trace, label: f32) {
        self.push_view(&t.view(), t.white_to_move, label);
    }

    /// Append a position given as a view.
    pub fn push_view(&mut self, v: &TraceView<'_>, white_to_move: bool, label: f32) {
        let start = self.coefs.len() as u64;
        self.coefs.extend_from_slice(v.linear);
        self.coefs.extend_from_slice(v.danger[0]);
        self.coefs.extend_from_slice(v.danger[1]);
        self.coefs.extend_from_slice(v.winnable);
        self.meta.push(PosMeta {
            start,
            n_linear: v.linear.len() as u16,
            n_danger: [v.danger[0].len() as u8, v.danger[1].len() as u8],
            n_winnable: v.winnable.len() as u8,
            phase: v.phase as u8,
            eg_scale: [v.eg_scale[0] as u8, v.eg_scale[1] as u8],
            white_to_move,
            label,
        });
    }

    /// The view of position `i` (borrowing the flat array).
    #[inline]
    pub fn view(&self, i: usize) -> TraceView<'_> {
        view_of(&self.meta[i], &self.coefs)
    }
}

/// The view of one position in a flat coefficient array.
#[inline]
pub fn view_of<'a>(m: &PosMeta, coefs: &'a [(u16, i16)]) -> TraceView<'a> {
    let a = m.start as usize;
    let b = a + m.n_linear as usize;
    let c = b + m.n_danger[0] as usize;
    let d = c + m.n_danger[1] as usize;
    let e = d + m.n_winnable as usize;
    TraceView {
        linear: &coefs[a..b],
        danger: [&coefs[b..c], &coefs[c..d]],
        winnable: &coefs[d..e],
        phase: i32::from(m.phase),
        eg_scale: [i32::from(m.eg_scale[0]), i32::from(m.eg_scale[1])],
    }
}

/// Writes a dataset file: to `<path>.part` first, renamed into place by
/// [`DatasetWriter::finish`], so an interrupted run never leaves a file that
/// looks complete.
pub struct DatasetWriter {
    path: PathBuf,
    part: PathBuf,
    out: BufWriter<File>,
    counts_at: u64,
    positions: u64,
    coefs: u64,
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl DatasetWriter {
    /// Start writing the dataset `path` (as `path.part` until [`DatasetWriter::finish`]).
    pub fn create(path: &Path) -> Result<DatasetWriter, DatasetError> {
        let mut part = path.as_os_str().to_owned();
        part.push(".part");
        let part = PathBuf::from(part);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        }
        let file = File::create(&part).map_err(io_err(&part))?;
        let mut out = BufWriter::new(file);
        let layout = EvalWeights::layout_id().as_bytes();
        let mut head = Vec::new();
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        head.extend_from_slice(&(layout.len() as u16).to_le_bytes());
        head.extend_from_slice(layout);
        let counts_at = head.len() as u64;
        head.extend_from_slice(&[0; 16]);
        out.write_all(&head).map_err(io_err(&part))?;
        Ok(DatasetWriter {
            path: path.to_path_buf(),
            part,
            out,
            counts_at,
            positions: 0,
            coefs: 0,
        })
    }

    /// Append one position.
    pub fn push(
        &mut self,
        v: &TraceView<'_>,
        white_to_move: bool,
        label: f32,
    ) -> Result<(), DatasetError> {
        let mut rec = [0u8; RECORD_BYTES];
        rec[0] = v.phase as u8;
        rec[1] = v.eg_scale[0] as u8;
        rec[2] = v.eg_scale[1] as u8;
        rec[3] = u8::from(white_to_move);
        rec[4..8].copy_from_slice(&label.to_le_bytes());
        rec[8..10].copy_from_slice(&(v.linear.len() as u16).to_le_bytes());
        rec[10] = v.danger[0].len() as u8;
        rec[11] = v.danger[1].len() as u8;
        rec[12] = v.winnable.len() as u8;
        let part = self.part.clone();
        self.out.write_all(&rec).map_err(io_err(&part))?;
        for list in [v.linear, v.danger[0], v.danger[1], v.winnable] {
            for &(i, c) in list {
                let mut b = [0u8; COEF_BYTES];
                b[..2].copy_from_slice(&i.to_le_bytes());
                b[2..].copy_from_slice(&c.to_le_bytes());
                self.out.write_all(&b).map_err(io_err(&part))?;
            }
            self.coefs += list.len() as u64;
        }
        self.positions += 1;
        Ok(())
    }

    /// Positions written so far.
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// Write the counts and move the file into place; returns its size.
    pub fn finish(self) -> Result<u64, DatasetError> {
        let part = self.part.clone();
        let mut file = self
            .out
            .into_inner()
            .map_err(|e| io_err(&part)(e.into_error()))?;
        file.seek(SeekFrom::Start(self.counts_at))
            .map_err(io_err(&part))?;
        file.write_all(&self.positions.to_le_bytes())
            .map_err(io_err(&part))?;
        file.write_all(&self.coefs.to_le_bytes())
            .map_err(io_err(&part))?;
        file.sync_all().map_err(io_err(&part))?;
        let size = file.seek(SeekFrom::End(0)).map_err(io_err(&part))?;
        drop(file);
        std::fs::rename(&part, &self.path).map_err(io_err(&self.path))?;
        Ok(size)
    }
}

/// A loaded dataset, split into training and validation positions.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// The positions the weights are fitted on.
    pub train: Positions,
    /// The held-out positions of the validation loss.
    pub valid: Positions,
    /// File size over positions.
    pub bytes_per_position: f64,
}

impl Dataset {
    /// Load `path`, sending each position to the validation set with
    /// probability `valid_fraction` (drawn from `seed`, so the split is
    /// repeatable).
    pub fn load(path: &Path, valid_fraction: f64, seed: u64) -> Result<Dataset, DatasetError> {
        let file = File::open(path).map_err(io_err(path))?;
        let size = file.metadata().map_err(io_err(path))?.len();
        let mut r = BufReader::with_capacity(1 << 20, file);
        let mut magic = [0u8; 8];
        read_exact(&mut r, &mut magic, path)?;
        if &magic != MAGIC {
            return Err(DatasetError::NotADataset {
                path: path.to_path_buf(),
            });
        }
        let version = u32::from_le_bytes(read_array(&mut r, path)?);
        if version != FORMAT_VERSION {
            return Err(DatasetError::Version {
                path: path.to_path_buf(),
                found: version,
            });
        }
        let n = u16::from_le_bytes(read_array(&mut r, path)?) as usize;
        let mut layout = vec![0u8; n];
        read_exact(&mut r, &mut layout, path)?;
        let layout = String::from_utf8_lossy(&layout).into_owned();
        if layout != EvalWeights::layout_id() {
            return Err(DatasetError::Layout {
                path: path.to_path_buf(),
                found: layout,
                expected: EvalWeights::layout_id().to_string(),
            });
        }
        let positions = u64::from_le_bytes(read_array(&mut r, path)?);
        let coefs = u64::from_le_bytes(read_array(&mut r, path)?);
        if positions == 0 {
            return Err(DatasetError::Empty {
                path: path.to_path_buf(),
            });
        }
        let expected = 8 + 4 + 2 + n as u64 + 16 + positions * RECORD_BYTES as u64 + coefs * 4;
        if expected != size {
            return Err(DatasetError::Corrupt {
                path: path.to_path_buf(),
                index: 0,
                reason: format!("header promises {expected} bytes, the file has {size}"),
            });
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut ds = Dataset {
            bytes_per_position: size as f64 / positions as f64,
            ..Dataset::default()
        };
        let valid_share = (positions as f64 * valid_fraction).ceil() as usize;
        ds.valid.meta.reserve(valid_share);
        ds.train
            .meta
            .reserve(positions as usize - valid_share.min(positions as usize));
        ds.train.coefs.reserve(coefs as usize);
        let mut buf = Vec::new();
        for index in 0..positions {
            let rec: [u8; RECORD_BYTES] = read_array(&mut r, path)?;
            let corrupt = |reason: String| DatasetError::Corrupt {
                path: path.to_path_buf(),
                index,
                reason,
            };
            let label = f32::from_le_bytes([rec[4], rec[5], rec[6], rec[7]]);
            if !(0.0..=1.0).contains(&label) {
                return Err(corrupt(format!("label {label} outside [0, 1]")));
            }
            if rec[0] as i32 > karsinta_engine::eval::MAX_PHASE {
                return Err(corrupt(format!("phase {}", rec[0])));
            }
            let n_linear = u16::from_le_bytes([rec[8], rec[9]]);
            let total = n_linear as usize + rec[10] as usize + rec[11] as usize + rec[12] as usize;
            buf.resize(total * COEF_BYTES, 0);
            read_exact(&mut r, &mut buf, path)?;
            let to = if rng.gen::<f64>() < valid_fraction {
                &mut ds.valid
            } else {
                &mut ds.train
            };
            let start = to.coefs.len() as u64;
            for c in buf.chunks_exact(COEF_BYTES) {
                let i = u16::from_le_bytes([c[0], c[1]]);
                if i as usize >= NUM_WEIGHTS {
                    return Err(corrupt(format!("weight index {i} out of range")));
                }
                to.coefs.push((i, i16::from_le_bytes([c[2], c[3]])));
            }
            to.meta.push(PosMeta {
                start,
                n_linear,
                n_danger: [rec[10], rec[11]],
                n_winnable: rec[12],
                phase: rec[0],
                eg_scale: [rec[1], rec[2]],
                white_to_move: rec[3] & 1 != 0,
                label,
            });
        }
        Ok(ds)
    }
}

fn read_exact(r: &mut impl Read, buf: &mut [u8], path: &Path) -> Result<(), DatasetError> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            DatasetError::Corrupt {
                path: path.to_path_buf(),
                index: 0,
                reason: "file ends early (truncated)".into(),
            }
        } else {
            io_err(path)(e)
        }
    })
}

fn read_array<const N: usize>(r: &mut impl Read, path: &Path) -> Result<[u8; N], DatasetError> {
    let mut a = [0u8; N];
    read_exact(r, &mut a, path)?;
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use karsinta_engine::eval::trace;

    #[test]
    fn round_trip_and_layout_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.bin");
        let w = EvalWeights::default();
        let fens = [
            "r1b2rk1/pp3ppp/2n1p3/3p3q/3P2n1/2PBP3/PP3P2/R2Q1RK1 w - - 0 1",
            "8/5k2/3b2p1/1p1P4/1P3P2/3B2K1/8/8 b - - 0 1",
        ];
        let mut mem = Positions::default();
        let mut wr = DatasetWriter::create(&path).unwrap();
        for (i, f) in fens.iter().enumerate() {
            let t = trace(&f.parse().unwrap(), &w);
            wr.push(&t.view(), t.white_to_move, i as f32 * 0.5).unwrap();
            mem.push_trace(&t, i as f32 * 0.5);
        }
        assert!(!path.exists(), "only the .part file exists until finish");
        let size = wr.finish().unwrap();
        let ds = Dataset::load(&path, 0.0, 1).unwrap();
        assert_eq!(ds.train, mem);
        assert!(ds.valid.is_empty());
        assert_eq!(ds.bytes_per_position, size as f64 / 2.0);

        // Another weight layout is refused by name.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[14 + 9] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = Dataset::load(&path, 0.0, 1).unwrap_err().to_string();
        assert!(e.contains("weight layout") && e.contains("d.bin"), "{e}");
        // Truncated files and other files are refused, not panics.
        bytes[14 + 9] ^= 1;
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let e = Dataset::load(&path, 0.0, 1).unwrap_err().to_string();
        assert!(e.contains("bytes"), "{e}");
        std::fs::write(&path, b"[Event \"x\"]").unwrap();
        let e = Dataset::load(&path, 0.0, 1).unwrap_err().to_string();
        assert!(
            e.contains("not a Karsinta Texel dataset") || e.contains("truncated"),
            "{e}"
        );
    }
}
