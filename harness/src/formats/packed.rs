//! Files as they are stored: plain, gzip-compressed or a zip archive of one
//! file, told apart by their first bytes (gzip `1f 8b`, zip `PK\x03\x04`)
//! rather than by their names, so a renamed file still reads. Opening books
//! ship zipped (the Stockfish books) or gzipped; both are unpacked in memory
//! with `flate2` and `zip`. Errors name the file and, in a zip, the member.

use std::borrow::Cow;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// How a file's bytes are packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// The text itself.
    Plain,
    /// gzip (one or more members, read as one stream, as `gzip -d` does).
    Gzip,
    /// A zip archive holding one file.
    Zip,
}

impl Packing {
    /// The packing of `data`, from its first bytes.
    pub fn of(data: &[u8]) -> Packing {
        if data.starts_with(&[0x1f, 0x8b]) {
            Packing::Gzip
        } else if data.starts_with(b"PK\x03\x04") || data.starts_with(b"PK\x05\x06") {
            // `PK\x05\x06`: an empty archive (only its end record).
            Packing::Zip
        } else {
            Packing::Plain
        }
    }
}

/// A file's text, unpacked.
#[derive(Clone, Debug)]
pub struct Unpacked<'a> {
    /// The text (borrowed when the file was plain).
    pub data: Cow<'a, [u8]>,
    /// The name to show in errors and to read the text's format from:
    /// `book.zip/book.epd` for a zip member, else the file itself.
    pub name: PathBuf,
}

/// Why a packed file cannot be unpacked.
#[derive(Debug, Error)]
pub enum PackError {
    /// The gzip stream is broken or cut short.
    #[error("{}: not a readable gzip file: {error}", path.display())]
    Gzip {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        error: std::io::Error,
    },
    /// The archive's directory cannot be read.
    #[error("{}: not a readable zip archive: {error}", path.display())]
    Zip {
        /// The file.
        path: PathBuf,
        /// What the zip reader said.
        error: String,
    },
    /// Not exactly one file in the archive.
    #[error(
        "{}: a zip archive of {} files ({}); expected exactly one",
        path.display(), members.len(), members.join(", ")
    )]
    Members {
        /// The file.
        path: PathBuf,
        /// The files in the archive (directories left out).
        members: Vec<String>,
    },
    /// The one member cannot be extracted (unsupported method, damaged data).
    #[error("{}: member {member}: {error}", path.display())]
    Member {
        /// The file.
        path: PathBuf,
        /// The member's name.
        member: String,
        /// What the zip reader said.
        error: String,
    },
}

/// Unpack `data`, the bytes of the file at `path` (only used in names).
pub fn unpack<'a>(data: &'a [u8], path: &Path) -> Result<Unpacked<'a>, PackError> {
    match Packing::of(data) {
        Packing::Plain => Ok(Unpacked {
            data: Cow::Borrowed(data),
            name: path.to_path_buf(),
        }),
        Packing::Gzip => {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(data)
                .read_to_end(&mut out)
                .map_err(|error| PackError::Gzip {
                    path: path.to_path_buf(),
                    error,
                })?;
            Ok(Unpacked {
                data: Cow::Owned(out),
                name: path.to_path_buf(),
            })
        }
        Packing::Zip => unzip_one(data, path),
    }
}

/// The name [`unpack`] would give the file at `path` when it is a zip
/// archive of one file (`book.zip/member.epd`), read from the archive's
/// directory alone; `None` for any other file, or one that cannot be read.
pub fn member_name(path: &Path) -> Option<PathBuf> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut magic = [0; 4];
    file.read_exact(&mut magic).ok()?;
    if Packing::of(&magic) != Packing::Zip {
        return None;
    }
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).ok()?;
    let mut files = (0..archive.len()).filter_map(|i| {
        let entry = archive.by_index_raw(i).ok()?;
        (!entry.is_dir()).then(|| String::from_utf8_lossy(entry.name_raw()).into_owned())
    });
    match (files.next(), files.next()) {
        (Some(name), None) => Some(path.join(name)),
        _ => None,
    }
}

/// The one file of a zip archive.
fn unzip_one<'a>(data: &[u8], path: &Path) -> Result<Unpacked<'a>, PackError> {
    let zip_error = |e: zip::result::ZipError| PackError::Zip {
        path: path.to_path_buf(),
        error: e.to_string(),
    };
    let mut archive = zip::ZipArchive::new(Cursor::new(data)).map_err(zip_error)?;
    let mut files = Vec::new();
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(zip_error)?;
        if !entry.is_dir() {
            files.push((i, String::from_utf8_lossy(entry.name_raw()).into_owned()));
        }
    }
    let [(index, member)] = files.as_slice() else {
        return Err(PackError::Members {
            path: path.to_path_buf(),
            members: files.into_iter().map(|(_, name)| name).collect(),
        });
    };
    let member_error = |error: String| PackError::Member {
        path: path.to_path_buf(),
        member: member.clone(),
        error,
    };
    let mut file = archive
        .by_index(*index)
        .map_err(|e| member_error(e.to_string()))?;
    let mut out = Vec::with_capacity(usize::try_from(file.size()).unwrap_or(0).min(1 << 30));
    file.read_to_end(&mut out)
        .map_err(|e| member_error(e.to_string()))?;
    Ok(Unpacked {
        data: Cow::Owned(out),
        name: path.join(member),
    })
}

#[cfg(test)]
mod tests {
    use karsinta_test_support::packed::{gzip, zip_of};

    use super::*;

    #[test]
    fn plain_gzip_and_zip_unpack_to_the_same_text() {
        let text = b"8/8/4k3/8/8/4K3/4P3/8 w - - 0 1\n";
        let plain = unpack(text, Path::new("a.epd")).unwrap();
        assert!(matches!(plain.data, Cow::Borrowed(_)));
        assert_eq!(plain.name, Path::new("a.epd"));
        let gz = gzip(text);
        let got = unpack(&gz, Path::new("d/a.epd.gz")).unwrap();
        assert_eq!(
            (&got.data[..], got.name.as_path()),
            (&text[..], Path::new("d/a.epd.gz"))
        );
        let zip = zip_of(&[("inner.epd", text)]);
        let got = unpack(&zip, Path::new("b.zip")).unwrap();
        assert_eq!(
            (&got.data[..], got.name.as_path()),
            (&text[..], Path::new("b.zip/inner.epd"))
        );
        // Told by bytes, not names.
        assert_eq!(&unpack(&gz, Path::new("x.epd")).unwrap().data[..], text);
    }

    #[test]
    fn bad_archives_name_the_file_and_member() {
        let zip = zip_of(&[("a.epd", b"x"), ("b.epd", b"y")]);
        let e = unpack(&zip, Path::new("two.zip")).unwrap_err().to_string();
        assert_eq!(
            e,
            "two.zip: a zip archive of 2 files (a.epd, b.epd); expected exactly one"
        );
        let mut gz = gzip(b"some text that compresses");
        gz.truncate(gz.len() - 6);
        let e = unpack(&gz, Path::new("cut.gz")).unwrap_err().to_string();
        assert!(e.starts_with("cut.gz: not a readable gzip file"), "{e}");
        // Text that does not compress away, so that its data is long.
        let mut x = 1u32;
        let noise: Vec<u8> = (0..4000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                b'a' + (x >> 24) as u8 % 26
            })
            .collect();
        let mut zip = zip_of(&[("m.epd", &noise)]);
        // Damage the member's data (past its 30-byte header and name), not
        // the directory at the end.
        for b in &mut zip[100..120] {
            *b ^= 0x5a;
        }
        let e = unpack(&zip, Path::new("bad.zip")).unwrap_err().to_string();
        assert!(e.starts_with("bad.zip: member m.epd: "), "{e}");
        let e = unpack(b"PK\x03\x04junk", Path::new("j.zip"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("j.zip: not a readable zip archive"), "{e}");
    }
}
