//! The three pages: each is a small HTML shell whose inline script fetches
//! its `/api/...` JSON every few seconds and renders it, so a page never
//! needs reloading by hand and shows the same figures a script gets. Text
//! goes into the page through `textContent` (test and host names are not
//! trusted); the charts are the SVG the server drew with the harness's
//! chart engine. Script errors are caught into `#js-errors` (the browser
//! test asserts it stays empty); a failed fetch is shown in `#state`.

use karsinta_harness::report::chart::esc;

/// Seconds between refreshes.
pub const REFRESH_SECONDS: u32 = 3;

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
nav a{margin-right:1em}table{border-collapse:collapse;margin:.8em 0}\
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}\
td:first-child,th:first-child{text-align:left}\
.bar{display:inline-block;width:140px;height:10px;background:#eee;border:1px solid #999;\
position:relative;vertical-align:middle;margin-right:.4em}\
.bar i{position:absolute;top:0;bottom:0;left:50%;border-left:1px solid #999}\
.bar b{position:absolute;top:-2px;width:4px;height:14px;margin-left:-2px}\
#js-errors{color:#a00;white-space:pre-wrap}#state{color:#666}\
.charts svg{margin:.3em}.outlier{background:#fdd}";

/// What every page's script shares: error capture, formatting, the
/// refresh loop around the page's own `render(json)`.
const COMMON_JS: &str = r#"
const jsErrors = document.getElementById('js-errors');
function fail(e) { jsErrors.textContent += String(e && e.stack || e) + '\n'; }
window.addEventListener('error', ev => fail(ev.message));
window.addEventListener('unhandledrejection', ev => fail(ev.reason));
function fmt(x, d) { return (x === null || x === undefined || !isFinite(x)) ? 'n/a' : Number(x).toFixed(d); }
function cell(tr, key, text) {
  const td = document.createElement('td');
  td.setAttribute('data-k', key);
  td.textContent = text;
  tr.appendChild(td);
  return td;
}
function rows(id, items, fill) {
  const body = document.getElementById(id);
  body.replaceChildren();
  for (const it of items) { const tr = document.createElement('tr'); fill(tr, it); body.appendChild(tr); }
}
function setText(key, text) {
  for (const e of document.querySelectorAll('[data-k="' + key + '"]')) e.textContent = text;
}
const safeName = /^[A-Za-z0-9._-]{1,64}$/;
function testLink(td, name) {
  td.textContent = '';
  if (!safeName.test(name)) { td.textContent = name; return; }
  const a = document.createElement('a');
  a.href = '/test/' + name;
  a.textContent = name;
  td.appendChild(a);
}
function llrBar(td, sprt) {
  td.textContent = '';
  if (!sprt) { td.textContent = 'no SPRT'; return; }
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.title = 'LLR ' + fmt(sprt.llr, 2) + ' in [' + fmt(sprt.lower, 2) + ', ' + fmt(sprt.upper, 2) + ']';
  bar.appendChild(document.createElement('i'));
  const mark = document.createElement('b');
  const span = sprt.upper - sprt.lower;
  const at = span > 0 ? Math.min(1, Math.max(0, (sprt.llr - sprt.lower) / span)) : 0.5;
  mark.style.left = (100 * at).toFixed(1) + '%';
  mark.style.background = sprt.llr >= 0 ? '#070' : '#a00';
  bar.appendChild(mark);
  td.appendChild(bar);
  const v = document.createElement('span');
  v.setAttribute('data-k', 'llr');
  v.textContent = fmt(sprt.llr, 2);
  td.appendChild(v);
  td.appendChild(document.createTextNode(' [' + fmt(sprt.lower, 2) + ', ' + fmt(sprt.upper, 2) + ']'));
}
async function refresh() {
  let r;
  try { r = await fetch(API, { cache: 'no-store' }); }
  catch (e) { document.getElementById('state').textContent = 'refresh failed: ' + e; return; }
  if (!r.ok) { document.getElementById('state').textContent = API + ': HTTP ' + r.status; return; }
  try {
    render(await r.json());
    document.getElementById('state').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) { fail(e); }
}
refresh();
setInterval(refresh, REFRESH_MS);
"#;

fn page(title: &str, api: &str, body: &str, render_js: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{t} - karsinta-dist</title><style>{STYLE}</style></head><body>\
         <nav><a href=\"/\">tests</a><a href=\"/machines\">machines</a></nav>\
         <h1>{t}</h1><p id=\"state\">loading</p><pre id=\"js-errors\"></pre>{body}\
         <script>\nconst API = '{api}';\nconst REFRESH_MS = {ms};\n{render_js}\n{COMMON_JS}</script>\
         </body></html>\n",
        t = esc(title),
        ms = REFRESH_SECONDS * 1000,
    )
}

/// `/`: every test, its status, games, Elo and LLR.
pub fn tests_page() -> String {
    page(
        "Tests",
        "/api/tests",
        "<table><thead><tr><th>test</th><th>kind</th><th>status</th><th>priority</th><th>games</th>\
         <th>Elo &plusmn; 95%</th><th>LLR between its bounds</th><th>batches</th></tr></thead>\
         <tbody id=\"tests\"></tbody></table>",
        r#"function render(j) {
  rows('tests', j.tests, (tr, t) => {
    tr.setAttribute('data-test', t.name);
    testLink(cell(tr, 'name', ''), t.name);
    cell(tr, 'kind', t.kind);
    cell(tr, 'status', t.status + (t.stop_reason ? ' (' + t.stop_reason + ')' : ''));
    cell(tr, 'priority', t.priority + ' (weight ' + t.throughput + ')');
    cell(tr, 'games', String(t.games));
    cell(tr, 'elo', t.kind === 'match' ? fmt(t.elo, 1) + ' \u00b1 ' + fmt(t.elo_error, 1)
      : t.kind === 'datagen' ? t.written + ' positions written'
      : 'iteration ' + t.applied + ' of ' + t.iterations);
    const l = cell(tr, 'sprt', '');
    if (t.kind === 'match') llrBar(l, t.sprt); else l.textContent = '';
    cell(tr, 'batches', t.batches_done + ' / ' + t.batches + (t.batches_leased ? ' (' + t.batches_leased + ' leased)' : ''));
  });
}"#,
    )
}

/// `/test/NAME` (a name [`super::route()`] accepted).
pub fn test_page(name: &str) -> String {
    page(
        &format!("Test {name}"),
        &format!("/api/test/{name}"),
        "<table id=\"figures\"><tbody>\
         <tr><th>status</th><td data-k=\"status\"></td></tr>\
         <tr><th>games</th><td data-k=\"games\"></td></tr>\
         <tr><th>W / D / L</th><td data-k=\"wdl\"></td></tr>\
         <tr><th>pentanomial LL LD DD+WL WD WW</th><td data-k=\"penta\"></td></tr>\
         <tr><th>Elo &plusmn; 95%</th><td data-k=\"elo\"></td></tr>\
         <tr><th>LOS</th><td data-k=\"los\"></td></tr>\
         <tr><th>LLR</th><td data-k=\"sprt\"></td></tr>\
         <tr><th>median-unbiased Elo</th><td data-k=\"mue\"></td></tr>\
         <tr><th>batches</th><td data-k=\"batches\"></td></tr></tbody></table>\
         <div class=\"charts\" id=\"charts\"></div>\
         <h2>Revisions</h2><p data-k=\"repo\"></p><table><thead><tr><th>side</th><th>revision</th>\
         <th>commit</th><th>engine</th><th>bench</th></tr></thead><tbody id=\"revisions\"></tbody></table>\
         <h2>Refusals</h2><table><thead><tr><th>host</th><th>pid</th><th>at (UTC)</th>\
         <th>reason</th></tr></thead><tbody id=\"refusals\"></tbody></table>\
         <h2>Parameters</h2><table><thead><tr><th>name</th><th>value</th><th>start</th>\
         <th>min</th><th>max</th></tr></thead><tbody id=\"params\"></tbody></table>\
         <h2>Workers</h2><table><thead><tr><th>worker</th><th>host</th><th>pairs</th>\
         <th>games/min</th><th>time losses</th><th>crashes</th><th>mean pair score</th>\
         <th>residual</th><th>nps</th><th>speed</th><th>clock</th><th>build, bench</th></tr></thead>\
         <tbody id=\"workers\"></tbody></table>\
         <h2>Training data</h2><p data-k=\"positions\"></p><table><thead><tr><th>dropped by</th>\
         <th>positions</th></tr></thead><tbody id=\"dropped\"></tbody></table>\
         <table><thead><tr><th>worker</th><th>host</th><th>games</th><th>positions</th>\
         <th>positions/s</th><th>bench nps</th></tr></thead><tbody id=\"datagen-workers\"></tbody></table>",
        r#"let drawn = '';
function render(j) {
  const t = j.test, s = j.summary;
  setText('status', t.status + (t.stop_reason ? ' (' + t.stop_reason + ')' : ''));
  setText('games', String(t.games));
  setText('batches', t.batches_done + ' / ' + t.batches);
  if (s) {
    setText('wdl', s.wins + ' / ' + s.draws + ' / ' + s.losses);
    setText('penta', s.pentanomial ? s.pentanomial.join(' ') : 'trinomial (no colour-swapped pairs)');
    setText('elo', fmt(t.elo, 1) + ' \u00b1 ' + fmt(t.elo_error, 1));
    setText('los', fmt(100 * t.los, 1) + '%');
    llrBar(document.querySelector('td[data-k="sprt"]'), t.sprt);
    const u = t.sprt && t.sprt.unbiased;
    setText('mue', u ? fmt(u.elo, 1) + ' [' + fmt(u.low, 1) + ', ' + fmt(u.high, 1) + ']' : 'n/a');
  } else if (t.kind === 'datagen') {
    setText('elo', t.written + ' positions written (' + t.format + ')');
  } else {
    setText('elo', 'iteration ' + t.applied + ' of ' + t.iterations);
  }
  const d = j.datagen;
  setText('positions', d ? d.games + ' games (white ' + d.white_wins + ' / draw ' + d.draws +
    ' / black ' + d.black_wins + '), ' + d.positions + ' positions searched, ' + d.written +
    ' written' : 'not a datagen test');
  rows('dropped', d ? d.dropped : [], (tr, f) => {
    cell(tr, 'filter', f.filter); cell(tr, 'count', String(f.count));
  });
  rows('datagen-workers', d ? d.workers : [], (tr, w) => {
    cell(tr, 'id', String(w.id)); cell(tr, 'host', w.host + (w.active ? '' : ' (gone)'));
    cell(tr, 'games', String(w.games)); cell(tr, 'positions', String(w.positions));
    cell(tr, 'pps', fmt(w.positions_per_s, 0)); cell(tr, 'nps', String(w.nps));
  });
  const svg = Object.values(j.charts || {}).join('');
  if (svg !== drawn) { document.getElementById('charts').innerHTML = svg; drawn = svg; }
  rows('params', j.spsa || [], (tr, p) => {
    cell(tr, 'name', p.name); cell(tr, 'value', fmt(p.value, 4));
    cell(tr, 'start', String(p.start)); cell(tr, 'min', String(p.min)); cell(tr, 'max', String(p.max));
  });
  rows('workers', j.workers || [], (tr, w) => {
    if (w.outlier) tr.className = 'outlier';
    cell(tr, 'id', String(w.id)); cell(tr, 'host', w.host); cell(tr, 'pairs', String(w.pairs));
    cell(tr, 'gpm', fmt(w.games_per_minute, 1)); cell(tr, 'time_losses', String(w.time_losses));
    cell(tr, 'crashes', String(w.crashes)); cell(tr, 'mean', fmt(w.mean, 3));
    cell(tr, 'residual', (w.residual === null ? 'n/a' : fmt(w.residual, 2)) +
      (w.outlier ? ' outlier' : '') + (w.purged ? ' purged' : ''));
    cell(tr, 'nps', String(w.nps) + (w.noisy ? ' noisy' : ''));
    cell(tr, 'speed', fmt(w.speed_factor, 2)); cell(tr, 'clock', w.clock || '');
    cell(tr, 'build', (w.build_seconds === null ? '' : fmt(w.build_seconds, 1) + ' s') +
      (w.revision_nps || []).map(r => '; ' + r.engine + ' ' + r.nps + ' nps').join(''));
  });
  const rv = j.revisions;
  setText('repo', rv ? 'built by each worker from ' + rv.repo : 'engines as given (no revisions)');
  rows('revisions', rv ? rv.sides : [], (tr, r) => {
    cell(tr, 'role', r.role); cell(tr, 'rev', r.rev); cell(tr, 'commit', r.commit);
    cell(tr, 'engine', r.engine); cell(tr, 'bench', r.bench + ' (' + r.bench_from + ')');
  });
  rows('refusals', j.refusals || [], (tr, r) => {
    tr.className = 'outlier';
    cell(tr, 'host', r.host); cell(tr, 'pid', String(r.pid)); cell(tr, 'at', r.at);
    cell(tr, 'reason', r.reason);
  });
}"#,
    )
}

/// `/machines`: every worker process.
pub fn machines_page() -> String {
    page(
        "Machines",
        "/api/machines",
        "<table><thead><tr><th>host</th><th>worker</th><th>pid</th><th>test</th>\
         <th>state</th><th>cores</th><th>games at once</th><th>bench nps</th><th>speed</th>\
         <th>clock</th><th>pairs</th><th>games/min</th><th>last heartbeat</th></tr></thead>\
         <tbody id=\"machines\"></tbody></table>",
        r#"function render(j) {
  rows('machines', j.machines, (tr, m) => {
    cell(tr, 'host', m.host); cell(tr, 'id', String(m.id)); cell(tr, 'pid', String(m.pid));
    testLink(cell(tr, 'test', ''), m.test);
    cell(tr, 'state', m.active ? 'active' : 'gone');
    cell(tr, 'cores', m.cores === null ? 'n/a' : String(m.cores));
    cell(tr, 'concurrency', String(m.concurrency));
    cell(tr, 'nps', String(m.nps) + (m.noisy ? ' noisy' : ''));
    cell(tr, 'speed', fmt(m.speed_factor, 2)); cell(tr, 'clock', m.clock || '');
    cell(tr, 'pairs', String(m.pairs));
    cell(tr, 'gpm', fmt(m.games_per_minute, 1));
    cell(tr, 'heartbeat', fmt(m.last_heartbeat_seconds, 0) + ' s ago');
  });
}"#,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_fetch_their_api_and_capture_errors() {
        for (html, api) in [
            (tests_page(), "/api/tests"),
            (test_page("e2e"), "/api/test/e2e"),
            (machines_page(), "/api/machines"),
        ] {
            assert!(html.contains(&format!("const API = '{api}';")), "{api}");
            assert!(html.contains("id=\"js-errors\"") && html.contains("setInterval(refresh"));
            // Untrusted text only through textContent.
            assert!(!html.contains("innerHTML = t") && !html.contains("innerHTML = m"));
        }
    }
}
