//! EPD, the one reader: one position per line, a FEN's four position
//! fields, optionally its two move counters, then `opcode operand ...;`
//! operations (`bm`, `am`, `id`, `c0`, `hmvc`, `fmvn`, ...). Opening books
//! ([`crate::openings`]) and test suites ([`crate::play::suite`]) both read
//! through it and give the operations their meaning.
//!
//! Reading is strict: the position must be legal standard chess (checked by
//! [`super::fen::parse_position`]), a FEN has either no move counters or
//! two, operations are split at `;` outside quoted strings, an opcode is a
//! letter then letters, digits or `_`, an opcode appears once per line, a
//! string must close, and `hmvc`/`fmvn` must be numbers. Empty lines and
//! lines starting with `#` are skipped; a byte-order mark and CRLF line ends
//! are tolerated. Each error names the file and the 1-based line.
//! [`epd_line`] writes a position the way fastchess's `-epdout` does.

use std::path::{Path, PathBuf};

use shakmaty::{Chess, Position};
use thiserror::Error;

use super::fen::position_fen;
use crate::variant::{parse_position, Variant};

/// `pos` as fastchess's `-epdout` writes a game's final position: the FEN's
/// four position fields, then `hmvc N; fmvn N;` (the move counters as
/// operations). Chess960 castling rights are X-FEN, as in the PGN.
pub fn epd_line(pos: &Chess) -> String {
    let fen = position_fen(pos);
    let fields: Vec<&str> = fen.split(' ').take(4).collect();
    format!(
        "{} hmvc {}; fmvn {};",
        fields.join(" "),
        pos.halfmoves(),
        pos.fullmoves()
    )
}

/// An EPD operation: opcode and operands (quotes removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The opcode (`bm`, `id`, `c0`, ...).
    pub opcode: String,
    /// Its operands, in order.
    pub operands: Vec<String>,
}

/// One position line of an EPD file.
#[derive(Clone, Debug)]
pub struct EpdEntry {
    /// 1-based line in the file.
    pub line: usize,
    /// The checked position.
    pub position: Chess,
    /// Full 6-field FEN in canonical form (counters from the line, from
    /// `hmvc`/`fmvn`, or `0 1`).
    pub fen: String,
    /// The operations in line order, each opcode at most once.
    pub operations: Vec<Operation>,
}

impl EpdEntry {
    /// The operation named `opcode`, if the line has it.
    pub fn operation(&self, opcode: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.opcode == opcode)
    }
}

/// A line that is not a valid EPD position.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{}:{line}: {reason}", path.display())]
pub struct EpdError {
    /// The EPD file.
    pub path: PathBuf,
    /// 1-based line in the file.
    pub line: usize,
    /// What is wrong with the line.
    pub reason: String,
}

/// Every position line of `data` in file order, each parsed or refused;
/// `path` only names the file in errors.
pub fn read_epd<'a>(
    data: &'a [u8],
    path: &'a Path,
) -> impl Iterator<Item = Result<EpdEntry, EpdError>> + 'a {
    read_epd_in(data, path, Variant::Standard)
}

/// [`read_epd`] with positions read as `variant` (Chess960: X-FEN and
/// Shredder-FEN castling rights).
pub fn read_epd_in<'a>(
    data: &'a [u8],
    path: &'a Path,
    variant: Variant,
) -> impl Iterator<Item = Result<EpdEntry, EpdError>> + 'a {
    data.split(|&b| b == b'\n')
        .enumerate()
        .filter_map(move |(index, line)| {
            let line_no = index + 1;
            let text = String::from_utf8_lossy(line);
            let text = text.trim_start_matches('\u{feff}').trim();
            if text.is_empty() || text.starts_with('#') {
                return None;
            }
            Some(
                parse_entry_in(text, variant)
                    .map(|(position, operations)| EpdEntry {
                        line: line_no,
                        fen: position_fen(&position),
                        position,
                        operations,
                    })
                    .map_err(|reason| EpdError {
                        path: path.to_path_buf(),
                        line: line_no,
                        reason,
                    }),
            )
        })
}

/// One non-empty, non-comment line (already trimmed) to its position and
/// operations.
pub fn parse_entry(line: &str) -> Result<(Chess, Vec<Operation>), String> {
    parse_entry_in(line, Variant::Standard)
}

/// [`parse_entry`] with the position read as `variant`.
pub fn parse_entry_in(line: &str, variant: Variant) -> Result<(Chess, Vec<Operation>), String> {
    // The four position fields, then (optionally) two FEN move counters.
    let mut rest = line;
    let mut fields = Vec::with_capacity(6);
    while fields.len() < 6 {
        let trimmed = rest.trim_start();
        let Some(word) = trimmed.split_whitespace().next() else {
            break;
        };
        if fields.len() >= 4 && !is_number(word) {
            break;
        }
        fields.push(word);
        rest = &trimmed[word.len()..];
    }
    if fields.len() < 4 {
        return Err(format!(
            "expected a FEN with at least 4 fields, found '{line}'"
        ));
    }
    if fields.len() == 5 {
        return Err(format!(
            "'{}' after the position: a FEN has either no move counters or two",
            fields[4]
        ));
    }
    let ops = parse_operations(rest)?;
    for (i, op) in ops.iter().enumerate() {
        if ops[..i].iter().any(|o| o.opcode == op.opcode) {
            return Err(format!("operation '{}' appears twice", op.opcode));
        }
    }
    let counter = |name: &str, default: &str| -> Result<String, String> {
        match ops.iter().find(|o| o.opcode == name) {
            None => Ok(default.to_string()),
            Some(o) => match o.operands.as_slice() {
                [n] if is_number(n) => Ok(n.clone()),
                _ => Err(format!(
                    "{name}: expected one number, found '{}'",
                    o.operands.join(" ")
                )),
            },
        }
    };
    let (half, full) = if fields.len() == 6 {
        (fields[4].to_string(), fields[5].to_string())
    } else {
        (counter("hmvc", "0")?, counter("fmvn", "1")?)
    };
    let fen = format!("{} {half} {full}", fields[..4].join(" "));
    Ok((parse_position(&fen, variant)?, ops))
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Split the text after the position fields into operations. Each is an
/// opcode (a letter, then letters, digits or `_`), operands separated by
/// spaces, and `;`. A quoted operand runs to the next `"` and may hold
/// spaces and `;`. The last `;` of a line may be missing (a common
/// hand-edit), an unterminated string may not.
pub fn parse_operations(text: &str) -> Result<Vec<Operation>, String> {
    let mut ops = Vec::new();
    let mut chars = text.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            return Ok(ops);
        };
        let mut end = start;
        while let Some((i, c)) = chars.next_if(|(_, c)| !c.is_whitespace() && *c != ';') {
            end = i + c.len_utf8();
        }
        let opcode = &text[start..end];
        let valid = opcode
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && opcode
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(if opcode.is_empty() {
                "empty operation (a stray ';')".to_string()
            } else {
                format!("'{opcode}' is not an EPD opcode")
            });
        }
        let mut operands = Vec::new();
        loop {
            while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
            match chars.peek().copied() {
                None => break,
                Some((_, ';')) => {
                    chars.next();
                    break;
                }
                Some((q, '"')) => {
                    chars.next();
                    let close = text[q + 1..]
                        .find('"')
                        .ok_or_else(|| format!("{opcode}: unterminated string {}", &text[q..]))?;
                    operands.push(text[q + 1..q + 1 + close].to_string());
                    while chars.next_if(|&(i, _)| i <= q + 1 + close).is_some() {}
                }
                Some((s, _)) => {
                    let mut e = s;
                    while let Some((i, c)) =
                        chars.next_if(|(_, c)| !c.is_whitespace() && *c != ';' && *c != '"')
                    {
                        e = i + c.len_utf8();
                    }
                    operands.push(text[s..e].to_string());
                }
            }
        }
        ops.push(Operation {
            opcode: opcode.to_string(),
            operands,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fastchess's form, read back by the one reader.
    #[test]
    fn epd_lines_as_fastchess_writes_them() {
        let pos = parse_position(
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 4 31",
            Variant::Standard,
        )
        .unwrap();
        let line = epd_line(&pos);
        assert_eq!(
            line,
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 hmvc 4; fmvn 31;"
        );
        let (back, ops) = parse_entry(&line).unwrap();
        assert_eq!(position_fen(&back), position_fen(&pos));
        assert_eq!(ops.len(), 2);
    }

    #[test]
    fn operations_split_at_semicolons_outside_strings() {
        let ops = parse_operations(r#" bm Qg6 Qh5+; id "A; B"; c0 "x y" z;hmvc 3"#).unwrap();
        let flat: Vec<(&str, Vec<&str>)> = ops
            .iter()
            .map(|o| {
                (
                    o.opcode.as_str(),
                    o.operands.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            flat,
            vec![
                ("bm", vec!["Qg6", "Qh5+"]),
                ("id", vec!["A; B"]),
                ("c0", vec!["x y", "z"]),
                ("hmvc", vec!["3"]),
            ]
        );
        assert!(parse_operations(r#"id "open"#).is_err());
        assert!(parse_operations("bm e4;; id x;").is_err());
        assert!(parse_operations("1bm e4;").is_err());
    }

    #[test]
    fn lines_are_numbered_from_one_and_errors_name_file_and_line() {
        let text = "# c\n\n8/8/4k3/8/8/4K3/4P3/8 w - - 12 40 id \"a\";\r\n\
                    8/8/4k3/8/8/4K3/4P3/8 w - - 12 bm e4;\n\
                    8/8/4k3/8/8/4K3/4P3/8 b - - hmvc x;\n\
                    8/8/4k3/8/8/4K3/4P3/8 b - - id a; id b;\n";
        let got: Vec<_> = read_epd(text.as_bytes(), Path::new("d/x.epd")).collect();
        assert_eq!(got.len(), 4);
        let first = got[0].as_ref().unwrap();
        assert_eq!(first.line, 3);
        assert_eq!(first.fen, "8/8/4k3/8/8/4K3/4P3/8 w - - 12 40");
        assert_eq!(first.operation("id").unwrap().operands, ["a"]);
        let errors: Vec<String> = got[1..]
            .iter()
            .map(|r| r.as_ref().unwrap_err().to_string())
            .collect();
        assert!(
            errors[0].starts_with("d/x.epd:4: '12' after the position"),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("d/x.epd:5: hmvc: expected one number"),
            "{errors:?}"
        );
        assert!(
            errors[2].starts_with("d/x.epd:6: operation 'id' appears twice"),
            "{errors:?}"
        );
    }
}
