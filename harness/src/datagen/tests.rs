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

/// `rec` with each rook that can still castle turned into a bishop.
fn castling_rooks_as_bishops(
    rec: &crate::formats::records::Record,
) -> crate::formats::records::Record {
    use shakmaty::{CastlingMode, Chess, FromSetup, Piece, Position, Role};
    let mut setup = rec.pos.to_setup(shakmaty::EnPassantMode::Legal);
    for sq in setup.castling_rights {
        if let Some(p) = setup.board.piece_at(sq) {
            setup.board.set_piece_at(
                sq,
                Piece {
                    color: p.color,
                    role: Role::Bishop,
                },
            );
        }
    }
    setup.castling_rights = shakmaty::Bitboard::EMPTY;
    // Four bishops and eight pawns is more than a game can have; allowed here.
    let pos = match Chess::from_setup(setup, CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(e) => e.ignore_too_much_material().unwrap(),
    };
    crate::formats::records::Record { pos, ..rec.clone() }
}

#[test]
fn marlinformat_read_back_by_the_crate() {
    use bulletformat::chess::MarlinFormat;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mf = generate(dir, "m", &config(dir, RecordFormat::Marlinformat, 2, 3));
    let bin = generate(dir, "b", &config(dir, RecordFormat::Bullet, 2, 3));
    assert_eq!(mf.len(), bin.len(), "the same games, the same positions");
    // The crate's loader turns each marlinformat record into its own
    // side-to-move ChessBoard: the bulletformat record of the same
    // position. bulletformat 1.8.0 reads a castling rook (code 6) as a
    // bishop, so where a right remains the crate's board has a bishop there.
    let mut loaded = Vec::new();
    DataLoader::<MarlinFormat>::new(dir.join("m/data.marlin"), 1)
        .unwrap()
        .map_positions(|m| loaded.push(ChessBoard::from(*m)));
    let ours = read_records(&dir.join("m/data.marlin"), RecordFormat::Marlinformat).unwrap();
    let as_bullet = read_records(&dir.join("b/data.bin"), RecordFormat::Bullet).unwrap();
    assert_eq!(loaded.len(), ours.len());
    for ((crate_cb, rec), b) in loaded.iter().zip(&ours).zip(&as_bullet) {
        assert_eq!(bullet::to_chessboard(rec), bullet::to_chessboard(b));
        assert_eq!(
            *crate_cb,
            bullet::to_chessboard(&castling_rooks_as_bishops(rec))
        );
    }
    // marlinformat keeps what bulletformat drops: the side to move and the
    // counters survive our reader.
    assert!(ours
        .iter()
        .any(|r| shakmaty::Position::turn(&r.pos) == shakmaty::Color::Black));
    assert!(ours
        .iter()
        .all(|r| shakmaty::Position::fullmoves(&r.pos).get() > 1));
}

#[test]
fn tablebases_end_games_with_their_result() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // King and queen against king, the side with the queen to move: every
    // game enters the 3-piece tables after one move and is a White win.
    let book = dir.join("kqk.epd");
    std::fs::write(
        &book,
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1\n4k3/8/8/8/8/8/8/Q3K3 w - - 0 1\n",
    )
    .unwrap();
    let tables = crate::play::tablebase::test_tables();
    let yaml = format!(
        "games: 2\nformat: text\nseed: 3\nhash_mb: 1\nlimit: {{ nodes: 2000 }}\n\
         start: {{ book: {}, check_nodes: 0 }}\nfilter: {{ min_ply: 0 }}\n\
         tablebases: {{ paths: [{}] }}\n",
        book.display(),
        tables.display()
    );
    let raw: RawDatagenConfig = serde_yaml::from_str(&yaml).unwrap();
    let cfg = DatagenConfig::resolve(raw, &dir.join("datagen.yaml")).unwrap();
    let out = dir.join("run");
    super::create_run(&cfg, &out).unwrap();
    let report = super::run(&cfg, &out, &mut |_| {}).unwrap();
    assert_eq!(report.counts.tablebase_games, 2);
    assert_eq!(report.counts.white_wins, 2);
    assert_eq!(report.counts.positions, 2, "one move per game");
    let text = std::fs::read_to_string(out.join("report.txt")).unwrap();
    assert!(text.contains("ended by tablebases 2"), "{text}");
    // Without the tables the same starts play on.
    let raw: RawDatagenConfig = serde_yaml::from_str(
        &yaml[..yaml.find("tablebases").unwrap()].replace("games: 2", "games: 1"),
    )
    .unwrap();
    let cfg = DatagenConfig::resolve(raw, &dir.join("datagen.yaml")).unwrap();
    super::create_run(&cfg, &dir.join("plain")).unwrap();
    let plain = super::run(&cfg, &dir.join("plain"), &mut |_| {}).unwrap();
    assert_eq!(plain.counts.tablebase_games, 0);
    assert!(plain.counts.positions > 1);
    // A folder that is not there is refused naming the key and the path.
    let raw: RawDatagenConfig =
        serde_yaml::from_str(&yaml.replace(&tables.display().to_string(), "/no/such/tables"))
            .unwrap();
    let err = DatagenConfig::resolve(raw, &dir.join("datagen.yaml")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("tablebases.paths") && msg.contains("/no/such/tables"),
        "{msg}"
    );
}

#[test]
fn pgn_games_convert_to_every_format() {
    use super::convert::convert_pgn;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let pgn = dir.join("games.pgn");
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n[Result \"1-0\"]\n\n\
         1. e4 {+0.31/12 0.05s} e5 {-0.20/11 0.04s} 2. Qh5 {book} Nc6 {[%eval #-3]} \
         3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
         [Event \"bad\"]\n[Result \"1-0\"]\n\n1. e4 e4 1-0\n\n\
         [Event \"c\"]\n[Result \"1/2-1/2\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n\
         1. Kd1 {[%eval 0.00]} Kd8 1/2-1/2\n",
    )
    .unwrap();
    let vf = dir.join("g.vf");
    let done = convert_pgn(&pgn, &vf, RecordFormat::Viriformat).unwrap();
    assert_eq!((done.games, done.skipped_total, done.records), (2, 1, 9));
    assert_eq!(done.skipped[0].0, 2);
    // Positions without an evaluation: Qh5's (book), Bc4, Nf6, Qxf7, Kd8.
    assert_eq!(done.unscored, 5);
    let recs = read_records(&vf, RecordFormat::Viriformat).unwrap();
    let scores: Vec<i16> = recs.iter().map(|r| r.score_white).collect();
    // cutechess comments are the mover's view; `[%eval #-3]` is White's
    // view: Black mates.
    assert_eq!(scores, vec![31, 20, 0, -32000, 0, 0, 0, 0, 0]);
    assert!(recs[..7]
        .iter()
        .all(|r| r.result == crate::formats::records::Wdl::WhiteWins));
    assert!(recs[7..]
        .iter()
        .all(|r| r.result == crate::formats::records::Wdl::Draw));
    for f in [
        RecordFormat::Bullet,
        RecordFormat::Text,
        RecordFormat::Marlinformat,
    ] {
        let out = dir.join(format!("g.{}", f.extension()));
        let done = convert_pgn(&pgn, &out, f).unwrap();
        assert_eq!(done.records, 9);
        let back = read_records(&out, f).unwrap();
        let expect: Vec<ChessBoard> = recs.iter().map(bullet::to_chessboard).collect();
        let got: Vec<ChessBoard> = back.iter().map(bullet::to_chessboard).collect();
        assert_eq!(got, expect, "{f}");
    }
}
