// The table page (players and spectators): score, the drawn table, the lance being
// said, showdown with photo and card picker, the count, live updates.
import { api, ApiError, t, plural, colon, semicolon, toast, untoast, watchNameLengths, h, svg, icon, cardName, newClientId, rememberTable, whyText } from "./common.js";
import { disputeText } from "./dispute.js";

const BOOT = JSON.parse(document.getElementById("boot").textContent);
const API = BOOT.api;
const TOKEN = BOOT.token;
const CAN_PLAY = BOOT.role === "play";
const LANCES = ["grande", "chica", "pares", "juego"];
const BET_PHASES = ["grande", "chica", "pares", "juego", "punto"];
const RANKS = ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"];
const SUITS = ["o", "c", "e", "b"];
const $ = (id) => document.getElementById(id);

let state = null;
let busy = false;
let busyWith = null; // the write on its way: its path
let busyFrom = null; // the version the write on its way was sent from (null: none)
let writeDone = null; // settled as it ends
let queued = null; // a tap on the grid drawn past the write on its way, sent after it: {path, body, before, mine, action, resolve}
let tapping = null; // the button whose tap is being taken (tapGuard), for write()
let show = null; // local showdown work: {hand, photo, slots, scan, bottom, boxSlot, unsure}
const MAX_PHOTOS = BOOT.max_photos ?? 4; // photos of one showdown read together
const LOW_CONF = BOOT.low_confidence ?? 0.7; // the reader's own threshold for "a person should check this card"
let masN = 2;
let envidoN = 2; // an opening envido: 2 stones, or any number the stepper says
let envidoFor = ""; // the hand and lance envidoN was set in
let seenDeje = 0;

// ------------------------------------------------------------------ helpers

const team = (seat) => seat % 2;
const playerName = (seat) => (state.players && state.players[seat]) || `${seat + 1}`;
const teamName = (tm) => (state.teams && state.teams[tm]) || `${tm + 1}`;
const handNumber = () => (state.hands ? state.hands.length : 0) + 1;
const current = () => state.current || {};
const scoreNow = () => (state.current && state.current.score) || state.score || [0, 0];
const rules = () => state.rules || {};
const target = () => rules().target || 40;
const matchWon = () => Boolean(state) && state.winner !== null && state.winner !== undefined;
const eskuNow = () => current().esku ?? state.esku ?? 0;  // the current hand's, chosen or by turn

// A live region's words, set only when they change: the same words set again (each render,
// at each change the stream brings) are read out again by a screen reader.
function say(el, text) {
  if (el && el.textContent !== text) el.textContent = text;
}

// A group of radios drawn again (the esku's seat, the photo's seat, the photos' tabs) keeps
// the keyboard's focus on its radio of the same value: an arrow key chooses, the choice
// draws the group again, and the focus fell to the page.
function keepRadioFocus(box, draw) {
  const had = box.contains(document.activeElement) ? document.activeElement.value : null;
  draw();
  if (had !== null) box.querySelector(`input[value="${CSS.escape(had)}"]`)?.focus();
}

// A group of radios whose choice is saved as it settles (the esku's seat, the seat the photo
// was taken from): the arrow keys move the choice from seat to seat, each a `change`, and a
// save at each wrote every seat on the way (from Ane to Maite, Bixente and Iker were saved as
// esku). `chose(value)` at a `change`: `save(value)` once the choice settles (RADIO_SETTLE_MS
// after the last arrow), at once with Enter or Space, as the focus leaves the group, or on a
// tap; then `after()`. `pending()`: the choice not saved yet ({value}), or null; `drop()`
// forgets it.
const RADIO_SETTLE_MS = 800;
function settlingRadios(box, save, after = () => {}) {
  let pending = null;  // {value, timer, saving}
  let arrow = false;  // the `change` under way comes from an arrow key
  const flush = async () => {
    const mine = pending;
    if (!mine || mine.saving) return;
    clearTimeout(mine.timer);
    mine.saving = true;
    try {
      await save(mine.value);
    } finally {
      if (pending === mine) pending = null;
      after();
    }
  };
  box.addEventListener("keydown", (e) => {
    if (e.key.startsWith("Arrow")) {
      arrow = true;  // its `change` comes before this task ends
      setTimeout(() => { arrow = false; });
    } else if ((e.key === "Enter" || e.key === " ") && pending) {
      e.preventDefault();
      flush();
    }
  });
  // the focus gone elsewhere (not a seat drawn again, which keepRadioFocus focuses anew)
  box.addEventListener("focusout", () => setTimeout(() => { if (pending && !box.contains(document.activeElement)) flush(); }));
  return {
    chose(value) {
      clearTimeout(pending?.timer);
      pending = { value, timer: arrow ? setTimeout(flush, RADIO_SETTLE_MS) : null };
      if (!arrow) flush();
    },
    pending: () => pending,
    drop() { clearTimeout(pending?.timer); pending = null; },
  };
}

function lanceLabel(lance) { return t(`lance.${lance}`); }
function phaseLabel(phase) {
  if (BET_PHASES.includes(phase)) return lanceLabel(phase);
  return t(`phase.${phase}`);
}

function actLabel(a) {
  switch (a.act) {
    case "envido": return a.n && a.n !== 2 ? t("act.envido_n", { n: a.n }) : t("act.envido");
    case "mas": return t("act.mas_n", { n: a.n ?? 2 });
    case "declare": {
      const lance = "pares" in a ? "pares" : "juego";
      return t(a[lance] ? "act.has" : "act.has_not", { lance: lanceLabel(lance) });
    }
    default: return t(`act.${a.act}`);
  }
}

// A "paso" said facing a bet is "for my part" (para mí no, nere gatik tira): that player is
// out of the lance and the partner still answers, where a "no quiero" refuses for the team.
function facingBet(log, i) {
  const lance = lanceOf(log[i], i);
  if (!log[i] || log[i].act !== "paso" || !lance) return false;
  for (let j = i - 1; j >= 0 && lanceOf(log[j], j) === lance; j--) if (["envido", "mas", "ordago"].includes(log[j].act)) return true;
  return false;
}
function saidLabel(log, i) { return facingBet(log, i) ? t("act.paso_mine") : actLabel(log[i]); }

// ------------------------------------------------------------------ the API

// A write or a photo lost on the way (the bar's wifi) is sent again with the same
// client_id, so the server applies it once: a retry of a write it did apply is answered as
// the first was, and a photo it stored is not read again. Lost is also an answer that has
// not come in TIMEOUT_MS (the wifi stalled: the connection open, nothing coming through);
// a photo, a large upload then read, gets several times as long.
const RETRY_MS = [800, 2000, 4000];
const TIMEOUT_MS = BOOT.live?.timeout_ms || 8000;
const PHOTO_TIMEOUT_MS = 6 * TIMEOUT_MS;

async function retrying(call) {
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await call();
      // through at last: "sending it again" no longer holds, nor covers the buttons
      if (attempt) untoast(t("table.resending"));
      return answer;
    } catch (e) {
      // a lost connection: no answer, or a proxy's 502-504 (an error the app itself gave,
      // with its code, is an answer: no card reader, too many streams)
      const lost = e instanceof ApiError && (e.status === 0
        || ([502, 503, 504].includes(e.status) && e.code === "generic"));
      if (!lost || attempt >= RETRY_MS.length) throw e;
      // said at each try, and left up until the next one has had its time
      toast(t("table.resending"), "warn", RETRY_MS[attempt] + Math.min(TIMEOUT_MS, 8000));
      await new Promise((done) => setTimeout(done, RETRY_MS[attempt]));
    }
  }
}

// What a tap asked for, in the page's words ("Paso", "Envido 5", "Deshacer"), for the
// notice that says it was not recorded; null for a write no one tapped (the cards kept).
function tapLabel(path, body) {
  switch (path) {
    case "actions": {
      const a = body.action || {};
      const answering = (current().legal || []).some((x) => x.act === "quiero");
      return a.act === "paso" && answering ? t("act.paso_mine") : actLabel(a);
    }
    case "mus": return t("table.mus");
    case "undo": return t("table.undo");
    case "esku": return t("esku.is", { name: playerName(body.seat) });
    case "showdown": return t("show.settle");
    case "shown/checks": return body.undo ? t("show.undo_check_label", { card: cardName(body.card), player: playerName(body.seat) }) : null;
    default: return null;
  }
}

// What another phone recorded between `before` (the table this phone's write was sent
// against) and the table now (read again after the 409): the word said and by whom, a mus,
// a hand counted, an undo, an esku; else that the table changed.
function otherPhoneDid(before) {
  const lower = (text) => text.charAt(0).toLocaleLowerCase() + text.slice(1);
  if (!before || !state || state.version === before.version) return t("table.stale_other");
  const hb = (before.hands || []).length;
  const ha = (state.hands || []).length;
  const cb = before.current || {};
  const ca = current();
  const lb = (cb.log || []).length;
  const log = ca.log || [];
  if (ha > hb) return t("table.stale_settled", { n: state.hands[ha - 1].n ?? ha });
  if (ha === hb && log.length > lb) {
    const i = log.length - 1;
    return t("table.stale_said", { name: playerName(log[i].seat), act: lower(saidLabel(log, i)) });
  }
  if (ha === hb && !log.length && (ca.mus_rounds || 0) > (cb.mus_rounds || 0)) return t("table.stale_mus");
  if (ha < hb || log.length < lb || (ca.mus_rounds || 0) < (cb.mus_rounds || 0)) return t("table.stale_undone");
  if (ha === hb && ca.esku !== undefined && ca.esku !== cb.esku) return t("esku.is", { name: playerName(ca.esku) });
  return t("table.stale_other");
}

// A write refused as stale (409 stale_version): the table is read again, then the notice
// says what the other phone recorded and that this phone's tap (`mine`) was not.
async function staleRefresh(before, mine) {
  await refresh();
  const done = otherPhoneDid(before);
  toast(mine ? t("table.stale_yours", { done, mine }) : t("table.stale_done", { done }), "warn", 5000);
}

// What write() answers, for the showdown's own write (`{ merge: true }`), where the table
// was changed meanwhile (read again, nothing said) or no answer came (kept here, sent again).
const STALE = Symbol("stale");
const OFFLINE = Symbol("offline");
const lostConnection = (e) => !(e instanceof ApiError) || e.status === 0 || ([502, 503, 504].includes(e.status) && e.code === "generic");

// A tap while the showdown's cards are on their way (each card named or confirmed is a
// write) is sent once they are kept, not dropped; another tap while a tap's write is on
// its way is.
const keepingShown = (path) => path === "shown" || path === "shown/checks";
async function afterShown() {
  while (busy && keepingShown(busyWith)) await writeDone;
}

// A tap while a write is on its way is dropped (a double tap's second), unless the table shown
// is already past that write: the live stream (or the answer) brought a newer version and the
// grid was drawn for it, so the tap is the next word (the next player's, at a quick table). A
// word, a mus or an undo tapped there is kept (one at a time: the button shows it is taken)
// and sent as that write ends, against the version it was tapped on; the table moved on past
// that meanwhile, it is not sent and the notice says so, as a 409 stale_version would.
const QUEUED_PATHS = ["actions", "mus", "undo"];
const aheadOfWrite = () => busyFrom !== null && Boolean(state) && state.version > busyFrom;

async function write(path, body = {}, opts = {}) {
  const el = tapping;  // read as the tap calls, before any wait
  const at = state;
  if (!keepingShown(path)) await afterShown();
  if (!busy) return send(path, body, opts);
  if (!QUEUED_PATHS.includes(path) || queued || !el?.isConnected || !at || busyFrom === null
      || at.version <= busyFrom || state.version !== at.version) return null;
  return new Promise((resolve) => {
    queued = { path, body, before: at, mine: tapLabel(path, body), action: actionOf(el), resolve };
    markHeld();
  });
}

// The tap kept while the write before it was on its way, sent now (see write()).
function sendQueued(next) {
  if (!state || state.version !== next.before.version) {
    toast(t("table.stale_yours", { done: otherPhoneDid(next.before), mine: next.mine }), "warn", 5000);
    return Promise.resolve(null);
  }
  return send(next.path, next.body, {}, next.before, next.mine);
}

async function send(path, body, opts, before = state, mine = tapLabel(path, body)) {
  busy = true;
  busyWith = path;
  busyFrom = before.version;
  let done;
  writeDone = new Promise((resolve) => { done = resolve; });
  document.body.classList.add("busy");
  markHeld();
  try {
    let json = { client_id: newClientId(), version: before.version, ...body };
    const post = () => retrying(() => api("POST", `${API}/${path}`, { token: TOKEN, json, timeout: TIMEOUT_MS }));
    let next;
    try {
      next = await post();
    } catch (e) {
      if (!(e instanceof ApiError && e.field === "photo_id" && "photo_id" in json && (path === "showdown" || path === "shown"))) throw e;
      // the photo went meanwhile (another phone's newer ones): the cards settle the hand alone
      toast(t("show.photo_gone"), "warn", 4500);
      const { photo_id: gone, ...rest } = json;
      json = { ...rest, client_id: newClientId() };
      next = await post();
    }
    if (next && typeof next === "object" && "version" in next) apply(next);
    else await refresh();
    return next;
  } catch (e) {
    if (e instanceof ApiError && e.code === "stale_version") {
      if (opts.merge) { await refresh(); return STALE; }
      await staleRefresh(before, mine);
    } else {
      toast(e.text || t("err.generic"), "error", 4500);
      if (opts.merge && lostConnection(e)) return OFFLINE;
    }
    return null;
  } finally {
    busy = false;
    busyWith = null;
    busyFrom = null;
    document.body.classList.remove("busy");
    done();
    const next = queued;
    queued = null;
    if (next) next.resolve(sendQueued(next));
    markHeld();
  }
}

// One read at a time: polling through a stall does not pile up reads that wait forever.
let refreshing = null;
function refresh() {
  refreshing ||= (async () => {
    try {
      apply(await api("GET", API, { token: TOKEN, timeout: TIMEOUT_MS }));
    } catch (e) {
      if (e.status === 401 || e.status === 403 || e.status === 404) toast(e.text, "error", 6000);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

function apply(next, force = false) {
  if (!next || typeof next !== "object") return;
  if (!force && state && typeof next.version === "number" && next.version < state.version) return;
  const prev = state;
  state = next;
  notePhase();
  render(prev);
  keepAwake();
}

// ------------------------------------------------------------------ the screen stays on

// A phone at the table (the one that records, or one propped up as the scoreboard) keeps
// its screen on while the match goes on: a screen wake lock where the browser gives one
// (https, or the server's own address), taken again when the page comes back into view
// (the browser drops it when it is hidden), let go once the match is won.
let wakeLock = null;
let wakeAsking = false;
async function keepAwake() {
  if (matchWon()) {
    if (wakeLock) { const lock = wakeLock; wakeLock = null; try { await lock.release(); } catch (e) { /* gone */ } }
    return;
  }
  if (wakeLock || wakeAsking || !navigator.wakeLock || document.visibilityState !== "visible") return;
  wakeAsking = true;
  try {
    const lock = await navigator.wakeLock.request("screen");
    lock.addEventListener("release", () => { if (wakeLock === lock) wakeLock = null; });
    wakeLock = lock;
  } catch (e) { /* refused (battery saver, an http address): the screen may sleep */ }
  wakeAsking = false;
  if (wakeLock && matchWon()) keepAwake(); // won meanwhile
}
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") keepAwake(); });

// ------------------------------------------------------------------ live updates

let source = null;
let pollTimer = null;
let retryMs = 2000;
// The top bar's "Reconnecting…" is seen, not heard: a screen reader is told, once, that the
// connection is lost and the score may be out of date, and once, as it comes back, that the
// score is live again (#sr-live, a polite status of its own).
let liveSaid = null;  // "offline" from the loss said until the return is
function setLive(mode) {
  $("live").dataset.state = mode;
  $("live").querySelector(".live-text").textContent = mode === "live" ? t("table.live") : t("table.offline");
  if (mode === "offline" && liveSaid !== "offline") { liveSaid = "offline"; say($("sr-live"), t("table.offline_said")); }
  else if (mode === "live" && liveSaid === "offline") { liveSaid = "live"; say($("sr-live"), t("table.online_said")); }
}

// The server says something at least every heartbeat (a change, else a `ping`): a stream
// silent past two of them is stalled (the bar's wifi: the connection open, nothing coming
// through, which the browser never calls an error). The page then says it is reconnecting,
// opens the stream again and reads the table meanwhile.
const HEARTBEAT_MS = BOOT.live?.heartbeat_ms || 15000;
const STALL_MS = 2 * HEARTBEAT_MS + Math.min(HEARTBEAT_MS, 5000);
let stallTimer = null;
function heard() {
  clearTimeout(stallTimer);
  stallTimer = setTimeout(stalled, STALL_MS);
}
function stalled() {
  setLive("offline");
  startPolling();
  connect();
  refresh();
}

// This page's own id, for its live stream: each stream it opens takes the place of the one
// it opened before, which the server may not know yet is gone (dropped by flaky wifi, or
// stalled). One per page load: two tabs never share it, so never end each other's stream.
const STREAM_CLIENT = newClientId();

function connect() {
  if (!("EventSource" in window)) { startPolling(); return; }
  if (source) source.close();
  // no address holds the players' token: their page streams with the token derived from
  // it that only opens the stream (counted as the players', in their reserve of places)
  const read = BOOT.state?.stream_token || BOOT.state?.watch_token || TOKEN || "";
  const url = `${API}/events?token=${encodeURIComponent(read)}&client=${STREAM_CLIENT}`;
  const me = new EventSource(url);
  source = me;
  heard();
  me.onopen = () => { if (source !== me) return; heard(); setLive("live"); stopPolling(); retryMs = 2000; };
  me.onmessage = (ev) => {
    if (source !== me) return;
    heard();
    try { apply(JSON.parse(ev.data)); } catch (e) { /* not a state */ }
  };
  me.addEventListener("ping", () => { if (source === me) heard(); });
  me.addEventListener("state", (ev) => { if (source !== me) return; heard(); try { apply(JSON.parse(ev.data)); } catch (e) { /* ignore */ } });
  me.onerror = () => {
    if (source !== me) return;
    setLive("offline");
    // The browser reconnects by itself with Last-Event-ID; meanwhile poll so nothing is missed.
    startPolling();
    if (me.readyState === EventSource.CLOSED) {  // refused (e.g. too many streams): try again later
      clearTimeout(stallTimer);
      setTimeout(() => { if (source === me) connect(); }, retryMs);
      retryMs = Math.min(retryMs * 2, 30000);
    }
  };
}
function startPolling() { if (!pollTimer) pollTimer = setInterval(refresh, 3000); }
function stopPolling() { clearInterval(pollTimer); pollTimer = null; }
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
window.addEventListener("online", refresh);

// ------------------------------------------------------------------ score

function tokens(score) {
  const slots = Math.ceil(target() / 5);
  const a = Math.floor(Math.min(score, target()) / 5);
  const s = score % 5;
  const wrap = h("div", { class: "beans", "aria-hidden": "true" });
  const big = h("div", { class: "amarrakos" });
  for (let i = 0; i < slots; i++) big.append(h("span", { class: i < a ? "amarrako on" : "amarrako" }));
  const small = h("div", { class: "stones" });
  for (let i = 0; i < 4; i++) small.append(h("span", { class: i < s ? "stone on" : "stone" }));
  wrap.append(big, small);
  return wrap;
}

// Games or vacas as pips, and in words for a screen reader ("Games 1 of 2"): the pips are
// empty boxes to it. With `label`, the visible word before them (then said once, in the words).
function pips(n, of, cls, label = false) {
  const box = h("span", { class: `pips ${cls}`, "aria-hidden": "true" });
  for (let i = 0; i < of; i++) box.append(h("span", { class: i < n ? "pip on" : "pip" }));
  const words = h("span", { class: "sr-only" }, t(`score.${cls}_of`, { n, of }));
  return label ? [h("span", { class: "meta-label", "aria-hidden": "true" }, t(`score.${cls}`)), box, words] : [box, words];
}

// A team's name too long for its two lines ends in an ellipsis: a tap shows it whole (and a
// second tap folds it again); the whole name is also the heading's title.
const wholeNames = new Set();
function showWholeName(tm) {
  if (wholeNames.has(tm)) wholeNames.delete(tm);
  else if (document.querySelector(`.team-card.team-${tm} .team-name.is-cut`)) wholeNames.add(tm);
  else return;
  renderScore();
}
function markCutNames() {
  for (const el of document.querySelectorAll("#scoreboard .team-name:not(.is-whole)")) el.classList.toggle("is-cut", el.scrollHeight > el.clientHeight + 4);  // a glyph's overhang is not a line
}
if (document.querySelector("#scoreboard")) new ResizeObserver(markCutNames).observe($("scoreboard"));  // a phone turned

function renderScore() {
  const sc = scoreNow();
  const box = $("scoreboard");
  box.replaceChildren();
  const gpv = rules().games_per_vaca || 1;
  const vtw = rules().vacas_to_win || 3;
  for (const tm of [0, 1]) {
    const s = sc[tm] || 0;
    const adentro = state.adentro && state.adentro[tm];
    box.append(h("article", { class: `team-card team-${tm}${adentro ? " is-adentro" : ""}${state.winner === tm ? " is-winner" : ""}`, dataset: { team: tm } },
      h("header", {},
        h("h2", { class: `team-name${wholeNames.has(tm) ? " is-whole" : ""}`, title: teamName(tm), onclick: () => showWholeName(tm) }, teamName(tm)),
        h("p", { class: "team-players" }, `${playerName(tm)} · ${playerName(tm + 2)}`)),
      // a screen reader hears the score and the target in words ("12 pierres sur 40"), not "12/40"
      h("p", { class: "team-score" },
        h("span", { class: "big-num", "aria-hidden": "true" }, String(s)),
        h("span", { class: "of", "aria-hidden": "true" }, `/${target()}`),
        h("span", { class: "sr-only" }, t(plural("score.of_target", s), { n: s, target: target() }))),
      tokens(s),
      h("p", { class: "team-meta" },
        gpv > 1 ? h("span", { class: "meta" }, pips((state.games || [0, 0])[tm], gpv, "games", true)) : null,
        h("span", { class: "meta" }, pips((state.vacas || [0, 0])[tm], vtw, "vacas", true)))));
  }
  markCutNames();
  const banner = $("banner");
  const who = [0, 1].filter((tm) => state.adentro && state.adentro[tm]);
  // a status: said as a team goes adentro, not again at each change the stream brings
  const adentro = who.length && state.winner == null ? who.map(teamName).join(" · ") : "";
  if (adentro && banner.dataset.said !== adentro) banner.replaceChildren(h("strong", {}, t("score.adentro")), " ", adentro);
  banner.dataset.said = adentro;
  banner.hidden = !adentro;
}

// ------------------------------------------------------------------ the drawn table

// Which lance each action of the log was said in: from the server when it says so
// (`action.lance` or `current.phases`), else from the phases this page saw go by.
const MEMO_KEY = `mus-scorer.phases.${BOOT.table_id}`;
let memo = (() => { try { return JSON.parse(sessionStorage.getItem(MEMO_KEY)) || { hand: null, at: {} }; } catch (e) { return { hand: null, at: {} }; } })();
function notePhase() {
  const cur = current();
  const n = handNumber();
  if (memo.hand !== n) memo = { hand: n, at: {} };
  memo.at[(cur.log || []).length] = cur.phase;
  try { sessionStorage.setItem(MEMO_KEY, JSON.stringify(memo)); } catch (e) { /* ignore */ }
}
function lanceOf(a, i) {
  if (a.lance) return a.lance;
  if (a.act === "declare") return "pares" in a ? "pares_declare" : "juego_declare";
  const ph = (current().phases || [])[i] ?? memo.at[i];
  return ph && BET_PHASES.includes(ph) ? ph : null;
}

function logOfPhase(cur) {
  const log = cur.log || [];
  const mine = log.filter((a, i) => lanceOf(a, i) === cur.phase);
  if (mine.length || log.every((a, i) => lanceOf(a, i))) return mine;
  return log.slice(-1);
}

function declaredOf(cur) {
  const out = { pares: [null, null, null, null], juego: [null, null, null, null] };
  for (const a of cur.log || []) {
    if (a.act !== "declare") continue;
    if ("pares" in a) out.pares[a.seat] = a.pares;
    if ("juego" in a) out.juego[a.seat] = a.juego;
  }
  return out;
}

function betSummary(cur) {
  const log = cur.log || [];
  const acts = log.filter((a, i) => lanceOf(a, i) === cur.phase && ["envido", "mas", "ordago", "quiero", "no_quiero"].includes(a.act));
  return acts.map(actLabel);
}

// The felt's lines keep to one line each, so that the table keeps its height through the hand: a
// label too long for it ("Cartas a la vista", a team's long name at the end) is set smaller, down to
// 50% (then an ellipsis: a desktop's wide font needs 57% for "Cartas a la vista" at 360 px), and of the
// lance's bets the first ones give way to "…".
let feltBets = [];
function textOver(el) {  // the width of el's text over el's own (overflow hidden): above 1, it is cut
  const text = document.createRange();
  text.selectNodeContents(el);
  return text.getBoundingClientRect().width / (el.getBoundingClientRect().width || 1);
}
function fitFelt() {
  const label = $("felt-phase");
  label.style.fontSize = "";
  const over = textOver(label);
  if (over > 1) label.style.fontSize = `${parseFloat(getComputedStyle(label).fontSize) * Math.max(0.5, 0.97 / over)}px`;
  const bet = $("felt-bet");
  bet.textContent = feltBets.join(" · ");
  for (let i = 1; i < feltBets.length && textOver(bet) > 1; i++) bet.textContent = `… ${feltBets.slice(i).join(" · ")}`;
}
new ResizeObserver(fitFelt).observe(document.querySelector("#mesa .felt"));  // a phone turned

function renderMesa() {
  const cur = current();
  const phase = cur.phase || (state.winner != null ? "over" : "grande");
  const speak = cur.to_speak;
  const decl = declaredOf(cur);
  const recent = logOfPhase(cur);
  const lastBySeat = {};
  for (const a of recent) lastBySeat[a.seat] = a;
  const esku = eskuNow();
  document.querySelectorAll("#mesa .seat").forEach((el) => {
    const seat = Number(el.dataset.seat);
    el.classList.toggle("is-speaking", speak === seat && !["showdown", "over"].includes(phase));
    el.classList.toggle("is-esku", esku === seat);
    el.querySelector(".seat-name").textContent = playerName(seat);
    // the team, which the seat's colour shows, in words for a screen reader ("Ane, Txuriak")
    say(el.querySelector(".seat-team"), `, ${teamName(team(seat))}`);
    const badges = el.querySelector(".seat-badges");
    badges.replaceChildren();
    if (esku === seat) badges.append(h("span", { class: "badge badge-esku", title: t("table.esku") }, icon("hand"), t("table.esku")));
    for (const lance of ["pares", "juego"]) {
      const v = decl[lance][seat];
      // "Pares ✓" to the eye, "Pares: yes" to a screen reader
      if (v !== null && v !== undefined) badges.append(h("span", { class: `badge badge-decl ${v ? "yes" : "no"}` },
        h("span", { "aria-hidden": "true" }, `${lanceLabel(lance)} ${v ? "✓" : "✗"}`),
        h("span", { class: "sr-only" }, `${lanceLabel(lance)}${colon()}${t(v ? "act.declare_yes" : "act.declare_no")}`)));
    }
    const bubble = el.querySelector(".bubble");
    const last = lastBySeat[seat];
    if (last && last.act !== "declare" && BET_PHASES.includes(phase)) {
      bubble.textContent = saidLabel(cur.log || [], (cur.log || []).indexOf(last));
      bubble.dataset.act = last.act;
      bubble.hidden = false;
    } else bubble.hidden = true;
  });
  $("felt-hand").textContent = t("table.hand_n", { n: handNumber() }) + (cur.mus_rounds ? ` · ${t("table.mus_rounds", { n: cur.mus_rounds })}` : "");
  const over = matchWon();
  $("felt-phase").textContent = over ? teamName(state.winner) : phaseLabel(phase);
  if (over) $("felt-hand").textContent = t("score.final");
  document.querySelector("#mesa .felt").classList.toggle("is-final", over);
  feltBets = betSummary(cur);
  fitFelt();

  // lance progress
  const lances = $("lances");
  lances.replaceChildren();
  const order = ["grande", "chica", "pares", "juego"];
  const at = phase === "punto" ? 3 : phase.startsWith("pares") ? 2 : phase.startsWith("juego") ? 3 : order.indexOf(phase);
  // an accepted órdago ends the betting: the lances after it are not played
  const ordagoAt = cur.ordago ? (cur.ordago === "punto" ? 3 : order.indexOf(cur.ordago)) : -1;
  order.forEach((l, i) => {
    const punto = phase === "punto" || (cur.log || []).some((a, j) => lanceOf(a, j) === "punto");
    const label = l === "juego" && punto ? lanceLabel("punto") : lanceLabel(l);
    const skipped = ordagoAt >= 0 && i > ordagoAt;
    const done = !skipped && (at === -1 ? true : i < at);
    const why = skipped ? t("table.lance_skipped", { lance: label }) : null;
    lances.append(h("li", {
      class: `lance${i === at ? " is-now" : ""}${done ? " is-done" : ""}${skipped ? " is-skipped" : ""}`,
      "aria-current": i === at ? "step" : null, title: why, "aria-label": why,
    }, label));
  });
}

// ------------------------------------------------------------------ actions

function actionClass(a) {
  return { paso: "act-paso", envido: "act-envido", mas: "act-mas", ordago: "act-ordago", quiero: "act-quiero", no_quiero: "act-noquiero" }[a.act] || "";
}

// The button that had the keyboard's focus in the action grid, to give it back after a
// render rebuilds the grid (else focus falls to the page and a keyboard player starts over).
function focusedAction(grid) {
  const el = document.activeElement;
  if (!el || !grid.contains(el)) return null;
  return { act: el.dataset.act || null, value: el.dataset.value || null, n: el.dataset.n || null, step: el.dataset.step || null };
}

function refocusAction(grid, had) {
  if (!had) return;
  const buttons = [...grid.querySelectorAll("button")];
  const same = buttons.find((b) => (had.step ? b.dataset.step === had.step
    : b.dataset.act === had.act && (b.dataset.value || null) === had.value && (b.dataset.n || null) === had.n));
  // a stepper's − or + just disabled at its limit (2 or 40 stones) cannot keep the focus:
  // its own button (the envido it sets) takes it
  const to = same?.disabled ? same.parentElement.querySelector(".act") : same;
  (to || buttons.find((b) => b.dataset.act === had.act) || buttons[0])?.focus();
}

// A second tap of a hurried double tap, or a tap begun as another phone's word came in,
// lands on whatever button the new speaker's grid put under the finger ("Para mí no" tapped
// twice said the partner's "2 más"): for a moment after the grid changes to another
// speaker, lance or hand (or a mus, an undo), a tap is held back (aria-disabled, the look
// unchanged):
// - after this phone's own word, only a repeat of it: on a button of the same action (the
//   same act, value and n, or Mus, or Undo: "Deshacer" tapped twice undoes one word), or on
//   the button now lying where the one tapped was. A quick tap on another button is a word of
//   its own (the next player's, on a phone passed round the table) and is taken;
// - after another phone's word, any tap on the grid, Mus and Undo.
const REARM_MS = 350;
let gridKey = null;
let armedAt = 0;
let armTimer = null;
let lastTap = null;      // the last word tapped: its button's action and box
let saidHere = false;    // a word was tapped on the grid shown now: its change is this phone's own
let ownChange = false;   // the last change of the grid followed this phone's word
const heldNow = () => [$("action-grid"), ...$("action-grid").querySelectorAll("button"), $("btn-undo"), $("btn-mus")];
function armGrid(grid, key) {
  const changed = gridKey !== null && key !== gridKey;
  gridKey = key;
  if (!changed) return;
  armedAt = performance.now() + REARM_MS;
  ownChange = saidHere;
  saidHere = false;
  clearTimeout(armTimer);
  armTimer = setTimeout(() => { armedAt = 0; markHeld(); }, REARM_MS);
}
// What a button says: a grid button's act, value and n, a stepper's step, else its id (Mus, Undo).
function actionOf(el) {
  const d = el?.dataset || {};
  return d.act ? `act:${d.act}|${d.value || ""}|${d.n || ""}` : d.step ? `step:${d.step}` : `id:${el?.id || ""}`;
}
// Whether a tap on `el` now repeats the last word tapped: the same action, or the button lying
// where the one tapped was (its middle inside that one's box), or a pointer's tap (`ev`) landing
// there: a double tap's second tap, whatever button lies under it now.
function repeats(el, ev = null) {
  if (!lastTap || !el) return false;
  if (actionOf(el) === lastTap.action) return true;
  const box = lastTap.box;
  const inBox = (x, y) => Boolean(box) && x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
  const r = el.getBoundingClientRect();
  return Boolean(r.width && inBox(r.left + r.width / 2, r.top + r.height / 2))
    || Boolean(ev?.detail > 0 && Number.isFinite(ev.clientX) && inBox(ev.clientX, ev.clientY));  // a key's click has no place
}
// The buttons that hold a tap back say so while they do (aria-disabled):
// - for the moment after the grid changes: after this phone's own word, those that would
//   repeat it; after another phone's, the grid, Mus and Undo;
// - while a write is on its way and the grid is still the one it was sent from (a tap there
//   is dropped; not the showdown's cards, after which a tap is sent): the grid, Mus and
//   Undo, and the grid is aria-busy (its look: body.busy);
// - while a tap on the grid drawn past that write waits for it (write()): every button but
//   the one tapped, which shows it is taken (.taken, aria-busy) until it is sent.
function markHeld() {
  if (!CAN_PLAY) return;
  const grid = $("action-grid");
  const whole = [grid, $("btn-undo"), $("btn-mus")];
  const moment = performance.now() < armedAt;
  const sentFrom = busyFrom !== null && !keepingShown(busyWith) && !aheadOfWrite();  // a tap after the cards kept waits for them
  const waiting = queued && state?.version === queued.before.version ? queued : null;
  document.body.classList.toggle("ahead", aheadOfWrite());
  document.body.classList.toggle("queued", Boolean(queued));
  for (const el of heldNow()) {
    const taken = Boolean(waiting) && el !== grid && actionOf(el) === waiting.action;
    const held = (moment && (ownChange ? el !== grid && repeats(el) : whole.includes(el)))
      || (sentFrom && whole.includes(el)) || (Boolean(queued) && el !== grid);
    if (held) el.setAttribute("aria-disabled", "true");
    else el.removeAttribute("aria-disabled");
    el.classList.toggle("taken", taken);
    if (taken || (el === grid && (sentFrom || Boolean(queued)))) el.setAttribute("aria-busy", "true");
    else el.removeAttribute("aria-busy");
  }
}
const tapGuard = (fn) => (ev) => {
  const el = ev?.currentTarget instanceof Element ? ev.currentTarget : null;
  if (performance.now() < armedAt && (!ownChange || repeats(el, ev))) { ev?.preventDefault(); return; }
  const action = actionOf(el);
  if (!action.startsWith("step:")) {  // a stepper's − and + say no word: none to repeat
    lastTap = { action, box: el?.getBoundingClientRect() || null };
    saidHere = true;
  }
  tapping = el;
  try {
    fn(ev);
  } finally {
    tapping = null;
  }
};

function renderActions() {
  if (!CAN_PLAY) return;
  const cur = current();
  const grid = $("action-grid");
  const phase = cur.phase || "";
  const legal = cur.legal || [];
  const had = focusedAction(grid);
  grid.replaceChildren();
  const seat = cur.to_speak;
  const section = $("actions");
  const inBetting = legal.length > 0;
  // nothing left to say (every lance played, an órdago accepted, a deje that ends the
  // game): the next step is the cards, so the card says so and leads to them
  const toCards = !inBetting && showdownWanted();
  section.hidden = !inBetting && !toCards && !(cur.log || []).length;
  $("speaker").replaceChildren();
  if (seat !== null && seat !== undefined && inBetting) {
    const text = phase.endsWith("_declare")
      ? t("table.declares", { name: playerName(seat), lance: lanceLabel(phase.split("_")[0]) })
      : t("table.to_speak", { name: playerName(seat) });
    $("speaker").append(h("span", { class: `speaker-dot team-${team(seat)}`, "aria-hidden": "true" }), text);
  } else if (toCards) {
    $("speaker").append(cur.ordago ? t("table.ordago_lance", { lance: lanceLabel(cur.ordago) })
      : phase === "over" ? t("table.game_over_deje") : t("table.to_cards"));
  }
  const mine = legal.filter((a) => seat === null || seat === undefined || a.seat === seat);
  // facing a bet, a "paso" the server offers is "for my part": after the team's answers, said so
  const answering = mine.some((a) => a.act === "quiero");
  const forMyPart = answering && mine.some((a) => a.act === "paso");
  const order = { paso: answering ? 2.5 : 0, declare: 0, quiero: 1, no_quiero: 2, envido: 3, mas: 4, ordago: 5 };
  mine.sort((a, b) => (order[a.act] - order[b.act]) || ((a.n || 0) - (b.n || 0)) || (("pares" in a ? a.pares : a.juego) ? -1 : 1));
  grid.dataset.count = mine.length;
  grid.dataset.mode = mine.some((a) => a.act === "quiero") ? "answer" : mine.some((a) => a.act === "declare") ? "declare" : "open";
  armGrid(grid, `${handNumber()}|${phase}|${seat}|${mine.map((a) => a.act).join(",")}|${toCards}|${cur.mus_rounds || 0}|${(cur.log || []).length}`);
  let envidoShown = false;
  for (const a of mine) {
    if (a.act === "envido") {
      // one envido with a stepper, as "más": the engine takes any number of stones (2..40),
      // not only the 2, 3 and 5 it lists
      if (envidoShown) continue;
      envidoShown = true;
      if (envidoFor !== `${handNumber()}:${phase}`) { envidoFor = `${handNumber()}:${phase}`; envidoN = 2; }  // each lance from 2
      envidoN = Math.min(40, Math.max(2, envidoN));
      const bet = { seat: a.seat, act: "envido", n: envidoN };
      grid.append(h("div", { class: "mas-stepper envido-stepper" },
        h("button", { type: "button", class: "btn step", "aria-label": t("act.mas_less"), dataset: { step: "less" }, disabled: envidoN <= 2, onclick: tapGuard(() => { envidoN = Math.max(2, envidoN - 1); renderActions(); }) }, "−"),
        h("button", { type: "button", class: "btn act act-envido", dataset: { act: "envido", n: envidoN }, onclick: tapGuard(() => write("actions", { action: bet })) }, actLabel(bet)),
        h("button", { type: "button", class: "btn step", "aria-label": t("act.mas_more"), dataset: { step: "more" }, disabled: envidoN >= 40, onclick: tapGuard(() => { envidoN = Math.min(40, envidoN + 1); renderActions(); }) }, "+")));
    } else if (a.act === "declare") {
      const yes = "pares" in a ? a.pares : a.juego;
      grid.append(h("button", { type: "button", class: `btn act act-declare ${yes ? "yes" : "no"}`, dataset: { act: "declare", value: yes ? "yes" : "no" }, onclick: tapGuard(() => write("actions", { action: a })) },
        yes ? t("act.declare_yes") : t("act.declare_no")));
    } else if (a.act === "mas") {
      const stepper = h("div", { class: "mas-stepper" },
        h("button", { type: "button", class: "btn step", "aria-label": t("act.mas_less"), dataset: { step: "less" }, onclick: tapGuard(() => { masN = Math.max(1, masN - 1); renderActions(); }) }, "−"),
        h("button", { type: "button", class: "btn act act-mas", dataset: { act: "mas" }, onclick: tapGuard(() => write("actions", { action: { ...a, n: masN } })) }, t("act.mas_n", { n: masN })),
        h("button", { type: "button", class: "btn step", "aria-label": t("act.mas_more"), dataset: { step: "more" }, onclick: tapGuard(() => { masN = Math.min(40, masN + 1); renderActions(); }) }, "+"));
      grid.append(stepper);
    } else if (a.act === "paso" && answering) {
      grid.append(h("button", { type: "button", class: "btn act act-paso act-paso-mine", dataset: { act: "paso" }, title: t("act.paso_mine_hint"), "aria-describedby": "action-hint", onclick: tapGuard(() => write("actions", { action: a })) },
        t("act.paso_mine")));
    } else {
      grid.append(h("button", { type: "button", class: `btn act ${actionClass(a)}`, dataset: { act: a.act, n: a.n ?? null }, onclick: tapGuard(() => write("actions", { action: a })) },
        actLabel(a)));
    }
  }
  if (toCards) {
    grid.dataset.mode = "cards";
    grid.append(h("button", { type: "button", class: "btn btn-primary act act-cards", id: "btn-to-cards", dataset: { act: "cards" }, onclick: tapGuard(goToCards) },
      icon("cards"), h("span", {}, t("table.go_cards"))));
  }
  const hint = $("action-hint");
  hint.textContent = forMyPart ? t("act.paso_mine_hint") : "";
  hint.hidden = !forMyPart;
  orderSteppers();
  refocusAction(grid, had);
  const musBtn = $("btn-mus");
  const log = cur.log || [];
  musBtn.hidden = !(phase === "grande" && log.length === 0);
  $("mus-count").textContent = cur.mus_rounds ? `×${cur.mus_rounds}` : "";
  $("btn-undo").disabled = log.length === 0 && !cur.mus_rounds && !cur.esku_chosen && !(state.hands || []).length;
  markHeld();
}

// A stepper is read and tabbed through as it is seen: −, its word, + in a row; with large
// text, where its word sits over its − and + (style.css sets --stacked), its word first.
// Set as the words are drawn, and again as the card's size changes (the text's size).
function orderSteppers() {
  for (const stepper of document.querySelectorAll("#action-grid .mas-stepper")) {
    const act = stepper.querySelector(".act");
    const less = stepper.querySelector('[data-step="less"]');
    const stacked = getComputedStyle(stepper).getPropertyValue("--stacked").trim() === "1";
    if (stepper.firstElementChild === (stacked ? act : less)) continue;
    const had = document.activeElement;
    stepper.prepend(stacked ? act : less);
    if (stepper.contains(had) && document.activeElement !== had) had.focus({ preventScroll: true });
  }
}
if (CAN_PLAY) new ResizeObserver(orderSteppers).observe($("action-grid"));

// ------------------------------------------------------------------ who is esku

// Before anything is said in a hand (no word, no mus round) the players may say who is
// esku: at the first hand of each game, played "mus corrido", the player who cut; at any
// other hand it fixes a wrong esku. The question is open and asked at a game's first
// hand, a short line to open at the others.
const firstOfGame = () => { const last = lastHand(); return !last || Boolean(last.settlement?.game_over); };
let eskuAsked = null; // the hand whose disclosure was last set open or closed by the page
function renderEsku() {
  if (!CAN_PLAY) return;
  const box = $("esku-pick");
  const cur = current();
  const can = Boolean(state.current) && !matchWon() && !(cur.log || []).length && !cur.mus_rounds;
  // one line, open or not: the action buttons below it stay where they are when the hand
  // starts (the line says who is esku once it can no longer be chosen) and fit on a phone
  box.hidden = !state.current || matchWon();
  box.classList.toggle("is-fixed", !can);
  const esku = eskuNow();
  if (!can) {
    eskuSeats.drop();
    box.open = false;
    $("esku-q").textContent = t("esku.is", { name: playerName(esku) });
    $("esku-q").setAttribute("aria-disabled", "true");
    return;
  }
  $("esku-q").removeAttribute("aria-disabled");
  const first = firstOfGame();
  box.classList.toggle("is-prominent", first);
  if (eskuAsked !== handNumber()) { eskuAsked = handNumber(); box.open = false; }
  $("esku-q").textContent = first ? t("esku.who_now", { name: playerName(esku) }) : t("esku.now", { name: playerName(esku) });
  $("esku-hint").hidden = !first;
  const chosen = eskuSeats.pending()?.value ?? esku;  // an arrow key's choice, not saved yet
  keepRadioFocus($("esku-seats"), () => $("esku-seats").replaceChildren(...[0, 1, 2, 3].map((s) => h("label", { class: `team-${team(s)}` },
    h("input", { type: "radio", name: "esku", value: s, checked: chosen === s, onchange: () => eskuSeats.chose(s) }),
    h("span", {}, playerName(s))))));
}
// The arrow keys move the choice from seat to seat: saved once it settles (settlingRadios).
// Refused: the esku as it is.
const eskuSeats = CAN_PLAY ? settlingRadios($("esku-seats"), (seat) => (seat !== eskuNow() ? write("esku", { seat }) : null), renderEsku) : null;
// once the hand has started the line only says who is esku: it does not open
if (CAN_PLAY) $("esku-q").addEventListener("click", (e) => { if ($("esku-pick").classList.contains("is-fixed")) e.preventDefault(); });

// ------------------------------------------------------------------ showdown

// From the action card to the showdown below it: the panel in view, the photo button focused.
function goToCards() {
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  $("showdown").scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
  $("photo-input").focus({ preventScroll: true });
}

function showdownWanted() {
  const cur = current();
  return CAN_PLAY && (cur.phase === "showdown" || cur.phase === "over");
}

function freshShow() {
  // photos: [{url, id, scan (its own read)}], the first first; scan: what they read together
  // settled: the places ("seat:i") whose card a person named or confirmed, kept over another photo
  // synced: the showdown as the table keeps it (`shownKey`), last written or taken from it
  // checks: the unsure reads confirmed on this phone that the table does not keep yet (`nextCheck`)
  // confirmedAt: the places shown confirmed ("seat:i" -> the table's {seat, place, card}, or null: here only)
  // keptChecks: the table's confirmations as last seen (`applyChecks`), to tell one taken back
  return { hand: handNumber(), photos: [], shown: 0, reading: false, scan: null, settled: new Set(), slots: [0, 1, 2, 3].map(() => [null, null, null, null]), boxSlot: {}, unsure: new Set(), checks: new Set(), confirmedAt: new Map(), keptChecks: null, bottom: show?.bottom ?? 0, synced: "null" };
}

// ------------------------------------------------------------------ the showdown, kept for every phone

// The showdown not yet settled (its photo, the cards named, the seat it was photographed
// from) is kept with the hand (`current.shown`, POST .../shown): another phone, or this one
// reloaded, opens it as it stands. `shownKey` compares it as the server keeps it.
function shownKey(s) {
  if (!s || (!s.photo_id && !(s.hands || []).some((row) => (row || []).some(Boolean)))) return "null";
  const hands = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => s.hands?.[i]?.[j] ?? null));
  return JSON.stringify([hands, s.photo_id ?? null, s.bottom ?? null]);
}
function shownNow() {
  return { hands: show.slots.map((r) => r.slice()), photo_id: show.photos[0]?.id ?? null, bottom: show.bottom };
}

// One write at a time, the latest cards each time: a tap while one is on its way is sent after it.
// A write refused as stale (another phone kept its own cards meanwhile) is read again and
// this phone's places go on top of the other's (`rebaseShown`), then sent again; one that
// got no answer stays on this phone (`unsent`), sent again at the next change or read.
let shownSending = null;
let shownAgain = false;
function saveShown() {
  if (!CAN_PLAY || !show) return shownSending;
  if (shownSending) { shownAgain = true; return shownSending; }
  shownSending = (async () => {
    let stale = 0;
    try {
      do {
        shownAgain = false;
        while (busy) await new Promise((done) => setTimeout(done, 100));  // another write on its way
        const mine = show;
        if (!mine || mine.hand !== handNumber() || !showdownWanted() || mine.reading) break;
        if (shownKey(current().shown) !== mine.synced) {
          rebaseShown(current().shown);  // another phone's meanwhile: this phone's places on top of it
          if (mine.reading) break;  // the other phone's photo, loading: sent once it is in
        }
        const body = shownNow();
        const key = shownKey(body);
        if (key === shownKey(current().shown)) {
          mine.synced = key;
          mine.unsent = false;
          // the cards kept as they stand here: the reads confirmed here go, one at a time
          const check = nextCheck(mine);
          if (!check) continue;
          const res = await write("shown/checks", check, { merge: true });
          if (show !== mine) break;
          if (res === STALE) {
            if (++stale < 4) shownAgain = true; else mine.failedAt = state;
          } else if (res === OFFLINE) {
            mine.failedAt = state;  // kept here: sent again at the next change or read
            break;
          } else {
            mine.checks.delete(check.card);  // kept, or refused (said): not sent again
            shownAgain = mine.checks.size > 0;
          }
          continue;
        }
        mine.unsent = true;
        const res = await write("shown", body, { merge: true });
        if (show !== mine) break;
        if (res === STALE) {
          if (++stale < 4) shownAgain = true; else mine.failedAt = state;  // read again, then merged and sent
        } else if (res === OFFLINE) {
          mine.failedAt = state;  // kept here: sent again at the next change or read
          break;
        } else if (res) {
          mine.synced = key;
          mine.unsent = false;
          if (mine.checks.size) shownAgain = true;  // the reads confirmed meanwhile, on these cards
        } else {
          mine.unsent = false;  // refused: the table's showdown is shown again
          mine.synced = null;
        }
      } while (shownAgain);
    } finally {
      shownSending = null;
    }
    if (show) renderShowdown();
  })();
  return shownSending;
}

// This phone's showdown on top of the one the table keeps now (`server`), changed by another
// phone since this one's was based on it (`show.synced`): each place, the photo and the seat
// this phone changed take its value, unless the other phone changed it too (its value stays,
// and the page says so), as does a card this phone named where the other put it elsewhere.
function rebaseShown(server) {
  const norm = (s) => ({ hands: [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => s?.hands?.[i]?.[j] ?? null)),
    photo_id: s?.photo_id ?? null, bottom: s?.bottom ?? null });
  let base = null;
  try { const k = JSON.parse(show.synced ?? "null"); if (k) base = { hands: k[0], photo_id: k[1], bottom: k[2] }; } catch (e) { /* none */ }
  const [b, o, m] = [norm(base), norm(server), norm(shownNow())];
  let lost = false;
  const pick = (mv, bv, ov) => {
    if (mv === bv || mv === ov) return ov;
    if (ov === bv) return mv;
    lost = true;
    return ov;
  };
  // the places compared as seated from the seat kept (a seat chosen again turns them all);
  // a seat chosen here and another there: the other's stays, and the page names it
  const [bb, ob] = [b.bottom ?? m.bottom, o.bottom ?? m.bottom];
  const seatLost = m.bottom !== bb && m.bottom !== ob && ob !== bb;
  const bottom = seatLost ? ob : pick(m.bottom, bb, ob);
  for (const x of [b, o, m]) {
    const turn = (bottom - (x.bottom ?? m.bottom) + 4) % 4;
    x.hands = [0, 1, 2, 3].map((s) => x.hands[(s - turn + 4) % 4]);
  }
  const merged = { hands: o.hands.map((row) => row.slice()), photo_id: pick(m.photo_id, b.photo_id, o.photo_id), bottom };
  const ours = new Set();
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      const v = pick(m.hands[i][j], b.hands[i][j], o.hands[i][j]);
      if (v !== o.hands[i][j]) { merged.hands[i][j] = v; ours.add(`${i}:${j}`); }
    }
  }
  // a card this phone put at one place and the other phone at another: the other's stays
  for (const key of ours) {
    const [i, j] = slotOf(key);
    const card = merged.hands[i][j];
    if (card && merged.hands.some((row, x) => row.some((c, y) => c === card && (x !== i || y !== j)))) {
      merged.hands[i][j] = o.hands[i][j];
      lost = true;
    }
  }
  const synced = shownKey(server);
  adoptShown(merged);
  show.synced = synced;
  show.unsent = shownKey(merged) !== synced;
  const said = [seatLost && t("show.merge_seat_lost", { player: playerName(bottom) }), lost && t("show.merge_lost")];
  if (seatLost || lost) toast(said.filter(Boolean).join(" "), "warn", 5000);
}

// Another phone's showdown (or this one's before a reload): its photo and cards, as kept.
function adoptShown(shown) {
  show.synced = shownKey(shown);
  const hands = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => shown?.hands?.[i]?.[j] ?? null));
  const dropPhotos = () => {
    for (const p of show.photos) if (p.url.startsWith("blob:")) URL.revokeObjectURL(p.url);
    show.photos = [];
    show.scan = null;
    show.boxSlot = {};
    show.unsure = new Set();
    show.settled = new Set();
    show.checks = new Set();
  };
  if (!shown) { dropPhotos(); show.slots = hands; return; }
  // kept by a page (a showdown undone has no `bottom`: its cards were confirmed when it was settled)
  const pending = Number.isInteger(shown.bottom);
  if (pending && shown.bottom !== show.bottom) reseat(shown.bottom);
  if (shown.photo_id && show.photos[0]?.id === shown.photo_id && show.scan) { placeOver(hands, !pending); return; }
  dropPhotos();
  show.slots = hands;
  if (shown.photo_id) loadPhotos(shown.photo_id, !pending);
}

function renderShowdown() {
  if (!CAN_PLAY) return;
  const panel = $("showdown");
  const want = showdownWanted();
  panel.hidden = !want;
  if (!want) return;
  if (!show || show.hand !== handNumber()) show = freshShow();
  const cur = current();
  if (!shownSending && !show.reading) {
    // this phone's cards not yet kept (no answer came): sent again, on top of another phone's
    if (show.unsent) { if (show.failedAt !== state) saveShown(); } else if (shownKey(cur.shown) !== show.synced) adoptShown(cur.shown);
    // reads confirmed here that the table does not keep yet: sent (again)
    if (!show.unsent && show.checks.size && show.failedAt !== state && !show.reading) saveShown();
  }
  applyChecks();
  const note = [];
  if (cur.phase === "over" && state.current?.ordago) note.push(t("table.ordago_lance", { lance: lanceLabel(state.current.ordago) }), t("show.ordago_note"));
  else if (cur.phase === "over") note.push(t("table.game_over_deje"));
  else note.push(t("show.help"));
  $("show-note").textContent = note.join(" ");
  $("btn-settle-nocards").hidden = !(cur.phase === "over" && !state.current?.ordago);

  const seg = $("bottom-seat");
  keepRadioFocus(seg, () => seg.replaceChildren(...[0, 1, 2, 3].map((s) => h("label", { class: `team-${team(s)}` },
    h("input", { type: "radio", name: "bottom", value: s, checked: show.bottom === s, onchange: () => bottomChosen(s, bottomSeats) }),
    h("span", {}, playerName(s))))));

  $("photo-label").textContent = show.photos.length ? t("show.retake") : t("show.photo");
  $("photo-add").hidden = !(show.photos[0]?.id && show.photos.length < MAX_PHOTOS && !show.reading);
  // drawn again (a change kept, another phone's): the keyboard's focus stays on its box or place
  const had = document.activeElement;
  const box = had?.closest?.("#photo-boxes g.box")?.dataset.k;
  const place = had?.matches?.(".card-slot") ? [had.dataset.seat, had.dataset.slot] : null;
  renderPhoto();
  renderHands();
  if (box !== undefined && !document.activeElement?.closest?.("#photo-boxes")) $("photo-boxes").querySelector(`g.box[data-k="${box}"]`)?.focus({ preventScroll: true });
  if (place && !document.activeElement?.matches?.(".card-slot")) document.querySelector(`.card-slot[data-seat="${place[0]}"][data-slot="${place[1]}"]`)?.focus({ preventScroll: true });
}

// The unsure reads a person confirmed (named as read) are kept by the table with its
// showdown (`current.shown.checked`, POST .../shown/checks): every phone shows them
// confirmed, and a reload, or a visit to the deck page the unfamiliar-deck warning links,
// does not ask for them again. The table drops one whose card leaves its place, and all of
// them with a new first photo. Those confirmed here and not kept yet (`show.checks`, sent
// after the cards they are on) stand here meanwhile; not kept across a reload, as the cards
// named and not yet kept are not.
// A confirmation taken back (`takeBack`, here or on another phone: the table no longer
// keeps it, its card still at its place) makes that card unsure again, as it was read.
function applyChecks() {
  const shown = current().shown;
  show.confirmedAt = new Map();
  const confirm = ([s, i], kept) => { show.unsure.delete(slotKey([s, i])); show.settled.add(slotKey([s, i])); show.confirmedAt.set(slotKey([s, i]), kept); };
  const ours = shown?.photo_id && shown.photo_id === show.photos[0]?.id ? shown : null;
  if (ours) {
    // seated as the table keeps them; this phone may see them from another seat, not yet kept
    const turn = Number.isInteger(ours.bottom) ? (show.bottom - ours.bottom + 4) % 4 : 0;
    const was = show.keptChecks;
    if (was && was.photo === ours.photo_id && was.bottom === (ours.bottom ?? null)) {
      const key = (c) => `${c.seat}:${c.place}:${c.card}`;
      const now = new Set((ours.checked || []).map(key));
      for (const c of was.list) {
        if (now.has(key(c)) || ours.hands?.[c.seat]?.[c.place] !== c.card || show.checks.has(c.card)) continue;
        const at = [(c.seat + turn) % 4, c.place];
        if (show.slots[at[0]]?.[at[1]] === c.card && readUnsure(c.card)) {
          show.unsure.add(slotKey(at));
          show.settled.delete(slotKey(at));
        }
      }
    }
    for (const c of ours.checked || []) {
      const seat = (c.seat + turn) % 4;
      if (show.slots[seat]?.[c.place] === c.card) confirm([seat, c.place], c);
    }
  }
  show.keptChecks = ours ? { photo: ours.photo_id, bottom: ours.bottom ?? null, list: (ours.checked || []).slice() } : null;
  for (const card of show.checks) { const at = placeOf(card); if (at && !show.confirmedAt.get(slotKey(at))) confirm(at, null); }
}
// Whether the photos read `card` unsure (a confirmation taken back asks for it again).
function readUnsure(card) {
  return (show.scan?.cards || []).some((c) => c.card === card && (c.conf ?? 1) < LOW_CONF);
}
// "Deshacer" beside a card confirmed: the table no longer keeps it confirmed (POST
// .../shown/checks with `undo`), and every phone shows it unsure again; one confirmed here
// and not kept yet is let go here. The keyboard's focus goes to the card, to check again.
async function takeBack(key) {
  const mine = show;
  const [seat, i] = slotOf(key);
  const card = mine.slots[seat][i];
  const kept = mine.confirmedAt.get(key);
  if (!card) return;
  mine.checks.delete(card);
  if (kept) {
    await afterShown();
    if (show !== mine) return;
    const res = await write("shown/checks", { photo_id: mine.photos[0]?.id, seat: kept.seat, place: kept.place, card, undo: true });
    if (show !== mine || !res) return;
  } else {
    mine.unsure.add(key);
    mine.settled.delete(key);
  }
  renderShowdown();
  document.querySelector(`.card-slot[data-seat="${seat}"][data-slot="${i}"]`)?.focus({ preventScroll: true });
}
// The [seat, place] that holds `card` here, other than at `except` (a [seat, place]), or null.
function placeOf(card, except = null) {
  for (const seat of [0, 1, 2, 3]) {
    const i = show.slots[seat].indexOf(card);
    if (i >= 0 && !(except && seat === except[0] && i === except[1])) return [seat, i];
  }
  return null;
}
// The next read confirmed here for the table to keep (`mine`'s cards kept as they stand):
// its photo, seat, place and card; those no longer where they were confirmed, or kept
// already, are let go.
function nextCheck(mine) {
  const shown = current().shown;
  const photo = mine.photos[0]?.id;
  const kept = new Set((shown?.checked || []).map((c) => `${c.seat}:${c.place}:${c.card}`));
  for (const card of [...mine.checks]) {
    const at = photo && shown?.photo_id === photo && mine === show ? placeOf(card) : null;
    if (!at || kept.has(`${at[0]}:${at[1]}:${card}`)) { mine.checks.delete(card); continue; }
    return { photo_id: photo, seat: at[0], place: at[1], card };
  }
  return null;
}

// A showdown kept (another phone's, this one's before a reload, or one undone, as it was
// settled: the players' corrections included) comes back with its photos and what they
// read, the cards in their places, to settle or fix.
async function loadPhotos(photoId, confirmed) {
  const mine = show;
  mine.reading = true;
  const kept = mine.slots.map((row) => row.slice());
  try {
    const res = await retrying(() => api("GET", `${API}/photos/${encodeURIComponent(photoId)}/scan`, { token: TOKEN, timeout: TIMEOUT_MS }));
    if (show !== mine || mine.photos.length) return; // the hand moved on, or a photo was taken meanwhile
    const read = encodeURIComponent(BOOT.state?.watch_token || TOKEN || "");
    const empty = { cards: [], hands: null, warnings: [] };
    mine.photos = (res.photos || []).map((p) => ({ url: `${p.url}?token=${read}`, id: p.photo_id, scan: p.scan || empty }));
    mine.shown = 0;
    const bottom = res.photos?.[0]?.scan?.bottom;
    if (Number.isInteger(bottom)) mine.bottom = bottom;  // its seats follow from it
    mine.scan = res.scan || empty;
    placeOver(kept, confirmed);
  } catch (e) {
    /* the photo went meanwhile (pruned): the cards stand without it */
  } finally {
    if (show === mine) mine.reading = false;
  }
  if (show === mine) renderShowdown();
}

// The cards kept stand over what the photos read: those that differ are the players'
// picks, and the boxes found unread name the cards put where the read left a place empty.
// Those, and the reads a person confirmed (`applyChecks`), are settled by hand (kept over
// another photo). `confirmed` (a hand settled, then undone): no card is left to check.
// A card read is compared with the place that holds it in its seat (`alignRow`), not with
// the place at its index: another photo keeps the cards read before where they were
// (`keepSettled`), where the photos read together may list them in another order.
function placeOver(hands, confirmed) {
  fillFromScan(show.scan);
  const read = show.slots, unsure = show.unsure;
  show.settled = new Set();
  show.unsure = new Set();
  const unread = [];
  const to = {};  // a read's place ("seat:j") -> the place that holds it now
  hands.forEach((row, seat) => {
    const from = [];  // a place -> the read's place paired with it
    alignRow(read[seat], row).forEach((i, j) => { from[i] = j; to[slotKey([seat, j])] = [seat, i]; });
    row.forEach((card, i) => {
      if (!card) return;
      const was = read[seat][from[i]];
      if (confirmed || card !== was) show.settled.add(slotKey([seat, i]));
      if (card !== was && !was) unread.push([seat, i]);
      if (!confirmed && card === was && unsure.has(slotKey([seat, from[i]]))) show.unsure.add(slotKey([seat, i]));
    });
  });
  for (const [k, slot] of Object.entries(show.boxSlot)) show.boxSlot[k] = to[slotKey(slot)] ?? slot;
  unreadBoxes(show.scan).forEach((_, j) => { if (j < unread.length) show.boxSlot[`u${j}`] = unread[j]; });
  show.slots = hands.map((row) => row.slice());
}

// A seat's places as the photos read it (`read`) paired with its places now (`held`): a
// card read goes with the place that holds it in that seat, the other places with each
// other in order (a card named over a read, a box unread named). `at[j]`: read place j's.
function alignRow(read, held) {
  const at = [null, null, null, null];
  read.forEach((card, j) => { const i = card ? held.indexOf(card) : -1; if (i >= 0) at[j] = i; });
  const rest = [0, 1, 2, 3].filter((i) => !at.includes(i));
  return at.map((i) => (i === null ? rest.shift() : i));
}

// The photos were taken from another seat than the one said: their cards go to the seats
// that follow from the new bottom edge (a rotation, as the reader seats them: bottom, then
// counterclockwise), with what the players named. Without a photo, the seat is the next one's.
function turnScan(scan, turn, bottom) {
  if (!scan) return scan;
  const seat = (s) => (Number.isInteger(s) ? (s + turn) % 4 : s);
  return {
    ...scan,
    bottom,
    cards: (scan.cards || []).map((c) => ("seat" in c ? { ...c, seat: seat(c.seat) } : c)),
    hands: Array.isArray(scan.hands) && scan.hands.length === 4 ? [0, 1, 2, 3].map((s) => scan.hands[(s - turn + 4) % 4]) : scan.hands,
    warnings: (scan.warnings || []).map((w) => ("seat" in w ? { ...w, seat: seat(w.seat) } : w)),
  };
}
function reseat(bottom) {
  const turn = (bottom - show.bottom + 4) % 4;
  show.bottom = bottom;
  if (!turn || !show.photos.length) return false;
  const seat = (s) => (s + turn) % 4;
  show.scan = turnScan(show.scan, turn, bottom);
  for (const p of show.photos) p.scan = turnScan(p.scan, turn, bottom);
  show.slots = [0, 1, 2, 3].map((s) => show.slots[(s - turn + 4) % 4]);
  for (const k of Object.keys(show.boxSlot)) show.boxSlot[k] = [seat(show.boxSlot[k][0]), show.boxSlot[k][1]];
  const turned = (keys) => new Set([...keys].map((key) => { const [s, i] = slotOf(key); return slotKey([seat(s), i]); }));
  show.unsure = turned(show.unsure);
  show.settled = turned(show.settled);
  return true;
}
// The photo's seat chosen: its cards turn at once, kept at once (a tap on the hint that
// names the seat) or once the radios' choice settles (`seats`: the arrow keys move it from
// seat to seat, not a write at each).
const bottomSeats = CAN_PLAY ? settlingRadios($("bottom-seat"), () => saveShown()) : null;
function bottomChosen(bottom, seats = null) {
  if (show.reading) { show.bottom = bottom; return; }  // the photo being read is read from there
  if (reseat(bottom)) {
    renderShowdown();
    if (seats) seats.chose(bottom); else saveShown();
  }
}

function renderPhoto() {
  const view = $("photo-view");
  if (!show.photos.length) { view.hidden = true; return; }
  view.hidden = false;
  const shown = show.photos[show.shown] || show.photos[0];
  const tabs = $("photo-tabs");
  tabs.hidden = show.photos.length < 2;
  keepRadioFocus(tabs, () => tabs.replaceChildren(...(tabs.hidden ? [] : show.photos.map((_, i) => h("label", {},
    h("input", { type: "radio", name: "photo-shown", value: i, checked: i === show.shown, onchange: () => { show.shown = i; renderPhoto(); } }),
    h("span", {}, t("show.photo_n", { n: i + 1 })))))));
  const img = $("photo-img");
  if (img.getAttribute("src") !== shown.url) img.src = shown.url;
  const boxes = $("photo-boxes");
  boxes.replaceChildren();
  const scan = show.scan;
  $("photo-warnings").replaceChildren();
  if (!scan || !shown.scan) { say($("photo-status"), t("show.reading")); return; }
  const [w, hgt] = shown.scan.size || [img.naturalWidth || 1000, img.naturalHeight || 1000];
  boxes.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  const unit = Math.max(w, hgt) / 100;
  const groups = {};
  const drawBox = (k, box, read, conf, seatRead) => {
    const [x1, y1, x2, y2] = box;
    const slot = show.boxSlot[k];
    const card = slot ? show.slots[slot[0]][slot[1]] : read;
    const seat = slot ? slot[0] : seatRead;
    const known = seat !== null && seat !== undefined;
    const low = slot ? show.unsure.has(slotKey(slot)) : conf < LOW_CONF;
    const bw = x2 - x1;
    const fs = Math.max(unit * 2.2, Math.min(bw * 0.3, unit * 4));
    const label = `${card ? cardName(card) : t("show.unread_box")} · ${known ? playerName(seat) : t("show.unknown_seat")}${low ? ` · ${t("show.to_check")}` : ""}`;
    const g = svg("g", { class: `box team-${known ? team(seat) : "x"}${low ? " low" : ""}`, tabindex: "0", role: "button", "aria-label": label, "data-k": k, "data-box": box.join(",") },
      svg("rect", { class: "frame", x: x1, y: y1, width: bw, height: y2 - y1, rx: unit * 0.6, "stroke-width": unit * 0.55 }),
      svg("rect", { class: "label-bg", x: x1, y: y1, width: bw, height: fs * 1.35, rx: unit * 0.5 }),
      svg("text", { x: x1 + bw / 2, y: y1 + fs * 1.05, "font-size": fs, "text-anchor": "middle" }, card ? `${card}${low ? "?" : ""}` : "?"),
      svg("rect", { class: "hit" }));  // the tap target, at least a finger's size: sizeHits
    g.addEventListener("click", (e) => pickForBox(tappedBox(e, k)));
    g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pickForBox(k); } });
    boxes.append(g);
    if (known) {
      const gr = (groups[seat] ||= { x1, y1, x2, y2 });
      gr.x1 = Math.min(gr.x1, x1); gr.y1 = Math.min(gr.y1, y1); gr.x2 = Math.max(gr.x2, x2); gr.y2 = Math.max(gr.y2, y2);
    }
  };
  // the boxes in the photo shown (photos read together say which photo each card is in)
  const here = (x) => (x.photo ?? 0) === show.photos.indexOf(shown);
  (scan.cards || []).forEach((c, k) => { if (here(c)) drawBox(k, c.box, c.card, c.conf ?? 1, c.seat); });
  // cards the reader found but could not name: a "?" box to tap and name
  unreadBoxes(scan).forEach((u, j) => { if (here(u)) drawBox(`u${j}`, u.box, null, 0, null); });
  sizeHits();
  // each seat's name beside its cards, toward the middle of the table
  for (const [seat, gr] of Object.entries(groups)) {
    const cx = (gr.x1 + gr.x2) / 2, cy = (gr.y1 + gr.y2) / 2;
    const horizontal = gr.x2 - gr.x1 >= gr.y2 - gr.y1;
    const fs = unit * 3.2;
    let x = cx, y = cy;
    if (horizontal) y = cy < hgt / 2 ? gr.y2 + fs * 1.6 : gr.y1 - fs * 0.8;
    else x = cx < w / 2 ? gr.x2 + unit * 2 : gr.x1 - unit * 2;
    const anchor = horizontal ? "middle" : cx < w / 2 ? "start" : "end";
    boxes.append(svg("text", { class: `seat-label team-${team(Number(seat))}`, "aria-hidden": "true", x, y: horizontal ? y : y + fs * 0.35, "font-size": fs, "text-anchor": anchor }, playerName(Number(seat))));
  }
  // what the hands hold now: the cards the photos read, and those a person set by hand
  const { read, byHand } = cardSources(scan);
  say($("photo-status"), byHand
    ? t(byHand === 1 ? "show.found_by_hand_one" : "show.found_by_hand", { n: read + byHand, read, hand: byHand })
    : t("show.found", { n: read }));
  // the reader's warnings, each said once; "hard to read" is said per card below the hands, and goes as they are checked
  const said = new Set();
  for (const w of shownWarnings(scan)) {
    if (w.code === "low_confidence") continue;
    if (w.code === "seat_count" && w.count < 4) continue; // the hands below count what is missing, live
    // one card named: the sentence in the singular ("el 7 de copas queda casi tapado")
    const key = Array.isArray(w.cards) ? plural(`warn.${w.code}`, w.cards.length) : `warn.${w.code}`;
    const text = t(key) !== key ? t(key, { cards: (w.cards || []).map(cardName).join(", "), card: w.card ? cardName(w.card) : "", player: w.seat != null ? playerName(w.seat) : "", n: w.count }) : w.message;
    if (said.has(text)) continue;
    said.add(text);
    // a deck the reader never learnt: the deck page teaches it from four photos, and leads back here
    const back = new URLSearchParams({ from: location.pathname + location.search });
    const more = w.code === "unfamiliar_deck" ? [" ", h("a", { href: `/decks?${back}`, class: "teach-deck" }, t("decks.teach"))] : [];
    $("photo-warnings").append(h("li", { class: "warning" }, icon("alert"), text, ...more));
  }
  const unnamed = unreadBoxes(scan).filter((_, j) => !show.boxSlot[`u${j}`]).length;
  if (unnamed) $("photo-warnings").append(h("li", { class: "warning" }, icon("alert"), t("show.unread", { n: unnamed })));
}

// The reader's warnings as the hands stand now. Photos read together give one per photo
// (a tight fan in each): one per seat is said, naming their cards together. A warning
// about cards names only those still in the hands that no person named or confirmed, and
// goes when none is left (a card the photos disagreed on, settled by hand or in nobody's
// hand; a duplicate read that a person has sorted out).
function shownWarnings(scan) {
  const inHands = new Set(show.slots.flat().filter(Boolean));
  const byHand = new Set([...show.settled].map((key) => { const [s, i] = slotOf(key); return show.slots[s][i]; }).filter(Boolean));
  const open = (card) => inHands.has(card) && !byHand.has(card);
  const out = [];
  for (const w of scan.warnings || []) {
    if (Array.isArray(w.cards)) {
      const cards = w.cards.filter(open);
      if (!cards.length && w.cards.length) continue;
      const same = out.find((x) => x.code === w.code && (x.seat ?? null) === (w.seat ?? null) && Array.isArray(x.cards));
      if (same) { same.cards.push(...cards.filter((c) => !same.cards.includes(c))); continue; }
      out.push({ ...w, cards });
    } else if (w.code === "duplicate" && w.card && !open(w.card)) {
      continue;
    } else out.push(w);
  }
  return out;
}

// A card's box in the photo is some 28x41 px on a phone: each takes taps on a target at least
// HIT_PX square (CSS px) centred on it, kept inside the photo. The targets of neighbouring cards
// overlap (a fan), so a tap goes to the card whose box centre is nearest, among those whose
// target it fell in: a tap on a card's own centre always opens that card.
const HIT_PX = 44;
function sizeHits() {
  const boxes = $("photo-boxes");
  const view = boxes.viewBox.baseVal;
  const shown = boxes.getBoundingClientRect().width;
  if (!view || !view.width || !shown) return;
  const side = HIT_PX * (view.width / shown);  // user units per CSS px: the photo keeps its shape
  for (const g of boxes.querySelectorAll("g.box")) {
    const [x1, y1, x2, y2] = g.dataset.box.split(",").map(Number);
    const w = Math.max(x2 - x1, side), hh = Math.max(y2 - y1, side);
    const x = Math.min(Math.max((x1 + x2 - w) / 2, 0), Math.max(view.width - w, 0));
    const y = Math.min(Math.max((y1 + y2 - hh) / 2, 0), Math.max(view.height - hh, 0));
    const hit = g.querySelector(".hit");
    for (const [name, v] of Object.entries({ x, y, width: w, height: hh })) hit.setAttribute(name, v);
  }
}
if (CAN_PLAY) new ResizeObserver(sizeHits).observe($("photo-boxes"));  // the watchers' page has no showdown

// The box a tap meant: of the targets under the finger, the one whose box centre is nearest.
// A click without a place (a key, a screen reader) is the box's own.
function tappedBox(e, k) {
  const boxes = $("photo-boxes");
  const m = boxes.getScreenCTM();
  if (!e.detail || !m) return k;
  const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
  let best = k, near = Infinity;
  for (const g of boxes.querySelectorAll("g.box")) {
    const hit = g.querySelector(".hit");
    const [hx, hy, hw, hh] = ["x", "y", "width", "height"].map((a) => Number(hit.getAttribute(a)));
    if (p.x < hx || p.x > hx + hw || p.y < hy || p.y > hy + hh) continue;
    const [x1, y1, x2, y2] = g.dataset.box.split(",").map(Number);
    const d = Math.hypot(p.x - (x1 + x2) / 2, p.y - (y1 + y2) / 2);
    if (d < near) { near = d; best = g.dataset.k; }
  }
  return best;
}

function slotKey(slot) { return `${slot[0]}:${slot[1]}`; }
// The [seat, place] a `slotKey` names.
function slotOf(key) { return key.split(":").map(Number); }

// The cards in the hands now, by where they came from: `read`, those the photos read
// there (or read with no seat, placed by a person), and `byHand`, those a person set
// that the photos did not read there (a correction, a card not read). Empty places count
// in neither: the line below the hands says what is missing.
function cardSources(scan) {
  const seen = new Set();
  for (const c of scan.cards || []) {
    if (!c.card) continue;
    seen.add(c.seat === null || c.seat === undefined || c.seat < 0 || c.seat > 3 ? `?:${c.card}` : `${c.seat}:${c.card}`);
  }
  (Array.isArray(scan.hands) ? scan.hands : []).forEach((hand, seat) => (hand || []).forEach((card) => { if (card) seen.add(`${seat}:${card}`); }));
  let read = 0, byHand = 0;
  show.slots.forEach((row, seat) => row.forEach((card) => {
    if (!card) return;
    if (seen.has(`${seat}:${card}`) || seen.has(`?:${card}`)) read += 1;
    else byHand += 1;
  }));
  return { read, byHand };
}

// The boxes of cards found but not named (the reader's `low_confidence` warnings with no
// card), each with the photo it is in.
function unreadBoxes(scan) {
  return (scan.warnings || []).filter((w) => w.code === "low_confidence" && !w.card && Array.isArray(w.box))
    .map((w) => ({ box: w.box, photo: w.photo ?? 0 }));
}

function shortCard(card) {
  return card || "?";
}

function miniCard(card) {
  if (!card) return h("span", { class: "mini-card empty" }, "+");
  const m = /^(\d+)([ocebOCEB]?)$/.exec(card) || [card, card, ""];
  return h("span", { class: `mini-card suit-${m[2] || "x"}` },
    h("span", { class: "mc-rank" }, m[1]),
    m[2] ? svg("svg", { class: "mc-suit", "aria-hidden": "true" }, svg("use", { href: `#s-${m[2].toLowerCase()}` })) : null);
}

function renderHands() {
  const grid = $("hands-grid");
  grid.replaceChildren();
  for (const seat of [0, 1, 2, 3]) {
    const row = h("div", { class: `hand-row team-${team(seat)}`, role: "group", "aria-label": playerName(seat) },
      h("span", { class: "hand-who" }, playerName(seat)));
    show.slots[seat].forEach((card, i) => {
      // "Ane 1: As de espadas", in French "Ane 1 : As d'épées" (the language's colon)
      const unsure = Boolean(card) && show.unsure.has(slotKey([seat, i]));
      const confirmed = Boolean(card) && !unsure && show.confirmedAt.has(slotKey([seat, i]));
      row.append(h("button", { type: "button", class: `card-slot${unsure ? " unsure" : ""}${confirmed ? " confirmed" : ""}`, dataset: { seat, slot: i }, "aria-label": `${playerName(seat)} ${i + 1}${colon()}${card ? cardName(card) : "—"}${unsure ? ` · ${t("show.to_check")}` : ""}`, onclick: () => pickForSlot(seat, i) }, miniCard(card)));
    });
    grid.append(row);
  }
  renderConfirmed();
  const missing = show.slots.flat().filter((c) => !c).length;
  const check = [0, 1, 2, 3].flatMap((seat) => show.slots[seat].map((card, i) => (card && show.unsure.has(slotKey([seat, i])) ? card : null))).filter(Boolean);
  const lines = [];
  if (missing) lines.push(t(missing === 1 ? "show.missing_one" : "show.missing", { n: missing }));
  if (check.length) lines.push(t("show.check", { cards: check.map(cardName).join(", ") }));
  say($("missing"), lines.join(" · "));
  $("btn-settle").disabled = missing > 0;
  renderSettleWarning();
  // the cards contradict what was declared, and would not from another seat: said before the count
  const from = missing ? null : seatFromDeclared();
  if (from !== null) {
    $("photo-warnings").append(h("li", { class: "warning seat-hint" }, icon("alert"),
      h("span", {}, t("show.seat_hint", { player: playerName(from) }), " ",
        h("button", { type: "button", class: "btn-link seat-hint-fix", onclick: () => bottomChosen(from) }, t("show.seat_hint_fix", { player: playerName(from) })))));
  }
}

// The cards read unsure that a person confirmed, each with "Deshacer" to take it back (`takeBack`).
function renderConfirmed() {
  const list = $("checked-cards");
  if (!list) return;
  const had = document.activeElement?.closest?.("#checked-cards .undo-check")?.dataset.k;
  const keys = [...show.confirmedAt.keys()].filter((k) => { const [s, i] = slotOf(k); return Boolean(show.slots[s]?.[i]); }).sort();
  list.replaceChildren(...keys.map((k) => {
    const [seat, i] = slotOf(k);
    const what = { card: cardName(show.slots[seat][i]), player: playerName(seat) };
    return h("li", { class: `checked-card team-${team(seat)}` }, icon("check"),
      h("span", {}, t("show.confirmed_card", what)), " ",
      h("button", { type: "button", class: "btn-link undo-check", dataset: { k }, "aria-label": t("show.undo_check_label", what), onclick: () => takeBack(k) }, t("show.undo_check")));
  }));
  list.hidden = !keys.length;
  if (had) list.querySelector(`.undo-check[data-k="${had}"]`)?.focus({ preventScroll: true });
}

// The cards read unsure that no one has confirmed or corrected yet, with their seats.
function uncheckedCards() {
  return [0, 1, 2, 3].flatMap((seat) => show.slots[seat].map((card, i) => (card && show.unsure.has(slotKey([seat, i])) ? { seat, card } : null))).filter(Boolean);
}

// A first tap on "Contar la mano" while cards read unsure are left unchecked does not count:
// the line above the button says how many and which ("Quedan 2 cartas por revisar: …"), and
// the button says "Contar igualmente"; a second tap counts. The line follows the cards
// confirmed meanwhile, and goes, with the button's first words, once none is left.
function renderSettleWarning() {
  const left = uncheckedCards();
  if (!left.length) show.settleWarned = false;
  const warn = show.settleWarned;
  say($("settle-warn"), warn ? t(plural("show.unchecked", left.length), { n: left.length,
    cards: left.map(({ seat, card }) => t("show.unchecked_card", { card: cardName(card), player: playerName(seat) })).join(semicolon()) }) : "");
  $("btn-settle").textContent = t(warn ? "show.settle_anyway" : "show.settle");
}

// Whether four cards hold pares, or juego (31 or more), as the engine values them: with 8
// kings a 3 is a rey and a 2 an as; figures count 10.
function holds(cards, claim) {
  const kings = rules().kings ?? 8;
  const ranks = cards.map((c) => { const r = parseInt(c, 10); return kings === 8 ? ({ 3: 12, 2: 1 }[r] ?? r) : r; });
  if (claim === "pares") return new Set(ranks).size < 4;
  return ranks.reduce((sum, r) => sum + (r >= 10 ? 10 : r), 0) >= 31;
}
// The seat the photo was taken from, where the hands as seated contradict a pares or juego
// declaration of the hand and the hands turned by one rotation (the photo seated from
// another seat) agree with every one: null otherwise (no photo, nothing declared, no
// contradiction, or no rotation, or more than one, that agrees).
function seatFromDeclared() {
  if (!show.photos.length || show.reading) return null;
  const said = (current().log || []).filter((a) => a.act === "declare" && Number.isInteger(a.seat));
  if (!said.length) return null;
  const agrees = (slots) => said.every((a) => {
    const claim = "pares" in a ? "pares" : "juego";
    return holds(slots[a.seat], claim) === Boolean(a[claim]);
  });
  if (agrees(show.slots)) return null;
  const turns = [1, 2, 3].filter((turn) => agrees([0, 1, 2, 3].map((s) => show.slots[(s - turn + 4) % 4])));
  return turns.length === 1 ? (show.bottom + turns[0]) % 4 : null;
}

// card picker
let pickerTarget = null;
function usedCards() { return new Set(show.slots.flat().filter(Boolean)); }
// The card named at `slot` (a [seat, place]): a card another seat holds is moved here, and
// its place there is left empty, not swapped with the card this place had: an empty place
// is said ("Falta 1 carta") and holds the count until it is named, where a swap would put
// in the other hand a card nobody said is there. Its box in the photo, read at that seat,
// keeps no place (a tap on it names the place left empty), and the page says the move.
function placeCard(slot, card) {
  const [seat, i] = slot;
  const was = show.slots[seat][i];
  // an unsure read named as read: confirmed, for every phone (`nextCheck`)
  if (card && card === was && show.unsure.has(slotKey(slot))) show.checks.add(card);
  else if (card !== was) show.checks.delete(was);
  const from = card ? placeOf(card, slot) : null;
  if (from) {
    show.slots[from[0]][from[1]] = null;
    show.unsure.delete(slotKey(from));
    show.settled.delete(slotKey(from));
    for (const [k, s] of Object.entries(show.boxSlot)) if (slotKey(s) === slotKey(from)) delete show.boxSlot[k];
    toast(t("show.moved", { card: cardName(card), from: playerName(from[0]), to: playerName(seat) }), "info", 4500);
  }
  if (from) show.checks.delete(card);
  show.slots[seat][i] = card;
  show.unsure.delete(slotKey(slot));
  show.settled.add(slotKey(slot));
}

function openPicker(currentCard, onPick, maybe = [], here = null) {
  pickerTarget = onPick;
  const used = usedCards();
  const grid = $("picker-grid");
  grid.replaceChildren();
  // what the reader says an unsure card may be, one tap away
  const likely = maybe.filter((card) => card === currentCard || !used.has(card));
  if (likely.length) {
    grid.append(h("div", { class: "picker-maybe", role: "group", "aria-label": t("show.maybe") },
      h("span", { class: "picker-maybe-title" }, t("show.maybe")),
      ...likely.map((card) => h("button", { type: "button", class: `pick-maybe${card === currentCard ? " is-current" : ""}`, dataset: { maybe: card }, "aria-label": cardName(card), "aria-current": card === currentCard ? "true" : null, onclick: () => choose(card) }, miniCard(card)))));
  }
  for (const s of SUITS) {
    const block = h("div", { class: `picker-suit suit-${s}`, role: "group", "aria-label": t(`suit.${s}`) },
      h("span", { class: "picker-suit-name" }, svg("svg", { class: "mc-suit", "aria-hidden": "true" }, svg("use", { href: `#s-${s}` })), t(`suit.${s}`)));
    for (const r of RANKS) {
      const card = r + s;
      const isCur = card === currentCard;
      // a card another seat holds is offered, marked with its seat: choosing it moves it here
      // (one this seat holds at another place is not: a hand's order says nothing)
      const at = used.has(card) && !isCur && here ? placeOf(card, here) : null;
      const held = at && at[0] !== here[0] ? at : null;
      const label = held ? `${cardName(card)} · ${t("show.held_by", { player: playerName(held[0]) })}` : cardName(card);
      block.append(h("button", { type: "button", class: `pick${isCur ? " is-current" : ""}${held ? ` held team-${team(held[0])}` : ""}`, dataset: { card, ...(held ? { held: held[0] } : {}) },
        disabled: used.has(card) && !isCur && !held, "aria-label": label, "aria-current": isCur ? "true" : null, title: held ? label : null, onclick: () => choose(card) },
        r, held ? h("span", { class: "pick-held", "aria-hidden": "true" }, playerName(held[0])) : null));
    }
    grid.append(block);
  }
  $("picker").showModal();
}
// In the picker the arrow keys move among the cards as they are laid out (five a row, each
// suit's two rows under the one before), past those taken, Home and End to the first and
// the last: from the keyboard, 40 Tabs lay between the first card and the last.
if (CAN_PLAY) $("picker-grid").addEventListener("keydown", (ev) => {
  const picks = [...$("picker-grid").querySelectorAll(".pick")];
  const i = picks.indexOf(document.activeElement);
  const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 5, ArrowUp: -5 }[ev.key];
  if (i < 0 || !(step || ev.key === "Home" || ev.key === "End")) return;
  ev.preventDefault();
  let to = -1;
  if (step) {
    for (let k = i + step; k >= 0 && k < picks.length; k += step) if (!picks[k].disabled) { to = k; break; }
  } else if (ev.key === "Home") to = picks.findIndex((b) => !b.disabled);
  else for (let k = picks.length - 1; k >= 0 && to < 0; k--) if (!picks[k].disabled) to = k;
  if (to >= 0) picks[to].focus();
});
function choose(card) {
  $("picker").close();
  if (pickerTarget) pickerTarget(card);
  pickerTarget = null;
}
// The reader's read of box k and what else it may be, for an unsure read; else nothing.
function maybeFor(k) {
  const c = show.scan?.cards?.[k];
  if (!c || (c.conf ?? 1) >= LOW_CONF) return [];
  const w = (show.scan.warnings || []).find((x) => x.code === "low_confidence" && x.card === c.card && String(x.box) === String(c.box));
  return [c.card, ...(w?.others || [])];
}
function pickForSlot(seat, i) {
  const k = show.unsure.has(slotKey([seat, i])) ? Object.keys(show.boxSlot).find((b) => slotKey(show.boxSlot[b]) === slotKey([seat, i])) : undefined;
  openPicker(show.slots[seat][i], (card) => {
    placeCard([seat, i], card);
    renderShowdown();
    saveShown();
    // the grid was rebuilt: the keyboard's focus goes back to the place just filled
    document.querySelector(`.card-slot[data-seat="${seat}"][data-slot="${i}"]`)?.focus();
  },
    k === undefined ? [] : maybeFor(k), [seat, i]);
}
function pickForBox(k) {
  let slot = show.boxSlot[k];
  const left = !slot;  // a box whose read holds no place: what the reader says it may be, offered
  if (!slot) {
    // a card left out (unseated, or read twice): it goes to the first empty place, in
    // its own seat where it was read in one
    const own = show.scan?.cards?.[k]?.seat;
    const first = Number.isInteger(own) && own >= 0 && own < 4 ? show.slots[own].indexOf(null) : -1;
    if (first >= 0) slot = [own, first];
    for (const s of slot ? [] : [0, 1, 2, 3]) {
      const i = show.slots[s].indexOf(null);
      if (i >= 0) { slot = [s, i]; break; }
    }
    if (!slot) return;
  }
  openPicker(show.slots[slot[0]][slot[1]], (card) => {
    placeCard(slot, card);
    show.boxSlot[k] = slot;
    renderShowdown();
    saveShown();
    // the photo's boxes were drawn again: the focus goes back to the box just named, where
    // the photo stays in view
    $("photo-boxes").querySelector(`g.box[data-k="${k}"]`)?.focus({ preventScroll: true });
  }, left || show.unsure.has(slotKey(slot)) ? maybeFor(k) : [], slot);
}

// A phone's photo may weigh more than the server takes (25 MB; a 50 MP phone's, some 47 MB)
// and needs far fewer pixels to be read: one above SHRINK_PIXELS, or heavier than
// SHRINK_BYTES, is drawn smaller on a canvas and sent as a JPEG. The browser draws it
// upright (its EXIF orientation applied, `from-image`) and the JPEG it makes has no EXIF,
// which the server reads as upright (orientation 1): the photo stays the right way up.
// A photo the browser cannot decode (a HEIC on some phones) goes as it is.
const SHRINK_PIXELS = 12.5e6;  // a usual phone photo (4032x3024, 12.19 MP) goes as it is
const SHRINK_BYTES = 20 * 2 ** 20;
async function shrunk(file) {
  if (!window.createImageBitmap) return file;
  let bmp;
  try {
    bmp = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (e) {
    return file;
  }
  try {
    const pixels = bmp.width * bmp.height;
    if (pixels <= SHRINK_PIXELS && file.size <= SHRINK_BYTES) return file;
    const k = Math.min(1, Math.sqrt(SHRINK_PIXELS / pixels));
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.floor(bmp.width * k));
    canvas.height = Math.max(1, Math.floor(bmp.height * k));
    const ctx = canvas.getContext("2d");
    ctx.imageSmoothingQuality = "high";
    ctx.drawImage(bmp, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((done) => canvas.toBlob(done, "image/jpeg", 0.9));
    if (!blob) return file;
    return new File([blob], `${(file.name || "photo").replace(/\.[^.]*$/, "")}.jpg`, { type: "image/jpeg" });
  } catch (e) {
    return file;
  } finally {
    bmp.close();
  }
}

// A photo refused as too large, in words that say the server's own limits.
function photoTooLarge() {
  const limit = BOOT.photo_limit || {};
  const mp = limit.megapixels ?? 50;
  if (!limit.bytes) return t("show.photo_too_large_px", { mp });
  const num = (n, digits) => new Intl.NumberFormat(document.documentElement.lang || undefined, { maximumFractionDigits: digits }).format(n);
  const mb = limit.bytes / 2 ** 20;
  const size = mb >= 1 ? t("unit.mb", { n: num(mb, mb < 10 ? 1 : 0) }) : t("unit.kb", { n: num(Math.max(1, limit.bytes / 1024), 0) });
  return t("show.photo_too_large", { size, mp });
}

// A photo of the showdown: the first (or a new first, the others dropped), or with `add`
// another one read together with those taken (a card glare hid in one shows in another).
async function uploadPhoto(file, add = false) {
  if (!file) return;
  add = add && Boolean(show.photos[0]?.id);
  if (!add) {
    for (const p of show.photos) if (p.url.startsWith("blob:")) URL.revokeObjectURL(p.url);
    show.photos = [];
    show.scan = null;
    show.settled = new Set();
    show.checks = new Set();  // a new photo: its reads are checked afresh
  }
  const mine = show;
  const entry = { url: URL.createObjectURL(file), id: null, scan: null };
  show.photos.push(entry);
  show.shown = show.photos.length - 1;
  show.reading = true;
  renderShowdown();
  file = await shrunk(file);
  const form = new FormData();
  const sent = show.bottom;  // the seat the photo is read from (one chosen meanwhile seats it again)
  form.append("photo", file, file.name || "photo.jpg");
  form.append("bottom", String(sent));
  const query = new URLSearchParams({ bottom: sent, client_id: newClientId() });
  if (add) query.set("with", show.photos[0].id);
  const empty = { cards: [], hands: null, warnings: [] };
  try {
    const res = await retrying(() => api("POST", `${API}/photos?${query}`, { token: TOKEN, body: form, timeout: PHOTO_TIMEOUT_MS }));
    if (show !== mine || !show.photos.includes(entry)) return; // the hand moved on meanwhile
    entry.id = res.photo_id;
    entry.scan = res.scan || empty;
    // what the page held before this photo: the places settled by hand stand over it
    const before = { slots: show.slots.map((r) => r.slice()), settled: new Set(show.settled), scan: show.scan, boxSlot: { ...show.boxSlot } };
    show.scan = res.together?.scan || entry.scan;
    // "Foto hecha desde" changed while the photo was on its way or read: its cards were
    // seated from the seat sent, and go to the one chosen now
    const chosen = show.bottom;
    show.bottom = Number.isInteger(entry.scan.bottom) ? entry.scan.bottom : sent;
    fillFromScan(show.scan);
    if (add) keepSettled(before);
    show.reading = false;
    reseat(chosen);
    saveShown();  // kept for every phone
  } catch (e) {
    if (show !== mine || !show.photos.includes(entry)) return;
    // a photo refused or not read is not shown as if read: the photos already read stay,
    // and without any the panel asks for one again
    show.photos.splice(show.photos.indexOf(entry), 1);
    URL.revokeObjectURL(entry.url);
    show.shown = Math.max(0, show.photos.length - 1);
    if (!add) show.scan = null;
    toast(e.code === "too_large" ? photoTooLarge() : e.text || t("err.generic"), "error", 5000);
  } finally {
    if (show === mine) show.reading = false;
  }
  renderShowdown();
}

function fillFromScan(scan) {
  show.slots = [0, 1, 2, 3].map(() => [null, null, null, null]);
  show.boxSlot = {};
  show.unsure = new Set();
  const cards = scan.cards || [];
  const seated = (c) => !(c.seat === null || c.seat === undefined || c.seat < 0 || c.seat > 3);
  // a card read twice (a `duplicate` warning: one of them is misread) goes where it was
  // read surest: the other read, often an unsure misread, leaves its place empty to name
  const surest = {};
  cards.forEach((c, k) => { if (c.card && seated(c) && (surest[c.card] === undefined || (c.conf ?? 1) > (cards[surest[c.card]].conf ?? 1))) surest[c.card] = k; });
  // a seat read with more than four (photos read together, a card lying on another) keeps
  // its four surest reads, in the reader's order: the one left out is said by `seat_count`
  const kept = new Set();
  for (let s = 0; s < 4; s++) {
    cards.map((c, k) => [c, k]).filter(([c, k]) => seated(c) && c.seat === s && !(c.card && surest[c.card] !== k))
      .sort((a, b) => (b[0].conf ?? 1) - (a[0].conf ?? 1)).slice(0, 4).forEach(([, k]) => kept.add(k));
  }
  const taken = new Set();
  cards.forEach((c, k) => {
    if (!kept.has(k)) return;  // seated, its card's surest read, among its seat's four surest
    const i = show.slots[c.seat].indexOf(null);
    if (i < 0 || taken.has(c.card)) return;
    show.slots[c.seat][i] = c.card;
    show.boxSlot[k] = [c.seat, i];
    if ((c.conf ?? 1) < LOW_CONF) show.unsure.add(slotKey([c.seat, i]));
    taken.add(c.card);
  });
  // a scan that names the hands but no boxes (or fewer) fills the rest from `hands`
  if (Array.isArray(scan.hands)) {
    scan.hands.forEach((hand, seat) => (hand || []).forEach((card) => {
      if (!card || taken.has(card)) return;
      const i = show.slots[seat].indexOf(null);
      if (i >= 0) { show.slots[seat][i] = card; taken.add(card); }
    }));
  }
}

// What a person named or confirmed on this showdown stands over what the photos read
// together now (`show.slots` just filled from them, `before` the page's showdown until
// then): each place settled by hand keeps its card, and the photos fill or change only the
// places nobody settled. Seat by seat, a card read that a settled place holds (there, or
// where a person moved it) is that place's; the others keep the place they had where they
// had one, then take the places left, the surest first. A read left without a place (the
// photos read another card where a person settled one) marks that place on the photo, and
// the page says it, unless it is the read the person already set aside there.
function keepSettled(before) {
  const read = show.slots, unsure = show.unsure;
  const held = new Map();  // a card settled by hand -> its place
  for (const key of before.settled) {
    const [s, i] = slotOf(key);
    if (before.slots[s][i]) held.set(before.slots[s][i], [s, i]);
  }
  const slots = [0, 1, 2, 3].map(() => [null, null, null, null]);
  for (const [card, [s, i]] of held) slots[s][i] = card;
  const settled = new Set([...held.values()].map(slotKey));
  const to = {};  // a read's place ("seat:j") -> the place it goes to
  const matched = new Set();  // the settled places the photos read as they hold
  read.forEach((row, s) => row.forEach((card, j) => {
    const at = card && held.get(card);
    if (at) { to[slotKey([s, j])] = at; matched.add(slotKey(at)); }
  }));
  const differs = [];
  for (let s = 0; s < 4; s++) {
    const free = [0, 1, 2, 3].filter((i) => !settled.has(slotKey([s, i])));
    const left = [0, 1, 2, 3].filter((j) => read[s][j] && !held.has(read[s][j]));
    const put = (j, i) => { slots[s][i] = read[s][j]; to[slotKey([s, j])] = [s, i]; };
    const rest = [];
    for (const j of left) {  // where it was before
      const i = free.find((x) => !slots[s][x] && before.slots[s][x] === read[s][j]);
      if (i === undefined) rest.push(j); else put(j, i);
    }
    rest.sort((a, b) => unsure.has(slotKey([s, a])) - unsure.has(slotKey([s, b])));
    const open = [0, 1, 2, 3].filter((i) => settled.has(slotKey([s, i])) && !matched.has(slotKey([s, i])));
    for (const j of rest) {
      const i = free.find((x) => !slots[s][x]);
      if (i !== undefined) { put(j, i); continue; }
      const at = open.shift();  // a settled place the photos read otherwise
      if (at === undefined) continue;
      to[slotKey([s, j])] = [s, at];
      const k = Object.keys(before.boxSlot).find((b) => slotKey(before.boxSlot[b]) === slotKey([s, at]));
      const was = k === undefined ? undefined : before.scan?.cards?.[k]?.card;
      if (was !== read[s][j]) differs.push({ seat: s, read: read[s][j], card: slots[s][at] });
    }
  }
  show.unsure = new Set(Object.entries(to).filter(([key, at]) => unsure.has(key) && !settled.has(slotKey(at))).map(([, at]) => slotKey(at)));
  const boxSlot = {};
  for (const [k, slot] of Object.entries(show.boxSlot)) if (to[slotKey(slot)]) boxSlot[k] = to[slotKey(slot)];
  // a box found unread and named by hand, still unread in the photos read together
  const named = Object.entries(before.boxSlot).filter(([k]) => k.startsWith("u"));
  const boxes = before.scan ? unreadBoxes(before.scan) : [];
  unreadBoxes(show.scan).forEach((u, j) => {
    const hit = named.find(([k]) => { const b = boxes[Number(k.slice(1))]; return b && b.photo === u.photo && String(b.box) === String(u.box); });
    if (hit && settled.has(slotKey(hit[1]))) boxSlot[`u${j}`] = hit[1];
  });
  show.slots = slots;
  show.settled = settled;
  show.boxSlot = boxSlot;
  if (differs.length) {
    toast(differs.map((d) => t("show.photo_differs", { player: playerName(d.seat), read: cardName(d.read), card: cardName(d.card) })).join(" "), "warn", 6000);
  }
}

async function settle(withCards = true) {
  await shownSending;  // the cards on their way first: one write at a time
  if (!show) return;
  if (withCards && !show.settleWarned && uncheckedCards().length) {
    show.settleWarned = true;  // said first; the next tap counts
    renderSettleWarning();
    return;
  }
  const body = { hands: withCards ? show.slots.map((r) => r.slice()) : [null, null, null, null] };
  if (show.photos[0]?.id) body.photo_id = show.photos[0].id;
  const keys = document.activeElement?.matches(":focus-visible");  // a keyboard's focus, in sight
  const res = await write("showdown", body);
  if (!res) return;
  show = null;
  // the showdown panel is gone with the button that had the focus: it goes to the new hand's
  // first word (the count is read out as it comes), or, the game won, where the dialog that
  // says so gives it back
  const dlg = $("endgame");
  if (dlg.open) { dlg.addEventListener("close", () => focusNewHand(keys), { once: true }); return; }
  focusNewHand(keys);
}

// The focus once a hand is counted (or the dialog that ends a game is closed): the new hand's
// first word, else Mus, else (the match won, nothing to say; a watcher's page) the count's
// heading, else the score. Scrolled to for a keyboard; a finger's page stays put.
function focusNewHand(scroll) {
  const now = document.activeElement;
  if (now && now !== document.body && now.offsetParent !== null) return;  // somewhere in sight meanwhile
  const options = { preventScroll: !scroll };
  const words = CAN_PLAY && !$("actions").hidden;
  const first = words ? [...$("action-grid").querySelectorAll("button")].find((b) => !b.disabled) : null;
  if (first) { first.focus(options); return; }
  if (words && !$("btn-mus").hidden) { $("btn-mus").focus(options); return; }
  const heading = $("settlement").hidden ? null : $("settlement").querySelector("h2");
  const to = heading || $("scoreboard");
  to.tabIndex = -1;
  to.focus(options);
}

// ------------------------------------------------------------------ the count

function lastHand() {
  const hands = state.hands || [];
  return hands.length ? hands[hands.length - 1] : null;
}

const explained = {};
// The count is a live region: read out once, in words. While the words are on their way it
// waits for them, up to EXPLAIN_WAIT_MS (a stalled wifi): then it is shown as events, and
// the words replace them as they come.
const EXPLAIN_WAIT_MS = 1500;
const explainWaited = {};
async function fetchExplain(n) {
  if (n in explained) return;
  explained[n] = null;
  setTimeout(() => { explainWaited[n] = true; if (explained[n] === null) renderSettlement(); }, EXPLAIN_WAIT_MS);
  try {
    const q = new URLSearchParams({ token: BOOT.state?.watch_token || TOKEN || "", lang: document.documentElement.lang });
    const res = await api("GET", `/t/${encodeURIComponent(BOOT.table_id)}/hands/${n}/explain?${q}`, { timeout: TIMEOUT_MS });
    explained[n] = res.lines || [];
    renderSettlement();
  } catch (e) {
    explained[n] = [];
    renderSettlement();  // failed before the wait was over: its events now, not at the next change
  }
}

// The count in words (the server's, in the page's language), once it is here; else null.
function explainedLines(hand, settlement) {
  const n = hand?.n;
  if (n && !hand.explain && !settlement.explain) fetchExplain(n);
  const lines = (hand && hand.explain) || (settlement && settlement.explain) || (n && explained[n]);
  return Array.isArray(lines) && lines.length ? lines : null;
}

function eventLines(settlement) {
  return (settlement.events || []).map((ev) => {
    const why = whyText(ev, teamName(ev.team));
    return h("li", { class: `ev team-${ev.team}` },
      // the parts of a line said apart by a screen reader ("Grande: Beltzak +1, envido, no quiero"), not run together
      h("span", { class: "ev-lance" }, lanceLabel(ev.lance)), h("span", { class: "sr-only" }, colon()),
      h("span", { class: "ev-team" }, teamName(ev.team)), h("span", { class: "sr-only" }, " "),
      h("strong", { class: "ev-stones" }, `+${ev.stones}`),
      why ? [h("span", { class: "sr-only" }, ", "), h("span", { class: "ev-why" }, why)] : null);
  });
}

// What dispute.js says a dispute with: the names, the page's language, the engine's patterns.
function disputeWords() {
  return { players: state.players || [], lang: document.documentElement.lang, grammar: BOOT.dispute_grammar };
}

// A line of the count with its cards and scores kept whole ("R-R-C-S", "4–22"): a 360-px phone
// broke them at their hyphens ("R-" at a line's end, "R-C-S" on the next). The character
// before a run is matched (a line's start, or no letter, digit or hyphen), not looked behind
// for: Safari before 16.4 cannot read a lookbehind, and one stops this whole script there.
const RUN = /(^|[^\w-])((?:\w{1,2}[-–])+\w{1,2})(?![\w-])/;
function keepRuns(line) {
  // split gives: text, the character before a run, the run, text, ...
  return String(line).split(RUN).map((part, i) => (i % 3 === 2 ? h("span", { class: "nw" }, part) : part));
}

function renderSettlement() {
  const box = $("settlement");
  const cur = current();
  const settlement = state.last_settlement || lastHand()?.settlement;
  // shown until the next hand gets going
  if (!settlement || (cur.log && cur.log.length) || !state.hands?.length) { box.hidden = true; return; }
  const hand = lastHand();
  const sc = settlement.score || [0, 0];
  const words = explainedLines(hand, settlement);
  if (!words && hand?.n && explained[hand.n] === null && !explainWaited[hand.n]) { box.hidden = true; return; }
  const disputes = settlement.disputes || [];
  // drawn (and so read out) again only when what it says changes, not at each change the
  // stream brings while it stands (a mus, an esku chosen)
  const key = JSON.stringify([hand?.n ?? state.hands.length, words || settlement.events || [], sc, words ? [] : disputes, document.documentElement.lang]);
  if (box.dataset.key === key) { box.hidden = false; return; }
  box.dataset.key = key;
  box.replaceChildren(...[
    h("h2", {}, `${t("set.title")} · ${t("table.hand_n", { n: hand?.n ?? state.hands.length })}`),
    h("ol", { class: "explain", role: "list" }, words ? words.map((l) => h("li", {}, keepRuns(l))) : eventLines(settlement)),
    h("p", { class: "score-after" }, t("set.score_after", { a: sc[0], b: sc[1] })),
    // the count in words says each dispute in its place; without it (not here yet) they are said below
    !words && disputes.length ? h("div", { class: "disputes" }, h("h3", {}, t("set.disputes")),
      h("ul", {}, disputes.map((d) => h("li", {}, disputeText(d, disputeWords()))))) : null,
  ].filter(Boolean));
  box.hidden = false;
}

// Deje toasts: the stones of a refused bet are paid at once.
function announceDejes(prev) {
  const evs = current().events || [];
  if (prev && prev.current && (prev.current.events || []).length < evs.length && handNumber() === ((prev.hands || []).length + 1)) {
    for (const ev of evs.slice((prev.current.events || []).length)) toast(t("table.deje", { team: teamName(ev.team), n: ev.stones }), "deje");
  }
  seenDeje = evs.length;
}

// ------------------------------------------------------------------ the chart

function gameSeries(upTo) {
  // scores after each hand of the game that contains hand index upTo-1 (or the current game)
  const hands = (state.hands || []).slice(0, upTo ?? undefined);
  let start = 0;
  for (let i = 0; i < hands.length - (upTo ? 1 : 0); i++) if (hands[i].settlement?.game_over) start = i + 1;
  const pts = [[0, 0]];
  for (const hd of hands.slice(start)) pts.push(hd.settlement?.score || pts[pts.length - 1]);
  return pts;
}

function chartSvg(points) {
  const W = 320, H = 150, L = 32, R = 8, T = 10, B = 20;  // L: the axis numbers, then room for the first dots
  const tgt = target();
  const n = Math.max(points.length - 1, 1);
  const x = (i) => L + (i * (W - L - R)) / n;
  const y = (v) => T + (1 - Math.min(v, tgt) / tgt) * (H - T - B);
  const grid = [];
  for (let v = 0; v <= tgt; v += 10) {
    grid.push(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    grid.push(svg("text", { class: "axis", x: L - 8, y: y(v) + 3.5, "text-anchor": "end" }, String(v)));
  }
  grid.push(svg("line", { class: "adentro-line", x1: L, x2: W - R, y1: y(tgt - 5), y2: y(tgt - 5) }));
  // at the left, where the scores are still low, and over the lines with a halo if one gets there
  const adentro = svg("text", { class: "axis adentro-label", x: L + 4, y: y(tgt - 5) - 3, "text-anchor": "start" }, t("chart.adentro"));
  // the first team's dots are larger, so a score both teams share shows both colours
  const lines = [0, 1].map((tm) => {
    const d = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)} ${y(p[tm]).toFixed(1)}`).join(" ");
    return svg("g", { class: `series team-${tm}` }, svg("path", { d }),
      ...points.map((p, i) => svg("circle", { cx: x(i), cy: y(p[tm]), r: tm ? 2.5 : 4 })));
  });
  const labels = [];
  for (let i = 1; i < points.length; i++) if (points.length < 14 || i % 2 === 0) labels.push(svg("text", { class: "axis", x: x(i), y: H - 5, "text-anchor": "middle" }, String(i)));
  // a drawing says nothing to a screen reader: it reads chartTable instead
  return svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", "aria-hidden": "true" }, ...grid, ...labels, ...lines, adentro);
}

// The chart for a screen reader, hidden to the eye: a table of the score after each hand of
// the game ("Hand 2: Txuriak 12, Beltzak 2"), the hands numbered as the chart's axis numbers them.
function chartTable(points) {
  // in a box of 1 px (a table is never narrower than its cells)
  return h("div", { class: "sr-only" }, h("table", { class: "chart-table" },
    h("caption", {}, t("score.chart")),
    h("thead", {}, h("tr", {}, h("td", {}), ...[0, 1].map((tm) => h("th", { scope: "col" }, teamName(tm))))),
    h("tbody", {}, points.slice(1).map((p, i) => h("tr", {},
      h("th", { scope: "row" }, t("table.hand_n", { n: i + 1 })), h("td", {}, String(p[0])), h("td", {}, String(p[1])))))));
}

function renderChart() {
  const pts = gameSeries();
  const box = $("chart");
  if (pts.length < 2) { box.hidden = true; return; }
  box.querySelector(".chart-box").replaceChildren(chartSvg(pts), chartTable(pts), legend());
  box.hidden = false;
}
function legend() {
  return h("p", { class: "legend" }, [0, 1].map((tm) => h("span", { class: `legend-item team-${tm}` }, h("span", { class: "swatch" }), teamName(tm))));
}

// ------------------------------------------------------------------ end of game / match

// The games whose dialog was closed on this phone, by table and game, in localStorage: a
// dialog closed stays closed in a new tab, or the page opened again (the newest
// DISMISSED_KEEP kept, so the list does not grow with every table this phone saw).
const DISMISSED = "mus-scorer.endgame";
const DISMISSED_KEEP = 50;
function dismissedGames() {
  try {
    const seen = JSON.parse(localStorage.getItem(DISMISSED));
    return seen && typeof seen === "object" && !Array.isArray(seen) ? seen : {};
  } catch (e) {
    return {};
  }
}
function dismissGame(game) {
  const seen = dismissedGames();
  seen[game] = Date.now();
  const kept = Object.entries(seen).sort((a, b) => b[1] - a[1]).slice(0, DISMISSED_KEEP);
  try { localStorage.setItem(DISMISSED, JSON.stringify(Object.fromEntries(kept))); } catch (e) { /* private mode, full */ }
}
function renderEndgame() {
  const hands = state.hands || [];
  const last = lastHand();
  const s = last?.settlement;
  const dlg = $("endgame");
  const matchOver = matchWon();
  // the game's end undone: the dialog goes, and is not taken as closed by whoever read it
  if (!s || !s.game_over) { if (dlg.open) { dlg.onclose = null; dlg.close(); } return; }
  if (current().log?.length) return;
  // this table's game, by the hand that ended it and the score it ended on (a game ended
  // again after an undo, another way, is another)
  const game = `${BOOT.table_id}:${hands.length}:${(s.score || []).join("-")}`;
  if (game in dismissedGames()) return;
  if (dlg.open) return;
  const w = s.winner;
  const body = $("endgame-body");
  body.replaceChildren(...[
    h("div", { class: `trophy team-${w}` }, icon("trophy", "ico ico-xl")),
    h("h2", { id: "endgame-title" }, matchOver ? t("score.match_won", { team: teamName(state.winner) }) : t("score.game_won", { team: teamName(w) })),
    s.ordago ? h("p", { class: "endgame-sub" }, t("act.ordago")) : null,
    h("p", { class: "endgame-score" }, ...[0, 1].map((tm) => h("span", { class: `team-${tm}` }, h("span", { class: "sr-only" }, `${teamName(tm)} `), String(s.score[tm]))).flatMap((x, i) => (i ? [h("span", { class: "dash", "aria-hidden": "true" }, "–"), x] : [x]))),
    h("div", { class: "endgame-vacas" }, [0, 1].map((tm) => h("p", { class: `team-${tm}` }, h("span", {}, teamName(tm)), pips((state.vacas || [0, 0])[tm], rules().vacas_to_win || 3, "vacas")))),
    chartSvg(gameSeries(hands.length)), chartTable(gameSeries(hands.length)), legend()].filter(Boolean));
  $("endgame-close").textContent = matchOver ? t("inv.close") : t("score.new_game");
  // closed, the focus goes back where it was, or (nowhere, or on a control drawn again
  // meanwhile: the game another phone ended) to the new game's first word
  let keys = true;
  dlg.onkeydown = () => { keys = true; };
  dlg.onpointerdown = () => { keys = false; };
  dlg.onclose = () => { dismissGame(game); focusNewHand(keys); };
  dlg.showModal();
}

// ------------------------------------------------------------------ the log

function renderLog() {
  const list = $("log-list");
  const log = current().log || [];
  list.replaceChildren();
  if (!log.length) { list.append(h("li", { class: "log-empty" }, t("table.log_empty"))); return; }
  let lance = null;
  log.forEach((a, i) => {
    const l = lanceOf(a, i);
    if (l && l !== lance) {
      lance = l;
      list.append(h("li", { class: "log-lance" }, phaseLabel(l)));
    }
    list.append(h("li", { class: `log-act team-${team(a.seat)}` }, h("span", { class: "log-who" }, playerName(a.seat)), h("span", { class: "log-what" }, saidLabel(log, i))));
  });
}

// ------------------------------------------------------------------ render

// One short sentence for screen readers at each change of the table: what changed since the
// table this page last said (the score card and the buttons themselves are not live regions:
// they would be read whole). The score when it changes (and as the page opens), the games and
// vacas when they change, the word just said and by whom (from any phone, as the bubble shows
// it), then who speaks now ("Ane: Paso. Bixente speaks"); nothing again for a change that
// leaves all that as it was (the cards of a showdown written back), nor at a second render of
// the same table.
let told = null;  // what the last sentence was said from: {version, score, gv, hand, log, phase}
function announce() {
  const cur = current();
  if (told && told.version === state.version) return;
  const score = cur.score || state.score || [0, 0];
  const scoreText = `${teamName(0)} ${score[0]}, ${teamName(1)} ${score[1]}`;
  const games = state.games || [0, 0], vacas = state.vacas || [0, 0];
  const gv = `${games}|${vacas}`;
  const log = cur.log || [];
  const phase = cur.phase || "";
  const now = { version: state.version, score: scoreText, gv, hand: handNumber(), log: log.length, phase };
  const parts = [];
  const gamesChanged = told !== null && gv !== told.gv;
  // a game or a vaca won: the new game's score, then the games and vacas ("Games 1–0, vacas 0–0")
  if (!told || scoreText !== told.score || gamesChanged) parts.push(scoreText);
  if (gamesChanged) {
    parts.push([(rules().games_per_vaca || 1) > 1 ? t("score.games_both", { a: games[0], b: games[1] }) : null,
      t("score.vacas_both", { a: vacas[0], b: vacas[1] })].filter(Boolean).join(", "));
  }
  if (told && now.hand === told.hand && log.length > told.log) {
    const i = log.length - 1;
    parts.push(`${playerName(log[i].seat)}${colon()}${saidLabel(log, i)}`);
  }
  const seat = cur.to_speak;
  if (seat !== null && seat !== undefined) {
    parts.push(phase.endsWith("_declare")
      ? t("table.declares", { name: playerName(seat), lance: lanceLabel(phase.split("_")[0]) })
      : t("table.to_speak", { name: playerName(seat) }));
  } else if (told && phase !== told.phase && ["showdown", "over"].includes(phase)) {
    parts.push(phaseLabel(phase));
  }
  told = now;
  if (parts.length) say($("sr-status"), parts.join(". "));
}

function render(prev) {
  document.body.dataset.phase = current().phase || "";
  renderNames();
  renderScore();
  renderMesa();
  renderActions();
  renderEsku();
  renderShowdown();
  renderSettlement();
  renderChart();
  renderLog();
  announceDejes(prev);
  renderEndgame();
  announce();
}

// ------------------------------------------------------------------ the names

// A typo in a team's or a player's name is fixed from the table's menu (the invite
// dialog): the hands name seats, so every hand stays, and every page says the new names.
const renameForm = $("rename-form");
const checkNames = renameForm ? watchNameLengths(renameForm) : () => {};
function fillNames() {
  if (!renameForm) return;
  (state.teams || []).forEach((name, i) => { renameForm.elements[`team${i}`].value = name; });
  (state.players || []).forEach((name, i) => { renameForm.elements[`player${i}`].value = name; });
  clearNameError();
  checkNames();
}
function clearNameError() {
  $("rename-error").hidden = true;
  for (const el of renameForm.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

async function rename(ev) {
  ev.preventDefault();
  await afterShown();
  if (busy) return;
  const err = $("rename-error");
  clearNameError();
  const value = (name) => renameForm.elements[name].value;
  const before = state;
  const json = { client_id: newClientId(), version: state.version,
    teams: [value("team0"), value("team1")], players: [0, 1, 2, 3].map((s) => value(`player${s}`)) };
  busy = true;
  try {
    apply(await retrying(() => api("PATCH", API, { token: TOKEN, json, timeout: TIMEOUT_MS })));
    rememberTable({ id: BOOT.table_id, token: TOKEN, teams: state.teams, url: location.pathname + location.search });
    $("rename").open = false;
    toast(t("names.saved"));
  } catch (e) {
    if (e instanceof ApiError && e.code === "stale_version") {
      await staleRefresh(before, t("names.save"));
      fillNames();
      return;
    }
    err.textContent = e.text || t("err.generic");
    err.hidden = false;
    // the field at fault (`teams[1]` is team1; `teams`, both the same, is the second)
    const m = /^(teams|players)(?:\[(\d)\])?$/.exec(e.field || "");
    const bad = m ? renameForm.elements[`${m[1] === "teams" ? "team" : "player"}${m[2] ?? (m[1] === "teams" ? 1 : 0)}`] : null;
    if (bad) {
      bad.setAttribute("aria-invalid", "true");
      bad.setAttribute("aria-describedby", err.id);
      bad.focus();
    }
  } finally {
    busy = false;
  }
}

function renderNames() {
  const title = (state.teams || []).join(" – ");
  document.title = `${title} · ${t("app.name")}`;
  const h1 = document.querySelector("main h1.sr-only");
  if (h1) h1.textContent = title;
}

// ------------------------------------------------------------------ wiring

if (CAN_PLAY) {
  $("btn-undo").addEventListener("click", tapGuard(() => write("undo")));
  $("btn-mus").addEventListener("click", tapGuard(() => write("mus")));
  $("photo-input").addEventListener("change", (e) => { uploadPhoto(e.target.files[0]); e.target.value = ""; });
  $("photo-add-input").addEventListener("change", (e) => { uploadPhoto(e.target.files[0], true); e.target.value = ""; });
  $("btn-settle").addEventListener("click", () => settle(true));
  $("btn-settle-nocards").addEventListener("click", () => settle(false));
  $("picker-clear").addEventListener("click", () => choose(null));
  // filled as the tap opens it (the toggle event comes a task later: it would overwrite
  // what is typed meanwhile)
  $("rename").querySelector("summary").addEventListener("click", () => { if (!$("rename").open) fillNames(); });
  $("rename").addEventListener("toggle", () => {
    if ($("rename").open) renameForm.scrollIntoView({ block: "nearest" });
  });
  renameForm.addEventListener("submit", rename);
}
$("open-invite").addEventListener("click", () => $("invite").showModal());
document.querySelectorAll(".copy-link").forEach((b) => b.addEventListener("click", async () => {
  try { await navigator.clipboard.writeText(b.dataset.url); toast(t("inv.copied")); }
  catch (e) {
    const range = document.createRange();
    const a = b.parentElement.querySelector(".watch-url") || b;
    range.selectNodeContents(a);
    getSelection().removeAllRanges(); getSelection().addRange(range);
  }
}));
for (const d of document.querySelectorAll("dialog")) {
  d.addEventListener("click", (e) => { if (e.target === d) d.close(); }); // tap outside closes
}

state = BOOT.state;
notePhase();
seenDeje = (current().events || []).length;
if (CAN_PLAY) rememberTable({ id: BOOT.table_id, token: TOKEN, teams: state.teams, url: location.pathname + location.search });
render(null);
keepAwake();
connect();
if (location.hash === "#invite") {
  history.replaceState(null, "", location.pathname + location.search);
  $("invite").showModal();
}
window.musTable = { get state() { return state; }, refresh, boot: BOOT };
