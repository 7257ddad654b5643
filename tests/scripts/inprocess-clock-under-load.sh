#!/bin/sh
# Issue 13 item 9: does the in-process engine keep its clock under load?
# Plays configs/gauntlet.yaml (2 games per pairing, -j 2 as configured)
# while LOOPS busy loops (default 3) run, then prints the in-process
# engine's slowest moves and its time losses. Needs the Debian engines of
# gauntlet.yaml and python3-chess. Usage: tests/scripts/inprocess-clock-under-load.sh [OUT]
set -eu
out=${1:-$(mktemp -d)/run}
root=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --release -q -p karsinta-harness --bin karsinta
pids=""
for _ in $(seq 1 "${LOOPS:-3}"); do sh -c 'while :; do :; done' & pids="$pids $!"; done
trap 'kill $pids 2>/dev/null' EXIT
"$root/target/release/karsinta" match "$root/configs/gauntlet.yaml" --games 2 \
    --seed 1795439592620452922 --out "$out" --quiet > /dev/null
python3 - "$out/games.pgn" <<'PY'
import re, sys, chess.pgn
times, losses, games = [], [], 0
with open(sys.argv[1]) as f:
    while (g := chess.pgn.read_game(f)) is not None:
        games += 1
        for i, node in enumerate(g.mainline()):
            side = "White" if (i % 2 == 0) == (g.board().turn) else "Black"
            m = re.search(r"([0-9.]+)s", node.comment or "")
            if m and g.headers[side] == "karsinta":
                times.append(float(m.group(1)))
        if "time" in g.headers.get("Termination", ""):
            loser = "White" if g.headers["Result"] == "0-1" else "Black"
            if g.headers[loser] == "karsinta":
                losses.append(g.headers["Round"])
times.sort()
print(f"{games} games, {len(times)} in-process moves, slowest {times[-5:]} s, "
      f"in-process time losses: {len(losses)} {losses}")
PY
