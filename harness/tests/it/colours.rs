//! Colour schedules with fastchess's meaning (`-games 1`, `-noswap`,
//! `-reverse`, the `colours:` block) and their trinomial counting, played
//! by karsinta-engine at fixed nodes and checked against the PGN the runs
//! write.

use std::path::Path;
use std::process::{Command, Output};

use karsinta_harness::formats::pgn_write::{split_games, tag_value};
use karsinta_harness::stats::{EloModel, SprtParams, Trinomial};

use crate::common::{games, normalized, summary_json, EPD, KARSINTA};

fn karsinta(dir: &Path, args: &[String]) -> Output {
    Command::new(KARSINTA)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run karsinta")
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

/// A fastchess line: karsinta-engine over UCI (`one`) against the
/// in-process engine without SEE pruning (`two`), at 300 nodes.
fn line(extra: &str, out: &str) -> Vec<String> {
    let engine = karsinta_test_support::bin("karsinta-engine");
    words(&format!(
        "match -engine cmd={} name=one -engine proto=inprocess name=two option.see_prune=false \
         -each tc=inf nodes=300 -openings file=open.epd order=sequential -srand 3 \
         -concurrency 2 {extra} --out {out} --quiet",
        engine.display()
    ))
}

/// Per game of `run`'s games.pgn, in Round order: (Round, White, Result, FEN).
fn pgn_games(run: &Path) -> Vec<(String, String, String, String)> {
    let text = std::fs::read_to_string(run.join("games.pgn")).unwrap();
    let mut out: Vec<_> = split_games(&text)
        .into_iter()
        .map(|g| {
            let t = |k| tag_value(g, k).unwrap_or_default().to_string();
            (t("Round"), t("White"), t("Result"), t("FEN"))
        })
        .collect();
    let key = |r: &str| -> (u64, u64) {
        let (a, b) = r.split_once('.').unwrap();
        (a.parse().unwrap(), b.parse().unwrap())
    };
    out.sort_by_key(|g| key(&g.0));
    out
}

/// `one`'s wins, draws and losses from the PGN results.
fn wdl_of_one(games: &[(String, String, String, String)]) -> Trinomial {
    let mut t = Trinomial::default();
    for (_, white, result, _) in games {
        let one_white = white == "one";
        match (result.as_str(), one_white) {
            ("1/2-1/2", _) => t.draws += 1,
            ("1-0", true) | ("0-1", false) => t.wins += 1,
            _ => t.losses += 1,
        }
    }
    t
}

/// `-noswap`: engine 1 is White in every game; the games are counted
/// W/D/L, the SPRT is the trinomial one, and the ledger has each game.
#[test]
fn noswap_keeps_engine_one_white_and_counts_trinomially() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("open.epd"), EPD).unwrap();
    let out = karsinta(
        d,
        &line("-rounds 3 -noswap -sprt elo0=0 elo1=10 -maxmoves 80", "run"),
    );
    ok(&out);
    let run = d.join("run");
    let played = pgn_games(&run);
    assert_eq!(played.len(), 6);
    for (round, white, _, _) in &played {
        assert_eq!(white, "one", "game {round}");
    }
    // Both games of a round start from the round's opening.
    let openings: Vec<&str> = EPD.lines().collect();
    for (i, g) in played.iter().enumerate() {
        assert_eq!(g.3, openings[i / 2], "game {}", g.0);
    }
    let s = summary_json(&run);
    assert_eq!(s["counting"], "trinomial");
    assert!(s["pentanomial"].is_null(), "{s}");
    let wdl = wdl_of_one(&played);
    assert_eq!(
        (
            s["wins"].as_u64(),
            s["draws"].as_u64(),
            s["losses"].as_u64()
        ),
        (Some(wdl.wins), Some(wdl.draws), Some(wdl.losses))
    );
    assert_eq!(s["games"], 6);
    let sprt = SprtParams::new(0.0, 10.0, 0.05, 0.05, EloModel::Normalized).unwrap();
    assert_eq!(s["sprt"]["counting"], "trinomial");
    let llr = s["sprt"]["llr"].as_f64().unwrap();
    assert!((llr - sprt.llr_wdl(&wdl)).abs() < 1e-9, "{llr} {wdl:?}");
    assert_eq!(s["sprt"]["games"], 6);
    // Every game is in the ledger, one line per opening, both games White = one.
    let ledger = std::fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = ledger
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    for l in &lines {
        let g = l["games"].as_array().unwrap();
        assert_eq!(g.len(), 2);
        assert!(g.iter().all(|g| g["white"] == 0 && g["black"] == 1), "{l}");
    }
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(!html.contains("id=\"r0-penta-chart\""));
    assert!(html.contains("trinomial"));
}

/// `-sprt ... model=bayesian`: fastchess's BayesElo SPRT counts the games
/// of colour-swapped pairs one by one, while the Elo estimate and the
/// pentanomial table stay.
#[test]
fn bayeselo_sprt_counts_games_of_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("open.epd"), EPD).unwrap();
    let out = karsinta(
        d,
        &line(
            "-rounds 4 -games 2 -sprt elo0=0 elo1=10 model=bayesian -maxmoves 80",
            "run",
        ),
    );
    ok(&out);
    let run = d.join("run");
    let played = pgn_games(&run);
    assert_eq!(played.len(), 8);
    let s = summary_json(&run);
    assert_eq!(s["counting"], "pentanomial");
    assert_eq!(s["pentanomial"].as_array().map(Vec::len), Some(5), "{s}");
    assert_eq!(s["sprt"]["model"], "bayesian");
    assert_eq!(s["sprt"]["counting"], "trinomial");
    let wdl = wdl_of_one(&played);
    let sprt = SprtParams::new(0.0, 10.0, 0.05, 0.05, EloModel::Bayesian).unwrap();
    let llr = s["sprt"]["llr"].as_f64().unwrap();
    assert!((llr - sprt.llr_wdl(&wdl)).abs() < 1e-12, "{llr} {wdl:?}");
    assert!(s["sprt"]["unbiased"].is_null());
}

/// `-games 1` (and `colours: { games_per_opening: 1 }`): each opening
/// once, colours alternating from game to game as fastchess numbers them;
/// a resumed run plays on to the games a fresh run plays.
#[test]
fn one_game_per_opening_alternates_colours_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("open.epd"), EPD).unwrap();
    let engine = karsinta_test_support::bin("karsinta-engine");
    let yaml = format!(
        "name: one-vs-two
engines:
  - {{ name: one, cmd: {} }}
  - {{ name: two, type: inprocess, options: {{ see_prune: false }} }}
time_control: nodes=300
games: 3
colours: {{ games_per_opening: 1 }}
concurrency: 2
seed: 3
openings: {{ file: open.epd, order: sequential }}
adjudication: {{ max_moves: 80 }}
",
        engine.display()
    );
    std::fs::write(d.join("one.yaml"), yaml).unwrap();
    let args = |a: &str| words(a);
    ok(&karsinta(d, &args("match one.yaml --out yaml --quiet")));
    let first = pgn_games(&d.join("yaml"));
    assert_eq!(first.len(), 3);
    ok(&karsinta(d, &args("match --resume yaml --games 4 --quiet")));
    let resumed = pgn_games(&d.join("yaml"));
    assert_eq!(&resumed[..3], &first[..], "the first games stay");
    // Each opening once, in order; White alternates one, two, one, two.
    let openings: Vec<&str> = EPD.lines().collect();
    let whites: Vec<&str> = resumed.iter().map(|g| g.1.as_str()).collect();
    assert_eq!(whites, ["one", "two", "one", "two"]);
    for (i, g) in resumed.iter().enumerate() {
        assert_eq!(g.0, format!("{}.1", i + 1));
        assert_eq!(g.3, openings[i], "game {}", g.0);
    }
    let s = summary_json(&d.join("yaml"));
    assert_eq!(
        (s["games"].as_u64(), s["pairs"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(s["counting"], "trinomial");
    let wdl = wdl_of_one(&resumed);
    assert_eq!(
        (
            s["wins"].as_u64(),
            s["draws"].as_u64(),
            s["losses"].as_u64()
        ),
        (Some(wdl.wins), Some(wdl.draws), Some(wdl.losses))
    );
    // The fastchess line plays the same games, move for move.
    ok(&karsinta(
        d,
        &line("-rounds 4 -games 1 -maxmoves 80 -event one-vs-two", "flags"),
    ));
    assert_eq!(games(&d.join("flags")), games(&d.join("yaml")));
}

/// `-reverse`: every game's colours swapped; the games still come in
/// colour-swapped pairs, so the counts stay pentanomial.
#[test]
fn reverse_swaps_the_schedule_and_keeps_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("open.epd"), EPD).unwrap();
    ok(&karsinta(
        d,
        &line("-rounds 2 -reverse -maxmoves 60", "rev"),
    ));
    ok(&karsinta(d, &line("-rounds 2 -maxmoves 60", "plain")));
    let rev = pgn_games(&d.join("rev"));
    let whites: Vec<&str> = rev.iter().map(|g| g.1.as_str()).collect();
    assert_eq!(whites, ["two", "one", "two", "one"]);
    let s = summary_json(&d.join("rev"));
    assert_eq!(s["counting"], "pentanomial");
    let penta: u64 = s["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(penta, 2);
    // The same games as without -reverse (each game's state is fresh),
    // in the other order within each pair.
    let without_round = |run: &str| {
        let text = std::fs::read_to_string(d.join(run).join("games.pgn")).unwrap();
        let mut g: Vec<String> = split_games(&text)
            .into_iter()
            .map(|g| normalized(&g.replace(&tag_line(g, "Round"), "")))
            .collect();
        g.sort();
        g
    };
    assert_eq!(without_round("rev"), without_round("plain"));
}

fn tag_line(game: &str, tag: &str) -> String {
    format!("[{tag} \"{}\"]", tag_value(game, tag).unwrap_or_default())
}
