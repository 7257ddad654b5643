//! `karsinta datagen convert`: training data from one format to another.
//! Positions convert freely between bulletformat and text; viriformat games
//! convert to either (every position of the game) and to viriformat; a
//! position format cannot become viriformat, which needs the moves.

use std::io::Write;
use std::path::Path;

use super::run::DatagenError;
use crate::formats::records::{RecordError, RecordFormat};
use crate::formats::training::decode_records;
use crate::formats::{bullet, text, viri};

/// What a conversion did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Converted {
    pub records: u64,
    pub bytes: u64,
}

/// A conversion that cannot be done.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error(transparent)]
    Read(#[from] RecordError),
    #[error(transparent)]
    Write(#[from] DatagenError),
    #[error("{from} holds positions without their moves; {to} needs whole games")]
    CannotHold {
        from: RecordFormat,
        to: RecordFormat,
    },
}

/// The bytes of `data` (in `from`) re-encoded in `to`; the record count.
pub fn convert_bytes(
    data: &[u8],
    from: RecordFormat,
    to: RecordFormat,
) -> Result<(Vec<u8>, u64), (Option<crate::formats::records::DecodeError>, String)> {
    let mut out = Vec::new();
    let mut records = 0u64;
    let mut encode_error = None;
    let decoded = if to == RecordFormat::Viriformat {
        if from != RecordFormat::Viriformat {
            return Err((None, String::new()));
        }
        viri::decode_all(data, &mut |game| match viri::encode(&game) {
            Ok(bytes) => {
                records += game.plies.len() as u64;
                out.extend_from_slice(&bytes);
            }
            Err(e) => encode_error = encode_error.take().or(Some(e)),
        })
    } else {
        decode_records(data, from, &mut |r| {
            records += 1;
            match to {
                RecordFormat::Bullet => out.extend_from_slice(&bullet::encode(&r)),
                _ => {
                    out.extend_from_slice(text::encode(&r).as_bytes());
                    out.push(b'\n');
                }
            }
        })
    };
    decoded.map_err(|e| (Some(e), String::new()))?;
    if let Some(e) = encode_error {
        return Err((None, e));
    }
    Ok((out, records))
}

/// Convert the file `input` (`from`) into a new file `output` (`to`).
pub fn convert(
    input: &Path,
    from: RecordFormat,
    output: &Path,
    to: RecordFormat,
) -> Result<Converted, ConvertError> {
    let data = std::fs::read(input).map_err(|source| RecordError::Io {
        path: input.to_path_buf(),
        source,
    })?;
    let (bytes, records) = match convert_bytes(&data, from, to) {
        Ok(x) => x,
        Err((Some(e), _)) => return Err(e.at(input, from).into()),
        Err((None, msg)) if msg.is_empty() => return Err(ConvertError::CannotHold { from, to }),
        Err((None, msg)) => {
            return Err(DatagenError::Folder {
                path: output.to_path_buf(),
                message: msg,
            }
            .into())
        }
    };
    let io = |source| DatagenError::Io {
        path: output.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::create(output).map_err(io)?;
    f.write_all(&bytes).map_err(io)?;
    Ok(Converted {
        records,
        bytes: bytes.len() as u64,
    })
}
