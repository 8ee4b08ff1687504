// Gogo board. The page draws what the server says; every rule (legal moves, promotion
// choices, results, SFENs, records) comes from the server's rules core.
"use strict";

// Kanji of each kind: [sente's, gote's] (the kings differ, as on a real set).
const GLYPH = {
  K: ["玉", "王"], G: ["金", "金"], S: ["銀", "銀"], B: ["角", "角"], R: ["飛", "飛"],
  P: ["歩", "歩"], "+S": ["全", "全"], "+B": ["馬", "馬"], "+R": ["龍", "龍"], "+P": ["と", "と"],
};
const LETTERS = { K: "K", G: "G", S: "S", B: "B", R: "R", P: "P", "+S": "+S", "+B": "H", "+R": "D", "+P": "T" };
const RANKS = ["a", "b", "c", "d", "e"];
const SVG_NS = "http://www.w3.org/2000/svg";

// The interface in English and Japanese: elements with data-t get their text from here, and
// so do the sentences of the page.
const TEXT = {
  en: {
    new: "New game", settings: "Settings", opponent: "Opponent", easy: "Computer: Easy",
    medium: "Computer: Medium", hard: "Computer: Hard", full: "Computer: Full strength",
    friend: "Friend", playas: "Play as", "sente-first": "Sente (moves first)", gote: "Gote",
    repetition: "Repetition", draw: "draw", gotewins: "gote wins", movelimit: "Move limit",
    pieces: "Pieces", letters: "letters", notation: "Notation", language: "Language",
    flip: "Flip", undo: "Undo", hint: "Hint", analysis: "Analysis", analyse: "Analyse",
    stopanalysis: "Stop analysis", lines: "Lines", graph: "Evaluation graph",
    review: "Analyse whole game", stopreview: "Stop review", moves: "Moves",
    mate: "Mate search", matebutton: "Search for mate", record: "Record", load: "Load game",
    copysfen: "Copy SFEN", copyusi: "Copy USI position", downloadkif: "Download KIF",
    downloadusi: "Download USI", "promote?": "Promote this piece?", promote: "Promote",
    nopromote: "Do not promote", sente: "Sente", gotename: "Gote", tomove: "to move",
    yourmove: "your move", thinking: "computer thinking…", check: "check!",
    viewing: "move {n} of {t}", end: "last position", searching: "searching…",
    mated: "The side to move is already checkmated", nomove: "No legal move here",
    nomate: "No mate", timeout: "No mate found in time", matein: "Mate in {n}: {line}",
    reviewpaused: "Live analysis pauses during the review.", dropped: "Moves after this one were dropped.",
  },
  ja: {
    new: "新規対局", settings: "設定", opponent: "相手", easy: "コンピュータ：初級",
    medium: "コンピュータ：中級", hard: "コンピュータ：上級", full: "コンピュータ：最強",
    friend: "対人", playas: "手番", "sente-first": "先手", gote: "後手",
    repetition: "千日手", draw: "引き分け", gotewins: "後手勝ち", movelimit: "手数制限",
    pieces: "駒", letters: "英字", notation: "表記", language: "言語",
    flip: "反転", undo: "待った", hint: "ヒント", analysis: "検討", analyse: "検討開始",
    stopanalysis: "検討停止", lines: "候補手", graph: "評価値グラフ",
    review: "全体を解析", stopreview: "解析停止", moves: "棋譜",
    mate: "詰み探索", matebutton: "詰みを探す", record: "棋譜の読み書き", load: "棋譜を読み込む",
    copysfen: "SFENをコピー", copyusi: "USIをコピー", downloadkif: "KIFを保存",
    downloadusi: "USIを保存", "promote?": "成りますか？", promote: "成る",
    nopromote: "不成", sente: "先手", gotename: "後手", tomove: "の手番",
    yourmove: "あなたの番", thinking: "考慮中…", check: "王手！",
    viewing: "{n}手目 / {t}手", end: "最終局面", searching: "探索中…",
    mated: "すでに詰んでいます", nomove: "指し手がありません",
    nomate: "詰みなし", timeout: "時間内に詰みは見つかりません", matein: "{n}手詰：{line}",
    reviewpaused: "解析中は検討を止めます。", dropped: "この後の指し手は消えました。",
  },
};
let lang = "en";
function t(key, vars) {
  let s = (TEXT[lang] && TEXT[lang][key]) || TEXT.en[key] || key;
  for (const k in vars || {}) s = s.replace("{" + k + "}", vars[k]);
  return s;
}
function applyLanguage() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  $("analyse-toggle").textContent = t(analysing ? "stopanalysis" : "analyse");
  $("review").textContent = t(reviewing ? "stopreview" : "review");
}

let G = null;            // the game state from the server, for the shown position (G.view)
let flipped = false;
let sel = null;          // {from: "5e"} or {drop: "G"}
let busy = false;        // the computer is thinking
let hint = null;         // a hinted move, for the position G.view
let analysing = false;
let reviewing = false;
let resumeAnalysis = false;
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

function atEnd() { return G && G.view === G.ply; }

function humanMayMove() {
  if (!G || G.shown_result || busy) return false;
  if (G.opponent === "computer") return G.side === G.human && !G.computer_to_move;
  return true;
}

// ---------------------------------------------------------------- pieces

function svgEl(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const k in attrs) el.setAttribute(k, attrs[k]);
  return el;
}

// A piece as SVG: the pentagon and the kanji outline (or a letter), no font needed.
function pieceSvg(kind, gote) {
  const svg = svgEl("svg", { viewBox: "0 0 100 100", "aria-hidden": "true" });
  svg.appendChild(svgEl("polygon", {
    points: "50,3 82,15 95,97 5,97 18,15", fill: "#f6dca4", stroke: "#8a6a30", "stroke-width": "2.5",
  }));
  const color = kind[0] === "+" ? "#c00000" : "#1a1a1a";
  if (document.body.classList.contains("letters")) {
    const text = svgEl("text", {
      x: "50", y: "76", "text-anchor": "middle", "font-size": kind.length > 1 && kind[0] === "+" && LETTERS[kind].length > 1 ? "36" : "50",
      "font-weight": "bold", "font-family": "system-ui, sans-serif", fill: color,
    });
    text.textContent = LETTERS[kind];
    svg.appendChild(text);
  } else {
    const ch = GLYPH[kind][gote ? 1 : 0];
    svg.appendChild(svgEl("path", { d: GLYPH_PATHS[ch], fill: color, transform: "translate(18 24) scale(0.064)" }));
  }
  return svg;
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
  $("download").href = "/api/game/" + G.id + "/kif";
  $("download-usi").href = "/api/game/" + G.id + "/usi";
  $("undo").disabled = busy || G.moves.length === 0;
  $("hint").disabled = busy || !!G.shown_result;
  $("mate").disabled = busy;
  $("review").disabled = busy && !reviewing;
  $("nav-first").disabled = $("nav-prev").disabled = G.view === 0;
  $("nav-next").disabled = $("nav-last").disabled = atEnd();
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
      span.appendChild(pieceSvg(p.k, gote));
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
  fillHand($("hand-top"), flipped ? "b" : "w", true);
  fillHand($("hand-bottom"), flipped ? "w" : "b", false);
}

// A hand strip; pieces in the top strip face down the board, whatever their colour.
function fillHand(el, color, top) {
  el.textContent = "";
  el.className = "hand " + (color === "w" ? "gote" : "sente") + (top ? " top" : " bottom") +
    (G.side === color && !G.shown_result ? " tomove" : "");
  el.dataset.color = color;
  const label = document.createElement("span");
  label.className = "side-label";
  label.textContent = color === "w" ? "☖ " + t("gotename") : "☗ " + t("sente");
  el.appendChild(label);
  const hand = G.hands[color];
  for (const k of ["R", "B", "G", "S", "P"]) {
    if (!hand[k]) continue;
    const b = document.createElement("button");
    b.className = "handpiece";
    b.dataset.hand = color + "-" + k;
    b.title = k;
    if (sel && sel.drop === k && G.side === color) b.classList.add("selected");
    b.appendChild(pieceSvg(k, false));
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
  const past = atEnd() ? "" : " · " + t("viewing", { n: G.view, t: G.ply });
  const result = G.shown_result;
  if (result) {
    st.textContent = result.text + past;
    st.className = "over";
    st.dataset.reason = result.reason;
    return;
  }
  st.className = atEnd() ? "" : "past";
  delete st.dataset.reason;
  const side = G.side === "b" ? t("sente") + " (☗)" : t("gotename") + " (☖)";
  let text = side + " " + t("tomove");
  if (G.opponent === "computer" && atEnd()) text += " · " + (G.computer_to_move ? t("thinking") : t("yourmove"));
  if (G.check) text += " · " + t("check");
  st.textContent = text + past;
}

function cellCenter(sq) {
  let i = sqIndex(sq);
  if (flipped) i = 24 - i;
  return [(i % 5) * 100 + 50, Math.floor(i / 5) * 100 + 50];
}

function arrow(svg, from, to, color) {
  const [x1, y1] = cellCenter(from);
  const [x2, y2] = cellCenter(to);
  svg.appendChild(svgEl("line", {
    x1, y1, x2, y2, stroke: color, "stroke-width": "12", "stroke-linecap": "round",
    opacity: "0.7", "marker-end": "url(#head)",
  }));
}

function renderArrows() {
  const svg = $("arrows");
  svg.innerHTML = '<defs><marker id="head" markerWidth="4" markerHeight="4" refX="2" refY="2" orient="auto">' +
    '<path d="M0,0 L4,2 L0,4 z" fill="#2a6fb0"/></marker></defs>';
  if (hint && hint.from) arrow(svg, hint.from, hint.to, "#2a6fb0");
}

function graphX(i, n) { return (i / n) * 400; }

function renderGraph() {
  const svg = $("graph");
  const scores = (G.evals && G.evals.scores) || [];
  const marks = (G.evals && G.evals.marks) || [];
  const n = Math.max(scores.length - 1, 1);
  const y = (cp) => 60 - Math.max(-1000, Math.min(1000, cp)) * 0.055;
  let html = '<line class="axis" x1="0" y1="60" x2="400" y2="60"/>';
  const pts = [];
  scores.forEach((s, i) => { if (s !== null) pts.push(graphX(i, n).toFixed(1) + "," + y(s).toFixed(1)); });
  if (pts.length > 1) html += '<polyline class="curve" points="' + pts.join(" ") + '"/>';
  marks.forEach((m, i) => {
    if (m && m.mark !== "good" && scores[i + 1] !== null) {
      html += '<circle class="dot ' + m.mark + '" cx="' + graphX(i + 1, n).toFixed(1) + '" cy="' + y(scores[i + 1]).toFixed(1) + '" r="4"/>';
    }
  });
  const x = graphX(G.view, n).toFixed(1);
  html += '<line class="now" x1="' + x + '" y1="0" x2="' + x + '" y2="120"/>';
  svg.innerHTML = html;
}

const MARK_SIGN = { good: "", inaccuracy: "?!", mistake: "?", blunder: "??" };

function moveText(i) {
  if (notation() === "ja" && G.moves_ja && G.moves_ja[i]) return G.moves_ja[i];
  const who = (G.start_sfen.split(" ")[1] === "b") === (i % 2 === 0) ? "☗" : "☖";
  return who + G.moves[i];
}

function renderMoves() {
  const ol = $("movelist");
  ol.textContent = "";
  const marks = (G.evals && G.evals.marks) || [];
  G.moves.forEach((m, i) => {
    const li = document.createElement("li");
    const mk = marks[i];
    li.textContent = moveText(i) + (mk ? " " + MARK_SIGN[mk.mark] : "");
    li.dataset.ply = i + 1;
    li.dataset.usi = m;
    if (mk) { li.className = mk.mark; li.title = mk.mark + " (loss " + mk.loss + ")"; li.dataset.mark = mk.mark; }
    if (i + 1 === G.view) li.classList.add("shown");
    ol.appendChild(li);
  });
  const shown = ol.querySelector("li.shown");
  if (shown) {
    // Scroll the list's own box only, never the page.
    const top = shown.offsetTop - ol.offsetTop;
    if (top < ol.scrollTop || top + shown.offsetHeight > ol.scrollTop + ol.clientHeight) {
      ol.scrollTop = top - ol.clientHeight / 2;
    }
  }
}

function notation() { return $("notation").value; }

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

// Plays from the shown position; from an earlier one, the moves after it are dropped.
async function playMoves(moves) {
  const body = { moves };
  const truncates = !atEnd();
  if (truncates) body.ply = G.view;
  try {
    const s = await api("POST", "/api/game/" + G.id + "/move", body);
    setState(s);
    say(truncates ? t("dropped") : "");
  } catch (e) {
    say("Move refused: " + e.message);
    render();
  }
}

function remember() {
  if (!G) return;
  const hash = "#" + G.id + (atEnd() ? "" : "/" + G.view);
  if (location.hash !== hash) history.replaceState(null, "", location.pathname + location.search + hash);
}

function setState(s) {
  const changed = !G || G.version !== s.version || G.id !== s.id;
  const moved = changed || G.view !== s.view;
  G = s;
  if (moved) { hint = s.hint || null; sel = null; }
  if (G.shown_result) hint = null;
  render();
  remember();
  if (changed) afterChange();
  else if (moved && analysing) startAnalysis();
}

function afterChange() {
  if (G.computer_to_move && !busy) {
    computerMove();
  } else if (analysing) {
    startAnalysis();
  }
}

// The position asked for last (quick key presses step from it, not from the one on screen).
let wantView = null;
let viewRequest = 0;

async function showPly(ply) {
  if (!G || busy) return;
  const n = Math.max(0, Math.min(G.ply, ply));
  if (n === (wantView === null ? G.view : wantView)) return;
  wantView = n;
  const asked = ++viewRequest;
  try {
    const s = await api("GET", "/api/game/" + G.id + (n === G.ply ? "" : "?ply=" + n));
    if (asked !== viewRequest) return; // a later step is on its way
    wantView = null;
    setState(s);
  } catch (e) { wantView = null; say(e.message); }
}

function shownView() { return wantView === null ? G.view : wantView; }

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

function newGameBody(record) {
  const opp = $("opponent").value;
  const body = {
    opponent: opp === "friend" ? "friend" : "computer",
    human: $("human").value,
    sennichite: $("sennichite").value,
    max_plies: Number($("maxplies").value) || 0,
  };
  if (opp !== "friend") body.level = opp.split("-")[1];
  if (G) body.replaces = G.id; // the old game of this page is dropped
  if (record) body.record = record;
  const think = new URLSearchParams(location.search).get("think_ms");
  if (think) body.think_ms = Number(think);
  return body;
}

// Clears what belonged to the previous game or task.
function clearAnalysisDisplay() {
  $("lines").textContent = "";
  $("an-stats").textContent = "";
  $("evaltext").textContent = "";
  $("evalfill").style.height = "50%";
}

function clearGameDisplay() {
  say("");
  hint = null;
  $("mate-result").textContent = "";
  delete $("mate-result").dataset.status;
  $("review-text").textContent = "";
  $("review-progress").value = 0;
  reviewing = false;
  $("review").textContent = t("review");
  clearAnalysisDisplay();
}

async function newGame(record) {
  try {
    const s = await api("POST", "/api/new", newGameBody(record));
    busy = false;
    G = null;
    clearGameDisplay();
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
  say(t("searching"));
  try {
    const r = await api("POST", "/api/game/" + G.id + "/hint", { ply: G.view });
    if (r.ply === G.view) hint = r.hint;
    say(t("hint") + ": " + r.hint.usi);
    render();
  } catch (e) { say(t("hint") + ": " + e.message); }
  if (analysing) startAnalysis();
}

async function mateSearch() {
  const out = $("mate-result");
  out.textContent = t("searching");
  delete out.dataset.status;
  try {
    const r = await api("POST", "/api/game/" + G.id + "/mate", { ms: 5000, ply: G.view });
    out.dataset.status = r.status;
    if (r.status === "mate") out.textContent = t("matein", { n: r.plies, line: r.line.join(" ") });
    else if (r.status === "mated") out.textContent = t("mated");
    else if (r.status === "nomove") out.textContent = t("nomove");
    else if (r.status === "nomate") out.textContent = t("nomate");
    else out.textContent = t("timeout");
  } catch (e) { out.textContent = e.message; }
  if (analysing) startAnalysis();
}

function copy(text) {
  const box = $("copy-box");
  box.value = text;
  box.select();
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => say("Copied."), () => say("Select and copy the text below."));
}

// A record file: UTF-8 (lishogi), or the older Shift_JIS of Kifu for Windows.
function decodeRecord(bytes) {
  try { return new TextDecoder("utf-8", { fatal: true }).decode(bytes); } catch (e) {
    return new TextDecoder("shift_jis").decode(bytes);
  }
}

async function loadFile(file) {
  if (!file) return;
  if (file.size > 60000) { say("The file is too large for a record."); return; }
  const text = decodeRecord(new Uint8Array(await file.arrayBuffer()));
  $("sfen-input").value = text;
  newGame(text);
}

// ---------------------------------------------------------------- analysis

async function startAnalysis() {
  clearAnalysisDisplay();
  try {
    await api("POST", "/api/game/" + G.id + "/analyse", { multipv: Number($("multipv").value), ply: G.view });
    poll();
  } catch (e) { say(t("analysis") + ": " + e.message); }
}

async function stopAnalysis() {
  try { await api("POST", "/api/game/" + G.id + "/stop"); } catch (e) { /* gone */ }
  clearAnalysisDisplay();
}

function schedulePoll() {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(poll, 300);
}

async function poll() {
  clearTimeout(pollTimer);
  if (!G) return;
  const id = G.id;
  let a;
  try { a = await api("GET", "/api/game/" + id + "/analysis"); } catch (e) { return; }
  if (!G || G.id !== id) return;
  if (a.kind === "analysis" && a.current && a.index === G.view && analysing) showLines(a);
  if (a.kind === "review") {
    const p = $("review-progress");
    p.max = Math.max(a.review.total, 1);
    p.value = a.review.done;
    $("review-text").textContent = a.running ? a.review.done + " / " + a.review.total
      : (a.review.done === a.review.total ? "done" : "stopped at " + a.review.done + " / " + a.review.total);
    try {
      const s = await api("GET", "/api/game/" + id + (atEnd() ? "" : "?ply=" + G.view));
      if (G.id === id && s.version === G.version) { G = s; render(); }
    } catch (e) { /* ignore */ }
    if (!a.running && reviewing) endReview();
  }
  if (a.running && (analysing || a.kind === "review")) schedulePoll();
  else if (reviewing && a.kind !== "review") endReview();
}

function endReview() {
  reviewing = false;
  $("review").textContent = t("review");
  if (resumeAnalysis) { resumeAnalysis = false; setAnalysing(true); }
}

// The lines, updated in place: a click that straddles an update still lands on its line.
function showLines(a) {
  const ol = $("lines");
  $("an-stats").textContent = a.depth ? "depth " + a.depth + " · " + Number(a.nodes).toLocaleString("en") + " nodes" + (a.running ? " · thinking" : "") : "";
  while (ol.children.length > a.lines.length) ol.lastChild.remove();
  a.lines.forEach((l, i) => {
    let li = ol.children[i];
    if (!li) {
      li = document.createElement("li");
      li.title = "click to play this line";
      const sc = document.createElement("span");
      sc.className = "score";
      li.appendChild(sc);
      li.appendChild(document.createElement("span"));
      ol.appendChild(li);
    }
    li.children[0].textContent = fmtScore(l.sente_cp);
    li.children[1].textContent = " d" + l.depth + " " + l.pv.join(" ");
    li.dataset.pv = l.pv.join(" ");
  });
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

function setAnalysing(on) {
  analysing = on;
  $("analyse-toggle").textContent = t(analysing ? "stopanalysis" : "analyse");
  if (analysing) { if (!busy) startAnalysis(); } else stopAnalysis();
}

async function review() {
  if (reviewing) { await stopAnalysis(); return; }
  try {
    await api("POST", "/api/game/" + G.id + "/review", { ms: 300 });
    reviewing = true;
    $("review").textContent = t("stopreview");
    if (analysing) {
      // One task at a time: live analysis pauses and comes back after the review.
      analysing = false;
      resumeAnalysis = true;
      $("analyse-toggle").textContent = t("analyse");
      clearAnalysisDisplay();
      say(t("reviewpaused"));
    }
    poll();
  } catch (e) { say(t("review") + ": " + e.message); }
}

// ---------------------------------------------------------------- wiring

function onKey(e) {
  const tag = (e.target && e.target.tagName) || "";
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || !G) return;
  const v = shownView();
  const to = { ArrowLeft: v - 1, ArrowRight: v + 1, Home: 0, End: G.ply }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  showPly(to);
}

function setting(id, key, fallback, apply) {
  let v = fallback;
  try { v = localStorage.getItem(key) || fallback; } catch (e) { /* private mode */ }
  $(id).value = v;
  apply(v);
  $(id).addEventListener("change", () => {
    try { localStorage.setItem(key, $(id).value); } catch (e) { /* private mode */ }
    apply($(id).value);
    render();
  });
}

async function resume(id, ply) {
  try {
    let s = await api("GET", "/api/game/" + id);
    if (ply !== null && ply < s.ply) s = await api("GET", "/api/game/" + id + "?ply=" + ply);
    flipped = s.human === "w";
    $("evalbar").classList.toggle("flipped", flipped);
    if (s.opponent === "friend") $("opponent").value = "friend";
    else { $("opponent").value = "computer-" + s.level; $("human").value = s.human; }
    setState(s);
    return true;
  } catch (e) { return false; }
}

async function wire() {
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
  $("record-file").addEventListener("change", (e) => loadFile(e.target.files[0]));
  $("copy-sfen").addEventListener("click", () => copy(G.sfen));
  $("copy-usi").addEventListener("click", () => copy(G.usi));
  $("analyse-toggle").addEventListener("click", () => setAnalysing(!analysing));
  $("multipv").addEventListener("change", () => { if (analysing && !busy) startAnalysis(); });
  $("lines").addEventListener("click", (e) => {
    const li = e.target.closest("li");
    if (li && li.dataset.pv) playLine(li.dataset.pv.split(" "));
  });
  $("movelist").addEventListener("click", (e) => {
    const li = e.target.closest("li");
    if (li) showPly(Number(li.dataset.ply));
  });
  $("graph").addEventListener("click", (e) => {
    if (!G) return;
    const r = $("graph").getBoundingClientRect();
    const n = Math.max(G.moves.length, 1);
    showPly(Math.round(((e.clientX - r.left) / r.width) * n));
  });
  $("nav-first").addEventListener("click", () => showPly(0));
  $("nav-prev").addEventListener("click", () => showPly(shownView() - 1));
  $("nav-next").addEventListener("click", () => showPly(shownView() + 1));
  $("nav-last").addEventListener("click", () => showPly(G.ply));
  document.addEventListener("keydown", onKey);
  setting("glyphs", "gogo-glyphs", "kanji", (v) => document.body.classList.toggle("letters", v === "letters"));
  setting("notation", "gogo-notation", "ja", () => {});
  setting("lang", "gogo-lang", "en", (v) => { lang = v; applyLanguage(); });
  // The settings are open on a wide screen and folded on a phone, where the board comes first.
  const wide = window.matchMedia("(min-width: 641px)");
  $("settings").open = wide.matches;
  wide.addEventListener("change", () => { $("settings").open = wide.matches; });
  const q = new URLSearchParams(location.search);
  if (q.get("opponent")) $("opponent").value = q.get("opponent");
  if (q.get("human")) $("human").value = q.get("human");
  // A reload (or a return through the history) keeps the game: its id is in the URL.
  const m = /^#([0-9a-f]{32})(?:\/(\d+))?$/.exec(location.hash);
  if (m && await resume(m[1], m[2] === undefined ? null : Number(m[2]))) return;
  const sfen = q.get("sfen");
  newGame(sfen || undefined);
}

wire();
