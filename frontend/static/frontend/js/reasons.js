// The server explains a refused move in English (games/engine); the common refusals are said
// again here in the page's language, and anything else is shown as the server wrote it.
const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);
const ngettext = (one, many, n) => (window.ngettext ? window.ngettext(one, many, n) : n === 1 ? one : many);

function cardText(label) {
  return /^the face-down card at /.test(label) ? _("the face-down card") : label;
}

const RULES = [
  [/^the game has \d+ moves and you have seen \d+/, () => _("the game had moved on elsewhere: here is where it stands now")],
  [/^(\S+) \+ (\S+) is (\d+), not (\d+)$/, (m) => fmt(_("%(a)s + %(b)s makes %(sum)s, not %(target)s"), { a: m[1], b: m[2], sum: m[3], target: m[4] })],
  [/^(.+) is covered by (\d+) cards?$/, (m) => fmt(ngettext("%(card)s is covered by %(n)s card", "%(card)s is covered by %(n)s cards", Number(m[2])), { card: cardText(m[1]), n: m[2] })],
  [/^in \S+ every pair needs a pyramid card$/, () => _("every pair needs a pyramid card")],
  [/^(W\d) pairs only with another waste card$/, () => _("a card under the waste top pairs only with another waste card")],
  [/^the card at \S+ is already gone$/, () => _("that card is already gone")],
  [/^the stock is empty: turn the waste over with R$/, () => _("the stock is empty: turn the waste over")],
  [/^the stock is empty and no redeal is left$/, () => _("the stock is empty and no redeal is left")],
  [/^no redeal is left/, () => _("no redeal is left")],
  [/^the stock still has/, () => _("the stock is not empty yet: draw first")],
  [/^you may draw only when nothing can be removed: (\S+) \+ (\S+) \(\S+\) make (\d+)$/, (m) =>
    fmt(_("you may draw only when nothing can be removed: %(a)s + %(b)s make %(sum)s"), { a: cardText(m[1]), b: cardText(m[2]), sum: m[3] })],
  [/^you may draw only when nothing can be removed: (\S+) \(\S+\) counts \d+ and leaves alone$/, (m) =>
    fmt(_("you may draw only when nothing can be removed: %(card)s leaves alone"), { card: cardText(m[1]) })],
  [/^you may draw only when nothing can be removed/, () => _("you may draw only when nothing can be removed")],
  [/^only the top card of the waste \(W\) is in play$/, () => _("only the top card of the waste is in play")],
  [/^only the top (\d+) cards of the waste \(W to W\d+\) are in play$/, (m) =>
    fmt(ngettext("only the top %(n)s card of the waste is in play", "only the top %(n)s cards of the waste are in play", Number(m[1])), { n: m[1] })],
  [/^(\S+) counts (\d+): only a king leaves alone/, (m) => fmt(_("%(card)s counts %(n)s: only a king leaves alone"), { card: m[1], n: m[2] })],
];

export function localReason(message) {
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(message || "");
    if (m) return say(m);
  }
  return message;
}
