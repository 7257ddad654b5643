//! Reading an engine's bench signature (total nodes, and speed where it
//! says) from what its bench command prints, by the convention a config's
//! `build.bench_pattern` names: ours (the default), OpenBench's worker's
//! (`openbench`), or a regular expression for an engine that prints
//! neither. The node count is what commit messages quote as `Bench: N` and
//! what a fleet worker's build must reproduce.

use regex::Regex;
use serde::Serialize;

/// An engine's bench signature: total nodes (the number commit messages
/// quote as `Bench: N`) and speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BenchSignature {
    /// Total nodes of the bench (`Bench: N`).
    pub nodes: u64,
    /// 0 when the engine did not report a speed.
    pub nps: u64,
}

impl std::fmt::Display for BenchSignature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} nodes {} nps", self.nodes, self.nps)
    }
}

/// How a signature is found in bench output (`build.bench_pattern`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum BenchPattern {
    /// [`parse_bench`]: `<N> nodes <M> nps`, else Stockfish's fields.
    #[default]
    Default,
    /// `openbench`: [`parse_openbench`], as OpenBench's worker reads it.
    OpenBench,
    /// A regular expression: see [`BenchRegex`].
    Regex(BenchRegex),
}

/// A regular expression whose group `nodes` (else its first group) is the
/// node count and whose optional group `nps` is the speed; its last match
/// in the output wins, as an engine prints the total after the positions.
#[derive(Clone, Debug)]
pub struct BenchRegex {
    source: String,
    re: Regex,
}

impl PartialEq for BenchRegex {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for BenchRegex {}

impl BenchPattern {
    /// The pattern `build.bench_pattern` names: `default`, `openbench`, or
    /// a regular expression with a group for the node count. The error says
    /// what is wrong with it (the caller names the key).
    pub fn parse(text: &str) -> Result<BenchPattern, String> {
        match text.trim() {
            "" => Err("must not be empty".into()),
            "default" => Ok(BenchPattern::Default),
            "openbench" => Ok(BenchPattern::OpenBench),
            _ => {
                // The crate's message spans lines (the pattern, a caret, the
                // error); its last line says what is wrong.
                let re = Regex::new(text).map_err(|e| {
                    let all = e.to_string();
                    let why = all.lines().last().unwrap_or_default().trim();
                    format!(
                        "'{text}' is not a regular expression ({})",
                        why.trim_start_matches("error: ")
                    )
                })?;
                if re.captures_len() < 2 {
                    return Err(format!(
                        "'{text}' has no group for the node count: write one, e.g. 'Bench: (\\d+)' \
                         or '(?P<nodes>\\d+) nodes'"
                    ));
                }
                Ok(BenchPattern::Regex(BenchRegex {
                    source: text.to_string(),
                    re,
                }))
            }
        }
    }

    /// The signature in `text`, if this pattern finds one.
    pub fn find(&self, text: &str) -> Option<BenchSignature> {
        match self {
            BenchPattern::Default => parse_bench(text),
            BenchPattern::OpenBench => parse_openbench(text),
            BenchPattern::Regex(r) => r.find(text),
        }
    }

    /// What the pattern looks for, for the error when output has none
    /// (`no {describe} in its output`).
    pub fn describe(&self) -> String {
        match self {
            BenchPattern::Default => "`<N> nodes <M> nps` line".into(),
            BenchPattern::OpenBench => {
                "`N nodes`, `nodes N` or `nodes searched N` (OpenBench's convention)".into()
            }
            BenchPattern::Regex(r) => format!("match of build.bench_pattern '{}'", r.source),
        }
    }
}

impl BenchRegex {
    fn find(&self, text: &str) -> Option<BenchSignature> {
        // The last match whose node group is a number.
        self.re
            .captures_iter(text)
            .filter_map(|c| {
                let nodes = c.name("nodes").or_else(|| c.get(1))?;
                let nodes = digits(nodes.as_str())?;
                let nps = c.name("nps").and_then(|m| digits(m.as_str())).unwrap_or(0);
                Some(BenchSignature { nodes, nps })
            })
            .last()
    }
}

/// The number in `t`, ignoring what surrounds its digits (`1,234` is not one).
fn digits(t: &str) -> Option<u64> {
    t.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok()
}

/// Finds the signature in bench output: the last line of the form
/// `<N> nodes <M> nps` (ours, Ethereal), else Stockfish's
/// `Nodes searched : N` with `Nodes/second : M`.
pub fn parse_bench(text: &str) -> Option<BenchSignature> {
    for line in text.lines().rev() {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let mut nodes = None;
        let mut nps = None;
        for w in toks.windows(2) {
            let unit = w[1].trim_end_matches([',', ';', ':']).to_ascii_lowercase();
            if unit == "nodes" && nodes.is_none() {
                nodes = digits(w[0]);
            } else if unit == "nps" {
                nps = digits(w[0]);
            }
        }
        if let (Some(nodes), Some(nps)) = (nodes, nps) {
            return Some(BenchSignature { nodes, nps });
        }
    }
    let field = |name: &str| {
        text.lines().rev().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim().eq_ignore_ascii_case(name)).then(|| digits(v.trim()))?
        })
    };
    let nodes = field("Nodes searched")?;
    Some(BenchSignature {
        nodes,
        nps: field("Nodes/second").unwrap_or(0),
    })
}

/// OpenBench's worker's reading (`Client/bench.py`, `parse_stream_output`):
/// from the last line up, with every run of characters other than ASCII
/// letters, digits and spaces made a space, the first line holding `N
/// nodes`, `nodes N` or `nodes searched N` (any case) gives the node count,
/// and the first holding `N nps`, `nps N` or `nodes second N` the speed;
/// within a line the leftmost match counts. OpenBench refuses output
/// without a speed; here the speed is then 0, since only the node count is
/// a signature.
pub fn parse_openbench(text: &str) -> Option<BenchSignature> {
    let (Ok(clean), Ok(nodes_re), Ok(nps_re), Ok(number)) = (
        Regex::new(r"[^a-zA-Z0-9 ]+"),
        Regex::new(r"(?i)(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)"),
        Regex::new(r"(?i)(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)"),
        Regex::new(r"\d+"),
    ) else {
        return None;
    };
    let (mut nodes, mut nps) = (None, None);
    for line in text.trim().lines().rev() {
        let line = clean.replace_all(line, " ");
        let first_number = |re: &Regex| {
            let m = re.find(&line)?;
            number.find(m.as_str())?.as_str().parse::<u64>().ok()
        };
        if nodes.is_none() {
            nodes = first_number(&nodes_re);
        }
        if nps.is_none() {
            nps = first_number(&nps_re);
        }
    }
    Some(BenchSignature {
        nodes: nodes?,
        nps: nps.unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bench_signatures() {
        let ours = "1 100 fen\n2 200 fen\n4939216 nodes 1650000 nps\n";
        assert_eq!(
            parse_bench(ours),
            Some(BenchSignature {
                nodes: 4939216,
                nps: 1650000
            })
        );
        // The last signature wins.
        assert_eq!(
            parse_bench("1 nodes 2 nps\n3 nodes 4 nps").unwrap().nodes,
            3
        );
        let ethereal = "OVERALL:     5121 ms    4567890 nodes     891234 nps";
        assert_eq!(parse_bench(ethereal).unwrap().nodes, 4567890);
        let stockfish =
            "=====\nTotal time (ms) : 1500\nNodes searched  : 2030853\nNodes/second    : 1353902\n";
        assert_eq!(
            parse_bench(stockfish),
            Some(BenchSignature {
                nodes: 2030853,
                nps: 1353902
            })
        );
        assert_eq!(parse_bench("bench done\n"), None);
        assert_eq!(parse_bench("many nodes fast nps"), None);
        assert_eq!(parse_bench(""), None);
    }

    #[test]
    fn reads_output_as_openbench_does() {
        let sig = |t: &str| parse_openbench(t).map(|s| (s.nodes, s.nps));
        // Ethereal's and Stockfish's totals, and the two on separate lines
        // (Stockfish's nps line comes after its nodes line).
        assert_eq!(
            sig("OVERALL:     5121 ms    4567890 nodes     891234 nps"),
            Some((4567890, 891234))
        );
        assert_eq!(
            sig("Total time (ms) : 1500\nNodes searched  : 2030853\nNodes/second    : 1353902\n"),
            Some((2030853, 1353902))
        );
        // Found from the bottom: the total, not a position's count above it.
        assert_eq!(
            sig("info nodes 17 nps 9\nBench: done\n4242 nodes 999 nps\n"),
            Some((4242, 999))
        );
        // Within a line the leftmost match counts, as in OpenBench: here
        // `4242 nps` before `nps 999`.
        assert_eq!(sig("nodes 4242 nps 999"), Some((4242, 4242)));
        // Speed and nodes may come from different lines: each is the
        // lowest line that has one.
        assert_eq!(sig("12 nodes\n34 nps\n"), Some((12, 34)));
        // No speed: a signature all the same (OpenBench would refuse it).
        assert_eq!(sig("Bench: 77 nodes"), Some((77, 0)));
        // `Bench: N` alone is no OpenBench bench line.
        assert_eq!(sig("Bench: 77\n"), None);
        assert_eq!(sig(""), None);
    }

    #[test]
    fn patterns_from_the_config() {
        let p = |t: &str| BenchPattern::parse(t).unwrap();
        assert_eq!(p("default"), BenchPattern::Default);
        assert_eq!(p("openbench"), BenchPattern::OpenBench);
        let bench = p(r"Bench: (\d+)");
        let out = "pos 1: 100\nBench: 1234\npos 2: 5\nBench: 5678\nbye\n";
        assert_eq!(
            bench.find(out),
            Some(BenchSignature {
                nodes: 5678,
                nps: 0
            }),
            "the last match"
        );
        let named = p(r"(?m)^total (?P<nps>\d+) nps, (?P<nodes>\d+) nodes$");
        assert_eq!(
            named.find("total 10 nps, 20 nodes\n"),
            Some(BenchSignature { nodes: 20, nps: 10 })
        );
        assert_eq!(bench.find("no bench here"), None);
        assert!(bench.describe().contains(r"Bench: (\d+)"));

        let e = BenchPattern::parse("Bench: ").unwrap_err();
        assert!(e.contains("no group"), "{e}");
        let e = BenchPattern::parse(r"Bench: (\d+").unwrap_err();
        assert!(e.contains("Bench: (\\d+"), "{e}");
        assert!(BenchPattern::parse("  ").is_err());
    }
}
