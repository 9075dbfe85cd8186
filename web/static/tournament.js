// A tournament's page: the standings and matches follow the tables (the page's own
// sections, fetched again every few seconds), and the organiser adds an open table by its link.
import { api, t, toast, rememberTournament, forgetTournament, formError, clearFormError } from "./common.js";

const boot = JSON.parse(document.getElementById("boot").textContent);
const REFRESH_MS = 8000;
let last = JSON.stringify(boot.state);
// The revision of the settings (name, rules, teams, final stage) this page's forms follow: a
// change sent on an older one is refused (another organiser's phone changed them first).
let revision = boot.state.revision;

async function refresh() {
  let state;
  try {
    state = await api("GET", boot.api, { token: boot.token });
  } catch (e) {
    return; // offline for a moment: the next round tries again
  }
  const text = JSON.stringify(state);
  if (text === last) return;
  const resp = await fetch(location.href, { cache: "no-store" });
  if (!resp.ok) return;
  const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
  const fresh = doc.getElementById("live-sections");
  if (fresh) {
    const old = document.getElementById("live-sections");
    const back = focusIn(old);
    old.replaceWith(fresh);
    back(fresh);
  }
  last = text;
}

// The keyboard's focus inside the sections drawn again stays where it was: on the same link
// or button of the new ones (a table's "Watch", by its address or its table), else on its
// section's heading; not dropped to the top of the page, where a keyboard player starts over.
function focusIn(box) {
  const had = document.activeElement;
  if (!had || !box.contains(had)) return () => {};
  const href = had.getAttribute("href");
  const same = href ? `a[href="${CSS.escape(href)}"]`
    : had.dataset.table ? `${had.localName}.${CSS.escape(had.classList[had.classList.length - 1] || "")}[data-table="${CSS.escape(had.dataset.table)}"]` : null;
  const section = had.closest("section[id]")?.id;
  return (fresh) => {
    const to = (same && fresh.querySelector(same)) || (section && fresh.querySelector(`#${CSS.escape(section)} h2`));
    if (!to) return;
    if (!to.matches("a[href], button, input, textarea, select, summary")) to.tabIndex = -1;
    to.focus({ preventScroll: true });
  };
}
setInterval(refresh, REFRESH_MS);
rememberTournament({
  id: boot.id, name: boot.state.name, role: boot.role,
  url: location.pathname + "?token=" + encodeURIComponent(boot.token),
});

// The organiser takes a table out (the table itself stays as it is).
document.addEventListener("click", async (ev) => {
  const button = ev.target.closest(".remove-table");
  if (!button || !confirm(t("tour.remove_confirm", { teams: button.dataset.teams }))) return;
  try {
    await api("DELETE", `${boot.api}/tables/${encodeURIComponent(button.dataset.table)}`, { token: boot.token });
    toast(t("tour.removed"));
    last = "";
    await refresh();
  } catch (e) {
    toast(e.text || t("err.generic"), "error", 5000);
  }
});
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });

// A change refused: say why, in the form's line tied to its field where a form sent it, else
// in a notice. Where another phone changed the settings first, show theirs; the forms keep
// what was typed here, and sending it again replaces theirs.
async function refused(e, ms = 6000, form = null, field = null) {
  if (e.code === "stale_revision") {
    try {
      const state = await api("GET", boot.api, { token: boot.token });
      revision = state.revision;
      showName(state.name);
    } catch (_) {
      // offline for a moment: the next send says so
    }
    last = "";
    await refresh();
  }
  const text = e.text || e.message || t("err.generic");
  if (form) formError(form, text, field);
  else toast(text, "error", ms);
}

function showName(name) {
  document.getElementById("tournament-name").textContent = name;
  document.title = document.title.replace(boot.state.name, name);
  boot.state.name = name;
  rememberTournament({ id: boot.id, name, role: boot.role,
    url: location.pathname + "?token=" + encodeURIComponent(boot.token) });
}

// The names of a textarea, one a line, blank lines left out.
const linesOf = (area) => area.value.split("\n").map((s) => s.trim()).filter(Boolean);

// The names of a textarea in groups: a blank line (or more) ends a group.
export function groupsOf(text) {
  return text.split(/\n\s*\n/).map((block) => block.split("\n").map((s) => s.trim()).filter(Boolean))
    .filter((group) => group.length);
}

// The tournament's rules: the tables opened from its page take them; one of others is flagged.
const rulesForm = document.getElementById("set-rules");
if (rulesForm) {
  rulesForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearFormError(rulesForm);
    const f = rulesForm.elements;
    const rules = {
      kings: Number(f.kings.value), target: Number(f.target.value), real31: f.real31.checked,
      games_per_vaca: Number(f.games_per_vaca.value), vacas_to_win: Number(f.vacas_to_win.value),
    };
    try {
      revision = (await api("PUT", `${boot.api}/rules`, { token: boot.token, json: { rules, revision } })).revision;
      toast(t("tour.rules_saved"));
      last = "";
      await refresh();
    } catch (e) {
      await refused(e, 6000, rulesForm);
    }
  });
}

// The league's teams, one a line (a blank line between groups): the server draws the fixtures.
const teamsForm = document.getElementById("set-teams");
if (teamsForm) {
  teamsForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const groups = groupsOf(teamsForm.elements.teams.value);
    clearFormError(teamsForm);
    try {
      const legs = Number(teamsForm.elements.legs.value) || 1;
      const inGroups = teamsForm.elements.format.value === "groups";
      const body = inGroups ? { groups, legs, revision } : { teams: groups.flat(), legs, revision };
      if (teamsForm.elements.start.value) {
        body.start = teamsForm.elements.start.value;
        body.every_days = Number(teamsForm.elements.every_days.value) || 7;
      }
      revision = (await saveTeams(body)).revision;
      toast(t("tour.teams_saved"));
      last = "";
      await refresh();
    } catch (e) {
      if (e.code !== "cancelled") await refused(e, 6000, teamsForm, teamsForm.elements.teams);
    }
  });
}

// Send the teams; where fixtures played or begun would move (a team deleted, the dates
// changed), say which and send again only once the organiser agrees.
async function saveTeams(body) {
  try {
    return await api("PUT", `${boot.api}/teams`, { token: boot.token, json: body });
  } catch (e) {
    if (e.code !== "fixtures_would_move" || !e.params?.moves) throw e;
    if (!confirm(movesText(e.params))) throw Object.assign(new Error(""), { code: "cancelled" });
    return await api("PUT", `${boot.api}/teams`, { token: boot.token, json: { ...body, move_played: true } });
  }
}

// What would move, in the page's language, for the organiser to confirm.
export function movesText({ moves, gone }) {
  const lines = moves.map((m) => {
    const teams = m.teams.join(" – ");
    return "• " + (m.to_round === null ? t("tour.move_out", { teams, from: m.round })
      : t("tour.move_to", { teams, from: m.round, to: m.to_round })
        + (m.to_date && m.date && m.to_date !== m.date ? ` (${m.date} → ${m.to_date})` : ""));
  });
  const hint = gone?.length ? ["", t("tour.moves_withdraw", { teams: gone.join(", ") })] : [];
  return [t("tour.moves_confirm"), ...lines, ...hint, "", t("tour.moves_save")].join("\n");
}

// A team withdraws (its results annulled, or those played standing), or comes back. In a
// cup played as a knockout only (no league teams: #withdrawals[data-cup]) a seed withdraws,
// its pairings not played going by walkover; there is no choice of results to make.
const withdrawForm = document.getElementById("withdraw-team");
const cup = document.getElementById("withdrawals")?.hasAttribute("data-cup") ?? false;
if (withdrawForm) {
  withdrawForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const team = withdrawForm.elements.team.value;
    const results = withdrawForm.elements.results?.value || "annulled";
    const ko = document.getElementById("withdrawals")?.hasAttribute("data-knockout") ? ` ${t("tour.withdraw_confirm_ko")}` : "";
    if (!confirm(t(cup ? "tour.withdraw_confirm_cup" : `tour.withdraw_confirm_${results}`, { team }) + ko)) return;
    try {
      await api("POST", `${boot.api}/withdrawals`, { token: boot.token, json: { team, results, revision } });
      toast(t("tour.withdrawn_done", { team }));
      location.reload();
    } catch (e) {
      await refused(e);
    }
  });
}
for (const b of document.querySelectorAll(".reinstate")) {
  b.addEventListener("click", async () => {
    const team = b.dataset.team;
    if (!confirm(t("tour.reinstate_confirm", { team }))) return;
    try {
      await api("DELETE", `${boot.api}/withdrawals/${encodeURIComponent(team)}?revision=${revision}`,
        { token: boot.token });
      toast(t(cup ? "tour.reinstated_cup" : "tour.reinstated", { team }));
      location.reload();
    } catch (e) {
      await refused(e);
    }
  });
}

// A result entered without hands: a match played on paper (the vacas each team won, the
// stones if known) or a walkover (the team that did not turn up loses by the vacas to win to
// 0). The server checks it and says what is wrong; the form keeps what was typed. Opened
// from a result's "Correct", the form puts that result right in its place (PUT, its id kept)
// until it is sent or the correction is cancelled: its heading and button say so.
const resultForm = document.getElementById("add-result");
let correcting = null; // the id of the result the form corrects, or null: it adds one
function correctMode(id, teams = "") {
  correcting = id;
  if (!resultForm) return;
  document.getElementById("result-form-title").textContent = id
    ? t("tour.result_correct_form", { teams }) : t("tour.result_form");
  resultForm.querySelector("button[type=submit]").textContent = t(id ? "tour.result_correct_button"
    : "tour.result_button");
  resultForm.querySelector(".cancel-correction").hidden = !id;
  resultForm.querySelector(".result-correcting").hidden = !id;
  resultForm.dataset.correcting = id || "";
  if (!id) delete resultForm.dataset.correcting;
}
if (resultForm) {
  const f = resultForm.elements;
  const names = () => [f.team0.value.trim(), f.team1.value.trim()];
  const show = () => {
    const walkover = f.kind.value === "walkover";
    for (const box of resultForm.querySelectorAll(".result-played")) box.hidden = walkover;
    resultForm.querySelector(".result-walkover").hidden = !walkover;
    names().forEach((name, k) => {
      f.absent.options[k].textContent = name || t("tour.result_team", { n: k + 1 });
      for (const span of resultForm.querySelectorAll(`.result-name[data-k="${k}"]`)) {
        span.textContent = name || t("tour.result_team", { n: k + 1 });
      }
    });
  };
  resultForm.addEventListener("input", show);
  resultForm.addEventListener("change", show);
  show();
  resultForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearFormError(resultForm);
    const teams = names();
    const body = { teams, revision };
    let field = null;
    if (f.kind.value === "walkover") {
      body.walkover = teams[Number(f.absent.value) || 0];
    } else {
      const number = (input) => (input.value.trim() === "" ? null : Number(input.value));
      body.vacas = [number(f.vacas0), number(f.vacas1)];
      const stones = [number(f.stones0), number(f.stones1)];
      if (stones.some((s) => s !== null)) body.stones = stones.map((s) => s ?? 0);
    }
    try {
      revision = (correcting
        ? await api("PUT", `${boot.api}/results/${encodeURIComponent(correcting)}`, { token: boot.token, json: body })
        : await api("POST", `${boot.api}/results`, { token: boot.token, json: body })).revision;
      toast(t(correcting ? "tour.result_corrected" : "tour.result_done"));
      location.reload();
    } catch (e) {
      field = { vacas: f.vacas0, stones: f.stones0, "teams[0]": f.team0, "teams[1]": f.team1,
        teams: f.team0, walkover: f.absent, winner: f.vacas0 }[e.field] || null;
      await refused(e, 6000, resultForm, field);
    }
  });
}
// A result's "Correct": the form opened with what was entered, to put it right in its place.
document.addEventListener("click", (ev) => {
  const button = ev.target.closest(".correct-result");
  if (!button || !resultForm) return;
  const f = resultForm.elements;
  const d = button.dataset;
  clearFormError(resultForm);
  f.team0.value = d.team0;
  f.team1.value = d.team1;
  const walkover = d.walkover ? (d.walkover === d.team1 ? 1 : 0) : null;
  for (const radio of resultForm.querySelectorAll("input[name=kind]")) {
    radio.checked = radio.value === (walkover === null ? "played" : "walkover");
  }
  const vacas = d.vacas.split(",");
  const stones = d.stones ? d.stones.split(",") : ["", ""];
  f.vacas0.value = walkover === null ? vacas[0] : "";
  f.vacas1.value = walkover === null ? vacas[1] : "";
  f.stones0.value = walkover === null ? stones[0] : "";
  f.stones1.value = walkover === null ? stones[1] : "";
  if (walkover !== null) f.absent.value = String(walkover);
  correctMode(d.result, d.teams);
  resultForm.dispatchEvent(new Event("change"));
  const box = document.getElementById("enter-result");
  box.open = true;
  box.scrollIntoView({ block: "start" });
  (walkover === null ? f.vacas0 : f.absent).focus({ preventScroll: true });
});
resultForm?.querySelector(".cancel-correction")?.addEventListener("click", () => {
  correctMode(null);
  resultForm.reset();
  clearFormError(resultForm);
  resultForm.dispatchEvent(new Event("change"));
  resultForm.elements.team0.focus();
});
// A fixture's "enter the result": the form opened with its two teams.
document.addEventListener("click", (ev) => {
  const button = ev.target.closest(".enter-fixture-result");
  if (!button || !resultForm) return;
  const f = resultForm.elements;
  correctMode(null);
  f.team0.value = button.dataset.team0;
  f.team1.value = button.dataset.team1;
  resultForm.dispatchEvent(new Event("change"));
  const box = document.getElementById("enter-result");
  box.open = true;
  box.scrollIntoView({ block: "start" });
  (f.kind.value === "walkover" ? f.absent : f.vacas0).focus({ preventScroll: true });
});
// The organiser takes out a result entered without hands (to put it right, enter it again).
document.addEventListener("click", async (ev) => {
  const button = ev.target.closest(".remove-result");
  if (!button || !confirm(t("tour.result_remove_confirm", { teams: button.dataset.teams }))) return;
  try {
    const state = await api("DELETE",
      `${boot.api}/results/${encodeURIComponent(button.dataset.result)}?revision=${revision}`, { token: boot.token });
    revision = state.revision;
    toast(t("tour.result_removed"));
    last = "";
    await refresh();
  } catch (e) {
    await refused(e, 5000);
  }
});

// The final stage: its teams, the best first; or taken away.
const koForm = document.getElementById("set-knockout");
if (koForm) {
  koForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const teams = linesOf(koForm.elements.teams);
    clearFormError(koForm);
    try {
      const third_place = koForm.elements.third_place.checked;
      await api("PUT", `${boot.api}/knockout`, { token: boot.token, json: { teams, third_place, revision } });
      toast(t("tour.ko_drawn"));
      location.reload();
    } catch (e) {
      await refused(e, 6000, koForm, koForm.elements.teams);
    }
  });
}
// Drawing lots: the teams in a random order (the first meets the last, and so on).
const koShuffle = document.getElementById("shuffle-knockout");
if (koShuffle) {
  koShuffle.addEventListener("click", () => {
    const area = koForm.elements.teams;
    const teams = linesOf(area);
    for (let i = teams.length - 1; i > 0; i--) {
      const j = crypto.getRandomValues(new Uint32Array(1))[0] % (i + 1);
      [teams[i], teams[j]] = [teams[j], teams[i]];
    }
    area.value = teams.join("\n");
  });
}
const koRemove = document.getElementById("remove-knockout");
if (koRemove) {
  koRemove.addEventListener("click", async () => {
    if (!confirm(t("tour.ko_remove_confirm"))) return;
    try {
      await api("DELETE", `${boot.api}/knockout?revision=${revision}`, { token: boot.token });
      toast(t("tour.ko_removed"));
      location.reload();
    } catch (e) {
      await refused(e, 5000, koForm);
    }
  });
}

// The organiser renames the tournament, or deletes it (its tables stay).
const renameForm = document.getElementById("rename-tournament");
if (renameForm) {
  renameForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearFormError(renameForm);
    try {
      const state = await api("PATCH", boot.api,
        { token: boot.token, json: { name: renameForm.elements.name.value, revision } });
      revision = state.revision;
      showName(state.name);
      toast(t("tour.renamed"));
    } catch (e) {
      await refused(e, 5000, renameForm, renameForm.elements.name);
    }
  });
}
const deleteButton = document.getElementById("delete-tournament");
if (deleteButton) {
  deleteButton.addEventListener("click", async () => {
    if (!confirm(t("tour.delete_confirm", { name: boot.state.name }))) return;
    try {
      await api("DELETE", `${boot.api}?revision=${revision}`, { token: boot.token });
      forgetTournament(boot.id);
      location.href = "/";
    } catch (e) {
      await refused(e, 5000);
    }
  });
}

// "/t/<id>?token=<players' token>" from a pasted link (or null)
export function tableFromLink(text) {
  try {
    const u = new URL(text.trim(), location.href);
    const m = /\/t\/([^/]+)\/?$/.exec(u.pathname);
    const token = u.searchParams.get("token");
    return m && token ? { table: decodeURIComponent(m[1]), token } : null;
  } catch (e) {
    return null;
  }
}

// Whether a pasted link is a table's spectators' link ("/w/<id>?token=<watch token>")
export function isWatchLink(text) {
  try {
    return /\/w\/[^/]+\/?$/.test(new URL(text.trim(), location.href).pathname);
  } catch (e) {
    return false;
  }
}

const form = document.getElementById("add-table");
if (form) {
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const link = form.elements.link;
    const body = tableFromLink(link.value);
    clearFormError(form);
    if (!body) {
      formError(form, t(isWatchLink(link.value) ? "tour.watch_link" : "tour.bad_link"), link);
      return;
    }
    try {
      const state = await api("POST", `${boot.api}/tables`, { token: boot.token, json: body });
      form.reset();
      // added all the same where its rules are not the tournament's: the list says which
      const differ = (state.matches || []).find((m) => m.table === body.table)?.rules_differ;
      toast(t(differ ? "tour.added_rules_differ" : "tour.added"), "info", differ ? 6000 : undefined);
      last = "";
      await refresh();
    } catch (e) {
      formError(form, e.text || t("err.generic"), link);
    }
  });
}

// The organiser's link is the tournament's key: a button copies it (or selects it where
// the clipboard needs https).
for (const b of document.querySelectorAll(".copy-link")) {
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(b.dataset.url);
      toast(t("inv.copied"));
    } catch (e) {
      const shown = document.createElement("span");
      shown.className = "watch-url";
      shown.textContent = b.dataset.url;
      b.replaceWith(shown);
      const range = document.createRange();
      range.selectNodeContents(shown);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
    }
  });
}
