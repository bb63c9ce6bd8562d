"""The run viewer's part of the report page: a filterable, sortable per-task table and run panels.

Plain HTML, CSS and a little vanilla JavaScript; the data (:func:`.viewer_data.viewer_data`) is
embedded as JSON in the page, so the page needs no server and loads nothing from the network.
Clicking a task opens its runs, two policies side by side (chosen in two selectors): each
with its request, predicates (credit, weight, evidence) and transcript (per step: actor, action,
the platform's verdict and code, the World effect, and the predicate credit gained or lost).
"""

from __future__ import annotations

import html
import json
from typing import Any

VIEWER_STYLE = """
body { max-width: 100rem; }
#tasks td, #tasks th { text-align: left; } #tasks td.score { text-align: right; font-variant-numeric: tabular-nums; }
#tasks tbody tr { cursor: pointer; } #tasks tbody tr:hover { background: #f5f8ff; }
#tasks th { cursor: pointer; user-select: none; } #tasks th.sorted-asc::after { content: " \\25B2"; }
#tasks th.sorted-desc::after { content: " \\25BC"; }
.full { color: #116329; } .zero { color: #a40e26; } .partial { color: #7d4e00; }
.controls { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; margin: 0.5rem 0; }
#run-view { display: none; margin-top: 1rem; border-top: 2px solid #ccc; padding-top: 0.5rem; }
.panels { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.panel { border: 1px solid #ddd; padding: 0.5rem; overflow-x: auto; font-size: 0.85rem; }
.panel table { font-size: 0.8rem; } .panel td, .panel th { text-align: left; vertical-align: top; }
.rejected { background: #fff0f0; } .gain { color: #116329; } .loss { color: #a40e26; }
.evidence { font-family: ui-monospace, monospace; font-size: 0.75rem; color: #444; max-width: 28rem;
            word-break: break-all; }
.request { background: #f7f7f7; padding: 0.4rem; }
"""

VIEWER_SCRIPT = r"""
(function () {
  const data = JSON.parse(document.getElementById('acw-data').textContent);
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
  const cls = (x) => x === null || x === undefined ? '' : (x >= 1 ? 'full' : (x <= 0 ? 'zero' : 'partial'));
  const fmt = (x) => x === null || x === undefined ? '-' : x.toFixed(3);
  let sortKey = 'task_id', sortDir = 1;
  const fams = [...new Set(data.tasks.map((t) => t.family))].sort();
  $('family-filter').innerHTML = '<option value="">all families</option>' +
    fams.map((f) => `<option>${esc(f)}</option>`).join('');
  for (const id of ['compare-a', 'compare-b']) {
    $(id).innerHTML = data.policies.map((p, i) => `<option value="${i}">${esc(p)}</option>`).join('');
  }
  if (data.policies.length > 1) { $('compare-b').value = '1'; }
  const value = (t, key) => key.startsWith('p') && key.length > 1 && !isNaN(key.slice(1))
    ? (t.scores[key.slice(1)] ?? -1) : t[key];
  function renderTable() {
    const q = $('task-filter').value.toLowerCase(), fam = $('family-filter').value, role = $('role-filter').value;
    const rows = data.tasks.filter((t) => (!fam || t.family === fam) && (!role || t.role === role) &&
      (!q || (t.task_id + ' ' + t.capability + ' ' + t.family).toLowerCase().includes(q)));
    rows.sort((a, b) => { const x = value(a, sortKey), y = value(b, sortKey); return (x < y ? -1 : x > y ? 1 : 0) * sortDir; });
    $('tasks').querySelector('tbody').innerHTML = rows.map((t) => `<tr data-task="${esc(t.task_id)}"><td>${esc(t.task_id)}</td>` +
      `<td>${esc(t.family)}</td><td>${esc(t.capability)}</td><td>${esc(t.role)}</td>` +
      data.policies.map((_, i) => `<td class="score ${cls(t.scores[i])}">${fmt(t.scores[i])}</td>`).join('') + '</tr>').join('');
    $('task-count').textContent = `${rows.length} of ${data.tasks.length} tasks`;
  }
  function credits(c) {
    return Object.entries(c).map(([k, v]) => `<span class="${v > 0 ? 'gain' : 'loss'}">${esc(k)} ${v > 0 ? '+' : ''}${v}</span>`).join('<br>');
  }
  function panel(key) {
    const r = data.runs[key];
    if (!r) { return '<p>no run of this policy on this task</p>'; }
    let h = `<h3>${esc(r.policy)} &middot; repeat ${esc(r.repeat)}</h3>`;
    if (!r.valid) { return h + `<p class="zero">unscored: ${esc(r.reason)}</p>`; }
    h += `<p>score <b class="${cls(r.score)}">${fmt(r.score)}</b> &middot; safe score <b class="${cls(r.safe_score)}">${fmt(r.safe_score)}</b>`
      + ((r.critical_failed || []).length ? ` (critical failed: ${esc(r.critical_failed.join(', '))})` : '')
      + (r.loss_group ? ` &middot; lost most in <b>${esc(r.loss_group)}</b>` : '') + '</p>';
    h += `<p class="request">${esc(r.request)}</p><h4>Predicates</h4><table class="predicates"><thead><tr><th>predicate</th>` +
      '<th>stage / group</th><th>weight</th><th>credit</th><th>evidence</th></tr></thead><tbody>' +
      r.predicates.map((p) => `<tr><td>${esc(p.id)}<br><small>${esc(p.kind)}${p.critical ? ' &middot; critical (' + esc(p.critical) + ')' : ''}</small></td><td>${esc(p.stage)}<br>${esc(p.loss_group)}</td>` +
        `<td>${p.weight}</td><td class="${cls(p.credit)}">${p.credit}</td><td class="evidence">${esc(JSON.stringify(p.evidence))}</td></tr>`).join('') +
      '</tbody></table><h4>Transcript</h4><table class="transcript"><thead><tr><th>#</th><th>round</th><th>actor</th><th>action</th>' +
      '<th>verdict</th><th>World effect</th><th>credit</th></tr></thead><tbody>' +
      r.steps.map((s) => `<tr class="${s.accepted ? '' : 'rejected'}"><td>${s.n}</td><td>${s.round}</td><td>${esc(s.actor)}</td>` +
        `<td>${esc(s.action)}</td><td>${s.replayed ? 'replayed' : (s.accepted ? 'accepted' : 'REJECTED')} <code>${esc(s.code)}</code>` +
        (s.message ? `<br><small>${esc(s.message)}</small>` : '') + `</td><td>${esc(s.effect.join(', '))}</td><td>${credits(s.credit)}</td></tr>`).join('') +
      '</tbody></table>';
    return h;
  }
  function openTask(tid) {
    const t = data.tasks.find((x) => x.task_id === tid);
    if (!t) { return; }
    const cols = [$('compare-a').value, $('compare-b').value].filter((v, i, a) => a.indexOf(v) === i);
    $('run-view').style.display = 'block';
    $('run-title').textContent = `${t.task_id} (${t.family}, ${t.capability}, ${t.role})`;
    $('run-panels').innerHTML = cols.map((p) => `<div class="panel" data-policy="${esc(data.policies[p])}">` +
      ((t.runs[p] || []).map(panel).join('') || '<p>no run of this policy on this task</p>') + '</div>').join('');
    $('run-view').dataset.task = tid;
  }
  $('tasks').querySelector('thead').addEventListener('click', (e) => {
    const th = e.target.closest('th'); if (!th) { return; }
    const key = th.dataset.key; sortDir = sortKey === key ? -sortDir : 1; sortKey = key;
    for (const h of $('tasks').querySelectorAll('th')) { h.className = h === th ? (sortDir > 0 ? 'sorted-asc' : 'sorted-desc') : ''; }
    renderTable();
  });
  $('tasks').querySelector('tbody').addEventListener('click', (e) => { const tr = e.target.closest('tr'); if (tr) { openTask(tr.dataset.task); } });
  $('task-filter').addEventListener('input', renderTable);
  for (const id of ['family-filter', 'role-filter']) { $(id).addEventListener('change', renderTable); }
  for (const id of ['compare-a', 'compare-b']) { $(id).addEventListener('change', () => { if ($('run-view').dataset.task) { openTask($('run-view').dataset.task); } }); }
  renderTable();
})();
"""


def _json_for_script(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` or comment opener can appear)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def viewer_html(data: dict[str, Any]) -> str:
    """The viewer's HTML: controls, the per-task table, the run area, its data and its script."""
    heads = "".join(f'<th data-key="p{i}">{html.escape(p)}</th>' for i, p in enumerate(data["policies"]))
    return f"""<h2 id="tasks-title">Tasks</h2>
<div class="controls">
<input id="task-filter" type="search" placeholder="filter tasks (id, capability, family)" size="40">
<select id="family-filter"></select>
<select id="role-filter"><option value="">both roles</option><option>buyer</option><option>merchant</option></select>
<span id="task-count"></span>
<label>compare <select id="compare-a"></select></label><label>with <select id="compare-b"></select></label>
</div>
<table id="tasks"><thead><tr><th data-key="task_id">task</th><th data-key="family">family</th>
<th data-key="capability">capability</th><th data-key="role">role</th>{heads}</tr></thead><tbody></tbody></table>
<p class="meta">Scores are the mean over repeats. Click a task to read its runs: predicates with evidence, and every
step with the platform's verdict, the World effect and the credit it gained or lost.</p>
<div id="run-view"><h2 id="run-title"></h2><div class="panels" id="run-panels"></div></div>
<script type="application/json" id="acw-data">{_json_for_script(data)}</script>
<script>{VIEWER_SCRIPT}</script>"""
