// The new-table page: names, seats, rules, first esku; or import a match.
import { api, t, toast, h, rememberTable, recentTables, recentTournaments, fileErrorText, showChosenFile, watchNameLengths, formError, clearFormError } from "./common.js";

const form = document.getElementById("new-table");
const errorBox = form.querySelector(".form-error");

// A field's name: an empty field takes its default (shown as its placeholder); a name of
// spaces alone goes as typed, for the server to refuse it by name as the league's form
// does (never silently the default); a name longer than the server takes goes whole, for
// it to say so (the field has no maxlength to cut it silently).
function value(name) {
  const el = form.elements[name];
  const raw = el.value || "";
  return raw.trim() || (raw ? raw : el.dataset.default || "");
}

function tableUrl(created) {
  if (created.join_url) {
    try {
      const u = new URL(created.join_url, location.href);
      return u.pathname + u.search;
    } catch (e) { /* fall through */ }
  }
  return `/t/${encodeURIComponent(created.id)}?token=${encodeURIComponent(created.token)}`;
}

function keepLang(url) {
  const lang = new URLSearchParams(location.search).get("lang");
  if (!lang) return url;
  return url + (url.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(lang);
}

watchNameLengths(form);

const boot = JSON.parse(document.getElementById("boot")?.textContent || "{}");

// Rules chosen away from the tournament's: a note says what the tournament plays ("El
// torneo juega a 3 vacas"); such a table counts, flagged on its page (`rules_differ`).
function rulesChosen() {
  return {
    kings: Number(form.elements.kings.value),
    target: Number(form.elements.target.value),
    real31: form.elements.real31.checked,
    games_per_vaca: Number(form.elements.games_per_vaca.value),
    vacas_to_win: Number(form.elements.vacas_to_win.value),
  };
}
const rulesOff = document.getElementById("rules-off");
function noteRulesOff() {
  const tour = boot.tournament?.rules;
  if (!rulesOff || !tour) return;
  const chosen = rulesChosen();
  const said = [];
  for (const rule of ["kings", "target", "games_per_vaca", "vacas_to_win", "real31"]) {
    if (chosen[rule] === tour[rule]) continue;
    const n = tour[rule];
    if (rule === "real31") said.push(t(n ? "tour.plays.real31_on" : "tour.plays.real31_off"));
    else said.push(t(`tour.plays.${rule}${n === 1 && rule !== "kings" && rule !== "target" ? "_one" : ""}`, { n }));
  }
  rulesOff.textContent = said.length ? t("tour.plays", { what: said.join(", ") }) : "";
  rulesOff.hidden = !said.length;
}
form.addEventListener("change", noteRulesOff);

// A tournament's table takes the tournament's rules, locked: a line says them, the controls
// hidden. "Cambiar las reglas" shows them, with a warning that the table's result will be
// flagged on the tournament's page; "Volver a las reglas del torneo" sets them back and locks them.
const rulesControls = document.getElementById("rules-controls");
const rulesChange = document.getElementById("rules-change");
const rulesUnlocked = document.getElementById("rules-unlocked");
function setRules(rules) {
  for (const rule of ["kings", "target"]) for (const el of form.elements[rule]) el.checked = Number(el.value) === rules[rule];
  for (const rule of ["games_per_vaca", "vacas_to_win"]) form.elements[rule].value = String(rules[rule]);
  form.elements.real31.checked = Boolean(rules.real31);
}
function lockRules(locked) {
  if (!rulesControls || !rulesChange || !boot.tournament?.rules) return;
  if (locked) setRules(boot.tournament.rules);
  rulesControls.hidden = locked;
  rulesChange.setAttribute("aria-expanded", String(!locked));
  rulesChange.textContent = t(locked ? "tour.rules_change" : "tour.rules_keep");
  document.getElementById("rules-locked")?.classList.toggle("is-unlocked", !locked);
  if (rulesUnlocked) rulesUnlocked.textContent = locked ? "" : t("tour.rules_unlocked");
  noteRulesOff();
}
rulesChange?.addEventListener("click", () => lockRules(!rulesControls.hidden));
lockRules(true);
noteRulesOff();

// A table opened from a tournament's page counts in it (enrolled with both tokens).
async function enrol(created) {
  const tour = boot.tournament;
  if (!tour) return;
  try {
    await api("POST", `/api/tournaments/${encodeURIComponent(tour.id)}/tables`, {
      token: tour.token, json: { table: created.id, token: created.token },
    });
  } catch (e) {
    toast(t("tour.enrol_failed"), "error", 6000);
    await new Promise((r) => setTimeout(r, 3000));
  }
}

function go(created, teams) {
  rememberTable({ id: created.id, token: created.token, teams, url: tableUrl(created) });
  location.assign(keepLang(tableUrl(created)) + "#invite"); // the table opens on its QR codes
}

// The form field an API error names (`teams[1]` is team1, `players[3]` player3), if any.
function fieldFor(name) {
  const m = /^(teams|players)\[(\d)\]$/.exec(name || "");
  const key = m ? `${m[1] === "teams" ? "team" : "player"}${m[2]}` : name;
  const el = key ? form.elements[key] : null;
  return el instanceof HTMLElement ? el : null;
}

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  errorBox.hidden = true;
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const teams = [value("team0"), value("team1")];
  const body = {
    teams,
    players: [0, 1, 2, 3].map((s) => value(`player${s}`)),
    rules: rulesChosen(),
    esku: Number(form.elements.esku.value),
  };
  try {
    const created = await api("POST", "/api/tables", { json: body });
    await enrol(created);
    go(created, teams);
  } catch (e) {
    errorBox.textContent = e.text || t("err.generic");
    errorBox.hidden = false;
    button.disabled = false;
    // the field at fault says so, points to the message, and takes the focus
    const bad = fieldFor(e.field);
    if (bad) {
      bad.setAttribute("aria-invalid", "true");
      bad.setAttribute("aria-describedby", errorBox.id);
      bad.focus();
    } else {
      button.focus();
    }
  }
});

const importForm = document.getElementById("import-match");
showChosenFile(importForm.elements.match);
importForm.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const file = importForm.elements.match.files[0];
  if (!file) return;
  clearFormError(importForm);
  try {
    const created = await api("POST", "/api/tables/import", {
      body: await file.text(),
      headers: { "Content-Type": "application/x-ndjson" },
    });
    await enrol(created);
    go(created, created.teams || []);
  } catch (e) {
    formError(importForm, fileErrorText(e), importForm.elements.match);
  }
});

// Tables and tournaments this phone opened before.
function listRecent(boxId, entries, label) {
  if (!entries.length) return;
  const box = document.getElementById(boxId);
  const list = box.querySelector("ul");
  for (const r of entries.slice(0, 4)) {
    const when = new Date(r.at).toLocaleDateString(document.documentElement.lang, { day: "numeric", month: "short" });
    list.append(h("li", {}, h("a", { class: "recent-item", href: keepLang(r.url) },
      h("span", { class: "recent-teams" }, label(r)),
      h("span", { class: "recent-when" }, when))));
  }
  box.hidden = false;
}
listRecent("recent", recentTables(), (r) => (r.teams || []).join(" · ") || r.id);
if (!boot.tournament) listRecent("recent-tournaments", recentTournaments(), (r) => r.name || r.id);

// A tournament: its name, then its page (the organiser's link).
const tourForm = document.getElementById("create-tournament");
if (tourForm) {
  tourForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const input = tourForm.elements.name;
    const name = input.value.trim() || input.dataset.default;
    clearFormError(tourForm);
    try {
      const created = await api("POST", "/api/tournaments", { json: { name } });
      location.assign(keepLang(`/c/${encodeURIComponent(created.id)}?token=${encodeURIComponent(created.token)}`));
    } catch (e) {
      formError(tourForm, e.text || t("err.generic"), input);
    }
  });
}
