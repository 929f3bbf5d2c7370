// A spoiler-free result to paste anywhere: which rows were cleared (not which cards), the score
// against the day's par, the day number.
const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);

export function shareText({ state, dayNumber, presetLabel, score, par, won }) {
  const rows = state.rows.length;
  const lines = state.rows.map((row, r) => {
    const cleared = row.every((cell) => cell === null);
    return " ".repeat(rows - 1 - r) + (cleared ? "🟩" : "⬜").repeat(r + 1);
  });
  const head = fmt(_("Piramide #%(day)s · %(preset)s"), { day: dayNumber, preset: presetLabel });
  const result = par != null ? fmt(_("%(score)s points (par %(par)s)"), { score, par }) : fmt(_("%(score)s points"), { score });
  return [head, ...lines, `${won ? "🏆 " : ""}${result}`].join("\n");
}

export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall through to the old way
    }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}
