// History: import hands into this table (mus-match/1).
import { api, t, toast, newClientId, fileErrorText, showChosenFile } from "./common.js";

const BOOT = JSON.parse(document.getElementById("boot").textContent);

const form = document.getElementById("import-into");
if (form) {
  showChosenFile(form.elements.match);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const file = form.elements.match.files[0];
    if (!file) { toast(t("err.missing_file"), "error"); return; }
    const q = new URLSearchParams({ client_id: newClientId(), version: form.dataset.version });
    try {
      await api("POST", `/api/tables/${encodeURIComponent(BOOT.table_id)}/import?${q}`, {
        token: BOOT.token, body: await file.text(), headers: { "Content-Type": "application/x-ndjson" },
      });
      location.reload();
    } catch (e) {
      toast(fileErrorText(e), "error", 5000);
      if (e.code === "stale_version") setTimeout(() => location.reload(), 1200);
    }
  });
}
