//! Datagen end to end on small runs: the files read back by the format
//! crates' own readers, determinism across thread counts, resume after a
//! cut, and bad input refused at its byte offset.

use std::path::Path;

use bulletformat::{ChessBoard, DataLoader};

use super::config::{DatagenConfig, RawDatagenConfig};
use super::convert::{convert, ConvertError};
use super::run::data_file_name;
use crate::formats::bullet;
use crate::formats::records::{RecordError, RecordFormat};
use crate::formats::training::{decode_records, read_records};

fn config(dir: &Path, format: RecordFormat, threads: usize, games: u64) -> DatagenConfig {
    let yaml = format!(
        "games: {games}\nformat: {format}\nthreads: {threads}\nseed: 7\nhash_mb: 1\n\
         limit: {{ soft_nodes: 300, nodes: 3000 }}\n\
         start: {{ random_plies: 6, check_nodes: 200, max_score_cp: 300 }}\n\
         filter: {{ min_ply: 2 }}\nadjudication: {{ max_plies: 50 }}\n"
    );
    let raw: RawDatagenConfig = serde_yaml::from_str(&yaml).unwrap();
    DatagenConfig::resolve(raw, &dir.join("datagen.yaml")).unwrap()
}

/// Run `cfg` into `dir/name`; the data file's bytes.
fn generate(dir: &Path, name: &str, cfg: &DatagenConfig) -> Vec<u8> {
    let out = dir.join(name);
    super::create_run(cfg, &out).unwrap();
    let report = super::run(cfg, &out, &mut |_| {}).unwrap();
    let c = report.counts;
    assert_eq!(c.games + c.starts_failed + c.failed, cfg.games);
    assert_eq!(c.failed, 0);
    std::fs::read(out.join(data_file_name(cfg.format))).unwrap()
}

#[test]
fn files_read_back_by_the_crates_give_the_same_records() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let bin = generate(dir, "bullet", &config(dir, RecordFormat::Bullet, 2, 3));
    let txt = generate(dir, "text", &config(dir, RecordFormat::Text, 2, 3));
    assert!(bin.len() >= 32 * 20, "too few positions: {}", bin.len());
    assert_eq!(bin.len() % 32, 0);
    // bulletformat's loader on the binary file, its text parser on the text
    // file: the same games, so the same records.
    let mut loaded = Vec::new();
    DataLoader::<ChessBoard>::new(dir.join("bullet/data.bin"), 1)
        .unwrap()
        .map_positions(|cb| loaded.push(*cb));
    let text = String::from_utf8(txt.clone()).unwrap();
    let parsed: Vec<ChessBoard> = text.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(loaded, parsed);
    // Our readers agree with the crate on both files.
    let ours = read_records(&dir.join("bullet/data.bin"), RecordFormat::Bullet).unwrap();
    let ours: Vec<ChessBoard> = ours.iter().map(bullet::to_chessboard).collect();
    assert_eq!(ours, loaded);
    let ours_text = read_records(&dir.join("text/data.txt"), RecordFormat::Text).unwrap();
    let ours_text: Vec<ChessBoard> = ours_text.iter().map(bullet::to_chessboard).collect();
    assert_eq!(ours_text, loaded);
}

#[test]
fn viriformat_games_read_back_by_the_crate() {
    use std::io::{BufRead, BufReader};
    use viriformat::dataformat::Game;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let cfg = config(dir, RecordFormat::Viriformat, 1, 3);
    let vf = generate(dir, "viri", &cfg);
    let mut reader = BufReader::new(&vf[..]);
    let mut from_crate = Vec::new();
    let mut games = 0;
    while !reader.fill_buf().unwrap().is_empty() {
        let game = Game::deserialise_from(&mut reader, Vec::new()).unwrap();
        games += 1;
        let wdl = game.initial_position.unpack().2;
        game.visit_positions(|board, eval| {
            from_crate.push(board.to_bulletformat(wdl, eval as i16).unwrap());
        });
    }
    let ours = read_records(&dir.join("viri/data.vf"), RecordFormat::Viriformat).unwrap();
    let ours: Vec<ChessBoard> = ours.iter().map(bullet::to_chessboard).collect();
    assert_eq!(games, 3);
    assert!(!ours.is_empty());
    assert_eq!(ours, from_crate);
}

#[test]
fn same_files_for_any_thread_count_and_after_a_cut_and_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let one = generate(dir, "one", &config(dir, RecordFormat::Bullet, 1, 4));
    let two = generate(dir, "two", &config(dir, RecordFormat::Bullet, 2, 4));
    assert_eq!(one, two);
    // A kill after game 3's records were written but before its ledger line
    // was complete: half a ledger line and stray record bytes.
    let run = dir.join("two");
    let ledger = std::fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    let lines: Vec<&str> = ledger.lines().collect();
    assert_eq!(lines.len(), 4);
    let cut = format!(
        "{}\n{}\n{}",
        lines[0],
        lines[1],
        &lines[2][..lines[2].len() / 2]
    );
    std::fs::write(run.join("ledger.jsonl"), cut).unwrap();
    let mut data = std::fs::read(run.join("data.bin")).unwrap();
    data.extend_from_slice(&[0xAB; 45]);
    std::fs::write(run.join("data.bin"), data).unwrap();
    let cfg = super::resume_config(&run).unwrap();
    let report = super::run(&cfg, &run, &mut |_| {}).unwrap();
    assert_eq!(report.counts.games + report.counts.starts_failed, 4);
    assert_eq!(std::fs::read(run.join("data.bin")).unwrap(), one);
    let again = std::fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    assert_eq!(again, ledger);
    // Counts per filter add up to the positions searched.
    let c = report.counts;
    assert_eq!(
        c.written + c.ply_range + c.in_check + c.tactical + c.mate + c.duplicates,
        c.positions
    );
    assert_eq!(c.written as usize, one.len() / 32);
    let text = std::fs::read_to_string(run.join("report.txt")).unwrap();
    assert!(text.contains("in check"), "{text}");
}

fn bad(data: &[u8], format: RecordFormat) -> (u64, String) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("input");
    std::fs::write(&path, data).unwrap();
    match read_records(&path, format) {
        Err(e @ RecordError::Bad { offset, .. }) => (offset, e.to_string()),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn bad_and_truncated_files_are_refused_at_their_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let bin = generate(dir, "b", &config(dir, RecordFormat::Bullet, 1, 1));
    let vf = generate(dir, "v", &config(dir, RecordFormat::Viriformat, 1, 1));
    // bulletformat cut inside its third record.
    let (at, msg) = bad(&bin[..2 * 32 + 5], RecordFormat::Bullet);
    assert_eq!(at, 64);
    assert!(
        msg.contains("bulletformat") && msg.contains("truncated"),
        "{msg}"
    );
    // A record whose result byte is not 0-2.
    let mut broken = bin.clone();
    broken[32 + 26] = 7;
    assert_eq!(bad(&broken, RecordFormat::Bullet).0, 32);
    // viriformat without its terminator, and with a move that is not legal.
    let (at, msg) = bad(&vf[..vf.len() - 2], RecordFormat::Viriformat);
    assert_eq!(at as usize, vf.len() - 4);
    assert!(
        msg.contains("viriformat") && msg.contains("truncated"),
        "{msg}"
    );
    let mut illegal = vf.clone();
    illegal[32] = 0;
    illegal[33] = 0b1000; // a1 -> a3 (to = 16): no piece moves like that first.
    assert_eq!(bad(&illegal, RecordFormat::Viriformat).0, 32);
    // Text: the line's byte offset.
    let text = "8/8/8/8/8/8/8/K1k5 w - - 0 1 | 0 | 0.5\nnot a fen | 1 | 0.5\n";
    let (at, msg) = bad(text.as_bytes(), RecordFormat::Text);
    assert_eq!(at, 39);
    assert!(msg.contains("text") && msg.contains("bad FEN"), "{msg}");
    let (_, msg) = bad(
        b"8/8/8/8/8/8/8/K1k5 w - - 0 1 | 12.5 | 1.0\n",
        RecordFormat::Text,
    );
    assert!(msg.contains("score"), "{msg}");
    // A foreign file in each format, and random bytes, never panic.
    let pgn = b"[Event \"x\"]\n\n1. e4 e5 2. Nf3 *\n";
    for f in RecordFormat::ALL {
        let _ = decode_records(pgn, f, &mut |_| {});
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for len in 0..300 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        for f in RecordFormat::ALL {
            let _ = decode_records(&bytes, f, &mut |_| {});
        }
    }
}

#[test]
fn convert_between_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let vf_cfg = config(dir, RecordFormat::Viriformat, 1, 2);
    generate(dir, "v", &vf_cfg);
    let vf = dir.join("v/data.vf");
    let bin = dir.join("all.bin");
    let txt = dir.join("all.txt");
    let n = convert(&vf, RecordFormat::Viriformat, &bin, RecordFormat::Bullet).unwrap();
    let m = convert(&bin, RecordFormat::Bullet, &txt, RecordFormat::Text).unwrap();
    assert_eq!(n.records, m.records);
    assert_eq!(n.bytes, 32 * n.records);
    let back = dir.join("back.bin");
    convert(&txt, RecordFormat::Text, &back, RecordFormat::Bullet).unwrap();
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&bin).unwrap());
    let vf2 = dir.join("again.vf");
    convert(
        &vf,
        RecordFormat::Viriformat,
        &vf2,
        RecordFormat::Viriformat,
    )
    .unwrap();
    assert_eq!(std::fs::read(&vf2).unwrap(), std::fs::read(&vf).unwrap());
    let refused = convert(&txt, RecordFormat::Text, &vf2, RecordFormat::Viriformat);
    assert!(matches!(refused, Err(ConvertError::CannotHold { .. })));
}
