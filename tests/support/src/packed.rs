//! Compressed opening files made in a test: what the suites ship as.

use std::io::{Cursor, Write};

/// `text` gzipped.
pub fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// A zip archive of `members` (name, contents), deflated.
pub fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in members {
        w.start_file(*name, options).unwrap();
        w.write_all(text).unwrap();
    }
    w.finish().unwrap().into_inner()
}
