// Reporting a player to the moderators (docs/fairplay.md): a button that opens a small dialog
// (category and note), sends `report`, and shows the server's answer. The reporter is never
// told what a moderator decides.
import { button, h, toast } from "./dom.js";

const CATEGORIES = [["cheating", "Cheating (a program or a solver)"], ["sandbagging", "Losing on purpose"],
  ["boosting", "Win trading / boosting"], ["abuse", "Abusive name or behaviour"], ["other", "Something else"]];

export function reportButton(conn, name, race = null) {
  return button("Report", () => openReport(conn, name, race), { class: "small report", "aria-label": `Report ${name}` });
}

export function openReport(conn, name, race = null) {
  const category = h("select", { id: "report-category" }, CATEGORIES.map(([v, t]) => h("option", { value: v, text: t })));
  const note = h("textarea", { id: "report-note", maxlength: "500", rows: "3", placeholder: "What happened? (optional, 500 characters at most)" });
  const error = h("p", { class: "error", role: "alert" });
  const dialog = h("dialog", { class: "report-dialog", "aria-labelledby": "report-title" },
    h("h2", { id: "report-title", text: `Report ${name}` }),
    h("p", { class: "muted small", text: "A moderator looks at every report. You will not be told the outcome." }),
    h("label", { for: "report-category", text: "Reason " }), category,
    h("label", { for: "report-note", class: "block", text: "Note" }), note, error,
    h("div", { class: "actions" },
      button("Send report", async () => {
        try {
          const fields = { player: name, category: category.value, note: note.value };
          if (race) fields.race = race;
          const r = await conn.request("report", fields);
          dialog.close();
          toast(`Reported ${r.player}. Thank you.`);
        } catch (err) { error.textContent = err.message; }
      }, { class: "primary" }),
      button("Cancel", () => dialog.close())));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  category.focus();
  return dialog;
}
