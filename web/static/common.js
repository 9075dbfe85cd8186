// Shared helpers: strings, the API, toasts, ids, remembered tables.

const STRINGS = JSON.parse(document.getElementById("i18n")?.textContent || "{}");

export function t(key, values) {
  let text = STRINGS[key] ?? key;
  if (values) {
    text = text.replace(/\{(\w+)\}\((e|r)\)(k|entzat)/g, (m, k, joint, ending) => (k in values ? basqueSuffix(String(values[k]), ending, k === "team") : m));
    text = text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }
  return text;
}

// The marks between a text's parts in the page's language: ": " and "; ", in French " : "
// and " ; " with a no-break space (the engine's words, punct.colon and punct.semicolon in
// the page's strings), so that a French line never breaks before the mark.
export const colon = () => (STRINGS["punct.colon"] ?? ": ");
export const semicolon = () => (STRINGS["punct.semicolon"] ?? "; ");

// An event's reason in the page's words (the engine's, `count.*`), read from its `why`, the
// engine's English for machines (scorer/engine/README.md, ruling 10), by its kind as the count
// in words reads it (scorer/engine/explain.py): the bets said and how they ended ("envido 3,
// quiero"), all passed, one team alone, a refusal's bonus, a false declaration; "" for a reason
// it cannot read (never the English). `tm`: the event's team's name. The table page's count,
// while its words are not here; the history's page says the same from the server (web/i18n.py
// why_text, its twin: change both).
export function whyText(ev, tm) {
  const why = String(ev.why || "");
  const bet = (word) => {
    let m = /^envido(?: (\d+))?$/.exec(word);
    if (m) return !m[1] || m[1] === "2" ? t("count.envido") : t("count.envido_n", { n: m[1] });
    m = /^(\d+) more$/.exec(word);
    if (m) return t("count.mas", { n: m[1] });
    return word === "ordago" ? t("count.ordago") : null;
  };
  const bets = (chain, end) => {
    const said = chain.split(", ").map(bet);
    return said.every(Boolean) ? [...said, t(end)].join(", ") : "";
  };
  let m = /^deje: (.+) refused$/.exec(why);
  if (m) return bets(m[1], "count.no_quiero");
  if (/^(false|undeclared) /.test(why)) {
    const tira = /\btira (\d+)/.exec(why.split("): ")[1] || "");
    return why.startsWith("undeclared ") && tira ? t("count.tira_for", { n: tira[1], t: tm }) : t("count.annulled", { t: tm });
  }
  if (why.startsWith("only team ")) return t("count.only_team", { t: tm, l: t(`lance.${ev.lance}`).toLowerCase() });
  if (why.startsWith("punto after refused bet")) return t("count.punto_refused", { t: tm });
  if (why.startsWith("bonus after refused bet")) return t("count.refused_bonus", { t: tm });
  if (why.startsWith("all passed")) return t("count.all_passed");
  m = /^(.+), accepted(?:;|$)/.exec(why);
  return m ? bets(m[1], "count.quiero") : "";
}

// A count's key in the page's language: `key` + "_one" where the language says that count
// in the singular and the strings have such a key (French 0 and 1, English 1: "1 stone of
// 40", "0 pierre sur 40"), else `key`.
export function plural(key, n) {
  let form = "other";
  try { form = new Intl.PluralRules(document.documentElement.lang || undefined).select(n); } catch (e) { /* no Intl */ }
  return form === "one" && `${key}_one` in STRINGS ? `${key}_one` : key;
}

// Basque case endings, written after a placeholder with both forms ("{name}(e)k",
// "{team}(r)entzat"), chosen by the name's last letter as web/i18n.py basque_suffix does:
// after a vowel -k, -rentzat (Anek); after a consonant -ek, -entzat (Mirenek), an r doubled
// (Ikerrek); a team's name in -ak is a plural (Gorriek, Gorrientzat); no letter: both forms.
export function basqueSuffix(name, ending, plural = false) {
  const last = name.slice(-1).normalize("NFD").charAt(0).toLowerCase();
  if (plural && name.length > 2 && name.toLowerCase().endsWith("ak")) {
    const ek = ending === "k" ? "ek" : ending;
    return name.slice(0, -2) + (name.slice(-2) === name.slice(-2).toUpperCase() ? ek.toUpperCase() : ek);
  }
  if (!/\p{L}/u.test(last)) return `${name}(${ending === "k" ? "e" : "r"})${ending}`;
  if ("aeiouy".includes(last)) return name + (ending === "k" ? "k" : "rentzat");
  return name + (last === "r" ? "r" : "") + "e" + ending.replace(/^e/, "");
}

export class ApiError extends Error {
  constructor(status, code, message, field, problems, reason, params, retryAfter) {
    super(message || code);
    this.retryAfter = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null; // seconds, from Retry-After
    this.status = status;
    this.code = code;
    this.field = field ?? null;
    this.problems = Array.isArray(problems) ? problems : []; // a refusal naming several things at once
    this.reason = typeof reason === "string" ? reason : null; // why, as a key the page may say in its language
    this.params = params && typeof params === "object" ? params : {};
  }
  // What exactly is wrong: in the page's language where the server gave a reason it knows
  // (`why.<reason>`), else the server's own words where they say it (a field, the engine's
  // reason), else none.
  get detail() {
    return this.why || (DETAILED.has(this.code) && this.message && this.message !== this.code ? this.message : "");
  }
  // The reason the server gave, in the page's language (its singular where it counts one), or "".
  get why() {
    const count = this.params.count;
    const key = this.reason && (Number.isFinite(count) ? plural(`why.${this.reason}`, count) : `why.${this.reason}`);
    return key && key in STRINGS ? t(key, sayParams(this.params)) : "";
  }
  // The user's words for this error: the reason alone where there is one (a name typed
  // twice is no request "not understood"), else the code's words, then the server's detail.
  get text() {
    const why = this.why;
    if (why) return `${why.charAt(0).toUpperCase()}${why.slice(1)}.`;
    const key = `err.${this.code}`;
    // a wait the server said (Retry-After, seconds) in whole minutes, rounded up, where the
    // code has words for it (`err.<code>_wait`, `_wait_1` for one minute)
    const minutes = this.retryAfter ? Math.ceil(this.retryAfter / 60) : 0;
    const wait = minutes && `${key}_wait${minutes === 1 ? "_1" : ""}`;
    if (wait && wait in STRINGS) return t(wait, { minutes });
    if (!(key in STRINGS)) return this.message || t("err.generic");
    return this.detail ? `${t(key)} (${this.detail})` : t(key);
  }
}

// A reason's params as the page says them: a lance, an act or a card (as the records
// write them: "grande", "no_quiero", "12o") in the page's words, a rank by its name, a
// score ([12, 5]) as "12–5"; the rest (names, counts) as they are.
function sayParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) {
    const named = { lance: `lance.${v}`, act: `act.${v}`, rank: `rank.${v}` }[k];
    if (named && named in STRINGS) out[k] = k === "lance" ? t(named).toLowerCase() : t(named);  // "a pares", "au jeu"
    else if (k === "card" && typeof v === "string") out[k] = cardName(v);
    else if (Array.isArray(v)) out[k] = v.join("–");
    else out[k] = v;
  }
  return out;
}

// Codes whose message names the field at fault or the rule broken: "That was not
// understood" alone would leave the user guessing (three teams for a bracket, a card twice).
const DETAILED = new Set(["invalid", "illegal", "malformed", "bad_json", "bad_request", "bad_file", "unsupported_format"]);

// The user's words for a refused match file: the line at fault when the server names one,
// and what is wrong on it.
export function fileErrorText(e) {
  const line = /^line (\d+)\b/.exec(e?.field || "");
  const why = (e?.detail || "").replace(/^line \d+: /, "");
  const told = line && e.code === "invalid" ? t("err.file_line", { n: line[1] })
    : e?.code === "invalid" || e?.code === "malformed" ? t("err.bad_file") : null;
  if (!told) return e?.text || t("err.generic");
  return why ? `${told} (${why})` : told;
}

// Call the API; resolves to the JSON body, rejects with an ApiError. With `timeout` (ms),
// an answer not all here by then (a stalled connection: open, nothing coming through) is
// given up, as lost as no connection at all: status 0, code "timeout".
export async function api(method, path, { token, json, body, headers, timeout } = {}) {
  const h = new Headers(headers || {});
  if (token) h.set("Authorization", `Bearer ${token}`);
  if (json !== undefined) {
    h.set("Content-Type", "application/json");
    body = JSON.stringify(json);
  }
  const abort = timeout > 0 ? new AbortController() : null;
  const timer = abort ? setTimeout(() => abort.abort(), timeout) : null;
  try {
    let resp;
    try {
      resp = await fetch(path, { method, headers: h, body, cache: "no-store", signal: abort?.signal });
    } catch (e) {
      throw abort?.signal.aborted ? new ApiError(0, "timeout", t("err.network")) : new ApiError(0, "network", t("err.network"));
    }
    const type = resp.headers.get("Content-Type") || "";
    let data;
    try {
      data = type.includes("json") ? await resp.json().catch((e) => { if (abort?.signal.aborted) throw e; return null; }) : await resp.text();
    } catch (e) {  // the body stalled (or broke) on its way
      throw new ApiError(0, abort?.signal.aborted ? "timeout" : "network", t("err.network"));
    }
    if (!resp.ok) {
      const err = data && data.error ? data.error : {};
      const code = err.code || ({ 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "stale_version", 413: "too_large" }[resp.status] || "generic");
      const retryAfter = /^\s*\d+\s*$/.test(resp.headers.get("Retry-After") || "") ? Number(resp.headers.get("Retry-After")) : null;
      throw new ApiError(resp.status, code, err.message, err.field, err.problems, err.reason, err.params, retryAfter);
    }
    return data;
  } finally {
    clearTimeout(timer);
  }
}

// An id for one write, so that a retried request is applied once.
// (crypto.randomUUID needs a secure context; plain http at the table is not one.)
export function newClientId() {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

let toastTimer = null;
export function toast(text, kind = "info", ms = 2600) {
  const el = document.getElementById("toast");
  if (!el) return;
  // the toast stays in the page (only faded out), so that a screen reader hears each new text
  el.textContent = text;
  el.dataset.kind = kind;
  el.classList.remove("show");
  void el.offsetWidth;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.classList.remove("show"); el.textContent = ""; }, ms);
}

// The toast put away at once if it still says `text` (a notice the event it announced has
// made stale: "sending it again" once the word went through).
export function untoast(text) {
  const el = document.getElementById("toast");
  if (!el || el.textContent !== text) return;
  clearTimeout(toastTimer);
  el.classList.remove("show");
  el.textContent = "";
}

// A name as the server keeps it (`scorer.storage.tables.visible`): without control and
// invisible format characters (a zero-width space, a direction mark, a soft hyphen; the
// joiner inside an emoji stays), trimmed, so the live count says what the server counts.
export const visibleText = (text) => text.replace(/[\p{Cc}\p{Cf}]/gu, (c) => (c === "\u200d" || /\s/.test(c) ? c : "")).trim();

// A name longer than the server takes is said while it is typed, under its group of fields
// (input[data-max], its note data-note, its words data-label), not only when the form is sent:
// "Pareja 1: demasiado largo, 45 caracteres (máximo 40)". Counted as the server counts it,
// in characters (code points) with the spaces around aside; the name still goes whole.
export function watchNameLengths(form) {
  const fields = [...form.querySelectorAll("input[data-max]")];
  const update = () => {
    const notes = new Map();
    for (const el of fields) {
      const note = document.getElementById(el.dataset.note);
      if (!note) continue;
      if (!notes.has(note)) notes.set(note, []);
      const n = [...visibleText(el.value)].length;
      const limit = Number(el.dataset.max);
      const long = n > limit;
      if (long) {
        notes.get(note).push(t("name.too_long_live", { field: el.dataset.label, n, limit }));
        el.setAttribute("aria-invalid", "true");
        el.setAttribute("aria-describedby", note.id);
        el.dataset.tooLong = "";
      } else if ("tooLong" in el.dataset) {
        delete el.dataset.tooLong;
        el.removeAttribute("aria-invalid");
        el.removeAttribute("aria-describedby");
      }
    }
    for (const [note, lines] of notes) {
      note.replaceChildren(...lines.map((line) => h("span", {}, line)));
      note.hidden = !lines.length;
    }
  };
  for (const el of fields) el.addEventListener("input", update);
  update();
  return update;
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVGNS = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, v);
  for (const c of children.flat()) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export function icon(name, cls = "ico") {
  return svg("svg", { class: cls, "aria-hidden": "true" }, svg("use", { href: `#i-${name}` }));
}

// Card names: "12o" -> "Rey de oros"; a suit with words of its own (`card.of_<suit>`: the
// French "As d'épées", not "de épées") says them (as web/i18n.py card_name).
export function cardName(card) {
  if (!card) return "?";
  const m = /^(\d+)([ocebOCEB]?)$/.exec(card);
  if (!m) return card;
  const rank = t(`rank.${m[1]}`);
  if (!m[2]) return rank;
  const suit = m[2].toLowerCase();
  return t(`card.of_${suit}` in STRINGS ? `card.of_${suit}` : "card.of", { rank, suit: t(`suit.${suit}`) });
}

// What this phone opened before, newest first (eight at most), under a localStorage key.
function recentIn(key) {
  try { return JSON.parse(localStorage.getItem(key) || "[]"); } catch (e) { return []; }
}
function rememberIn(key, entry) {
  try {
    const list = recentIn(key).filter((e) => e.id !== entry.id);
    list.unshift({ ...entry, at: Date.now() });
    localStorage.setItem(key, JSON.stringify(list.slice(0, 8)));
  } catch (e) { /* private mode: nothing to remember */ }
}

export const RECENT_KEY = "mus-scorer.tables";
export const rememberTable = (entry) => rememberIn(RECENT_KEY, entry);
export const recentTables = () => recentIn(RECENT_KEY);

// Tournaments: the organiser's link is the only key, so a watch link never replaces it.
export const TOURNAMENTS_KEY = "mus-scorer.tournaments";
export function rememberTournament(entry) {
  const before = recentIn(TOURNAMENTS_KEY).find((e) => e.id === entry.id);
  if (before && before.role === "organise" && entry.role !== "organise") {
    entry = { ...entry, url: before.url, role: before.role };
  }
  rememberIn(TOURNAMENTS_KEY, entry);
}
export const recentTournaments = () => recentIn(TOURNAMENTS_KEY);
export function forgetTournament(id) {
  try {
    localStorage.setItem(TOURNAMENTS_KEY, JSON.stringify(recentIn(TOURNAMENTS_KEY).filter((e) => e.id !== id)));
  } catch (e) { /* private mode: nothing was remembered */ }
}

// Escape closes the language menu (a <details>) and gives the focus back to its button.
document.addEventListener("keydown", (ev) => {
  if (ev.key !== "Escape") return;
  const menu = document.querySelector("details.lang-menu[open]");
  if (!menu) return;
  menu.open = false;
  menu.querySelector("summary")?.focus();
});

// Print buttons (`data-print`): no inline handler, which the pages' CSP would refuse.
document.addEventListener("click", (ev) => {
  if (ev.target.closest?.("[data-print]")) window.print();
});

// A form's refusal, said in the form's own line (`.form-error`, role=alert: read out as it
// comes, and there to read again until the form is sent again) and tied to the field at
// fault: marked invalid, described by that line, and given the focus. A toast, gone in
// seconds and tied to no field, said it before.
export function formError(form, text, field = null) {
  const box = form.querySelector(".form-error");
  if (!box) { toast(text, "error", 6000); return; }
  clearFormError(form);
  box.textContent = text;
  box.hidden = false;
  if (!field) return;
  field.setAttribute("aria-invalid", "true");
  const ids = (field.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
  field.setAttribute("aria-describedby", [...ids.filter((id) => id !== box.id), box.id].join(" "));
  field.focus();
}

// The form's refusal taken back (sent again, or done): its line hidden, its fields as they were.
export function clearFormError(form) {
  const box = form.querySelector(".form-error");
  if (!box) return;
  box.hidden = true;
  box.textContent = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) {
    el.removeAttribute("aria-invalid");
    const ids = (el.getAttribute("aria-describedby") || "").split(/\s+/).filter((id) => id && id !== box.id);
    if (ids.length) el.setAttribute("aria-describedby", ids.join(" "));
    else el.removeAttribute("aria-describedby");
  }
}

// A file input hidden behind its button (in the page's language, not the browser's): the
// chosen file's name beside it, and the "choose a file" the browser says when it is required.
export function showChosenFile(input) {
  const name = document.getElementById(input.getAttribute("aria-describedby").split(/\s+/)[0]);  // then the form's error line, if any
  const show = () => {
    const file = input.files[0];
    name.textContent = file ? file.name : t("file.none");
    name.classList.toggle("is-chosen", Boolean(file));
    input.setCustomValidity(file || !input.required ? "" : t("err.missing_file"));
  };
  input.addEventListener("change", show);
  show();
}
