// vale-sim workbench page (docs/workbench.md).  Plain JavaScript, nothing loaded from outside.
"use strict";
const $ = (s) => document.querySelector(s);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
};
const state = { ws: null, game: null, games: [], table: null, runs: {}, deck: null, decks: null,
                wiEdits: [], balance: null };

// ---------------------------------------------------------------- talking to the server
// This page's session token (the server writes it into the page): every request that
// changes something sends it, and the server refuses one without it (docs/workbench.md).
const TOKEN = (document.querySelector('meta[name="vale-sim-token"]') || {}).content || "";
async function api(path, opts = {}) {
  const init = { method: opts.method || (opts.body !== undefined || opts.form ? "POST" : "GET") };
  if (init.method !== "GET") init.headers = { "X-Vale-Token": TOKEN };
  if (opts.form) init.body = opts.form;
  else if (opts.body !== undefined) {
    init.body = JSON.stringify(opts.body);
    init.headers["Content-Type"] = "application/json";
  }
  let r;
  try { r = await fetch(path, init); } catch (e) { throw new Error("the server does not answer (stopped?)"); }
  let data;
  try { data = await r.json(); } catch (e) { throw new Error(`the server answered ${r.status} without data`); }
  if (!r.ok) { const err = new Error(data.error || `error ${r.status}`); err.status = r.status; throw err; }
  return data;
}
function say(box, text, error = true) {
  const b = typeof box === "string" ? $(box) : box;
  if (!text) { b.hidden = true; b.textContent = ""; return; }
  b.hidden = false; b.textContent = text; b.classList.toggle("error", error);
}
const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v)) ? "–" : Number(v).toFixed(d);
const pp = (v, sign = true) => (v === null || v === undefined) ? "–" :
  ((sign && v > 0 ? "+" : "") + (100 * v).toFixed(1));
const share = (v) => (v === null || v === undefined) ? "–" : (100 * v).toFixed(1);
const ci0 = (c) => (Array.isArray(c) && c[0] !== null) ? `[${share(c[0])}, ${share(c[1])}]` : "";
const ci = (c) => (Array.isArray(c) && c[0] !== null) ? `[${pp(c[0])}, ${pp(c[1])}]` : "";

// ---------------------------------------------------------------- workspace (one per tab)
async function start() {
  const g = await api("/api/games");
  state.games = g.games;
  const sel = $("#game");
  for (const x of g.games) sel.append(el("option", { value: x.name, text: x.title }));
  const saved = sessionStorage.getItem("vale-ws");
  let table = null;
  if (saved) {
    try { table = await api(`/api/ws/${saved}/cards`); state.ws = saved; } catch (e) { table = null; }
  }
  if (!table) table = await newWorkspace(sessionStorage.getItem("vale-game") || g.default);
  showTable(table);
  sel.addEventListener("change", async () => { showTable(await newWorkspace(sel.value)); });
}
async function newWorkspace(game) {
  const r = await api("/api/workspaces", { body: { game } });
  state.ws = r.id;
  sessionStorage.setItem("vale-ws", r.id);
  sessionStorage.setItem("vale-game", game);
  state.decks = null;
  state.wiEdits = [];
  return r.table;
}
const gameInfo = () => state.games.find((x) => x.name === state.game) || { players: [2, 3, 4] };

// ---------------------------------------------------------------- cards
function showTable(t) {
  const gameChanged = state.game !== t.game;
  state.table = t; state.game = t.game;
  $("#game").value = t.game;
  $("#set-label").textContent = `card set ${t.set_name} (${t.set})` + (t.edits.length ? `, ${t.edits.length} edit(s)` : "");
  const b = $("#bundled"); b.replaceChildren(...t.bundled.map((n) => el("option", { value: n, text: n })));
  if (t.bundled.includes(t.set)) b.value = t.set;
  const d = $("#downloads"); d.replaceChildren("Download: ");
  for (const f of t.downloads) {
    d.append(el("a", { href: `/api/ws/${state.ws}/download?format=${f}`, class: "dl", "data-format": f,
                       text: { toml: "TOML", csv: "CSV", edits: "edits file" }[f], onclick: download }), " ");
  }
  $("#edits-summary").textContent = t.edits.length ? "Edits: " + t.edits.map((e) =>
    `${e.card}.${e.field} ${e.old} → ${e.new} (${e.source})`).join("; ") : "No edits: the table is the loaded set.";
  const pr = $("#problems");
  pr.hidden = !t.problems.length;
  pr.textContent = t.problems.length ? "Cannot be played: " + t.problems.join(" · ") : "";
  $("#source-counts").textContent = "numbers by source: " + Object.entries(t.numbers_by_source)
    .map(([k, v]) => `${k} ${v}`).join(", ");
  renderCards();
  fillWhatIfPickers();
  fillCurvePickers();
  if (gameChanged) { playerBoxes("#wi-players", [2]); playerBoxes("#bal-players", [2]); playerBoxes("#cv-players", [2]); fieldPickers(); }
}
// The field pickers: the game's strongest bundled field (the default of every run, as the
// CLI's) or its default bot, for comparison.
function fieldPickers() {
  const g = gameInfo();
  for (const sel of document.querySelectorAll(".field-pick")) {
    sel.options[0].textContent = `the strongest bundled field, ${g.field || "the game's"}`;
    sel.options[1].value = g.default_policy || "balanced";
    sel.options[1].textContent = `${g.default_policy || "balanced"} (the default bot, for comparison)`;
    sel.value = "";
  }
  for (const s of document.querySelectorAll(".field-name")) s.textContent = g.field ? `(${g.field})` : "";
}
function renderCards() {
  const t = state.table, q = $("#card-filter").value.trim().toLowerCase();
  const body = $("#cards-table tbody");
  const rows = [];
  for (const c of t.cards) {
    if (q && !c.name.toLowerCase().includes(q)) continue;
    const nums = el("td", { class: "numbers" });
    for (const n of c.numbers) {
      const edited = n.value !== n.loaded;
      const box = el("span", { class: "n" + (edited ? " edited" : ""), "data-field": n.field }, n.field + " ");
      if (n.editable) {
        const inp = el("input", { value: n.value, "data-card": c.name, "data-field": n.field,
                                  "aria-label": `${c.name} ${n.field}`, title: `loaded value ${n.loaded}` });
        inp.addEventListener("keydown", (ev) => { if (ev.key === "Enter") inp.blur(); });
        inp.addEventListener("change", () => editCell(inp));
        box.append(inp);
      } else {
        box.append(el("span", { class: "v", text: typeof n.value === "object" ? JSON.stringify(n.value) : String(n.value) }));
      }
      box.append(" ", el("span", { class: `src src-${n.source}`, text: n.source }));
      nums.append(box);
    }
    const curve = el("td", {}, c.curve ? el("button", { class: "curve-open", "data-card": c.name,
      text: "price curve", title: `play ${c.name} at every value of one number (the Curve tab)`,
      onclick: () => openCurve(c.name) }) : null);
    rows.push(el("tr", { "data-card": c.name, "data-type": c.type },
      el("td", { text: c.type }), el("td", { text: c.name }),
      el("td", {}, el("span", { class: `src src-${c.source}`, text: c.source })), nums, curve));
  }
  body.replaceChildren(...rows);
}
async function editCell(inp) {
  try {
    const r = await api(`/api/ws/${state.ws}/edit`, { body: { card: inp.dataset.card, field: inp.dataset.field, value: inp.value } });
    say("#cards-message", "");
    const keep = [inp.dataset.card, inp.dataset.field];
    showTable(r.table);
    const again = document.querySelector(`#cards-table input[data-card="${CSS.escape(keep[0])}"][data-field="${CSS.escape(keep[1])}"]`);
    if (again) again.setAttribute("aria-invalid", "false");
  } catch (e) {
    inp.setAttribute("aria-invalid", "true");
    inp.title = e.message;
    say("#cards-message", e.message);
  }
}
async function download(ev) {            // a refused download is a line on the page, not a JSON page
  ev.preventDefault();
  const a = ev.currentTarget;
  let r;
  try { r = await fetch(a.href); } catch (e) { say("#cards-message", "the server does not answer (stopped?)"); return; }
  if (!r.ok) {
    let msg = `error ${r.status}`;
    try { msg = (await r.json()).error || msg; } catch (e) { /* keep the status */ }
    say("#cards-message", msg); return;
  }
  const name = (/filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "") || [])[1] || "cards";
  const url = URL.createObjectURL(await r.blob());
  const tmp = el("a", { href: url, download: name });
  document.body.append(tmp); tmp.click(); tmp.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  say("#cards-message", `downloaded ${name}`, false);
}
async function loadBundled() {
  try { showTable(await api(`/api/ws/${state.ws}/load`, { body: { set: $("#bundled").value } })); say("#cards-message", ""); state.decks = null; }
  catch (e) { say("#cards-message", e.message); }
}
async function upload() {
  const f = $("#upload-file").files[0];
  if (!f) { say("#cards-message", "choose a .toml or .csv card set first"); return; }
  const form = new FormData(); form.append("file", f, f.name);
  try { showTable(await api(`/api/ws/${state.ws}/upload`, { form })); say("#cards-message", `loaded ${f.name}`, false); state.decks = null; }
  catch (e) { say("#cards-message", e.message); }
}
async function resetEdits() {
  try { showTable(await api(`/api/ws/${state.ws}/reset`, { body: {} })); say("#cards-message", ""); }
  catch (e) { say("#cards-message", e.message); }
}

// ---------------------------------------------------------------- runs (worker processes)
function runUI(prefix) {
  return { run: $(`#${prefix}-run`), cancel: $(`#${prefix}-cancel`), bar: $(`#${prefix}-progress`),
           status: $(`#${prefix}-status`), message: $(`#${prefix}-message`), result: $(`#${prefix}-result`) };
}
async function startRun(kind, params, ui, onDone) {
  say(ui.message, "");
  ui.result.replaceChildren();
  let run;
  try { run = await api(`/api/ws/${state.ws}/runs`, { body: { kind, params } }); }
  catch (e) { say(ui.message, e.message); return; }
  if (run.instant) {                     // computed at once (the odds of a usual deck)
    ui.result.dataset.status = "done";
    if (ui.status) ui.status.textContent = "done (at once)";
    onDone(run.result, run);
    return;
  }
  state.runs[run.id] = kind;
  ui.run.disabled = true;
  if (ui.cancel) { ui.cancel.disabled = false; ui.cancel.onclick = () => cancelRun(run.id, ui); }
  ui.result.dataset.run = run.id;
  poll(run.id, ui, onDone);
}
async function cancelRun(id, ui) {
  try { await api(`/api/runs/${id}/cancel`, { body: {} }); } catch (e) { say(ui.message, e.message); }
}
async function poll(id, ui, onDone) {
  let r;
  try { r = await api(`/api/runs/${id}`); }
  catch (e) { finish(id, ui); say(ui.message, e.message); return; }
  if (ui.bar) {
    if (r.total) { ui.bar.max = r.total; ui.bar.value = r.done; } else if (r.status === "running") ui.bar.removeAttribute("value");
  }
  if (ui.status) ui.status.textContent = `${r.status}: ${r.text || ""}` + (r.total ? ` (${r.done}/${r.total})` : "") + ` · ${r.seconds} s`;
  ui.result.dataset.status = r.status;
  if (r.status === "done") {
    finish(id, ui);
    if (ui.bar) { ui.bar.max = 1; ui.bar.value = 1; }
    try { onDone(r.result, r); } catch (e) { say(ui.message, "could not show the result: " + e.message); }
  } else if (r.status === "failed" || r.status === "cancelled") {
    finish(id, ui);
    if (ui.bar) { ui.bar.max = 1; ui.bar.value = 0; }
    say(ui.message, r.status === "cancelled" ? `Run ${r.error || "cancelled"}.` : r.error, r.status === "failed");
  } else {
    setTimeout(() => poll(id, ui, onDone), 400);
  }
}
function finish(id, ui) {
  delete state.runs[id];
  ui.run.disabled = false;
  if (ui.cancel) ui.cancel.disabled = true;
}
window.addEventListener("pagehide", () => {   // a keepalive fetch outlives the page and carries the token
  if (state.ws && Object.keys(state.runs).length) {
    fetch(`/api/ws/${state.ws}/closed`, { method: "POST", keepalive: true, headers: { "X-Vale-Token": TOKEN } }).catch(() => {});
  }
});

function playerBoxes(sel, checked) {
  const box = $(sel); box.replaceChildren();
  for (const p of gameInfo().players) {
    box.append(el("label", {}, el("input", { type: "checkbox", value: p, checked: checked.includes(p) }), ` ${p} `));
  }
}
const players = (sel) => [...document.querySelectorAll(`${sel} input:checked`)].map((x) => Number(x.value));

function table(columns, rows, cls = "") {
  return el("table", { class: cls }, el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { text: c })))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((v) => typeof v === "object" && v !== null && v.nodeType ? el("td", {}, v)
      : el("td", { class: typeof v === "number" ? "num" : "", text: typeof v === "number" ? (Number.isInteger(v) ? String(v) : fmt(v)) : (v === null ? "–" : String(v)) }))))));
}

// ---------------------------------------------------------------- odds
async function showOdds() {
  if (state.decks) return;
  let d;
  try { d = await api(`/api/ws/${state.ws}/decks`); } catch (e) { say("#odds-message", e.message); return; }
  state.decks = d;
  $("#odds-none").hidden = d.available; $("#odds-body").hidden = !d.available;
  if (!d.available) { $("#odds-none").textContent = d.why; return; }
  $("#odds-title").textContent = d.title;
  $("#pushes-word").textContent = d.words.pushes[0].toUpperCase() + d.words.pushes.slice(1);
  $("#odds-pushes").max = d.max_pushes;
  $("#deck-pick").replaceChildren(...Object.keys(d.decks).map((n) => el("option", { value: n, text: n })));
  $("#odds-goal").replaceChildren(...d.form.goals.map((g) => el("option", { value: g.value, text: g.label })));
  state.deck = JSON.parse(JSON.stringify(d.decks[Object.keys(d.decks)[0]]));
  renderDeck();
}
function fieldInput(f, value, id) {
  if (f.kind === "int") return el("input", { type: "number", min: f.min || 0, value: value ?? f.default ?? 1, "data-f": f.name, id, size: 4 });
  if (f.kind === "choice") {
    const s = el("select", { "data-f": f.name, id }, ...f.choices.map((c) => el("option", { value: c, text: c || "(none)" })));
    if (value !== undefined) s.value = value ?? "";
    return s;
  }
  const s = el("select", { "data-f": f.name, id, multiple: true, size: Math.min(6, f.choices.length) },
    ...f.choices.map((c) => el("option", { value: c, text: c, selected: (value || []).includes(c) })));
  return s;
}
function readField(f, node) {
  if (f.kind === "int") return Number(node.value);
  if (f.kind === "choice") return node.value;
  return [...node.selectedOptions].map((o) => o.value);
}
function renderDeck() {
  const form = state.decks.form, deck = state.deck;
  const top = $("#deck-top"); top.replaceChildren();
  for (const f of form.deck) {
    const inp = fieldInput(f, deck[f.name], `deck-${f.name}`);
    inp.addEventListener("change", () => { deck[f.name] = readField(f, inp); });
    top.append(el("label", {}, f.name + " ", inp));
  }
  const t = $("#deck-table");
  t.tHead.replaceChildren(el("tr", {}, ...form.entry.map((f) => el("th", { text: f.name })), el("th")));
  t.tBodies[0].replaceChildren(...(deck.cards || []).map((c, i) => el("tr", {},
    ...form.entry.map((f) => el("td", { text: Array.isArray(c[f.name]) ? c[f.name].join(" + ") : (c[f.name] ?? "") })),
    el("td", {}, el("button", { text: "remove", onclick: () => { deck.cards.splice(i, 1); renderDeck(); } })))));
  const add = $("#deck-add"); add.replaceChildren("Add a card: ");
  const inputs = form.entry.map((f) => { const n = fieldInput(f, undefined, `add-${f.name}`); add.append(el("label", {}, f.name + " ", n)); return [f, n]; });
  add.append(el("button", { id: "deck-add-btn", text: "Add", onclick: () => {
    const c = {};
    for (const [f, n] of inputs) { const v = readField(f, n); if (!(Array.isArray(v) && !v.length) && v !== "") c[f.name] = v; }
    (deck.cards = deck.cards || []).push(c); renderDeck();
  } }));
}
function runOdds() {
  startRun("odds", { deck: state.deck, pushes: Number($("#odds-pushes").value), goal: $("#odds-goal").value },
    { run: $("#odds-run"), status: $("#odds-status"), message: $("#odds-message"), result: $("#odds-result") },
    (r) => {
      const out = $("#odds-result");
      out.replaceChildren(
        el("p", { text: "Deck: " + r.deck.join("; ") }),
        table(r.columns, r.rows, "odds"),
        el("p", { class: "rule", text: r.rule.text }),
        table(r.rule.columns, r.rule.rows, "rule"),
        el("p", { class: "muted", text: `${r.note} ${r.states.toLocaleString()} states.` }));
    });
}

// ---------------------------------------------------------------- what-if
function fillWhatIfPickers() {
  const cards = state.table.cards.filter((c) => c.numbers.some((n) => n.editable));
  const cs = $("#wi-card"); const prev = cs.value;
  cs.replaceChildren(...cards.map((c) => el("option", { value: c.name, text: c.name })));
  if (cards.some((c) => c.name === prev)) cs.value = prev;
  fillFields();
}
function fillFields() {
  const c = state.table.cards.find((x) => x.name === $("#wi-card").value && x.numbers.some((n) => n.editable));
  $("#wi-field").replaceChildren(...(c ? c.numbers.filter((n) => n.editable) : []).map((n) =>
    el("option", { value: n.field, text: `${n.field} (now ${n.loaded})` })));
}
function renderWiEdits() {
  $("#wi-edits tbody").replaceChildren(...state.wiEdits.map((e, i) => el("tr", {},
    el("td", { text: e.card }), el("td", { text: e.field }), el("td", { text: e.old ?? "" }), el("td", { text: e.new }),
    el("td", {}, el("button", { text: "remove", onclick: () => { state.wiEdits.splice(i, 1); renderWiEdits(); } })))));
}
function addWiEdit() {
  const card = $("#wi-card").value, field = $("#wi-field").value, v = $("#wi-value").value.trim();
  if (!card || !field || !v) { say("#wi-message", "pick a card and a number, and type its new value"); return; }
  const c = state.table.cards.find((x) => x.name === card), n = c && c.numbers.find((x) => x.field === field);
  state.wiEdits = state.wiEdits.filter((e) => !(e.card === card && e.field === field));
  state.wiEdits.push({ card, field, old: n ? n.loaded : null, new: v });
  say("#wi-message", ""); renderWiEdits();
}
function runWhatIf() {
  startRun("what-if", { edits: state.wiEdits, rules: $("#wi-rules").value, players: players("#wi-players"), games: Number($("#wi-games").value),
                        cards: $("#wi-cards").value, engine: $("#wi-engine").value, seed: Number($("#wi-seed").value),
                        baseline: $("#wi-baseline").value, estimand: $("#wi-estimand").value },
    runUI("wi"), showWhatIf);
}
// "?" after a verdict near a label boundary: a rerun of this size reads another verdict
// more than 1 time in 10 (verdict_agreement below 0.9; docs/statistics.md 5.8)
const mark = (agreement) => (typeof agreement === "number" && agreement < 0.9) ? "?" : "";
function showWhatIf(r, run) {
  const out = $("#wi-result"); out.replaceChildren();
  out.append(el("p", { class: "wi-what", text: "What if " + r.edits.map((e) => `${e.card}.${e.field} ${e.old} → ${e.new}`)
    .concat(r.rules.map((x) => `rule ${x.name} ${JSON.stringify(x.old)} → ${JSON.stringify(x.new)}`)).join(", ") +
    `? Card set ${r.card_set}, field ${r.field}, estimand ${r.estimand}, seed ${r.seed}, engine ${r.engine}, ${r.games} games per card and arm.` +
    (r.chunks && r.chunks.reused ? ` ${r.chunks.reused} chunk(s) of games read back from earlier runs, ${r.chunks.played} played.` : "") }));
  const k = r.estimand === "natural" ? "natural" : "strength", what = r.estimand === "natural" ? "natural value" : "strength";
  if (r.figure) out.append(el("img", { src: `/reports/${run.id}/what-if.png`, alt: `${what} change of each card, edited minus original`, class: "figure" }));
  for (const pc of r.players) {
    out.append(el("h3", { text: `${pc.players} players: ${pc.deals} deals × ${pc.players} seatings per arm` }));
    for (const line of pc.summary) out.append(el("p", { text: line }));
    const rows = pc.cards.map((c) => {
      const tr = el("tr", { "data-card": c.card, "data-players": pc.players, class: c.moved ? "moved" : "" },
        el("td", { text: (c.edited_card ? "* " : "") + c.card }),
        el("td", { class: "num", text: `${pp(c[k + "_original"])} ${ci(c[k + "_original_ci"])}` }),
        el("td", { text: c.verdict_original + mark(c.verdict_agreement_original) }),
        el("td", { class: "num", text: `${pp(c[k + "_edited"])} ${ci(c[k + "_edited_ci"])}` }),
        el("td", { text: c.verdict_edited + mark(c.verdict_agreement_edited), class: c.verdict_changed ? "changed" : "" }),
        el("td", { class: "num change", "data-value": c.change, text: pp(c.change) }),
        el("td", { class: "num", text: ci(c.change_ci) }),
        el("td", { class: "num", text: ci(c.change_ci_adjusted) }),
        el("td", { text: c.moved ? "moved" : (c.within_noise ? "within noise" : "") }),
        el("td", { class: "num", text: `${c.deals_changed}/${c.n_deals}` }),
        // the other estimands (docs/statistics.md 5.7): per pick, how often bought, forced
        el("td", { class: "num per-pick", text: `${pp(c.per_pick_original)} ${ci(c.per_pick_original_ci)} → ${pp(c.per_pick_edited)} ${ci(c.per_pick_edited_ci)}` }),
        el("td", { class: "num acquired", text: `${share(c.acquired_original)} ${ci0(c.acquired_original_ci)} → ${share(c.acquired_edited)} ${ci0(c.acquired_edited_ci)}` }),
        el("td", { class: "num forced", text: `${pp(c.strength_original)} ${ci(c.strength_original_ci)} → ${pp(c.strength_edited)} ${ci(c.strength_edited_ci)}` }));
      return tr;
    });
    out.append(el("table", { class: "wi-cards" }, el("thead", {}, el("tr", {}, ...["card", `${what} original (pp)`, "verdict",
      `${what} edited (pp)`, "verdict", "change (pp)", "interval", "adjusted", "", "deals changed",
      "per pick (pp), original → edited", "bought (%), original → edited", "forced (pp), original → edited"].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...rows)));
    const g = pc.game.map((m) => {
      const k = m.measure.startsWith("seat_") ? 100 : 1, d = k === 100 ? 1 : 2;
      const f = (v) => (v === null || v === undefined) ? "–" : (k * v).toFixed(d);
      const c2 = (c) => Array.isArray(c) && c[0] !== null ? `[${f(c[0])}, ${f(c[1])}]` : "";
      return el("tr", { "data-measure": m.measure }, el("td", { text: m.what + (k === 100 ? " (pp)" : "") }),
        el("td", { class: "num", text: `${f(m.original)} ${c2(m.original_ci)}` }),
        el("td", { class: "num", text: `${f(m.edited)} ${c2(m.edited_ci)}` }),
        el("td", { class: "num change", "data-value": m.change, text: (m.change > 0 ? "+" : "") + f(m.change) }),
        el("td", { class: "num", text: c2(m.change_ci) }), el("td", { text: m.moved ? "moved" : "" }),
        el("td", { class: "num", text: `${m.deals_changed}/${m.n_deals}` }));
    });
    out.append(el("table", { class: "wi-game" }, el("thead", {}, el("tr", {}, ...["game-level measure", "original", "edited",
      "change", "interval", "", "deals changed"].map((h) => el("th", { text: h })))), el("tbody", {}, ...g)));
  }
  out.append(el("details", {}, el("summary", { text: "as text" }), el("pre", { text: r.text })));
}

// ---------------------------------------------------------------- price curve
function fillCurvePickers() {
  const cards = state.table.cards.filter((c) => c.curve);
  const cs = $("#cv-card"); const prev = cs.value;
  cs.replaceChildren(...cards.map((c) => el("option", { value: c.name, text: c.name })));
  if (cards.some((c) => c.name === prev)) cs.value = prev;
  fillCurveNumbers();
}
function fillCurveNumbers(number) {
  const c = state.table.cards.find((x) => x.name === $("#cv-card").value);
  const nums = c ? c.numbers.filter((n) => n.editable) : [];
  const sel = $("#cv-number"); const prev = number || sel.value;
  sel.replaceChildren(...nums.map((n) => el("option", { value: n.field, text: `${n.field} (now ${n.value})` })));
  // a cost first: "what should it cost?" (a number whose name starts with cost)
  const pick = nums.find((n) => n.field === prev) || nums.find((n) => n.field.startsWith("cost")) || nums[0];
  if (pick) sel.value = pick.field;
}
// The curve button of a card's row: the Curve tab with that card, run at once
function openCurve(card) {
  showTab("curve");
  $("#cv-card").value = card;
  $("#cv-values").value = "";
  fillCurveNumbers();
  if (!$("#cv-run").disabled) runCurve();
}
function runCurve() {
  startRun("curve", { card: $("#cv-card").value, number: $("#cv-number").value, values: $("#cv-values").value.trim() || null,
                      players: players("#cv-players"), games: Number($("#cv-games").value), engine: $("#cv-engine").value,
                      seed: Number($("#cv-seed").value), baseline: $("#cv-baseline").value, estimand: $("#cv-estimand").value },
    runUI("cv"), showCurve);
}
function showCurve(r, run) {
  const out = $("#cv-result"); out.replaceChildren();
  out.append(el("p", { class: "cv-what", text: `Price curve of ${r.card}.${r.number} (printed ${r.printed}), card set ${r.card_set}, ` +
    `field ${r.field}, estimand ${r.estimand}, seed ${r.seed}, ${r.games} games per value and arm (n = ` +
    Object.entries(r.n_deals).map(([p, n]) => `${n} deals at ${p} players`).join(", ") + ").",
  }));
  for (const line of r.summary) out.append(el("p", { class: "cv-summary", text: line }));
  if (r.figure) out.append(el("img", { src: `/reports/${run.id}/curve.png`, class: "figure",
    alt: `natural value of ${r.card} against its ${r.number}, the balanced range shaded` }));
  const rows = r.rows.map((x) => el("tr", { "data-players": x.players, "data-value": x.value, class: x.printed ? "moved" : "" },
    el("td", { class: "num", text: String(x.players) }), el("td", { class: "num", text: (x.printed ? "* " : "") + x.value }),
    el("td", { class: "verdict", text: x.verdict + mark(x.verdict_agreement) }),
    el("td", { class: "num", text: `${pp(x.natural_value)} ${ci(x.natural_ci)}` }),
    el("td", { class: "num", text: x.per_pick_value === null ? "never bought" : `${pp(x.per_pick_value)} ${ci(x.per_pick_ci)}` }),
    el("td", { class: "num", text: `${pp(x.forced_value)} ${ci(x.forced_ci)}` }),
    el("td", { class: "num", text: `${pp(x.acquired, false)}% ${ci(x.acquired_ci).replaceAll("+", "")}` }),
    el("td", { class: "num", text: String(x.n_deals) })));
  out.append(el("table", { class: "cv-rows" }, el("thead", {}, el("tr", {}, ...["players", "value", "verdict", "natural value (pp)",
    "per pick (pp)", "forced value (pp)", "bought (%)", "deals"].map((h) => el("th", { text: h })))), el("tbody", {}, ...rows)));
  out.append(el("p", { class: "muted", text: "* = printed; ? = a verdict a rerun of this size would read otherwise more than 1 time in 10." }));
  out.append(el("details", {}, el("summary", { text: "as text" }), el("pre", { text: r.text })));
}

// ---------------------------------------------------------------- balance
function runBalance() {
  startRun("balance", { fields: $("#bal-fields").value, cards: $("#bal-cards").value, players: players("#bal-players"),
                        games: Number($("#bal-games").value), margin_pp: Number($("#bal-margin").value),
                        engine: $("#bal-engine").value, seed: Number($("#bal-seed").value),
                        baseline: $("#bal-baseline").value, estimand: $("#bal-estimand").value },
    runUI("bal"), (r) => {
      state.balance = r;
      const out = $("#bal-result"); out.replaceChildren();
      out.append(el("p", { class: "bal-field", text: `Field ${r.field}, estimand ${r.estimand}, seed ${r.seed}.` }));
      // only the errata the confirmation confirmed are proposed and can be applied
      // (a result of the first design has no "confirmed": its edits were all it proposed)
      const edits = confirmedErrata(r);
      out.append(el("h3", { text: edits.length ? `Proposed errata (confirmed): ${edits.length}` : "No errata proposed" }));
      if (edits.length) {
        out.append(table(["card", "number", "from", "to", "values that also pass"], edits.map((e) => [e.card, e.field, String(e.old), String(e.new),
          e.passing ? `${e.passing[0]}..${e.passing[1]}` : "–"]), "errata"));
        out.append(el("button", { id: "bal-apply", text: "Apply the errata to the table", onclick: applyErrata }));
      }
      const unc = r.unconfirmed || [];
      if (unc.length) {
        out.append(el("h3", { text: `Not confirmed (not proposed, cannot be applied): ${unc.length}` }));
        out.append(table(["card", "number", "from", "to", "why"], unc.map((e) => [e.card, e.field, String(e.old), String(e.new), e.why]), "unconfirmed"));
      }
      const lines = r.summary_lines || Object.entries(r.unbalanced || {}).map(([c, why]) => `${c}: ${why}`);
      if (lines.length) out.append(el("ul", { class: "bal-summary" }, ...lines.map((l) => el("li", { text: l }))));
      out.append(el("details", {}, el("summary", { text: "the balancer's report" }), el("pre", { text: r.text })));
    });
}
function confirmedErrata(r) {
  return (r.edits || []).filter((e) => e.confirmed !== false);
}
async function applyErrata() {
  try {
    const edits = confirmedErrata(state.balance);
    if (!edits.length) throw new Error("No confirmed errata to apply.");
    showTable(await api(`/api/ws/${state.ws}/apply`, { body: { edits, source: "balance" } }));
    say("#bal-message", "Applied: the numbers are in the Cards table with source balance.", false);
  } catch (e) { say("#bal-message", e.message); }
}

// ---------------------------------------------------------------- report
function runReport() {
  startRun("report", { quick: $("#rep-quick").checked, engine: $("#rep-engine").value }, runUI("rep"), (r, run) => {
    const href = `/reports/${run.id}/index.html`;
    $("#rep-result").replaceChildren(el("p", {}, el("a", { href, target: "_blank", id: "rep-open", text: "Open the report" }),
      ` (field ${r.field}, estimand ${r.estimand}; ${Math.round(r.seconds || 0)} s, engine ${r.engine}, size ${r.size})`));
  });
}

// ---------------------------------------------------------------- wiring
function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const s of document.querySelectorAll(".tab")) s.classList.toggle("active", s.id === `tab-${name}`);
  if (name === "odds") showOdds();
}
document.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  $("#load-bundled").addEventListener("click", loadBundled);
  $("#upload-btn").addEventListener("click", upload);
  $("#reset-edits").addEventListener("click", resetEdits);
  $("#card-filter").addEventListener("input", renderCards);
  $("#deck-load").addEventListener("click", () => { state.deck = JSON.parse(JSON.stringify(state.decks.decks[$("#deck-pick").value])); renderDeck(); });
  $("#odds-run").addEventListener("click", runOdds);
  $("#wi-card").addEventListener("change", fillFields);
  $("#wi-add").addEventListener("click", addWiEdit);
  $("#wi-from-table").addEventListener("click", () => { state.wiEdits = state.table.edits.map((e) => ({ ...e })); renderWiEdits(); });
  $("#wi-run").addEventListener("click", runWhatIf);
  $("#bal-run").addEventListener("click", runBalance);
  $("#cv-card").addEventListener("change", () => fillCurveNumbers());
  $("#cv-run").addEventListener("click", runCurve);
  $("#rep-run").addEventListener("click", runReport);
  start().catch((e) => say("#message", e.message));
});
