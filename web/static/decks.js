// Teach the reader a club's deck: the admin key, four photos, the job's progress, which models read.
import { api, ApiError, t, toast, h, showChosenFile } from "./common.js";

const KEY_STORE = "mus.adminKey";
const keyForm = document.getElementById("deck-key");
const appBox = document.getElementById("deck-app");
const form = document.getElementById("deck-new");
const formError = form.querySelector(".form-error");
const list = document.querySelector(".deck-list");
let key = null;
let timer = null;
let modelsGiven = false; // the server was started with a model folder (serve --model): "shipped" means it
let givenDeck = null; // the deck whose models that folder is: going back reads it again

// A key in the address (`#key=`, as `mus-scorer serve` prints it: a fragment never reaches
// the server, its logs or the page's links) is kept on this phone and taken out of the address.
const params = new URLSearchParams(location.search);
const fragment = new URLSearchParams(location.hash.slice(1));
const given = fragment.get("key") || params.get("key");
if (given) {
  localStorage.setItem(KEY_STORE, given);
  params.delete("key");
  history.replaceState(null, "", location.pathname + (params.toString() ? `?${params}` : ""));
}
key = localStorage.getItem(KEY_STORE);

function askKey(message) {
  appBox.hidden = true;
  keyForm.hidden = false;
  const err = keyForm.querySelector(".form-error");
  err.textContent = message || "";
  err.hidden = !message;
  keyForm.elements.key.focus();
}

keyForm.addEventListener("submit", (ev) => {
  ev.preventDefault();
  key = keyForm.elements.key.value.trim();
  if (!key) return;
  localStorage.setItem(KEY_STORE, key);
  keyForm.hidden = true;
  refresh();
});

function call(method, path, opts = {}) {
  return api(method, path, { ...opts, token: key });
}

function stateText(d) {
  if (d.state === "ready") return t("decks.state_ready", { minutes: d.minutes ?? "?" });
  if (d.state === "failed" || d.state === "interrupted") {  // a stopped server's own words: said in the page's
    return t(`decks.state_${d.state}`, { error: d.error_code === "stopped" ? t("decks.error_stopped") : d.error || "" });
  }
  return t(`decks.state_${d.state}`);
}

function deckItem(d) {
  const busy = ["queued", "reading", "teaching", "refining"].includes(d.state);
  const lines = [h("p", { class: "deck-state", dataset: { state: d.state } }, stateText(d))];
  if (busy && d.log) lines.push(h("p", { class: "hint deck-log" }, d.log));
  if (d.state === "ready" && d.refined) lines.push(h("p", { class: "hint deck-refined" }, t("decks.refined")));
  if (d.state === "ready" && d.refine_error) {
    lines.push(h("p", { class: "deck-warn" }, d.refine_error_code === "stopped" ? t("decks.refine_stopped")
      : t("decks.refine_failed", { error: d.refine_error })));
  }
  if (d.agree !== null && d.agree !== undefined) {
    lines.push(h("p", { class: d.agree < 20 ? "deck-warn" : "hint" }, t(d.agree < 20 ? "decks.agree_low" : "decks.agree",
      { n: d.agree })));
  }
  if (d.check && d.check.before && d.check.after) {
    const b = d.check.before, a = d.check.after, r = d.check.ensemble;
    lines.push(h("p", { class: "hint" }, r
      ? t("decks.check_refined", { n: a.photos, before: b.full, after: a.full, refined: r.full })
      : t("decks.check", { n: a.photos, before: b.full, after: a.full })));
    if (d.verdict === "worse") lines.push(h("p", { class: "deck-warn" }, t("decks.worse")));
  }
  const actions = [];
  if (d.links.use && !d.active) {
    const cls = d.verdict === "worse" ? "btn" : "btn btn-primary";  // its own check says: keep what you have
    actions.push(h("button", { class: cls, type: "button", onclick: () => use(d) }, t("decks.use")));
  }
  if (!d.active) {
    actions.push(h("button", { class: "btn btn-ghost", type: "button", onclick: () => remove(d) },
      t(busy ? "decks.cancel" : "decks.remove")));
  }
  const sheet = d.links.sheet ? sheetLink(d) : null;
  return h("li", { class: "deck-item" + (d.active ? " active" : ""), dataset: { id: d.id } },
    h("h3", {}, d.name, d.active ? h("span", { class: "badge badge-esku" }, t("decks.in_use")) : null),
    ...lines, sheet, actions.length ? h("div", { class: "deck-actions" }, ...actions) : null);
}

// The sheet of a deck's faces, fetched with the key in a header (never in an address, which
// browser history and proxies keep) and shown from a blob URL, one per deck.
const sheets = new Map();
function sheetLink(d) {
  const img = h("img", { alt: t("decks.sheet_alt") });
  const a = h("a", { target: "_blank", rel: "noopener", class: "deck-sheet" }, img);
  const show = (u) => { img.src = u; a.href = u; };
  if (sheets.has(d.id)) show(sheets.get(d.id));
  else {
    fetch(d.links.sheet, { headers: { Authorization: `Bearer ${key}` } })
      .then((r) => (r.ok ? r.blob() : null))
      .then((b) => {
        if (!b || sheets.has(d.id)) return;
        sheets.set(d.id, URL.createObjectURL(b));
        show(sheets.get(d.id));
      })
      .catch(() => { /* no sheet shown; the deck's other lines still are */ });
  }
  return a;
}

async function refresh() {
  clearTimeout(timer);
  if (!key) return askKey();
  let data;
  try {
    data = await call("GET", "/api/decks");
  } catch (e) {
    if (e.status === 401 || e.status === 403) {
      localStorage.removeItem(KEY_STORE);
      return askKey(e.text);
    }
    toast(e.text, "error");
    timer = setTimeout(refresh, 5000);
    return;
  }
  appBox.hidden = false;
  const active = data.decks.find((d) => d.id === data.active);
  modelsGiven = Boolean(data.models_given);
  document.querySelector(".deck-now-text").textContent = active
    ? t("decks.now_deck", { name: active.name }) : t(modelsGiven ? "decks.now_given" : "decks.now_shipped");
  givenDeck = data.given_deck || null;
  const back = document.getElementById("use-shipped");
  back.hidden = !active || active.id === givenDeck;  // back to the given folder: this very deck, nothing to do
  const givenNote = document.getElementById("deck-given-note");
  givenNote.hidden = !active || active.id !== givenDeck;
  givenNote.textContent = givenNote.hidden ? "" : t("decks.given_is_deck");
  back.textContent = t(modelsGiven ? "decks.use_given" : "decks.use_shipped");
  const unavailable = document.getElementById("deck-unavailable");
  unavailable.textContent = data.why || "";
  unavailable.hidden = data.available;
  form.querySelector("button[type=submit]").disabled = !data.available || Boolean(data.running);
  document.getElementById("deck-refine").hidden = !data.refine_available;  // the train extra, on this server
  document.getElementById("deck-list-panel").hidden = data.decks.length === 0;
  list.replaceChildren(...data.decks.map((d) => deckItem(d)));
  if (data.running) timer = setTimeout(refresh, 2000);
}

async function use(d) {
  try {
    await call("POST", d.links.use);
    toast(t("decks.now_deck", { name: d.name }));
  } catch (e) {
    toast(e.text, "error");
  }
  refresh();
}

async function remove(d) {
  if (!confirm(t("decks.remove_confirm", { name: d.name }))) return;
  try {
    await call("DELETE", d.links.self);
  } catch (e) {
    toast(e.code === "deck_in_use" && d.id === givenDeck ? t("decks.in_use_given") : e.text, "error");
  }
  refresh();
}

document.getElementById("use-shipped").addEventListener("click", async () => {
  try {
    await call("POST", "/api/decks/shipped/use");
    toast(t(modelsGiven ? "decks.now_given" : "decks.now_shipped"));
  } catch (e) {
    toast(e.text, "error");
  }
  refresh();
});

// Each photo chosen shows in its tile, its file's name under it (the input itself is hidden:
// the browser would say "no file chosen" in its own language).
for (const input of form.querySelectorAll("input[type=file]")) {
  const show = () => {
    const label = input.closest("label");
    const img = label.querySelector("img");
    if (img.src) URL.revokeObjectURL(img.src);
    const file = input.files[0];
    label.classList.toggle("chosen", Boolean(file));
    img.hidden = !file;
    if (file) img.src = URL.createObjectURL(file);
    else img.removeAttribute("src");
  };
  input.addEventListener("change", show);
  input.addEventListener("change", () => {  // a photo chosen again is no longer the bad one
    input.closest(".deck-photo-cell").classList.remove("is-bad");
    input.removeAttribute("aria-invalid");
  });
  show();
  showChosenFile(input);
}

// The upload: its refusal keeps the API's `problems` (every bad photo at once).
const sendDeck = (body) => api("POST", "/api/decks", { token: key, body });

const SUITS = ["oros", "copas", "espadas", "bastos"];

// A photo's refusal in the page's words, its suit first; too large means the photo's own
// limit (not the match file's, which the shared message names too).
function photoProblem(p) {
  const why = p.code === "too_large" ? t("decks.photo_too_large") : new ApiError(p.status, p.code, p.message, p.field).text;
  return SUITS.includes(p.field) ? t("decks.photo_problem", { suit: t(`decks.suit_${p.field}`), why }) : why;
}

// Every bad photo named at once (a list where there are several), its tile marked.
function showProblems(lines, bad = []) {
  formError.replaceChildren(lines.length > 1 ? h("ul", {}, ...lines.map((line) => h("li", {}, line))) : lines[0]);
  formError.hidden = false;
  for (const input of form.querySelectorAll("input[type=file]")) {
    const wrong = bad.includes(input.name);
    input.closest(".deck-photo-cell").classList.toggle("is-bad", wrong);
    if (wrong) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}

function clearPhotos() {
  form.reset();
  for (const input of form.querySelectorAll("input[type=file]")) input.dispatchEvent(new Event("change"));
}

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  formError.hidden = true;
  const missing = [...form.querySelectorAll("input[type=file]")].find((i) => !i.files.length);
  if (missing) {
    formError.textContent = t("decks.photo_missing", { suit: missing.closest("label").querySelector(".deck-photo-name").textContent.trim() });
    formError.hidden = false;
    missing.focus();
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const body = new FormData(form);
  if (!String(body.get("name") || "").trim()) body.set("name", form.elements.name.placeholder);
  try {
    await sendDeck(body);
    clearPhotos();
    toast(t("decks.started"));
  } catch (e) {
    const problems = e.problems && e.problems.length ? e.problems
      : [{ status: e.status, code: e.code, message: e.message, field: e.field }];
    showProblems(problems.map(photoProblem), problems.map((p) => p.field));
  }
  button.disabled = false;
  refresh();
});

refresh();
