//! `shape [WORKSPACE] [--top N]`: the workspace's shape as Markdown tables:
//! the longest functions outside tests, each crate's root entries, import
//! circles and integration-test binaries. The `architecture` test holds
//! the limits; this prints the figures behind them.

use std::path::PathBuf;

use karsinta_e2e::shape;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut top = 15;
    // The workspace it is run in, so one build checks any worktree.
    let mut ws = std::env::current_dir().unwrap_or_else(|_| karsinta_e2e::workspace());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--top" => top = args.next().and_then(|n| n.parse().ok()).unwrap_or(top),
            _ => ws = PathBuf::from(a),
        }
    }
    let fns = match shape::functions(&shape::sources(&ws)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("shape: {e}");
            std::process::exit(2);
        }
    };
    println!("| lines | function | at |\n| ---: | --- | --- |");
    for f in fns.iter().take(top) {
        println!(
            "| {} | `{}` | {}:{} |",
            f.lines,
            f.name,
            shape::rel(&ws, &f.file),
            f.line
        );
    }
    let over = |n| fns.iter().filter(|f| f.lines > n).count();
    println!(
        "\nFunctions over 120 lines: {}; over 200: {}\n",
        over(120),
        over(200)
    );
    println!("| crate | root entries | test binaries | circles |\n| --- | ---: | ---: | --- |");
    for m in shape::members(&ws) {
        let src = m.join("src");
        let entries = std::fs::read_dir(&src).map(|d| d.count()).unwrap_or(0);
        let mut circles = Vec::new();
        for root in shape::crate_roots(&m) {
            match shape::graph(&root) {
                Ok(g) => circles.extend(shape::circles(&g).into_iter().map(|c| c.join(" <-> "))),
                Err(e) => circles.push(format!("(cannot parse: {e})")),
            }
        }
        let circles = if circles.is_empty() {
            "none".to_string()
        } else {
            circles.join("; ")
        };
        println!(
            "| {} | {entries} | {} | {circles} |",
            shape::rel(&ws, &m),
            shape::test_binaries(&m)
        );
    }
}
