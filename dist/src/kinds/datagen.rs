//! Datagen tests: `karsinta datagen` with PostgreSQL as the ledger.
//!
//! Batch `k` is games `[kB, (k+1)B)` of the config (`B`: `dist.batch_games`).
//! Game `i` is a pure function of the config and `i` (its own seeded stream
//! and a fresh hash), so any worker plays the same games for batch `k` at
//! fixed nodes or depth. A worker keeps each game as the harness leaves it
//! before the run-wide duplicate filter ([`GameOutput`]: the records that
//! passed the game's own filters, encoded, with their keys) and stores the
//! batch's games once, when it completes under its lease
//! (`dist_datagen_games`).
//!
//! The duplicate filter depends on every game before: it runs in game
//! order over the batches that join the completed prefix, in the
//! completion's transaction, against the keys admitted so far
//! (`dist_datagen_keys`), with the harness's own [`admit`]; the prefix's
//! counts per filter go to `dist_tests.datagen_counts`. `export` replays
//! the stored games in order through the harness's [`RunWriter`](karsinta_harness::datagen::RunWriter), so the
//! run folder is, byte for byte, the one `karsinta datagen` writes.

use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

use karsinta_harness::config::ConfigError;
use karsinta_harness::datagen::config::RawDatagenConfig;
use karsinta_harness::datagen::filter::Counts;
use karsinta_harness::datagen::{admit, DatagenConfig, EncodedRecord, GameOutput};
use karsinta_harness::formats::records::RecordFormat;
use postgres::{GenericClient, Transaction};

use crate::db::{Db, DbError};
use crate::queue::catalog::{insert_test, Kind, NewTest, Queueing, TestRow};
use crate::queue::results::flip_batch;
use crate::settings::DistSettings;
use crate::signature;

/// A datagen test's config, resolved as `karsinta datagen` does.
pub struct DatagenTest {
    /// The datagen config.
    pub cfg: DatagenConfig,
    /// Its `dist:` block (`batch_pairs` holds the games per batch).
    pub dist: DistSettings,
}

fn invalid(e: impl std::fmt::Display) -> DbError {
    DbError::Invalid(e.to_string())
}

/// Whether config text is a datagen config: a `limit:` block (the
/// per-move search) and no `engines:` list (a match's). Unparsable text is
/// not: the match loader then reports it.
pub fn is_datagen_config(text: &str) -> bool {
    serde_yaml::from_str::<serde_yaml::Value>(text)
        .ok()
        .is_some_and(|v| v.get("limit").is_some() && v.get("engines").is_none())
}

impl DatagenTest {
    /// From config text at `path`, checked as `karsinta datagen` checks it.
    pub fn load(text: &str, path: &Path) -> Result<DatagenTest, DbError> {
        let raw: RawDatagenConfig = serde_yaml::from_str(text).map_err(|e| {
            invalid(ConfigError::Syntax {
                path: path.to_path_buf(),
                message: e.to_string(),
            })
        })?;
        let dist = DistSettings::of_datagen(raw.dist.as_ref(), path)?;
        let cfg = DatagenConfig::resolve(raw, path).map_err(invalid)?;
        Ok(DatagenTest { cfg, dist })
    }

    /// The test of a stored row (its config as the creator resolved it).
    pub fn of(test: &TestRow) -> Result<DatagenTest, DbError> {
        let stored =
            |e: String| DbError::Invalid(format!("test {}: stored config: {e}", test.name));
        if test.kind != Kind::Datagen {
            return Err(stored("not a datagen test".into()));
        }
        let path = format!("{}.yaml", test.name);
        let run = DatagenTest::load(&test.config_yaml, Path::new(&path))
            .map_err(|e| stored(e.to_string()))?;
        if run.cfg.games != test.total_pairs as u64 {
            return Err(stored("its games do not match its batches".into()));
        }
        Ok(run)
    }

    /// The engine's signature (JSON list, as a match's) and bench speed:
    /// the in-process engine's bench with the config's parameters, or the
    /// UCI engine's.
    pub fn signatures(&self) -> Result<(String, u64), String> {
        let depth = self.dist.bench_depth;
        let (name, sig, nps) = match &self.cfg.engine {
            Some(spec) => {
                let (s, n) = signature::signature(spec, depth)
                    .map_err(|m| format!("engine {}: {m}", spec.name))?;
                (spec.name.clone(), s, n)
            }
            None => {
                let r = karsinta_engine::bench::run_bench(&self.cfg.params, depth);
                let s = format!("bench {} depth {depth}", r.nodes);
                ("inprocess".to_string(), s, r.nps)
            }
        };
        let list = serde_json::json!([{ "engine": name, "signature": sig }]);
        Ok((list.to_string(), nps))
    }

    /// Create datagen test `name`: the engine's signature, every batch
    /// queued.
    pub fn create_queued(
        &self,
        db: &mut Db,
        name: &str,
        queue: &Queueing,
    ) -> Result<TestRow, DbError> {
        let (sigs, _) = self.signatures().map_err(invalid)?;
        let yaml = self.cfg.resolved_yaml();
        let new = NewTest {
            name,
            config_yaml: &yaml,
            kind: Kind::Datagen,
            batch_pairs: self.dist.batch_pairs,
            total_pairs: self.cfg.games,
            window_batches: self.dist.window_batches,
            lease_seconds: self.dist.lease_seconds,
            signatures: &sigs,
            // Nodes or depth: never a clock, so any machine plays it.
            fixed_limit: true,
            queue,
            revisions: None,
        };
        db.run(|c| {
            let mut tx = c.transaction()?;
            let t = insert_test(&mut tx, &new)?;
            tx.commit()?;
            Ok(t)
        })
    }

    /// Whether the run-wide duplicate filter applies (viriformat keeps
    /// whole games).
    fn dedup(&self) -> bool {
        self.cfg.filter.duplicates && self.cfg.format != RecordFormat::Viriformat
    }

    /// Run the duplicate filter over the games of `batches` (just joined
    /// the prefix) in game order, admit their new keys and add their
    /// counts to the prefix's.
    pub(crate) fn advance(
        &self,
        tx: &mut Transaction<'_>,
        test: &TestRow,
        batches: Range<i32>,
    ) -> Result<(), DbError> {
        if batches.is_empty() {
            return Ok(());
        }
        let games = test.pairs_of(batches.start).start..test.pairs_of(batches.end - 1).end;
        let stored = games_in(tx, test.id, games.clone())?;
        if stored.len() as u64 != games.end - games.start {
            return Err(DbError::Invalid(format!(
                "test {}: games {games:?}: {} stored",
                test.name,
                stored.len()
            )));
        }
        let mut seen = HashSet::new();
        if self.dedup() {
            let keys: Vec<i64> = stored
                .iter()
                .flat_map(|g| g.records.iter().filter_map(|r| r.key))
                .map(|k| k as i64)
                .collect();
            for r in tx.query(
                "SELECT key FROM dist_datagen_keys WHERE test_id = $1 AND key = ANY($2)",
                &[&test.id, &keys],
            )? {
                seen.insert(r.get::<_, i64>(0) as u64);
            }
        }
        let mut counts = prefix_counts(tx, test.id)?;
        let mut fresh: Vec<i64> = Vec::new();
        for g in &stored {
            let a = admit(g, self.dedup(), &mut |k| {
                let new = seen.insert(k);
                if new {
                    fresh.push(k as i64);
                }
                new
            });
            counts.add(&a.counts);
        }
        tx.execute(
            "INSERT INTO dist_datagen_keys (test_id, key) SELECT $1, unnest($2::bigint[])",
            &[&test.id, &fresh],
        )?;
        tx.execute(
            "UPDATE dist_tests SET datagen_counts = $2 WHERE id = $1",
            &[&test.id, &counts_text(&counts)?],
        )?;
        Ok(())
    }
}

fn counts_text(c: &Counts) -> Result<String, DbError> {
    serde_json::to_string(c).map_err(invalid)
}

fn parse_counts(text: &str, what: &str) -> Result<Counts, DbError> {
    serde_json::from_str(text)
        .map_err(|e| DbError::Invalid(format!("stored counts of {what}: {e}")))
}

/// The counts of the completed prefix, duplicates counted.
pub fn prefix_counts(c: &mut impl GenericClient, test: i64) -> Result<Counts, DbError> {
    let row = c.query_one(
        "SELECT datagen_counts FROM dist_tests WHERE id = $1",
        &[&test],
    )?;
    match row.get::<_, Option<&str>>(0) {
        Some(t) => parse_counts(t, "the prefix"),
        None => Ok(Counts::default()),
    }
}

/// A game's records as stored: per record a key flag (1: a key follows,
/// u64 LE), the record's length (u32 LE) and its bytes.
fn records_blob(records: &[EncodedRecord]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in records {
        match r.key {
            Some(k) => {
                out.push(1);
                out.extend_from_slice(&k.to_le_bytes());
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(r.bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&r.bytes);
    }
    out
}

/// [`records_blob`] read back.
fn parse_blob(mut data: &[u8], game: u64) -> Result<Vec<EncodedRecord>, DbError> {
    let bad = || DbError::Invalid(format!("stored records of game {game}: truncated"));
    let take = |data: &mut &[u8], n: usize| -> Result<Vec<u8>, DbError> {
        if data.len() < n {
            return Err(bad());
        }
        let (head, rest) = data.split_at(n);
        *data = rest;
        Ok(head.to_vec())
    };
    let mut out = Vec::new();
    while !data.is_empty() {
        let flag = take(&mut data, 1)?[0];
        let key = match flag {
            1 => Some(u64::from_le_bytes(
                take(&mut data, 8)?.try_into().map_err(|_| bad())?,
            )),
            _ => None,
        };
        let len = u32::from_le_bytes(take(&mut data, 4)?.try_into().map_err(|_| bad())?);
        let bytes = take(&mut data, len as usize)?;
        out.push(EncodedRecord { key, bytes });
    }
    Ok(out)
}

/// The stored games `games` of test `test`, in game order.
pub fn games_in(
    c: &mut impl GenericClient,
    test: i64,
    games: Range<u64>,
) -> Result<Vec<GameOutput>, DbError> {
    c.query(
        "SELECT game, ending, counts, records FROM dist_datagen_games \
         WHERE test_id = $1 AND game >= $2 AND game < $3 ORDER BY game",
        &[&test, &(games.start as i64), &(games.end as i64)],
    )?
    .iter()
    .map(|r| {
        let game = r.get::<_, i64>(0) as u64;
        Ok(GameOutput {
            game,
            ending: r.get(1),
            counts: parse_counts(r.get(2), &format!("game {game}"))?,
            records: parse_blob(r.get(3), game)?,
        })
    })
    .collect()
}

/// A batch of games played to the end, as its holder completes it.
#[derive(Clone, Copy, Debug)]
pub struct DatagenBatch<'a> {
    /// The batch.
    pub idx: i32,
    /// The lease it was played under.
    pub token: i64,
    /// The worker that played it.
    pub worker: i64,
    /// Wall time from claim to last game.
    pub seconds: f64,
    /// Its games, in game order.
    pub games: &'a [GameOutput],
}

/// Flip the batch to done and store its games, if it is leased under its
/// token; false (nothing written) otherwise (see
/// [`crate::queue::completion::complete_games`]).
pub(crate) fn record_games(
    tx: &mut Transaction<'_>,
    test: &TestRow,
    b: &DatagenBatch<'_>,
) -> Result<bool, DbError> {
    let expected: Vec<u64> = test.pairs_of(b.idx).collect();
    let got: Vec<u64> = b.games.iter().map(|g| g.game).collect();
    if got != expected {
        return Err(DbError::Invalid(format!(
            "batch {}: games {got:?} are not the batch's {expected:?}",
            b.idx
        )));
    }
    if !flip_batch(tx, test.id, b.idx, b.token, b.worker, b.seconds)? {
        return Ok(false);
    }
    let insert = tx.prepare(
        "INSERT INTO dist_datagen_games (test_id, game, batch, worker_id, ending, counts, records) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )?;
    for g in b.games {
        tx.execute(
            &insert,
            &[
                &test.id,
                &(g.game as i64),
                &b.idx,
                &b.worker,
                &g.ending,
                &counts_text(&g.counts)?,
                &records_blob(&g.records),
            ],
        )?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_through_their_blob() {
        let records = vec![
            EncodedRecord {
                key: Some(u64::MAX - 3),
                bytes: vec![1, 2, 3],
            },
            EncodedRecord {
                key: None,
                bytes: Vec::new(),
            },
            EncodedRecord {
                key: Some(0),
                bytes: b"fen | 12 | 0.5\n".to_vec(),
            },
        ];
        let blob = records_blob(&records);
        assert_eq!(parse_blob(&blob, 0).unwrap(), records);
        assert!(parse_blob(&blob[..blob.len() - 1], 7)
            .unwrap_err()
            .to_string()
            .contains("game 7: truncated"));
    }

    #[test]
    fn datagen_configs_are_told_from_match_configs() {
        assert!(is_datagen_config("games: 4\nlimit: { nodes: 100 }\n"));
        assert!(!is_datagen_config("engines: []\nlimit: 3\n"));
        assert!(!is_datagen_config("games: 4\n"));
        assert!(!is_datagen_config(": bad: ["));
    }
}
