// Progress without a card face: what a spectator may see before finishing their own game.
const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);

export function outcomeText(outcome) {
  const texts = {
    won: _("won"),
    lost: _("lost"),
    resigned: _("gave up"),
    in_progress: _("playing"),
    // a race's game still going when someone cleared the pyramid
    stopped: _("stopped"),
    // a race's player in the lobby, before the start
    ready: _("ready"),
  };
  return texts[outcome] || outcome;
}

export function summaryItem(summary, { name, size, href } = {}) {
  const li = document.createElement("li");
  li.dataset.game = summary.game || "";
  const title = document.createElement(href ? "a" : "strong");
  title.textContent = name || (summary.player && summary.player.display_name) || "?";
  if (href) title.href = href;
  const text = document.createElement("p");
  text.className = "summary-text";
  text.textContent = fmt(_("Score %(score)s · Moves %(moves)s · Cards left %(left)s · %(outcome)s"), {
    score: summary.score,
    moves: summary.moves,
    left: summary.pyramid_left,
    outcome: outcomeText(summary.outcome),
  });
  const bar = document.createElement("div");
  bar.className = "progress";
  bar.setAttribute("aria-hidden", "true");
  const fill = document.createElement("span");
  const total = size || 28;
  fill.style.width = `${Math.round((100 * (total - summary.pyramid_left)) / total)}%`;
  bar.append(fill);
  li.append(title, text, bar);
  return li;
}
