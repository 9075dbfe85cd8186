// History: import hands into this table (mus-match/1); every hand prints whole.
import { api, t, newClientId, fileErrorText, showChosenFile, formError, clearFormError } from "./common.js";

const BOOT = JSON.parse(document.getElementById("boot").textContent);

// A hand whose count in words is missing shows its events, each one's reason in the page's
// words: the server says them (web/i18n.py why_text, as the table page's whyText), so the
// page reads whole without script and nothing here says them again.

const form = document.getElementById("import-into");
if (form) {
  showChosenFile(form.elements.match);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const file = form.elements.match.files[0];
    const input = form.elements.match;
    if (!file) { formError(form, t("err.missing_file"), input); return; }
    clearFormError(form);
    const q = new URLSearchParams({ client_id: newClientId(), version: form.dataset.version });
    const body = await file.text();
    const send = () => api("POST", `/api/tables/${encodeURIComponent(BOOT.table_id)}/import?${q}`, {
      token: BOOT.token, body, headers: { "Content-Type": "application/x-ndjson" },
    });
    try {
      try {
        await send();
      } catch (e) {
        // another pairing's file: imported only where the organiser means the table to become that match
        if (e.code !== "teams_differ") throw e;
        if (!confirm(t("hist.import_other_teams", { file: e.params.file, table: e.params.table }))) return;
        q.set("rename", "1");
        await send();
      }
      location.reload();
    } catch (e) {
      formError(form, fileErrorText(e), input);
      if (e.code === "stale_version") setTimeout(() => location.reload(), 1200);
    }
  });
}

// Printed, every hand shows what it holds, not only the one open on the screen: the
// folded ones open for the print and fold again after it (the print CSS opens them too,
// where the browser can; a print preview emulated by the print media query opens them).
let openedForPrint = [];
function openForPrint() {
  for (const d of document.querySelectorAll("details.hand-card")) {
    if (!d.open) { d.open = true; openedForPrint.push(d); }
  }
}
function foldAfterPrint() {
  for (const d of openedForPrint) d.open = false;
  openedForPrint = [];
}
window.addEventListener("beforeprint", openForPrint);
window.addEventListener("afterprint", foldAfterPrint);
const printMedia = window.matchMedia("print");
printMedia.addEventListener("change", (ev) => (ev.matches ? openForPrint() : foldAfterPrint()));
if (printMedia.matches) openForPrint();
