// Gogo board. The page draws what the server says; every rule (legal moves, promotion
// choices, results, SFENs) comes from the server's rules core.
"use strict";

const GLYPH = {
  K: ["玉", "王"], G: ["金", "金"], S: ["銀", "銀"], B: ["角", "角"], R: ["飛", "飛"],
  P: ["歩", "歩"], "+S": ["全", "全"], "+B": ["馬", "馬"], "+R": ["龍", "龍"], "+P": ["と", "と"],
};
const LETTERS = { K: "K", G: "G", S: "S", B: "B", R: "R", P: "P", "+S": "+S", "+B": "H", "+R": "D", "+P": "T" };
const RANKS = ["a", "b", "c", "d", "e"];

let G = null;            // the game state from the server
let flipped = false;
let sel = null;          // {from: "5e"} or {drop: "G"}
let busy = false;        // the computer is thinking
let hint = null;         // a hinted move
let analysing = false;
let pollTimer = null;
let pendingPromo = null;
let dragFrom = null;     // where a press started: a drag ends on another square

// Moves by click (press on the piece, then on the target) or by drag (press, move, release).
document.addEventListener("pointerup", (e) => {
  const from = dragFrom;
  dragFrom = null;
  if (!from || !sel) return;
  const under = document.elementFromPoint(e.clientX, e.clientY);
  const cell = under && under.closest ? under.closest(".cell") : null;
  if (cell && cell.dataset.sq !== from) clickSquare(cell.dataset.sq);
});

const $ = (id) => document.getElementById(id);

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (method === "POST") {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body || {});
  }
  const r = await fetch(path, opts);
  let j = null;
  try { j = await r.json(); } catch (e) { j = { error: "bad answer from the server" }; }
  if (!r.ok) { const err = new Error(j.error || ("HTTP " + r.status)); err.status = r.status; throw err; }
  return j;
}

function say(text) { $("message").textContent = text || ""; }

function sqIndex(sq) { return RANKS.indexOf(sq[1]) * 5 + (5 - Number(sq[0])); }
function sqName(i) { return String(5 - (i % 5)) + RANKS[Math.floor(i / 5)]; }

function fmtScore(cp) {
  if (cp === null || cp === undefined) return "";
  if (Math.abs(cp) >= 9000) {
    const n = 10000 - Math.abs(cp);
    return (cp > 0 ? "+M" : "-M") + n;
  }
  // Pawns, as players read evaluations (the engine counts centipawns).
  return (cp > 0 ? "+" : "") + (cp / 100).toFixed(2);
}

function glyph(kind, gote) {
  return document.body.classList.contains("letters") ? LETTERS[kind] : GLYPH[kind][gote ? 1 : 0];
}

function humanMayMove() {
  return G && !G.result && !busy && !G.computer_to_move;
}

// ---------------------------------------------------------------- drawing

function render() {
  if (!G) return;
  renderBoard();
  renderHands();
  renderStatus();
  renderArrows();
  renderGraph();
  renderMoves();
  $("download").href = "/api/game/" + G.id + "/record";
  $("undo").disabled = busy || G.moves.length === 0;
  $("hint").disabled = busy || !!G.result;
  $("mate").disabled = busy;
  $("review").disabled = busy;
}

function renderBoard() {
  const board = $("board");
  board.textContent = "";
  const targets = new Set(currentTargets().map((m) => m.to));
  const last = G.last_move;
  for (let k = 0; k < 25; k++) {
    const i = flipped ? 24 - k : k;
    const sq = sqName(i);
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.dataset.sq = sq;
    const p = G.board[i];
    if (p) {
      const span = document.createElement("span");
      const gote = p.c === "w";
      span.className = "piece " + (gote !== flipped ? "gote" : "sente") + (p.k[0] === "+" ? " promoted" : "");
      span.textContent = glyph(p.k, gote);
      span.dataset.piece = (gote ? "w" : "b") + p.k;
      cell.appendChild(span);
      cell.classList.add("occupied");
    }
    if (last && (last.to === sq || last.from === sq)) cell.classList.add("last");
    if (G.check === sq) cell.classList.add("check");
    if (sel && sel.from === sq) cell.classList.add("selected");
    if (targets.has(sq)) cell.classList.add("target");
    if (hint && hint.drop && hint.to === sq) cell.classList.add("hint");
    if ((k % 5) === 0 || Math.floor(k / 5) === 0) {
      const c = document.createElement("span");
      c.className = "coord";
      c.textContent = sq;
      cell.appendChild(c);
    }
    cell.addEventListener("pointerdown", (e) => { e.preventDefault(); dragFrom = sq; clickSquare(sq); });
    board.appendChild(cell);
  }
}

function renderHands() {
  const top = flipped ? "b" : "w";
  const bottom = flipped ? "w" : "b";
  fillHand($("hand-top"), top);
  fillHand($("hand-bottom"), bottom);
}

function fillHand(el, color) {
  el.textContent = "";
  el.className = "hand " + (color === "w" ? "gote" : "sente") + (G.side === color && !G.result ? " tomove" : "");
  el.dataset.color = color;
  const hand = G.hands[color];
  for (const k of ["R", "B", "G", "S", "P"]) {
    if (!hand[k]) continue;
    const b = document.createElement("button");
    b.className = "handpiece";
    b.dataset.hand = color + "-" + k;
    if (sel && sel.drop === k && G.side === color) b.classList.add("selected");
    const g = document.createElement("span");
    g.className = "glyph";
    g.textContent = glyph(k, false);
    b.appendChild(g);
    const c = document.createElement("span");
    c.className = "count";
    c.textContent = hand[k] > 1 ? hand[k] : "";
    b.appendChild(c);
    b.addEventListener("pointerdown", (e) => { e.preventDefault(); dragFrom = "hand"; clickHand(color, k); });
    b.addEventListener("click", (e) => { if (e.detail === 0) clickHand(color, k); }); // keyboard
    el.appendChild(b);
  }
}

function renderStatus() {
  const st = $("status");
  if (G.result) {
    st.textContent = G.result.text;
    st.className = "over";
    st.dataset.reason = G.result.reason;
    return;
  }
  st.className = "";
  delete st.dataset.reason;
  const side = G.side === "b" ? "Sente (☗)" : "Gote (☖)";
  let text = side + " to move";
  if (G.opponent === "computer") text += G.computer_to_move ? " · computer thinking…" : " · your move";
  if (G.check) text += " · check!";
  st.textContent = text;
}

function cellCenter(sq) {
  let i = sqIndex(sq);
  if (flipped) i = 24 - i;
  return [(i % 5) * 100 + 50, Math.floor(i / 5) * 100 + 50];
}

function arrow(svg, from, to, color) {
  const [x1, y1] = cellCenter(from);
  const [x2, y2] = cellCenter(to);
  const ns = "http://www.w3.org/2000/svg";
  const line = document.createElementNS(ns, "line");
  line.setAttribute("x1", x1); line.setAttribute("y1", y1);
  line.setAttribute("x2", x2); line.setAttribute("y2", y2);
  line.setAttribute("stroke", color); line.setAttribute("stroke-width", "12");
  line.setAttribute("stroke-linecap", "round"); line.setAttribute("opacity", "0.7");
  line.setAttribute("marker-end", "url(#head)");
  svg.appendChild(line);
}

function renderArrows() {
  const svg = $("arrows");
  svg.innerHTML = '<defs><marker id="head" markerWidth="4" markerHeight="4" refX="2" refY="2" orient="auto">' +
    '<path d="M0,0 L4,2 L0,4 z" fill="#2a6fb0"/></marker></defs>';
  if (hint && hint.from) arrow(svg, hint.from, hint.to, "#2a6fb0");
}

function renderGraph() {
  const svg = $("graph");
  const scores = (G.evals && G.evals.scores) || [];
  const marks = (G.evals && G.evals.marks) || [];
  const n = Math.max(scores.length - 1, 1);
  const x = (i) => (i / n) * 400;
  const y = (cp) => 60 - Math.max(-1000, Math.min(1000, cp)) * 0.055;
  let html = '<line class="axis" x1="0" y1="60" x2="400" y2="60"/>';
  let pts = [];
  scores.forEach((s, i) => { if (s !== null) pts.push(x(i).toFixed(1) + "," + y(s).toFixed(1)); });
  if (pts.length > 1) html += '<polyline class="curve" points="' + pts.join(" ") + '"/>';
  marks.forEach((m, i) => {
    if (m && m.mark !== "good" && scores[i + 1] !== null) {
      html += '<circle class="dot ' + m.mark + '" cx="' + x(i + 1).toFixed(1) + '" cy="' + y(scores[i + 1]).toFixed(1) + '" r="4"/>';
    }
  });
  html += '<line class="now" x1="' + x(G.ply).toFixed(1) + '" y1="0" x2="' + x(G.ply).toFixed(1) + '" y2="120"/>';
  svg.innerHTML = html;
}

const MARK_SIGN = { good: "", inaccuracy: "?!", mistake: "?", blunder: "??" };

function renderMoves() {
  const ol = $("movelist");
  ol.textContent = "";
  const marks = (G.evals && G.evals.marks) || [];
  G.moves.forEach((m, i) => {
    const li = document.createElement("li");
    const mk = marks[i];
    const who = (G.start_sfen.split(" ")[1] === "b") === (i % 2 === 0) ? "☗" : "☖";
    li.textContent = who + m + (mk ? " " + MARK_SIGN[mk.mark] : "");
    if (mk) { li.className = mk.mark; li.title = mk.mark + " (loss " + mk.loss + ")"; li.dataset.mark = mk.mark; }
    ol.appendChild(li);
  });
}

// ---------------------------------------------------------------- moving

function currentTargets() {
  if (!sel || !G) return [];
  if (sel.from) return G.legal.filter((m) => m.from === sel.from);
  return G.legal.filter((m) => m.drop === sel.drop);
}

function clickSquare(sq) {
  if (!humanMayMove()) return;
  const cands = currentTargets().filter((m) => m.to === sq);
  if (cands.length > 0) {
    const promo = cands.filter((m) => m.promote);
    const plain = cands.filter((m) => !m.promote);
    sel = null;
    if (promo.length && plain.length) {
      askPromotion(promo[0].usi, plain[0].usi);
    } else {
      playMoves([cands[0].usi]);
    }
    return;
  }
  const p = G.board[sqIndex(sq)];
  if (p && p.c === G.side && G.legal.some((m) => m.from === sq)) {
    sel = sel && sel.from === sq ? null : { from: sq };
  } else {
    sel = null;
  }
  render();
}

function clickHand(color, kind) {
  if (!humanMayMove() || color !== G.side) return;
  sel = sel && sel.drop === kind ? null : { drop: kind };
  render();
}

function askPromotion(yes, no) {
  pendingPromo = { yes, no };
  $("promo").hidden = false;
  render();
}

function answerPromotion(promote) {
  const p = pendingPromo;
  pendingPromo = null;
  $("promo").hidden = true;
  if (p) playMoves([promote ? p.yes : p.no]);
}

async function playMoves(moves) {
  try {
    const s = await api("POST", "/api/game/" + G.id + "/move", { moves });
    setState(s);
  } catch (e) {
    say("Move refused: " + e.message);
    render();
  }
}

function setState(s) {
  const changed = !G || G.version !== s.version || G.id !== s.id;
  G = s;
  if (changed) { hint = s.hint || null; sel = null; }
  render();
  if (changed) afterChange();
}

function afterChange() {
  if (G.computer_to_move && !busy) {
    computerMove();
  } else if (analysing) {
    startAnalysis();
  }
}

async function computerMove(attempt) {
  attempt = attempt || 0;
  busy = true;
  render();
  const id = G.id;
  try {
    const s = await api("POST", "/api/game/" + id + "/computer");
    busy = false;
    if (G.id === id) setState(s);
  } catch (e) {
    busy = false;
    if (e.status !== 409) say("Computer: " + e.message);
    if (G.id !== id) return;
    try {
      const s = await api("GET", "/api/game/" + id);
      const same = s.version === G.version;
      setState(s);
      // Its search was stopped but the game is unchanged: ask again (a few times at most).
      if (same && s.computer_to_move && attempt < 3) setTimeout(() => computerMove(attempt + 1), 200);
    } catch (e2) { say(e2.message); }
  }
}

// ---------------------------------------------------------------- buttons

function newGameBody(sfen) {
  const opp = $("opponent").value;
  const body = {
    opponent: opp === "friend" ? "friend" : "computer",
    human: $("human").value,
    sennichite: $("sennichite").value,
    max_plies: Number($("maxplies").value) || 0,
  };
  if (opp !== "friend") body.level = opp.split("-")[1];
  if (G) body.replaces = G.id; // the old game of this page is dropped
  if (sfen) body.sfen = sfen;
  const think = new URLSearchParams(location.search).get("think_ms");
  if (think) body.think_ms = Number(think);
  return body;
}

async function newGame(sfen) {
  try {
    const s = await api("POST", "/api/new", newGameBody(sfen));
    busy = false;
    G = null;
    say("");
    $("mate-result").textContent = "";
    $("lines").textContent = "";
    flipped = s.human === "w";
    $("evalbar").classList.toggle("flipped", flipped);
    setState(s);
  } catch (e) {
    say("New game refused: " + e.message);
  }
}

async function undo() {
  try { setState(await api("POST", "/api/game/" + G.id + "/undo")); say(""); } catch (e) { say("Undo: " + e.message); }
}

async function askHint() {
  say("Thinking about a hint…");
  try {
    const r = await api("POST", "/api/game/" + G.id + "/hint");
    hint = r.hint;
    say("Hint: " + r.hint.usi);
    render();
  } catch (e) { say("Hint: " + e.message); }
  if (analysing) startAnalysis();
}

async function mateSearch() {
  $("mate-result").textContent = "searching…";
  try {
    const r = await api("POST", "/api/game/" + G.id + "/mate", { ms: 5000 });
    const out = $("mate-result");
    out.dataset.status = r.status;
    if (r.status === "mate") out.textContent = "Mate in " + r.plies + ": " + r.line.join(" ");
    else if (r.status === "nomate") out.textContent = "No mate";
    else out.textContent = "No mate found in time";
  } catch (e) { $("mate-result").textContent = e.message; }
  if (analysing) startAnalysis();
}

function copy(text) {
  const box = $("copy-box");
  box.value = text;
  box.select();
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => say("Copied."), () => say("Select and copy the text below."));
}

// ---------------------------------------------------------------- analysis

async function startAnalysis() {
  try {
    await api("POST", "/api/game/" + G.id + "/analyse", { multipv: Number($("multipv").value) });
    poll();
  } catch (e) { say("Analysis: " + e.message); }
}

async function stopAnalysis() {
  try { await api("POST", "/api/game/" + G.id + "/stop"); } catch (e) { /* gone */ }
}

function schedulePoll() {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(poll, 300);
}

async function poll() {
  clearTimeout(pollTimer);
  if (!G) return;
  let a;
  try { a = await api("GET", "/api/game/" + G.id + "/analysis"); } catch (e) { return; }
  if (a.kind === "analysis" && a.current) showLines(a);
  if (a.kind === "review") {
    const p = $("review-progress");
    p.max = Math.max(a.review.total, 1);
    p.value = a.review.done;
    $("review-text").textContent = a.running ? a.review.done + " / " + a.review.total
      : (a.review.done === a.review.total ? "done" : "stopped at " + a.review.done + " / " + a.review.total);
    if (!a.running) { reviewing = false; $("review").textContent = "Analyse whole game"; }
    try { const s = await api("GET", "/api/game/" + G.id); if (s.version === G.version) { G = s; render(); } } catch (e) { /* ignore */ }
  }
  if (a.running && (analysing || a.kind === "review")) schedulePoll();
  else if (reviewing && a.kind !== "review") { reviewing = false; $("review").textContent = "Analyse whole game"; }
}

function showLines(a) {
  const ol = $("lines");
  ol.textContent = "";
  $("an-stats").textContent = a.depth ? "depth " + a.depth + " · " + Number(a.nodes).toLocaleString("en") + " nodes" + (a.running ? " · thinking" : "") : "";
  for (const l of a.lines) {
    const li = document.createElement("li");
    const sc = document.createElement("span");
    sc.className = "score";
    sc.textContent = fmtScore(l.sente_cp);
    li.appendChild(sc);
    li.appendChild(document.createTextNode(" d" + l.depth + " " + l.pv.join(" ")));
    li.dataset.pv = l.pv.join(" ");
    li.title = "click to play this line";
    li.addEventListener("click", () => playLine(l.pv));
    ol.appendChild(li);
  }
  if (a.lines.length) setEvalBar(a.lines[0].sente_cp);
}

function setEvalBar(cp) {
  const c = Math.max(-1500, Math.min(1500, cp));
  const frac = 1 / (1 + Math.exp(-c / 400));
  $("evalfill").style.height = (frac * 100).toFixed(1) + "%";
  $("evalbar").classList.toggle("flipped", flipped); // sente's share grows from sente's side
  $("evaltext").textContent = fmtScore(cp);
}

function playLine(pv) {
  if (!humanMayMove() || !pv.length) return;
  playMoves(G.opponent === "computer" ? [pv[0]] : pv);
}

let reviewing = false;

async function review() {
  if (reviewing) { await stopAnalysis(); return; }
  try {
    await api("POST", "/api/game/" + G.id + "/review", { ms: 300 });
    reviewing = true;
    $("review").textContent = "Stop review";
    analysing = false;
    $("analyse-toggle").textContent = "Analyse";
    poll();
  } catch (e) { say("Review: " + e.message); }
}

// ---------------------------------------------------------------- wiring

function wire() {
  $("new").addEventListener("click", () => newGame());
  $("flip").addEventListener("click", () => {
    flipped = !flipped;
    $("evalbar").classList.toggle("flipped", flipped);
    render();
  });
  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", askHint);
  $("promo-yes").addEventListener("click", () => answerPromotion(true));
  $("promo-no").addEventListener("click", () => answerPromotion(false));
  $("mate").addEventListener("click", mateSearch);
  $("review").addEventListener("click", review);
  $("setup").addEventListener("click", () => newGame($("sfen-input").value.trim()));
  $("copy-sfen").addEventListener("click", () => copy(G.sfen));
  $("copy-usi").addEventListener("click", () => copy(G.usi));
  $("analyse-toggle").addEventListener("click", () => {
    analysing = !analysing;
    $("analyse-toggle").textContent = analysing ? "Stop analysis" : "Analyse";
    if (analysing) { if (!busy) startAnalysis(); } else stopAnalysis();
  });
  $("multipv").addEventListener("change", () => { if (analysing && !busy) startAnalysis(); });
  const glyphs = localStorage.getItem("gogo-glyphs") || "kanji";
  $("glyphs").value = glyphs;
  document.body.classList.toggle("letters", glyphs === "letters");
  $("glyphs").addEventListener("change", () => {
    localStorage.setItem("gogo-glyphs", $("glyphs").value);
    document.body.classList.toggle("letters", $("glyphs").value === "letters");
    render();
  });
  const q = new URLSearchParams(location.search);
  if (q.get("opponent")) $("opponent").value = q.get("opponent");
  if (q.get("human")) $("human").value = q.get("human");
  newGame(q.get("sfen") || undefined);
}

wire();
