//! One reader for every training-data format: [`read_records`] and
//! [`decode_records`] refuse a bad or truncated file at the byte offset
//! where it goes wrong, with the format they expected.

use std::path::Path;

use super::records::{DecodeError, Record, RecordError, RecordFormat};

/// Decode `data` of `format`, calling `each` per record in file order.
pub fn decode_records(
    data: &[u8],
    format: RecordFormat,
    each: &mut dyn FnMut(Record),
) -> Result<(), DecodeError> {
    match format {
        RecordFormat::Bullet => super::bullet::decode_all(data, each),
        RecordFormat::Text => super::text::decode_all(data, each),
        RecordFormat::Marlinformat => super::marlin::decode_all(data, each),
        RecordFormat::Viriformat => super::viri::decode_all(data, &mut |game| {
            for r in game.records() {
                each(r);
            }
        }),
    }
}

/// Append `rec` to `out` in a position format; viriformat, which keeps
/// whole games, cannot take a lone position.
pub fn encode_record(format: RecordFormat, rec: &Record, out: &mut Vec<u8>) -> Result<(), String> {
    match format {
        RecordFormat::Bullet => out.extend_from_slice(&super::bullet::encode(rec)),
        RecordFormat::Marlinformat => out.extend_from_slice(&super::marlin::encode(rec)),
        RecordFormat::Text => {
            out.extend_from_slice(super::text::encode(rec).as_bytes());
            out.push(b'\n');
        }
        RecordFormat::Viriformat => {
            return Err("viriformat holds whole games, not lone positions".to_string())
        }
    }
    Ok(())
}

/// Every record of the file at `path`.
pub fn read_records(path: &Path, format: RecordFormat) -> Result<Vec<Record>, RecordError> {
    let data = std::fs::read(path).map_err(|source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    decode_records(&data, format, &mut |r| out.push(r)).map_err(|e| e.at(path, format))?;
    Ok(out)
}
